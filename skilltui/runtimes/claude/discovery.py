"""Claude Code 2.1.332: where skills come from, which copy wins, what reaches the listing (spec/claude-code.md)."""

from __future__ import annotations

import dataclasses
import gc
import math
import os
import re
import stat
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from skilltui import frontmatter, leaving
from skilltui.frontmatter import FileFrontmatter, claude_body, parse_claude, read_capped
from skilltui.model import (
    CONDITIONAL,
    DISABLED,
    FILTERED,
    HIDDEN,
    INVALID,
    LISTED,
    SHADOWED,
    Catalog,
    CatalogFacts,
    Diagnostic,
    Frontmatter,
    FrontmatterStatus,
    Options,
    Plugin,
    Severity,
    Skill,
    SkillFacts,
    StatusValue,
)
from skilltui.record import Record
from skilltui.runtimes.claude import plugins as plugin_mod
from skilltui.runtimes.claude.entry import DEFAULT_CAP, entry_text
from skilltui.runtimes.claude.settings import Paths, Settings, env_truthy, load_settings, paths_for
from skilltui.runtimes.claude.shipped import SHIPPED, UNLISTED_NAMES
from skilltui.text import collate, utf16_len

NAME = "claude"
VERSION = "2.1.332"
MAX_SKILL_BYTES = 1_000_000  # §3 step 4: larger SKILL.md files are skipped
MAX_ENTRIES_PER_DIR = 20_000  # bound on hostile folders
OVERRIDE_RANK = {"off": 3, "user-invocable-only": 2, "name-only": 1, "on": 0}
RESERVED_DIR = "synced"


# ---------------------------------------------------------------- names and labels (§4)
def fs_name(name: str) -> str:
    """A folder or file name as Node reads it: bytes that are not UTF-8 become U+FFFD (Python keeps surrogates)."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "replace") if not name.isascii() else name


def _bad_char(ch: str) -> bool:
    cp = ord(ch)
    if cp <= 0x1F or 0x7F <= cp <= 0x9F or cp in (0x2028, 0x2029) or ch in "<>":
        return True
    return unicodedata.category(ch) == "Cf" or cp in (0x115F, 0x1160, 0x3164, 0xFFA0, 0x034F) or 0xFE00 <= cp <= 0xFE0F


_PLAIN_NAME = re.compile(r"[A-Za-z0-9_.-]+(?::[A-Za-z0-9_.-]+)*")


def name_problem(name: str) -> str | None:
    """Why a name is not offered (§4.2), or None."""
    if len(name) <= 256 and _PLAIN_NAME.fullmatch(name):
        return None  # the common case, decided without looking at each character
    if not name:
        return "the name is empty"
    if utf16_len(name) > 256:
        return "the name is longer than 256 UTF-16 units"
    bad = next((ch for ch in name if _bad_char(ch)), None)
    if bad is not None:
        return f"the name contains U+{ord(bad):04X}, which names may not hold"
    if "  " in name:
        return "the name contains two consecutive spaces"
    if " :" in name or ": " in name:
        return "the name has a space next to ':'"
    if name.startswith(":") or name.endswith(":"):
        return "the name starts or ends with ':'"
    return None


def _display_ok(display: str) -> bool:
    if utf16_len(display) > 256:
        return False
    return all(ch in "_:.-" or unicodedata.category(ch)[0] in "LMN" for ch in display)


def label_for(skill: Skill, names: set[str] | frozenset[str], first_with_display: dict[str, Skill] | None = None) -> str:
    """§4.3: looking the display name up must find this entry: no entry (nor a command Claude Code ships) has it as
    its name, and no entry earlier in the listing shows it (observed). Legacy commands never show it."""
    d = skill.display_name
    if skill.source == "legacy-command":
        return skill.name
    if d and d != skill.name and _display_ok(d) and not skill.name.endswith(":" + d) and d not in names \
            and (first_with_display is None or first_with_display.get(d, skill) is skill):
        return f"{skill.name} ({d})"
    return skill.name


@dataclass(slots=True, repr=False)
class ClaudeSkillFacts(SkillFacts):
    """What Claude Code's discovery keeps about one entry beyond its row."""

    file_id: tuple[int, int] | None = None  # (device, inode): the same file reached twice is loaded once
    has_description: bool = False  # description or when_to_use is set (a plugin item needs one to be listed)
    user_invocable: bool = True
    disable_model_invocation: bool = False
    named_by_frontmatter: bool = False  # a plugin item named by its frontmatter `name` (§4.3)
    exempt: bool = False  # a shipped entry the budget never shortens
    scoped_extra: bool = False  # an add-dir scoped extra (§6.3)


_NO_FACTS = ClaudeSkillFacts()  # what an entry that was never read answers; never written


def skill_facts(s: Skill) -> ClaudeSkillFacts:
    """An entry's Claude Code facts (the defaults for an entry that was never read)."""
    return s.facts if isinstance(s.facts, ClaudeSkillFacts) else _NO_FACTS


def _own(s: Skill) -> ClaudeSkillFacts:
    if not isinstance(s.facts, ClaudeSkillFacts):
        s.facts = ClaudeSkillFacts()
    return s.facts


def _plugin_display(s: Skill) -> str | None:
    """A plugin item's display name: `<plugin>:<frontmatter name>`, not prefixed again when the name already carries
    the prefix (`name: demo:check`, §4.3 observed)."""
    if not s.display_name:
        return s.display_name
    prefix = s.name.rsplit(":", 1)[0] + ":"  # the item's namespace: `plugin:` or `plugin:sub:` (observed)
    return s.display_name if s.display_name.startswith(prefix) else prefix + s.display_name


# ---------------------------------------------------------------- frontmatter fields (§5.2, §5.3)
def js_number(value: float) -> str:
    """JavaScript Number.prototype.toString: shortest round-trip digits, exponent form outside [1e-7, 1e21)."""
    if value != value:
        return "NaN"
    if value in (math.inf, -math.inf):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    digits, _, exp = repr(abs(value)).replace(".0e", "e").partition("e")
    if "." in digits:
        whole, frac = digits.split(".")
        frac = frac.rstrip("0")
    else:
        whole, frac = digits, ""
    e10 = int(exp or 0)
    sig = (whole + frac).lstrip("0")
    n = len(whole) + e10 - (len(whole + frac) - len((whole + frac).lstrip("0")))  # decimal point position after sig[0..n)
    sig = sig.rstrip("0") or "0"
    k = len(sig)
    if k <= n <= 21:
        return sign + sig + "0" * (n - k)
    if 0 < n <= 21:
        return sign + sig[:n] + "." + sig[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * (-n) + sig
    e = n - 1
    mantissa = sig[0] + ("." + sig[1:] if k > 1 else "")
    return f"{sign}{mantissa}e{'+' if e >= 0 else '-'}{abs(e)}"


def _double(value: int) -> float:
    """An int as the double JavaScript holds: beyond the largest double it is +/-Infinity (Python raises)."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def js_string(value: Any) -> str | None:
    """JavaScript String(value) for the YAML types we meet (a JS parser reads every number as a double)."""
    if value is None:
        return None
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value) if abs(value) < 2**53 else js_number(_double(value))
    if isinstance(value, float):
        return js_number(value)
    if isinstance(value, list):
        return ",".join("" if v is None else (js_string(v) or "") for v in value)
    if isinstance(value, dict):
        return "[object Object]"
    return str(value)


def js_bool(value: Any, default: bool) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        low = value.strip().lower()
        if low in ("1", "true", "yes", "on"):
            return True
        if low in ("0", "false", "no", "off"):
            return False
    return default


def description_of(data: dict[str, Any]) -> str | None:
    """§5.2: `description` as Claude Code reads it: a trimmed string (empty = absent), numbers and booleans as text,
    anything else ignored. The doctor's checks call this too."""
    raw = data.get("description")
    if type(raw) is str:
        return raw.strip() or None
    if isinstance(raw, (bool, int, float)):
        return js_string(raw)
    return None


def when_to_use_of(data: dict[str, Any]) -> str | None:
    wtu = data.get("when_to_use")
    return js_string(wtu) if wtu is not None else None


def model_invocation_disabled(value: Any) -> bool:
    """§5.2 `disable-model-invocation`, observed: true, and strings or numbers that read 1/true/yes/on once trimmed
    (`1`, `1.0`, `' yes '`); not 2, -1, `y`, lists (`[true]`) or null."""
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float, str)):
        text = value if isinstance(value, str) else js_string(value) or ""  # a number always has a text
        return text.strip().lower() in ("1", "true", "yes", "on")
    return False


