"""Files a SKILL.md references: relative links and `skill://` URLs, resolved only inside the skill folder.

Nothing here opens a referenced file; callers read one only when `inside_skill_dir` is true.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from skilltui.record import Record

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token


def unquote(text: str) -> str:
    """urllib.parse.unquote, imported only for a text with a `%` (without one it returns the text as it is)."""
    if "%" not in text:
        return text
    from urllib.parse import unquote as decode

    return decode(text)


_SKILL_URL = re.compile(r"skill://[^\s)\]>`'\"]+")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
MAX_REFS = 500
MAX_LISTED_FILES = 2000


@dataclass(repr=False)
class Ref(Record):
    link: str  # as written
    resolved: str | None  # absolute path, when it could be worked out
    exists: bool
    inside_skill_dir: bool
    line: int | None = None
    problem: str | None = None  # why it is broken or refused

    def to_json(self) -> dict[str, object]:
        return {"link": self.link, "resolved": self.resolved, "exists": self.exists,
                "inside_skill_dir": self.inside_skill_dir, "line": self.line, "problem": self.problem}


def _inside(path: str, folder: str, real_folder: str | None = None) -> bool:
    real_folder = real_folder or os.path.realpath(folder)
    try:
        return os.path.commonpath([os.path.realpath(path), real_folder]) == real_folder
    except ValueError:
        return False


def resolve_relative(link: str, skill_dir: str, real_dir: str | None = None, plain_dir: bool | None = None) -> Ref:
    """`plain_dir`: `_plain_dir(skill_dir)`, when the caller resolves many links of one folder."""
    target = link[1:-1] if link.startswith("<") and link.endswith(">") else link
    target = unquote(target.split("#", 1)[0].split("?", 1)[0])
    if not target:
        return Ref(link, None, False, False, problem="empty link")
    if os.path.isabs(target) or target.startswith("~"):
        return Ref(link, None, False, False, problem="absolute paths are not followed")
    norm = target if is_normal(target) else os.path.normpath(target)
    if plain_dir is None:
        plain_dir = _plain_dir(skill_dir)
    if norm.startswith("..") or norm == "." or not plain_dir:
        path = os.path.normpath(os.path.join(skill_dir, target))
        if not _inside_under(path, skill_dir, real_dir or os.path.realpath(skill_dir)):
            return Ref(link, path, False, False, problem="leaves the skill folder; not followed")
        exists = os.path.exists(path)
        return Ref(link, path, exists, True, problem=None if exists else "file not found")
    # The common case, a path that stays below the folder as written: the same answer from one lstat per part (no
    # realpath of the folder unless a part is a link), and a missing part settles that the file does not exist.
    path = under(skill_dir, norm)
    inside, known = _walk_below(skill_dir, norm.split(os.sep), real_dir)
    if not inside:
        return Ref(link, path, False, False, problem="leaves the skill folder; not followed")
    exists = os.path.exists(path) if known is None else known
    return Ref(link, path, exists, True, problem=None if exists else "file not found")


def _plain_dir(skill_dir: str) -> bool:
    """Whether the folder is absolute and normalised, as the walk below it needs."""
    if _POSIX and skill_dir.startswith("/") and is_normal(skill_dir):
        return True
    return os.path.isabs(skill_dir) and os.path.normpath(skill_dir) == skill_dir


# os.path's calls, Python functions, were a tenth of the link lens's time on a big tree: for the common shapes of a
# path (POSIX; no empty, `.` or `..` part), the same answers from string methods.
_POSIX = os.name == "posix"


def is_normal(path: str) -> bool:
    """Whether os.path.normpath(path) is `path`, when string methods can tell (False: ask normpath): no empty, `.` or
    `..` part (a hidden folder such as ~/.claude is a part like any other), no separator at the end."""
    return _POSIX and bool(path) and "//" not in path and "/./" not in path and "/../" not in path \
        and not path.endswith(("/", "/.", "/..")) and not path.startswith(("./", "../")) and path != "." \
        and path != ".."


def under(folder: str, rel: str) -> str:
    """os.path.join(folder, rel)."""
    if _POSIX and rel and folder and not rel.startswith("/") and not folder.endswith("/"):
        return folder + "/" + rel
    return os.path.join(folder, rel)


def _walk_below(folder: str, parts: list[str], real_folder: str | None) -> tuple[bool, bool | None]:
    """(inside, exists) of folder/parts: `_inside_under` walking from the folder as written (a part's lstat sees the
    same entry as from the folder's real path). exists is None when a link was followed (the caller stats then)."""
    cur, followed = folder, False
    for part in parts:
        nxt = under(cur, part)
        try:
            mode = os.lstat(nxt).st_mode
        except (OSError, ValueError):
            return True, False  # a part that cannot be looked up: nothing below it exists, and it stays inside
        if stat.S_ISLNK(mode):
            real_folder = real_folder or os.path.realpath(folder)
            real = os.path.realpath(nxt)
            if not _inside(real, real_folder, real_folder):
                return False, False
            cur, followed = real, True
        else:
            cur = nxt
    return True, None if followed else True


def _inside_under(path: str, folder: str, real_folder: str) -> bool:
    """`_inside`, with lstat calls only for the parts below the folder (realpath walks every part from the root, a
    dozen system calls per link): the same answer, since the folder itself is taken as its real path."""
    rel = os.path.relpath(path, folder)
    if rel == "." :
        return True
    if rel == ".." or rel.startswith("../") or os.path.isabs(rel):
        return False
    cur = real_folder
    for part in rel.split(os.sep):
        nxt = os.path.join(cur, part)
        try:
            mode = os.lstat(nxt).st_mode
        except (OSError, ValueError):
            return True  # the rest does not exist: it stays where the text puts it, inside
        if stat.S_ISLNK(mode):
            real = os.path.realpath(nxt)
            if not _inside(real, real_folder, real_folder):
                return False
            cur = real
        else:
            cur = nxt
    return True


_MD: MarkdownIt | None = None


def _markdown() -> MarkdownIt:
    """One CommonMark parser, made on first use: links come from the document structure, so code spans and fenced
    or indented code never yield a link."""
    global _MD
    if _MD is None:
        from markdown_it import MarkdownIt

        # Only what decides where code is and what a link is: fences, indented code, paragraphs, link reference
        # definitions; inline: code spans, escapes, links, images, autolinks, line breaks. Lists, quotes and headings
        # are read as paragraphs, which holds the same links (and costs a tenth).
        _MD = MarkdownIt("commonmark", {"linkify": False})
        _MD.disable(["list", "blockquote", "heading", "lheading", "hr", "html_block", "emphasis", "entity", "html_inline"])
    return _MD


def _might_link(body: str) -> bool:
    # a one-character search runs at memory speed (memchr); most link syntax needs a `]`
    return ("]" in body and ("](" in body or "]:" in body or "][" in body)) or "<" in body or "skill://" in body


def _has_def_mark(body: str) -> bool:
    """`"]:" in body`, found by looking after each `]` (memchr finds them, and a body has few): a two-character
    search looks at every character, and this one runs on every body with a link."""
    at = body.find("]")
    for _ in range(32):
        if at < 0:
            return False
        if body.startswith(":", at + 1):
            return True
        at = body.find("]", at + 1)
    return at >= 0 and body.find("]:", at) >= 0


def _written(md: MarkdownIt, body: str, href: str) -> str:
    """The target as the author wrote it (markdown-it percent-encodes it)."""
    if href in body:
        return href
    text = md.normalizeLinkText(href)
    return text if text in body else href


def _add(out: list[tuple[str, int]], seen: set[str], link: str, line: int) -> None:
    """A link found on a line: local ones and skill:// URLs, each once."""
    is_skill = link.startswith("skill://")
    if not link or link in seen or link.startswith("#") or (_SCHEME.match(link) and not is_skill):
        return
    seen.add(link)
    out.append((link, line))


def find_links(body: str, body_line: int = 1, reduce: bool = True, only: set[str] | None = None) -> list[tuple[str, int]]:
    """(link, 1-based file line) for every local link and image of the Markdown body, and every skill:// URL in its
    text, in order, without repeats. Links come from markdown-it's token stream, never from a pattern over lines."""
    out: list[tuple[str, int]] = []
    if not _might_link(body):  # no link syntax at all: skip the parse (most bodies of a big tree)
        return out
    seen: set[str] = set()
    md = _markdown()

    def written(href: str) -> str:
        return _written(md, body, href)

    def add(link: str, line: int) -> None:
        _add(out, seen, link, line)

    env: dict[str, Any] = {}  # markdown-it's own environment: it fills `references` with its dicts
    tokens: list[Token] = []
    text, line_of = _reduce(body) if reduce else (body, list(range(body.count("\n") + 1)))
    md.block.parse(text, md, env, tokens)  # the block structure first; inline parsing only where a link can be
    for token in tokens:
        if token.type != "inline" or not ("[" in token.content or "<" in token.content or "skill://" in token.content):
            continue
        if only is not None and not any(t in token.content for t in only):
            continue  # the caller wants only links to these targets (as written), and none is here
        token.children = []
        md.inline.parse(token.content, md, env, token.children)
        at = token.map[0] if token.map else 0
        in_link = 0
        for child in token.children:
            if len(out) >= MAX_REFS:
                return out
            kind = child.type
            line = body_line + line_of[min(at, len(line_of) - 1)]
            if kind in ("softbreak", "hardbreak"):
                at += 1
            elif kind == "link_open":
                in_link += 1
                add(written(str(child.attrs.get("href", ""))), line)
            elif kind == "link_close":
                in_link -= 1
            elif kind == "image":
                add(written(str(child.attrs.get("src", ""))), line)
            elif kind == "text" and not in_link and "skill://" in child.content:
                for url in _SKILL_URL.findall(child.content):
                    add(url, line)
    # reference definitions that no link uses are still links the author wrote
    for ref in (env.get("references") or {}).values():
        href = ref.get("href") if isinstance(ref, dict) else None
        if href and len(out) < MAX_REFS:
            text = written(href)
            add(text, body_line + _def_line(body, text))
    return out


_KEEP = re.compile(r"[`~\[\]<]|skill://")


def _reduce(body: str) -> tuple[str, list[int]]:
    """The body cut down to what decides its links, for a parse many times cheaper, and the original 0-based line of
    each remaining line. Kept whole: every line holding a character of link, code-span or fence syntax. Between two
    kept lines, the other lines only decide in which state the next kept line starts (a paragraph goes on, indented
    code goes on, or a new block after a blank line), so they are replaced by the fewest lines giving that state: a
    blank line if there was one, then, for the run of lines after the last blank, one `x` line at the run's first
    indentation plus one more, indented only if every line of the run is (such a run ends as indented code exactly
    when all of it is indented, since only blank, fence or link lines can end a paragraph here)."""
    lines = body.split("\n")
    out: list[str] = []
    line_of: list[int] = []
    blank = False  # a blank line since the last kept line (and before the current run)
    run_start = -1  # first line of the current run of other lines, -1 when none
    run_blank = False
    run_indented = True
    for i, line in enumerate(lines):
        if not line.strip(" \t"):  # markdown-it's blank line: spaces and tabs only (an em space is text)
            blank, run_start = True, -1
            continue
        if not _KEEP.search(line):
            wide = line.expandtabs(4)  # CommonMark's tab stops, for the indentation only
            indented = len(wide) - len(wide.lstrip(" ")) >= 4
            if run_start < 0:
                run_start, run_blank, run_indented = i, blank, indented
            else:
                run_indented = run_indented and indented
            continue
        if run_start >= 0:
            if run_blank:
                out.append("")
                line_of.append(run_start)
            first = lines[run_start]
            out.append(first[: len(first) - len(first.lstrip(" \t"))] + "x")
            line_of.append(run_start)
            if i - run_start > 1:
                out.append("    x" if run_indented else "x")
                line_of.append(i - 1)
        elif blank:
            out.append("")
            line_of.append(i)
        out.append(line)
        line_of.append(i)
        blank, run_start = False, -1
    return "\n".join(out), line_of


def _def_line(body: str, href: str) -> int:
    """0-based line of the body holding a reference definition's target (markdown-it keeps no line for it)."""
    pos = body.find(href)
    return body.count("\n", 0, pos) if pos >= 0 else 0


# Every place text could hold a link target, code included: `](target` of inline links and images, and the target of
# anything shaped like a reference definition. A superset of the real links, used only to prove there is nothing to
# report; what is reported always comes from the Markdown structure (find_links).
_INLINE_TARGET = re.compile(r"\]\(\s*(<[^>\n]*>|[^)\s]*)")
_DEF_TARGET = re.compile(r"^[ ]{0,3}\[[^\]]+\]:\s*(<[^>\n]*>|\S+)", re.M)


def _candidates(body: str, defs: bool | None = None) -> list[str]:
    """`defs`: whether `]:` is in the body, when the caller knows."""
    found = _INLINE_TARGET.findall(body) if "](" in body else []
    return found + _DEF_TARGET.findall(body) if ("]:" in body if defs is None else defs) else found


def broken_references(body: str, skill_dir: str, body_line: int = 1, real_dir: str | None = None,
                      fast: bool = True) -> list[Ref]:
    """Local links of the body that are broken or leave the skill folder (skill:// URLs aside). Most bodies are
    settled by the candidate scan alone: when every candidate target exists inside the folder, no real link can be
    broken, and the Markdown parse is skipped. Where one is broken, `simple_links` proves which candidates are real
    links without markdown-it when the paragraphs holding them are plain (`fast=False` always parses: tests compare)."""
    if not _might_link(body):
        return []
    resolved: dict[str, Ref] = {}
    broken: set[str] = set()
    defs = _has_def_mark(body)  # one look for both uses
    plain_dir = _plain_dir(skill_dir)  # once per body, not per target
    for target in _candidates(body, defs):
        if target and not target.startswith("#") and not _SCHEME.match(target) and target not in resolved:
            ref = resolved[target] = resolve_relative(target, skill_dir, real_dir, plain_dir)
            if not ref.exists:
                broken.add(target)
    if not broken:
        return []
    # Only paragraphs holding a broken target need their inline structure: the others cannot yield a finding.
    found = _simple_links(body, body_line, broken, defs) if fast else None
    if found is None:
        found = find_links(body, body_line, only=broken)
    out = []
    for link, line in found:
        if link.startswith("skill://"):
            continue
        known = resolved.get(link)
        if known is not None:  # a copy: one target may be linked on several lines
            ref = Ref(known.link, known.resolved, known.exists, known.inside_skill_dir, line, known.problem)
        else:
            ref = resolve_relative(link, skill_dir, real_dir, plain_dir)
            ref.line = line
        if not ref.exists:
            out.append(ref)
    return out


# A link or image whose structure needs no parser: text without brackets and a destination without spaces, brackets,
# escapes, entities or control characters, on one line. An image's `!` is left out of the match: it is on the link's
# line and is no syntax `_NOT_SIMPLE` looks for, and a pattern that starts with `!?` has no first character for the
# regex engine to skip to (it tried a match at every position: 12x slower over a body).
_SIMPLE_LINK = re.compile(r"\[[^\[\]\n]*\]\(([^\s()<>\\&\x00-\x1f\x7f]*)\)")
_NOT_SIMPLE = re.compile(r"[`\\<\[\]]")  # left after the simple links: code spans, escapes, autolinks, other brackets
_PLAIN_DEST = re.compile(r"(?!//)[A-Za-z0-9._~/#?=+,;@!$'*-]*")  # markdown-it's normalizeLink leaves these as written


# The lines that decide the block structure of `_markdown()` (indented code, fences, paragraphs): blank, indented by 4
# columns or more (a tab within the first 4 reaches them), and fence-like (3+ backticks or tildes after <= 3 spaces).
# Every other line is ordinary: it starts or continues a paragraph, or is the content of a fence. Each is matched
# with the newline before it (a literal first: the regex engine skips to it at C speed).
_BLOCK_LINE = re.compile(r"\n(?:[ \t]*(?=\n|\Z)|( {0,3}\t| {4})|( {0,3})(`{3,}|~{3,})([^\n]*))")
_NONE, _PARA, _CODE, _FENCED = range(4)


def _paragraphs(body: str, last: int | None = None) -> list[tuple[int, int, int, int]]:
    """(first line, end line, start offset, end offset) of each paragraph, as the block parser of `_markdown()` finds
    them: its only block rules are indented code, fences, reference definitions (the caller makes sure there are
    none) and paragraphs. Only the lines that can change the state are visited. With `last`, the scan stops once the
    paragraph holding that line (if any) is closed."""
    out: list[tuple[int, int, int, int]] = []
    text = "\n" + body  # the first line has a newline before it too; offsets in `text` are then offsets in `body` + 1
    state, start, start_at, marker, length = _NONE, 0, 0, "", 0
    line, pos = -1, 0  # line number of the current event, and the offset counted up to
    prev, prev_at = -1, -1  # the previous event's line and offset in body
    for m in _BLOCK_LINE.finditer(text):
        at = m.start()  # the line starts at text[at + 1], that is body[at]
        line += text.count("\n", pos, at + 1)
        pos = at + 1
        if line > prev + 1 and state != _FENCED and state != _PARA:  # ordinary lines since the previous event
            state, start = _PARA, prev + 1
            start_at = body.find("\n", prev_at) + 1 if prev >= 0 else 0
        if last is not None and line > last and state != _PARA:
            return out
        prev, prev_at = line, at
        if state == _FENCED:  # a fence ends at a line of at least as many markers and spaces only, else at the end
            if m.lastindex is not None and m.lastindex >= 3 and m.group(3)[0] == marker \
                    and len(m.group(3)) >= length and not m.group(4).strip(" \t"):
                state = _NONE
        elif m.lastindex is None:  # blank: ends a paragraph; indented code goes on past it
            if state == _PARA:
                out.append((start, line, start_at, at - 1))
                state = _NONE
        elif m.lastindex == 1:  # indented: code, unless it continues a paragraph
            if state != _PARA:
                state = _CODE
        elif m.group(3)[0] == "`" and "`" in m.group(4):  # not a fence (backtick in the info string): ordinary
            if state != _PARA:
                state, start, start_at = _PARA, line, at
        else:  # a fence opens, interrupting a paragraph
            if state == _PARA:
                out.append((start, line, start_at, at - 1))
            state, marker, length = _FENCED, m.group(3)[0], len(m.group(3))
    lines = line + 1 + text.count("\n", pos)
    if prev + 1 < lines and state != _FENCED and state != _PARA:
        state, start = _PARA, prev + 1
        start_at = body.find("\n", prev_at) + 1 if prev >= 0 else 0
    if state == _PARA:
        out.append((start, lines, start_at, len(body)))
    return out


# With no indented and no whitespace-only line, a body's blocks are fences and paragraphs split by empty lines: the
# paragraph around a line is found by a few searches instead of a walk over the lines before it.
_INDENTED_OR_SPACES = re.compile(r"\n(?:[ \t]+(?=\n|\Z)| {0,3}\t| {4})")
_FENCE_LINE = re.compile(r"\n {0,3}(`{3,}|~{3,})([^\n]*)")


def _fences(text: str, until: int | None = None) -> list[tuple[int, int]]:
    """[start, end) offsets in `text` ("\n" + body) of each fence, from its opening line's newline to the end of its
    closing line (to the end when it is not closed). Indented lines need no care: a fence line is indented by at most
    3 spaces, so it never lies in indented code. With `until`, the scan stops at the first fence opening after that
    offset (given as reaching the end: only its start matters to a caller looking at offsets up to `until`)."""
    out = []
    open_at, marker, length = -1, "", 0
    for m in _FENCE_LINE.finditer(text):
        run, rest = m.group(1), m.group(2)
        if open_at < 0:
            if run[0] == "`" and "`" in rest:
                continue  # a backtick in the info string: an ordinary line
            if until is not None and m.start() > until:
                out.append((m.start(), len(text)))
                return out
            open_at, marker, length = m.start(), run[0], len(run)
        elif run[0] == marker and len(run) >= length and not rest.strip(" \t"):
            out.append((open_at, m.end()))
            open_at = -1
    if open_at >= 0:
        out.append((open_at, len(text)))
    return out


def _paragraphs_at(body: str, hits: list[int]) -> list[tuple[int, int, int, int]] | None:
    """`_paragraphs` entries of the paragraphs holding these body offsets (sorted), when none of them has an indented
    or whitespace-only line (None otherwise). Blocks are then fences and paragraphs split by empty lines: what lies
    outside these paragraphs cannot change them (an indented line elsewhere is code or a paragraph's line, and a
    whitespace-only line elsewhere ends a paragraph that is not one of these)."""
    text = "\n" + body
    fences = _fences(text, hits[-1] + 1) if ("```" in text or "~~~" in text) else []
    out: list[tuple[int, int, int, int]] = []
    counted, lines = 0, 0  # newlines of body[:counted]: paragraphs come in order, so each count goes on from the last
    for h in hits:
        t = h + 1  # the offset in text
        if out and out[-1][2] <= h < out[-1][3]:
            continue
        lo, hi = 0, len(text)  # the paragraph lies between the fences around t
        inside = False
        for a, b in fences:
            if b <= t:
                lo = b  # the end of the closing line: the newline before the next line
            elif a < t:
                inside = True
                break
            else:
                hi = a
                break
        if inside:
            continue
        blank = text.rfind("\n\n", lo, t)
        first = blank + 1 if blank >= 0 else lo  # the newline before the paragraph's first line
        blank = text.find("\n\n", t, hi)
        last = blank if blank >= 0 else hi  # the newline after its last line (or the end)
        if _INDENTED_OR_SPACES.search(text, first, last + 1):
            return None
        start_at, end_at = first, last - 1 if last < len(text) else len(body)
        if start_at < counted:
            counted, lines = 0, 0
        lines += body.count("\n", counted, start_at)
        counted = start_at
        out.append((lines, 0, start_at, end_at))
    return out


def simple_links(body: str, body_line: int = 1, only: set[str] | None = None) -> list[tuple[str, int]] | None:
    """`find_links(body, body_line, only=only)` without markdown-it, for bodies where that is provable, else None.
    Provable: no reference definitions, and every paragraph holding one of `only` (every paragraph when None) has no
    code span, escape, autolink or bracket outside simple one-line links. With `only`, every paragraph holding a
    target is read, even as plain text: it can add links, none of them a target of `only`."""
    return _simple_links(body, body_line, only, "]:" in body)


def _simple_links(body: str, body_line: int, only: set[str] | None, defs: bool) -> list[tuple[str, int]] | None:
    """`simple_links`, told whether `]:` is in the body (`defs`)."""
    if defs or "\r" in body or "\x0b" in body or "\x0c" in body:
        return None
    if only is None:
        paragraphs = _paragraphs(body)
    else:
        found: set[int] = set()
        for t in only:
            pos = body.find(t)
            while pos >= 0:
                found.add(pos)
                pos = body.find(t, pos + len(t))
        if not found:
            return []
        hits = sorted(found)
        quick = _paragraphs_at(body, hits)
        if quick is not None:
            paragraphs = quick
        else:
            paragraphs = [p for p in _paragraphs(body, body.count("\n", 0, hits[-1]))
                          if any(p[2] <= h < p[3] for h in hits)]
    out: list[tuple[str, int]] = []
    seen: set[str] = set()
    links = 0
    for start, _, start_at, end_at in paragraphs:
        first = body.find("\n", start_at, end_at)
        if not body[start_at: end_at if first < 0 else first].strip():
            return None  # markdown-it trims a leading line of (Unicode) spaces off the paragraph: lines shift
        text = body[start_at:end_at]
        if "skill://" in text or _NOT_SIMPLE.search(_SIMPLE_LINK.sub("", text)):
            return None  # skill:// URLs in text are rare: the parser says which are in a link
        # find_links stops at MAX_REFS links, all of them in these paragraphs (the only ones it parses, with no
        # reference definitions): with fewer here, it never stops early
        links += text.count("](")
        if links >= MAX_REFS:
            return None
        for m in _SIMPLE_LINK.finditer(text):
            dest = m.group(1)
            if _PLAIN_DEST.fullmatch(dest):
                link = dest
            else:
                md = _markdown()
                href = md.normalizeLink(dest)
                link = _written(md, body, href) if md.validateLink(href) else ""
            _add(out, seen, link, body_line + start + text.count("\n", 0, m.start()))
    return out


def references(body: str, skill_dir: str, body_line: int = 1, resolve_url: Callable[[str], str] | None = None,
               only: set[str] | None = None) -> list[Ref]:
    """Every link of the body, resolved. `resolve_url(url) -> path` (raising ValueError) handles skill:// URLs."""
    refs = []
    for link, line in find_links(body, body_line, only=only):
        if link.startswith("skill://"):
            if resolve_url is None:
                ref = Ref(link, None, False, False, problem="skill:// URLs are not resolved by this runtime")
            else:
                try:
                    path = resolve_url(link)
                    ref = Ref(link, path, True, True)
                except ValueError as exc:
                    ref = Ref(link, None, False, False, problem=str(exc).replace("\n", "; "))
        else:
            ref = resolve_relative(link, skill_dir)
        ref.line = line
        refs.append(ref)
    return refs


def skill_files(skill_dir: str) -> list[str]:
    """Files under the skill folder (relative paths), links not followed out, bounded for huge folders."""
    out: list[str] = []
    for dirpath, dirnames, filenames in os.walk(skill_dir):
        dirnames[:] = sorted(d for d in dirnames if not os.path.islink(os.path.join(dirpath, d)))
        for f in sorted(filenames):
            full = os.path.join(dirpath, f)
            if _inside(full, skill_dir):
                out.append(os.path.relpath(full, skill_dir))
            if len(out) >= MAX_LISTED_FILES:
                return out
    return out


class SkillUrlError(ValueError):
    pass


def resolve_skill_url(url: str, skills: dict[str, str]) -> str:
    """skill://NAME[/RELPATH] against {name: skill folder}, with oh-my-pi's checks and wording (spec/omp.md §8)."""
    rest = url[len("skill://"):] if url.startswith("skill://") else url
    name, _, rel = rest.partition("/")
    if name not in skills:
        available = ", ".join(sorted(skills)) or "none"
        raise SkillUrlError(f"Unknown skill: {name}\nAvailable: {available}")
    folder = skills[name]
    if not rel:
        return os.path.join(folder, "SKILL.md")
    rel = os.path.normpath("/" + rel)[1:] if "/../" in "/" + rel + "/" and "%" not in rel else rel  # URL parsing collapses /../
    rel = unquote(rel)
    if rel.startswith("/") or os.path.isabs(rel):
        raise SkillUrlError("Absolute paths are not allowed in skill:// URLs")
    if ".." in rel.replace("\\", "/").split("/"):
        raise SkillUrlError("Path traversal (..) is not allowed in skill:// URLs")
    path = os.path.normpath(os.path.join(folder, rel))
    if not _inside(path, folder):
        raise SkillUrlError("Path traversal is not allowed")
    if not os.path.exists(path):
        raise SkillUrlError(f"File not found: {path}")
    return path
