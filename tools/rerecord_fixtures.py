#!/usr/bin/env python3
"""Re-record tests/fixtures/<runtime>/<case>/expected.json from the real runtime (../shared/oracle), for every case or
the ones named. Dev-only: the test suite replays the recordings and never calls the oracle.

    /work/venv/bin/python tools/rerecord_fixtures.py [--check] [CASE_DIR ...]

--check records into memory only and prints which cases the real tool now answers differently.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO / "tools"))

import fixturelib  # noqa: E402
from differential import run_oracle  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("cases", nargs="*", type=Path)
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args(argv)
    changed = 0
    for case_dir in args.cases or fixturelib.cases():
        tree, old = fixturelib.load(case_dir)
        work = fixturelib.oracle_base()  # the oracle's copy of the tree keeps its TREE_LEN-long path
        try:
            root = fixturelib.materialise(tree, work)
            want = run_oracle(tree, root)
            if "oracle_error" in want:
                print(f"{case_dir}: oracle error: {want['oracle_error']}")
                changed += 1
                continue
            new = fixturelib.placeholder(want, str(root))
            same = json.dumps(new, sort_keys=True) == json.dumps(old, sort_keys=True)
            print(f"{case_dir}: {'unchanged' if same else 'CHANGED'}")
            if not same:
                changed += 1
                if not args.check:
                    (case_dir / "expected.json").write_text(json.dumps(new, indent=1, ensure_ascii=False) + "\n")
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return 1 if changed and args.check else 0


if __name__ == "__main__":
    raise SystemExit(main())
