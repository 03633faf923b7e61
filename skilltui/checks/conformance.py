"""The Agent Skills conformance lens: what skills-ref 0.1.1 (`agentskills`) says about a skill folder.

spec/agent-skills.md §2 pins the reference validator; §3 maps its messages to skilltui diagnostics. The reference
parses frontmatter with strictyaml; we reproduce the parts it relies on with PyYAML's pure-Python scanner, parser and
composer plus strictyaml's extra rules:

* every scalar is a string (no implicit resolvers: `yes`, `1.0`, `~` stay text);
* flow collections (`[a]`, `{a: b}`), anchors (`&a`) and tags (`!!str`) are refused while scanning, so alias bombs
  never expand;
* duplicate keys and sibling mappings with different indentation are refused while constructing;
* error text is laid out as ruamel.yaml prints it (`^ (line: N)` carets), which is what the golden output holds.

That parser lives in checks/strict_yaml.py, loaded only for a frontmatter `fast_load` cannot decide.

Nothing here ever raises on file content: unreadable, binary, huge or hostile files become messages. Files are read
up to MAX_BYTES. These diagnostics never change a skill's runtime status.
"""

from __future__ import annotations

import json
import os
import re
import stat
import sys
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from skilltui import findings, fsio
from skilltui.model import Diagnostic, Severity
from skilltui.record import Record
from skilltui.refs import is_normal, under
from skilltui.yaml_fast import simple_mapping

if TYPE_CHECKING:
    from pathlib import Path

VERSION = "0.1.1"
MAX_BYTES = 1_000_000
MAX_SKILL_NAME_LENGTH = 64
MAX_DESCRIPTION_LENGTH = 1024
MAX_COMPATIBILITY_LENGTH = 500
MAX_BODY_LINES = 500
ALLOWED_FIELDS = frozenset({"name", "description", "license", "allowed-tools", "metadata", "compatibility"})
SKILL_MD_NAMES = ("SKILL.md", "skill.md")
MAX_FRONTMATTER_CHARS = 256 * 1024  # larger blocks are not parsed (pure-Python YAML would take many seconds)


class SkillError(Exception):
    """skills-ref's SkillError: the message is what `agentskills` prints after `Error: `."""


class ParseError(SkillError):
    pass


class ValidationError(SkillError):
    pass


@dataclass(repr=False)
class StrictDoc(Record):
    """The result of a strict load: `data` as strictyaml's `.data`, plus where each top-level key sits."""

    data: Any
    key_lines: dict[str, int]  # top-level key -> 0-based line in the YAML text


_FLOW_VALUE = re.compile(r":[ \t]+[\[{]|^[ \t]*-[ \t]+[\[{]", re.M)


def _as_string(value: str | None) -> str:
    return "" if value is None else value


def fast_load(text: str) -> StrictDoc | None:
    """What `strict_load` returns, for the plain frontmatter nearly every skill has, read with string methods
    (skilltui.yaml_fast, checked against the full parser by tests) instead of the pure-Python YAML scanner, which was
    85% of the doctor's time. None when the text is outside that subset: flow collections (strictyaml refuses them),
    more than one nested mapping (strictyaml compares their indentation), or anything yaml_fast leaves to a parser."""
    if ("[" in text or "{" in text) and _FLOW_VALUE.search(text):  # (the pattern has no literal to skip to)
        return None
    data = simple_mapping(text, _as_string)
    if not data or sum(isinstance(v, dict) for v in data.values()) > 1:
        return None
    for key, value in data.items():
        if value is None:
            data[key] = ""
        elif isinstance(value, list) and any(v is None for v in value):
            return None
    key_lines: dict[str, int] = {}
    for i, line in enumerate(text.split("\n")):
        if line and line[0] not in " #-":
            key = line.partition(":")[0]
            if key in data:
                key_lines.setdefault(key, i)
    return StrictDoc(data, key_lines)


def strict_load(text: str) -> StrictDoc:
    """Load YAML the way `strictyaml.load(text).data` does (checks/strict_yaml.py: PyYAML is loaded on first need).
    Raises YAMLError (StrictYAMLError for strictyaml's own refusals) instead."""
    from skilltui.checks import strict_yaml

    return StrictDoc(*strict_yaml.strict_load(text))


@dataclass(frozen=True, repr=False)
class _Mark(Record):
    """A position as PyYAML's Mark holds it (what format_yaml_error prints)."""

    name: str
    index: int
    line: int
    column: int
    buffer: str
    pointer: int


class Refusal(Exception):
    """strict_load's exception as `fast_refusal` finds it without the parser (so PyYAML need not be loaded): the same
    kind (the fix's wording), problem, marks and printed text."""

    def __init__(self, kind: str | None, context: str | None, context_mark: _Mark | None, problem: str,
                 problem_mark: _Mark) -> None:
        super().__init__(problem)
        self.kind, self.context, self.context_mark = kind, context, context_mark
        self.problem, self.problem_mark, self.note = problem, problem_mark, None


