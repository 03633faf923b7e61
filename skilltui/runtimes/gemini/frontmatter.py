"""Gemini CLI 0.61.0 reads a SKILL.md (spec/gemini.md §4): a `---` block at byte 0, js-yaml first, then a line reader.

The character classes are JavaScript's, not Python's: `\\s`, `.` and `trim()` differ on a handful of code points
(U+FEFF is JS whitespace, U+001C-U+001F and U+0085 are Python whitespace only), and those decide what loads.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import yaml

from skilltui.record import Record

# JavaScript's WhiteSpace + LineTerminator (what `\s` matches and `trim()` removes).
JS_WS = "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f" \
        "\u205f\u3000\ufeff"
_WS = "[" + re.escape(JS_WS) + "]"
_DOT = "[^\n\r\u2028\u2029]"  # JS `.` without the s flag

# The bundle's FRONTMATTER_REGEX, verbatim (Python's re reads it the same way).
FRONTMATTER_RE = re.compile(r"^---\r?\n([\s\S]*?)\r?\n---(?:\r?\n([\s\S]*))?")
_NAME_LINE = re.compile(rf"^{_WS}*name:{_WS}*({_DOT}*)\Z")
_DESC_LINE = re.compile(rf"^{_WS}*description:{_WS}*({_DOT}*)\Z")
_CONTINUATION = re.compile(rf"^[ \t]+[^{re.escape(JS_WS)}]")
_LINE_SPLIT = re.compile(r"\r?\n")
_UNSAFE_NAME = re.compile(r'[:\\/<>*?"|]')

Via = Literal["yaml", "lines"]


def js_trim(s: str) -> str:
    return s.strip(JS_WS)


@dataclass(repr=False)
class GeminiFrontmatter(Record):
    """What Gemini CLI makes of one SKILL.md; `problem` is set (and name/description None) when it skips the file."""

    name: str | None = None  # sanitised
    raw_name: str | None = None  # as read, before `: \\ / < > * ? " |` became `-`
    description: str | None = None
    body: str = ""
    via: Via | None = None
    yaml_error: str | None = None  # why js-yaml's values were not used (the line reader took over)
    problem: str | None = None  # diagnostic code when the file is skipped
    block: str = ""


# ---------------------------------------------------------------- js-yaml's DEFAULT_SCHEMA, as far as "is it a string"
class _NotString:
    """A js-yaml value that is not a string (number, boolean, null, date): only its type matters here."""

    def __init__(self, kind: str):
        self.kind = kind

    def __repr__(self) -> str:
        return f"<{self.kind}>"


_INT_RE = re.compile(r"^[-+]?(?:0b[01_]*[01]|0x[0-9a-fA-F_]*[0-9a-fA-F]|0o[0-7_]*[0-7]|0|[0-9][0-9_]*[0-9]|[0-9])$")
_FLOAT_RE = re.compile(r"^(?:[-+]?(?:[0-9][0-9_]*)(?:\.[0-9_]*)?(?:[eE][-+]?[0-9]+)?|\.[0-9_]+(?:[eE][-+]?[0-9]+)?"
                       r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$")
_DATE_RE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")
_TIMESTAMP_RE = re.compile(r"^[0-9]{4}-[0-9][0-9]?-[0-9][0-9]?(?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?"
                           r"(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9]{2})?))?$")


def _js_int(v: str) -> bool:
    """js-yaml's resolveYamlInteger: signs, 0b/0x/0o prefixes and `_` separators (not leading or trailing)."""
    if not v:
        return False
    i = 1 if v[0] in "+-" else 0
    body = v[i:]
    if body == "0":
        return True
    for prefix, digits in (("0b", "01"), ("0x", "0123456789abcdefABCDEF"), ("0o", "01234567")):
        if body.startswith(prefix):
            rest = body[2:]
            return any(c != "_" for c in rest) and all(c == "_" or c in digits for c in rest) and not rest.endswith("_")
    if not body or body[0] == "_" or body.endswith("_"):
        return False
    return all(c == "_" or (c.isascii() and c.isdigit()) for c in body) and any(c != "_" for c in body)


def _plain_kind(v: str) -> str | None:
    if v in ("", "~", "null", "Null", "NULL"):
        return "null"
    if v in ("true", "True", "TRUE", "false", "False", "FALSE"):
        return "boolean"
    if _js_int(v):
        return "number"
    if _FLOAT_RE.match(v) and not v.endswith("_"):
        return "number"
    if _DATE_RE.match(v) or _TIMESTAMP_RE.match(v):
        return "date"
    return None


class _Loader(yaml.SafeLoader):
    """PyYAML with js-yaml's scalar typing (only string or not matters) and js-yaml's duplicate-key error."""


_Loader.yaml_implicit_resolvers = {}
_Loader.add_implicit_resolver("tag:yaml.org,2002:merge", re.compile(r"^<<$"), ["<"])
_Loader.add_implicit_resolver("!gemini-plain", re.compile(r"^(?:[-+0-9.~nNtTfF].*)?$", re.S), list("-+0123456789.~nNtTfF") + [""])


