"""A toggle dialog's "what if" on the generated bench tree: resolving again from the catalog (a plugin toggle or a
skill override, no scan) against discovering the planned tree again (what it did before), and the file touches of each.

Run: python bench/bench_whatif.py [--skills 5000 --plugins 50 --runs 5 --dir DIR --keep]   (not a test; prints medians)
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from gen_tree import generate

from skilltui import budget, whatif
from skilltui.model import Options
from skilltui.runtimes import get
from skilltui.runtimes.claude import listing

TOUCHES = {"n": 0}


def _count(event: str, args: tuple) -> None:
    if event in ("open", "os.listdir", "os.scandir"):
        TOUCHES["n"] += 1


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--skills", type=int, default=5000)
    ap.add_argument("--plugins", type=int, default=50)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--dir")
    ap.add_argument("--keep", action="store_true")
    a = ap.parse_args()
    root = a.dir or tempfile.mkdtemp(prefix="skilltui-bench-whatif-")
    try:
        if not os.path.isdir(os.path.join(root, "home")):
            generate(root, a.skills, a.plugins)
        home = os.path.join(root, "home")
        opts = Options(cwd=os.path.join(root, "project"), home=home, managed_dir=os.path.join(root, "managed"),
                       env={"HOME": home, "PATH": os.environ.get("PATH", "")})
        catalog = get("claude").discover(opts)
        prepared = budget.prepared_for(catalog)
        chars = budget.params_for(catalog, opts).budget
        paths = catalog.settings.paths
        plugin = next(p.id for p in catalog.plugins if p.kind == "marketplace")
        skill = next(s.name for s in catalog.skills if s.source == "user")
        changes = {
            "plugin off": whatif.PlannedChange(paths.scope_file("user"), ("enabledPlugins", plugin), False),
            "override off": whatif.PlannedChange(paths.scope_file("local"), ("skillOverrides", skill), "off"),
        }
        sys.addaudithook(_count)
        print(f"tree: {len(catalog.skills):,} entries, {len(catalog.plugins)} plugins; listing budget {chars:,}")
        for label, change in changes.items():
            for how in ("resolved again", "discovered again"):
                times, touches = [], []
                for _ in range(a.runs):
                    TOUCHES["n"] = 0
                    start = time.perf_counter()
                    if how == "resolved again":
                        effect = whatif.effect(catalog, opts, change, chars, prepared)
                        assert not effect.scanned
                    else:
                        again = get("claude").discover(dataclasses.replace(opts, pending=[
                            (change.path, change.keys, change.value)]))
                        whatif.compare(listing.simulate_prepared(prepared, chars),
                                       listing.simulate_prepared(budget.prepared_for(again, like=prepared), chars))
                    times.append(time.perf_counter() - start)
                    touches.append(TOUCHES["n"])
                print(f"{label:<13} {how:<17} median {statistics.median(times) * 1000:8.1f} ms   "
                      f"file opens + folder listings: {statistics.median(touches):,.0f}")
    finally:
        if not a.keep and not a.dir:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
