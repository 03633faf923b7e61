"""OpenAI Codex CLI 0.171.0: where skills come from, what is valid, what is enabled, what reaches the prompt.

Rules: spec/codex.md (golden: codex-skills-list). Where the spec is silent the behaviour follows Codex's own loader
(frontmatter delimiting and the one-line YAML repair, plugin-manifest name namespaces, agents/openai.yaml field
rules, [[skills.config]] rule order); those places say so.

Everything read from disk stays verbatim in the catalog (descriptions are only whitespace-collapsed, as Codex does);
nothing is interpreted. No input makes `discover` raise: unreadable folders, dangling or looping links, binary files,
invalid UTF-8, YAML bombs and broken config.toml all end as diagnostics.
"""

from __future__ import annotations

import codecs
import json
import os
import re
import tomllib
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import yaml

from skilltui import fsio
from skilltui.model import (
    DISABLED,
    FILTERED,
    HIDDEN,
    INVALID,
    LISTED,
    Catalog,
    CatalogFacts,
    Diagnostic,
    Frontmatter,
    Options,
    Severity,
    Skill,
)
from skilltui.record import Record
from skilltui.runtimes.codex import models
from skilltui.runtimes.codex.prompt import (
    CodexPrompt,
    CodexSkillFacts,
    build_prompt,
    cut_description,
    path_key,
    skill_facts,
)

NAME = "codex"
VERSION = "0.171.0"

SYSTEM_CONFIG_DIR = "/etc/codex"  # the system config layer; its `skills` folder is the admin root (§1, unconfirmed)
SKILLS_FILENAME = "SKILL.md"
METADATA_REL = ("agents", "openai.yaml")
MAX_SCAN_DEPTH = 6
MAX_DIRS_PER_ROOT = 2000
MAX_NAME_LEN = 64
MAX_QUALIFIED_NAME_LEN = 128
MAX_DESCRIPTION_LEN = 1024  # only for interface/short texts and the prompt cut; SKILL.md descriptions have no limit
READ_CAP = 1_000_000  # bytes of SKILL.md / openai.yaml / config.toml / plugin.json kept in memory
UTF8_CHECK_CAP = 64 * 1024 * 1024  # Codex rejects a SKILL.md with invalid UTF-8 anywhere; we check this far
TOO_DEEP_EXTRA_LEVELS = 4  # how far below the scan limit we look for SKILL.md files only to warn about them
TOO_DEEP_DIR_CAP = 500
PLUGIN_MANIFESTS = (".codex-plugin/plugin.json", ".claude-plugin/plugin.json")
SYSTEM_MARKER = ".codex-system-skills.marker"
# Shipped in 0.171.0 (§1): (name, offered to the model). The last two opt out with allow_implicit_invocation: false.
SYSTEM_SKILLS = (
    ("imagegen", True),
    ("openai-docs", True),
    ("skill-creator", True),
    ("skill-installer", True),
    ("create-statusline", False),
    ("review-agent", False),
)
LIST_SCOPE_RANK = {"repo": 0, "user": 1, "system": 2, "admin": 3}

_Loader: type[yaml.CSafeLoader] | type[yaml.SafeLoader]
try:
    _Loader = yaml.CSafeLoader  # libyaml: the parser serde_yaml (unsafe-libyaml) is a port of
except AttributeError:  # pragma: no cover
    _Loader = yaml.SafeLoader

# ---------------------------------------------------------------- Rust string semantics
# Unicode White_Space: what Rust's trim / split_whitespace / char::is_whitespace use (Python's isspace differs).
_WS = frozenset(
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)
_WS_CLASS = "[" + "".join(re.escape(c) for c in sorted(_WS)) + "]"
_WS_RUN = re.compile(_WS_CLASS + "+")


def _is_ws(ch: str) -> bool:
    return ch in _WS


def rust_trim(s: str) -> str:
    i, j = 0, len(s)
    while i < j and s[i] in _WS:
        i += 1
    while j > i and s[j - 1] in _WS:
        j -= 1
    return s[i:j]


def _trim_start(s: str) -> str:
    i = 0
    while i < len(s) and s[i] in _WS:
        i += 1
    return s[i:]


def _trim_end(s: str) -> str:
    j = len(s)
    while j > 0 and s[j - 1] in _WS:
        j -= 1
    return s[:j]


def collapse(s: str) -> str:
    """Codex's sanitize_single_line: every whitespace run becomes one space, ends trimmed."""
    return " ".join(part for part in _WS_RUN.split(s) if part)


def _lines_with_offsets(text: str) -> Iterator[tuple[str, int, int]]:
    """Rust `str::lines()`: split at '\\n' or '\\r\\n'; yields (line, start offset, offset after the line break)."""
    pos, n = 0, len(text)
    while pos < n:
        nl = text.find("\n", pos)
        if nl < 0:
            yield text[pos:], pos, n
            return
        end = nl - 1 if nl > pos and text[nl - 1] == "\r" else nl
        yield text[pos:end], pos, nl + 1
        pos = nl + 1


def rust_lines(text: str) -> list[str]:
    return [line for line, _, _ in _lines_with_offsets(text)]


def _os_error(exc: OSError) -> str:
    """Rust's io::Error display: `<strerror> (os error <errno>)`."""
    if exc.errno is not None and exc.strerror:
        return f"{exc.strerror} (os error {exc.errno})"
    return str(exc) or exc.__class__.__name__


# ---------------------------------------------------------------- paths
def canonical(path: str) -> str:
    """Rust fs::canonicalize, falling back to the path as given when it cannot be resolved (Codex does the same)."""
    try:
        return os.path.realpath(path, strict=True)
    except (OSError, ValueError):
        return path


def _realpath(path: str) -> str | None:
    try:
        return os.path.realpath(path, strict=True)
    except (OSError, ValueError):
        return None


def _abs(path: str, base: str) -> str:
    return os.path.normpath(os.path.join(base, path))


# ---------------------------------------------------------------- file reading
def read_utf8(path: str, cap: int = READ_CAP, check_cap: int = UTF8_CHECK_CAP) -> tuple[str | None, str | None]:
    """(text, None) or (None, Codex's `failed to read file: …` reason). At most `cap` bytes are kept; the rest of
    the file is only checked for valid UTF-8 (as Rust's read_to_string would reject it), up to `check_cap`."""
    try:
        with fsio.open_binary(path) as fh:
            data = fh.read(cap)
            decoder = codecs.getincrementaldecoder("utf-8")("strict")
            try:
                text = decoder.decode(data, final=False)
                seen = len(data)
                while seen < check_cap:
                    chunk = fh.read(min(1 << 20, check_cap - seen))
                    if not chunk:
                        break
                    seen += len(chunk)
                    decoder.decode(chunk, final=False)
                decoder.decode(b"", final=len(data) < cap or seen < check_cap)
            except UnicodeDecodeError:
                return None, _utf8_error(path, check_cap)
            return text, None
    except OSError as exc:
        return None, _os_error(exc)


