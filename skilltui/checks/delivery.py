"""Delivery transports and plugin consistency (spec/delivery.md): the checks behind `skilltui doctor`.

Two entry points, both plain functions over paths that never raise:
- `check_delivery(project_root, home, ...)`: one canonical `.agents/skills/<name>/SKILL.md` tree, delivered to Claude
  Code by a symlink chain, to Codex by hand-kept twins, to AGY by hard links plus generated adapters (§2).
- `check_plugin(plugin_root, ...)`: a Claude Code plugin whose skills, commands, hooks and MCP servers must agree (§3).

Untrusted input: contents are read only from regular files whose real path stays inside a tree being checked, each
read capped at 1 MB; links are only stat'ed or readlink'ed to report on them. Broken input becomes a diagnostic.
Diagnostic `path` is absolute (the TUI jumps to it); paths inside messages are repo- (or plugin-) relative, `~/` for home.
"""

from __future__ import annotations

import errno
import json
import os
import posixpath
import re
import stat
import sys
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from skilltui import fsio
from skilltui.frontmatter import (
    YamlError,
    key_line,
    line_fallback,
    load_yaml12,
    parse_claude,
)
from skilltui.model import (
    FILTERED,
    HIDDEN,
    LISTED,
    SHADOWED,
    Catalog,
    Diagnostic,
    Frontmatter,
    Options,
    Severity,
    Skill,
)
from skilltui.record import Record
from skilltui.runtimes.claude import discovery as claude_rules
from skilltui.runtimes.claude.settings import paths_for

if TYPE_CHECKING:  # Codex's parser is imported where a check needs it: most doctor runs never do
    from skilltui.runtimes.codex import discovery as codex_rules

CAP = 1_000_000  # bytes read from any one file
MAX_HOPS = 40  # symlink hops followed by hand before calling it a loop
MAX_FILES = 5_000  # files looked at under one adapters folder / commands folder
MAX_DEPTH = 8
MAX_DIAGS_PER_FILE = 50

HOOK_EVENTS = frozenset(
    ["PreToolUse", "PostToolUse", "PostToolUseFailure", "PostToolBatch", "Notification", "UserPromptSubmit", "UserPromptExpansion", "SessionStart", "SessionEnd", "Stop", "StopFailure", "SubagentStart", "SubagentStop", "PreCompact", "PostCompact", "PreModelSwitch", "PostModelSwitch", "PermissionRequest", "PermissionDenied", "Setup", "TeammateIdle", "TaskCreated", "TaskCompleted", "Elicitation", "ElicitationResult", "ConfigChange", "WorktreeCreate", "WorktreeRemove", "InstructionsLoaded", "CwdChanged", "FileChanged", "DirectoryAdded", "MessageDisplay", "PreSkillShellCommand"]
)
# plugin.json component fields holding paths (claude-code.md §10.2)
COMPONENT_FIELDS = ("skills", "commands", "agents", "hooks", "mcpServers", "outputStyles", "themes", "workflows", "lspServers")
CAPABILITY_HEADING = "## Required Skill Capabilities"
ROOT_VAR = "${CLAUDE_PLUGIN_ROOT}"
# Where the user sets the spec's `delivery.*` keys (§1.1): environment variables, named in every finding that needs one.
GUIDE_ENV = "SKILLTUI_CAPABILITY_GUIDE"  # delivery.capability_guide
AGY_SKILLS_ENV = "SKILLTUI_AGY_SKILLS_DIR"  # delivery.agy_skills_dir
AGY_ADAPTERS_ENV = "SKILLTUI_AGY_ADAPTERS_DIR"  # delivery.agy_adapters_dir
SHA256_RE = re.compile(r"^[0-9a-f]{64}$")


def default_managed_dir() -> str:
    if sys.platform == "darwin":
        return "/Library/Application Support/ClaudeCode"
    if sys.platform.startswith("win"):
        return r"C:\Program Files\ClaudeCode"
    return "/etc/claude-code"


# ---------------------------------------------------------------------------------------------------- small helpers
def _real(path: str) -> str:
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return os.path.abspath(path)


class RealPaths:
    """`_real` that remembers the folders it resolved: a path below one costs one lstat for its new part instead of
    one for every part from the root (a plugin's skill files share all but their last two). The same answer as
    os.path.realpath (non-strict): realpath(head/tail) is realpath(realpath(head)/tail) for a tail that is a name.
    Lives as long as one check, so a link changed between two runs is seen."""

    def __init__(self) -> None:
        self.folders: dict[str, str] = {}

    def __call__(self, path: str) -> str:
        try:
            return self._resolve(path)
        except (OSError, ValueError):
            return os.path.abspath(path)

    def _resolve(self, path: str) -> str:
        head, tail = os.path.split(path)
        if not os.path.isabs(path) or tail in ("", ".", "..") or head == path or os.path.normpath(path) != path:
            return os.path.realpath(path)  # relative, or not in normal form (`..` must see links first): the full walk
        base = self.folders.get(head)
        if base is None:
            base = self.folders[head] = head if head == os.sep else self._resolve(head)
        joined = os.path.join(base, tail)
        try:
            mode = os.lstat(joined).st_mode
        except OSError:
            return joined  # missing: kept as written, as realpath does
        return os.path.realpath(joined) if stat.S_ISLNK(mode) else joined


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _lexists(path: str) -> bool:
    try:
        os.lstat(path)
        return True
    except (OSError, ValueError):
        return False


def _islink(path: str) -> bool:
    try:
        return stat.S_ISLNK(os.lstat(path).st_mode)
    except (OSError, ValueError):
        return False


