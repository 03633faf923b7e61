"""Setting up a golden case (shared/golden/README.md): copy the tree, fill $TREE, mark git roots, apply a run."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from skilltui.model import Options


def load_case(shared: Path, name: str) -> tuple[Path, dict]:
    folder = shared / "golden" / name
    return folder, json.loads((folder / "case.json").read_text())


def _fill(path: Path, tree: str) -> None:
    for p in path.rglob("*"):
        if p.is_file() and not p.is_symlink():
            data = p.read_bytes()
            if b"$TREE" in data:
                p.write_bytes(data.replace(b"$TREE", tree.encode()))


def restore_links(tree: Path) -> None:
    """shared/ may hold symbolic links flattened into small files holding the target; make them links again.

    A flattened link is a file of one line without a final newline whose text is a relative path upwards.
    """
    for p in list(tree.rglob("*")):
        if p.is_file() and not p.is_symlink() and p.stat().st_size < 512:
            text = p.read_bytes()
            if text.startswith(b"../") and b"\n" not in text:
                p.unlink()
                p.symlink_to(text.decode())


def prepare(folder: Path, case: dict, run: dict, dest: Path) -> Path:
    """A fresh copy of the case's tree for one run; returns the tree root."""
    tree = dest / "tree"
    shutil.copytree(folder / "tree", tree, symlinks=True)
    for p in [tree, *tree.rglob("*")]:  # shared/ is read-only; the copy must be writable
        if not p.is_symlink():
            p.chmod(p.stat().st_mode | 0o200)
    restore_links(tree)
    for rel in run.get("delete", []):
        target = tree / rel
        if target.is_dir() and not target.is_symlink():
            shutil.rmtree(target)
        elif target.exists() or target.is_symlink():
            target.unlink()
    for rel, content in {**run.get("extra_files", {}), **run.get("replace_files", {})}.items():
        target = tree / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content)
    _fill(tree, str(tree))
    for root in case.get("git_roots", []):
        (tree / root / ".git").mkdir(parents=True, exist_ok=True)
    cwd = tree / run.get("cwd", case.get("cwd", "."))
    cwd.mkdir(parents=True, exist_ok=True)
    return tree


def env_for(run: dict, tree: Path, home: Path) -> dict[str, str]:
    env = {"HOME": str(home), "PATH": os.environ.get("PATH", "")}
    for key, value in run.get("env", {}).items():
        env[key] = value.replace("$TREE", str(tree))
    return env


def claude_options(case: dict, run: dict, tree: Path) -> Options:
    home = tree / case["home"]
    command = run.get("command", "").replace("$TREE", str(tree))
    words = command.split()
    add_dirs = [words[i + 1] for i, w in enumerate(words) if w == "--add-dir"]
    settings = None
    if "--settings" in command:
        settings = command.split("--settings", 1)[1].strip().strip("'")
    managed = tree / case["managed_dir"] if case.get("managed_dir") else tree / "no-managed-dir"
    return Options(cwd=str(tree / run.get("cwd", case.get("cwd", "."))), home=str(home), runtime="claude",
                   managed_dir=str(managed), add_dirs=add_dirs, settings_flag=settings, env=env_for(run, tree, home))


def expected(folder: Path, run: dict, tree: Path | None = None):
    text = (folder / run["expected"]).read_text()
    if tree is not None:
        text = text.replace("$TREE", str(tree))
    return json.loads(text)
