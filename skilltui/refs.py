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
from urllib.parse import unquote

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

_SKILL_URL = re.compile(r"skill://[^\s)\]>`'\"]+")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
MAX_REFS = 500
MAX_LISTED_FILES = 2000


@dataclass
class Ref:
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


def resolve_relative(link: str, skill_dir: str, real_dir: str | None = None) -> Ref:
    target = link[1:-1] if link.startswith("<") and link.endswith(">") else link
    target = unquote(target.split("#", 1)[0].split("?", 1)[0])
    if not target:
        return Ref(link, None, False, False, problem="empty link")
    if os.path.isabs(target) or target.startswith("~"):
        return Ref(link, None, False, False, problem="absolute paths are not followed")
    path = os.path.normpath(os.path.join(skill_dir, target))
    if not _inside_under(path, skill_dir, real_dir or os.path.realpath(skill_dir)):
        return Ref(link, path, False, False, problem="leaves the skill folder; not followed")
    exists = os.path.exists(path)
    return Ref(link, path, exists, True, problem=None if exists else "file not found")


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
    return "](" in body or "]:" in body or "<" in body or "skill://" in body or "][" in body


def find_links(body: str, body_line: int = 1, reduce: bool = True, only: set[str] | None = None) -> list[tuple[str, int]]:
    """(link, 1-based file line) for every local link and image of the Markdown body, and every skill:// URL in its
    text, in order, without repeats. Links come from markdown-it's token stream, never from a pattern over lines."""
    out: list[tuple[str, int]] = []
    if not _might_link(body):  # no link syntax at all: skip the parse (most bodies of a big tree)
        return out
    seen: set[str] = set()
    md = _markdown()

    def written(href: str) -> str:
        """The target as the author wrote it (markdown-it percent-encodes it)."""
        if href in body:
            return href
        text = md.normalizeLinkText(href)
        return text if text in body else href

    def add(link: str, line: int) -> None:
        is_skill = link.startswith("skill://")
        if not link or link in seen or link.startswith("#") or (_SCHEME.match(link) and not is_skill):
            return
        seen.add(link)
        out.append((link, line))

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
        if not line.strip():
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


def _candidates(body: str) -> list[str]:
    found = _INLINE_TARGET.findall(body) if "](" in body else []
    return found + _DEF_TARGET.findall(body) if "]:" in body else found


def broken_references(body: str, skill_dir: str, body_line: int = 1) -> list[Ref]:
    """Local links of the body that are broken or leave the skill folder (skill:// URLs aside). Most bodies are
    settled by the candidate scan alone: when every candidate target exists inside the folder, no real link can be
    broken, and the Markdown parse is skipped."""
    if not _might_link(body):
        return []
    real_dir = os.path.realpath(skill_dir)
    broken: set[str] = set()
    for target in _candidates(body):
        if target and not target.startswith("#") and not _SCHEME.match(target) and target not in broken \
                and not resolve_relative(target, skill_dir, real_dir).exists:
            broken.add(target)
    if not broken:
        return []
    # Only paragraphs holding a broken target need their inline structure: the others cannot yield a finding.
    return [r for r in references(body, skill_dir, body_line, only=broken)
            if not r.link.startswith("skill://") and not r.exists]


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
