"""What Claude Code 2.1.332 adds to the skill listing as the agent reads or edits files (spec §2.3, §5.5).

Observed with the real tool (tools/oracle_session.py; recordings in tests/fixtures/touch):
- A Read or Edit of a file inside the cwd activates every conditional skill (`paths`) with a pattern that matches the
  file's cwd-relative path. Each pattern is matched alone, gitignore-style and ignoring case (`*.MD` matches
  `lower.md`); a `!pattern` matches nothing; pieces after a comma keep their leading space; `./x` and `../x` match
  nothing. A skill is added once.
- The same touch loads every `.claude/skills` folder between the file's folder and the cwd (cwd excluded) that is not
  git-ignored (.gitignore files and .git/info/exclude), deepest first. Their skills are listed at once (`paths` is
  ignored there). A name already listed (shipped entries and activated conditional skills included) becomes `R:name`
  "scoped to R/"; a name found in more than one such folder becomes `R:name` in each, still "from R/..."; labels are
  checked again after every touch, and a relabelled entry is sent again.
- Later entries follow §7.1 like the first listing: a hidden skill or one that skillOverrides switches off is neither
  announced nor listed (nor takes its name), `name-only` gives the bare row; the label is the entry's name.
- Each newly loaded folder is announced in its own block, its skills in the folder's directory order; then one
  "The following skills are available" block holds the new and relabelled entries sorted by name, under the same
  budget rule as the first listing (§8.4), applied to that block alone.
- A file outside the cwd adds nothing (its read is denied). A Read that reaches the tool counts even when it fails: a
  file that does not exist or a folder activates what its path matches (a folder loads no `.claude/skills` below it),
  and the block of a nested folder reached by a Read that fails at once may come with the next tool result (a race in
  the tool). A Read refused before it runs adds nothing: a file with one of Claude Code's binary extensions (any case;
  images and PDFs are read). An Edit of a file that does not exist is refused too: the simulation reads every path.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Literal

import pathspec
from pathspec.patterns.gitignore.basic import GitIgnoreBasicPattern

from skilltui import fsio
from skilltui.model import CONDITIONAL, LISTED, Catalog, Diagnostic, Skill
from skilltui.record import Record
from skilltui.runtimes.claude.discovery import load_skills_root, override_of, skill_facts, skill_overrides, split_paths
from skilltui.runtimes.claude.listing import LISTING_INTRO, Listing, simulate
from skilltui.runtimes.claude.settings import of as settings_of
from skilltui.text import collate

ANNOUNCE = "New skills discovered in {folder}/.claude/skills, now available via the Skill tool:\n"
FROM_SUFFIX = " (from {folder}/.claude/skills — applies when working on files under {folder}/)"
SCOPED_SUFFIX = (' (scoped to {folder}/ — use this instead of the unscoped "{name}" skill when the files being changed'
                 " are under {folder}/)")
# What the simulation cannot observe, said wherever its answer is shown.
ASSUMED = (
    "every path is touched with the Read tool (an Edit of a file that does not exist adds nothing; a Read of it does)",
    "the order inside a 'New skills discovered' block is the folder's directory order on this machine",
)
# Read refuses these before it runs (Claude Code 2.1.332's own list, extensions compared lowercased), except the
# images and PDFs it reads; recorded in tests/fixtures/touch/binary-extensions.
BINARY_EXTENSIONS = frozenset([
    ".png", ".jpg", ".jpeg", ".gif", ".bmp", ".ico", ".webp", ".tiff", ".tif", ".heic", ".heif", ".avif", ".mp4",
    ".mov", ".avi", ".mkv", ".webm", ".wmv", ".flv", ".m4v", ".mpeg", ".mpg", ".mp3", ".wav", ".ogg", ".flac",
    ".aac", ".m4a", ".wma", ".aiff", ".opus", ".zip", ".tar", ".gz", ".bz2", ".7z", ".rar", ".xz", ".z", ".tgz",
    ".iso", ".zst", ".lz4", ".whl", ".exe", ".dll", ".so", ".dylib", ".bin", ".o", ".a", ".obj", ".lib", ".app",
    ".msi", ".deb", ".rpm", ".dmg", ".apk", ".pdf", ".doc", ".docx", ".docm", ".dotx", ".dotm", ".xls", ".xlsx",
    ".xlsm", ".xlsb", ".xltx", ".xltm", ".ppt", ".pptx", ".pptm", ".ppsx", ".ppsm", ".potx", ".potm", ".odt", ".ods",
    ".odp", ".numbers", ".epub", ".ttf", ".otf", ".woff", ".woff2", ".eot", ".pyc", ".pyo", ".class", ".jar", ".war",
    ".ear", ".node", ".wasm", ".rlib", ".sqlite", ".sqlite3", ".db", ".mdb", ".idx", ".parquet", ".feather", ".npy",
    ".npz", ".pickle", ".psd", ".ai", ".eps", ".sketch", ".fig", ".xd", ".blend", ".3ds", ".max", ".swf", ".fla",
    ".lockb", ".dat", ".data",
])
READ_ANYWAY = frozenset([".png", ".jpg", ".jpeg", ".gif", ".webp", ".pdf"])


def refused_as_binary(path: str) -> str | None:
    """The extension for which Claude Code's Read refuses `path` before it runs, or None."""
    ext = os.path.splitext(path)[1].lower()
    return ext if ext in BINARY_EXTENSIONS and ext not in READ_ANYWAY else None