def _utf8_error(path: str, check_cap: int) -> str:
    """Rust's Utf8Error text, as Codex reports it: where the first bad sequence starts, and how long it is."""
    with fsio.open_binary(path) as fh:
        data = fh.read(check_cap)
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.reason == "unexpected end of data":
            return f"incomplete utf-8 byte sequence from index {exc.start}"
        return f"invalid utf-8 sequence of {exc.end - exc.start} bytes from index {exc.start}"
    return "stream did not contain valid UTF-8"


def _read_capped(path: str, cap: int = READ_CAP) -> tuple[bytes | None, str | None]:
    try:
        with fsio.open_binary(path) as fh:
            return fh.read(cap), None
    except OSError as exc:
        return None, _os_error(exc)


# ---------------------------------------------------------------- YAML, typed the way serde_yaml reads it
class _TypeError(Exception):
    def __init__(self, message: str, line: int | None):
        super().__init__(message)
        self.line = line


def _mark(m: Any) -> str:
    return f"line {m.line + 1} column {m.column + 1}"


def _yaml_error_message(exc: yaml.YAMLError) -> tuple[str, int | None]:
    """serde_yaml's libyaml error text: `<problem> at line L column C[, <context> at line L column C]`."""
    if isinstance(exc, yaml.MarkedYAMLError):
        msg = exc.problem or "invalid YAML"
        if msg == "found undefined alias":  # libyaml via serde_yaml says it this way
            msg = "unknown anchor"
        pm, cm = exc.problem_mark, exc.context_mark
        if pm is not None:
            msg += " at " + _mark(pm)
        if exc.context:
            msg += ", " + exc.context
            if cm is not None and (pm is None or (cm.line, cm.column) != (pm.line, pm.column)):
                msg += " at " + _mark(cm)
        line = pm.line if pm is not None else (cm.line if cm is not None else None)
        return msg, line
    return (str(exc).splitlines() or ["invalid YAML"])[0], None


def compose(text: str) -> yaml.Node | None:
    """The YAML node tree (aliases stay shared, never expanded). Raises yaml.YAMLError."""
    return yaml.compose(text, Loader=_Loader)


def _valid_yaml(text: str) -> bool:
    try:
        compose(text)
        return True
    except (yaml.YAMLError, RecursionError, ValueError):
        return False


def _is_null(node: yaml.Node | None) -> bool:
    return isinstance(node, yaml.ScalarNode) and (
        node.tag == "tag:yaml.org,2002:null"
        or (node.style in (None, "") and node.value in ("", "~", "null", "Null", "NULL"))
    )


def _kind(node: yaml.Node) -> str:
    if isinstance(node, yaml.SequenceNode):
        return "sequence"
    if isinstance(node, yaml.MappingNode):
        return "map"
    return f'string "{node.value}"'


def _where(node: yaml.Node) -> int:
    return node.start_mark.line


def _opt_str(node: yaml.Node | None, path: str) -> str | None:
    """Option<String>: null -> None, any scalar -> its text as written (serde_yaml takes scalars verbatim)."""
    if node is None or _is_null(node):
        return None
    if isinstance(node, yaml.ScalarNode):
        return str(node.value)
    raise _TypeError(f"{path}: invalid type: {_kind(node)}, expected a string at {_mark(node.start_mark)}", _where(node))


def _opt_bool(node: yaml.Node | None, path: str) -> bool | None:
    if node is None or _is_null(node):
        return None
    if isinstance(node, yaml.ScalarNode) and node.style in (None, ""):
        if node.value in ("true", "True", "TRUE"):
            return True
        if node.value in ("false", "False", "FALSE"):
            return False
    raise _TypeError(f"{path}: invalid type: {_kind(node)}, expected a boolean at {_mark(node.start_mark)}", _where(node))


def _fields(node: yaml.Node | None, path: str, struct: str, known: tuple[str, ...]) -> dict[str, Any]:
    """A struct's known fields from a mapping node (unknown keys ignored, a repeated known key is an error)."""
    if node is None or _is_null(node):
        return {}
    if not isinstance(node, yaml.MappingNode):
        prefix = f"{path}: " if path else ""
        raise _TypeError(f"{prefix}invalid type: {_kind(node)}, expected struct {struct} at {_mark(node.start_mark)}",
                         _where(node))
    out: dict[str, Any] = {}
    for key, value in node.value:
        if isinstance(key, yaml.ScalarNode) and key.value in known:
            if key.value in out:
                # serde's duplicate-field error carries no location (oracle, 2026-12-03)
                raise _TypeError(f"{path + ': ' if path else ''}duplicate field `{key.value}`", _where(key))
            out[key.value] = (key, value)
    return out


def _seq(node: yaml.Node | None, path: str) -> list[yaml.Node]:
    if node is None or _is_null(node):
        return []
    if not isinstance(node, yaml.SequenceNode):
        raise _TypeError(f"{path}: invalid type: {_kind(node)}, expected a sequence at {_mark(node.start_mark)}",
                         _where(node))
    return list(node.value)


# ---------------------------------------------------------------- SKILL.md (§3)
@dataclass(repr=False)
class ParsedSkill(Record):
    name: str | None = None
    description: str = ""
    short_description: str | None = None
    error: str | None = None  # Codex's message
    code: str | None = None  # diagnostic code
    error_line: int | None = None  # 1-based line of the file
    name_line: int | None = None
    description_line: int | None = None
    repaired: bool = False
    frontmatter: Frontmatter | None = None


def extract_frontmatter(text: str) -> tuple[str, int, int] | None:
    """Codex's delimiting: line 1 trims to `---`, a later line trims to `---`, at least one line between.
    Returns (block, index of the closing line, offset where the body starts) or None."""
    it = _lines_with_offsets(text)
    first = next(it, None)
    if first is None or rust_trim(first[0]) != "---":
        return None
    lines: list[str] = []
    for index, (line, _start, after) in enumerate(it, start=1):
        if rust_trim(line) == "---":
            if not lines:
                return None
            return "\n".join(lines), index, after
        lines.append(line)
    return None


