"""The TUI in a real terminal (tmux), timed from process start, on the 6,000-skill tree of bench/gen_tree.py.

Run: python bench/bench_tui.py [--runs 3 --size 120x40 --dir DIR]
(not a test; needs tmux; prints medians against issue 14's targets: first paint <= 0.5 s, first rows <= 1.0 s, any
screen's first visit <= 0.3 s, peak memory <= 120 MB). Times are read by polling the pane every 5 ms, so each figure
is late by up to that much plus tmux's own latency.

Beside each wall time it prints the app's own CPU time (user + system of its process, all threads, from /proc): from
process start for paint and rows, and spent during the visit for a screen. Wall times move with the machine's load;
the CPU figures much less, so compare those between runs taken at different loads.

Bytecode: by default skilltui's modules are compiled once before the runs and the app may use and write bytecode, as
for a user who installed it (pip compiles it) or ran it once from a checkout. This machine sets
PYTHONDONTWRITEBYTECODE=1, which made every start compile skilltui from source (~0.05 s before the first paint, more
as the other screens' modules load); `--no-bytecode` keeps that setting to measure it.
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

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gen_tree import generate

ROOT = Path(__file__).resolve().parents[1]
TARGETS = {"first paint": 0.5, "first rows": 1.0, "screen visit": 0.3}
# what each screen shows once it is drawn with its data (any of the texts), and the key that leaves it again
SCREENS = (("3", "Budget", ("Over budget:", "Everything fits:"), None), ("4", "Plugins", ("plugins ·",), None),
           ("5", "Doctor", ("▼",), None), ("2", "Preview", ("Referenced files",), None),
           ("1", "Skills", ("listed of",), None), ("?", "help popup", ("Everywhere",), "Escape"))


def tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], capture_output=True, text=True, timeout=30).stdout


def screen(session: str) -> str:
    return tmux("capture-pane", "-p", "-t", session)


def wait_for(session: str, text: str | tuple[str, ...], start: float, timeout: float = 60.0) -> float:
    texts = (text,) if isinstance(text, str) else text
    while True:
        now = time.perf_counter()
        shown = screen(session)
        if any(t in shown for t in texts):
            return now - start
        if now - start > timeout:
            raise TimeoutError(f"{text!r} not shown after {timeout:.0f} s:\n{screen(session)}")
        time.sleep(0.005)


def cpu_seconds(pid: int | None, thread: bool = False) -> float:
    """User + system CPU time of process `pid` so far (all its threads; with `thread`, only its main thread: the UI
    thread), or NaN if it cannot be read."""
    if pid is None:
        return float("nan")
    try:
        with open(f"/proc/{pid}/task/{pid}/stat" if thread else f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime (fields 14, 15)
    except (OSError, IndexError, ValueError):
        return float("nan")


def app_pid(session: str) -> int | None:
    """The app's process: the pane's command execs into it."""
    try:
        return int(tmux("display-message", "-p", "-t", session, "#{pane_pid}").strip())
    except ValueError:
        return None


def peak_mb(pid: int) -> float | None:
    """VmHWM of the python process under the pane's shell (the app)."""
    try:
        children = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()
        for p in [pid, *map(int, children)]:
            with open(f"/proc/{p}/status") as fh:
                status = fh.read()
            with open(f"/proc/{p}/cmdline", "rb") as fh:
                if b"skilltui" not in fh.read():
                    continue
            for line in status.splitlines():
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def run_once(root: str, size: tuple[int, int], n: int, bytecode: bool = True) -> dict[str, float]:
    session = f"skilltui-bench-{os.getpid()}-{n}"
    home, project, managed = (os.path.join(root, d) for d in ("home", "project", "managed"))
    keep = "-u PYTHONDONTWRITEBYTECODE " if bytecode else ""
    command = (f"cd {project} && exec env {keep}HOME={home} PYTHONPATH={ROOT} {sys.executable} -m skilltui "
               f"--managed-dir {managed}")
    start = time.perf_counter()
    tmux("new-session", "-d", "-s", session, "-x", str(size[0]), "-y", str(size[1]), command)
    try:
        pid = app_pid(session)
        out = {"first paint": wait_for(session, "1 Skills", start)}
        out["first paint CPU"], out["first paint UI"] = cpu_seconds(pid), cpu_seconds(pid, thread=True)
        out["first rows"] = wait_for(session, "listed of", start)
        out["first rows CPU"], out["first rows UI"] = cpu_seconds(pid), cpu_seconds(pid, thread=True)
        for key, name, marker, leave in SCREENS:
            t0, c0, u0 = time.perf_counter(), cpu_seconds(pid), cpu_seconds(pid, thread=True)
            tmux("send-keys", "-t", session, key)
            out[f"visit {name}"] = wait_for(session, marker, t0)
            out[f"visit {name} CPU"] = cpu_seconds(pid) - c0
            out[f"visit {name} UI"] = cpu_seconds(pid, thread=True) - u0
            if leave:
                tmux("send-keys", "-t", session, leave)
                time.sleep(0.3)
        out["peak MB"] = peak_mb(pid) if pid is not None else None
        out["peak MB"] = out["peak MB"] or float("nan")
        tmux("send-keys", "-t", session, "q")
        return out
    finally:
        time.sleep(0.5)
        tmux("kill-session", "-t", session)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--size", default="120x40")
    ap.add_argument("--dir")
    ap.add_argument("--no-bytecode", action="store_true",
                    help="remove skilltui's __pycache__ folders and keep PYTHONDONTWRITEBYTECODE as set: skilltui is "
                         "compiled from source at every start")
    args = ap.parse_args()
    if not shutil.which("tmux"):
        print("tmux is needed", file=sys.stderr)
        return 2
    size = tuple(int(x) for x in args.size.split("x"))
    root = args.dir or tempfile.mkdtemp(prefix="skilltui-bench-tui-")
    if not os.path.isdir(os.path.join(root, "home")):
        generate(root, skills=5000, plugins=50, per_plugin=20)
    bytecode = not args.no_bytecode
    if not bytecode:  # a fresh checkout: skilltui's bytecode caches (git-ignored) removed, none written
        for cache in (ROOT / "skilltui").rglob("__pycache__"):
            shutil.rmtree(cache, ignore_errors=True)
    if bytecode:  # as installed: compiled once (into skilltui's __pycache__ folders, which git ignores)
        # not the demo's skill folders: a __pycache__ there would be a file the demo shows
        subprocess.run([sys.executable, "-m", "compileall", "-q", "-x", "/demo/tree/", str(ROOT / "skilltui")],
                       check=True, timeout=300)
    load_before = os.getloadavg()[0]
    runs = [run_once(root, size, i, bytecode) for i in range(args.runs)]
    print(f"TUI from process start, 6,000 skills, {size[0]}x{size[1]}, median of {args.runs} "
          f"(load average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after, on {os.cpu_count()} cores; "
          f"bytecode {'compiled ahead, as installed' if bytecode else 'compiled at every start'})")
    # the first run starts with no cached answer (unless --dir reuses a tree); later runs may use it
    print("  (figure: median of all runs; in brackets the first run's. CPU: the app's process, all threads; UI "
          "thread: the event loop's own, the part a key waits for)")
    for key in runs[0]:
        if key.endswith((" CPU", " UI")):
            continue
        value = statistics.median(r[key] for r in runs)
        first = runs[0][key]
        target = TARGETS.get("screen visit" if key.startswith("visit") else key)
        cpu = runs[0].get(f"{key} CPU")
        if cpu is not None:  # the app's CPU time: from process start (paint, rows) or during the visit
            cpu_median = statistics.median(r[f"{key} CPU"] for r in runs)
            ui_median = statistics.median(r[f"{key} UI"] for r in runs)
            print(f"  {key:<18} {value:7.3f} s [{first:5.3f} s] target {target} s  "
                  f"{'ok' if value <= target else 'MISSED'}   CPU {cpu_median:5.2f} s [{cpu:4.2f} s]"
                  f"  UI thread {ui_median:5.2f} s")
        elif key == "peak MB":
            print(f"  {key:<18} {value:7.0f}   [{first:5.0f}  ]  target 120  {'ok' if value <= 120 else 'MISSED'}")
        else:
            print(f"  {key:<18} {value:7.3f} s [{first:5.3f} s] target {target} s  {'ok' if value <= target else 'MISSED'}")
    if not args.dir:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