Tool = Literal["Read", "Edit"]


@dataclass(frozen=True, repr=False)
class Match(Record):
    skill: str
    pattern: str
    path: str


@dataclass(repr=False)
class Folder(Record):
    """A `.claude/skills` folder below the cwd that a touch reached."""

    rel: str  # cwd-relative, posix
    loaded: bool
    reason: str  # why it was or was not loaded
    skills: list[Skill] = field(default_factory=list)


@dataclass(repr=False)
class Step(Record):
    path: str  # as given
    rel: str | None  # cwd-relative posix path, None outside the cwd
    note: str  # what happened, in words
    matches: list[Match] = field(default_factory=list)
    folders: list[Folder] = field(default_factory=list)
    blocks: list[str] = field(default_factory=list)  # the exact texts Claude Code appends, in order
    listing: Listing | None = None  # the "following skills" block, simulated under the budget


@dataclass(repr=False)
class Unmatched(Record):
    skill: Skill
    patterns: list[str]
    why: str


@dataclass(repr=False)
class Session(Record):
    steps: list[Step]
    unmatched: list[Unmatched]
    budget: int
    diagnostics: list[Diagnostic] = field(default_factory=list)  # from the folders loaded on the way
    assumed: tuple[str, ...] = ASSUMED

    def to_json(self) -> dict[str, object]:
        return {
            "budget": self.budget,
            "assumed": list(self.assumed),
            "steps": [
                {
                    "path": st.path, "rel": st.rel, "note": st.note,
                    "activated": [{"skill": m.skill, "pattern": m.pattern, "path": m.path} for m in st.matches],
                    "folders": [{"folder": f.rel, "loaded": f.loaded, "reason": f.reason,
                                 "skills": [s.label or s.name for s in f.skills]} for f in st.folders],
                    "added": [{"label": e.label, "state": e.state, "row": e.row} for e in st.listing.entries]
                    if st.listing else [],
                    "blocks": st.blocks,
                }
                for st in self.steps
            ],
            "never_activated": [{"skill": u.skill.name, "path": u.skill.path, "patterns": u.patterns, "why": u.why}
                                for u in self.unmatched],
        }  # fmt: skip


# ---------------------------------------------------------------- matching

@cache
def _pattern_regex(pattern: str) -> re.Pattern[str] | None:
    """One `paths` pattern as Claude Code matches it: gitignore syntax, case ignored; a negation matches nothing."""
    if pattern.startswith("!") or pattern.startswith("./") or pattern.startswith("../"):
        return None
    compiled = GitIgnoreBasicPattern(pattern)
    if compiled.include is not True or compiled.regex is None:
        return None
    return re.compile(compiled.regex.pattern, re.IGNORECASE)


def patterns_of(skill: Skill) -> list[str]:
    fm = skill.frontmatter
    value = fm.data.get("paths") if fm is not None else None
    return split_paths(value, trim=False) if value is not None else []