def repair_frontmatter(block: str) -> str | None:
    """Codex's one-line repair after a YAML failure: single-quote a `key: value` scalar holding `: `, or starting
    with `[ { @ \\`` while not valid YAML on its own. None when nothing changed."""
    changed = False
    block_indent: int | None = None
    out = []
    for line in rust_lines(block):
        indent = len(line) - len(line.lstrip(" "))
        if block_indent is not None:
            if not rust_trim(line) or indent > block_indent:
                out.append(line)
                continue
            block_indent = None
        if ":" not in line:
            out.append(line)
            continue
        key, value = line.split(":", 1)
        if not rust_trim(key) or not (value == "" or _is_ws(value[0])):
            out.append(line)
            continue
        trimmed = _trim_start(value)
        leading = value[: len(value) - len(trimmed)]
        scalar, comment = trimmed, ""
        for i, ch in enumerate(trimmed):
            if ch == "#" and (i == 0 or _is_ws(trimmed[i - 1])):
                cut = len(_trim_end(trimmed[:i]))
                scalar, comment = trimmed[:cut], trimmed[cut:]
                break
        scalar = _trim_end(scalar)
        if not scalar:
            out.append(line)
            continue
        first = scalar[0]
        if first in "|>":
            block_indent = indent
            out.append(line)
            continue
        if first in "'\"":
            out.append(line)
            continue
        colon = any(scalar[i] == ":" and _is_ws(scalar[i + 1]) for i in range(len(scalar) - 1))
        flow_like = first in "[{@`" and not _valid_yaml(scalar)
        if not colon and not flow_like:
            out.append(line)
            continue
        out.append(f"{key}:{leading}'{scalar.replace(chr(39), chr(39) * 2)}'{comment}")
        changed = True
    return "\n".join(out) if changed else None


class _Events:
    """The YAML events of a block up to its first parse error, read the way serde_yaml deserializes them: in document
    order, so a shape error met before the parse error is the one reported (`description: {not: closed` followed by
    more keys: "description: invalid type: map, …", not the flow-mapping error; oracle, 2026-12-03)."""

    def __init__(self, block: str) -> None:
        self.items: list[yaml.Event] = []
        self.error: yaml.YAMLError | None = None
        known: set[str] = set()
        try:
            for event in yaml.parse(block, Loader=_Loader):
                if isinstance(event, yaml.AliasEvent) and event.anchor not in known:
                    # serde_yaml's loader stops here, before any later parse error (oracle, 2026-12-03)
                    mark: Any = event.start_mark
                    self.error = yaml.composer.ComposerError(None, None, "found undefined alias", mark)
                    break
                anchor = getattr(event, "anchor", None)
                if anchor is not None:
                    known.add(anchor)
                self.items.append(event)
        except yaml.YAMLError as exc:
            self.error = exc.with_traceback(None)  # its traceback would hold this object (via the frame) in a cycle
        except (RecursionError, ValueError) as exc:
            self.error = yaml.YAMLError(exc.__class__.__name__)
        self.pos = 0
        self.anchors: dict[str, int] = {}  # anchor -> index of the event that starts its node

    def next(self) -> yaml.Event:
        """The next event; _OutOfEvents where serde_yaml's loader stopped (the parse error)."""
        if self.pos >= len(self.items):
            raise _OutOfEvents()
        event = self.items[self.pos]
        self.pos += 1
        anchor = getattr(event, "anchor", None)
        if anchor is not None and not isinstance(event, yaml.AliasEvent):
            self.anchors[anchor] = self.pos - 1
        return event

    def node_start(self) -> tuple[yaml.Event, bool]:
        """The first event of the next node and whether its contents follow in the stream (False for an alias,
        which stands for its anchored node; an unknown anchor stops the loader, as the parse error does)."""
        event = self.next()
        if isinstance(event, yaml.AliasEvent):
            if event.anchor not in self.anchors:
                raise _OutOfEvents()
            return self.items[self.anchors[event.anchor]], False
        return event, isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent))

    def skip_contents(self) -> None:
        depth = 1
        while depth:
            event = self.next()
            if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                depth += 1
            elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                depth -= 1


class _OutOfEvents(Exception):
    pass


def _event_line(event: yaml.Event) -> int:
    return event.start_mark.line if event.start_mark is not None else 0


def _event_null(event: yaml.Event) -> bool:
    return isinstance(event, yaml.ScalarEvent) and (
        event.tag in ("tag:yaml.org,2002:null", "!!null")
        or (event.style in (None, "") and event.tag is None and event.value in ("", "~", "null", "Null", "NULL"))
    )


def _event_kind(event: yaml.Event) -> str:
    if isinstance(event, yaml.SequenceStartEvent):
        return "sequence"
    if isinstance(event, yaml.MappingStartEvent):
        return "map"
    return f'string "{getattr(event, "value", "")}"'


def _event_str(event: yaml.Event, path: str) -> str | None:
    """Option<String>: null -> None, any scalar -> its text as written; a collection fails at its first event."""
    if _event_null(event):
        return None
    if isinstance(event, yaml.ScalarEvent):
        return str(event.value)
    raise _TypeError(f"{path}: invalid type: {_event_kind(event)}, expected a string at {_mark(event.start_mark)}",
                     _event_line(event))


FieldVisitor = Callable[[yaml.ScalarEvent, yaml.Event, bool], None]


def _walk_struct(ev: _Events, start: yaml.Event, inline: bool, path: str, struct: str, known: tuple[str, ...],
                 on_field: FieldVisitor) -> None:
    """A struct read from its first event: each known key handed to `on_field(key, value start, inline)` in document
    order (on_field consumes an inline value's contents; a repeated known key is serde's duplicate-field error),
    unknown keys skipped."""
    if _event_null(start):
        return
    if not isinstance(start, yaml.MappingStartEvent):
        prefix = f"{path}: " if path else ""
        raise _TypeError(f"{prefix}invalid type: {_event_kind(start)}, expected struct {struct} at "
                         f"{_mark(start.start_mark)}", _event_line(start))
    if not inline:  # an alias to a mapping: walk the anchored copy, then carry on after the alias
        saved = ev.pos
        ev.pos = ev.items.index(start) + 1
        try:
            _walk_struct(ev, start, True, path, struct, known, on_field)
        finally:
            ev.pos = saved
        return
    seen: set[str] = set()
    while True:
        key, key_inline = ev.node_start()
        if isinstance(key, yaml.MappingEndEvent):
            return
        if key_inline:
            ev.skip_contents()
        if isinstance(key, yaml.ScalarEvent) and key.value in known:
            if key.value in seen:  # serde's duplicate-field error carries no location (oracle, 2026-12-03)
                raise _TypeError(f"{path + ': ' if path else ''}duplicate field `{key.value}`", _event_line(key))
            seen.add(key.value)
            value, value_inline = ev.node_start()
            on_field(key, value, value_inline)
        else:
            _value, value_inline = ev.node_start()
            if value_inline:
                ev.skip_contents()


