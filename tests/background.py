"""Long subprocess checks that need nothing from the other tests (mypy) start as soon as collection ends, so they run
beside the rest of the suite on a second core; the test that owns one then only waits for its answer.

A test names its command with `@pytest.mark.background(argv, cwd)` and calls `run(argv, cwd, timeout)`; without the
early start (a run of that test alone, say) `run` starts the command itself, so the test asserts the same either way.
"""

from __future__ import annotations

import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import IO

_Job = tuple[subprocess.Popen[bytes], IO[bytes], IO[bytes]]
_started: dict[tuple[tuple[str, ...], str], _Job] = {}


def _key(argv: Sequence[str], cwd: Path | str) -> tuple[tuple[str, ...], str]:
    return tuple(argv), str(cwd)


def _spawn(argv: Sequence[str], cwd: Path | str) -> _Job:
    # files, not pipes: nobody reads while the suite runs, and a full pipe would stall the command
    out, err = tempfile.TemporaryFile(), tempfile.TemporaryFile()
    return subprocess.Popen(list(argv), cwd=cwd, stdout=out, stderr=err, stdin=subprocess.DEVNULL), out, err


def start(argv: Sequence[str], cwd: Path | str) -> None:
    key = _key(argv, cwd)
    if key not in _started:
        _started[key] = _spawn(argv, cwd)


def run(argv: Sequence[str], cwd: Path | str, timeout: float) -> subprocess.CompletedProcess[str]:
    """The command's answer: from its early start when there was one, else from a run started now."""
    proc, out, err = _started.pop(_key(argv, cwd), None) or _spawn(argv, cwd)
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(60)
        raise
    finally:
        texts = []
        for fh in (out, err):
            fh.seek(0)
            texts.append(fh.read().decode("utf-8", "replace"))
            fh.close()
    return subprocess.CompletedProcess(list(argv), proc.returncode, texts[0], texts[1])


def stop_all() -> None:
    """End the commands no test waited for (a run stopped early by -x or ^C): none outlives the session."""
    while _started:
        _key_, (proc, out, err) = _started.popitem()
        proc.kill()
        proc.wait(60)
        out.close()
        err.close()