def _mark_str(mark: Any) -> str:
    """A mark as ruamel.yaml prints it: the snippet caret carries `(line: N)`."""
    where = '  in "%s", line %d, column %d' % (mark.name, mark.line + 1, mark.column + 1)
    buffer = getattr(mark, "buffer", None)
    if buffer is None:
        return where
    breaks = "\0\r\n\x85\u2028\u2029"
    pointer: int = mark.pointer
    head = ""
    start = pointer
    max_length = 75
    while start > 0 and buffer[start - 1] not in breaks:
        start -= 1
        if pointer - start > max_length / 2 - 1:
            head = " ... "
            start += 5
            break
    tail = ""
    end = pointer
    while end < len(buffer) and buffer[end] not in breaks:
        end += 1
        if end - pointer > max_length / 2 - 1:
            tail = " ... "
            end -= 5
            break
    snippet: str = buffer[start:end]
    caret = f"^ (line: {mark.line + 1})"
    indent = 4
    return (
        where
        + ":\n"
        + " " * indent
        + head
        + snippet
        + tail
        + "\n"
        + " " * (indent + pointer - start + len(head))
        + caret
    )


def format_yaml_error(error: BaseException) -> str:
    """The text strictyaml's exception prints (ruamel.yaml's MarkedYAMLError.__str__), for the parser's exceptions
    (checks/strict_yaml.py) and for a `Refusal` found without it."""
    marked = sys.modules.get("yaml.error")  # only loaded once the parser ran: then its exceptions can exist
    if not isinstance(error, Refusal) and not (marked is not None and isinstance(error, marked.MarkedYAMLError)):
        return str(error)
    e: Any = error  # the parser's MarkedYAMLError or a Refusal: the same attributes
    lines: list[str] = []
    if e.context is not None:
        lines.append(e.context)
    cm, pm = e.context_mark, e.problem_mark
    if cm is not None and (
        e.problem is None
        or pm is None
        or cm.name != pm.name
        or cm.line != pm.line
        or cm.column != pm.column
    ):
        lines.append(_mark_str(cm))
    if e.problem is not None:
        lines.append(e.problem.replace("hexadecimal", "hexdecimal"))  # ruamel's spelling
    if pm is not None:
        lines.append(_mark_str(pm))
    if e.note:
        import textwrap

        lines.append(textwrap.dedent(e.note))
    return "\n".join(lines)