def _deserialize_frontmatter(block: str) -> dict[str, Any]:
    """serde_yaml::from_str::<SkillFrontmatter>: name, description, metadata.short-description. Raises yaml.YAMLError
    (syntax) or _TypeError (shape), whichever serde_yaml meets first."""
    ev = _Events(block)
    out: dict[str, Any] = {}

    def meta_field(_key: yaml.ScalarEvent, value: yaml.Event, _inline: bool) -> None:
        out["short_description"] = _event_str(value, "metadata.short-description")

    def top_field(key: yaml.ScalarEvent, value: yaml.Event, inline: bool) -> None:
        if key.value == "metadata":
            _walk_struct(ev, value, inline, "metadata", "SkillFrontmatterMetadata", ("short-description",), meta_field)
            return
        out[key.value] = _event_str(value, key.value)
        out[key.value + "_line"] = _event_line(key)

    try:
        ev.next()  # stream start
        if isinstance(ev.next(), yaml.DocumentStartEvent):  # else the stream ends: an empty block
            root, inline = ev.node_start()
            _walk_struct(ev, root, inline, "", "SkillFrontmatter", ("name", "description", "metadata"), top_field)
    except _OutOfEvents:
        pass
    if ev.error is not None:
        raise ev.error
    compose(block)  # what the walk does not model (an unknown anchor, a second document) still fails here
    return out


def parse_skill_text(text: str, folder_name: str) -> ParsedSkill:
    """Validate one SKILL.md as Codex 0.171.0 does. `folder_name`: the name of the folder holding it."""
    result = ParsedSkill()
    found = extract_frontmatter(text)
    if found is None:
        result.error, result.code, result.error_line = "missing YAML frontmatter delimited by ---", "codex-frontmatter-missing", 1
        result.frontmatter = Frontmatter(data={}, body=text, present=False, status="none")
        return result
    block, close_index, body_start = found
    fm = Frontmatter(data={}, body=text[body_start:], present=True, status="ok", body_line=close_index + 2, raw=block)
    result.frontmatter = fm
    fields: dict[str, Any] | None
    try:
        fields = _deserialize_frontmatter(block)
    except (yaml.YAMLError, _TypeError, RecursionError, ValueError) as first:
        if isinstance(first, _TypeError):
            message, line = str(first), first.line
        elif isinstance(first, yaml.YAMLError):
            message, line = _yaml_error_message(first)
        else:
            message, line = f"{first.__class__.__name__}", None
        repaired = repair_frontmatter(block)
        fields = None
        if repaired is not None:
            try:
                fields = _deserialize_frontmatter(repaired)
                result.repaired = True
                fm.status = "retried"
            except (yaml.YAMLError, _TypeError, RecursionError, ValueError):
                fields = None
        if fields is None:
            result.error = f"invalid YAML: {message}"
            result.code = "codex-yaml-invalid"
            result.error_line = line + 2 if line is not None else 2
            fm.status, fm.error, fm.error_line = "invalid", message, result.error_line
            return result
    assert fields is not None  # both branches above either set it or returned
    fm.data = {k: fields[k] for k in ("name", "description") if k in fields}
    if fields.get("short_description") is not None:
        fm.data["metadata"] = {"short-description": fields["short_description"]}
    if "name_line" in fields:
        result.name_line = fields["name_line"] + 2
    if "description_line" in fields:
        result.description_line = fields["description_line"] + 2
    name = collapse(fields["name"]) if fields.get("name") is not None else ""
    if not name:
        name = collapse(folder_name) or "skill"
    result.name = name
    result.description = collapse(fields["description"]) if fields.get("description") is not None else ""
    short = fields.get("short_description")
    result.short_description = (collapse(short) or None) if short is not None else None
    if len(name) > MAX_NAME_LEN:
        result.error = f"invalid name: exceeds maximum length of {MAX_NAME_LEN} characters"
        result.code, result.error_line = "codex-name-too-long", result.name_line or 1
    elif not result.description:
        result.error = "missing field `description`"
        result.code, result.error_line = "codex-description-missing", result.description_line or 1
    return result


# ---------------------------------------------------------------- agents/openai.yaml (§5)
@dataclass(repr=False)
class SkillMetadataFile(Record):
    interface: dict[str, str] | None = None
    dependencies: dict[str, Any] | None = None
    policy: dict[str, Any] | None = None
    allow_implicit_line: int | None = None  # 1-based


def _resolve_str(value: str | None, max_len: int) -> str | None:
    if value is None:
        return None
    value = collapse(value)
    if not value or len(value) > max_len:
        return None
    return value


def _resolve_icon(value: str | None, skill_dir: str) -> str | None:
    if not value or value.startswith("/"):
        return None
    parts = []
    for part in value.split("/"):
        if part in ("", "."):
            continue
        if part == "..":  # only plugin skills may reach shared plugin assets; these roots have no plugin
            return None
        parts.append(part)
    if not parts or parts[0] != "assets":
        return None
    return os.path.join(skill_dir, *parts)


def _resolve_color(value: str | None) -> str | None:
    if value is None:
        return None
    value = rust_trim(value)
    if len(value.encode("utf-8", "surrogatepass")) == 7 and value[0] == "#" and all(
        c in "0123456789abcdefABCDEF" for c in value[1:]
    ):
        return value
    return None


def parse_openai_yaml(text: str, skill_dir: str) -> SkillMetadataFile:
    """Raises yaml.YAMLError or _TypeError when serde_yaml would reject the file (Codex then ignores all of it)."""
    root = compose(text)
    top = _fields(root, "", "SkillMetadataFile", ("interface", "dependencies", "policy"))
    out = SkillMetadataFile()
    if "interface" in top and not _is_null(top["interface"][1]):
        names = ("display_name", "short_description", "icon_small", "icon_large", "brand_color", "default_prompt")
        f = _fields(top["interface"][1], "interface", "Interface", names)
        raw = {n: _opt_str(f[n][1], f"interface.{n}") if n in f else None for n in names}
        iface = {
            "displayName": _resolve_str(raw["display_name"], MAX_NAME_LEN),
            "shortDescription": _resolve_str(raw["short_description"], MAX_DESCRIPTION_LEN),
            "iconSmall": _resolve_icon(raw["icon_small"], skill_dir),
            "iconLarge": _resolve_icon(raw["icon_large"], skill_dir),
            "brandColor": _resolve_color(raw["brand_color"]),
            "defaultPrompt": _resolve_str(raw["default_prompt"], MAX_DESCRIPTION_LEN),
        }
        shown = {k: v for k, v in iface.items() if v is not None}
        out.interface = shown or None
    if "dependencies" in top and not _is_null(top["dependencies"][1]):
        f = _fields(top["dependencies"][1], "dependencies", "Dependencies", ("tools",))
        tools = []
        for i, item in enumerate(_seq(f["tools"][1], "dependencies.tools") if "tools" in f else []):
            names = ("type", "value", "description", "transport", "command", "url")
            t = _fields(item, f"dependencies.tools[{i}]", "DependencyTool", names)
            raw = {n: _opt_str(t[n][1], f"dependencies.tools[{i}].{n}") if n in t else None for n in names}
            kind, value = _resolve_str(raw["type"], MAX_NAME_LEN), _resolve_str(raw["value"], MAX_DESCRIPTION_LEN)
            if kind is None or value is None:
                continue
            tool = {"type": kind, "value": value,
                    "description": _resolve_str(raw["description"], MAX_DESCRIPTION_LEN),
                    "transport": _resolve_str(raw["transport"], MAX_NAME_LEN),
                    "command": _resolve_str(raw["command"], MAX_DESCRIPTION_LEN),
                    "url": _resolve_str(raw["url"], MAX_DESCRIPTION_LEN)}
            tools.append({k: v for k, v in tool.items() if v is not None})
        out.dependencies = {"tools": tools} if tools else None
    if "policy" in top and not _is_null(top["policy"][1]):
        f = _fields(top["policy"][1], "policy", "Policy", ("allow_implicit_invocation", "products"))
        allow = None
        if "allow_implicit_invocation" in f:
            allow = _opt_bool(f["allow_implicit_invocation"][1], "policy.allow_implicit_invocation")
            out.allow_implicit_line = f["allow_implicit_invocation"][0].start_mark.line + 1
        products = [_opt_str(p, "policy.products") for p in (_seq(f["products"][1], "policy.products") if "products" in f else [])]
        out.policy = {"allow_implicit_invocation": allow, "products": [p for p in products if p is not None]}
    return out


