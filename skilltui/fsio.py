"""The one safe way skilltui reads a file it did not write (issue #17: nothing hangs, nothing reads without end).

Every read opens with O_NONBLOCK (a FIFO swapped in cannot block the open), checks with fstat on the opened file that it
is a regular file (a FIFO, device or socket is refused, whatever a stat before the open said), and reads at most a cap.
JSON is parsed as JavaScript's JSON.parse reads numbers: an integer too long for Python's int() (4,300 digits) becomes a
float (Infinity when out of range) instead of a ValueError.
"""

from __future__ import annotations

import errno
import json
import os
import stat
from dataclasses import dataclass
from typing import Any, BinaryIO

from skilltui.record import Record

__all__ = ["FLAGS", "Capped", "NotRegularFile", "js_int", "json_loads", "kind", "open_binary", "open_regular", "read_capped_bytes"]

FLAGS = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) \
    | getattr(os, "O_BINARY", 0)


class NotRegularFile(OSError):
    """The path names a FIFO, device, socket or folder: refused before any read."""


@dataclass(frozen=True, eq=False, repr=False)  # compared nowhere: no __eq__ to generate at every start
class Capped(Record):
    """A regular file's bytes, read within a cap."""

    data: bytes  # at most `cap` bytes
    size: int  # bytes on disk (at least len(data))
    truncated: bool  # the file holds more than `cap` bytes
    st: os.stat_result  # fstat of the opened file


def kind(mode: int) -> str:
    """What a non-regular file is, as a phrase after "is": "a directory", "a named pipe"..."""
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def open_regular(path: str | os.PathLike[str]) -> tuple[int, os.stat_result]:
    """(fd, fstat) of `path` opened read-only without blocking; raises NotRegularFile (an OSError) unless it is a
    regular file, and any other OSError as open() would (FileNotFoundError, PermissionError...)."""
    try:
        fd = os.open(path, FLAGS)
    except ValueError as exc:  # an embedded NUL: no such file can exist
        raise FileNotFoundError(errno.ENOENT, f"the path holds a NUL character ({exc})", os.fspath(path)) from None
    try:
        st = os.fstat(fd)
    except BaseException:
        os.close(fd)
        raise
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        err = errno.EISDIR if stat.S_ISDIR(st.st_mode) else errno.EINVAL
        raise NotRegularFile(err, f"is {kind(st.st_mode)}, not a regular file", os.fspath(path))
    return fd, st


def open_binary(path: str | os.PathLike[str]) -> BinaryIO:
    """`open(path, "rb")` for a regular file only, opened without blocking (see open_regular)."""
    fd, _ = open_regular(path)
    return os.fdopen(fd, "rb")


def read_fd(fd: int, cap: int, hint: int) -> bytes:
    """At most cap + 1 bytes from `fd` (one more than the cap tells a larger file); `hint` sizes the first read."""
    data = os.read(fd, min(max(hint, 0), cap) + 1)
    while len(data) <= cap:
        more = os.read(fd, min(cap + 1 - len(data), 1 << 20))
        if not more:
            break
        data += more
    return data


def read_capped_bytes(path: str | os.PathLike[str], cap: int) -> Capped:
    """Read at most `cap` bytes of the regular file `path`. Raises OSError (NotRegularFile for a FIFO/device/folder)."""
    fd, st = open_regular(path)
    try:
        data = read_fd(fd, cap, st.st_size)
    finally:
        os.close(fd)
    truncated = len(data) > cap
    return Capped(data[:cap] if truncated else data, max(st.st_size, len(data)), truncated, st)


def js_int(text: str) -> int | float:
    """A JSON integer as JavaScript reads it: exact while Python can, else a double (inf when out of range)."""
    if len(text) <= 4000:
        return int(text)
    return float(text)


def json_loads(text: str | bytes, **kw: Any) -> Any:
    """json.loads with JavaScript's reading of very long integers (never "Exceeds the limit (4300 digits)")."""
    return json.loads(text, parse_int=js_int, **kw)