def first_body_line(body: str) -> str | None:
    pos = 0
    while pos <= len(body):  # line by line, without splitting a long body that usually starts with its line
        end = body.find("\n", pos)
        if end < 0:
            end = len(body)
        line = body[pos:end].strip()
        pos = end + 1
        if line:
            if line.startswith("#"):
                stripped = line.lstrip("#")
                line = stripped[1:] if stripped.startswith(" ") else stripped
            if utf16_len(line) > 100:
                line = _utf16_prefix(line, 97) + "..."
            return line
    return None


def _utf16_prefix(s: str, units: int) -> str:
    """JavaScript `s.slice(0, units)`: a cut surrogate pair leaves its lone high half (sanitising turns it to a space)."""
    return s.encode("utf-16-le", "surrogatepass")[: 2 * units].decode("utf-16-le", "surrogatepass")


MAX_PATTERNS = 1000


def expand_braces(pattern: str) -> list[str]:
    """`a{b,c}d` → `abd`, `acd`; bounded, so `{a,b}` repeated forty times stays cheap."""
    out = [pattern]
    while True:
        grown, changed = [], False
        for p in out:
            start = p.find("{")
            end = p.find("}", start + 1)
            if start < 0 or end < 0:
                grown.append(p)
                continue
            changed = True
            head, body, tail = p[:start], p[start + 1 : end], p[end + 1 :]
            grown.extend(head + alt + tail for alt in body.split(","))
            if len(grown) >= MAX_PATTERNS:
                break
        out = grown[:MAX_PATTERNS]
        if not changed:
            return out


def split_paths(value: Any, trim: bool = True) -> list[str]:
    """§5.5: commas outside braces split, lists flatten, braces expand, a trailing `/**` goes. Matching a touched
    path uses the pieces untrimmed (`trim=False`): in `"a/*.py, b/*.py"` the second pattern keeps its leading space
    and matches nothing (observed, tests/fixtures/touch)."""
    raw: list[str] = []
    items = value if isinstance(value, list) else [value]
    for item in items:
        if not isinstance(item, str):
            continue
        depth, cur = 0, ""
        for ch in item:
            depth += ch == "{"
            depth -= ch == "}" and depth > 0
            if ch == "," and depth == 0:
                raw.append(cur)
                cur = ""
            else:
                cur += ch
        raw.append(cur)
    out = []
    for p in raw:
        p = p.strip() if trim else p
        if not p.strip():
            continue
        for q in expand_braces(p):
            out.append(q[:-3] if q.endswith("/**") else q)  # "/**" leaves "": unconditional (observed)
    return out


# ---------------------------------------------------------------- discovery
@dataclass(eq=False, repr=False)  # compared nowhere: no __eq__ to generate at every start
class _Scan(Record):
    """One discovery's working state: its settings, diagnostics and the stats it took."""

    settings: Settings
    diags: list[Diagnostic] = field(default_factory=list)
    seen_files: dict[tuple[int, int] | str, Skill] = field(default_factory=dict)  # (device, inode) of a loaded file -> its first entry
    # path -> the stat taken when the file was found (a skills folder's SKILL.md: by the look-ahead): one stat a file
    stats: dict[str, os.stat_result] = field(default_factory=dict)

    def diag(self, severity: Severity, code: str, path: str | None, message: str, line: int | None = None,
             fix: str | None = None) -> None:
        self.diags.append(Diagnostic(severity, code, path, message, line, fix, runtime=NAME))


Parsed = tuple[Frontmatter, bool, str | None]  # a file's frontmatter (without its body), invalid UTF-8?, first body line
# Parsed files by (path, inode, mtime, size, ctime): a refresh re-reads only what changed. The values are never
# mutated after parsing, so catalogs may share them.
_PARSED: dict[tuple[str, int, int, int, int], Parsed] = {}
MAX_PARSED = 50_000


def _parsed(path: str, st: os.stat_result) -> Parsed:
    key = (path, st.st_ino, st.st_mtime_ns, st.st_size, st.st_ctime_ns)
    hit = _PARSED.get(key)
    if hit is None:
        hit = _parse_file(path, st)
        if len(_PARSED) >= MAX_PARSED:
            _PARSED.clear()
        _PARSED[key] = hit
    return hit


def _parse_file(path: str, st: os.stat_result) -> Parsed:
    text, _, truncated, invalid_utf8 = read_capped(path, MAX_SKILL_BYTES, st)
    fm = parse_claude(text, (path, MAX_SKILL_BYTES))  # a FileFrontmatter: the body is read again if needed
    if frontmatter.ON_READ and not (truncated or invalid_utf8):  # a caller's work on the text (the doctor's checks)
        frontmatter.after_read(path, text, fm)
    # ... so the description fallback is taken now, when there can be a need for it.
    desc = fm.data.get("description")
    usable = isinstance(desc, (bool, int, float)) or (isinstance(desc, str) and desc.strip())
    return fm, invalid_utf8, None if usable else first_body_line(claude_body(text))


# Below this many files to parse, a cold scan stays in one process (a fork and the transfer cost a few ms).
PARALLEL_MIN_FILES = 400
Compact = tuple[dict[str, Any], bool, FrontmatterStatus, str | None, int | None, int, bool, bool, str | None, object]


def _parse_compact(item: tuple[str, os.stat_result]) -> Compact:
    """`_parse_file` as plain values, for a child process to send back (parallel.in_two)."""
    fm, invalid_utf8, body_line = _parse_file(*item)
    return (fm.data, fm.present, fm.status, fm.error, fm.error_line, fm.body_line, fm.early_close, invalid_utf8,
            body_line, frontmatter.READ_EXTRAS.pop(item[0], None))  # the caller's per-file work goes back with it


