"""Reading SKILL.md files: capped reads, a YAML 1.2 loader, and Claude Code's frontmatter rules.

Other runtimes split and repair frontmatter differently; their modules build on `load_yaml12` and `line_fallback`.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import math
import os
import re
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from skilltui import yaml_fast
from skilltui.model import Frontmatter, FrontmatterStatus
from skilltui.record import Record

# Alias expansion beyond this many nodes is refused (a "billion laughs" block would otherwise explode on output).
MAX_YAML_NODES = 20_000


@dataclass(eq=False, repr=False)  # compared nowhere: no __eq__ to generate at every start
class FileText(Record):
    """A file's text as read for parsing, within a cap."""

    text: str
    size: int  # bytes on disk
    truncated: bool  # the file was larger than the cap; text holds only the capped prefix
    invalid_utf8: bool
    ident: tuple[int, int] = (0, 0)  # (device, inode): the same file reached by two paths has one identity


# ---------------------------------------------------------------- work done on a file's text where it is read
# A caller's per-file work (the doctor's checks), run on a SKILL.md's text where a discovery has just read and parsed
# it, in whichever process did: the file is not read again, and the work shares the discovery's processes. Off unless
# a caller turns it on (`reading_with`): list and the TUI keep nothing more. What it returns (plain values: it may
# cross a process boundary) waits in `READ_EXTRAS` by path; a file it did not run on is simply absent.
ReadHook = Callable[[str, str, "Frontmatter"], object]
ON_READ: list[ReadHook] = []
READ_EXTRAS: dict[str, object] = {}


@contextlib.contextmanager
def reading_with(fn: ReadHook) -> Iterator[dict[str, object]]:
    """Run `fn(path, text, frontmatter)` on each whole, valid UTF-8 file a discovery parses inside the block; yields
    READ_EXTRAS (emptied on leaving). Process-wide, like the parse cache it sits beside: for a process that runs one
    discovery at a time (the command line, the TUI's doctor child), never around a discovery in another thread."""
    ON_READ.append(fn)
    try:
        yield READ_EXTRAS
    finally:
        ON_READ.remove(fn)
        READ_EXTRAS.clear()


def after_read(path: str, text: str, fm: Frontmatter) -> None:
    """Called by a discovery with a file's whole text (valid UTF-8, within its cap) and its parse."""
    if ON_READ:
        try:
            READ_EXTRAS[path] = ON_READ[-1](path, text, fm)
        except Exception:  # the caller's work never takes a discovery down: that file is just left out
            READ_EXTRAS.pop(path, None)


# Flags for reading a file we stat'ed as regular: O_NONBLOCK so that a FIFO swapped in after the stat cannot block the
# open (it reads as empty instead), O_NOCTTY so that a terminal device cannot become ours.
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) \
    | getattr(os, "O_BINARY", 0)


def read_text(path: str, cap: int, st: os.stat_result | None = None) -> FileText:
    """Read at most `cap` bytes as UTF-8 (invalid bytes become U+FFFD, as Bun decodes them). Raises OSError.

    Only regular files are opened: a FIFO or device named SKILL.md would otherwise block or never end. `st`, when the
    caller has it, is the file's stat: it sizes the one read (no 1 MB buffer for a 5 KB file).
    """
    st = st or os.stat(path)
    text, size, truncated, bad = read_capped(path, cap, st)
    return FileText(text, size, truncated, bad, (st.st_dev, st.st_ino))