# ---------------------------------------------------------------- plugin name namespaces (from Codex's loader)
class _Namespaces:
    """`<plugin>:<skill>` for a SKILL.md below a folder with a valid plugin manifest (nearest ancestor wins)."""

    def __init__(self) -> None:
        self._cache: dict[str, str | None] = {}

    def _at(self, folder: str) -> str | None:
        if folder in self._cache:
            return self._cache[folder]
        name = None
        for rel in PLUGIN_MANIFESTS:
            manifest = os.path.join(folder, rel)
            if os.path.isfile(manifest):
                data, _err = _read_capped(manifest)
                name = _manifest_name(data, folder) if data is not None else None
                break
        self._cache[folder] = name
        return name

    def for_path(self, skill_path: str) -> str | None:
        folder = os.path.dirname(skill_path)
        while True:
            name = self._at(folder)
            if name is not None:
                return name
            parent = os.path.dirname(folder)
            if parent == folder:
                return None
            folder = parent


def _manifest_name(data: bytes, folder: str) -> str | None:
    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        for k, v in items:
            if k == "name" and k in seen:
                raise ValueError("duplicate field `name`")
            seen[k] = v
        return seen

    try:
        obj = json.loads(data.decode("utf-8"), object_pairs_hook=pairs)
    except (ValueError, RecursionError):
        return None
    if not isinstance(obj, dict):
        return None
    raw = obj.get("name", "")
    if not isinstance(raw, str):
        return None
    return os.path.basename(folder) if not rust_trim(raw) else raw


# ---------------------------------------------------------------- config.toml
@dataclass(repr=False)
class _Config(Record):
    path: str
    data: dict[str, Any] = field(default_factory=dict)
    text: str = ""
    exists: bool = False


def _load_config(path: str, diags: list[Diagnostic]) -> _Config:
    cfg = _Config(path=path)
    if not os.path.isfile(path):
        return cfg
    cfg.exists = True
    raw, err = _read_capped(path)
    if raw is None:
        diags.append(_diag("error", "codex-config-invalid", path, f"config.toml cannot be read: {err}"))
        return cfg
    try:
        cfg.text = raw.decode("utf-8")
        cfg.data = tomllib.loads(cfg.text)
    except UnicodeDecodeError:
        diags.append(_diag("error", "codex-config-invalid", path,
                           "config.toml is not valid UTF-8; Codex refuses to start with it"))
    except (tomllib.TOMLDecodeError, RecursionError, ValueError) as exc:
        m = re.search(r"line (\d+)", str(exc))
        diags.append(_diag("error", "codex-config-invalid", path,
                           f"config.toml does not parse ({exc}); Codex refuses to start with it",
                           line=int(m.group(1)) if m else None))
    return cfg


def _root_markers(configs: list[_Config], diags: list[Diagnostic]) -> list[str]:
    value = None
    source = None
    for cfg in configs:  # lowest precedence first; later layers override
        if "project_root_markers" in cfg.data:
            value, source = cfg.data["project_root_markers"], cfg.path
    if value is None:
        return [".git"]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    diags.append(_diag("warning", "codex-config-ignored", source,
                       "project_root_markers must be an array of strings; Codex uses the default [\".git\"]"))
    return [".git"]


def _header_lines(text: str) -> list[int]:
    return [i + 1 for i, line in enumerate(text.splitlines()) if re.match(r"\s*\[\[\s*skills\s*\.\s*config\s*\]\]", line)]


@dataclass(repr=False)
class _Rule(Record):
    kind: str  # name | path
    value: str
    enabled: bool
    line: int | None
    text: str  # how it reads in the file, for reasons


def _skill_rules(cfg: _Config, home: str, diags: list[Diagnostic]) -> list[_Rule]:
    """[[skills.config]] of the user layer, in Codex's order (a repeated selector moves to the end)."""
    skills = cfg.data.get("skills")
    if skills is None:
        return []
    entries = skills.get("config", []) if isinstance(skills, dict) else None
    problem = None
    if not isinstance(skills, dict):
        problem = "`skills` is not a table"
    elif not isinstance(entries, list):
        problem = "`skills.config` is not an array of tables"
    else:
        for i, e in enumerate(entries):
            if not isinstance(e, dict):
                problem = f"skills.config[{i}] is not a table"
            elif "enabled" not in e:
                problem = f"skills.config[{i}]: missing field `enabled`"
            elif not isinstance(e["enabled"], bool):
                problem = f"skills.config[{i}].enabled is not a boolean"
            elif "path" in e and not isinstance(e["path"], str):
                problem = f"skills.config[{i}].path is not a string"
            elif "name" in e and not isinstance(e["name"], str):
                problem = f"skills.config[{i}].name is not a string"
            if problem:
                break
    if problem or not isinstance(entries, list):
        diags.append(_diag("warning", "codex-config-ignored", cfg.path,
                           f"invalid skills config: {problem}; Codex ignores every [[skills.config]] entry of this file"))
        return []
    lines = _header_lines(cfg.text)
    rules: list[_Rule] = []
    base = os.path.dirname(cfg.path)
    for i, e in enumerate(entries):
        line = lines[i] if i < len(lines) else None
        has_path, has_name = "path" in e, "name" in e
        if has_path and has_name:
            diags.append(_diag("warning", "codex-config-selector-invalid", cfg.path,
                               "ignoring skills.config entry with both path and name selectors", line=line))
            continue
        if not has_path and not has_name:
            diags.append(_diag("warning", "codex-config-selector-invalid", cfg.path,
                               "ignoring skills.config entry without a path or name selector", line=line))
            continue
        if has_name:
            name = rust_trim(e["name"])
            if not name:
                diags.append(_diag("warning", "codex-config-selector-invalid", cfg.path,
                                   "ignoring empty skills.config name override", line=line))
                continue
            rule = _Rule("name", name, e["enabled"], line, f'name = "{name}"')
        else:
            raw = e["path"]
            expanded = os.path.join(home, raw[2:]) if raw.startswith("~/") else raw
            rule = _Rule("path", canonical(_abs(expanded, base)), e["enabled"], line, f'path = "{raw}"')
        rules = [r for r in rules if (r.kind, r.value) != (rule.kind, rule.value)]
        rules.append(rule)
    return rules


