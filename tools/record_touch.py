#!/usr/bin/env python3
"""Re-record the fixtures of tests/fixtures/touch with the real Claude Code (tools/oracle_session.py).

Each case folder holds `case.json` ({"cwd", "git", "budget", "steps": [[tool, path]], "args", "note"}) and the tree
(`home/`, the project). The tree is copied to a temporary folder, `git init` runs where "git" says, and the
session's output is written to `recorded.json`. Usage: tools/record_touch.py [CASE ...]
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
CASES = HERE.parent / "tests" / "fixtures" / "touch"


def record(case_dir: Path) -> None:
    case = json.loads((case_dir / "case.json").read_text())
    with tempfile.TemporaryDirectory(prefix="touch-") as tmp:
        tree = Path(tmp) / "tree"
        shutil.copytree(case_dir, tree, symlinks=True, ignore=shutil.ignore_patterns("case.json", "recorded.json"))
        for stored in tree.rglob("_gitignore"):  # kept under another name, or the project's git would obey them
            stored.rename(stored.with_name(".gitignore"))
        if case.get("git"):
            subprocess.run(["git", "init", "-q", str(tree / case["git"])], check=True)
            for line in case.get("exclude", []):  # .git/info/exclude, which a fixture cannot carry itself
                with open(tree / case["git"] / ".git" / "info" / "exclude", "a") as f:
                    f.write(line + "\n")
        cmd = [sys.executable, str(HERE / "oracle_session.py"), "--home", str(tree / "home"),
               "--cwd", str(tree / case["cwd"]), "--placeholder"]
        if case.get("budget") is not None:
            cmd += ["--budget", str(case["budget"])]
        for tool, path in case["steps"]:
            cmd += ["--step", f"{tool}:{path}"]
        if case.get("args"):
            cmd += ["--", *case["args"]]
        out = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if out.returncode:
            sys.exit(f"{case_dir.name}: {out.stderr.strip()}")
        result = json.loads(out.stdout)
        result.pop("debug", None)
        (case_dir / "recorded.json").write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
        print(f"{case_dir.name}: " + "; ".join(f"{len(s['added'] or [])} block(s)" for s in result["steps"]))


def main(names: list[str]) -> None:
    for case_dir in sorted(CASES.iterdir()):
        if case_dir.is_dir() and (not names or case_dir.name in names):
            record(case_dir)


if __name__ == "__main__":
    main(sys.argv[1:])