def read_capped(path: str, cap: int, st: os.stat_result) -> tuple[str, int, bool, bool]:
    """`read_text` without the FileText: (text, size, truncated, invalid UTF-8), for loops over thousands of files.

    The read is done with os.open/os.read: a file object would cost more than the read itself on small files (an
    fstat, an isatty, seeks)."""
    if not stat.S_ISREG(st.st_mode):
        raise OSError(errno.EINVAL, "not a regular file", path)
    fd = os.open(path, _OPEN_FLAGS)
    try:
        data = os.read(fd, min(st.st_size, cap) + 1)
        if len(data) <= cap and len(data) > st.st_size:  # it grew since the stat: read the rest up to the cap
            while len(data) <= cap:
                more = os.read(fd, cap + 1 - len(data))
                if not more:
                    break
                data += more
    finally:
        os.close(fd)
    size = max(st.st_size, len(data))
    truncated = len(data) > cap
    if truncated:
        data = data[:cap]
    try:
        return data.decode("utf-8"), size, truncated, False
    except UnicodeDecodeError:
        return data.decode("utf-8", errors="replace"), size, truncated, True


# ---------------------------------------------------------------- YAML 1.2 (core schema) on top of PyYAML (YAML 1.1)
# PyYAML is imported only when the fast path (yaml_fast) cannot decide a block: most runs never need it.
_RESOLVERS = [
    ("tag:yaml.org,2002:null", r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""]),
    ("tag:yaml.org,2002:bool", r"^(?:true|True|TRUE|false|False|FALSE)$", list("tTfF")),
    ("tag:yaml.org,2002:int", r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", list("-+0123456789")),
    (
        "tag:yaml.org,2002:float",
        r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$",
        list("-+0123456789."),
    ),
]


def _int12(value: str) -> int | float:
    if value.startswith("0o"):
        return int(value[2:], 8)
    if value.startswith("0x"):
        return int(value[2:], 16)
    if len(value) > 4000:  # past Python's int() digit limit; JavaScript reads it as a double (Infinity)
        return float(value)
    return int(value, 10)


def _float12(value: str) -> float:
    value = value.lower()
    if value.endswith(".inf"):
        return -math.inf if value.startswith("-") else math.inf
    if value == ".nan":
        return math.nan
    return float(value)


_TYPED: dict[str, Any] = {
    "tag:yaml.org,2002:null": lambda value: None,
    "tag:yaml.org,2002:bool": lambda value: value.lower() == "true",
    "tag:yaml.org,2002:int": _int12,
    "tag:yaml.org,2002:float": _float12,
}


@functools.lru_cache(maxsize=1)
def _loader_class() -> Any:
    """SafeLoader with YAML 1.2 core-schema resolvers: `yes`/`on` stay strings, no dates, no sexagesimal, no merge."""
    import yaml

    base: Any
    try:  # the C parser is ~10x faster on big trees; the resolvers below stay in Python either way
        base = yaml.CSafeLoader
    except AttributeError:  # pragma: no cover - PyYAML built without libyaml
        base = yaml.SafeLoader

    class Yaml12Loader(base):  # type: ignore[misc]
        pass

    Yaml12Loader.yaml_implicit_resolvers = {}
    for tag, regexp, first in _RESOLVERS:
        Yaml12Loader.add_implicit_resolver(tag, re.compile(regexp), first)
    for tag, convert in _TYPED.items():
        Yaml12Loader.add_constructor(tag, lambda loader, node, convert=convert: convert(loader.construct_scalar(node)))
    return Yaml12Loader


class YamlError(Exception):
    def __init__(self, message: str, line: int | None):
        super().__init__(message)
        self.line = line  # 0-based line within the parsed text, when known


def _expanded_size(node: Any, memo: dict[int, int], depth: int = 0) -> int:
    """Node count with aliases expanded (memoised, so the count itself stays cheap)."""
    import yaml

    key = id(node)
    if key in memo:
        return memo[key]
    if depth > 200:
        raise YamlError("YAML nesting is deeper than 200 levels", node.start_mark.line)
    memo[key] = MAX_YAML_NODES + 1  # a node reaching itself counts as too large
    total = 1
    if isinstance(node, yaml.SequenceNode):
        for child in node.value:
            total += _expanded_size(child, memo, depth + 1)
            if total > MAX_YAML_NODES:
                break
    elif isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            total += _expanded_size(k, memo, depth + 1) + _expanded_size(v, memo, depth + 1)
            if total > MAX_YAML_NODES:
                break
    memo[key] = total
    return total