@dataclass(repr=False)
class CodexFacts(CatalogFacts):
    """Codex's facts about one discovery."""

    codex_home: str = ""
    config: str | None = None  # the user's config.toml
    root_markers: list[str] = field(default_factory=list)  # project_root_markers in effect
    roots: list[Root] = field(default_factory=list)  # every skills root, in scan order
    model: models.ModelChoice | None = None  # the model Codex would run, whose window the prompt is cut to
    prompt: CodexPrompt | None = None  # the prompt under that window


def facts_of(catalog: Catalog) -> CodexFacts:
    """A Codex catalog's own facts; a catalog of another runtime is a caller's bug."""
    if not isinstance(catalog.facts, CodexFacts):
        raise TypeError(f"a {catalog.runtime} catalog has no Codex facts")
    return catalog.facts


# ---------------------------------------------------------------- roots (§1)
@dataclass(repr=False)
class Root(Record):
    path: str  # as configured
    scope: str  # repo | user | system | admin
    kind: str  # project-codex | codex-home | home-agents | system | admin | repo-agents
    canonical: str = ""
    exists: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"path": self.canonical, "configured": self.path, "scope": self.scope, "kind": self.kind,
                "exists": self.exists}


def _ancestors(path: str) -> list[str]:
    out = [path]
    while True:
        parent = os.path.dirname(out[-1])
        if parent == out[-1]:
            return out
        out.append(parent)


def project_root(cwd: str, markers: list[str]) -> str:
    if not markers:
        return cwd
    for ancestor in _ancestors(cwd):
        for marker in markers:
            if os.path.exists(os.path.join(ancestor, marker)):
                return ancestor
    return cwd


def _dirs_root_to_cwd(cwd: str, root: str) -> list[str]:
    dirs = []
    for d in _ancestors(cwd):
        dirs.append(d)
        if d == root:
            break
    return list(reversed(dirs))


def skill_roots(cwd: str, home: str, codex_home: str, markers: list[str]) -> tuple[list[Root], str]:
    """Every root in scan order (identical configured paths once) and the project root."""
    proj = project_root(cwd, markers)
    between = _dirs_root_to_cwd(cwd, proj)
    roots: list[Root] = []
    codex_home_real = canonical(codex_home)
    # Only the cwd's own `.codex/skills` (oracle, 2026-12-03: `.codex/skills` at the git root or between it and the
    # cwd is not read, with or without a config.toml there; tests/fixtures/codex/dot-codex-cwd-only).
    dot = os.path.join(cwd, ".codex")
    if os.path.isdir(dot) and canonical(dot) != codex_home_real:
        roots.append(Root(os.path.join(dot, "skills"), "repo", "project-codex"))
    roots.append(Root(os.path.join(codex_home, "skills"), "user", "codex-home"))
    roots.append(Root(os.path.join(home, ".agents", "skills"), "user", "home-agents"))
    roots.append(Root(os.path.join(codex_home, "skills", ".system"), "system", "system"))
    roots.append(Root(os.path.join(SYSTEM_CONFIG_DIR, "skills"), "admin", "admin"))
    for d in between:
        agents = os.path.join(d, ".agents", "skills")
        if os.path.isdir(agents):
            roots.append(Root(agents, "repo", "repo-agents"))
    seen, unique = set(), []
    for r in roots:
        if r.path not in seen:
            seen.add(r.path)
            unique.append(r)
    for r in unique:
        if r.kind == "system":  # Codex writes it at start: where it will be once created
            r.canonical = os.path.realpath(r.path)
        else:
            r.canonical = canonical(r.path)
        r.exists = os.path.isdir(r.canonical)
    return unique, proj


# ---------------------------------------------------------------- scanning a root (§2)
@dataclass(repr=False)
class _Found(Record):
    path: str  # the SKILL.md, in its canonical folder
    root: Root
    as_found: str = ""  # the SKILL.md below the root through the names the scan walked (links not resolved)


def _skill_file_name_ok(name: str) -> bool:
    try:
        name.encode("utf-8")
        return True
    except UnicodeEncodeError:
        return False


def scan_root(root: Root, diags: list[Diagnostic]) -> list[_Found]:
    """Breadth-first, depth ≤ 6, ≤ 2000 folders (the root counts), dot entries skipped, folder links followed
    except in the system root, folders identified by realpath (so links cannot loop)."""
    if not root.exists:
        return []
    follow = root.scope != "system"
    top = root.canonical
    visited = {top}
    # (canonical folder, the same folder as reached from the root, depth): the prompt writes a skill reached through
    # a folder link as `rN/<link name>/…`, while skills/list gives the canonical path (oracle, 2026-12-03)
    queue = deque([(top, top, 0)])
    truncated = False
    deeper: list[tuple[str, int]] = []
    found: list[_Found] = []

    def enqueue(path: str, as_found: str, depth: int) -> None:
        nonlocal truncated
        if depth > MAX_SCAN_DEPTH:
            if len(deeper) < TOO_DEEP_DIR_CAP:
                deeper.append((path, depth))
            return
        if len(visited) >= MAX_DIRS_PER_ROOT:
            truncated = True
            return
        if path not in visited:
            visited.add(path)
            queue.append((path, as_found, depth))

    while queue:
        folder, folder_as_found, depth = queue.popleft()
        try:
            with os.scandir(folder) as it:
                # by name: two links to one folder, the first in name order names it in the prompt (oracle, 2026-12-03)
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            if folder != top:
                diags.append(_diag("error", "codex-unreadable-folder", folder,
                                   f"failed to read skills dir: {_os_error(exc)}; Codex skips it"))
            continue
        for entry in entries:
            name = entry.name
            if name.startswith(".") or not _skill_file_name_ok(name):
                continue
            path = os.path.join(folder, name)
            try:
                if entry.is_symlink():
                    if not follow:
                        continue
                    resolved = _realpath(path) if os.path.isdir(path) else None
                    if resolved is not None:
                        enqueue(resolved, os.path.join(folder_as_found, name), depth + 1)
                    continue
                if entry.is_dir(follow_symlinks=False):
                    resolved = _realpath(path)
                    if resolved is not None:
                        enqueue(resolved, os.path.join(folder_as_found, name), depth + 1)
                    continue
                if name == SKILLS_FILENAME and entry.is_file(follow_symlinks=False):
                    found.append(_Found(path, root, os.path.join(folder_as_found, name)))
            except OSError:
                continue
    if truncated:
        diags.append(_diag("error", "codex-scan-truncated", top,
                           f"skills scan truncated after {MAX_DIRS_PER_ROOT} directories; Codex finds nothing beyond"))
    _warn_too_deep(root, deeper, follow, diags)
    return found


