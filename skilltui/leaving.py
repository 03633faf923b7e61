"""What a process about to end holds on to instead of freeing.

The command line ends right after its answer, without the interpreter's teardown (cli.run). Freeing a big scan's
catalog and temporaries object by object just before that is work for nothing: on 20,000 skills it took ~20 ms, a
twentieth of a cold `list --json`, and more per skill than on 6,000 (the objects no longer fit in the CPU's caches).
Once `start()` is called, `keep` holds what it is given until the process ends; until then (the TUI, the tests, a
library caller) it does nothing, and everything is freed as usual.
"""

from __future__ import annotations

_kept: list[object] | None = None


def start() -> None:
    """This process ends when its command returns: from now on, `keep` keeps."""
    global _kept
    if _kept is None:
        _kept = []


def active() -> bool:
    return _kept is not None


def keep(*objects: object) -> None:
    """Hold `objects` until the process ends, when it is leaving; nothing otherwise."""
    if _kept is not None:
        _kept.append(objects)