_SCALAR_TYPES = [(re.compile(r), tag) for tag, r, _ in _RESOLVERS]
_NUMBER_FIRST = frozenset("-+.0123456789")  # every int or float scalar starts with one of these
_WORDS = {"~": None, "null": None, "Null": None, "NULL": None, "true": True, "True": True, "TRUE": True,
          "false": False, "False": False, "FALSE": False}  # the other typed scalars, whole


def _plain_scalar(value: str) -> Any:
    """A plain scalar typed by the YAML 1.2 core schema, as the full parser would."""
    if not value:
        return None
    if value[0] not in _NUMBER_FIRST:  # most scalars: a dict lookup instead of four regular expressions
        return _WORDS.get(value, value)
    return _plain_scalar_full(value)


def _plain_scalar_full(value: str) -> Any:
    for regexp, tag in _SCALAR_TYPES:
        if regexp.match(value):
            return _TYPED[tag](value)
    return value


def load_yaml12(text: str, defuse: bool = False, keep_unknown_tags: bool = False) -> Any:
    """Parse one YAML document with 1.2 core-schema scalars. Raises YamlError with a line on any failure.

    `keep_unknown_tags`: a local tag the parser does not know (`description: !tag value`) is dropped and its value
    kept, as the JavaScript parsers of Claude Code and oh-my-pi do (observed with both; tests/fixtures/omp/local-tag
    and tests/fixtures/claude/unknown-tag).

    Aliases that expand past MAX_YAML_NODES are refused, unless `defuse`: then the document loads as a JavaScript
    parser loads it (aliases are shared references, nothing explodes) and each oversized value is replaced by a small
    one of the same type, so that nothing downstream can expand it.
    """
    try:
        simple = yaml_fast.simple_mapping(text, _plain_scalar, known_errors=True)
    except yaml_fast.KnownError as exc:
        raise YamlError(str(exc), exc.line) from None
    return simple if simple is not None else load_yaml12_full(text, defuse, keep_unknown_tags)


_TOO_BIG = f"(YAML aliases expand past {MAX_YAML_NODES} nodes)"


def _defused(value: Any, node: Any, memo: dict[int, int], budget: list[int]) -> Any:
    """`value` with aliases kept only while the file's expanded size stays within one budget (MAX_YAML_NODES for the
    whole file, not per value: 2,000 aliases of a 19,000-item list are each small but together 38 million nodes)."""
    import yaml

    if isinstance(node, yaml.ScalarNode):  # a scalar costs what its text costs: always kept, as Bun keeps it
        return value
    size = _expanded_size(node, memo)
    if size <= budget[0]:
        budget[0] -= size
        return value
    if isinstance(node, yaml.MappingNode) and isinstance(value, dict):
        budget[0] -= 1
        return {k: _defused(v, vn, memo, budget) for (kn, vn), (k, v) in zip(node.value, value.items())}
    return _small(value)


def _small(value: Any) -> Any:
    return [_TOO_BIG] if isinstance(value, list) else {"…": _TOO_BIG} if isinstance(value, dict) else _TOO_BIG


def _untagged(loader: Any, suffix: str, node: Any) -> Any:
    import yaml

    if isinstance(node, yaml.ScalarNode):
        return node.value
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node, deep=True)
    return loader.construct_mapping(node, deep=True)


@functools.cache
def _untagged_loader_class() -> Any:
    """The YAML 1.2 loader that keeps the value of an unknown local tag."""

    class UntaggedLoader(_loader_class()):  # type: ignore[misc]
        pass

    UntaggedLoader.add_multi_constructor("!", _untagged)
    return UntaggedLoader


