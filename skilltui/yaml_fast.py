"""A fast reader for the YAML most frontmatter is written in, returning exactly what the full parser would, or None.

Constructing values with PyYAML's Python constructor is most of discovery's time. This reads the common shapes with
string methods: top-level `key: scalar` (plain; double-quoted on one line, with no escape but backslash-quote and
backslash-backslash; single-quoted),
`key: [plain, plain]`, `key:` followed by a block list or a one-level map of such scalars, and `>`/`|`/`>-`/`|-`
block scalars with uniform indentation; full-line comments and blank lines outside block scalars. Anything else
returns None and the caller uses the full parser. tests/test_frontmatter.py checks agreement on generated documents.

One error is common enough in real files (an unquoted `: ` inside a one-line description, ~3% of the corpus) that
reading it here spares importing PyYAML at all: with `known_errors`, such a line raises KnownError with the parser's
own message and line (tests/test_fast_paths.py checks both against the full parser).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any

_BAD_FIRST = frozenset("-?:,[]{}#&*!|>'\"%@` ")  # a plain scalar cannot start with these (conservative)
_FLOW_BAD = frozenset(":#,[]{}&*!|>'\"%@`?")
_BLOCK_HDR = {">": (" ", "\n"), "|": ("\n", "\n"), ">-": (" ", ""), "|-": ("\n", "")}
_RESERVED_KEYS = frozenset(["null", "Null", "NULL", "true", "True", "TRUE", "false", "False", "FALSE"])  # keys YAML reads as null/bool
_MAYBE_TYPED = frozenset("~nNtTfF-+.0123456789")  # first characters of null, bool, int and float scalars
_NO = object()
# libyaml's words for a `: ` inside a plain scalar in block context (the value of `key: a: b`).
MAPPING_VALUE_ERROR = "mapping values are not allowed in this context"


class KnownError(ValueError):
    """An error the full parser raises for this document, read without it: its message and 0-based line."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.line = line


@functools.lru_cache(maxsize=4096)  # a few keys (name, description, ...) make up nearly every line of every file
def _key(k: str) -> str | None:
    """`k` when it is a key this reads, else None. The first copy of each key is the one returned, so that every
    mapping holds that one string (thousands of files, three keys each: less memory, and a lookup by a literal key
    is an identity check)."""
    ok = bool(k) and k.isascii() and k[0] != "-" and not k[0].isdigit() and k.replace("-", "_").isidentifier() \
        and k not in _RESERVED_KEYS
    return k if ok else None


# A double-quoted scalar whose only escapes are \" and \\ (the others, \n \x41 \u00e9 …, are left to the parser).
_DQ = re.compile(r'"((?:[^"\\\n]++|\\["\\])*+)"')
_DQ_ESCAPE = re.compile(r'\\(["\\])')


def _unescape(inner: str) -> str:
    return _DQ_ESCAPE.sub(r"\1", inner) if "\\" in inner else inner


def _scalar(v: str, plain: Callable[[str], Any]) -> Any:
    """A one-line scalar value (already stripped of spaces), or _NO when it needs the full parser."""
    c = v[0]
    if c == '"':
        m = _DQ.fullmatch(v)
        return _unescape(m.group(1)) if m else _NO
    if c == "'":
        inner = v[1:-1]
        if len(v) >= 2 and v[-1] == "'" and "'" not in inner.replace("''", ""):
            return inner.replace("''", "'")
        return _NO
    if c == "[":
        if v[-1] != "]":
            return _NO
        inner = v[1:-1].strip(" ")
        if not inner:
            return []
        items = [i.strip(" ") for i in inner.split(",")]
        for i in items:
            if not i or i[0] in _BAD_FIRST or i[0] in "-." or not _FLOW_BAD.isdisjoint(i):
                return _NO
        return [plain(i) if i[0] in _MAYBE_TYPED else i for i in items]
    if c in _BAD_FIRST or ": " in v or " #" in v or v[-1] == ":":
        return _NO
    return plain(v) if c in _MAYBE_TYPED else v


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _skip_blank(lines: list[str], i: int) -> int:
    """The index of the first line from `i` that is neither blank nor a comment (len(lines) when none is)."""
    while i < len(lines) and lines[i].lstrip(" ")[:1] in ("", "#"):
        i += 1
    return i


