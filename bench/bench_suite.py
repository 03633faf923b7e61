"""Where the test suite's time goes, in figures that do not move with the machine's load (issue #19: the README's test
command in under 5 minutes on a quiet 2-core machine; our own target is 4 minutes, for CI's margin).

Run: python bench/bench_suite.py [--top 30] [pytest args, e.g. -m "not slow" or tests/test_tui.py]
(not a test). Runs pytest in this process with a small plugin that charges each test (set-up, call and tear-down) the
CPU time of this process and of the processes it waited for (ruff, mypy, `skilltui` runs), then prints the whole run's
wall and CPU time, the load average beside them, the CPU time per file and the tests that cost most. On a loaded
machine wall time mostly measures the other processes; the CPU time is the figure to compare between runs, and on a
quiet machine the wall time is close to it.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import sys
import time
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _cpu() -> float:
    own = time.process_time()
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own + kids.ru_utime + kids.ru_stime


class CpuPerTest:
    def __init__(self) -> None:
        self.cost: dict[str, float] = defaultdict(float)
        self.wall: dict[str, float] = defaultdict(float)
        self.outcomes: dict[str, int] = defaultdict(int)
        self.slow: set[str] = set()

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        if item.get_closest_marker("slow") is not None:
            self.slow.add(item.nodeid)
        start, wall0 = _cpu(), time.perf_counter()
        yield
        self.cost[item.nodeid] += _cpu() - start
        self.wall[item.nodeid] += time.perf_counter() - wall0

    def pytest_runtest_logreport(self, report) -> None:
        if report.when == "call" or report.outcome != "passed":
            self.outcomes[report.outcome] += 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--top", type=int, default=30)
    args, rest = parser.parse_known_args()
    os.chdir(ROOT)
    plugin = CpuPerTest()
    load_before = os.getloadavg()
    wall0, cpu0 = time.perf_counter(), _cpu()
    code = pytest.main(["-q", "-p", "no:cacheprovider", *rest], plugins=[plugin])
    wall, cpu = time.perf_counter() - wall0, _cpu() - cpu0
    load_after = os.getloadavg()
    per_file: dict[str, float] = defaultdict(float)
    for nodeid, cost in plugin.cost.items():
        per_file[nodeid.split("::", 1)[0]] += cost
    print(f"\n# bench_suite: pytest {' '.join(rest) or '(whole suite)'}  exit={int(code)}")
    print(f"machine: {platform.platform()}, {os.cpu_count()} cpus, python {platform.python_version()}")
    print(f"load average before {load_before[0]:.2f}, after {load_after[0]:.2f} (1 min)")
    print(f"wall {wall:7.1f} s   cpu (this process + its children) {cpu:7.1f} s   "
          f"collection and session set-up {cpu - sum(plugin.cost.values()):5.1f} s cpu")
    slow = sum(c for n, c in plugin.cost.items() if n in plugin.slow)
    print(f"tests marked slow {slow:6.1f} s cpu ({len(plugin.slow)} tests); the others, the quick run's tests "
          f"(`-m 'not slow'`, target under 60 s) {sum(plugin.cost.values()) - slow:6.1f} s cpu")
    print(f"target: under 240 s wall on a quiet 2-core machine (issue #19 says 300 s); "
          f"{len(plugin.cost)} tests, outcomes {dict(plugin.outcomes)}")
    print("\ncpu s  per file")
    for name, cost in sorted(per_file.items(), key=lambda kv: -kv[1])[:args.top]:
        print(f"{cost:6.1f}  {name}")
    print(f"\ncpu s  top {args.top} tests (set-up + call + tear-down)")
    for name, cost in sorted(plugin.cost.items(), key=lambda kv: -kv[1])[:args.top]:
        print(f"{cost:6.2f}  {name}")
    # a test whose wall time is far above its CPU time waits (timers, polls, subprocess start-up): on a quiet machine
    # that wait is the floor of its wall time, and no second core shortens it
    idle = {n: plugin.wall[n] - plugin.cost[n] for n in plugin.cost}
    print(f"\nwall - cpu s  top {args.top} waiting tests (their sum over all tests: {sum(idle.values()):.1f} s; "
          f"only meaningful at low load)")
    for name, waited in sorted(idle.items(), key=lambda kv: -kv[1])[:args.top]:
        print(f"{waited:6.2f}  {name}")
    return int(code)


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