def _prefill(scan: _Scan, skills: list[Skill]) -> None:
    """Parse the files of a big cold scan in two processes (parallel.in_two) into `_PARSED`; whatever the child does
    not give back is parsed here later, by `_load_entry`, as in a one-process scan. The files were stat-ed through
    `os.stat` when found, so the answer cache has seen every path the child reads."""
    todo = [(s.path, st) for s in skills if s.path and (st := scan.stats.get(s.path)) is not None
            and (s.path, st.st_ino, st.st_mtime_ns, st.st_size, st.st_ctime_ns) not in _PARSED]
    if len(todo) < PARALLEL_MIN_FILES or len(_PARSED) + len(todo) > MAX_PARSED:
        return
    from skilltui import parallel

    cut = len(todo) // 2
    got = parallel.in_two(todo, lambda first: [_parsed(path, st) for path, st in first], _parse_compact)
    for (path, st), r in zip(todo[cut:], got or ()):
        if r is not None:
            _store_compact(path, st, r)


def _stat_fields(st: os.stat_result) -> tuple[float, ...]:
    """An os.stat_result as plain values a child process sends: `os.stat_result(fields)` is the same stat again (the
    ten fields of the tuple, then the float and nanosecond times), made in the child, where it costs nothing."""
    return (*st, st.st_atime, st.st_mtime, st.st_ctime, st.st_atime_ns, st.st_mtime_ns, st.st_ctime_ns)


def _skill_md_paths(entries: list[os.DirEntry[str]]) -> list[str | None]:
    """For each entry of a skills folder, the SKILL.md path `_scan_skills_dir` stats when it is a folder or a link,
    else None. Made once: the look-ahead and the scan then hold the same string, and each dict lookup by it (the
    stats, the parse cache) is an identity check."""
    return [e.path + _SKILL_MD if e.name != RESERVED_DIR and (e.is_symlink() or e.is_dir(follow_symlinks=False))
            else None for e in entries]


def _ahead(path: str) -> tuple[tuple[float, ...], Compact | None] | None:
    """What `_scan_skills_dir` and `_load_entry` need of one SKILL.md, as plain values a child process sends back: its
    stat and, for a file that will be read, its parse. None when the stat fails (the scan looks again and explains)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return _stat_fields(st), _parse_compact((path, st)) if _will_read(st) else None


def _will_read(st: os.stat_result) -> bool:
    """Whether `_load_entry` reads the file: a regular file within Claude Code's size (§3 step 4)."""
    return stat.S_ISREG(st.st_mode) and st.st_size <= MAX_SKILL_BYTES


# A SKILL.md path of a skills folder with its entry there, the folder and its source: what the look-ahead works on.
Candidate = tuple[str, os.DirEntry[str], str, str]


@dataclass(slots=True, repr=False)
class Built(Record):
    """A skills-folder entry the look-ahead made as soon as its file was parsed (the scan's work on it, then the
    load's: §3, §5), while the other process parses; with the diagnostics of each, which the scan and the load
    give in their order, as if it had been made there."""

    skill: Skill | None  # None: not a skill (its diagnostics say why)
    loaded: Loaded | None  # its `_as_loaded` snapshot
    scan_diags: Sequence[Diagnostic]
    load_diags: Sequence[Diagnostic]


def _look_ahead(scan: _Scan, candidates: list[Candidate], first: Callable[[], object],
                manifest_of: Callable[[str], str | None], built: list[Built | None]) -> list[str]:
    """Stat and parse the skills folders' SKILL.md files in two processes from the start (parallel.from_both_ends):
    this process runs `first` (the plugins) and then takes files from the front, a forked child from the back.
    Each file's entry is made here as soon as its parse is at hand (`built`, one place per candidate), while the
    other process parses: the scan and the load then take it. What is missing (a child that failed) they do
    themselves, in order, as in one process. `manifest_of(file)`: a path to check for existence (os.access) with
    that file, or None; returns those found."""
    from skilltui import cache, parallel

    found: list[str] = []
    early = _Scan(scan.settings, stats=scan.stats)  # the entries' diagnostics, each entry's sliced off in turn
    diags = early.diags
    observed = cache.observing()
    # Each parse goes straight into its entry; `_PARSED` keeps it for a later scan in this process, which a process
    # that ends after this command does not have (and a dict of 21,000 keys costs more per file than of 6,000).
    store = not leaving.active()

    def build(i: int, st: os.stat_result | None, parsed: Parsed | None) -> None:
        """The entry of candidate i, from its file's stat and parse when they are at hand (None: looked at again)."""
        path, e, root, source = candidates[i]
        start = len(diags)
        skill = _scan_entry(early, e, path, root, source, st)
        mid = len(diags)
        loaded = None
        if skill is not None:
            _load_entry(early, skill, "Skill", st, parsed)
            loaded = _as_loaded(skill)
        built[i] = Built(skill, loaded, diags[start:mid] if mid > start else (), diags[mid:] if len(diags) > mid else ())
        if st is None:
            scan.stats.pop(path, None)  # its entry holds what it needs of it: the stat's memory serves the next file

    def here(i: int) -> None:
        path = candidates[i][0]
        manifest = manifest_of(path)
        if manifest is not None and os.access(manifest, os.F_OK):
            found.append(manifest)
        try:
            st = os.stat(path)
        except OSError:
            return build(i, None, None)  # the entry's own look explains the failure
        parsed = None
        if _will_read(st):
            try:
                parsed = _parsed(path, st) if store else _parse_file(path, st)
            except OSError:
                pass  # read again, and reported, by _load_entry
        build(i, st, parsed)

    def there(i: int) -> tuple[tuple[tuple[float, ...], Compact | None] | None, bool | None]:
        path = candidates[i][0]
        manifest = manifest_of(path)
        return _ahead(path), None if manifest is None else os.access(manifest, os.F_OK)

    def take(i: int, r: tuple[tuple[tuple[float, ...], Compact | None] | None, bool | None]) -> None:
        ahead, there_found = r  # the child's, as it publishes them; what it looked at is noted here (it records nothing)
        path = candidates[i][0]
        if there_found is not None:
            manifest = manifest_of(path)
            if manifest is not None:
                if there_found:  # looked at again here, before the plugins are loaded again
                    found.append(manifest)
                else:
                    cache.note_stat(observed, manifest, None)
        if ahead is None:  # its stat failed there: the entry's own looks again here
            return build(i, None, None)
        fields, compact = ahead
        st = os.stat_result(fields)
        cache.note_stat(observed, path, st)  # the file's open and read are the same look
        build(i, st, None if compact is None else _store_compact(path, st, compact, store))

    parallel.from_both_ends(range(len(candidates)), first, here, there, take)
    return found


def _store_compact(path: str, st: os.stat_result, compact: Compact, store: bool = True) -> Parsed:
    """A child's parse of a file as `_parsed` gives it; kept in `_PARSED` too when `store`."""
    data, present, status, error, error_line, body_line, early_close, invalid_utf8, first_line, extra = compact
    if extra is not None:
        frontmatter.READ_EXTRAS[path] = extra
    fm = FileFrontmatter((path, MAX_SKILL_BYTES), data, present, status, error, error_line, body_line, early_close)
    parsed = fm, invalid_utf8, first_line
    if store:
        _PARSED[(path, st.st_ino, st.st_mtime_ns, st.st_size, st.st_ctime_ns)] = parsed
    return parsed