def load_yaml12_full(text: str, defuse: bool = False, keep_unknown_tags: bool = False) -> Any:
    """The full parser behind `load_yaml12` (no fast path)."""
    import yaml

    loader = (_untagged_loader_class() if keep_unknown_tags else _loader_class())(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        memo: dict[int, int] = {}
        if "*" in text and _expanded_size(node, memo) > MAX_YAML_NODES:
            if not defuse:
                raise YamlError(f"YAML expands to more than {MAX_YAML_NODES} nodes (alias bomb?)", node.start_mark.line)
            return _defused(loader.construct_document(node), node, memo, [MAX_YAML_NODES])
        return loader.construct_document(node)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        message = " ".join(str(part) for part in (exc.context, exc.problem) if part) or "invalid YAML"
        raise YamlError(message, mark.line if mark else None) from None
    except yaml.YAMLError as exc:
        raise YamlError(str(exc).splitlines()[0] if str(exc) else "invalid YAML", None) from None
    except (RecursionError, ValueError, OverflowError) as exc:
        raise YamlError(f"invalid YAML: {exc.__class__.__name__}", None) from None
    finally:
        loader.dispose()


_LINE_KV = re.compile(r"^([A-Za-z_][\w-]*)\s*:\s?(.*)$")


def line_fallback(block: str) -> dict[str, str]:
    """The forgiving reader: top-level `key: value` lines taken literally (used by Codex and omp fallbacks)."""
    out: dict[str, str] = {}
    for line in block.splitlines():
        m = _LINE_KV.match(line)
        if m:
            value = m.group(2).strip()
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
                value = value[1:-1]
            out[m.group(1)] = value
    return out


# ---------------------------------------------------------------- Claude Code 2.1.332 (spec/claude-code.md §5.1)
_CLAUDE_OPEN = re.compile(r"\s*\n")  # after the opening `---`
_CLAUDE_CLOSE_WS = re.compile(r"\s*")
# JavaScript's `.` stops at CR, U+2028 and U+2029: a CR-terminated (CRLF) line is never quoted by the retry.
_RETRY_LINE = re.compile("^([A-Za-z_-]+):[ \\t]+([^\\r\\n\\u2028\\u2029]+)$")
_RETRY_CHARS = frozenset("{}[]*&#!|>%@`")


def _is_flow_list(value: str) -> bool:
    if not (value.startswith("[") and value.endswith("]")):
        return False
    try:
        return isinstance(load_yaml12(value), list)
    except YamlError:
        return False


def _claude_retry_block(block: str) -> str:
    """The one rewrite Claude Code tries after a YAML failure: quote risky `key: value` lines, tabs to spaces."""
    out = []
    for line in block.split("\n"):
        stripped = line.lstrip("\t")
        line = "  " * (len(line) - len(stripped)) + stripped
        m = _RETRY_LINE.match(line)
        if m:
            key, value = m.group(1), m.group(2)
            quoted = len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'"
            risky = not _RETRY_CHARS.isdisjoint(value) or ": " in value
            if not quoted and risky and not _is_flow_list(value):
                value = value.replace("\\", "\\\\").replace('"', '\\"')
                line = f'{key}: "{value}"'
        out.append(line)
    return "\n".join(out)


def _claude_split(text: str) -> tuple[int, int, int] | None:
    """§5.1 steps 2-3 on a text without BOM: (block start, block end, body start), or None when there is no block."""
    opened = _CLAUDE_OPEN.match(text, 3) if text.startswith("---") else None
    close = text.find("---", opened.end()) if opened else -1
    if opened is None or close < 0:
        return None
    after = _CLAUDE_CLOSE_WS.match(text, close + 3)
    return opened.end(), close, after.end() if after else close + 3


def claude_body(text: str) -> str:
    """The body of a file's text, exactly as `parse_claude` splits it."""
    if text.startswith("\ufeff"):
        text = text[1:]
    split = _claude_split(text)
    return text if split is None else text[split[2] :]


def claude_block(text: str) -> str:
    """The frontmatter block of a file's text as written, exactly as `parse_claude` splits it ("" when none)."""
    if text.startswith("\ufeff"):
        text = text[1:]
    split = _claude_split(text)
    return "" if split is None else text[split[0] : split[1]]


def parse_claude(text: str, file: tuple[str, int] | None = None) -> Frontmatter:
    """Split and parse a SKILL.md or command file as Claude Code 2.1.332 does.

    `file`, the (path, read cap) `text` came from, makes the result a FileFrontmatter, which does not keep the body.
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    split = _claude_split(text)
    if split is None:
        return Frontmatter({}, text) if file is None else FileFrontmatter(file, {})
    block_start, close, body_start = split
    block = text[block_start:close]
    block_line = text.count("\n", 0, block_start)  # 0-based file line where the block starts
    data: dict[str, Any] = {}
    status: FrontmatterStatus = "ok"
    error: str | None = None
    error_line: int | None = None
    # CRLF (and stray CR) blocks parse like LF ones (observed); only the retry skips CR-terminated lines.
    try:
        value = load_yaml12(block, defuse=True, keep_unknown_tags=True)  # Bun keeps aliases as shared references
    except YamlError as first:
        try:
            value = load_yaml12(_claude_retry_block(block), keep_unknown_tags=True)
            status, error = "retried", str(first)
            error_line = block_line + first.line + 1 if first.line is not None else None
        except YamlError as exc:
            value, status, error = None, "invalid", str(exc)
            if "\r" in block:
                error += "; lines ending in CR (CRLF files) are not repaired by Claude Code's quoting retry"
            error_line = block_line + exc.line + 1 if exc.line is not None else block_line + 1
    if isinstance(value, dict):
        data = value
    elif value is not None:
        status = "not-mapping"
    body_line = text.count("\n", 0, body_start) + 1
    early_close = close > 0 and text[close - 1] != "\n"
    if file is None:
        return Frontmatter(data, text[body_start:], True, status, error, error_line, body_line, early_close, block)
    return FileFrontmatter(file, data, True, status, error, error_line, body_line, early_close)


def key_line(fm: Frontmatter, key: str) -> int | None:
    """1-based file line of a top-level key in the block, for diagnostics."""
    for i, line in enumerate(fm.raw.split("\n")):
        if line.startswith(key + ":"):
            return i + 2  # the opening `---` is line 1
    return None


class _FromFile:
    """`FileFrontmatter.body` and `.raw`: the file read again and split as `parse_claude` splits it, at each use.

    A file that changed since it was parsed gives its current text; one that can no longer be read gives "" (the
    catalog is stale then, and the watcher re-scans)."""

    def __init__(self, part: Callable[[str], str]) -> None:
        self.part = part

    def __get__(self, fm: FileFrontmatter | None, owner: type | None = None) -> Any:
        if fm is None:
            return self
        try:
            return self.part(read_text(fm.path, fm.cap).text)
        except OSError:
            return ""

    def __set__(self, fm: FileFrontmatter, value: str) -> None:
        raise AttributeError("a FileFrontmatter reads this from its file")


class FileFrontmatter(Frontmatter):
    """Claude Code's frontmatter of one file, without its text in memory: `body` and `raw` (the block as written) read
    the file again when asked for.

    Discovery keeps one per file, and holding every body was a third of a big catalog's memory (29 MB for 6,000
    files, and ~30 ms of a first scan to fault that memory in), while only a preview, the link check and tests read a
    body, one skill at a time; the block as written is read for a finding's line. The other fields are Frontmatter's,
    in its order."""

    body = _FromFile(claude_body)
    raw = _FromFile(claude_block)

    def __init__(self, file: tuple[str, int], data: dict[str, Any], present: bool = False, status: FrontmatterStatus = "none",
                 error: str | None = None, error_line: int | None = None, body_line: int = 1, early_close: bool = False):
        self.path, self.cap = file
        self.data, self.present, self.status, self.error, self.error_line = data, present, status, error, error_line
        self.body_line, self.early_close = body_line, early_close

    def body_from(self, data: bytes | None) -> str:
        """`read_body` from the file's bytes as a caller read them (more than `cap` of them, or all; None when the
        file could not be read): a caller that reads the file anyway spares a second read."""
        if data is None:
            return ""
        return claude_body(data[: self.cap].decode("utf-8", errors="replace"))
