"""Recompute time of the budget listing for 1,000 entries when only the context window changes.

Run: python bench/bench_listing.py    (not a test; prints figures and the machine they were measured on)
"""

from __future__ import annotations

import os
import platform
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from skilltui.model import Skill
from skilltui.runtimes.claude.listing import prepare, resolve_budget, simulate_prepared
from skilltui.runtimes.claude.shipped import SHIPPED

N = 1000
WORDS = ["deploy", "review", "日本語の説明", "emoji 🧑\u200d🚀", "किताब", "<tag>", "line\nbreak", "café", "tests"]


def make_skills(n: int, seed: int = 1) -> list[Skill]:
    rnd = random.Random(seed)
    skills = []
    for i in range(n - len(SHIPPED["2.1.332"])):
        desc = " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(3, 300)))
        wtu = "when " + rnd.choice(WORDS) if rnd.random() < 0.3 else None
        skills.append(Skill(f"skill-{i:04d}", "user", "", "", description=desc, when_to_use=wtu))
    skills += [Skill(e.name, e.source, "", "", shipped=True) for e in SHIPPED["2.1.332"]]
    return skills


def main() -> None:
    skills = make_skills(N)
    usage = {f"skill-{i:04d}": {"usageCount": i % 7, "lastUsedAt": 0} for i in range(0, N, 3)}
    t0 = time.perf_counter()
    prepared = prepare(skills, usage=usage, now_ms=7 * 86_400_000)
    first = time.perf_counter() - t0

    windows = [100_000 + 9_000 * k for k in range(200)]  # what a slider or typing would produce
    arith, full = [], []
    for w in windows:
        budget = resolve_budget(env={}, context_window=w).budget
        t0 = time.perf_counter()
        listing = simulate_prepared(prepared, budget)
        t1 = time.perf_counter()
        _ = listing.entries, listing.text  # what a view reads: per-entry states and the rows
        t2 = time.perf_counter()
        arith.append(t1 - t0)
        full.append(t2 - t0)
    print(f"machine: {platform.platform()}, {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}")
    print(f"entries: {len(skills)} ({sum(len(s.description or '') for s in skills):,} description chars)")
    print(f"first prepare (rows, sanitising, widths, usage order): {first * 1000:.1f} ms")
    print(f"recompute for a new window, median of {len(windows)}: {statistics.median(arith) * 1000:.3f} ms "
          f"(arithmetic only), {statistics.median(full) * 1000:.3f} ms (with entries + text)")


if __name__ == "__main__":
    main()