def first_match(patterns: Iterable[str], rel: str) -> str | None:
    for p in patterns:
        rx = _pattern_regex(p)
        if rx is not None and rx.match(rel):
            return p
    return None


# ---------------------------------------------------------------- git-ignored folders

def _ignore_specs(git_root: str, upto: str) -> list[tuple[str, pathspec.PathSpec[GitIgnoreBasicPattern]]]:
    """(folder, spec) of .git/info/exclude and each .gitignore from the git root down to `upto`, outermost first."""
    specs: list[tuple[str, pathspec.PathSpec[GitIgnoreBasicPattern]]] = []
    chain = [git_root]
    rel = os.path.relpath(upto, git_root)
    if rel != ".":
        for part in rel.split(os.sep):
            chain.append(os.path.join(chain[-1], part))
    files = [(git_root, os.path.join(git_root, ".git", "info", "exclude"))]
    files += [(d, os.path.join(d, ".gitignore")) for d in chain]
    for folder, path in files:
        try:
            with fsio.open_binary(path) as f:  # a FIFO named .gitignore must not block
                lines = f.read(1 << 20).decode("utf-8", errors="replace").splitlines()
        except OSError:
            continue
        specs.append((folder, pathspec.PathSpec.from_lines("gitignore", lines)))
    return specs


def ignored_folder(folder: str, git_root: str | None) -> str | None:
    """The git-ignored folder that hides `folder` (itself or an ancestor below the git root), or None."""
    if git_root is None or os.path.commonpath([folder, git_root]) != git_root or folder == git_root:
        return None
    d = git_root
    for part in os.path.relpath(folder, git_root).split(os.sep):
        d = os.path.join(d, part)
        verdict = None  # last matching pattern wins, deeper files over outer ones
        for base, spec in _ignore_specs(git_root, os.path.dirname(d)):
            rel = os.path.relpath(d, base).replace(os.sep, "/") + "/"
            for pattern in spec.patterns:
                if pattern.include is not None and pattern.match_file(rel) is not None:
                    verdict = pattern.include
        if verdict:
            return d
    return None


# ---------------------------------------------------------------- the session

def _posix(path: str) -> str:
    return path.replace(os.sep, "/")