def _load_entry(scan: _Scan, skill: Skill, fallback: str, st: os.stat_result | None = None,
                parsed: Parsed | None = None) -> None:
    """Read and parse one file into the entry's fields; problems become diagnostics on the entry. Thousands of
    entries come through here after the files are parsed: the common cases (string values, absent keys) are tested
    first, with one look at each key. `st`, `parsed`: the file's stat and `_parsed`, when the caller has them."""
    path = skill.path
    if st is None:
        st = scan.stats.get(path)
    try:
        if st is None:
            st = scan.stats[path] = os.stat(path)
        fm, invalid_utf8, body_line = parsed or _parsed(path, st)
    except OSError as exc:
        skill.status, skill.reason = INVALID, f"cannot be read: {exc.strerror or exc}"
        scan.diag("error", "claude-unreadable", path, f"{skill.name}: {skill.reason}")
        return
    facts = skill.facts
    if not isinstance(facts, ClaudeSkillFacts):
        facts = skill.facts = ClaudeSkillFacts()
    facts.file_id = (st.st_dev, st.st_ino)
    if invalid_utf8:
        scan.diag("warning", "file-invalid-utf8", path, "the file is not valid UTF-8; invalid bytes read as U+FFFD")
    skill.frontmatter = fm
    data = fm.data
    status = fm.status
    if status == "ok" or status == "none":
        pass
    elif status == "retried":
        scan.diag("warning", "claude-frontmatter-retried", path,
                  f"frontmatter parsed only after Claude Code's quoting retry ({fm.error})", fm.error_line,
                  fix="Quote the value that holds ': ' or a special character")
    elif status == "invalid":
        scan.diag("warning", "claude-frontmatter-invalid", path,
                  f"frontmatter is not valid YAML even after the retry ({fm.error}); all its fields are ignored",
                  fm.error_line, fix="Fix the YAML (quote values with ': ', use LF line endings)")
    elif status == "not-mapping":
        scan.diag("warning", "claude-frontmatter-invalid", path, "frontmatter is not a mapping; all its fields are ignored", 2)
    if fm.early_close:
        scan.diag("warning", "claude-frontmatter-early-close", path,
                  "the frontmatter was closed by a '---' inside a line; the rest of the block became body", fix="Quote values containing ---")

    raw_desc = data.get("description")
    desc = description_of(data)
    if raw_desc is not None and type(raw_desc) is not str and not isinstance(raw_desc, (bool, int, float)):
        scan.diag("warning", "claude-description-ignored", path,
                  f"description is a {type(raw_desc).__name__}, which Claude Code ignores", fix="Write the description as one string")
    wtu = when_to_use_of(data)
    facts.has_description = desc is not None or wtu is not None
    if desc is None:
        desc = body_line or fallback
        if skill.source not in ("plugin", "plugin-command") or wtu is not None:
            scan.diag("info", "claude-description-missing", path,
                      f'no description; Claude Code uses "{desc}"', fix="Add a description: line to the frontmatter")
    skill.description, skill.when_to_use = desc, wtu
    name = data.get("name")
    skill.display_name = name if type(name) is str else (
        js_string(name) if name is not None and not isinstance(name, (list, dict)) else None)
    invocable = data.get("user-invocable")
    facts.user_invocable = True if invocable is None else js_bool(invocable, True)
    dmi = data.get("disable-model-invocation")
    if dmi is not None and model_invocation_disabled(dmi):
        facts.disable_model_invocation = True
    if "paths" in data and skill.source not in ("legacy-command", "plugin", "plugin-command"):  # §5.5: skills dirs only
        patterns = split_paths(data["paths"])
        if patterns and not all(p in ("**", "") for p in patterns):
            skill.paths = patterns


_SKILL_MD = os.sep + "SKILL.md"


def _name(s: Skill) -> str:
    return s.name


def _list_root(root: str, keep_order: bool = False, scan: _Scan | None = None) -> list[os.DirEntry[str]] | OSError:
    """The folder's entries (the first MAX_ENTRIES_PER_DIR the system gives; `scan` is told when there were more), in
    ICU order of their names unless `keep_order`. Sorted before anything is made of them, so that the files are parsed
    and the entries built in the listing's order: each later pass over thousands of entries then walks memory in the
    order it was written (the passes after parsing took a fifth less time on 20,000 skills than when built in
    directory order, then sorted)."""
    try:
        with os.scandir(root) as it:
            entries = [e for _, e in zip(range(MAX_ENTRIES_PER_DIR + 1), it)]  # one more: to know there were more
    except OSError as exc:
        return exc.with_traceback(None)  # its traceback would hold the caller's frame (and so every local) in a cycle
    if len(entries) > MAX_ENTRIES_PER_DIR:
        del entries[MAX_ENTRIES_PER_DIR:]
        if scan is not None:
            scan.diag("warning", "claude-dir-capped", root,
                      f"this folder holds more than {MAX_ENTRIES_PER_DIR:,} entries; skilltui reads the first "
                      f"{MAX_ENTRIES_PER_DIR:,} the system lists and shows no skill of the others, which Claude Code "
                      "still reads", fix="Split the folder, or move what is not a skill elsewhere")
    if not keep_order:
        collate(entries, _entry_name)
    return entries


def _entry_name(e: os.DirEntry[str]) -> str:
    return fs_name(e.name)


def _scan_skills_dir(scan: _Scan, root: str, source: str, keep_order: bool = False,
                     listed: list[os.DirEntry[str]] | OSError | None = None,
                     md_paths: list[str | None] | None = None, built: Iterator[Built | None] | None = None,
                     taken: list[Built | None] | None = None) -> list[Skill]:
    """§3: every folder or link directly in `root` holding exactly SKILL.md, in ICU order (`keep_order`: in the
    directory's own order, as Claude Code announces folders found during a session). `listed`: `_list_root(root)`,
    when it was listed ahead (its order is kept), with its `_skill_md_paths`; `built`: what the look-ahead made of
    each of those paths in turn (None: nothing), whose scan diagnostics are given here, in order; `taken`: where
    the `Built` of each skill returned (or None) is appended, for the load to take."""
    entries = _list_root(root, keep_order, scan) if listed is None else listed
    if isinstance(entries, OSError):
        if not isinstance(entries, FileNotFoundError):
            scan.diag("error", "claude-dir-unreadable", root, f"cannot read this skills folder: {entries.strerror or entries}")
        return []
    found: list[Skill] = []
    for e, known in zip(entries, _skill_md_paths(entries) if md_paths is None else md_paths, strict=True):
        early = next(built) if built is not None and known is not None else None
        if early is None:
            skill = _scan_entry(scan, e, known, root, source)
        else:
            skill = early.skill
            if early.scan_diags:
                scan.diags.extend(early.scan_diags)
        if skill is not None:
            found.append(skill)
            if taken is not None:
                taken.append(early)
    return found


