"""The claude-plugins fixture trees (tests/fixtures/claude-plugins): a fresh copy of a case's tree for one run, as
its record.py gives it to the real Claude Code and test_oracle_plugins.py gives it to skilltui. One function, so the
recording and the replay start from the same tree."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

GIT = shutil.which("git")


def prepare(folder: Path, case: dict, run: dict, dest: Path) -> Path:
    """A copy of `folder`/tree in `dest`, with the run's extra files, $TREE filled in and the git work trees made."""
    tree = dest / "tree"
    shutil.copytree(folder / "tree", tree, symlinks=True)
    for rel, content in run.get("extra_files", {}).items():
        (tree / rel).parent.mkdir(parents=True, exist_ok=True)
        (tree / rel).write_text(content)
    for p in tree.rglob("*"):
        if p.is_file() and not p.is_symlink() and b"$TREE" in p.read_bytes():
            p.write_bytes(p.read_bytes().replace(b"$TREE", str(tree).encode()))
    for root in case.get("git_roots", []):
        (tree / root).mkdir(parents=True, exist_ok=True)
        if GIT:  # the fixture's HOME: no user git config leaks into the work tree
            subprocess.run([GIT, "init", "-q", str(tree / root)], check=True, timeout=60,
                           env={"PATH": os.environ.get("PATH", ""), "HOME": str(tree / case["home"])})
        else:
            (tree / root / ".git").mkdir()
    (tree / run.get("cwd", case["cwd"])).mkdir(parents=True, exist_ok=True)
    return tree