def _construct_plain(loader: _Loader, node: yaml.ScalarNode) -> str | _NotString:
    value = loader.construct_scalar(node)
    kind = _plain_kind(value)
    return _NotString(kind) if kind else value


def _construct_mapping(loader: _Loader, node: yaml.MappingNode, deep: bool = False) -> dict[str, object]:
    loader.flatten_mapping(node)
    out: dict[str, object] = {}
    seen: set[str] = set()
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        # js-yaml turns keys into strings, so `1:` and `"1":` are the same key
        marker = key if isinstance(key, str) else str(key_node.value) if isinstance(key_node, yaml.ScalarNode) \
            else repr(key)
        if marker in seen:
            raise yaml.constructor.ConstructorError(None, None, "duplicated mapping key", key_node.start_mark)
        seen.add(marker)
        out[marker] = loader.construct_object(value_node, deep=True)
    return out


_Loader.add_constructor("!gemini-plain", _construct_plain)
_Loader.add_constructor("tag:yaml.org,2002:map", _construct_mapping)
def _explicit(kind: str) -> Callable[[_Loader, yaml.Node], _NotString]:
    return lambda loader, node: _NotString(kind)


for _kind in ("int", "float", "bool", "null", "timestamp"):  # explicit `!!int` and friends
    _Loader.add_constructor(f"tag:yaml.org,2002:{_kind}", _explicit(_kind))


def _load_yaml(block: str) -> object:
    """The block's value as js-yaml types it, or the exception that stopped the load (a value, so the caller can
    say why the line reader took over)."""
    try:
        # The regex leaves the block's last line break out; js-yaml still ends a `|`/`>` scalar with one, PyYAML
        # only when the text has it.
        return yaml.load(block + "\n", Loader=_Loader)
    except (yaml.YAMLError, RecursionError, ValueError, OverflowError, TypeError) as exc:
        return exc.with_traceback(None)  # a traceback kept would hold the callers' frames alive in a cycle


# ---------------------------------------------------------------- the line reader (parseSimpleFrontmatter)
def line_reader(block: str) -> tuple[str | None, str | None]:
    lines = _LINE_SPLIT.split(block)
    name = description = None
    i = 0
    while i < len(lines):
        line = lines[i]
        m = _NAME_LINE.match(line)
        if m:
            name = js_trim(m.group(1))
            i += 1
            continue
        m = _DESC_LINE.match(line)
        if m:
            parts = [js_trim(m.group(1))]
            while i + 1 < len(lines) and _CONTINUATION.match(lines[i + 1]):
                parts.append(js_trim(lines[i + 1]))
                i += 1
            description = " ".join(p for p in parts if p)
        i += 1
    return name, description


def sanitize_name(name: str) -> str:
    return _UNSAFE_NAME.sub("-", name)


def parse(text: str) -> GeminiFrontmatter:
    """loadSkillFromFile on a file's text (already decoded as Node decodes UTF-8)."""
    m = FRONTMATTER_RE.match(text)
    if not m:
        return GeminiFrontmatter(problem="gemini-frontmatter-missing", body=text)
    block = m.group(1)
    body = js_trim(m.group(2) or "")
    out = GeminiFrontmatter(body=body, block=block)
    parsed = _load_yaml(block)
    name = description = None
    if isinstance(parsed, dict) and isinstance(parsed.get("name"), str) and isinstance(parsed.get("description"), str):
        name, description = parsed["name"], parsed["description"]
        out.via = "yaml"
    else:
        out.yaml_error = _why_not_yaml(parsed)
        name, description = line_reader(block)
        out.via = "lines"
    if name is None:
        out.problem = "gemini-name-missing"
        return out
    if description is None:
        out.problem = "gemini-description-missing"
        return out
    out.raw_name, out.name, out.description = name, sanitize_name(name), description
    return out


def _why_not_yaml(parsed: object) -> str:
    if isinstance(parsed, Exception):
        first = str(parsed).splitlines()
        return f"YAML error: {first[0] if first else parsed.__class__.__name__}"
    if not isinstance(parsed, dict):
        return "the block is not a YAML mapping"
    bad = []
    for key in ("name", "description"):
        value = parsed.get(key)
        if key not in parsed:
            bad.append(f"no top-level {key}")
        elif not isinstance(value, str):
            kind = value.kind if isinstance(value, _NotString) else "list" if isinstance(value, list) else \
                "map" if isinstance(value, dict) else type(value).__name__
            bad.append(f"{key} is a {kind}, not a string")
    return "; ".join(bad) or "not usable"


def prompt_collapse(text: str) -> str:
    """Gemini CLI turns every run of 3+ newlines of the whole system prompt into 2."""
    return re.sub(r"\n{3,}", "\n\n", text)

