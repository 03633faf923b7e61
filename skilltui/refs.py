"""Files a SKILL.md references: relative links and `skill://` URLs, resolved only inside the skill folder.

Nothing here opens a referenced file; callers read one only when `inside_skill_dir` is true.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from urllib.parse import unquote

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

    def to_json(self) -> dict:
        return {"link": self.link, "resolved": self.resolved, "exists": self.exists,
                "inside_skill_dir": self.inside_skill_dir, "line": self.line, "problem": self.problem}


def _inside(path: str, folder: str) -> bool:
    real_folder = os.path.realpath(folder)
    try:
        return os.path.commonpath([os.path.realpath(path), real_folder]) == real_folder
    except ValueError:
        return False


def resolve_relative(link: str, skill_dir: str) -> Ref:
    target = link[1:-1] if link.startswith("<") and link.endswith(">") else link
    target = unquote(target.split("#", 1)[0].split("?", 1)[0])
    if not target:
        return Ref(link, None, False, False, problem="empty link")
    if os.path.isabs(target) or target.startswith("~"):
        return Ref(link, None, False, False, problem="absolute paths are not followed")
    path = os.path.normpath(os.path.join(skill_dir, target))
    if not _inside(path, skill_dir):
        return Ref(link, path, False, False, problem="leaves the skill folder; not followed")
    exists = os.path.exists(path)
    return Ref(link, path, exists, True, problem=None if exists else "file not found")


_MD = None


def _markdown():
    """One CommonMark parser, made on first use: links come from the document structure, so code spans and fenced
    or indented code never yield a link."""
    global _MD
    if _MD is None:
        from markdown_it import MarkdownIt

        _MD = MarkdownIt("commonmark", {"linkify": False}).disable(["emphasis", "html_block", "html_inline"])
    return _MD


def _might_link(body: str) -> bool:
    return "](" in body or "]:" in body or "<" in body or "skill://" in body or "][" in body


def find_links(body: str, body_line: int = 1) -> list[tuple[str, int]]:
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

    env: dict = {}
    for token in md.parse(body, env):
        if token.type != "inline" or not token.children:
            continue
        line = body_line + (token.map[0] if token.map else 0)
        in_link = 0
        for child in token.children:
            if len(out) >= MAX_REFS:
                return out
            kind = child.type
            if kind in ("softbreak", "hardbreak"):
                line += 1
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


def _def_line(body: str, href: str) -> int:
    """0-based line of the body holding a reference definition's target (markdown-it keeps no line for it)."""
    pos = body.find(href)
    return body.count("\n", 0, pos) if pos >= 0 else 0


def references(body: str, skill_dir: str, body_line: int = 1, resolve_url=None) -> list[Ref]:
    """Every link of the body, resolved. `resolve_url(url) -> path` (raising ValueError) handles skill:// URLs."""
    refs = []
    for link, line in find_links(body, body_line):
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
