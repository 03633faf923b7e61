"""`skilltui list --json` as a whole process against the raw-read floor process, on the generated bench tree (issue 15).

Run: python bench/bench_cli.py [--skills 5000 --plugins 50 --runs 5 --dir DIR --keep]
(not a test; prints medians). The floor is a Python process that scans each skills root and reads every SKILL.md and
command file, with no parsing. Also printed: the same command with --pretty (the pure-Python indenting encoder),
the import time of the modules a `list` run needs, and whether PyYAML and the ICU-derived tables were loaded.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))

from gen_tree import generate  # noqa: E402

FLOOR = """
import os, sys
home, project = sys.argv[1], sys.argv[2]
roots = [os.path.join(home, ".claude", "skills"), os.path.join(project, ".claude", "skills")]
plugins = os.path.join(home, ".claude", "plugins", "cache")
for dirpath, dirnames, _ in os.walk(plugins):
    if os.path.basename(dirpath) == "skills":
        roots.append(dirpath)
        dirnames[:] = []
out = []
for root in roots:
    try:
        it = os.scandir(root)
    except OSError:
        continue
    with it:
        for e in it:
            if e.is_dir():
                try:
                    with open(os.path.join(e.path, "SKILL.md"), "rb") as fh:
                        out.append(fh.read())
                except OSError:
                    pass
for base in (os.path.join(home, ".claude", "commands"), os.path.join(project, ".claude", "commands")):
    for dirpath, _, files in os.walk(base):
        for f in files:
            if f.endswith(".md"):
                with open(os.path.join(dirpath, f), "rb") as fh:
                    out.append(fh.read())
sys.stdout.write(str(len(out)) + "\\n")
"""

PROBE = """
import sys, time
t = time.perf_counter()
import skilltui.cli, skilltui.runtimes.claude.discovery, skilltui.runtimes.claude.listing
imports = (time.perf_counter() - t) * 1000
from skilltui import cli
code = cli.main(sys.argv[1:])
import skilltui.text as text
print(f"{imports:.1f} {'yaml' in sys.modules} {text._t.cache_info().currsize}", file=sys.stderr)
"""


def timed(argv: list[str], out_path: str, env: dict[str, str]) -> tuple[float, str]:
    with open(out_path, "w") as out:
        start = time.perf_counter()
        run = subprocess.run(argv, stdout=out, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT, timeout=600)
        elapsed = (time.perf_counter() - start) * 1000
    if run.returncode != 0:
        raise SystemExit(f"{argv[:4]} failed: {run.stderr.strip()[-300:]}")
    return elapsed, run.stderr


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--skills", type=int, default=5000)
    ap.add_argument("--plugins", type=int, default=50)
    ap.add_argument("--per-plugin", type=int, default=20)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--dir", help="generate the tree here (default: a temporary folder)")
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()

    root = args.dir or tempfile.mkdtemp(prefix="skilltui-bench-cli-")
    try:
        generate(root, skills=args.skills, plugins=args.plugins, per_plugin=args.per_plugin)
        home, project, managed = (os.path.join(root, d) for d in ("home", "project", "managed"))
        env = dict(os.environ, HOME=home, SKILLTUI_NO_CACHE="1", PYTHONPATH=str(ROOT))
        py = sys.executable
        base = ["--home", home, "--cwd", project, "--managed-dir", managed, "list", "--json"]
        out = os.path.join(root, "out.json")
        kinds = {
            "floor": [py, "-c", FLOOR, home, project],
            "list --json": [py, "-m", "skilltui", *base],
            "list --json --pretty": [py, "-m", "skilltui", *base, "--pretty"],
        }
        times: dict[str, list[float]] = {k: [] for k in kinds}
        for _ in range(args.runs):  # interleaved, so a burst of load hits every kind alike
            for kind, argv in kinds.items():
                times[kind].append(timed(argv, out, env)[0])
        probes = [timed([py, "-c", PROBE, *base], out, env)[1].split() for _ in range(args.runs)]
        size = os.path.getsize(out)
        floor = statistics.median(times["floor"])
        print(f"tree: {args.skills} user skills + {args.plugins} plugins x {args.per_plugin}; {os.cpu_count()} CPUs, "
              f"load {os.getloadavg()[0]:.1f}; medians of {args.runs}")
        for kind, values in times.items():
            m = statistics.median(values)
            print(f"  {kind:<22} {m:7.0f} ms   {m / floor:4.2f}x the floor")
        imports = statistics.median(float(p[0]) for p in probes)
        print(f"  imports for a list run: {imports:.0f} ms; PyYAML loaded: {probes[0][1]}; "
              f"ICU-derived tables built: {probes[0][2] != '0'}; last output {size:,} bytes")
    finally:
        if not args.keep and not args.dir:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