def _scan_entry(scan: _Scan, e: os.DirEntry[str], known: str | None, root: str, source: str,
                st: os.stat_result | None = None) -> Skill | None:
    """One entry of a skills folder (§3): its Skill when it is a folder or link holding SKILL.md within Claude Code's
    size, else None, with a diagnostic where one is due. `known`: its `_skill_md_paths` path; `st`: that file's
    stat when the caller has it (it is then the caller's to hand to `_load_entry`)."""
    path = known or e.path + _SKILL_MD  # None for an entry that is neither a folder nor a link: unused below
    is_link = e.is_symlink()
    try:
        is_dir = e.is_dir()
    except OSError:
        is_dir = False
    if not is_dir and not is_link:
        if e.name == "SKILL.md":  # a skill was meant: the folder level is missing
            scan.diag("error", "claude-loose-skill-file", e.path,
                      "SKILL.md sits directly in a skills folder; Claude Code reads only <folder>/SKILL.md, so it "
                      "is not loaded", fix="Move it into a folder named after the skill: <name>/SKILL.md")
        elif e.name.endswith(".md"):
            scan.diag("info", "claude-loose-md-ignored", e.path,
                      f"{e.name} sits directly in a skills folder; only <folder>/SKILL.md is read",
                      fix=f"Move it to {e.name[:-3]}/SKILL.md")
        return None
    if e.name == RESERVED_DIR:
        return None
    if is_link and not is_dir:
        target = os.readlink(e.path) if is_link else ""
        scan.diag("error", "claude-link-broken", e.path, f"the link points at {target!r}, which does not resolve (dangling or looping)",
                  fix="Fix or remove the link")
        return None
    stats = scan.stats
    looked = st is None
    try:
        st = st or stats.get(path) or os.stat(path)
    except OSError as exc:
        if isinstance(exc, PermissionError):
            scan.diag("error", "claude-dir-unreadable", e.path,
                      f"cannot read this skill folder: {exc.strerror or exc}; the skill is not loaded",
                      fix="Give your user read and execute permission on the folder")
        elif os.path.islink(path):
            scan.diag("error", "claude-link-broken", path,
                      f"SKILL.md is a link to {os.readlink(path)!r}, which does not resolve; the skill is not loaded",
                      fix="Point the link at an existing SKILL.md or remove the folder")
        else:
            _explain_missing(scan, e.path)
        return None
    if st.st_size > MAX_SKILL_BYTES:
        scan.diag("error", "claude-skill-too-large", path, f"SKILL.md is {st.st_size} bytes; Claude Code skips files over 1,000,000 bytes",
                  fix="Move detail into referenced files")
        return None
    if looked:
        stats[path] = st
    return Skill(name=fs_name(e.name), source=source, path=path, root=root, skill_dir=e.path)


def load_skills_root(root: str, source: str, settings: Settings, keep_order: bool = False) -> tuple[list[Skill], list[Diagnostic]]:
    """One skills folder scanned and parsed as discovery does (§3, §5), for folders Claude Code loads later in a
    session (§2.3): no precedence, no filters."""
    scan = _Scan(settings)
    skills = _scan_skills_dir(scan, root, source, keep_order)
    for s in skills:
        _load_entry(scan, s, "Skill")
    return skills, scan.diags


def _explain_missing(scan: _Scan, folder: str) -> None:
    try:
        names = os.listdir(folder)
    except OSError:
        return
    lower = [n for n in names if n.lower() == "skill.md" and n != "SKILL.md"]
    if lower:
        scan.diag("error", "claude-skill-md-lowercase", os.path.join(folder, lower[0]),
                  f"{lower[0]} is not read on a case-sensitive file system; Claude Code reads SKILL.md", fix="Rename it to SKILL.md")
        return
    for n in sorted(names)[:200]:
        nested = os.path.join(folder, n, "SKILL.md")
        if os.path.isfile(nested):
            scan.diag("error", "claude-nested-skill-ignored", nested,
                      "a SKILL.md two levels below the skills folder is not read",
                      fix=f"Move {n}/ up one level, next to {os.path.basename(folder)}/")


def project_dirs(paths: Paths) -> list[str]:
    """§2.1: cwd first, then each parent, stopping as git, $HOME and the file-system root decide."""
    cwd, home = paths.cwd, os.path.normpath(paths.home)
    dirs, d = [], cwd
    under_home = os.path.commonpath([cwd, home]) == home if os.path.isabs(home) else False
    while True:
        if paths.git_root is None and under_home and os.path.normpath(d) == home:
            break
        dirs.append(d)
        if paths.git_root is not None and os.path.normpath(d) == os.path.normpath(paths.git_root):
            break
        parent = os.path.dirname(d)
        if parent == d:
            break
        d = parent
    return dirs


def _shipped_entries(version: str) -> tuple[list[Skill], list[Skill]]:
    """Shipped entries as catalog rows: (before the scoped extras, after them)."""
    before: list[Skill] = []
    after: list[Skill] = []
    for entry in SHIPPED[version]:
        skill = Skill(name=entry.name, source=entry.source, path="", root="", label=entry.name,
                      shipped=True, facts=ClaudeSkillFacts(exempt=entry.exempt))
        (after if entry.source == "builtin" else before).append(skill)
    return before, after