def _mapping_value_in_plain(v: str) -> bool:
    """`v`, a top-level value, is a plain scalar that a `: ` ends before any comment: the scanner stops there."""
    at = v.find(": ")
    return at > 0 and v[0] not in _BAD_FIRST and " #" not in v[:at]


def simple_mapping(text: str, plain: Callable[[str], Any], known_errors: bool = False) -> dict[str, Any] | None:
    """The document as a dict when it is in the subset this reads; None otherwise. `plain` types a plain scalar.
    `known_errors`: a document whose first problem is one this reads raises KnownError instead of returning None."""
    if not text.replace("\n", "").isprintable():  # tabs, controls, U+2028...: the full parser decides
        return None
    lines = text.split("\n")
    out: dict[str, Any] = {}
    i, n = 0, len(lines)
    while i < n:
        line = lines[i]
        i += 1
        if not line or line[0] == "#":
            continue
        if line[0] == " ":
            if line.lstrip(" ")[:1] in ("", "#"):
                continue
            return None  # an indented line where a key should be
        written, sep, rest = line.partition(":")
        key = _key(written)
        if not sep or key is None or key in out:
            return None
        v = rest.strip(" ")
        if v:
            if rest[0] != " ":
                return None
            hdr = _BLOCK_HDR.get(v)
            if hdr is None:
                val = _scalar(v, plain)
                if val is _NO:
                    if known_errors and _mapping_value_in_plain(v):  # every line before it was read: it is the first
                        raise KnownError(MAPPING_VALUE_ERROR, i - 1)
                    return None
                out[key] = val
                continue
            body, indent = [], 0  # block scalar: uniform indentation, no blank, deeper or trailing-space lines
            while i < n and lines[i].strip(" "):
                ln = lines[i]
                k = _indent(ln)
                if k == 0:
                    break
                if (indent and k != indent) or ln[-1] == " ":
                    return None
                indent = k
                body.append(ln[k:])
                i += 1
            j = i
            while j < n and not lines[j].strip(" "):
                if lines[j]:  # a whitespace-only line: its spaces may be content
                    return None
                j += 1
            if not body or (j < n and lines[j][0] == " "):
                return None
            sep_, tail = hdr
            out[key] = sep_.join(body) + (tail if i < n else "")  # no line break after the last line: none kept
            continue
        # `key:` alone: a block list, a one-level map, or null
        j = _skip_blank(lines, i)
        if j >= n or lines[j][0] not in " -":
            out[key] = None
            continue
        first = lines[j]
        indent = _indent(first)
        if first.startswith("- ", indent):  # block list of scalars
            items = []
            while (i := _skip_blank(lines, i)) < n:
                ln = lines[i]
                st = ln.lstrip(" ")
                k = len(ln) - len(st)
                if k < indent or (k == indent == 0 and not st.startswith("- ")):
                    break
                if k != indent or not st.startswith("- "):
                    return None
                item = st[2:].strip(" ")
                val = _scalar(item, plain) if item else _NO
                if val is _NO:
                    return None
                items.append(val)
                i += 1
            out[key] = items
            continue
        if indent == 0:
            return None
        sub: dict[str, Any] = {}
        while (i := _skip_blank(lines, i)) < n:
            ln = lines[i]
            st = ln.lstrip(" ")
            k = len(ln) - len(st)
            if k == 0:
                break
            if k != indent:
                return None
            written, sep, srest = st.partition(":")
            sk, sv = _key(written), srest.strip(" ")
            if not sep or not sv or srest[0] != " " or sk is None or sk in sub or sv in _BLOCK_HDR:
                return None
            val = _scalar(sv, plain)
            if val is _NO:
                return None
            sub[sk] = val
            i += 1
        out[key] = sub
    return out or None
