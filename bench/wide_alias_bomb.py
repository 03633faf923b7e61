"""Wide YAML alias bomb (issue #17.5): one anchor of 19,000 items aliased 2,000 times. Prints parse time, JSON size."""

import json
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from skilltui.frontmatter import parse_claude


def bomb(items: int = 19_000, refs: int = 2_000) -> str:
    lines = ["description: wide bomb", "a: &a [" + ",".join("x" for _ in range(items)) + "]"]
    lines += [f"k{i}: *a" for i in range(refs)]
    return "---\n" + "\n".join(lines) + "\n---\nbody\n"


text = bomb()
start = time.perf_counter()
fm = parse_claude(text)
parsed = time.perf_counter() - start
size = len(json.dumps(fm.data))
print(f"file {len(text):,} bytes  parse {parsed:.3f} s  status {fm.status}  json {size:,} chars  "
      f"peak {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