def discover(opts: Options) -> Catalog:
    """The catalog Claude Code would build for these options. Cyclic GC is paused meanwhile: discovery makes many
    small objects and no cycles, and the collector's passes cost about a tenth of the time on big trees."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _discover(opts)
    finally:
        if was_enabled:
            gc.enable()


def _discover(opts: Options) -> Catalog:
    paths = paths_for(opts)
    settings = load_settings(opts, paths)
    scan = _Scan(settings)
    scan.diags.extend(settings.diagnostics)

    roots: list[tuple[str, str]] = []  # the skills folders in group order, with their source
    if not env_truthy(opts.env.get("CLAUDE_CODE_DISABLE_POLICY_SKILLS")):
        roots.append((os.path.join(paths.managed_dir, ".claude", "skills"), "managed"))
    roots.append((os.path.join(paths.config_dir, "skills"), "user"))
    walk = project_dirs(paths)
    roots += [(os.path.join(d, ".claude", "skills"), "project") for d in walk]
    add_dirs = [os.path.abspath(d) for d in opts.add_dirs]
    roots += [(os.path.join(d, ".claude", "skills"), "add-dir") for d in add_dirs]
    listed = [_list_root(root, scan=scan) for root, _ in roots]

    # The plugins and their items, found with their own scan (their diagnostics follow the legacy commands'); on a
    # big cold scan this runs while a child process starts on the skills folders' files (_look_ahead).
    found_plugins: list[tuple[list[Plugin], list[Plugin], dict[str, list[Skill]], list[Diagnostic], _Scan]] = []

    def load_plugins(parse: bool, skills_dir: bool = True) -> None:
        diags: list[Diagnostic] = []
        side = _Scan(settings)
        plugins = plugin_mod.load_plugins(settings, diags, skills_dir)
        ranked = plugin_mod.load_order(plugins, settings)
        items = _plugin_items(side, ranked)
        if parse:  # the child is busy with the skills folders: these files are this process's share
            for s in (s for lst in items.values() for s in lst):
                if (st := side.stats.get(s.path)) is not None:
                    try:
                        _parsed(s.path, st)
                    except OSError:
                        pass  # read again, and reported, by _load_entry
        found_plugins.append((plugins, ranked, items, diags, side))

    md_paths = [_skill_md_paths(entries) if isinstance(entries, list) else [] for entries in listed]
    candidates = [(path, e, root, source) for (root, source), entries, mds in zip(roots, listed, md_paths)
                  if isinstance(entries, list) for e, path in zip(entries, mds) if path is not None]
    built: list[Built | None] = [None] * len(candidates)
    looked_ahead = len(candidates) >= PARALLEL_MIN_FILES and len(_PARSED) + len(candidates) <= MAX_PARSED
    if looked_ahead:
        # Each user skill folder's skills-dir plugin check (§3 step 7) is made with its SKILL.md, in two processes,
        # not one by one before them: the plugins are loaded meanwhile without `@skills-dir` ones, the usual answer,
        # and loaded again (as one process would, listing the folder itself) when a check finds a manifest, or when
        # the folder holds more entries than were listed here (the others were not checked).
        user = os.path.join(paths.config_dir, "skills") + os.sep
        capped = any(d.code == "claude-dir-capped" and d.path == user[:-1] for d in scan.diags)

        def manifest_of(path: str) -> str | None:  # asked with each file, in either process: none made ahead
            if path.startswith(user):  # a user skill folder's SKILL.md
                return plugin_mod.skills_dir_manifest(user, path[len(user) : -len(_SKILL_MD)])
            return None

        manifests = _look_ahead(scan, candidates, lambda: load_plugins(True, skills_dir=False), manifest_of, built)
        # What neither process checked is checked now, as the plugin loader would: the folder's other entries
        # (files...) and each folder whose result the child could not send back.
        unchecked = [m for c, b in zip(candidates, built) if b is None and (m := manifest_of(c[0])) is not None]
        at = [source for _, source in roots].index("user")
        if isinstance(user_entries := listed[at], list):
            unchecked += [m for e, md in zip(user_entries, md_paths[at])
                          if md is None and (m := plugin_mod.skills_dir_manifest(user, e.name)) is not None]
        if capped or any(map(plugin_mod.has_manifest, manifests + unchecked)):
            found_plugins.clear()
            load_plugins(False)
    else:
        load_plugins(False)
    plugins, ranked, items, plugin_diags, side = found_plugins[0]
    scan.diags.extend(plugin_diags)

    ahead = iter(built) if looked_ahead else None  # the look-ahead's entries, in order
    taken: list[Built | None] = []
    groups = [_scan_skills_dir(scan, root, source, listed=entries, md_paths=mds, built=ahead, taken=taken)
              for (root, source), entries, mds in zip(roots, listed, md_paths)]

    # Legacy commands: every root merged into one group, stable ICU sort (§2, §2.2).
    command_roots = [os.path.join(paths.managed_dir, ".claude", "commands"), os.path.join(paths.config_dir, "commands")]
    command_roots += [os.path.join(d, ".claude", "commands") for d in walk + add_dirs]
    legacy: list[Skill] = []
    for root in command_roots:
        for item in plugin_mod.walk_commands(root, diags=scan.diags):
            legacy.append(Skill(name=fs_name(item.name), source="legacy-command", path=item.path, root=root,
                                skill_dir=item.skill_dir, kind="command"))
    collate(legacy, _name)
    groups.append(legacy)

    scan.diags.extend(side.diags)
    scan.stats.update(side.stats)
    plugin_commands, plugin_skills, disabled_items = _place(ranked, items)
    shipped_before, shipped_after = _shipped_entries(VERSION)

    found = [s for g in groups for s in g]
    entries = found + plugin_commands + plugin_skills
    fallbacks = {"legacy-command": "Custom command", "plugin": "Plugin skill", "plugin-command": "Plugin command"}
    # After a look-ahead the skills folders' and plugins' files are parsed (what failed is done below, in order):
    # only the legacy commands are left, and checking 6,000 entries again for nothing cost ~10 ms.
    _prefill(scan, legacy if looked_ahead else entries + disabled_items)
    loaded: dict[int, Loaded] = {}
    # The skills folders' entries come first, each with what the look-ahead made of it (None: not made there).
    for s, early in zip(entries, taken + [None] * (len(entries) - len(taken)), strict=True):
        if early is not None:  # loaded by the look-ahead: its diagnostics are given here, in order
            if early.load_diags:
                scan.diags.extend(early.load_diags)
            loaded[id(s)] = early.loaded or _as_loaded(s)
            continue
        _load_entry(scan, s, fallbacks.get(s.source, "Skill"))
        loaded[id(s)] = _as_loaded(s)  # each entry's snapshot taken while it is at hand
    loaded.update((id(s), _as_loaded(s)) for s in shipped_before + shipped_after)
    add_dir_labels = _add_dir_labels(add_dirs)
    ordered = _order(scan, entries, shipped_before, shipped_after, add_dir_labels)
    for s in disabled_items:
        _load_entry(scan, s, "Plugin skill")
        loaded[id(s)] = _as_loaded(s)
    _apply_filters(scan, ordered, settings)

    catalog = _catalog(paths.cwd, paths.home, ordered, disabled_items, plugins, settings)
    catalog.facts = ClaudeFacts(
        project_root=paths.git_root, git_root=paths.git_root,
        watch=[os.path.join(d, ".claude", *sub) for d in walk for sub in ((), ("skills",), ("commands",))],
        paths=paths, found=Found(found, items, shipped_before, shipped_after, add_dir_labels, loaded))
    catalog.diagnostics = scan.diags
    leaving.keep(listed, md_paths, candidates, built, taken)  # a process that ends now does not free them one by one
    return catalog


def _order(scan: _Scan, entries: list[Skill], shipped_before: list[Skill], shipped_after: list[Skill],
           add_dir_labels: dict[str, str]) -> list[Skill]:
    """Same-file dedupe, first-name-wins and the add-dir scoped extras (§6), then the listing's order of everything."""
    entries = entries + shipped_before
    scoped = _resolve(scan, entries, shipped_after, add_dir_labels)
    ordered = [s for s in entries if not s.shipped] + shipped_before + shipped_after
    # §6.3, observed: the scoped extras go just before the first entry named `init` that was not shadowed (the
    # builtin command, or a skill or command that took its name, listed or hidden), whatever its group.
    at = next((i for i, s in enumerate(ordered) if s.name == "init" and s.status == LISTED), len(ordered) - len(shipped_after))
    ordered[at:at] = scoped
    return ordered


def _catalog(cwd: str, home: str, ordered: list[Skill], disabled_items: list[Skill], plugins: list[Plugin],
             settings: Settings) -> Catalog:
    catalog = Catalog(NAME, VERSION, cwd, home, skills=ordered + disabled_items, plugins=plugins, settings=settings)
    names: dict[tuple[str | None, str], list[str]] = {}  # (plugin, kind) -> item names, in one pass over the items
    for s in ordered + disabled_items:
        if s.plugin is not None and s.source in ("plugin", "plugin-command"):
            names.setdefault((s.plugin, s.kind), []).append(s.name)
    for p in plugins:
        p.skills, p.commands = names.get((p.id, "skill"), []), names.get((p.id, "command"), [])
    return catalog