def _warn_too_deep(root: Root, deeper: list[tuple[str, int]], follow: bool, diags: list[Diagnostic]) -> None:
    """codex-too-deep: SKILL.md files just below the scan limit (looked for only to warn; never loaded)."""
    budget = TOO_DEEP_DIR_CAP
    seen: set[str] = set()
    queue = deque(deeper)
    while queue and budget > 0:
        folder, depth = queue.popleft()
        real = canonical(folder)
        if real in seen:
            continue
        seen.add(real)
        budget -= 1
        try:
            with os.scandir(real) as it:
                entries = list(it)
        except OSError:
            continue
        for entry in entries:
            if entry.name.startswith("."):
                continue
            try:
                if entry.is_dir(follow_symlinks=follow) and depth < MAX_SCAN_DEPTH + TOO_DEEP_EXTRA_LEVELS:
                    queue.append((os.path.join(real, entry.name), depth + 1))
                elif entry.name == SKILLS_FILENAME and entry.is_file(follow_symlinks=False):
                    diags.append(_diag("error", "codex-too-deep", os.path.join(real, entry.name),
                                       f"SKILL.md is {depth} folder levels below {root.canonical}; Codex scans "
                                       f"{MAX_SCAN_DEPTH} levels and does not find it"))
            except OSError:
                continue


# ---------------------------------------------------------------- helpers
def _diag(severity: Severity, code: str, path: str | None, message: str, line: int | None = None,
          fix: str | None = None) -> Diagnostic:
    return Diagnostic(severity=severity, code=code, path=path, message=message, line=line, fix=fix, runtime=NAME)


def _codex_home(opts: Options, home: str, diags: list[Diagnostic]) -> str:
    value = opts.env.get("CODEX_HOME")
    if value:
        path = _abs(value, os.path.abspath(opts.cwd))
        if not os.path.isdir(path):
            diags.append(_diag("error", "codex-home-missing", path,
                               "CODEX_HOME points to a folder that does not exist; Codex refuses to start"))
            return path
        return canonical(path)
    return os.path.join(home, ".codex")


def _facts(s: Skill) -> CodexSkillFacts:
    """Facts of a skill this discovery made (each has them)."""
    facts = skill_facts(s)
    if facts is None:
        raise TypeError(f"{s.path}: not a Codex skill")
    return facts


def _load_skill(found: _Found, namespaces: _Namespaces, diags: list[Diagnostic]) -> Skill:
    path = found.path
    real = canonical(path)
    folder = os.path.dirname(real)
    skill = Skill(name=os.path.basename(folder) or "skill", source=found.root.scope, path=real,
                  root=found.root.canonical, skill_dir=folder)
    facts = skill.facts = CodexSkillFacts(found.root.scope)
    if found.as_found and found.as_found != real:
        facts.found_path = found.as_found
    text, err = read_utf8(path)
    if text is None:
        facts.error, facts.error_code = f"failed to read file: {err}", "codex-read-failed"
        return skill
    parsed = parse_skill_text(text, os.path.basename(folder))
    skill.frontmatter = parsed.frontmatter
    if parsed.name:
        skill.name = parsed.name
    facts.name_line, facts.description_line = parsed.name_line, parsed.description_line
    if parsed.error:
        facts.error, facts.error_code, facts.error_line = parsed.error, parsed.code, parsed.error_line
        if parsed.description:
            skill.description = parsed.description
        return skill
    namespace = namespaces.for_path(real)
    if namespace is not None:
        skill.name = f"{namespace}:{parsed.name}"
        facts.namespace = namespace
        if len(skill.name) > MAX_QUALIFIED_NAME_LEN:
            facts.error = f"invalid qualified name: exceeds maximum length of {MAX_QUALIFIED_NAME_LEN} characters"
            facts.error_code, facts.error_line = "codex-name-too-long", parsed.name_line
            return skill
    skill.label = skill.name
    skill.description = parsed.description
    facts.yaml_repaired = parsed.repaired
    facts.short_description = parsed.short_description
    _load_metadata(skill, facts, folder, diags)
    return skill


def _load_metadata(skill: Skill, facts: CodexSkillFacts, folder: str, diags: list[Diagnostic]) -> None:
    meta_path = os.path.join(folder, *METADATA_REL)
    if not os.path.isfile(meta_path):
        return
    text, err = read_utf8(meta_path, check_cap=READ_CAP)
    if text is None:
        diags.append(_diag("warning", "codex-openai-yaml-invalid", meta_path,
                           f"ignoring agents/openai.yaml: failed to read it: {err}"))
        return
    try:
        meta = parse_openai_yaml(text, folder)
    except (yaml.YAMLError, _TypeError, RecursionError, ValueError) as exc:
        if isinstance(exc, yaml.YAMLError):
            message, line = _yaml_error_message(exc)
        else:
            message, line = str(exc), getattr(exc, "line", None)
        diags.append(_diag("warning", "codex-openai-yaml-invalid", meta_path,
                           f"ignoring agents/openai.yaml: invalid openai.yaml: {message}",
                           line=line + 1 if line is not None else None))
        return
    facts.metadata_path = meta_path
    if meta.interface:
        facts.interface = meta.interface
        skill.display_name = meta.interface.get("displayName")
    if meta.dependencies:
        facts.dependencies = meta.dependencies
    if meta.policy is not None:
        facts.policy = meta.policy
        allow = meta.policy.get("allow_implicit_invocation")
        if allow is not None:
            facts.allow_implicit_invocation = allow
            if allow is False:
                facts.implicit_line = meta.allow_implicit_line


def _system_skills(root: Root, scanned: list[Skill]) -> list[Skill]:
    """The shipped system skills: the on-disk copies when Codex's marker is there, placeholders for the rest."""
    have = {s.name for s in scanned}
    out = []
    for name, offered in SYSTEM_SKILLS:
        if name in have:
            continue
        folder = os.path.join(root.canonical, name)
        s = Skill(name=name, source="system", path=os.path.join(folder, SKILLS_FILENAME), root=root.canonical,
                  skill_dir=folder, label=name)
        s.shipped = True
        s.facts = CodexSkillFacts("system", allow_implicit_invocation=None if offered else False)
        out.append(s)
    return out


