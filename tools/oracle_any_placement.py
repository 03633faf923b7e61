#!/usr/bin/env python3
"""oracle.py for models whose skill listing is not a `<system-reminder>` block (dev-only, not part of the suite).

Claude Code 2.1.332 sends the listing to `claude-sonnet-4-6` (oracle.py's default) as a `<system-reminder>` block of
the first user message; to `claude-opus-5-5`, the aliases, unknown ids and the legacy Opus ids it remaps, the same
rows follow the agents list inside a system-role message ("...Skill tool:\\n\\n" rows "\\n\\nToday's date is ...").
oracle.py reads only the first form. This runs a copy of it whose `find_listing` also reads the second; nothing
else changes (same tools, same mock API, same output). Use it where a recorder takes the oracle's path:

    SKILLTUI_ORACLE=tools/oracle_any_placement.py python3 tests/fixtures/claude/record.py CASE
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

SHARED = Path(os.environ.get("SKILLTUI_SHARED", Path(__file__).resolve().parents[2] / "shared"))
ORIGINAL = '''    for request in requests:
        for message in request.get("messages", []):
            blocks = message.get("content")
            for block in blocks if isinstance(blocks, list) else []:
                text = block.get("text", "")
                if text.startswith(LISTING_HEAD) and text.endswith(LISTING_TAIL):
                    return text[len(LISTING_HEAD):-len(LISTING_TAIL)], request
    return None, None
'''
SYSTEM_HEAD, SYSTEM_TAIL = "The following skills are available for use with the Skill tool:\n\n", "\n\nToday's date is"
ALSO = f'''    for request in requests:
        for message in request.get("messages", []):
            blocks = message.get("content")
            for block in blocks if isinstance(blocks, list) else [{{"text": blocks}}]:
                text = block.get("text", "") if isinstance(block, dict) and message.get("role") == "system" else ""
                start = text.find({SYSTEM_HEAD!r})
                if start >= 0:
                    end = text.find({SYSTEM_TAIL!r}, start)
                    return text[start + {len(SYSTEM_HEAD)}:end if end >= 0 else len(text)], request
    return None, None
'''


def main(argv: list[str]) -> int:
    source = (SHARED / "oracle" / "oracle.py").read_text(encoding="utf-8")
    if source.count(ORIGINAL) != 1:
        print("oracle_any_placement: oracle.py's find_listing is not the one this was written for", file=sys.stderr)
        return 2
    patched = source.replace(ORIGINAL, ORIGINAL.replace("    return None, None\n", "") + ALSO)
    with tempfile.TemporaryDirectory(prefix="oracle-any-") as tmp:
        copy = Path(tmp) / "oracle.py"
        copy.write_text(patched, encoding="utf-8")
        return subprocess.run([sys.executable, str(copy), *argv]).returncode


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