# ---------------------------------------------------------------- resolving again, without reading (what if)
Loaded = tuple[str, StatusValue, str | None, str | None, str | None, str]  # name, status, reason, display, override, label


def _as_loaded(s: Skill) -> Loaded:
    """An entry's fields that resolution changes, as they were once its file was read. A plugin item set aside
    because its plugin does not load counts as found (its file was read all the same)."""
    status, reason = (LISTED, None) if s.status == DISABLED and s.source in ("plugin", "plugin-command") else (s.status, s.reason)
    return s.name, status, reason, s.display_name, s.override, s.label


@dataclass(frozen=True, repr=False)
class Found(Record):
    """What one discovery read, before the rules that `enabledPlugins` and `skillOverrides` decide (which plugins
    load and in what order, first-name-wins, overrides, labels): enough to resolve the catalog again under other
    values of those two settings without reading a file or listing a folder (`resolve_again`)."""

    entries: list[Skill]  # skills-folder entries and legacy commands, in group order
    items: dict[str, list[Skill]]  # plugin id -> its commands then its skills, each in ICU order; loaded or not
    shipped_before: list[Skill]
    shipped_after: list[Skill]
    add_dir_labels: dict[str, str]
    loaded: dict[int, Loaded]  # id(entry) -> its fields as read (resolution changes them in place)


@dataclass(repr=False)
class ClaudeFacts(CatalogFacts):
    """Claude Code's facts about one discovery."""

    paths: Paths | None = None  # the folders and files it read from
    found: Found | None = None  # what it read, to resolve again under other settings (what if)


def facts_of(catalog: Catalog) -> ClaudeFacts:
    """A Claude Code catalog's own facts; a catalog of another runtime is a caller's bug."""
    if not isinstance(catalog.facts, ClaudeFacts):
        raise TypeError(f"a {catalog.runtime} catalog has no Claude Code facts")
    return catalog.facts


# The settings whose values resolution reads and discovery does not: a change to one of them is answered again from
# what was found (observed rules: §7.1 skillOverrides, §10.3-10.5 enabledPlugins).
RESOLVED_KEYS = ("enabledPlugins", "skillOverrides")


def resolve_again(catalog: Catalog, settings: Settings) -> Catalog | None:
    """The catalog discovery would build if the settings were `settings` (the same files, other `enabledPlugins` or
    `skillOverrides` values), from what `catalog`'s discovery read: no file is read, no folder listed, `catalog` is
    not changed. Diagnostics are the scan's, not resolved again. None when `catalog` carries no `Found`."""
    found = catalog.facts.found if isinstance(catalog.facts, ClaudeFacts) else None
    if found is None:
        return None

    def fresh(s: Skill) -> Skill:  # a shallow copy as read (no __init__: thousands of entries, same fields)
        copy = object.__new__(Skill)
        for name in Skill.__slots__:
            setattr(copy, name, getattr(s, name))
        copy.name, copy.status, copy.reason, copy.display_name, copy.override, copy.label = found.loaded[id(s)]
        copy.shadowed_by = copy.order = None
        return copy

    plugins = [dataclasses.replace(p, notes=list(p.notes), errors=list(p.errors)) for p in catalog.plugins]
    for p in plugins:
        plugin_mod.decide(p, settings)
    items = {pid: [fresh(s) for s in lst] for pid, lst in found.items.items()}
    commands, skills, disabled = _place(plugin_mod.load_order(plugins, settings), items)
    scan = _Scan(settings)
    entries = [fresh(s) for s in found.entries] + commands + skills
    ordered = _order(scan, entries, [fresh(s) for s in found.shipped_before], [fresh(s) for s in found.shipped_after],
                     found.add_dir_labels)
    _apply_filters(scan, ordered, settings)
    again = _catalog(catalog.cwd, catalog.home, ordered, disabled, plugins, settings)
    again.facts = catalog.facts
    again.diagnostics = list(catalog.diagnostics)
    return again


def _plugin_items(scan: _Scan, ranked: list[Plugin]) -> dict[str, list[Skill]]:
    """Each plugin's commands then its skills, whether it loads or not (in load order)."""
    out: dict[str, list[Skill]] = {}
    for p in ranked:
        diags: list[Diagnostic] = []
        # commands in their loader's order (command_items), skills folder by folder (skill_items' order, observed)
        items = plugin_mod.command_items(p, diags) + plugin_mod.skill_items(p, diags)
        scan.diags.extend(diags)
        mine = out.setdefault(p.id, [])
        for item in items:
            source = "plugin-command" if item.kind == "command" else "plugin"
            s = Skill(name=fs_name(item.name), source=source, path=item.path, root=item.root, plugin=p.id, kind=item.kind,
                      skill_dir=item.skill_dir)
            if item.named_by_frontmatter:
                s.facts = ClaudeSkillFacts(named_by_frontmatter=True)
            if item.st is not None:
                scan.stats[item.path] = item.st
            mine.append(s)
    return out


def _place(ranked: list[Plugin], items: dict[str, list[Skill]]) -> tuple[list[Skill], list[Skill], list[Skill]]:
    """Plugin commands then plugin skills, plugin by plugin in load order; then the items of plugins that do not load
    (set aside, unless their file could not be read: that reason stands)."""
    commands: list[Skill] = []
    skills: list[Skill] = []
    disabled: list[Skill] = []
    for p in ranked:
        why = None if p.loads else (f"plugin {p.id} does not load: {plugin_mod.why_not_loaded(p)}"
                                    + (f" (decided by {p.decided_in})" if p.decided_in else ""))
        for s in items.get(p.id, ()):
            if why is None:
                (commands if s.kind == "command" else skills).append(s)
                continue
            if s.status == LISTED:
                s.status, s.reason = DISABLED, why
            disabled.append(s)
    return commands, skills, disabled


def _add_dir_labels(add_dirs: list[str]) -> dict[str, str]:
    """§6.3 `<F>` of each --add-dir folder: its own name, or its shortest path suffix that no other folder shares
    (`…/a/common`, `…/b/common` → `a/common`, `b/common`; observed)."""
    parts = {d: [p for p in d.split(os.sep) if p] for d in add_dirs}
    labels = {}
    for d, mine in parts.items():
        k = 1
        while k < len(mine) and any(o != d and parts[o][-k:] == mine[-k:] for o in parts):
            k += 1
        labels[d] = "/".join(mine[-k:])
    return labels