def _list_key(s: Skill) -> tuple[int, str, tuple[str, ...]]:
    return (LIST_SCOPE_RANK.get(s.source, 9), s.name, path_key(s.path))


# ---------------------------------------------------------------- discover
def discover(opts: Options) -> Catalog:
    diags: list[Diagnostic] = []
    cwd = os.path.abspath(opts.cwd)
    home = os.path.abspath(opts.home)
    catalog = Catalog(runtime=NAME, runtime_version=VERSION, cwd=opts.cwd, home=opts.home)
    codex_home = _codex_home(opts, home, diags)
    user_cfg = _load_config(os.path.join(codex_home, "config.toml"), diags)
    system_cfg = _load_config(os.path.join(SYSTEM_CONFIG_DIR, "config.toml"), diags)
    markers = _root_markers([system_cfg, user_cfg], diags)
    roots, proj = skill_roots(cwd, home, codex_home, markers)

    namespaces = _Namespaces()
    valid: list[Skill] = []
    # by (root, path): valid skills are deduplicated across roots, errors are not (a file reached from two roots is
    # reported twice, oracle 2026-12-03)
    invalid: dict[tuple[str, str], Skill] = {}
    seen_paths: set[str] = set()
    for root in roots:
        found: list[_Found] = []
        system_has_marker = root.scope == "system" and os.path.isfile(os.path.join(root.canonical, SYSTEM_MARKER))
        if root.scope != "system" or system_has_marker:
            found = scan_root(root, diags)
        loaded = []
        for f in found:
            try:
                skill = _load_skill(f, namespaces, diags)
            except Exception as exc:  # a safety net: one hostile file never stops the scan
                skill = Skill(name=os.path.basename(os.path.dirname(f.path)), source=root.scope, path=f.path,
                              root=root.canonical)
                skill.facts = CodexSkillFacts(root.scope, error=f"skilltui could not read this file "
                                              f"({exc.__class__.__name__})", error_code="codex-read-failed")
            if _facts(skill).error:
                if root.scope != "system":  # Codex never reports errors from the system root
                    invalid.setdefault((root.canonical, skill.path), skill)
                continue
            if skill.path in seen_paths:
                continue
            seen_paths.add(skill.path)
            loaded.append(skill)
        if root.scope == "system":
            loaded += _system_skills(root, loaded)
        valid.extend(loaded)

    # [[skills.config]] from the user layer (§6)
    rules = _skill_rules(user_cfg, home, diags)
    for rule in rules:
        for s in valid:
            if (rule.kind == "path" and s.path == rule.value) or (rule.kind == "name" and s.name == rule.value):
                facts = _facts(s)
                facts.enabled, facts.decided_by = rule.enabled, (user_cfg.path, rule.line, rule.text)

    valid.sort(key=_list_key)
    # errors come root by root in scan order, breadth-first within a root (shallower files first), then by the path
    # as found (a link's name, not its target; oracle, 2026-12-03)
    root_rank = {r.canonical: i for i, r in enumerate(roots)}

    def error_key(s: Skill) -> tuple[int, int, tuple[str, ...]]:
        where = _facts(s).found_path or s.path
        rel = os.path.relpath(where, s.root) if s.root else where
        return root_rank.get(s.root, len(roots)), rel.count(os.sep), path_key(where)

    catalog.skills = valid + sorted(invalid.values(), key=error_key)
    about = catalog.facts = CodexFacts(project_root=proj, codex_home=codex_home, config=user_cfg.path,
                                       root_markers=markers, roots=roots,
                                       model=models.resolve(user_cfg.data, user_cfg.path))
    prompt = about.prompt = build_prompt(catalog)  # under the window of the model Codex would run
    position = {e.path: i for i, e in enumerate(prompt.included())}
    for s in valid:
        s.label = s.label or s.name
        mine = _facts(s)
        if not mine.enabled:
            file, _line, selector = mine.decided_by or ("", None, "")
            s.status = DISABLED
            s.reason = f"disabled by [[skills.config]] {selector} in {file}"
        elif mine.allow_implicit_invocation is False:
            s.status = HIDDEN
            where = "Codex ships it with" if s.shipped else "agents/openai.yaml sets"
            s.reason = (f"{where} policy.allow_implicit_invocation: false: invocable as ${s.name} and in "
                        "skills/list, not in the model's list")
        elif s.path in position:
            s.status, s.order = LISTED, position[s.path]
        else:
            s.status = FILTERED
            s.reason = f"left out of the prompt: over the skills context budget ({prompt.budget} {prompt.unit})"
    for s in invalid.values():
        s.status, s.reason = INVALID, _facts(s).error
        s.label = s.label or s.name

    _diagnose(catalog, valid, list(invalid.values()), diags)
    catalog.diagnostics = diags
    catalog.stop_if_refused("Codex")
    if about.refused:
        about.prompt = build_prompt(catalog)  # empty: Codex starts no session
    return catalog


def _diagnose(catalog: Catalog, valid: list[Skill], invalid: list[Skill], diags: list[Diagnostic]) -> None:
    reported: set[str] = set()
    for s in invalid:
        if s.path in reported:  # one finding per file, however many roots reach it
            continue
        reported.add(s.path)
        facts = _facts(s)
        diags.append(_diag("error", facts.error_code or "codex-yaml-invalid", s.path, facts.error or "",
                           line=facts.error_line))
    by_name: dict[str, list[Skill]] = {}
    for s in valid:
        by_name.setdefault(s.name, []).append(s)
    for name, group in by_name.items():
        if len(group) > 1:
            for s in group:
                others = ", ".join(o.path for o in group if o is not s)
                diags.append(_diag("info", "codex-duplicate-name", s.path,
                                   f"the name {name!r} also comes from {others}; Codex keeps every copy",
                                   line=_facts(s).name_line))
    for s in valid:
        if s.description is not None and len(s.description) > MAX_DESCRIPTION_LEN:
            diags.append(_diag("warning", "codex-description-long", s.path,
                               f"description is {len(s.description)} characters; the prompt shows the first "
                               f"{MAX_DESCRIPTION_LEN - 3} and '...' ({len(cut_description(s.description))} in all)",
                               line=_facts(s).description_line))
        facts = _facts(s)
        if facts.allow_implicit_invocation is False and not s.shipped:
            diags.append(_diag("info", "codex-implicit-off", facts.metadata_path or s.path,
                               f"{s.name}: policy.allow_implicit_invocation is false; invocable as ${s.name}, "
                               "not in the prompt", line=facts.implicit_line))
    prompt = facts_of(catalog).prompt
    if prompt is not None and prompt.warning:
        diags.append(_diag("warning", "codex-budget-exceeded", None, prompt.warning))