def simulate_session(catalog: Catalog, touched: Sequence[str | tuple[Tool, str]], budget: int,
                     git_root: str | None = None) -> Session:
    """The blocks Claude Code adds, step by step, when the agent touches `touched` (files, cwd-relative or absolute;
    a bare path is a Read) in this order, starting from `catalog` (a Claude catalog of the same cwd)."""
    cwd = catalog.cwd
    settings = settings_of(catalog)
    overrides = skill_overrides(settings)

    def offered(s: Skill) -> Skill | None:
        """The entry as it is listed, or None when §7.1 keeps it out (hidden, or switched off by skillOverrides)."""
        override = override_of(s, overrides)
        if s.status not in (LISTED, CONDITIONAL) or skill_facts(s).disable_model_invocation or override in (
                "off", "user-invocable-only"):
            return None
        return replace(s, status=LISTED, label=s.label or s.name, override=override)

    listed = {s.name for s in catalog.skills if s.status == LISTED}
    pending = [s for s in catalog.skills if s.status == CONDITIONAL and s.source not in ("plugin", "plugin-command")]
    pending_patterns = {id(s): patterns_of(s) for s in pending}
    activated: set[int] = set()
    loaded: dict[str, list[Skill]] = {}  # folder rel -> its skills (as scanned), in load order
    sent: dict[tuple[str, str], str] = {}  # (folder rel, name) -> label last sent
    steps: list[Step] = []
    diagnostics: list[Diagnostic] = []

    for touch in touched:
        tool, given = ("Read", touch) if isinstance(touch, str) else touch
        path = os.path.normpath(os.path.join(cwd, given))
        rel = os.path.relpath(path, cwd)
        if rel == os.curdir or rel.startswith(os.pardir + os.sep) or rel == os.pardir:
            steps.append(Step(given, None, "outside the working folder: Claude Code adds nothing for it"))
            continue
        binary = refused_as_binary(path)
        if binary is not None:
            steps.append(Step(given, _posix(rel), f"Read refuses {binary} files (binary): adds nothing"))
            continue
        if tool == "Edit" and not os.path.isfile(path):
            steps.append(Step(given, _posix(rel), "Edit refuses a file that does not exist: adds nothing"))
            continue
        missing = "" if os.path.isfile(path) else (
            "a folder: the failed Read still counts" if os.path.isdir(path)
            else "does not exist: the failed Read still counts")
        step = Step(given, _posix(rel), "")
        new_entries: list[Skill] = []

        # Conditional skills (§5.5)
        for s in pending:
            if id(s) in activated:
                continue
            pattern = first_match(pending_patterns[id(s)], step.rel or "")
            if pattern is None:
                continue
            activated.add(id(s))
            step.matches.append(Match(s.name, pattern, step.rel or ""))
            entry = offered(s)
            if entry is not None:
                new_entries.append(entry)
                listed.add(s.name)

        # Nested .claude/skills folders (§2.3), deepest first
        fresh: list[str] = []
        d = os.path.dirname(path)
        while d != cwd and os.path.commonpath([d, cwd]) == cwd:
            root = os.path.join(d, ".claude", "skills")
            folder_rel = _posix(os.path.relpath(d, cwd))
            if folder_rel not in loaded and os.path.isdir(root):
                hidden_by = ignored_folder(d, git_root)
                if hidden_by is not None:
                    why = f"git-ignored ({_posix(os.path.relpath(hidden_by, cwd))}/): not loaded"
                    step.folders.append(Folder(folder_rel, False, why))
                else:
                    skills, diags = load_skills_root(root, "project", settings, keep_order=True)
                    diagnostics += diags
                    shown = [e for e in map(offered, skills) if e is not None]
                    loaded[folder_rel] = shown
                    fresh.append(folder_rel)
                    step.folders.append(Folder(folder_rel, True, "loaded: a file under it was touched", shown))
            d = os.path.dirname(d)

        # Labels of every loaded nested entry, against the names listed now: a changed label is sent again
        counts: dict[str, int] = {}
        for skills in loaded.values():
            for s in skills:
                counts[s.name] = counts.get(s.name, 0) + 1
        folders = list(loaded)
        collate(folders, str)
        for folder_rel in folders:
            for s in loaded[folder_rel]:
                scoped = s.name in listed
                label = f"{folder_rel}:{s.name}" if scoped or counts[s.name] > 1 else s.name
                key = (folder_rel, s.name)
                if sent.get(key) == label:
                    continue
                sent[key] = label
                suffix = (SCOPED_SUFFIX.format(folder=folder_rel, name=s.name) if scoped
                          else FROM_SUFFIX.format(folder=folder_rel))
                new_entries.append(replace(s, label=label, scoped_suffix=suffix))
        if fresh:
            for folder_rel in fresh:
                labels = [sent[(folder_rel, s.name)] for s in loaded[folder_rel]]
                if labels:
                    step.blocks.append(ANNOUNCE.format(folder=folder_rel) + "\n".join(f"- {x}" for x in labels))

        if new_entries:
            collate(new_entries, lambda s: s.name)  # stable: ties keep folder order
            step.listing = simulate(new_entries, budget)
            step.blocks.append(_block(step.listing))
        parts = []
        if step.matches:
            parts.append("activates " + ", ".join(m.skill for m in step.matches))
        if fresh:
            parts.append("loads " + ", ".join(f"{f}/.claude/skills" for f in fresh))
        step.note = "; ".join(([missing] if missing else []) + (parts or ["adds nothing"]))
        steps.append(step)

    unmatched = [Unmatched(s, pending_patterns[id(s)], _why_not(pending_patterns[id(s)]))
                 for s in pending if id(s) not in activated]
    return Session(steps, unmatched, budget, diagnostics)


def _block(listing: Listing) -> str:
    return LISTING_INTRO + "\n".join(
        e.row or f"- {e.label}" for e in listing.entries)


def _why_not(patterns: list[str]) -> str:
    odd = [p for p in patterns if _pattern_regex(p) is None or p != p.strip()]
    why = "no touched file matched its patterns"
    if odd:
        why += "; these can never match: " + ", ".join(
            repr(p) + (" (leading space after a comma)" if p != p.lstrip() else
                       " (a negation matches nothing)" if p.startswith("!") else " (./ or ../ prefix)")
            for p in odd)
    return why
