"""Half of a batch of independent work in a forked child process (issue #15: the raw-read floor is one process, the
user's machine has several cores).

Only where it is safe and pays: os.fork exists, more than one CPU is ours, and this process runs one thread (a fork
copies no other thread, and a lock one of them held would stay locked in the child; the TUI discovers in a worker,
so it never forks). The child sends its results back through a pipe with marshal (no import, plain values only) and
leaves with os._exit. Any failure (no fork, a child that dies, hangs or sends what cannot be read back) gives None
for the items concerned, and the caller does those itself: the answer never depends on the child.
"""

from __future__ import annotations

import marshal
import mmap
import os
import select
import struct
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")

CHILD_GRACE_S = 30.0  # a child is waited for this long (plus 4x the parent's own half) before it is killed


def cpus() -> int:
    """The CPUs this process may use (its affinity, not the machine's count)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def can_fork() -> bool:
    return hasattr(os, "fork") and threading.active_count() == 1 and cpus() > 1


def detached(fn: Callable[[], object]) -> bool:
    """Runs `fn()` in a forked child that outlives this process, with its standard streams on /dev/null, so that
    whoever waits for this process's exit or output is not kept waiting for it. False (and nothing run) when no
    child can be made here (no fork, or other threads: one of them could hold a lock the child needs)."""
    if not hasattr(os, "fork") or threading.active_count() != 1:
        return False
    try:
        null = os.open(os.devnull, os.O_RDWR)
    except OSError:
        return False
    try:
        pid = os.fork()
    except OSError:
        os.close(null)
        return False
    if pid:
        os.close(null)
        return True
    try:  # the child: let go of the caller's pipes first (their reader sees end-of-file once this process is gone)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        os.setsid()  # out of the caller's process group: a Ctrl-C there is not for this work
        fn()
    finally:
        os._exit(0)


def in_two(items: Sequence[T], here: Callable[[Sequence[T]], object], there: Callable[[T], Any]) -> list[Any] | None:
    """Runs `here(first half)` in this process while a forked child computes `there(item)` for each item of the
    second half. Returns the second half's results in order (None for an item the child could not compute or send),
    or None when no child was made: the caller then does the second half itself. `there` must return plain values
    (marshal's types: None, bool, int, float, str, bytes, tuple, list, dict, set)."""
    cut = len(items) // 2
    first, second = items[:cut], items[cut:]
    if not second or not can_fork():
        return None
    try:
        read_fd, write_fd = os.pipe()
    except OSError:
        return None
    try:
        pid = os.fork()
    except OSError:
        os.close(read_fd)
        os.close(write_fd)
        return None
    if pid == 0:  # the child: compute, send, leave without running the parent's exit handlers or flushing its buffers
        code = 1
        try:
            os.close(read_fd)
            computed = [_attempt(there, item) for item in second]
            _send(write_fd, computed, computed)
            code = 0
        finally:
            os._exit(code)
    os.close(write_fd)
    started = time.monotonic()
    try:
        here(first)
    finally:
        data = _receive(read_fd, pid, CHILD_GRACE_S + 4 * (time.monotonic() - started))
    return _decode(data, len(second))


BATCH = 128  # results the child publishes at a time (a frame in shared memory), so this process decodes as it goes
SHARED_BYTES = 64 << 20  # the frames' shared memory: address space only; pages exist once written, freed once read


def from_both_ends(items: Sequence[T], first: Callable[[], object], here: Callable[[T], object],
                   there: Callable[[T], Any], take: Callable[[int, Any], object]) -> dict[int, bool] | None:
    """Shares `items` with a forked child from the start: the child computes `there(item)` from the last item
    backwards while this process runs `first()` (its own work, that no child can do) and then `here(item)` from the
    first item onwards, until the two meet. Neither waits for a fixed half: whoever has less of its own work takes
    more items. Each result the child sends is handed to `take(index, result)` here, and not kept; returns {index:
    whether its result came} for the items the child did (one that failed there is this process's to do), having
    run `here` on every other item; None when no child was made (`first` and `here` on every item ran here then).

    The child publishes its results a batch at a time (marshal frames in shared memory, announced through a pipe),
    and this process decodes them between its own items, handing each over at once: so little is left to decode
    when the two meet, whatever the number of items (one message of 10,000 results took longer to send and read
    back than the child had saved).

    The two claim items through two counters in shared memory (this process's next index, the child's lowest). Each
    claims an item before doing it and stops when the other's counter reaches its own: at most the item where they
    meet is done twice (same result), and none is left out. A child that fails leaves its items to this process:
    `here` then runs on each of them (after `take` may have had some: `here` must be able to redo an item)."""
    def alone() -> None:  # no child: all of it here
        first()
        for item in items:
            here(item)

    n = len(items)
    if not n or not can_fork():
        alone()
        return None
    try:
        shared = mmap.mmap(-1, 16)  # anonymous and shared: both processes see both counters
        # [this process's next index, the child's lowest], each read and written as one 8-byte word through a typed
        # view: struct.pack_into zeroes a field before writing it, so the other process could read 0 in between
        # (it did, at about one run in two on 20,000 files: this process then took all the child's items back).
        counters = memoryview(shared).cast("q")
        frames = mmap.mmap(-1, SHARED_BYTES)
        read_fd, write_fd = os.pipe()
        note_r, note_w = os.pipe()
    except (OSError, ValueError):
        alone()
        return None
    counters[0], counters[1] = 0, n
    try:
        pid = os.fork()
    except OSError:
        for fd in (read_fd, write_fd, note_r, note_w):
            os.close(fd)
        alone()
        return None
    if pid == 0:  # the child: from the end backwards, publishing as it goes; then what is left
        code = 1
        try:
            os.close(read_fd)
            os.close(note_r)
            low, batch, at, top = n, [], 0, n  # top: the highest index not yet published
            while low - 1 >= counters[0]:
                low -= 1
                counters[1] = low
                batch.append(_attempt(there, items[low]))
                if len(batch) >= BATCH:
                    blob = _dumps([top, batch], batch)
                    if at + 8 + len(blob) <= SHARED_BYTES:  # else it all goes with the last message
                        struct.pack_into("q", frames, at, len(blob))
                        frames[at + 8 : at + 8 + len(blob)] = blob
                        at += 8 + len(blob)
                        os.write(note_w, struct.pack("q", at))  # after the frame: the pipe orders the two
                        top, batch = low, []
            os.close(note_w)
            batch.reverse()
            _send(write_fd, [low, batch], batch)
            code = 0
        finally:
            os._exit(code)
    os.close(write_fd)
    os.close(note_w)
    os.set_blocking(note_r, False)
    started = time.monotonic()
    got: dict[int, bool] = {}
    reader = _Frames(frames, note_r, n, got, take)
    done = 0
    try:
        first()
        while done < counters[1]:
            counters[0] = done + 1
            here(items[done])
            done += 1
            if not done & 15:
                reader.poll()
    finally:
        counters[0] = n  # the child stops at its next item (this side may be leaving on an error)
        data = _receive(read_fd, pid, CHILD_GRACE_S + 4 * (time.monotonic() - started))
        counters.release()
        shared.close()
    tail = _decode_last(data, n)
    ok = tail is not None and reader.poll(final=True)
    frames.close()
    os.close(note_r)
    if not ok or tail is None or tail[0] + len(tail[1]) != reader.bottom:
        for item in items[done:]:
            here(item)
        return {}
    low, results = tail
    for i, r in enumerate(results):
        got[low + i] = r is not None
        if r is not None:
            take(low + i, r)
    for item in items[done:low]:  # cannot happen (the child stops where this side is); kept for safety
        here(item)
    return got


class _Frames:
    """This process's side of the child's published frames, each [top, results of items top-1, top-2, ...], the
    first with top = n and each next one starting where the last ended (`bottom`)."""

    def __init__(self, frames: mmap.mmap, notes: int, n: int, got: dict[int, bool],
                 take: Callable[[int, Any], object]) -> None:
        self.frames, self.notes, self.got, self.take = frames, notes, got, take
        self.read_to = self.published = self.freed = 0
        self.bottom = n  # the lowest index published so far
        self.broken = False

    def poll(self, final: bool = False) -> bool:
        """Decode what was published since the last look (`final`: the child has exited, so every note is there);
        False once anything was wrong (then nothing more is read)."""
        if self.broken:
            return False
        try:
            while True:
                note = os.read(self.notes, 1 << 16)
                if not note:
                    break
                self.published = struct.unpack_from("q", note, len(note) - 8)[0]  # 8-byte notes, each written whole
        except BlockingIOError:
            if final:  # nobody can still be writing: something is wrong
                self.broken = True
        except (OSError, struct.error):
            self.broken = True
        try:
            while not self.broken and self.read_to < self.published:
                size = struct.unpack_from("q", self.frames, self.read_to)[0]
                start = self.read_to + 8
                top, results = marshal.loads(self.frames[start : start + size])
                if top != self.bottom or not isinstance(results, list) or not 0 < len(results) <= top:
                    raise ValueError("a frame out of place")
                for k, r in enumerate(results):
                    self.got[top - 1 - k] = r is not None
                    if r is not None:
                        self.take(top - 1 - k, r)
                self.bottom = top - len(results)
                self.read_to = start + size
        except (ValueError, EOFError, TypeError, struct.error, OSError):
            self.broken = True
        cut = self.read_to - self.read_to % mmap.PAGESIZE
        if cut > self.freed and hasattr(mmap, "MADV_REMOVE"):  # what is read goes back to the system
            try:
                self.frames.madvise(mmap.MADV_REMOVE, self.freed, cut - self.freed)
                self.freed = cut
            except OSError:  # not on this system: the pages stay until the mapping is closed
                self.freed = len(self.frames)
        return not self.broken


def _decode_last(data: bytes | None, n: int) -> tuple[int, list[Any]] | None:
    """[low, results of items low.. not published before] as the child sent them last, checked; None when
    unusable."""
    got = _unmarshal(data)
    if not (isinstance(got, list) and len(got) == 2 and isinstance(got[0], int) and isinstance(got[1], list)
            and 0 <= got[0] <= n and got[0] + len(got[1]) <= n):
        return None
    return got[0], got[1]


def _attempt(fn: Callable[[T], Any], item: T) -> Any:
    """fn(item), or None when it raises (this process's caller then does the item itself)."""
    try:
        return fn(item)
    except Exception:
        return None


def _dumps(message: list[Any], results: list[Any]) -> bytes:
    """marshal.dumps(message), `results` being part of it: a result marshal refuses (a datetime from a YAML tag)
    becomes None, left to the parent. Checked for the whole message at once, each result only when that fails."""
    try:
        return marshal.dumps(message)
    except Exception:
        for i, r in enumerate(results):
            try:
                marshal.dumps(r)
            except Exception:
                results[i] = None
        return marshal.dumps(message)


def _send(fd: int, message: list[Any], results: list[Any]) -> None:
    view = memoryview(_dumps(message, results))
    while view:
        view = view[os.write(fd, view) :]
    os.close(fd)


def _receive(fd: int, pid: int, timeout: float) -> bytes | None:
    """The child's whole message, or None when it failed or did not finish within `timeout` (it is killed then)."""
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout
    ok = False
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                break
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                ok = True
                break
            chunks.append(chunk)
    except OSError:
        ok = False
    finally:
        os.close(fd)
    if not ok:
        try:
            os.kill(pid, 9)
        except OSError:
            pass
    try:
        _, status = os.waitpid(pid, 0)
    except OSError:
        return None
    return b"".join(chunks) if ok and os.waitstatus_to_exitcode(status) == 0 else None


def _unmarshal(data: bytes | None) -> Any:
    """What a child sent, or None when it sent nothing readable."""
    if data is None:
        return None
    try:
        return marshal.loads(data)
    except (EOFError, ValueError, TypeError):
        return None


def _decode(data: bytes | None, n: int) -> list[Any] | None:
    results = _unmarshal(data)
    if not isinstance(results, list) or len(results) != n:
        return None
    return results
