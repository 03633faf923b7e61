"""oh-my-pi text rules: JavaScript string semantics, the lenient frontmatter parser (spec/omp.md §6), Bun globs (§5.1),
the 18.3.4 description preview (§7) and the skill ordering (§3, §4.7).

omp is TypeScript on Bun, so everything here mirrors JavaScript: `String.prototype.trim`, `\\s`, UTF-16 lengths and
code-unit string comparison, truthiness. Pure functions only; nothing here touches the file system.
"""

from __future__ import annotations

import json
import math
import re
from typing import Literal

from skilltui.frontmatter import YamlError, load_yaml12
from skilltui.model import Frontmatter

# ---------------------------------------------------------------- JavaScript string semantics
# ECMAScript WhiteSpace + LineTerminator: what `\s` and `trim()` treat as space.
JS_WS = "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_JS_WS_CLASS = "[" + re.escape(JS_WS) + "]"
_JS_WS_RUN = re.compile(_JS_WS_CLASS + "+")


def js_trim(s: str) -> str:
    return s.strip(JS_WS)


def js_trim_end(s: str) -> str:
    return s.rstrip(JS_WS)


def js_truthy(value: object) -> bool:
    """JavaScript truthiness of a value parsed from YAML/JSON."""
    if value is None or value is False:
        return False
    if isinstance(value, bool):
        return True
    if isinstance(value, (int, float)):
        return not (value == 0 or (isinstance(value, float) and math.isnan(value)))
    if isinstance(value, str):
        return value != ""
    return True  # arrays and objects, even empty ones


def js_string_key(key: object) -> str:
    """`String(key)` for a YAML mapping key (JavaScript object keys are strings)."""
    if isinstance(key, str):
        return key
    if key is True:
        return "true"
    if key is False:
        return "false"
    if key is None:
        return "null"
    if isinstance(key, float):
        if math.isnan(key):
            return "NaN"
        if math.isinf(key):
            return "Infinity" if key > 0 else "-Infinity"
        if key == int(key) and abs(key) < 1e21:
            return str(int(key))
        return repr(key)
    return str(key)


def utf16_units(s: str) -> bytes:
    return s.encode("utf-16-be", "surrogatepass")


def js_length(s: str) -> int:
    return len(utf16_units(s)) // 2


def js_slice(s: str, start: int, end: int | None = None) -> str:
    """`s.slice(start, end)` counted in UTF-16 code units (a cut inside a surrogate pair keeps the half, as JS does)."""
    units = utf16_units(s)
    n = len(units) // 2
    if end is None or end > n:
        end = n
    if end < 0:
        end = max(0, n + end)
    if start < 0:
        start = max(0, n + start)
    if start >= end:
        return ""
    return units[start * 2 : end * 2].decode("utf-16-be", "surrogatepass")


def js_sort_key(name: str, path: str) -> tuple[bytes, bytes, bytes]:
    """omp's compareSkillOrder: lower-cased name, then name, then path, compared as UTF-16 code units."""
    return (utf16_units(name.lower()), utf16_units(name), utf16_units(path))


# ---------------------------------------------------------------- frontmatter (spec/omp.md §6)
_HTML_COMMENT = re.compile(r"<!--[\s\S]*?-->")
_NEWLINES = re.compile(r"\r\n?")
_PLAIN_SCALAR_KEY_VALUE = re.compile(
    r"^(" + _JS_WS_CLASS + r"*[A-Za-z_][A-Za-z0-9_-]*:" + _JS_WS_CLASS + r"+)(\S.*?)(" + _JS_WS_CLASS + r"*)$",
    re.DOTALL,
)
_FLOW_OR_EXPLICIT_START = set("\"'[{|>!&*#")
_FALLBACK_LINE = re.compile(r"^([A-Za-z0-9_-]+):" + _JS_WS_CLASS + r"*([^\n\r\u2028\u2029]*)$")
_KEBAB = re.compile(r"-([a-z])")
MAX_FALLBACK_PARSES = 2_000


def kebab_to_camel(key: str) -> str:
    if "-" not in key:
        return key
    return _KEBAB.sub(lambda m: m.group(1).upper(), key)


def normalize_mapping(value: dict[object, object]) -> dict[str, object]:
    """Mapping keys made strings, kebab-case keys camelCase, all the way down (omp's normalizeFrontmatterKeys)."""
    out: dict[str, object] = {}
    for key, item in value.items():
        skey = js_string_key(key)
        out[kebab_to_camel(skey)] = normalize_keys(item)
    return out