# The two refusals most real frontmatter meets (about 4% of skills): a flow list as a value (`tools: [Read, Grep]`)
# and an unquoted `: ` in a plain value (`description: Use it: now`). A key line holding one of them, with its value
# as the scanner reads it (a one-line flow list of plain words; a plain value with no comment before the colon).
_REFUSAL_LINE = re.compile(r"(?P<indent> *)(?P<key>[A-Za-z_][A-Za-z0-9_-]*):(?P<gap> +)(?P<value>.+)")
_FLOW_WORDS = re.compile(r"\[(?: *[A-Za-z0-9_][A-Za-z0-9_ ./()+-]*(?:, *[A-Za-z0-9_][A-Za-z0-9_ ./()+-]*)*)? *\] *")
_PLAIN_FIRST = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_(/.")
_SENTINEL = "skilltui_refusal_sentinel"


def fast_refusal(text: str) -> Refusal | None:
    """strict_load's exception for a frontmatter whose first problem is one of the two common refusals, found without
    the pure-Python scanner (it was a third of the conformance lens). None when that is not certain: the line holding
    the problem is put back as a plain `key: word` and the text must then be one `fast_load` reads (so nothing before
    it, and nothing the scanner looks ahead to, raises first), with that word at the key's place. For a `: ` in a plain
    value that text ends with the line: the scanner raises on reaching the colon, before it reads any further line
    (and the checks after parsing, duplicate keys and indentation, never run). A flow list makes the scanner read on
    to decide whether it starts a key, so there the whole text is read.
    tests/test_conformance.py checks the exception text against strict_load on generated and corpus frontmatter."""
    if not text.replace("\n", "").isprintable():  # the reader refuses some characters before any scanning
        return None
    offset = 0
    lines = text.split("\n")
    for number, line in enumerate(lines):
        m = _REFUSAL_LINE.fullmatch(line)
        if m is not None:
            value = m["value"]
            at = m.start("value")
            if value[0] == "[":
                if not _FLOW_WORDS.fullmatch(value):
                    return None
                flow, column = True, at
            else:
                colon = value.find(": ")
                if colon < 0 and value.endswith(":"):  # a colon at the end of the line ends the scalar too
                    colon = len(value) - 1
                if colon <= 0 or value[0] not in _PLAIN_FIRST or " #" in value[:colon] or "\t" in value:
                    offset += len(line) + 1
                    continue
                flow, column = False, at + colon
            return _refusal_if_first(text, lines, number, m, offset, column, flow)
        offset += len(line) + 1
    return None


def _refusal_if_first(text: str, lines: list[str], number: int, m: re.Match[str], offset: int, column: int,
                      flow: bool) -> Refusal | None:
    plain = lines[:number] + [f"{m['indent']}{m['key']}:{m['gap']}{_SENTINEL}"] + (lines[number + 1 :] if flow else [])
    doc = fast_load("\n".join(plain))
    if doc is None:
        return None
    where: Any = doc.data
    if m["indent"]:  # a nested key: its parent is the last top-level key above it
        parent = next((ln.partition(":")[0] for ln in reversed(lines[:number]) if ln[:1] not in ("", " ", "#")), None)
        where = where.get(parent) if parent is not None else None
    if not isinstance(where, dict) or where.get(m["key"]) != _SENTINEL:
        return None
    buffer = text + "\0"

    def mark(col: int) -> _Mark:
        return _Mark("<unicode string>", offset + col, number, col, buffer, offset + col)

    if flow:  # strict_yaml.FlowDisallowed's
        return Refusal("flow", "While scanning", mark(column), "Found ugly disallowed JSONesque flow mapping "
                       "(surround with ' and ' to make text appear literally)", mark(column + 1))
    return Refusal(None, None, None, "mapping values are not allowed here", mark(column))  # PyYAML's ScannerError


# --------------------------------------------------------------------------------------------------------------
# Reading SKILL.md (skills-ref parser.py)
# --------------------------------------------------------------------------------------------------------------


@dataclass(repr=False)
class _Parsed(Record):
    metadata: dict[str, Any]
    body: str  # parts[2].strip(), as skills-ref keeps it
    key_lines: dict[str, int]  # top-level key -> 1-based line in SKILL.md
    body_line: int  # 1-based line of SKILL.md where the text after the closing `---` starts


@dataclass(repr=False)
class _ParseFailure(Record):
    message: str
    code: str
    line: int | None = None
    fix: str | None = None


def _path(path: str | os.PathLike[str]) -> Path:
    """pathlib.Path, imported on first use: only the skills-ref commands and rare paths need one, and the import
    (with urllib.parse and ipaddress) was 4 ms of the doctor's start."""
    from pathlib import Path

    return Path(path)


def find_skill_md(skill_dir: str | os.PathLike[str]) -> Path | None:
    """SKILL.md, else skill.md (skills-ref find_skill_md uses `Path.exists()`: the file system's case rules apply)."""
    for name in SKILL_MD_NAMES:
        path = _path(skill_dir) / name
        try:
            if path.exists():
                return path
        except (OSError, ValueError):
            continue
    return None


@dataclass(frozen=True, repr=False)
class RawFile(Record):
    """A SKILL.md read once (at most `cap` + 1 bytes: one more than a cap tells a larger file), or why it could not be:
    the doctor shares one read between its lenses."""

    data: bytes | None
    error: str | None = None  # why it could not be read (read_skill_md's wording after "Cannot read NAME: ")


def read_raw(path: str | os.PathLike[str], cap: int = MAX_BYTES) -> RawFile:
    try:  # the common case in three system calls (open, fstat, read); any trouble is looked at again below
        fd, st = fsio.open_regular(path)
    except (OSError, ValueError):
        return _read_raw_checked(path, cap)
    try:
        data = os.read(fd, min(st.st_size, cap) + 1)
        while st.st_size < len(data) <= cap:  # it grew since the fstat: read on, up to the cap
            more = os.read(fd, cap + 1 - len(data))
            if not more:
                break
            data += more
    except OSError:
        return _read_raw_checked(path, cap)
    finally:
        os.close(fd)
    return RawFile(data)


def _read_raw_checked(path: str | os.PathLike[str], cap: int) -> RawFile:
    """read_raw one step at a time, for the exact reason it cannot be read (a stat first, as skills-ref does)."""
    try:
        st = os.stat(path)
    except (OSError, ValueError) as exc:
        return RawFile(None, _os_reason(exc))
    if stat.S_ISDIR(st.st_mode):
        return RawFile(None, "it is a directory")
    if not stat.S_ISREG(st.st_mode):
        return RawFile(None, "not a regular file")
    try:
        with fsio.open_binary(path) as fh:
            return RawFile(fh.read(cap + 1))
    except (OSError, ValueError) as exc:
        return RawFile(None, _os_reason(exc))


def skill_md_text(raw: RawFile, name: str = "SKILL.md") -> tuple[str | None, str | None, bool]:
    """(text, error message, truncated) of a raw read, as read_skill_md gives them."""
    if raw.data is None:
        return None, f"Cannot read {name}: {raw.error}", False
    data = raw.data
    truncated = len(data) > MAX_BYTES
    if truncated:
        data = data[:MAX_BYTES]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if truncated and exc.reason == "unexpected end of data" and exc.start >= len(data) - 3:
            text = data[: exc.start].decode("utf-8", errors="replace")
        else:
            return None, f"Cannot read {name}: not UTF-8 text (byte {exc.start}: {exc.reason})", truncated
    return newlines_as_lf(text), None, truncated


def newlines_as_lf(text: str) -> str:
    """CRLF and CR made LF, as `read_text()` does."""
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def read_skill_md(path: str | os.PathLike[str]) -> tuple[str | None, str | None, bool]:
    """(text, error message, truncated). At most MAX_BYTES are read; newlines are normalised like `read_text()`."""
    return skill_md_text(read_raw(path), _path(path).name or "SKILL.md")


def _os_reason(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__


def _yaml_fix(error: BaseException) -> str:
    kind = getattr(error, "kind", None)
    problem = getattr(error, "problem", None) or ""
    if kind == "flow":
        return "Write lists and maps in block style (one `- item` per line), or quote the value."
    if kind == "anchor":
        return "Remove the `&anchor`/`*alias`; strictyaml refuses them (quote the value if it is text)."
    if kind == "tag":
        return "Remove the `!tag`; strictyaml refuses explicit types."
    if kind == "duplicate":
        return "Keep a single copy of the repeated key."
    if kind == "indentation":
        return "Indent sibling nested mappings by the same amount."
    if kind == "depth":
        return "Flatten the frontmatter."
    if "mapping values are not allowed" in problem:
        return 'Quote the value (e.g. description: "…: …") so the `: ` inside it is not read as a new key.'
    return "Fix the YAML syntax at the line shown."


def _load(text: str) -> StrictDoc | Refusal:
    """The frontmatter as strictyaml loads it, or the refusal the fast path finds without the parser. The refusal is
    returned, not raised: a raised exception held in a local keeps its frame (and the file's text) in a cycle, which a
    command-line run never collects."""
    doc = fast_load(text)
    if doc is not None:
        return doc
    return fast_refusal(text) or strict_load(text)


def _yaml_failure(error: BaseException, text: str) -> _ParseFailure:
    """The failure for a frontmatter the YAML parser (or the fast path) refused."""
    mark = getattr(error, "problem_mark", None) or getattr(error, "context_mark", None)
    line = mark.line + 1 if mark is not None else None
    position = getattr(error, "position", None)
    if line is None and position is not None:  # ReaderError
        line = text[:position].count("\n") + 1
    message = "out of memory" if isinstance(error, MemoryError) else format_yaml_error(error)
    return _ParseFailure(f"Invalid YAML in frontmatter: {message}", "spec-yaml-invalid", line, _yaml_fix(error))


def _parse(content: str) -> _Parsed | _ParseFailure:
    """skills-ref parse_frontmatter, returning a failure (message + diagnostic details) instead of raising."""
    if not content.startswith("---"):
        fix = "Start the file with a `---` line, the frontmatter keys, then a closing `---` line."
        if content.startswith("\ufeff"):
            fix = "Remove the byte-order mark before the opening `---` (save as UTF-8 without BOM)."
        return _ParseFailure("SKILL.md must start with YAML frontmatter (---)", "spec-no-frontmatter", 1, fix)
    parts = content.split("---", 2)
    if len(parts) < 3:
        return _ParseFailure(
            "SKILL.md frontmatter not properly closed with ---",
            "spec-no-frontmatter",
            1,
            "Close the frontmatter with a `---` line (and avoid `---` inside values).",
        )
    frontmatter_str = parts[1]
    body_line = content[: len(parts[0]) + 3 + len(parts[1]) + 3].count("\n") + 2
    if len(frontmatter_str) > MAX_FRONTMATTER_CHARS:
        return _ParseFailure(
            f"SKILL.md frontmatter is too large to check ({len(frontmatter_str)} characters; "
            f"skilltui parses at most {MAX_FRONTMATTER_CHARS})",
            "spec-yaml-invalid",
            1,
            "Keep the frontmatter to name, description and a few short fields.",
        )
    try:
        doc = _load(frontmatter_str)
    except Exception as exc:  # only the YAML parser raises a YAMLError: it is loaded when one is raised
        error = sys.modules.get("yaml.error")
        if not isinstance(exc, MemoryError) and not (error is not None and isinstance(exc, error.YAMLError)):
            raise
        return _yaml_failure(exc, frontmatter_str)
    if isinstance(doc, Refusal):
        return _yaml_failure(doc, frontmatter_str)
    metadata = doc.data
    if not isinstance(metadata, dict):
        return _ParseFailure(
            "SKILL.md frontmatter must be a YAML mapping",
            "spec-frontmatter-not-mapping",
            1,
            "Write the frontmatter as `key: value` lines.",
        )
    metadata = {(k if isinstance(k, str) else str(k)): v for k, v in metadata.items()}
    if "metadata" in metadata and isinstance(metadata["metadata"], dict):
        metadata["metadata"] = {str(k): str(v) for k, v in metadata["metadata"].items()}
    key_lines = {k: v + 1 for k, v in doc.key_lines.items()}
    return _Parsed(metadata, parts[2].strip(), key_lines, body_line)


def parse_frontmatter(content: str) -> tuple[dict[str, Any], str]:
    """skills-ref parse_frontmatter: (metadata, body) or ParseError with the reference message."""
    result = _parse(content)
    if isinstance(result, _ParseFailure):
        raise ParseError(result.message)
    return result.metadata, result.body


# --------------------------------------------------------------------------------------------------------------
# Checks (skills-ref validator.py, 0.1.1)
# --------------------------------------------------------------------------------------------------------------


@dataclass(repr=False)
class _Finding(Record):
    code: str
    message: str
    key: str | None  # frontmatter key the finding is about (for the line)
    fix: str | None = None


def _check_name(name: Any, dir_name: str | None) -> list[_Finding]:
    if not name or not isinstance(name, str) or not name.strip():
        return [
            _Finding(
                "spec-name-missing",
                "Field 'name' must be a non-empty string",
                "name",
                "Give `name:` a value, the folder's name.",
            )
        ]
    n = unicodedata.normalize("NFKC", name.strip())
    out: list[_Finding] = []
    if len(n) > MAX_SKILL_NAME_LENGTH:
        out.append(
            _Finding(
                "spec-name-too-long",
                f"Skill name '{n}' exceeds {MAX_SKILL_NAME_LENGTH} character limit ({len(n)} chars)",
                "name",
                "Shorten the name to 64 characters or fewer (and rename the folder to match).",
            )
        )
    if n != n.lower():
        out.append(
            _Finding(
                "spec-name-not-lowercase",
                f"Skill name '{n}' must be lowercase",
                "name",
                f"Use lowercase: `name: {n.lower()}` (and rename the folder to match).",
            )
        )
    if n.startswith("-") or n.endswith("-"):
        out.append(
            _Finding(
                "spec-name-hyphen-edge",
                "Skill name cannot start or end with a hyphen",
                "name",
                "Remove the leading/trailing hyphen from the name.",
            )
        )
    if "--" in n:
        out.append(
            _Finding(
                "spec-name-double-hyphen",
                "Skill name cannot contain consecutive hyphens",
                "name",
                "Replace `--` with a single hyphen.",
            )
        )
    letters = n.replace("-", "")
    if letters and not letters.isalnum():  # str.isalnum is every character's isalnum(), as skills-ref asks
        suggestion = re.sub(r"-{2,}", "-", "".join(c if c.isalnum() else "-" for c in n.lower())).strip("-")
        out.append(
            _Finding(
                "spec-name-invalid-chars",
                f"Skill name '{n}' contains invalid characters. Only letters, digits, and hyphens are allowed.",
                "name",
                f"Use only letters, digits and hyphens (e.g. `{suggestion}`)." if suggestion else
                "Use only letters, digits and hyphens.",
            )
        )
    if dir_name is not None and unicodedata.normalize("NFKC", dir_name) != n:
        out.append(
            _Finding(
                "spec-name-dir-mismatch",
                f"Directory name '{dir_name}' must match skill name '{n}'",
                "name",
                f"Rename the folder to `{n}`, or set `name: {dir_name}`.",
            )
        )
    return out


def _check_metadata(metadata: dict[str, Any], dir_name: str | None) -> list[_Finding]:
    out: list[_Finding] = []
    extra = set(metadata) - ALLOWED_FIELDS
    if extra:
        out.append(
            _Finding(
                "spec-unexpected-field",
                f"Unexpected fields in frontmatter: {', '.join(sorted(extra))}. "
                f"Only {sorted(ALLOWED_FIELDS)} are allowed.",
                next(k for k in metadata if k in extra),
                "Keep them if a runtime uses them (the spec does not define them); "
                "put other custom data under `metadata:` to pass `agentskills validate`.",
            )
        )
    if "name" not in metadata:
        out.append(
            _Finding(
                "spec-name-missing",
                "Missing required field in frontmatter: name",
                None,
                "Add `name: <folder-name>` to the frontmatter.",
            )
        )
    else:
        out.extend(_check_name(metadata["name"], dir_name))
    if "description" not in metadata:
        out.append(
            _Finding(
                "spec-description-missing",
                "Missing required field in frontmatter: description",
                None,
                "Add `description:` saying what the skill does and when to use it.",
            )
        )
    else:
        description = metadata["description"]
        if not description or not isinstance(description, str) or not description.strip():
            out.append(
                _Finding(
                    "spec-description-missing",
                    "Field 'description' must be a non-empty string",
                    "description",
                    "Write what the skill does and when to use it as the `description:` text.",
                )
            )
        elif len(description) > MAX_DESCRIPTION_LENGTH:
            out.append(
                _Finding(
                    "spec-description-too-long",
                    f"Description exceeds {MAX_DESCRIPTION_LENGTH} character limit ({len(description)} chars)",
                    "description",
                    "Shorten the description to 1024 characters or fewer; move detail into the body.",
                )
            )
    if "compatibility" in metadata:
        compatibility = metadata["compatibility"]
        if not isinstance(compatibility, str):
            out.append(
                _Finding(
                    "spec-compatibility-not-string",
                    "Field 'compatibility' must be a string",
                    "compatibility",
                    "Write `compatibility` as one line of text.",
                )
            )
        elif len(compatibility) > MAX_COMPATIBILITY_LENGTH:
            out.append(
                _Finding(
                    "spec-compatibility-too-long",
                    f"Compatibility exceeds {MAX_COMPATIBILITY_LENGTH} character limit ({len(compatibility)} chars)",
                    "compatibility",
                    "Shorten `compatibility` to 500 characters or fewer.",
                )
            )
    return out


def validate_metadata(metadata: dict[str, Any], skill_dir: str | os.PathLike[str] | None = None) -> list[str]:
    """skills-ref validate_metadata: the error messages for parsed frontmatter."""
    dir_name = _path(skill_dir).name if skill_dir is not None else None
    return [f.message for f in _check_metadata(metadata, dir_name)]


def _skill_dir_of(path: Path) -> Path:
    """A path to SKILL.md/skill.md stands for its folder (the CLI's _is_skill_md_file)."""
    try:
        if path.name.lower() == "skill.md" and path.is_file():
            return path.parent
    except (OSError, ValueError):
        pass
    return path


def _validate_at(display: Path, fs_path: Path) -> list[str]:
    """skills-ref validate(): messages name `display` (the path as given); the file system is read at `fs_path`."""
    try:
        exists = fs_path.exists()
        is_dir = fs_path.is_dir()
    except (OSError, ValueError):
        exists, is_dir = False, False
    if not exists:
        return [f"Path does not exist: {display}"]
    if not is_dir:
        return [f"Not a directory: {display}"]
    skill_md = find_skill_md(fs_path)
    if skill_md is None:
        return ["Missing required file: SKILL.md"]
    content, error, _ = read_skill_md(skill_md)
    if content is None:
        return [error or "Cannot read SKILL.md"]
    result = _parse(content)
    if isinstance(result, _ParseFailure):
        return [result.message]
    return [f.message for f in _check_metadata(result.metadata, display.name)]


def validate(skill_dir_or_file: str | os.PathLike[str]) -> list[str]:
    """The `agentskills validate` error messages, in order; [] when the skill is valid."""
    path = _skill_dir_of(_path(skill_dir_or_file))
    return _validate_at(path, path)


# --------------------------------------------------------------------------------------------------------------
# read-properties / to-prompt
# --------------------------------------------------------------------------------------------------------------


def read_properties(skill_dir: str | os.PathLike[str]) -> dict[str, Any]:
    """skills-ref read_properties(...).to_dict(): no name-vs-folder check. Raises SkillError with the message."""
    skill_dir = _path(skill_dir)
    skill_md = find_skill_md(skill_dir)
    if skill_md is None:
        raise ParseError(f"SKILL.md not found in {skill_dir}")
    content, error, _ = read_skill_md(skill_md)
    if content is None:
        raise ParseError(error or "Cannot read SKILL.md")
    metadata, _ = parse_frontmatter(content)
    if "name" not in metadata:
        raise ValidationError("Missing required field in frontmatter: name")
    if "description" not in metadata:
        raise ValidationError("Missing required field in frontmatter: description")
    name, description = metadata["name"], metadata["description"]
    if not isinstance(name, str) or not name.strip():
        raise ValidationError("Field 'name' must be a non-empty string")
    if not isinstance(description, str) or not description.strip():
        raise ValidationError("Field 'description' must be a non-empty string")
    out: dict[str, Any] = {"name": name.strip(), "description": description.strip()}
    for key in ("license", "compatibility", "allowed-tools"):
        if metadata.get(key) is not None:
            out[key] = metadata[key]
    if metadata.get("metadata"):
        out["metadata"] = metadata["metadata"]
    return out


def to_prompt(skill_dirs: Iterable[str | os.PathLike[str]]) -> str:
    """skills-ref to_prompt: every tag and value on its own line, values HTML-escaped, absolute locations."""
    import html  # only here: the doctor never builds the prompt

    dirs = list(skill_dirs)
    if not dirs:
        return "<available_skills>\n</available_skills>"
    lines = ["<available_skills>"]
    for raw in dirs:
        try:
            skill_dir = _path(raw).resolve()
        except (OSError, RuntimeError) as exc:
            raise SkillError(f"Failed to resolve skill directory {_path(raw).name}: {_os_reason(exc)}") from None
        props = read_properties(skill_dir)
        location = find_skill_md(skill_dir)
        lines += ["<skill>", "<name>", html.escape(props["name"]), "</name>"]
        lines += ["<description>", html.escape(props["description"]), "</description>"]
        lines += ["<location>", html.escape(str(location)), "</location>", "</skill>"]
    lines.append("</available_skills>")
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------------------------
# The `agentskills` command line (click 8 layout), for golden comparisons
# --------------------------------------------------------------------------------------------------------------

_USAGE = {
    "validate": "Usage: agentskills validate [OPTIONS] SKILL_PATH",
    "read-properties": "Usage: agentskills read-properties [OPTIONS] SKILL_PATH",
    "to-prompt": "Usage: agentskills to-prompt [OPTIONS] SKILL_PATHS...",
}


def _usage_error(command: str, message: str) -> tuple[int, str, str]:
    return 2, "", f"{_USAGE[command]}\nTry 'agentskills {command} --help' for help.\n\nError: {message}\n"


def _fs(cwd: str, arg: str) -> Path:
    return _path(os.path.join(cwd, arg))


def _click_path(command: str, param: str, arg: str, cwd: str) -> tuple[int, str, str] | None:
    try:
        ok = arg != "" and os.path.exists(os.path.join(cwd, arg))
    except (OSError, ValueError):
        ok = False
    if ok:
        return None
    return _usage_error(command, f"Invalid value for '{param}': Path {arg!r} does not exist.")


def _as_skill_dir(arg: str, cwd: str) -> tuple[Path, Path]:
    """(path as given, path on disk), with a SKILL.md argument replaced by its folder."""
    display, fs_path = _path(arg), _fs(cwd, arg)
    try:
        if display.name.lower() == "skill.md" and fs_path.is_file():
            return display.parent, fs_path.parent
    except (OSError, ValueError):
        pass
    return display, fs_path


def validate_cli_output(arg: str, cwd: str) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of `agentskills validate <arg>` run in `cwd`."""
    return run_cli(["validate", arg], cwd)


def run_cli(args: list[str], cwd: str) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of `agentskills <args>` run in `cwd`.

    Covers validate, read-properties, to-prompt and --version, with click's usage errors (exit 2)."""
    if not args or args[0] in ("--help", "-h"):
        return 0, "Usage: agentskills [OPTIONS] COMMAND [ARGS]...\n\n  Reference library for Agent Skills.\n", ""
    if args[0] == "--version":
        return 0, f"agentskills, version {VERSION}\n", ""
    command, rest = args[0], list(args[1:])
    if command not in _USAGE:
        return (
            2,
            "",
            "Usage: agentskills [OPTIONS] COMMAND [ARGS]...\nTry 'agentskills --help' for help.\n\n"
            f"Error: No such command '{command}'.\n",
        )
    if command == "to-prompt":
        if not rest:
            return _usage_error(command, "Missing argument 'SKILL_PATHS...'.")
        for arg in rest:
            failure = _click_path(command, "SKILL_PATHS...", arg, cwd)
            if failure:
                return failure
        try:
            out = to_prompt([_as_skill_dir(arg, cwd)[1] for arg in rest])
        except SkillError as exc:
            return 1, "", f"Error: {exc}\n"
        return 0, out + "\n", ""
    if len(rest) != 1:
        if not rest:
            return _usage_error(command, "Missing argument 'SKILL_PATH'.")
        return _usage_error(command, f"Got unexpected extra argument ({rest[1]})")
    arg = rest[0]
    failure = _click_path(command, "SKILL_PATH", arg, cwd)
    if failure:
        return failure
    display, fs_path = _as_skill_dir(arg, cwd)
    if command == "read-properties":
        try:
            props = read_properties(fs_path)
        except SkillError as exc:
            message = str(exc)
            if message.startswith("SKILL.md not found in "):
                message = f"SKILL.md not found in {display}"
            return 1, "", f"Error: {message}\n"
        return 0, json.dumps(props, indent=2) + "\n", ""
    errors = _validate_at(display, fs_path)
    if errors:
        return 1, "", f"Validation failed for {display}:\n" + "".join(f"  - {e}\n" for e in errors)
    return 0, f"Valid skill: {display}\n", ""


# --------------------------------------------------------------------------------------------------------------
# Diagnostics (spec/agent-skills.md §3)
# --------------------------------------------------------------------------------------------------------------

# The spec lens's codes, with their severity from the one table (skilltui/findings.py).
CODES: dict[str, Severity] = {code: c.severity for code, c in findings.CODES.items() if code.startswith("spec-")}


def _list_names(folder: str | os.PathLike[str]) -> set[str] | None:
    try:
        return set(os.listdir(folder))
    except (OSError, ValueError):
        return None


def named_exactly(folder: str) -> bool:
    """Whether `folder`/SKILL.md, which the caller has opened as a file, is an entry named exactly that: only a
    folder that tells case apart says so, and there `skill.md` is absent (a folder that folds case finds a file by
    that name too). Cheaper than listing the folder."""
    try:
        os.lstat(under(folder, "skill.md"))
    except (OSError, ValueError):
        return True
    return False


def check(skill_dir: str | os.PathLike[str], runtime: str | None = None,
          read: Callable[[str], tuple[str | None, str | None, bool]] = read_skill_md,
          skill_md_named: bool = False) -> list[Diagnostic]:
    """The conformance lens for one skill folder (or its SKILL.md): warnings and infos citing skills-ref. `read` reads
    the chosen SKILL.md as read_skill_md does (the doctor passes one that reuses its own read of the file).
    `skill_md_named`: the caller has proved the folder holds an entry named exactly SKILL.md (see `named_exactly`),
    so the folder is not listed to find out."""

    def diag(code: str, path: Path | str, message: str, line: int | None = None, fix: str | None = None) -> Diagnostic:
        return Diagnostic(CODES[code], code, str(path), message, line=line, fix=fix, runtime=runtime)

    given = os.fspath(skill_dir)  # plain strings below: Path objects cost more than the checks on a big tree
    if "skill.md" in given.lower():
        folder = os.path.abspath(_skill_dir_of(_path(given)))
    else:  # the doctor's folders are absolute and normal: abspath would give them back
        folder = given if given.startswith(os.sep) and is_normal(given) else os.path.abspath(given)
    if skill_md_named:  # the caller opened a file in it: a folder that exists
        exists, is_dir = True, True
    else:
        try:  # one stat: Path.exists() and is_dir() would take two
            exists, is_dir = True, stat.S_ISDIR(os.stat(folder).st_mode)
        except (OSError, ValueError):
            exists, is_dir = False, False
    if not exists or not is_dir:
        message = f"Path does not exist: {folder}" if not exists else f"Not a directory: {folder}"
        return [diag("spec-missing-skill-md", folder, message, fix="Point at a skill folder holding SKILL.md.")]

    out: list[Diagnostic] = []
    names = {"SKILL.md"} if skill_md_named else _list_names(folder)
    if names is not None:
        if "SKILL.md" in names:
            skill_md: str | None = under(folder, "SKILL.md")
        elif "skill.md" in names:
            skill_md = os.path.join(folder, "skill.md")
            out.append(
                diag(
                    "spec-skill-md-lowercase",
                    skill_md,
                    "Only skill.md exists: valid for the Agent Skills spec, but Claude Code and Codex ignore it",
                    fix="Rename skill.md to SKILL.md.",
                )
            )
        else:
            skill_md = None
    else:
        found = find_skill_md(folder)
        skill_md = None if found is None else str(found)
    if skill_md is None:
        out.append(
            diag(
                "spec-missing-skill-md",
                folder,
                "Missing required file: SKILL.md",
                fix="Add a SKILL.md with `name` and `description` frontmatter, or remove the folder.",
            )
        )
        return out

    content, error, truncated = read(skill_md)
    if content is None:
        fix = "Save SKILL.md as UTF-8 text." if "UTF-8" in (error or "") else "Make SKILL.md a readable file."
        out.append(diag("spec-skill-md-unreadable", skill_md, error or "Cannot read SKILL.md", fix=fix))
        return out
    result = _parse(content)
    fix_long = "Move detail into files under references/ and link them from SKILL.md."
    if isinstance(result, _ParseFailure):
        out.append(diag(result.code, skill_md, result.message, line=result.line, fix=result.fix))
    else:
        for finding in _check_metadata(result.metadata, os.path.basename(folder)):
            line = result.key_lines.get(finding.key) if finding.key else None
            out.append(diag(finding.code, skill_md, finding.message, line=line, fix=finding.fix))
        body_lines = result.body.count("\n") + 1 if result.body else 0  # len(split("\n")), without the list
        if body_lines > MAX_BODY_LINES and not truncated:
            out.append(
                diag(
                    "spec-body-too-long",
                    skill_md,
                    f"SKILL.md body has {body_lines} lines; the spec asks for under {MAX_BODY_LINES}",
                    line=result.body_line,
                    fix=fix_long,
                )
            )
    if truncated:
        out.append(
            diag(
                "spec-body-too-long",
                skill_md,
                f"SKILL.md is larger than {MAX_BYTES} bytes (only the first {MAX_BYTES} were read); "
                f"the spec asks for a body under {MAX_BODY_LINES} lines",
                fix=fix_long,
            )
        )
    return out
