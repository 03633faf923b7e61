"""A fast reader for the YAML most frontmatter is written in, returning exactly what the full parser would, or None.

Constructing values with PyYAML's Python constructor is most of discovery's time. This reads the common shapes
directly: top-level `key: scalar` (plain, single- or double-quoted), `key: [a, b]` flow lists of plain words, `key:`
followed by an indented block list or a one-level map of such scalars, and `|`/`>` block scalars. Anything else —
comments, anchors, tags, continuation lines, unusual escapes, duplicate keys — returns None and the caller uses the
full parser. tests/test_frontmatter.py checks agreement with the full parser on generated documents.
"""

from __future__ import annotations

import re
from typing import Any, Callable

_KEY = r"[A-Za-z_][A-Za-z0-9_-]*"
_LINE = re.compile(rf"({_KEY}):(?: +(.*?))? *")
_NESTED_KEY = re.compile(rf"( +)({_KEY}):(?: +(.*?))? *")
_ITEM = re.compile(r"( *)- +(.*?) *")
_PLAIN_START = re.compile(r"[^\s\-?:,\[\]{}#&*!|>'\"%@`]")
_FLOW_ITEM = re.compile(r"[^\s\-?:,\[\]{}#&*!|>'\"%@`][^,\[\]{}#:]*")
_BLOCK_HEADER = re.compile(r"([|>])([-+]?)")
_CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f\ufeff]")
_DQ_ESCAPES = {"\\": "\\", '"': '"', "n": "\n", "t": "\t", "/": "/"}


def _plain(value: str) -> bool:
    return (bool(_PLAIN_START.match(value)) and ": " not in value and " #" not in value and not value.endswith(":")
            and "\t" not in value)


def _quoted(value: str) -> str | None:
    """A one-line quoted scalar's text, or None when it is not one we read."""
    if len(value) < 2 or value[0] != value[-1] or value[0] not in "'\"":
        return None
    inner = value[1:-1]
    if value[0] == "'":
        return inner.replace("''", "'") if "'" not in inner.replace("''", "") else None
    out, i = [], 0
    while i < len(inner):
        ch = inner[i]
        if ch == '"':
            return None
        if ch == "\\":
            nxt = inner[i + 1 : i + 2]
            if nxt not in _DQ_ESCAPES:
                return None
            out.append(_DQ_ESCAPES[nxt])
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def _scalar(value: str, plain: Callable[[str], Any]) -> tuple[bool, Any]:
    if value.startswith(("'", '"')):
        text = _quoted(value)
        return text is not None, text
    if _plain(value):
        return True, plain(value)
    return False, None


def _flow_list(value: str, plain: Callable[[str], Any]) -> tuple[bool, Any]:
    inner = value[1:-1].strip()
    if not inner:
        return True, []
    items = [p.strip() for p in inner.split(",")]
    if not all(_FLOW_ITEM.fullmatch(p) for p in items):
        return False, None
    return True, [plain(p) for p in items]


def _block_scalar(style: str, chomp: str, lines: list[str], broken: bool) -> str | None:
    """Literal or folded text of an indented block (lines as written, blank ones included)."""
    content = [ln for ln in lines if ln.strip()]
    if not content:
        return None
    indent = len(content[0]) - len(content[0].lstrip(" "))
    if indent == 0 or any(len(ln) - len(ln.lstrip(" ")) != indent for ln in content):
        return None  # more-indented lines fold differently; leave them to the full parser
    if any(ln.strip() == "" and ln != "" and len(ln) > indent for ln in lines):
        return None  # blank lines holding spaces past the indent carry content
    body = [ln[indent:] if ln.strip() else "" for ln in lines]
    while body and body[-1] == "":
        body.pop()
    trailing = len(lines) - len(body)
    if style == "|":
        text = "\n".join(body)
    else:
        parts, blank_run = [], 0
        for ln in body:
            if ln == "":
                blank_run += 1
                continue
            if parts:
                parts.append("\n" * blank_run if blank_run else " ")
            parts.append(ln)
            blank_run = 0
        text = "".join(parts)
    if chomp == "-" or (not broken and trailing == 0):  # no line break after the last line: nothing to keep
        return text
    if chomp == "+":
        return text + "\n" * (1 + trailing)
    return text + "\n"


def simple_mapping(text: str, plain: Callable[[str], Any]) -> dict[str, Any] | None:
    """The document as a dict when it is in the subset this reads; None otherwise. `plain` types a plain scalar."""
    if _CONTROL.search(text) or (not text.isascii() and not all(ln.isprintable() for ln in text.split("\n"))):
        return None
    lines = text.split("\n")
    final_break = bool(lines) and lines[-1] == ""
    if final_break:
        lines.pop()  # the newline that ends the last line
    out: dict[str, Any] = {}
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line.strip():
            continue
        m = _LINE.fullmatch(line)
        if m is None or m.group(1) in out:
            return None
        key, value = m.group(1), m.group(2)
        if not isinstance(plain(key), str):
            return None  # `true:` or `null:` is not a string key
        block = []
        while i < len(lines) and (not lines[i].strip() or lines[i].startswith(" ") or lines[i].startswith("- ")):
            block.append(lines[i])
            i += 1
        if value:
            header = _BLOCK_HEADER.fullmatch(value)
            if header:
                result = _block_scalar(header.group(1), header.group(2), block, i < len(lines) or final_break)
                if result is None:
                    return None
                out[key] = result
                continue
            if any(b.strip() for b in block):
                return None  # a continuation line of a plain or quoted scalar
            if value.startswith("[") and value.endswith("]"):
                ok, result = _flow_list(value, plain)
            else:
                ok, result = _scalar(value, plain)
            if not ok:
                return None
            out[key] = result
            continue
        content = [b for b in block if b.strip()]
        if not content:
            out[key] = None
            continue
        result = _nested(content, plain)
        if result is None:
            return None
        out[key] = result
    return out or None


def _nested(content: list[str], plain) -> list | dict | None:
    if all(_ITEM.fullmatch(b) for b in content):
        indents = {_ITEM.fullmatch(b).group(1) for b in content}
        if len(indents) != 1:
            return None
        items = []
        for b in content:
            ok, v = _scalar(_ITEM.fullmatch(b).group(2), plain)
            if not ok:
                return None
            items.append(v)
        return items
    mapping: dict[str, Any] = {}
    indent = None
    for b in content:
        m = _NESTED_KEY.fullmatch(b)
        if m is None or m.group(2) in mapping or (indent is not None and m.group(1) != indent) or not m.group(3):
            return None
        indent = m.group(1)
        ok, v = _scalar(m.group(3), plain)
        if not ok or m.group(3).startswith("["):
            return None
        mapping[m.group(2)] = v
    return mapping