def normalize_keys(value: object) -> object:
    """`normalize_mapping` for any parsed value: mappings inside lists are normalised too."""
    if isinstance(value, dict):
        return normalize_mapping(value)
    if isinstance(value, list):
        return [normalize_keys(item) for item in value]
    return value


def _json_stringify(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


def quote_ambiguous_plain_scalars(metadata: str) -> str | None:
    changed = False
    lines = []
    for line in metadata.split("\n"):
        m = _PLAIN_SCALAR_KEY_VALUE.match(line)
        if m:
            prefix, raw_value, suffix = m.group(1), m.group(2), m.group(3)
            value = js_trim_end(raw_value)
            if ": " in value and value[0] not in _FLOW_OR_EXPLICIT_START:
                changed = True
                line = f"{prefix}{_json_stringify(value)}{suffix}"
        lines.append(line)
    return "\n".join(lines) if changed else None


def _load_bun(text: str) -> object:
    """load_yaml12 as Bun parses: a tag it does not know (`!tag value`) is dropped and the value kept (oracle,
    2026-12-03: `description: !tag value` lists as "value"; tests/fixtures/omp/local-tag)."""
    return load_yaml12(text, keep_unknown_tags=True)


def _parse_record(metadata: str) -> tuple[dict[object, object] | None, bool]:
    """Bun `YAML.parse` of the block with tabs widened. Returns (mapping or None, was_non_mapping). Raises YamlError."""
    text = metadata.replace("\t", "  ")
    if not text.endswith("\n"):
        # Bun keeps a block scalar's final line break at the end of input (a folded `>` description keeps its "\n").
        text += "\n"
    loaded = _load_bun(text)
    if loaded is None:
        return None, False
    if not isinstance(loaded, dict):
        return None, True
    return loaded, False


def _fallback_value(raw: str) -> object:
    if not raw:
        return raw
    try:
        parsed = _load_bun(raw)
    except YamlError:
        return raw
    if parsed is None:
        return raw
    if isinstance(parsed, (list, bool, int, float, str)):
        return parsed
    return raw


def parse_omp_frontmatter(text: str) -> Frontmatter:
    """Split and parse a SKILL.md the way omp's `parseFrontmatter` does (repair on, keys normalised)."""
    if text.startswith("\ufeff"):  # Bun's `.text()` drops a UTF-8 byte order mark
        text = text[1:]
    normalized = _HTML_COMMENT.sub("", _NEWLINES.sub("\n", text))
    if not normalized.startswith("---"):
        return Frontmatter(data={}, body=normalized)
    end = normalized.find("\n---", 3)
    if end == -1:
        return Frontmatter(data={}, body=normalized)
    metadata = normalized[4:end] if end >= 4 else ""
    body = js_trim(normalized[end + 4 :])
    fm = Frontmatter(
        data={},
        body=body,
        present=True,
        raw=metadata,
        body_line=normalized.count("\n", 0, end + 4) + 1,
    )
    try:
        loaded, non_mapping = _parse_record(metadata)
        fm.status = "not-mapping" if non_mapping else "ok"
        fm.data = normalize_mapping(loaded or {})
        return fm
    except YamlError as first:
        fm.error = str(first)
        fm.error_line = first.line + 2 if first.line is not None else 2
    quoted = quote_ambiguous_plain_scalars(metadata)
    if quoted is not None:
        try:
            loaded, non_mapping = _parse_record(quoted)
            fm.status = "not-mapping" if non_mapping else "retried"
            fm.data = normalize_mapping(loaded or {})
            return fm
        except YamlError:
            pass
    # The simple `key: value` fallback: each value re-parsed on its own, raw text when that fails.
    data: dict[object, object] = {}
    parsed = 0
    for line in metadata.split("\n"):
        m = _FALLBACK_LINE.match(line)
        if not m:
            continue
        raw = js_trim(m.group(2))
        parsed += 1
        # Each value is YAML-parsed on its own; past a few thousand lines (an absurd block) values stay raw text.
        data[m.group(1)] = _fallback_value(raw) if parsed <= MAX_FALLBACK_PARSES else raw
    fm.status = "invalid"
    fm.data = normalize_mapping(data)
    return fm


# ---------------------------------------------------------------- Bun globs (spec/omp.md §5.1)
# Tokens are tagged tuples (mypy narrows them on the tag; the matcher's inner loop stays cheap).
_Lit = tuple[Literal["lit"], str]
_AnyChar = tuple[Literal["any"]]  # `?`
_Star = tuple[Literal["star"]]
_Globstar = tuple[Literal["globstar"]]
_Class = tuple[Literal["class"], tuple[tuple[str, str], ...], bool]  # (ranges, negated)
_Alt = tuple[Literal["alt"], "list[list[_Token]]"]  # `{a,b}`: one token list per alternative
_FlatToken = _Lit | _AnyChar | _Star | _Globstar | _Class  # after brace expansion
_Token = _FlatToken | _Alt
MAX_BRACE_EXPANSION = 10_000
MAX_GLOB_NESTING = 64


def _class_end(pattern: str, i: int) -> int:
    """Index of the `]` closing the class opened at `i`, or -1."""
    n = len(pattern)
    j = i + 1
    if j < n and pattern[j] in "!^":
        j += 1
    if j < n and pattern[j] == "]":
        j += 1
    while j < n and pattern[j] != "]":
        j += 1
    return j if j < n else -1


def _brace_pairs(pattern: str) -> dict[int, int]:
    """Matching `{`…`}` pairs (escapes and classes respected); an unmatched brace is a literal character."""
    pairs: dict[int, int] = {}
    stack: list[int] = []
    i, n = 0, len(pattern)
    while i < n:
        ch = pattern[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "[":
            end = _class_end(pattern, i)
            if end >= 0:
                i = end + 1
                continue
        elif ch == "{":
            stack.append(i)
        elif ch == "}" and stack:
            pairs[stack.pop()] = i
        i += 1
    return pairs


def _glob_tokens(pattern: str, i: int, end: int, pairs: dict[int, int], depth: int) -> tuple[list[_Token], int]:
    """Tokens of pattern[i:end]; inside braces (`depth` > 0) an unnested `,` ends an alternative."""
    if depth > MAX_GLOB_NESTING:
        raise OverflowError
    tokens: list[_Token] = []
    while i < end:
        ch = pattern[i]
        if depth and ch == ",":
            return tokens, i
        if ch == "\\" and i + 1 < end:
            tokens.append(("lit", pattern[i + 1]))
            i += 2
        elif ch == "*":
            if pattern.startswith("**", i):
                while i < end and pattern[i] == "*":
                    i += 1
                tokens.append(("globstar",))
            else:
                tokens.append(("star",))
                i += 1
        elif ch == "?":
            tokens.append(("any",))
            i += 1
        elif ch == "[" and 0 <= _class_end(pattern, i) < end:
            j = _class_end(pattern, i)
            start = i + 1
            negated = pattern[start] in "!^"
            if negated:
                start += 1
            members = pattern[start:j]
            ranges: list[tuple[str, str]] = []
            k = 0
            while k < len(members):
                if k + 2 < len(members) and members[k + 1] == "-":
                    ranges.append((members[k], members[k + 2]))
                    k += 3
                else:
                    ranges.append((members[k], members[k]))
                    k += 1
            tokens.append(("class", tuple(ranges), negated))
            i = j + 1
        elif ch == "{" and i in pairs:
            close = pairs[i]
            alternatives: list[list[_Token]] = []
            j = i + 1
            while True:
                alt, j = _glob_tokens(pattern, j, close, pairs, depth + 1)
                alternatives.append(alt)
                if j >= close:
                    break
                j += 1  # past ","
            tokens.append(("alt", alternatives))
            i = close + 1
        else:
            tokens.append(("lit", ch))
            i += 1
    return tokens, i


def _expand(tokens: list[_Token], budget: list[int]) -> list[list[_FlatToken]]:
    """Brace alternatives expanded into flat token sequences (bounded; beyond the bound nothing matches)."""
    results: list[list[_FlatToken]] = [[]]
    for tok in tokens:
        if tok[0] == "alt":
            options: list[list[_FlatToken]] = []
            for alt in tok[1]:
                options.extend(_expand(alt, budget))
            results = [r + o for r in results for o in options]
            budget[0] -= len(results)
            if budget[0] < 0 or len(results) > MAX_BRACE_EXPANSION:
                raise OverflowError
        else:
            for r in results:
                r.append(tok)
    return results


def _class_match(tok: _Class, ch: str) -> bool:
    hit = any(lo <= ch <= hi for lo, hi in tok[1])
    return hit != tok[2]


def _match_flat(tokens: list[_FlatToken], name: str) -> bool:
    """NFA simulation: linear in len(name) × len(tokens), no backtracking."""
    m = len(tokens)

    def closure(states: set[int]) -> set[int]:
        out = set(states)
        stack = list(states)
        while stack:
            i = stack.pop()
            if i < m and tokens[i][0] in ("star", "globstar") and i + 1 not in out:
                out.add(i + 1)
                stack.append(i + 1)
        return out

    literal = [tok[1] for tok in tokens if tok[0] == "lit"]
    if len(literal) == m:
        return name == "".join(literal)
    states = closure({0})
    for pos, ch in enumerate(name):
        if len(states) == 2 and m in states and m - 1 in states:  # only a trailing star is left to match
            last = tokens[m - 1][0]
            if last == "globstar":
                return True
            if last == "star":
                return "/" not in name[pos:]
        nxt: set[int] = set()
        for i in states:
            if i >= m:
                continue
            tok = tokens[i]
            if tok[0] == "lit":
                if tok[1] == ch:
                    nxt.add(i + 1)
            elif tok[0] == "any":
                if ch != "/":
                    nxt.add(i + 1)
            elif tok[0] == "class":
                if ch != "/" and _class_match(tok, ch):
                    nxt.add(i + 1)
            elif tok[0] == "star":
                if ch != "/":
                    nxt.add(i)
            elif tok[0] == "globstar":
                nxt.add(i)
        if not nxt:
            return False
        states = closure(nxt)
    return m in states


_GLOB_CACHE: dict[str, tuple[list[list[_FlatToken]] | None, bool]] = {}


def compile_glob(pattern: str) -> tuple[list[list[_FlatToken]] | None, bool]:
    cached = _GLOB_CACHE.get(pattern)
    if cached is not None:
        return cached
    negate = False
    body = pattern
    while body.startswith("!"):
        negate = not negate
        body = body[1:]
    try:
        tokens, _ = _glob_tokens(body, 0, len(body), _brace_pairs(body), 0)
        flat: list[list[_FlatToken]] | None = _expand(tokens, [MAX_BRACE_EXPANSION])
    except (OverflowError, RecursionError):
        flat = None  # an absurd pattern matches nothing
    _GLOB_CACHE[pattern] = (flat, negate)
    return flat, negate


def glob_match(pattern: str, name: str) -> bool:
    """`new Bun.Glob(pattern).match(name)`: whole-string, case-sensitive; `*`, `?` and classes do not cross `/`."""
    flat, negate = compile_glob(pattern)
    matched = flat is not None and any(_match_flat(tokens, name) for tokens in flat)
    return matched != negate


# ---------------------------------------------------------------- descriptions in the prompt (spec/omp.md §7)
MAX_PREVIEW_CHARS = 100
_SENTENCE = re.compile(r"^[^\n\r\u2028\u2029]*?[.!?](?=" + _JS_WS_CLASS + r"|$)")


def preview_description(description: str) -> str:
    """omp 18.3.4's bounded routing hint, used until a cached model one-liner exists (`previewSkillDescription`)."""
    text = js_trim(_JS_WS_RUN.sub(" ", description))
    if js_length(text) <= MAX_PREVIEW_CHARS:
        return text
    boundary = js_slice(text, 0, MAX_PREVIEW_CHARS - 1)
    m = _SENTENCE.match(boundary)
    if m and js_length(m.group(0)) >= 40:
        return m.group(0)
    space = boundary.rfind(" ")
    word = js_trim_end(boundary[:space] if space >= 0 else js_slice(boundary, 0, -1))
    return f"{word or boundary}…"


_MANAGED_NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,63}")
_CC_CF = re.compile(r"[\x00-\x1f\x7f-\x9f\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f"
                    r"\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd"
                    r"\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f]")


def is_valid_managed_name(name: str) -> bool:
    return _MANAGED_NAME.fullmatch(name) is not None


def sanitize_managed_description(raw: str) -> str:
    text = _CC_CF.sub(" ", raw)
    text = re.sub(r"[<>`]", "", text)
    text = re.sub(r"~{2,}", "~", text)
    return js_trim(_JS_WS_RUN.sub(" ", text))
