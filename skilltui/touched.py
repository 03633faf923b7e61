"""Which files the user means by `skilltui touch ARG…`: files, folders, globs, or the files git sees as changed."""

from __future__ import annotations

import glob
import os
import subprocess

MAX_FILES = 5000  # a folder or glob expands to at most this many files, said in the result
GLOB_CHARS = frozenset("*?[")


class TouchedError(ValueError):
    """A clear one-line reason the paths cannot be gathered."""


def expand(args: list[str], cwd: str) -> tuple[list[str], list[str]]:
    """(the files, in order, without repeats; notes on what was cut or not found). Paths stay as the user wrote
    them when they name one file, so the output speaks the user's spelling."""
    out: list[str] = []
    seen: set[str] = set()
    notes: list[str] = []

    def add(path: str, shown: str) -> bool:
        key = os.path.normpath(os.path.join(cwd, path))
        if key not in seen:
            if len(out) >= MAX_FILES:
                return False
            seen.add(key)
            out.append(shown)
        return True

    for arg in args:
        full = os.path.join(cwd, arg)
        if GLOB_CHARS & set(arg):
            found = sorted(glob.glob(arg, root_dir=cwd, recursive=True, include_hidden=True))
            files = [f for f in found if os.path.isfile(os.path.join(cwd, f))]
            if not files:
                notes.append(f"{arg}: no file matches")
            if not all(add(f, f) for f in files):
                notes.append(f"{arg}: cut at {MAX_FILES} files")
        elif os.path.isdir(full):
            files = []
            for folder, dirs, names in os.walk(full):
                dirs[:] = sorted(d for d in dirs if d != ".git")
                files += [os.path.relpath(os.path.join(folder, n), cwd) for n in sorted(names)]
                if len(files) > MAX_FILES:
                    break
            if not all(add(f, f) for f in files) or len(files) > MAX_FILES:
                notes.append(f"{arg}: cut at {MAX_FILES} files")
        else:
            add(arg, arg)  # a missing file is kept: the simulation says what a failed read does
    return out, notes


def _git(cwd: str, *args: str) -> bytes:
    try:
        done = subprocess.run(["git", "-C", cwd, *args], capture_output=True, timeout=30, check=False)
    except FileNotFoundError:
        raise TouchedError("git is not installed") from None
    except subprocess.TimeoutExpired:
        raise TouchedError(f"git {' '.join(args)} took over 30 s") from None
    if done.returncode:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise TouchedError(f"git {' '.join(args)}: {message[-1] if message else 'failed'}")
    return done.stdout


def git_changed(cwd: str, revision_range: str | None = None) -> list[str]:
    """Files git reports as changed, as cwd-relative paths: with no range, staged, unstaged and untracked files
    (`git status`); with a range such as `main...HEAD`, the files that differ (`git diff --name-only`)."""
    if revision_range is not None and revision_range.startswith("-"):
        raise TouchedError(f"{revision_range!r} is not a revision range")
    top = _git(cwd, "rev-parse", "--show-toplevel").decode("utf-8", "surrogateescape").strip()
    if revision_range is None:
        raw = _git(cwd, "status", "--porcelain=v1", "-z", "--untracked-files=all")
        names: list[str] = []
        fields = raw.split(b"\0")
        i = 0
        while i < len(fields):
            entry = fields[i]
            i += 1
            if len(entry) < 4:
                continue
            status, name = entry[:2], entry[3:]
            if status[:1] in (b"R", b"C"):
                i += 1  # the next field is the old name
            names.append(name.decode("utf-8", "surrogateescape"))
    else:
        raw = _git(cwd, "diff", "--name-only", "-z", revision_range, "--")
        names = [n.decode("utf-8", "surrogateescape") for n in raw.split(b"\0") if n]
    return [os.path.relpath(os.path.join(top, n), cwd) for n in names]