def _isdir(path: str) -> bool:
    try:
        return stat.S_ISDIR(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def _isfile(path: str) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def _q(value: Any, limit: int = 80) -> str:
    """A value from disk made safe for a one-line message: quoted, control characters escaped, capped."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    out = []
    for ch in text:
        cat = unicodedata.category(ch)
        if cat in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"):
            out.append(f"\\u{ord(ch):04x}" if ord(ch) <= 0xFFFF else f"\\U{ord(ch):08x}")
        else:
            out.append(ch)
    text = "".join(out)
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return f'"{text}"'


def _scalar_text(value: Any) -> str | None:
    """A frontmatter scalar as the runtimes turn it into text; None for absent, lists and maps."""
    if value is None or isinstance(value, (list, dict)):
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _json_line(text: str, needle: str, start_line: int = 1) -> int | None:
    """1-based line of the first occurrence of `needle` at or after `start_line`."""
    for i, line in enumerate(text.split("\n"), 1):
        if i >= start_line and needle in line:
            return i
    return None


def _json_key_line(text: str, key: str, value: Any = None) -> int | None:
    needle = json.dumps(key) + (":" if value is None else "")
    if value is not None:
        encoded = json.dumps(value, ensure_ascii=False) if isinstance(value, str) else None
        if encoded:
            return _json_line(text, encoded) or _json_line(text, json.dumps(value))
    return _json_line(text, needle) or _json_line(text, json.dumps(key))


def _raw_line(fm: Frontmatter, needle: str) -> int | None:
    """1-based file line of the first block line containing `needle` (nested keys such as `syncs_with`)."""
    for i, line in enumerate(fm.raw.split("\n")):
        if needle in line:
            return i + 2
    return None


class _Out:
    """Collects diagnostics, once each."""

    def __init__(self) -> None:
        self.items: list[Diagnostic] = []
        self._seen: set[tuple[str, str | None, int | None, str]] = set()

    def add(self, severity: Severity, code: str, path: str | None, message: str, line: int | None = None,
            fix: str | None = None, runtime: str | None = None) -> None:
        key = (code, path, line, message)
        if key in self._seen:
            return
        self._seen.add(key)
        self.items.append(Diagnostic(severity, code, path, message, line=line, fix=fix, runtime=runtime))


@dataclass(repr=False)
class _Reader(Record):
    """Capped reads confined to the trees being checked; failures are remembered for one diagnostic each."""

    roots: list[str]
    cap: int = CAP
    real: Callable[[str], str] = os.path.realpath

    def check(self, path: str) -> str | None:
        """Why `read` would refuse this file before reading it, or None."""
        return self._check(path)[1]

    def _check(self, path: str) -> tuple[str, str | None]:
        try:
            real = self.real(path)
            if not any(_inside(real, r) for r in self.roots):
                return real, f"it links out of the checked tree (to {real}); not read"
            st = os.stat(real)
            if not stat.S_ISREG(st.st_mode):
                return real, "it is not a regular file"
            if st.st_size > self.cap:
                return real, f"it is larger than {self.cap:,} bytes; not read"
            return real, None
        except OSError as exc:
            return "", _why(exc)
        except (ValueError, RuntimeError) as exc:
            return "", str(exc) or exc.__class__.__name__

    def read(self, path: str) -> tuple[bytes | None, str | None]:
        real, err = self._check(path)
        if err is not None:
            return None, err
        try:
            with fsio.open_binary(real) as fh:
                data = fh.read(self.cap + 1)
            if len(data) > self.cap:
                return None, f"it is larger than {self.cap:,} bytes; not read"
            return data, None
        except OSError as exc:
            return None, _why(exc)
        except (ValueError, RuntimeError) as exc:
            return None, str(exc) or exc.__class__.__name__

    def text(self, path: str) -> tuple[str | None, str | None]:
        data, err = self.read(path)
        if data is None:
            return None, err
        text = data.decode("utf-8", errors="replace")
        return (text[1:] if text.startswith("\ufeff") else text), None


def _why(exc: OSError) -> str:
    if exc.errno == errno.ELOOP:
        return "its symbolic links loop"
    return exc.strerror or exc.__class__.__name__


def _scandir(path: str) -> tuple[list[os.DirEntry[str]], str | None]:
    try:
        with os.scandir(path) as it:
            return sorted(it, key=lambda e: e.name), None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return [], "its symbolic links loop"
        return [], exc.strerror or exc.__class__.__name__
    except (ValueError, RuntimeError) as exc:
        return [], str(exc) or exc.__class__.__name__


# =============================================================================================== check_delivery (§2)
@dataclass(repr=False)
class _Canonical(Record):
    name: str  # folder name
    path: str  # .agents/skills/<name>/SKILL.md (absolute, not resolved)
    text: str | None = None
    error: str | None = None
    codex: codex_rules.ParsedSkill | None = None  # as Codex reads it (its own parser: one rule, one place)
    claude: Frontmatter | None = None  # the whole frontmatter (version, metadata.syncs_with: conventions, §1.1)
    extra: dict[str, Any] = field(default_factory=dict)

    def parse(self) -> None:
        if self.text is not None:
            from skilltui.runtimes.codex import discovery as codex_rules

            self.codex = codex_rules.parse_skill_text(self.text, os.path.basename(os.path.dirname(self.path)))
            self.claude = parse_claude(self.text)

    @property
    def codex_name(self) -> str:
        return (self.codex.name if self.codex is not None else None) or self.name


class _Delivery:
    def __init__(self, project_root: str, home: str, managed_dir: str | None, env: dict[str, str] | None,
                 agy_skills_dir: str | None, agy_adapters_dir: str | None, catalogs: dict[str, Catalog] | None = None):
        self.out = _Out()
        self._catalogs: dict[str, Catalog] = dict(catalogs or {})
        self.repo = os.path.abspath(project_root)
        self.repo_real = _real(self.repo)
        self.home = os.path.abspath(home)
        self.env = dict(env or {})
        # Claude Code's own rule for its config folder (CLAUDE_CONFIG_DIR: relative to the project, empty = the project)
        self.config_dir = paths_for(Options(cwd=self.repo, home=self.home, env=self.env)).config_dir
        codex_home = self.env.get("CODEX_HOME")
        self.codex_home = os.path.abspath(codex_home) if codex_home else os.path.join(self.home, ".codex")
        self.managed = os.path.abspath(managed_dir if managed_dir is not None else default_managed_dir())
        self.agy_skills = self._abs(agy_skills_dir) if agy_skills_dir else None
        self.agy_adapters = self._abs(agy_adapters_dir) if agy_adapters_dir else None
        roots = [self.repo, self.home, self.config_dir, self.codex_home, self.managed]
        roots += [p for p in (self.agy_skills, self.agy_adapters) if p]
        self.reader = _Reader(sorted({_real(r) for r in roots}))
        self.canon_root = os.path.join(self.repo, ".agents", "skills")
        self.canonicals: dict[str, _Canonical] = {}

    def catalog(self, runtime: str) -> Catalog:
        """The runtime's own discovery of this project (the doctor passes the one its views show; else made here)."""
        if runtime not in self._catalogs:
            from skilltui.runtimes import discover

            self._catalogs[runtime] = discover(Options(cwd=self.repo, home=self.home, runtime=runtime,
                                                       managed_dir=self.managed, env=self.env))
        return self._catalogs[runtime]

    def claude_catalog(self) -> Catalog:
        return self.catalog("claude")

    def _abs(self, path: str) -> str:
        path = os.path.expanduser(path) if path.startswith("~/") else path
        return os.path.abspath(os.path.join(self.repo, path))

    def show(self, path: str) -> str:
        """Repo-relative (or ~/) form of a path for messages."""
        ab = os.path.abspath(path)
        if _inside(ab, self.repo):
            rel = os.path.relpath(ab, self.repo)
            return "." if rel == "." else rel.replace(os.sep, "/")
        if _inside(ab, self.home):
            return "~/" + os.path.relpath(ab, self.home).replace(os.sep, "/")
        return ab

    def unreadable(self, path: str, why: str, runtime: str | None = None) -> None:
        self.out.add("warning", "delivery-unreadable", path, f"{self.show(path)} could not be read: {why}",
                     fix="Make it a readable regular file inside the project (or home) tree.", runtime=runtime)

    # ----------------------------------------------------------------------------------------------- canonicals
    def load_canonicals(self) -> None:
        if not _lexists(self.canon_root):
            return
        if not _inside(_real(self.canon_root), self.repo_real):
            self.unreadable(self.canon_root, f"it links out of the repository (to {_real(self.canon_root)})")
            return
        entries, err = _scandir(self.canon_root)
        if err:
            self.unreadable(self.canon_root, err)
            return
        for entry in entries:
            try:
                is_dir = entry.is_dir(follow_symlinks=True)
            except OSError:
                is_dir = False
            if not is_dir:
                if _islink(entry.path) and not os.path.exists(entry.path):
                    _, why = self._follow(entry.path)
                    self.unreadable(entry.path, "its symbolic links loop" if why == "loop" else "it is a dangling symbolic link")
                continue
            path = os.path.join(entry.path, "SKILL.md")
            if not _lexists(path):
                continue
            can = _Canonical(entry.name, path)
            can.text, can.error = self.reader.text(path)
            if can.text is None:
                self.unreadable(path, can.error or "unreadable")
            else:
                can.parse()
            self.canonicals[entry.name] = can

    def canonical_version(self, can: _Canonical) -> str | None:
        """§1.1: frontmatter `version`, else `metadata.version` (raw text when YAML made it a number)."""
        data, raw = {}, ""
        if can.claude is not None:
            data, raw = can.claude.data, can.claude.raw
        value = data.get("version")
        if value is not None and not isinstance(value, (list, dict)):
            if not isinstance(value, str):
                value = line_fallback(raw).get("version", _scalar_text(value))
            return str(value).strip() or None
        meta = data.get("metadata")
        if isinstance(meta, dict):
            value = meta.get("version")
            if value is not None and not isinstance(value, (list, dict)):
                if not isinstance(value, str):
                    m = re.search(r"^\s+version\s*:\s*['\"]?([^'\"\s#]+)", raw, re.M)
                    value = m.group(1) if m else _scalar_text(value)
                return str(value).strip() or None
        return None

    # ------------------------------------------------------------------------------------------ 2.1 Claude Code
    @staticmethod
    def _follow(element: str) -> tuple[list[tuple[str, str]], str | None]:
        """Hops (link, target text) from `element`; error 'loop' or 'dangling' or None."""
        hops: list[tuple[str, str]] = []
        cur, seen = element, set()
        while _islink(cur):
            if cur in seen or len(hops) >= MAX_HOPS:
                return hops, "loop"
            seen.add(cur)
            try:
                target = os.readlink(cur)
            except OSError:
                return hops, "dangling"
            hops.append((cur, target))
            cur = os.path.normpath(os.path.join(_real(os.path.dirname(cur)), target))
        try:
            os.stat(element)
        except OSError as exc:
            return hops, "loop" if exc.errno == errno.ELOOP else "dangling"
        except ValueError:
            return hops, "dangling"
        return hops, None

    def check_claude(self) -> None:
        e1 = os.path.join(self.config_dir, "skills")
        e2 = os.path.join(self.repo, ".claude", "skills")
        target_real = _real(self.canon_root)
        if not self.canonicals:
            return
        rt = "claude"
        e2_real = _real(e2) if _lexists(e2) else None
        usable: dict[str, bool] = {}
        for element, label in ((e1, "user"), (e2, "project")):
            shown = self.show(element)
            if not _lexists(element):
                self.out.add("error", "claude-link-missing", element,
                             f"{shown} does not exist, so the {label} link of the chain to .agents/skills is missing",
                             fix=f"ln -s {self._suggest_target(element)} {shown}", runtime=rt)
                usable[element] = False
                continue
            hops, err = self._follow(element)
            if element == e1 and err and any(self._key(link) == self._key(e2) for link, _ in hops[1:]):
                usable[element] = False  # broken further down, at the project element: reported there
                err = None
                hops_through_e2 = True
            else:
                hops_through_e2 = False
            for link, target in hops:
                if element == e1 and link != element and self._key(link) == self._key(e2):
                    continue  # the project element reports its own link
                if os.path.isabs(target):
                    self.out.add("info", "claude-link-absolute", link,
                                 f"{self.show(link)} -> {_q(target, 200)} is absolute; the chain breaks when the repository moves",
                                 fix=f"Re-create {self.show(link)} with a relative target.", runtime=rt)
            if hops_through_e2:
                continue
            if err:
                what = "loops" if err == "loop" else f"points at nothing ({_q(hops[-1][1], 200) if hops else '?'})"
                self.out.add("error", "claude-link-dangling", element, f"{shown} {what}",
                             fix=f"Replace the broken link (it holds nothing, so nothing is lost): "
                                 f"ln -sfn {self._suggest_target(element)} {shown}", runtime=rt)
                usable[element] = False
                continue
            real = _real(element)
            usable[element] = True
            if real == target_real:
                continue
            if element == e1 and e2_real is not None and real == e2_real:
                continue  # continues into the project element, judged there
            if not hops:
                if _isdir(element):
                    if element == e1 and self._all_linked_one_by_one(e1):
                        continue  # a real user folder whose entries link to each canonical: nothing can drift
                    own = self._own_entries(element)
                    self.out.add("warning", "claude-link-not-symlink", element,
                                 f"{shown} is a real folder, not a symbolic link to .agents/skills; copies in it can drift",
                                 fix=self._real_folder_fix(element, e1, own), runtime=rt)
                    continue
                self.out.add("error", "claude-link-wrong-target", element,
                             f"{shown} is a file, not a link to .agents/skills, so Claude Code finds no skills there",
                             fix=f"Look at what {shown} holds and keep it elsewhere if you need it; then, in its place, "
                                 f"make a symbolic link to {self._suggest_target(element)}.", runtime=rt)
                usable[element] = False
                continue
            if element == e1:
                self.out.add("error", "claude-link-wrong-target", element,
                             f"{shown} resolves to {self.show(real)}, not to .agents/skills",
                             fix=f"Keep {shown} as it is (re-pointing it would take {self.show(real)}'s skills away from "
                                 "Claude Code) and link each canonical skill into it where that name is free: "
                                 f"ln -s {self.canon_root}/<name> {shown}/<name>", runtime=rt)
            else:
                self.out.add("error", "claude-link-wrong-target", element,
                             f"{shown} resolves to {self.show(real)}, not to .agents/skills",
                             fix=f"Re-point the link (only the link is replaced; {self.show(real)} stays): "
                                 f"ln -sfn {self._suggest_target(element)} {shown}", runtime=rt)
        self._claude_skills(e1, usable.get(e1, False))

    def _all_linked_one_by_one(self, folder: str) -> bool:
        return all(_real(os.path.join(folder, name, "SKILL.md")) == _real(c.path) for name, c in self.canonicals.items())

    def _own_entries(self, folder: str) -> list[str]:
        """Entries of a real skills folder that are not links into .agents/skills: what replacing it would lose."""
        entries, _ = _scandir(folder)
        canon_real = _real(self.canon_root)
        return [e.name for e in entries if not (_islink(e.path) and _inside(_real(e.path), canon_real))]

    def _real_folder_fix(self, element: str, e1: str, own: list[str]) -> str:
        shown = self.show(element)
        lost = (f"it holds {len(own)} entr{'y' if len(own) == 1 else 'ies'} of its own ({', '.join(own[:3])}"
                f"{', …' if len(own) > 3 else ''}) that replacing it would lose") if own else "it holds nothing of its own"
        if element == e1:
            return (f"Keep {shown} ({lost}) and link each canonical skill into it where that name is free: "
                    f"ln -s {self.canon_root}/<name> {shown}/<name>")
        return (f"Move what {shown} holds into .agents/skills ({lost}), then replace the emptied folder by a symbolic "
                f"link to {self._suggest_target(element)}")

    @staticmethod
    def _key(path: str) -> str:
        return os.path.join(_real(os.path.dirname(path)), os.path.basename(path))

    def _suggest_target(self, element: str) -> str:
        e2 = os.path.join(self.repo, ".claude", "skills")
        if element == e2:
            return "../.agents/skills"
        try:
            return os.path.relpath(e2, os.path.dirname(element)).replace(os.sep, "/")
        except ValueError:
            return e2

    def _claude_entry(self, candidate: str) -> Skill | None:
        """Claude Code's own entry for this file (the catalog the Skills screen shows): the listed one when the file
        is reached twice, else the first."""
        real = _real(candidate)
        found = [s for s in self.claude_catalog().skills if s.kind == "skill" and s.path and _real(s.path) == real]
        return next((s for s in found if s.status == LISTED), found[0] if found else None)

    def _claude_skills(self, e1: str, e1_usable: bool) -> None:
        rt = "claude"
        for name, can in self.canonicals.items():
            candidate = os.path.join(e1, name, "SKILL.md")
            shown = self.show(candidate)
            can_real = _real(can.path)
            reachable = False
            if not e1_usable:
                reason = f"{self.show(e1)} is not a working link"
            elif not _isfile(candidate):
                reason = f"{shown} {'is not a regular file' if _lexists(candidate) else 'does not exist'}"
            elif _real(candidate) == can_real:
                reachable = True
                reason = ""
            else:
                # a copy: identical bytes are only the chain's not-symlink warning; a drifted copy misses the canonical
                mine, _ = self.reader.read(candidate)
                theirs, _ = self.reader.read(can.path)
                if mine is not None and mine == theirs:
                    reachable = True
                    reason = ""
                else:
                    reason = f"{shown} is {self.show(_real(candidate))}, a copy that differs from the canonical"
            if not reachable:
                fix = ("Repair the ~/.claude/skills -> .claude/skills -> .agents/skills symbolic link chain "
                       "(see the link findings).")
                if e1_usable and not _lexists(os.path.dirname(candidate)):
                    fix = f"Link it in (nothing is there yet): ln -s {os.path.dirname(can.path)} {self.show(os.path.dirname(candidate))}"
                elif e1_usable:
                    fix = (f"{self.show(os.path.dirname(candidate))} is another skill folder of the same name; rename one "
                           "of the two (replacing it would lose it).")
                self.out.add("error", "claude-canonical-unreachable", can.path,
                             f"Claude Code does not get {self.show(can.path)}: {reason}", fix=fix, runtime=rt)
                continue
            # What Claude Code then does with it is the runtime's rule: read it from the catalog, never re-derive it.
            entry = self._claude_entry(candidate)
            if entry is None or entry.status == LISTED:
                continue
            if entry.status == SHADOWED:
                winner = entry.shadowed_by or "another skill of the same name"
                self.out.add("warning", "claude-canonical-shadowed", can.path,
                             f"Claude Code lists {self.show(winner)} for {_q(entry.name)}, not {self.show(can.path)} "
                             f"(reached via {shown}){': ' + entry.reason if entry.reason else ''}",
                             fix="Rename the canonical skill's folder, or remove the other copy if it is yours.", runtime=rt)
                continue
            why = entry.reason or entry.status
            line = key_line(can.claude, "disable-model-invocation") if can.claude and "disable-model-invocation" in why else None
            verb = "loads" if entry.status == HIDDEN else "finds"
            self.out.add("warning", "claude-canonical-not-offered", can.path,
                         f"Claude Code {verb} {self.show(can.path)} as {_q(entry.name)} but does not list it ({entry.status}): {why}",
                         line=line, fix="Remove what hides it if the model should see it.", runtime=rt)

    # ------------------------------------------------------------------------------------------------ 2.2 Codex
    # ------------------------------------------------------------------------------------------ opting in (§1.2)
    def _links_into_repo(self, element: str, targets: tuple[str, ...]) -> bool:
        """`element` is a symbolic link one of whose hops (read lexically, so a broken chain still counts) lands in
        one of `targets`."""
        if not _islink(element):
            return False
        hops, _ = self._follow(element)
        for link, target in hops:
            landed = os.path.normpath(os.path.join(os.path.dirname(link), target))
            if any(_inside(landed, t) or _inside(_real(landed), _real(t)) for t in targets):
                return True
        return False

    def opted_in(self) -> str | None:
        """Why this project uses the delivery model, or None: then `.agents/skills` is just a folder Codex reads."""
        if _lexists(os.path.join(self.repo, ".agents", "twin-registry.json")):
            return ".agents/twin-registry.json exists"
        if self.agy_skills and self.agy_adapters:
            return "the AGY folders are set"
        agents = os.path.join(self.repo, ".agents")
        e1 = os.path.join(self.config_dir, "skills")
        e2 = os.path.join(self.repo, ".claude", "skills")
        if self._links_into_repo(e2, (agents,)) or self._links_into_repo(e1, (agents, e2)):
            return "a skills folder of Claude Code links into .agents/skills"
        twins_root = os.path.join(self.repo, ".codex", "skills")
        entries, _ = _scandir(twins_root) if _isdir(twins_root) and _inside(_real(twins_root), self.repo_real) else ([], None)
        for entry in entries[:MAX_FILES]:
            text, _ = self.reader.text(os.path.join(entry.path, "SKILL.md"))
            if text and "syncs_with" in text:
                meta = parse_claude(text).data.get("metadata")
                if isinstance(meta, dict) and "syncs_with" in meta:
                    return ".codex/skills holds twins pinned with metadata.syncs_with"
        return None

    def note_not_read(self) -> None:
        """Not opted in: at most one note, and only when Claude Code reaches none of these skills some other way."""
        if not self.canonicals:
            return
        reached = {_real(s.path) for s in self.claude_catalog().skills if s.path}
        if any(_real(c.path) in reached for c in self.canonicals.values()):
            return
        names = sorted(self.canonicals)
        shown = ", ".join(names[:5]) + (" …" if len(names) > 5 else "")
        self.out.add("info", "claude-agents-folder-not-read", self.canon_root,
                     f".agents/skills holds {len(names)} skill{'s' if len(names) != 1 else ''} ({shown}) that Codex reads; "
                     "Claude Code does not read this folder, so it does not offer them",
                     fix="Nothing to do if they are meant for Codex only. For Claude Code too, link a skill into the "
                         f"project where no folder of that name exists yet: ln -s ../../.agents/skills/{names[0]} "
                         f".claude/skills/{names[0]}", runtime="claude")

    def check_codex(self) -> None:
        rt = "codex"
        twins_root = os.path.join(self.repo, ".codex", "skills")
        registry_path = os.path.join(self.repo, ".agents", "twin-registry.json")
        twins: dict[str, str] = {}  # repo-relative twin path -> canonical repo-relative path
        on_disk: list[str] = []
        if _lexists(twins_root):
            if not _inside(_real(twins_root), self.repo_real):
                self.unreadable(twins_root, f"it links out of the repository (to {_real(twins_root)})", rt)
            else:
                entries, err = _scandir(twins_root)
                if err:
                    self.unreadable(twins_root, err, rt)
                for entry in entries:
                    if entry.name.startswith("."):
                        continue
                    path = os.path.join(entry.path, "SKILL.md")
                    if _lexists(path):
                        rel = f".codex/skills/{entry.name}/SKILL.md"
                        on_disk.append(rel)
                        twins[rel] = f".agents/skills/{entry.name}/SKILL.md"

        registry, reg_text = self._registry(registry_path, bool(on_disk))
        registered: set[str] = set()
        for item in registry or []:
            name, canonical, twin = item["name"], item["canonical"], item["twin"]
            registered.add(twin)
            twins[twin] = canonical
            line = _json_line(reg_text or "", json.dumps(name, ensure_ascii=False)) or _json_line(reg_text or "", json.dumps(name))
            absent = [p for p in (canonical, twin) if not _lexists(os.path.join(self.repo, p))]
            if absent:
                self.out.add("warning", "codex-twin-registry-stale", registry_path,
                             f".agents/twin-registry.json entry {_q(name)} names {', '.join(absent)}, which "
                             f"{'does' if len(absent) == 1 else 'do'} not exist",
                             line=line, fix="Remove the entry or create the files it names.", runtime=rt)
            if twin in absent:
                self.out.add("error", "codex-twin-missing", os.path.join(self.repo, twin),
                             f"{twin} is absent, but .agents/twin-registry.json lists it as the Codex twin of {canonical}",
                             line=None, fix=f"Create {twin} from {canonical} (with metadata.syncs_with) or drop the entry.",
                             runtime=rt)
        if registry is not None:
            for rel in on_disk:
                if rel not in registered:
                    self.out.add("warning", "codex-twin-registry-stale", registry_path,
                                 f"{rel} exists but .agents/twin-registry.json does not list it",
                                 fix=f"Add an entry for {rel} to .agents/twin-registry.json.", runtime=rt)

        for twin_rel in sorted(twins):
            twin_path = os.path.join(self.repo, twin_rel)
            if not _lexists(twin_path):
                continue
            self._check_twin(twin_rel, twin_path, twins[twin_rel])

    def _registry(self, path: str, twins_exist: bool) -> tuple[list[dict[str, str]] | None, str | None]:
        rt = "codex"
        if not _lexists(path):
            if twins_exist:
                self.out.add("warning", "codex-twin-registry-missing", path,
                             ".codex/skills holds twins but .agents/twin-registry.json does not exist",
                             fix='Create .agents/twin-registry.json: {"twins": [{"name", "canonical", "twin"}]}.', runtime=rt)
            return None, None

        def bad(message: str, line: int | None = None) -> None:
            self.out.add("error", "codex-twin-registry-invalid", path, f".agents/twin-registry.json {message}", line=line,
                         fix='Make it {"twins": [{"name": "foo", "canonical": ".agents/skills/foo/SKILL.md", '
                             '"twin": ".codex/skills/foo/SKILL.md"}]}.', runtime=rt)

        text, err = self.reader.text(path)
        if text is None:
            bad(f"could not be read: {err}")
            return None, None
        try:
            data = fsio.json_loads(text)
        except ValueError as exc:
            bad(f"is not valid JSON: {getattr(exc, 'msg', exc)}", getattr(exc, "lineno", None))
            return None, text
        except RecursionError:
            bad("is nested too deeply")
            return None, text
        if not isinstance(data, dict) or not isinstance(data.get("twins"), list):
            bad('is not an object with a "twins" list')
            return None, text
        good = []
        for i, item in enumerate(data["twins"]):
            if not isinstance(item, dict) or not all(isinstance(item.get(k), str) and item.get(k) for k in ("name", "canonical", "twin")):
                bad(f'entry {i + 1} is not {{"name", "canonical", "twin"}} with string values')
                continue
            paths: list[str] | None = []
            for key in ("canonical", "twin"):
                norm = posixpath.normpath(item[key].replace("\\", "/"))
                if posixpath.isabs(norm) or norm == ".." or norm.startswith("../") or "\x00" in norm:
                    paths = None
                    break
                assert paths is not None
                paths.append(norm)
            if paths is None:
                bad(f"entry {_q(item['name'])} has a path that is not repository-relative",
                    _json_line(text, json.dumps(item["name"])))
                continue
            good.append({"name": item["name"], "canonical": paths[0], "twin": paths[1]})
        return good, text

    def _codex_offers(self, path: str) -> bool:
        """Codex's own verdict on this file (its catalog): valid, enabled by [[skills.config]], and offered."""
        real = _real(path)
        return any(_real(s.path) == real and s.status in (LISTED, FILTERED) for s in self.catalog("codex").skills)

    def _check_twin(self, twin_rel: str, twin_path: str, canon_rel: str) -> None:
        rt = "codex"
        folder = os.path.basename(os.path.dirname(twin_rel))
        canon_name = canon_rel.split("/")[-2] if canon_rel.count("/") >= 1 else folder
        can = None
        if canon_rel == f".agents/skills/{canon_name}/SKILL.md":
            can = self.canonicals.get(canon_name)
        if can is None and _isfile(os.path.join(self.repo, canon_rel)):
            can = _Canonical(canon_name, os.path.join(self.repo, canon_rel))
            can.text, can.error = self.reader.text(can.path)
            can.parse()
        if can is None:
            self.out.add("warning", "codex-twin-orphan", twin_path,
                         f"{twin_rel} is a Codex twin of {canon_rel}, which does not exist",
                         fix=f"Delete {twin_rel} or restore {canon_rel}.", runtime=rt)

        text, err = self.reader.text(twin_path)
        if text is None:
            self.unreadable(twin_path, err or "unreadable", rt)
            return
        from skilltui.runtimes.codex import discovery as codex_rules

        parsed = codex_rules.parse_skill_text(text, folder)
        if parsed.code == "codex-frontmatter-missing":
            self.out.add("error", "codex-twin-invalid", twin_path, f"Codex rejects {twin_rel}: {parsed.error}", line=1,
                         fix="Give it a --- frontmatter block with name, description and metadata.syncs_with.", runtime=rt)
            return
        valid = parsed.error is None
        twin_name = parsed.name or folder
        if parsed.error is not None:
            self.out.add("error", "codex-twin-invalid", twin_path, f"Codex rejects {twin_rel}: {parsed.error}",
                         line=parsed.error_line or 1, fix="Give it a name of at most 64 characters and the canonical's "
                         "description, in valid YAML.", runtime=rt)
        fm = parse_claude(text)  # metadata.syncs_with is this project's convention, read from the whole frontmatter

        meta = fm.data.get("metadata")
        pin = meta.get("syncs_with") if isinstance(meta, dict) else None
        pin_line = _raw_line(fm, "syncs_with") or _raw_line(fm, "metadata") or 1
        if pin is None:
            self.out.add("error", "codex-twin-syncs-with-missing", twin_path,
                         f"{twin_rel} has no metadata.syncs_with pin to {canon_rel}",
                         line=_raw_line(fm, "metadata") or 1,
                         fix=f'Add metadata: {{syncs_with: "{canon_rel}@<version>"}}.', runtime=rt)
        elif not isinstance(pin, str) or "@" not in pin or not pin.rpartition("@")[0] or not pin.rpartition("@")[2].strip():
            self.out.add("error", "codex-twin-syncs-with-invalid", twin_path,
                         f"{twin_rel} metadata.syncs_with {_q(pin)} is not <path>@<version>",
                         line=pin_line, fix=f'Write syncs_with: "{canon_rel}@<version>".', runtime=rt)
        else:
            pin_path, _, pin_version = pin.rpartition("@")
            pin_version = pin_version.strip()
            norm = posixpath.normpath(pin_path.strip())
            if norm != canon_rel or not re.fullmatch(r"\.agents/skills/[^/]+/SKILL\.md", norm):
                self.out.add("error", "codex-twin-syncs-with-invalid", twin_path,
                             f"{twin_rel} syncs_with names {_q(pin_path)}, but its canonical is {canon_rel}",
                             line=pin_line, fix=f'Write syncs_with: "{canon_rel}@{pin_version}".', runtime=rt)
            elif can is not None and can.text is not None:
                version = self.canonical_version(can)
                if version is None:
                    self.out.add("warning", "codex-canonical-version-missing", can.path,
                                 f"{canon_rel} has no version (nor metadata.version), so the pin {_q(pin_version)} "
                                 f"in {twin_rel} cannot be checked",
                                 line=1, fix=f"Add `version: {pin_version}` to {canon_rel}.", runtime=rt)
                elif version != pin_version:
                    self.out.add("error", "codex-twin-version-mismatch", twin_path,
                                 f"{twin_rel} pins {canon_rel}@{pin_version} but the canonical is at version {version}",
                                 line=pin_line,
                                 fix=f"Bring {twin_rel} up to date with {canon_rel}, then pin @{version}.", runtime=rt)

        if can is None or can.text is None:
            return
        if twin_name != can.codex_name:
            self.out.add("error", "codex-twin-name-mismatch", twin_path,
                         f"Codex names {twin_rel} {_q(twin_name)} but {canon_rel} {_q(can.codex_name)}",
                         line=_raw_line(fm, "name:") or 1,
                         fix=f"Set `name: {can.codex_name}` in {twin_rel}.", runtime=rt)
            return
        if valid and self._codex_offers(twin_path) and self._codex_offers(can.path):
            self.out.add("warning", "codex-twin-duplicate-listing", twin_path,
                         f"Codex lists {_q(twin_name)} twice: {canon_rel} and {twin_rel} (both repo scope, no dedupe by name)",
                         fix=f'Disable one copy in ~/.codex/config.toml: [[skills.config]] path = "{twin_path}" enabled = false',
                         runtime=rt)

    # -------------------------------------------------------------------------------------------------- 2.3 AGY
    def check_agy(self) -> None:
        if not self.agy_skills or not self.agy_adapters:
            return
        rt = "agy"
        adapters = self._adapters()
        by_skill: dict[str, list[tuple[str, Any]]] = {}
        for path, skill, digest in adapters:
            by_skill.setdefault(skill, []).append((path, digest))
        for name, can in self.canonicals.items():
            copy = os.path.join(self.agy_skills, name, "SKILL.md")
            if not _lexists(copy):
                self.out.add("error", "agy-hardlink-missing", copy,
                             f"{self.show(copy)} is absent; AGY does not get {self.show(can.path)}",
                             fix=f"ln {self.show(can.path)} {self.show(copy)}", runtime=rt)
            else:
                problem = None
                try:
                    mine = os.lstat(copy)
                    theirs = os.stat(can.path)
                    if stat.S_ISLNK(mine.st_mode):
                        problem = "is a symbolic link, not a hard link"
                    elif (mine.st_dev, mine.st_ino) != (theirs.st_dev, theirs.st_ino):
                        problem = "is a different file (another inode): an editor or a copy replaced the hard link"
                except OSError as exc:
                    problem = f"cannot be compared: {exc.strerror or exc}"
                if problem:
                    self.out.add("error", "agy-hardlink-broken", copy,
                                 f"{self.show(copy)} {problem} of {self.show(can.path)}",
                                 fix=f"Compare {self.show(copy)} with {self.show(can.path)} and bring any edit worth "
                                     "keeping into the canonical; then put a hard link of the canonical in its place "
                                     "(the copy's own changes would be lost).", runtime=rt)
            found = by_skill.get(name)
            if not found:
                self.out.add("warning", "agy-adapter-missing", can.path,
                             f"no adapter under {self.show(self.agy_adapters)} names skill {_q(name)} ({self.show(can.path)})",
                             fix="Regenerate the AGY adapters.", runtime=rt)
                continue
            digest_now = None
            data, err = self.reader.read(can.path)
            if data is not None:
                import hashlib  # only for AGY adapters: hashlib loads OpenSSL, a few ms of every doctor start

                digest_now = hashlib.sha256(data).hexdigest()
            for path, recorded in found:
                if not isinstance(recorded, str) or not SHA256_RE.match(recorded):
                    line = self._adapter_line(path, "projection_sha256")
                    self.out.add("error", "agy-projection-hash-missing", path,
                                 f"{self.show(path)} (adapter of {_q(name)}) records no valid projection_sha256"
                                 + (f" (found {_q(recorded)})" if recorded is not None else ""),
                                 line=line, fix="Regenerate the adapter.", runtime=rt)
                elif digest_now is None:
                    self.unreadable(can.path, err or "unreadable", rt)
                elif recorded != digest_now:
                    self.out.add("error", "agy-projection-stale", path,
                                 f"{self.show(path)} projection_sha256 {recorded[:12]}… ≠ SHA-256 of today's "
                                 f"{self.show(can.path)} {digest_now[:12]}…: the canonical changed after generation",
                                 line=self._adapter_line(path, "projection_sha256"),
                                 fix="Regenerate the adapter.", runtime=rt)
        for skill, items in sorted(by_skill.items()):
            if skill not in self.canonicals:
                for path, _ in items:
                    what = f"names skill {_q(skill)}, which has no canonical .agents/skills/{skill}/SKILL.md" if skill else "names no skill"
                    self.out.add("warning", "agy-adapter-orphan", path, f"{self.show(path)} {what}",
                                 line=self._adapter_line(path, "skill"),
                                 fix="Delete the adapter or restore its skill.", runtime=rt)

    def _adapter_line(self, path: str, key: str) -> int | None:
        text, _ = self.reader.text(path)
        if text is None:
            return None
        pattern = re.compile(r'(^|[\s{,])["\']?' + re.escape(key) + r'["\']?\s*:')
        for i, line in enumerate(text.split("\n"), 1):
            if pattern.search(line):
                return i
        return None

    def _adapters(self) -> list[tuple[str, str, Any]]:
        """(path, skill, projection_sha256 as recorded) for every adapter file under the adapters folder."""
        found: list[tuple[str, str, Any]] = []
        if self.agy_adapters is None or not _lexists(self.agy_adapters):
            return found
        stack = [(self.agy_adapters, 0)]
        seen_dirs: set[str] = set()
        count = 0
        while stack:
            folder, depth = stack.pop()
            real = _real(folder)
            if real in seen_dirs:
                continue
            seen_dirs.add(real)
            entries, err = _scandir(folder)
            if err:
                self.unreadable(folder, err, "agy")
                continue
            for entry in entries:
                try:
                    if entry.is_dir(follow_symlinks=False):
                        if depth < MAX_DEPTH:
                            stack.append((entry.path, depth + 1))
                        continue
                    if entry.is_symlink() and not entry.is_file():
                        _, why = self._follow(entry.path)
                        self.unreadable(entry.path, {"loop": "its symbolic links loop", "dangling": "it is a dangling symbolic link"}
                                        .get(why or "", "it is a symbolic link to a folder; not followed"), "agy")
                        continue
                except OSError:
                    continue
                count += 1
                if count > MAX_FILES:
                    self.unreadable(self.agy_adapters, f"more than {MAX_FILES} files; the rest were not read", "agy")
                    return found
                parsed = self._adapter(entry.path)
                if parsed is not None:
                    found.append((entry.path, parsed[0], parsed[1]))
        return found

    def _adapter(self, path: str) -> tuple[str, Any] | None:
        text, err = self.reader.text(path)
        if text is None:
            self.unreadable(path, err or "unreadable", "agy")
            return None
        data: Any = None
        if text.startswith("---"):
            fm = parse_claude(text)
            data = fm.data if fm.status in ("ok", "retried") else None
        else:
            stripped = text.lstrip()
            if stripped.startswith(("{", "[")):
                try:
                    data = fsio.json_loads(text)
                except (ValueError, RecursionError):
                    data = None
            elif path.endswith((".yaml", ".yml")):
                try:
                    data = load_yaml12(text)
                except YamlError:
                    data = None
        if not isinstance(data, dict):
            if "projection_sha256" in text:
                self.out.add("error", "agy-projection-hash-missing", path,
                             f"{self.show(path)} mentions projection_sha256 but cannot be parsed (YAML frontmatter or JSON)",
                             fix="Regenerate the adapter.", runtime="agy")
            return None
        if "skill" not in data and "projection_sha256" not in data:
            return None
        skill = data.get("skill")
        return (skill if isinstance(skill, str) else ""), data.get("projection_sha256")


def check_delivery(
    project_root: str,
    home: str,
    *,
    managed_dir: str | None = None,
    env: dict[str, str] | None = None,
    agy_skills_dir: str | None = None,
    agy_adapters_dir: str | None = None,
    catalogs: dict[str, Catalog] | None = None,
) -> list[Diagnostic]:
    """Transport diagnostics of spec/delivery.md §2 for the canonical tree `<project_root>/.agents/skills`.

    `home` is the user's home (`~/.claude/skills`, `~/.codex/config.toml`); `env` may carry `CLAUDE_CONFIG_DIR`,
    `CODEX_HOME`, `CLAUDE_CODE_DISABLE_POLICY_SKILLS`; `managed_dir` is Claude Code's managed directory (default: the
    platform's); the AGY checks run only when both `agy_*` settings are given (relative paths: from the project root).
    `catalogs` ({"claude": ..., "codex": ...}) are the runtimes' own discoveries of this project, asked what they do
    with each file; missing ones are discovered here. Nothing runs unless the project opts in (§1.2).
    """
    try:
        d = _Delivery(project_root, home, managed_dir, env, agy_skills_dir, agy_adapters_dir, catalogs)
    except Exception as exc:
        return [Diagnostic("warning", "delivery-check-failed", project_root, f"delivery checks could not start: {exc!r}")]
    try:
        d.load_canonicals()
        steps = (d.check_claude, d.check_codex, d.check_agy) if d.opted_in() else (d.note_not_read,)
    except Exception as exc:
        d.out.add("warning", "delivery-check-failed", project_root,
                  f"the delivery checks stopped on an unexpected input: {exc.__class__.__name__}: {_q(str(exc), 160)}")
        return d.out.items
    for step in steps:
        try:
            step()
        except Exception as exc:
            d.out.add("warning", "delivery-check-failed", project_root,
                      f"{step.__name__} stopped on an unexpected input: {exc.__class__.__name__}: {_q(str(exc), 160)}")
    return d.out.items


# ================================================================================================= check_plugin (§3)
@dataclass(repr=False)
class _Item(Record):
    name: str  # skill folder name / command name
    path: str  # file holding it (plugin.json for inline commands)
    fm: Frontmatter
    inline: bool = False
    fm_name: str | None = None  # skills: frontmatter `name` as text

    @property
    def body(self) -> str:
        """Read when a check needs it (a discovered file's frontmatter keeps no body in memory)."""
        return self.fm.body


class _Plugin:
    def __init__(self, plugin_root: str, capability_guide: str | None, known: Mapping[str, Frontmatter] | None = None):
        self.known = known or {}
        self.out = _Out()
        self.root = os.path.abspath(plugin_root)
        self.real = RealPaths()
        self.root_real = self.real(self.root)
        self.reader = _Reader([self.root_real], real=self.real)
        self.guide = None
        if capability_guide:
            self.guide = os.path.abspath(os.path.join(self.root, os.path.expanduser(capability_guide)))
        self.manifest_path = os.path.join(self.root, ".claude-plugin", "plugin.json")
        self.manifest: dict[str, Any] = {}
        self.manifest_text = ""
        self.name = os.path.basename(self.root)
        self.skills: dict[str, _Item] = {}
        self.commands: dict[str, _Item] = {}
        self.paths: dict[str, list[str]] = {}

    def show(self, path: str) -> str:
        ab = os.path.abspath(path)
        if _inside(ab, self.root):
            rel = os.path.relpath(ab, self.root).replace(os.sep, "/")
            return "." if rel == "." else rel
        return ab

    def add(self, severity: Severity, code: str, path: str | None, message: str, line: int | None = None,
            fix: str | None = None) -> None:
        self.out.add(severity, code, path, message, line=line, fix=fix, runtime="claude")

    def unreadable(self, path: str, why: str) -> None:
        self.add("error", "plugin-unreadable", path, f"{self.show(path)} could not be read: {why}",
                 fix="Make it a readable regular file inside the plugin folder.")

    def inside(self, path: str) -> bool:
        return _inside(self.real(path), self.root_real)

    # --------------------------------------------------------------------------------------------- manifest
    def load_manifest(self) -> None:
        fix = 'Create .claude-plugin/plugin.json with at least {"name": "<plugin>"}.'
        if not _lexists(self.manifest_path):
            self.add("error", "plugin-manifest-missing", self.manifest_path,
                     ".claude-plugin/plugin.json is absent", fix=fix)
            return
        text, err = self.reader.text(self.manifest_path)
        if text is None:
            self.add("error", "plugin-manifest-missing", self.manifest_path,
                     f".claude-plugin/plugin.json could not be read: {err}", fix=fix)
            return
        self.manifest_text = text
        try:
            data = fsio.json_loads(text)
        except ValueError as exc:
            self.add("error", "plugin-manifest-missing", self.manifest_path,
                     f".claude-plugin/plugin.json is not valid JSON: {getattr(exc, 'msg', exc)}",
                     line=getattr(exc, "lineno", None), fix="Fix the JSON syntax.")
            return
        except RecursionError:
            self.add("error", "plugin-manifest-missing", self.manifest_path,
                     ".claude-plugin/plugin.json is nested too deeply", fix="Fix the JSON.")
            return
        if not isinstance(data, dict):
            self.add("error", "plugin-manifest-missing", self.manifest_path,
                     ".claude-plugin/plugin.json is not a JSON object", line=1, fix=fix)
            return
        self.manifest = data
        name = data.get("name")
        line = _json_key_line(text, "name")
        problem = None
        if name is None:
            problem, line = "has no `name`", 1
        elif not isinstance(name, str):
            problem = f"`name` is not a string ({_q(name)})"
        elif not name:
            problem = "`name` is empty"
        elif any(ch.isspace() or unicodedata.category(ch) == "Cc" for ch in name):
            problem = f"`name` {_q(name)} contains spaces or control characters"
        if problem:
            self.add("error", "plugin-manifest-name-invalid", self.manifest_path, f".claude-plugin/plugin.json {problem}",
                     line=line, fix="Set `name` to a non-empty name without spaces, e.g. my-plugin.")
        else:
            assert isinstance(name, str)
            self.name = name

    def component_paths(self, key: str) -> list[str]:
        """Checked, existing, inside-the-plugin paths of one manifest component field (absolute)."""
        value = self.manifest.get(key)
        if value is None:
            return []
        raw: list[str] = []
        if isinstance(value, str):
            raw = [value]
        elif isinstance(value, list):
            raw = [v for v in value if isinstance(v, str)]
            for v in value:
                if not isinstance(v, (str, dict)) or (isinstance(v, dict) and key not in ("hooks", "mcpServers")):
                    self.add("error", "plugin-path-invalid", self.manifest_path,
                             f"plugin.json `{key}` holds {_q(v)}, which is not a path", line=_json_key_line(self.manifest_text, key))
        elif isinstance(value, dict):
            if key == "commands":
                for _cmd, spec in value.items():
                    if isinstance(spec, dict) and isinstance(spec.get("source"), str):
                        raw.append(spec["source"])
            elif key not in ("hooks", "mcpServers"):
                self.add("error", "plugin-path-invalid", self.manifest_path,
                         f"plugin.json `{key}` is an object, not a path", line=_json_key_line(self.manifest_text, key))
        else:
            self.add("error", "plugin-path-invalid", self.manifest_path, f"plugin.json `{key}` is {_q(value)}, not a path",
                     line=_json_key_line(self.manifest_text, key))
        out = []
        for p in raw:
            line = _json_key_line(self.manifest_text, key, p)
            if key == "mcpServers" and re.match(r"^[a-z][a-z0-9+.-]*://", p, re.I):
                continue  # a URL, not a path
            if key == "skills" and p == ".":
                pass
            elif os.path.isabs(p) or p.startswith(("~", "\\")) or re.match(r"^[A-Za-z]:", p) or not p.startswith("./"):
                what = "is absolute" if (os.path.isabs(p) or p.startswith(("~", "\\")) or re.match(r"^[A-Za-z]:", p)) else "does not start with ./"
                self.add("error", "plugin-path-invalid", self.manifest_path, f"plugin.json `{key}` path {_q(p)} {what}",
                         line=line, fix=f'Write it relative to the plugin root starting with ./, e.g. "./{p.lstrip("./~")}".')
                continue
            full = os.path.normpath(os.path.join(self.root, p))
            if not _inside(full, self.root):
                self.add("error", "plugin-path-invalid", self.manifest_path,
                         f"plugin.json `{key}` path {_q(p)} leaves the plugin folder", line=line,
                         fix="Keep component paths inside the plugin folder.")
                continue
            if not _lexists(full) or (_islink(full) and not os.path.exists(full)):
                self.add("error", "plugin-path-missing", self.manifest_path,
                         f"plugin.json `{key}` path {_q(p)} does not exist", line=line,
                         fix=f"Create {self.show(full)} or correct the path.")
                continue
            out.append(full)
        return out

    def check_paths(self) -> None:
        self.paths = {key: self.component_paths(key) for key in COMPONENT_FIELDS}
        commands_dir = os.path.join(self.root, "commands")
        if "commands" in self.manifest and _isdir(commands_dir):
            listed = {self.real(p) for p in self.paths.get("commands", [])}
            lost = [f for _, f in self._command_files(commands_dir)
                    if self.real(f) not in listed and not any(_inside(self.real(f), d) for d in listed)]
            detail = (f"; {len(lost)} of its files ({', '.join(self.show(f) for f in lost[:3])}{', …' if len(lost) > 3 else ''}) "
                      "are not listed there and do not load") if lost else "; every file in it is listed there"
            self.add("warning", "plugin-commands-folder-ignored", self.manifest_path,
                     "plugin.json sets `commands`, so Claude Code ignores the commands/ folder" + detail,
                     line=_json_key_line(self.manifest_text, "commands"),
                     fix="List the commands/ files in `commands`, or drop the `commands` field.")

    # ------------------------------------------------------------------------------------------- skills, commands
    def _parse(self, path: str) -> tuple[Frontmatter | None, str | None]:
        fm: Frontmatter | None = self.known.get(path)
        if fm is not None:  # Claude Code's own parse of this file (the catalog's): the same reader checks, no read
            err = self.reader.check(path)
            if err is not None:
                return None, err
        else:
            text, err = self.reader.text(path)
            if text is None:
                return None, err
            fm = parse_claude(text)
        if fm.status == "invalid":
            self.add("warning", "plugin-frontmatter-invalid", path,
                     f"{self.show(path)} frontmatter does not parse ({_q(fm.error or '?', 120)}); all its fields are ignored",
                     line=fm.error_line, fix="Fix the YAML (quote values containing ': ' or special characters).")
        return fm, None

    def load_skills(self) -> None:
        dirs = []
        default = os.path.join(self.root, "skills")
        if _isdir(default):
            dirs.append(default)
        dirs += [p for p in self.paths.get("skills", []) if p not in dirs]
        seen: set[str] = set()
        for d in dirs:
            if not self.inside(d):
                self.unreadable(d, f"it links out of the plugin folder (to {self.real(d)})")
                continue
            direct = os.path.join(d, "SKILL.md")
            if _lexists(direct):
                self._add_skill(direct, None if os.path.normpath(d) == self.root else os.path.basename(os.path.normpath(d)), seen)
                continue
            entries, err = _scandir(d)
            if err:
                self.unreadable(d, err)
                continue
            for entry in entries:
                if _islink(entry.path) and not os.path.exists(entry.path):
                    _, why = _Delivery._follow(entry.path)
                    self.unreadable(entry.path, "its symbolic links loop" if why == "loop" else "it is a dangling symbolic link")
                    continue
                path = os.path.join(entry.path, "SKILL.md")
                if _lexists(path):
                    self._add_skill(path, entry.name, seen)

    def _add_skill(self, path: str, folder: str | None, seen: set[str]) -> None:
        real = self.real(path)
        if real in seen:
            return
        seen.add(real)
        fm, err = self._parse(path)
        if fm is None:
            self.unreadable(path, err or "unreadable")
            return
        fm_name = _scalar_text(fm.data.get("name"))
        name = folder if folder is not None else (fm_name or os.path.basename(self.root))
        if name in self.skills:
            return
        self.skills[name] = _Item(name, path, fm, fm_name=fm_name)

    def load_commands(self) -> None:
        files: list[tuple[str, str]] = []  # (name, path)
        if "commands" in self.manifest:
            value = self.manifest["commands"]
            if isinstance(value, dict):
                for cmd, spec in value.items():
                    if not isinstance(spec, dict):
                        continue
                    if isinstance(spec.get("source"), str):
                        full = os.path.normpath(os.path.join(self.root, spec["source"]))
                        if full in self.paths.get("commands", []) and _isfile(full):
                            files.append((str(cmd), full))
                    elif isinstance(spec.get("content"), str):
                        fm = parse_claude(spec["content"][:CAP])
                        if isinstance(spec.get("description"), (str, int, float, bool)):
                            fm.data = dict(fm.data, description=spec["description"])
                        self.commands.setdefault(str(cmd), _Item(str(cmd), self.manifest_path, fm, inline=True))
            else:
                for p in self.paths.get("commands", []):
                    files += self._command_files(p)
        else:
            default = os.path.join(self.root, "commands")
            if _isdir(default):
                files += self._command_files(default)
        for name, path in files:
            if name in self.commands:
                continue
            if not self.inside(path):
                self.unreadable(path, f"it links out of the plugin folder (to {self.real(path)})")
                continue
            parsed, err = self._parse(path)
            if parsed is None:
                self.unreadable(path, err or "unreadable")
                continue
            self.commands[name] = _Item(name, path, parsed)

    def _command_files(self, base: str) -> list[tuple[str, str]]:
        if _isfile(base):
            return [(os.path.splitext(os.path.basename(base))[0], base)] if base.endswith(".md") else []
        out: list[tuple[str, str]] = []
        stack: list[tuple[str, list[str]]] = [(base, [])]
        seen: set[str] = set()
        while stack and len(out) < MAX_FILES:
            folder, prefix = stack.pop()
            real = self.real(folder)
            if real in seen or not _inside(real, self.root_real) or len(prefix) > MAX_DEPTH:
                continue
            seen.add(real)
            entries, err = _scandir(folder)
            if err:
                self.unreadable(folder, err)
                continue
            for entry in entries:
                if _isdir(entry.path):
                    stack.append((entry.path, prefix + [entry.name]))
                elif entry.name.endswith(".md"):
                    if entry.name.lower() == "skill.md":
                        name = ":".join(prefix) or os.path.basename(base)
                    else:
                        name = ":".join(prefix + [entry.name[:-3]])
                    out.append((name, entry.path))
        return sorted(out)

    @property
    def pairing(self) -> bool:
        """§1.2: the plugin follows the pairing convention when a command's body delegates to its skill's SKILL.md.
        Only then are pairs, aliases and capability tokens checked; Claude Code itself requires none of it."""
        return any(f"skills/{name}/SKILL.md" in cmd.body for name, cmd in self.commands.items())

    def check_items(self) -> None:
        if self.pairing:
            self.check_pairs()
        for name, skill in sorted(self.skills.items()):
            if skill.fm_name is not None and skill.fm_name != name and not (self.pairing and name in self.commands):
                self.add("warning", "plugin-skill-dir-name-mismatch", skill.path,
                         f"{self.show(skill.path)} has `name: {skill.fm_name}` but its folder is {_q(name)}; "
                         f"Claude Code invokes it as {_q(name)}",
                         line=key_line(skill.fm, "name"), fix=f"Rename the folder or set `name: {name}`.")
        for item, kind in [(s, "skill") for s in self.skills.values()] + [(c, "command") for c in self.commands.values()]:
            data = item.fm.data if item.fm else {}
            if claude_rules.description_of(data) is None and claude_rules.when_to_use_of(data) is None:
                where = self.show(item.path) if not item.inline else f"plugin.json commands.{item.name}"
                # a skill the model never sees is not offered; a command still works when the user types it
                self.add("error" if kind == "skill" else "warning",
                         "plugin-description-missing" if kind == "skill" else "plugin-command-description-missing",
                         item.path, f"{kind} {where} has neither `description` nor `when_to_use`; Claude Code does not list it",
                         line=1 if not item.inline else _json_key_line(self.manifest_text, item.name),
                         fix="Add a one-line `description`.")

    def check_pairs(self) -> None:
        for name, cmd in sorted(self.commands.items()):
            skill = self.skills.get(name)
            shown = self.show(cmd.path) if not cmd.inline else f"plugin.json commands.{name}"
            if skill is None:
                self.add("error", "plugin-command-without-skill", cmd.path,
                         f"{shown} (/{name}) has no skills/{name}/SKILL.md to delegate to", line=None,
                         fix=f"Create skills/{name}/SKILL.md, or rename the command to match a skill folder.")
            else:
                self._check_pair(name, cmd, skill, shown)
        for name, skill in sorted(self.skills.items()):
            if name not in self.commands:
                self.add("info", "plugin-skill-without-command", skill.path,
                         f"{self.show(skill.path)} has no commands/{name}.md", fix=f"Add commands/{name}.md delegating to it, if it should be a slash command.")
            elif skill.fm_name is not None and skill.fm_name != name:
                self.add("warning", "plugin-skill-dir-name-mismatch", skill.path,
                         f"{self.show(skill.path)} has `name: {skill.fm_name}` but its folder is {_q(name)}; "
                         f"Claude Code invokes it as {_q(name)}",
                         line=key_line(skill.fm, "name"), fix=f"Rename the folder or set `name: {name}`.")
        self._check_aliases()

    def _check_pair(self, name: str, cmd: _Item, skill: _Item, shown: str) -> None:
        body_lines = [ln for ln in cmd.body.split("\n") if ln.strip()]
        ref = f"skills/{name}/SKILL.md"
        if len(body_lines) != 1 or ref not in body_lines[0]:
            what = "is empty" if not body_lines else (
                f"has {len(body_lines)} non-empty lines" if len(body_lines) > 1 else f"does not reference {ref}")
            self.add("warning", "plugin-command-not-delegating", cmd.path,
                     f"{shown} body {what}; it should be one line delegating to {ref}",
                     line=(cmd.fm.body_line if cmd.fm and not cmd.inline else None),
                     fix=f"Make the body a single line: Follow {ref}")
        c_desc = claude_rules.description_of(cmd.fm.data if cmd.fm else {})
        s_desc = claude_rules.description_of(skill.fm.data if skill.fm else {})
        if c_desc is not None and s_desc is not None and c_desc != s_desc:
            s_line = key_line(skill.fm, "description") if skill.fm else None
            self.add("warning", "plugin-command-description-mismatch", cmd.path,
                     f"{shown} description {_q(c_desc)} ≠ {self.show(skill.path)}"
                     f"{f':{s_line}' if s_line else ''} description {_q(s_desc)}",
                     line=key_line(cmd.fm, "description") if cmd.fm and not cmd.inline else None,
                     fix=f"Copy the skill's description into {shown}.")
        if skill.fm_name is not None and skill.fm_name != name:
            self.add("error", "plugin-skill-name-mismatch", skill.path,
                     f"{self.show(skill.path)} has `name: {skill.fm_name}` but its slash command is /{name} ({shown})",
                     line=key_line(skill.fm, "name"), fix=f"Set `name: {name}` in {self.show(skill.path)}.")

    def _check_aliases(self) -> None:
        def aliases(item: _Item) -> list[str]:
            value = item.fm.data.get("aliases") if item.fm else None
            if isinstance(value, str):
                value = [a.strip() for a in value.split(",")]
            return [str(a) for a in value if isinstance(a, (str, int, float)) and str(a)] if isinstance(value, list) else []

        table = {name: aliases(item) for name, item in self.commands.items()}
        for name, item in sorted(self.commands.items()):
            for alias in table[name]:
                for other, other_aliases in table.items():
                    if other == name:
                        continue
                    if alias == other or alias in other_aliases:
                        what = "name" if alias == other else "alias"
                        self.add("warning", "plugin-command-alias-collision", item.path,
                                 f"alias {_q(alias)} of /{name} equals the {what} of /{other} ({self.show(self.commands[other].path)})",
                                 line=key_line(item.fm, "aliases") if item.fm and not item.inline else None,
                                 fix=f"Drop or rename the alias {_q(alias)}.")
                        break

    # ---------------------------------------------------------------------------------------------------- MCP
    def mcp_servers(self) -> tuple[set[str] | None, bool]:
        """(server names, declared?) from `.mcp.json` and plugin.json `mcpServers` (paths or inline map)."""
        servers: set[str] = set()
        declared = False
        files = []
        default = os.path.join(self.root, ".mcp.json")
        if _lexists(default):
            files.append(default)
        for p in self.paths.get("mcpServers", []):
            if self.real(p) not in {self.real(f) for f in files} and p.endswith(".json"):
                files.append(p)
            elif not p.endswith(".json"):
                declared = True  # .mcpb / .dxt bundle: servers not readable offline
        value = self.manifest.get("mcpServers")
        inline = [value] if isinstance(value, dict) else [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []
        for m in inline:
            declared = True
            inner = m["mcpServers"] if isinstance(m.get("mcpServers"), dict) else m
            servers.update(str(k) for k in inner)
        if isinstance(value, str) and re.match(r"^[a-z][a-z0-9+.-]*://", value, re.I):
            declared = True
        for path in files:
            declared = True
            text, err = self.reader.text(path)
            if text is None:
                self.unreadable(path, err or "unreadable")
                continue
            try:
                data = fsio.json_loads(text)
            except (ValueError, RecursionError) as exc:
                self.add("error", "plugin-mcp-config-invalid", path,
                         f"{self.show(path)} is not valid JSON: {getattr(exc, 'msg', exc.__class__.__name__)}",
                         line=getattr(exc, "lineno", None), fix='Make it {"mcpServers": {"<server>": {...}}}.')
                continue
            if not isinstance(data, dict):
                self.add("error", "plugin-mcp-config-invalid", path, f"{self.show(path)} is not a JSON object",
                         line=1, fix='Make it {"mcpServers": {"<server>": {...}}}.')
                continue
            inner = data.get("mcpServers")
            if isinstance(inner, dict):
                servers.update(str(k) for k in inner)
            elif "mcpServers" in data:
                self.add("error", "plugin-mcp-config-invalid", path, f"{self.show(path)} `mcpServers` is not an object",
                         line=_json_key_line(text, "mcpServers"), fix='Make it {"mcpServers": {"<server>": {...}}}.')
            else:  # the flat form {"<server>": {...}}
                servers.update(str(k) for k, v in data.items() if isinstance(v, dict))
        return servers, declared

    def check_mcp(self) -> None:
        servers, declared = self.mcp_servers()

        def clean(s: str) -> str:
            return re.sub(r"[^A-Za-z0-9_-]", "_", s)

        known = {clean(s) for s in servers or ()}
        plugin = clean(self.name)
        for _name, skill in sorted(self.skills.items()):
            data = skill.fm.data if skill.fm else {}
            shown = self.show(skill.path)
            if "mcp_args" in data and not isinstance(data["mcp_args"], dict):
                self.add("warning", "plugin-mcp-args-invalid", skill.path, f"{shown} `mcp_args` is {_q(data['mcp_args'])}, not a mapping",
                         line=key_line(skill.fm, "mcp_args"), fix="Write mcp_args as a mapping (key: value lines).")
            if "mcp_tool" not in data or data["mcp_tool"] is None:
                continue
            tool = data["mcp_tool"]
            line = key_line(skill.fm, "mcp_tool")
            if not declared:
                self.add("error", "plugin-mcp-config-missing", skill.path,
                         f"{shown} sets `mcp_tool: {_scalar_text(tool) or tool!r}` but the plugin declares no MCP server "
                         "(no .mcp.json, no plugin.json mcpServers)",
                         line=line, fix='Add .mcp.json {"mcpServers": {...}} (and "mcpServers": "./.mcp.json" in plugin.json).')
                continue
            if not isinstance(tool, str) or not tool.strip():
                self.add("error", "plugin-mcp-tool-unknown-server", skill.path, f"{shown} `mcp_tool` {_q(tool)} is not a tool name",
                         line=line, fix=f"Write mcp_tool: mcp__plugin_{plugin}_<server>__<tool>.")
                continue
            tool = tool.strip()
            if not tool.startswith("mcp__"):
                self.add("info", "plugin-mcp-tool-unverified", skill.path,
                         f"{shown} `mcp_tool: {tool}` is a bare tool name; servers {', '.join(sorted(known)) or '(none readable)'} "
                         "exist but the tool cannot be confirmed offline",
                         line=line, fix=f"Write the full name mcp__plugin_{plugin}_<server>__{tool} to have it checked.")
                continue
            ok = any(tool.startswith(f"mcp__plugin_{plugin}_{s}__") or tool.startswith(f"mcp__{s}__") for s in known)
            if ok:
                continue
            prefix = f"mcp__plugin_{plugin}_"
            rest = tool[len(prefix):] if tool.startswith(prefix) else tool[len("mcp__"):]
            server = rest.split("__", 1)[0]
            self.add("error", "plugin-mcp-tool-unknown-server", skill.path,
                     f"{shown} `mcp_tool: {_q(tool)[1:-1]}` names server {_q(server)}, which is not in the plugin's MCP config "
                     f"(servers: {', '.join(sorted(known)) or 'none'})",
                     line=line, fix=f"Use one of the configured servers, e.g. mcp__plugin_{plugin}_{sorted(known)[0] if known else '<server>'}__<tool>.")

    # ----------------------------------------------------------------------------------------------- capabilities
    def check_capabilities(self) -> None:
        if not self.pairing:
            return
        guide_tokens: set[str] | None = None
        if self.guide is None:
            self.add("info", "plugin-capability-guide-missing", self.manifest_path,
                     "no capability guide is set, so the capability tokens its skills list were not checked",
                     fix=f"Set the environment variable {GUIDE_ENV} to the file that defines the tokens, then run "
                         "the doctor again.")
        else:
            text, err = _Reader([self.real(self.guide)]).text(self.guide)
            if text is None:
                self.add("info", "plugin-capability-guide-missing", self.guide,
                         f"the capability guide {self.guide} could not be read ({err}); tokens were not checked",
                         fix=f"Point the environment variable {GUIDE_ENV} at a readable file.")
            else:
                guide_tokens = {m.group(2).strip() for m in re.finditer(r"(`+)(.+?)\1", text, re.S)}
        for _name, skill in sorted(self.skills.items()):
            body = skill.fm.body if skill.fm else ""
            start = skill.fm.body_line if skill.fm else 1
            lines = body.split("\n")
            idx = next((i for i, ln in enumerate(lines) if ln.rstrip() == CAPABILITY_HEADING), None)
            if idx is None:
                self.add("info", "plugin-capability-section-missing", skill.path,
                         f"{self.show(skill.path)} has no `{CAPABILITY_HEADING}` section",
                         fix=f"Add a `{CAPABILITY_HEADING}` section listing the capability tokens it needs.")
                continue
            if guide_tokens is None:
                continue
            for j in range(idx + 1, len(lines)):
                ln = lines[j]
                if re.match(r"^#{1,2}\s", ln):
                    break
                m = re.match(r"^ {0,1}(?:[-*+]|\d+[.)])\s+(.*)$", ln)
                if not m:
                    continue
                item = m.group(1)
                span = re.search(r"(`+)(.+?)\1", item)
                token = span.group(2).strip() if span else re.split(r"[\s:]", item.strip(), maxsplit=1)[0]
                if token and token not in guide_tokens:
                    self.add("error", "plugin-capability-undefined", skill.path,
                             f"{self.show(skill.path)} requires capability {_q(token)}, which {self.guide} never defines (in backticks)",
                             line=start + j, fix=f"Define `{token}` in the capability guide, or fix the token.")

    # ---------------------------------------------------------------------------------------------------- hooks
    def check_hooks(self) -> None:
        sources: list[tuple[str, Any, str]] = []  # (path, data, text)
        files = []
        default = os.path.join(self.root, "hooks", "hooks.json")
        if _lexists(default):
            files.append(default)
        for p in self.paths.get("hooks", []):
            if self.real(p) not in {self.real(f) for f in files}:
                files.append(p)
        for path in files:
            text, err = self.reader.text(path)
            if text is None:
                self.add("error", "plugin-hooks-invalid", path, f"{self.show(path)} could not be read: {err}",
                         fix="Make it a readable JSON file inside the plugin.")
                continue
            try:
                sources.append((path, fsio.json_loads(text), text))
            except (ValueError, RecursionError) as exc:
                self.add("error", "plugin-hooks-invalid", path,
                         f"{self.show(path)} is not valid JSON: {getattr(exc, 'msg', exc.__class__.__name__)}",
                         line=getattr(exc, "lineno", None), fix="Fix the JSON syntax.")
        value = self.manifest.get("hooks")
        for inline in [value] if isinstance(value, dict) else [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []:
            sources.append((self.manifest_path, inline, self.manifest_text))
        for path, data, text in sources:
            self._check_hook_file(path, data, text)

    def _check_hook_file(self, path: str, data: Any, text: str) -> None:
        shown = self.show(path)
        count = 0

        def add(sev: Severity, code: str, message: str, line: int | None = None, fix: str | None = None) -> None:
            nonlocal count
            count += 1
            if count <= MAX_DIAGS_PER_FILE:
                self.add(sev, code, path, message, line=line, fix=fix)

        shape_fix = 'Use {"hooks": {"<Event>": [{"matcher": "...", "hooks": [{"type": "command", "command": "...", "timeout": N}]}]}}.'
        if not isinstance(data, dict) or not isinstance(data.get("hooks"), dict):
            add("error", "plugin-hooks-invalid", f'{shown} is not an object with a "hooks" object', line=1, fix=shape_fix)
            return
        for event, groups in data["hooks"].items():
            ev_line = _json_line(text, json.dumps(event) + ":") or _json_line(text, json.dumps(event))
            if event not in HOOK_EVENTS:
                add("warning", "plugin-hook-event-unknown",
                    f"{shown} hook event {_q(event)} is not a Claude Code 2.1.332 hook event", line=ev_line,
                    fix="Use one of PreToolUse, PostToolUse, SessionStart, Stop, UserPromptSubmit, … (spec list).")
            if not isinstance(groups, list):
                add("error", "plugin-hooks-invalid", f"{shown} hooks.{_q(event)[1:-1]} is not a list", line=ev_line, fix=shape_fix)
                continue
            for group in groups:
                if not isinstance(group, dict) or not isinstance(group.get("hooks"), list) or (
                        "matcher" in group and not isinstance(group["matcher"], str)):
                    add("error", "plugin-hooks-invalid",
                        f"{shown} an entry of hooks.{_q(event)[1:-1]} is not {{\"matcher\"?: string, \"hooks\": [...]}}",
                        line=ev_line, fix=shape_fix)
                    continue
                for hook in group["hooks"]:
                    self._check_hook(hook, event, shown, text, ev_line, add, shape_fix)

    def _check_hook(self, hook: Any, event: str, shown: str, text: str, ev_line: int | None,
                    add: Callable[..., None], shape_fix: str) -> None:
        if not isinstance(hook, dict) or not isinstance(hook.get("type"), str):
            add("error", "plugin-hooks-invalid", f"{shown} a hook of {_q(event)} has no string `type`", line=ev_line, fix=shape_fix)
            return
        cmd = hook.get("command")
        line = _json_line(text, json.dumps(cmd, ensure_ascii=False)[1:-1], ev_line or 1) if isinstance(cmd, str) and cmd else ev_line
        if hook["type"] != "command":
            add("info", "plugin-hook-type-unexpected", f"{shown} a {_q(event)} hook has type {_q(hook['type'])}, not command",
                line=ev_line, fix="The convention uses command hooks only.")
            return
        if not isinstance(cmd, str) or not cmd.strip():
            add("error", "plugin-hook-command-missing", f"{shown} a {_q(event)} command hook has no command", line=ev_line,
                fix='Add "command": "${CLAUDE_PLUGIN_ROOT}/hooks/<script>".')
            return
        if "timeout" in hook:
            t = hook["timeout"]
            if isinstance(t, bool) or not isinstance(t, (int, float)) or not t > 0 or t != t or t == float("inf"):
                add("warning", "plugin-hook-timeout-invalid", f"{shown} a {_q(event)} hook has timeout {_q(t)}, not a positive number",
                    line=_json_line(text, '"timeout"', line or 1) or line, fix="Set timeout to a positive number of seconds.")
        for word in self._plugin_words(cmd):
            add("error", "plugin-hook-root-var-missing",
                f"{shown} {_q(event)} hook command {_q(cmd, 120)} refers to {_q(word)} without ${{CLAUDE_PLUGIN_ROOT}}; "
                "hooks run from the session's folder",
                line=line, fix=f"Write ${{CLAUDE_PLUGIN_ROOT}}/{self._rel_word(word)} instead.")

    def _rel_word(self, word: str) -> str:
        if word.startswith("/"):
            try:
                return os.path.relpath(word, self.root).replace(os.sep, "/")
            except ValueError:
                return word
        return posixpath.normpath(word)

    def _plugin_words(self, cmd: str) -> list[str]:
        found = []
        for word in cmd.split():
            word = word.strip("\"'")
            if not word or ROOT_VAR in word or "$CLAUDE_PLUGIN_ROOT" in word or word in (".", ".."):
                continue
            if word.startswith("/"):
                ab = os.path.normpath(word)
                if _inside(ab, self.root) or _inside(ab, self.root_real):
                    found.append(word)
                continue
            if word.startswith(("$", "~", "-")) or "\x00" in word:
                continue
            full = os.path.normpath(os.path.join(self.root, word))
            if _inside(full, self.root) and full != self.root and _lexists(full):
                found.append(word)
        return found


def check_plugin(plugin_root: str, *, capability_guide: str | None = None,
                 known: Mapping[str, Frontmatter] | None = None) -> list[Diagnostic]:
    """Plugin consistency diagnostics of spec/delivery.md §3 for the plugin folder `plugin_root`.

    `capability_guide` is the `delivery.capability_guide` setting (a file; relative paths from the plugin root; the
    doctor reads it from $SKILLTUI_CAPABILITY_GUIDE). Pairing checks run only for a pairing plugin (§1.2). `known`
    maps files to Claude Code's own parse of them (a catalog's frontmatter): those are not read and parsed again.
    """
    try:
        p = _Plugin(plugin_root, capability_guide, known)
    except Exception as exc:
        return [Diagnostic("warning", "plugin-check-failed", plugin_root, f"plugin checks could not start: {exc!r}")]
    steps = (p.load_manifest, p.check_paths, p.load_skills, p.load_commands, p.check_items, p.check_mcp,
             p.check_capabilities, p.check_hooks)
    for step in steps:
        try:
            step()
        except Exception as exc:
            p.add("warning", "plugin-check-failed", plugin_root,
                  f"{step.__name__} stopped on an unexpected input: {exc.__class__.__name__}: {_q(str(exc), 160)}")
    return p.out.items


__all__ = ["HOOK_EVENTS", "check_delivery", "check_plugin", "default_managed_dir"]