def _resolve(scan: _Scan, entries: list[Skill], shipped_after: list[Skill], add_dir_labels: dict[str, str]) -> list[Skill]:
    """Same-file dedupe, conditional set-aside, first-name-wins (§6). Returns the add-dir scoped extras (§6.3)."""
    winners: dict[str, Skill] = {}
    scoped: list[Skill] = []
    for s in entries:
        facts = skill_facts(s)
        if s.source in ("plugin", "plugin-command") and facts.named_by_frontmatter and s.display_name:
            # the items' prefix (manifest name) and the frontmatter name without it, made a name the way a folder's
            # is (observed: root-skill-names; the label shows the name as written)
            prefix = s.name.rsplit(":", 1)[0]
            s.name = f"{prefix}:{plugin_mod.item_suffix(s.display_name.removeprefix(prefix + ':'))}"
        if s.status != LISTED:
            continue
        if s.path:
            real = facts.file_id or s.path  # (device, inode): cheaper than realpath, same answer
            first = scan.seen_files.get(real)
            if first is not None:
                s.status, s.shadowed_by = SHADOWED, first.path
                s.reason = f"same file as {first.name} ({first.source}), which was loaded first"
                scan.diag("info", "claude-duplicate-file", s.path, f"{s.name}: {s.reason}")
                continue
            scan.seen_files[real] = s
        problem = name_problem(s.name)
        if problem:
            s.status, s.reason = INVALID, f"name not offered: {problem}"
            scan.diag("error", "claude-name-invalid", s.path, f"{s.name!r} is not offered: {problem}",
                      fix="Rename the folder or file")
            continue
        if s.paths:
            s.status = CONDITIONAL
            s.reason = "listed only once a file matching paths is touched: " + ", ".join(s.paths)
            scan.diag("info", "claude-conditional", s.path, f"{s.name} is conditional; {s.reason}")
            continue
        first = winners.get(s.name)
        if first is None:
            # Neither a hidden entry (§7.1) nor a plugin item the listing leaves out takes its name (observed:
            # fixtures claude-plugin-trees/filtered-item-names, diff-claude-plugins-s28-t38).
            if not facts.disable_model_invocation and not _undescribed_plugin_item(s, facts):
                winners[s.name] = s
            continue
        s.status, s.shadowed_by = SHADOWED, first.path or f"<{first.source}>"
        s.reason = f"the name is taken by the {first.source} entry {first.path or first.name}"
        if not s.shipped:
            scan.diag("info", "claude-shadowed", s.path, f"{s.name} ({s.source}) is shadowed by {first.source} {first.path}")
        if s.source == "add-dir":
            add_dir = os.path.dirname(os.path.dirname(s.root))
            folder = add_dir_labels.get(add_dir) or os.path.basename(add_dir)
            extra = Skill(name=f"{folder}:{s.name}", source="add-dir", path=s.path, root=s.root, skill_dir=s.skill_dir,
                          description=s.description, when_to_use=s.when_to_use, display_name=None, frontmatter=s.frontmatter,
                          paths=s.paths, facts=dataclasses.replace(facts, scoped_extra=True))
            extra.scoped_suffix = (f' (scoped to {folder}/ — use this instead of the unscoped "{s.name}" skill '
                                   f"when the files being changed are under {folder}/)")
            scoped.append(extra)
    for s in shipped_after:
        if s.name in winners:
            s.status, s.shadowed_by = SHADOWED, winners[s.name].path
            s.reason = f"the name is taken by the {winners[s.name].source} entry {winners[s.name].path}"
        else:
            winners[s.name] = s
    return scoped


def _undescribed_plugin_item(s: Skill, facts: ClaudeSkillFacts) -> bool:
    """A plugin skill or command with neither description nor when_to_use: the listing leaves it out (§7.1)."""
    return s.source in ("plugin", "plugin-command") and not facts.has_description


def _capped(s: Skill, cap: int) -> bool:
    """Whether the listing cuts the entry's text (`entry_text(s, cap)[1]`), without building the text when it is
    surely short: sanitising at most quadruples a text's UTF-16 length (`<` becomes `&lt;`, a code point is at most
    two units), and the suffix, generated text, is at most twice its length."""
    bound = 4 * len(s.description or "") + 2 * len(s.scoped_suffix or "")
    if s.when_to_use:
        bound += 3 + 4 * len(s.when_to_use)  # " - " + the sanitised when_to_use
    return bound > cap and entry_text(s, cap)[1]


def skill_overrides(settings: Settings) -> dict[str, Any]:
    """§7.1 skillOverrides merged per key; add-dir folders' are not read (observed)."""
    return settings.merged_map("skillOverrides", skip=("add-dir",))


def override_of(skill: Skill, overrides: dict[str, Any]) -> str | None:
    """The skillOverrides value that applies: keyed by the entry's name only, never on plugin items (observed)."""
    if not overrides or skill.source in ("plugin", "plugin-command"):
        return None
    wanted = overrides.get(skill.name)
    return wanted if wanted in OVERRIDE_RANK else None


def _apply_filters(scan: _Scan, ordered: list[Skill], settings: Settings) -> None:
    """§7.1 filters, labels and listing positions."""
    overrides = skill_overrides(settings)
    cap = settings.description_cap() or DEFAULT_CAP
    # A conditional entry is set aside before the lookup (observed: its name does not block a display name).
    names = set(UNLISTED_NAMES.get(VERSION, frozenset()))
    first_with_display: dict[str, Skill] = {}
    for s in ordered:  # one pass for both
        status = s.status
        if status == LISTED:
            if s.source in ("plugin", "plugin-command"):
                s.display_name = _plugin_display(s)
            if s.display_name and s.source != "legacy-command":
                first_with_display.setdefault(s.display_name, s)
        elif status in (SHADOWED, INVALID, CONDITIONAL):
            continue
        names.add(s.name)
    position = 0
    for s in ordered:
        if s.status != LISTED:
            s.label = s.label or s.name
            continue
        if overrides:
            s.override = override_of(s, overrides) or s.override
        facts = skill_facts(s)
        if facts.disable_model_invocation:
            s.status, s.reason = HIDDEN, "disable-model-invocation: true keeps it out of the listing"
        elif s.override in ("off", "user-invocable-only"):
            s.status, s.reason = DISABLED, f"skillOverrides sets it to {s.override}"
        elif _undescribed_plugin_item(s, facts):
            s.status, s.reason = FILTERED, "a plugin item without description or when_to_use is not listed"
            if s.source == "plugin":  # a skill the model never sees is not offered
                scan.diag("error", "claude-plugin-item-unlisted", s.path, f"{s.name} has neither description nor when_to_use; not listed",
                          fix="Add a description: line to its frontmatter")
            else:  # a command still works when typed; only the model's listing leaves it out
                scan.diag("warning", "claude-plugin-command-unlisted", s.path,
                          f"{s.name} has neither description nor when_to_use; not listed for the model (typing it works)",
                          fix="Add a description: line to its frontmatter")
        if s.status != LISTED:
            s.label = s.label or s.name
            continue
        s.label = label_for(s, names, first_with_display) if s.override != "name-only" else s.name
        if not s.shipped and s.override != "name-only" and _capped(s, cap):
            scan.diag("warning", "claude-description-capped", s.path,
                      f"{s.name}: description and when_to_use are longer than {cap} UTF-16 units; the listing cuts them",
                      fix="Shorten the description; move detail into the body")
        if (s.display_name and s.display_name != s.name and s.label == s.name and not s.shipped
                and not (s.source in ("plugin", "plugin-command") and s.display_name.split(":", 1)[-1] == s.name.split(":", 1)[-1])):
            scan.diag("info", "claude-display-name-unused", s.path,
                      f"frontmatter name {s.display_name!r} differs from {s.name!r} but cannot be shown in the label")
        s.order = position
        position += 1
