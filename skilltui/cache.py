"""A persistent answer cache for command-line runs on an unchanged tree (`list --json` run again).

The answer is stored with every observation discovery made: each path it stat-ed, listed, opened or found
missing, with its (device, inode, size, mtime_ns, ctime_ns, mode), and each environment variable it read. A stored
answer is used only when every observation is the same again, so a new SKILL.md, an edited settings file or a
changed variable always recomputes. File times are coarse (a few milliseconds), so a path that changed within a
second of the recording is also stored with a hash of its content (files) or names (folders), checked too.

Observations are taken by wrapping `os` and `open` for the duration of one discovery: one place, not a call in
every runtime's code, so no runtime can forget to report a path. Only the thread that records is observed (the
TUI discovers in a worker while its UI thread draws).

The command line stores its answer text; the TUI stores its discovery result as a pickle (`load_object`,
`store_object`) so that its first rows on an unchanged tree do not wait for discovery. The environment is never
written into the pickle (it may hold secrets): a dict equal to it is stored as a reference and the current
environment is put back on load. The key of a stored object includes the size and time of each of skilltui's own
source files, so a changed program never reads objects pickled by another.

Stored in `$XDG_CACHE_HOME/skilltui` (else `~/.cache/skilltui`), a folder of mode 0700 owned by the user, each
entry written atomically with mode 0600. `--no-cache` or `SKILLTUI_NO_CACHE=1` turn it off; a cache that cannot
be read or written is ignored without a word.
"""

from __future__ import annotations

import builtins
import contextlib
import functools
import io
import json
import os
import stat
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from skilltui.record import Record

if TYPE_CHECKING:
    from hashlib import sha256
else:
    try:  # the built-in SHA-256 (same digests): importing hashlib loads OpenSSL, a few ms of every cached run
        from _sha256 import sha256
    except ImportError:  # pragma: no cover - a Python built without it
        from hashlib import sha256

FORMAT = 2  # 2: the observations as columns (paths, one letter of kind each, flat signatures): half the encoding time
_KIND_LETTER = {"stat": "s", "lstat": "l", "list": "d"}  # upper case: the path was missing
_LETTER_KIND = {letter: kind for kind, letter in _KIND_LETTER.items()}
RACY_NS = 1_000_000_000  # a change this close to the recording may not have moved the file times
MAX_ENTRIES = 64
MAX_ANSWER = 64 << 20
MAX_HASHED = 4 << 20  # a racy file larger than this is not cached
WRITER_WAIT_S = 5.0  # a run that misses waits this long at most for a store under way (a detached writer)

Signature = tuple[int, int, int, int, int, int] | None  # (dev, ino, size, mtime_ns, ctime_ns, mode); None: missing
# The real functions, for the cache's own looks while `recording` wraps them.
_stat, _listdir, _open, _readlink = os.stat, os.listdir, os.open, os.readlink


def _signature(path: str, kind: str, st: os.stat_result | None = None) -> Signature:
    """What a look of this kind saw: "list" (a folder's entries), "stat" or "lstat". A stat of a folder depends on
    what the folder is, not on what it holds (its times move whenever anything in it changes, and every ancestor
    of a path is looked at by realpath), so only its identity and type are kept."""
    if st is None:
        try:
            st = _stat(path, follow_symlinks=kind != "lstat")
        except (OSError, ValueError):
            return None
    if kind != "list" and stat.S_ISDIR(st.st_mode):
        return (st.st_dev, st.st_ino, 0, 0, 0, st.st_mode)
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_mode)


def _content_hash(path: str, sig: Signature) -> str | None:
    """What a racy path holds: a file's bytes or a folder's names. None when it cannot be taken cheaply."""
    if sig is None:
        return ""
    mode = sig[5]
    try:
        if stat.S_ISDIR(mode):
            return sha256("\0".join(sorted(_listdir(path))).encode("utf-8", "surrogateescape")).hexdigest()
        if stat.S_ISREG(mode) and sig[2] <= MAX_HASHED:
            fd = _open(path, os.O_RDONLY | os.O_NONBLOCK)
            try:
                return sha256(os.read(fd, MAX_HASHED + 1)).hexdigest()
            finally:
                os.close(fd)
        if stat.S_ISLNK(mode):
            return sha256(os.fsencode(_readlink(path))).hexdigest()
    except (OSError, ValueError):
        return None
    return None


def _unchanged(paths: list[str], kinds: str, sigs: list[int]) -> bool:
    """Every path still looks as `_signature` saw it (`kinds`: one letter each, upper case when it was missing;
    `sigs`: six numbers for each path that was there). `_signature` inlined: a warm run checks every path a scan
    looked at, and this loop is most of its time after the stat calls themselves."""
    isdir, at = stat.S_ISDIR, 0
    for path, letter in zip(paths, kinds, strict=True):
        try:
            st = _stat(path, follow_symlinks=letter not in "lL")
        except (OSError, ValueError):
            if letter.isupper():
                continue
            return False
        if letter.isupper():
            return False
        mode = st.st_mode
        if letter != "d" and isdir(mode):  # a folder's stat: its identity and type only (see _signature)
            if sigs[at : at + 6] != [st.st_dev, st.st_ino, 0, 0, 0, mode]:
                return False
        elif sigs[at : at + 6] != [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns, mode]:
            return False
        at += 6
    return at == len(sigs)


PARALLEL_MIN_PATHS = 2000  # below this many paths, a fork costs more than half the stat calls


def _unchanged_in_two(paths: list[str], kinds: str, sigs: list[int]) -> bool:
    """`_unchanged`, the second half of the paths checked by a forked child meanwhile (parallel.in_two: only where
    that is safe; one process otherwise). A warm run is mostly these stat calls."""
    n = len(paths)
    if n < PARALLEL_MIN_PATHS or len(kinds) != n:
        return _unchanged(paths, kinds, sigs)
    from skilltui import parallel

    cut = n // 2
    at = 6 * (cut - sum(kinds.count(letter, 0, cut) for letter in "SLD"))  # the first half's signature numbers
    halves = [(0, cut, 0, at), (cut, n, at, len(sigs))]

    def check(half: tuple[int, int, int, int]) -> bool:
        a, b, c, d = half
        return _unchanged(paths[a:b], kinds[a:b], sigs[c:d])

    first: list[bool] = []
    got = parallel.in_two(halves, lambda mine: first.append(check(mine[0])), check)
    if not first:  # no child was made: all here
        return _unchanged(paths, kinds, sigs)
    second = got[0] if got is not None and isinstance(got[0], bool) else check(halves[1])  # a failed child: here
    return first[0] and second


class RecordingEnv(dict[str, str]):
    """The environment, noting every variable looked up (present or not)."""

    def __init__(self, env: Mapping[str, str]) -> None:
        super().__init__(env)
        self.seen: dict[str, str | None] = {}

    def __getitem__(self, key: str) -> str:
        self.seen[key] = dict.get(self, key)
        return dict.__getitem__(self, key)

    def get(self, key: str, default: Any = None) -> Any:
        self.seen[key] = dict.get(self, key)
        return dict.get(self, key, default)

    def __contains__(self, key: object) -> bool:
        if isinstance(key, str):
            self.seen[key] = dict.get(self, key)
        return dict.__contains__(self, key)


@dataclass(eq=False, repr=False)  # compared nowhere: no __eq__ to generate at every start
class Recording(Record):
    """What one computation looked at: each path with what it saw, and the variables it read."""

    paths: dict[tuple[str, str], Signature] = field(default_factory=dict)  # (path, kind) -> what was seen first
    env: RecordingEnv | None = None
    started_ns: int = field(default_factory=time.time_ns)

    def note(self, path: Any, kind: str = "stat", st: os.stat_result | None = None, missing: bool = False) -> None:
        """Note a look at `path`; `st` is what a stat call itself returned, `missing` that it failed."""
        if type(path) is str and path[:1] == "/":
            p = path  # discovery joins absolute paths: the common case skips normalising (~2 µs a call)
        elif isinstance(path, int):  # a file descriptor: its path was noted when it was opened
            return
        else:
            try:
                p = os.path.abspath(os.fsdecode(path))
            except (TypeError, ValueError):
                return
        key = (p, kind)
        if key not in self.paths:
            self.paths[key] = None if missing else _signature(p, kind, st)


@contextlib.contextmanager
def recording(env: Mapping[str, str] | None = None) -> Iterator[Recording]:
    """Note every path touched through `os` and `open` (and every variable read from the returned `rec.env`).

    The wrappers run once or twice for every file of a big tree, so the common call (one absolute path as a str,
    no keyword) is noted inline, from what the call itself returned where it can: a stat's result, a failed
    `access(path, F_OK)` (the path is missing, as a failed stat would say); only a new path that was opened,
    listed or found by `access` costs a stat of its own."""
    rec = Recording(env=RecordingEnv(env) if env is not None else None)
    paths, note = rec.paths, rec.note
    owner, current = threading.get_ident(), threading.get_ident  # other threads' looks are not this discovery's
    outer = _active.get(owner)
    _active[owner] = paths
    saved = {name: getattr(os, name) for name in _WRAPPED}
    saved_open = builtins.open

    def wrap(name: str, kind: str) -> Callable[..., Any]:
        real = saved[name]

        def wrapper(path: Any = ".", *args: Any, **kwargs: Any) -> Any:
            if current() != owner:
                pass
            elif not kwargs and type(path) is str and path[:1] == "/":
                if (path, kind) not in paths:
                    paths[(path, kind)] = _signature(path, kind)
            elif kwargs.get("dir_fd") is None:
                note(path, "lstat" if kwargs.get("follow_symlinks", True) is False else kind)
            return real(path, *args, **kwargs)

        return wrapper

    def wrap_stat(name: str, kind: str) -> Callable[..., Any]:
        real = saved[name]  # a stat's own result is what is noted: no second look

        def wrapper(path: Any, *args: Any, **kwargs: Any) -> Any:
            if current() != owner:
                return real(path, *args, **kwargs)
            if kwargs or args or type(path) is not str or path[:1] != "/":
                if kwargs.get("dir_fd") is not None or isinstance(path, int):
                    return real(path, *args, **kwargs)
                how = "lstat" if kwargs.get("follow_symlinks", True) is False else kind
                try:
                    st = real(path, *args, **kwargs)
                except (OSError, ValueError):
                    note(path, how, missing=True)
                    raise
                note(path, how, st)
                return st
            key = (path, kind)
            try:
                st = real(path)
            except (OSError, ValueError):
                if key not in paths:
                    paths[key] = None
                raise
            if key not in paths:
                paths[key] = _signature(path, kind, st)
            return st

        return wrapper

    real_access = saved["access"]

    def access(path: Any, mode: int, *args: Any, **kwargs: Any) -> bool:
        ok: bool = real_access(path, mode, *args, **kwargs)
        if current() != owner:
            pass
        elif not args and not kwargs and type(path) is str and path[:1] == "/" and mode == os.F_OK:
            key = (path, "stat")
            if key not in paths:  # F_OK fails exactly where a stat would: missing (or unreachable)
                paths[key] = _signature(path, "stat") if ok else None
        elif kwargs.get("dir_fd") is None:
            note(path, "lstat" if kwargs.get("follow_symlinks", True) is False else "stat")
        return ok

    def opener(file: Any, *args: Any, **kwargs: Any) -> Any:
        if current() == owner:
            note(file)
        return saved_open(file, *args, **kwargs)

    try:
        os.stat, os.lstat = wrap_stat("stat", "stat"), wrap_stat("lstat", "lstat")
        os.scandir, os.listdir = wrap("scandir", "list"), wrap("listdir", "list")
        os.open, os.readlink = wrap("open", "stat"), wrap("readlink", "lstat")
        os.access = access
        builtins.open = io.open = opener
        yield rec
    finally:
        for name, real in saved.items():
            setattr(os, name, real)
        builtins.open = io.open = saved_open
        if outer is None:
            _active.pop(owner, None)
        else:
            _active[owner] = outer


# The observations of the recording under way in each thread (observing()).
_active: dict[int, dict[tuple[str, str], Signature]] = {}


def observing() -> dict[tuple[str, str], Signature] | None:
    """The observations this thread's recording is taking, or None when it records nothing."""
    return _active.get(threading.get_ident())


def note_stat(observed: dict[tuple[str, str], Signature] | None, path: str, st: os.stat_result | None) -> None:
    """Note in `observed` (observing()) a stat of the absolute `path` that a forked child took (a child records
    nothing itself): `st` what it returned, None for a path it found missing. The first look at a path is kept."""
    if observed is not None and (path, "stat") not in observed:
        observed[(path, "stat")] = None if st is None else _signature(path, "stat", st)


def _nothing_recorded_in_a_child() -> None:
    """A forked child records nothing: its looks would end with it, unseen by the recording. Whoever forks one for
    part of a recorded discovery notes what the child saw from what it sends back (note_stat; discovery's
    look-ahead), and the child is spared the wrappers (a fifth of its time on small files)."""
    if _active:
        _active.clear()
        for name, real in _REAL.items():
            setattr(os, name, real)
        builtins.open = io.open = _REAL_OPEN


_WRAPPED = ("stat", "lstat", "scandir", "listdir", "open", "readlink", "access")
_REAL, _REAL_OPEN = {name: getattr(os, name) for name in _WRAPPED}, builtins.open
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_nothing_recorded_in_a_child)


def cache_dir(env: Mapping[str, str]) -> str:
    base = env.get("XDG_CACHE_HOME") or os.path.join(env.get("HOME") or os.path.expanduser("~"), ".cache")
    return os.path.join(base, "skilltui")


def enabled(env: Mapping[str, str]) -> bool:
    return (env.get("SKILLTUI_NO_CACHE") or "") in ("", "0")


def key_of(parts: object) -> str:
    return sha256(json.dumps([FORMAT, parts], sort_keys=True, default=str).encode()).hexdigest()[:40]


def _fcntl() -> Any:
    """The fcntl module (file locks), or None where there is none (Windows): no entry is stored there."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not on the systems tested here
        return None
    return fcntl


class Store:
    def __init__(self, folder: str) -> None:
        self.folder = folder

    def _private_folder(self) -> bool:
        """The folder exists (made here if need be), is ours, and only we can enter it."""
        try:
            os.makedirs(self.folder, mode=0o700, exist_ok=True)
            st = os.lstat(self.folder)
        except OSError:
            return False
        return stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid() and not st.st_mode & 0o077

    def get_bytes(self, key: str, env: Mapping[str, str]) -> bytes | None:
        """The stored answer, if every observation it was stored with still holds. An entry is one line of JSON
        (the observations) and then the answer as it was written, so the answer is not decoded twice. The
        observations are columns: `paths`; `kinds`, one letter per path (upper case: it was missing); `sigs`, the
        six numbers of each path that was there, in order; `digests`, {index: content hash} of racy paths."""
        try:
            fd = os.open(os.path.join(self.folder, key), os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW)
            try:
                st = os.fstat(fd)
                if not stat.S_ISREG(st.st_mode) or st.st_uid != os.getuid() or st.st_size > 2 * MAX_ANSWER:
                    return None
                data = os.read(fd, st.st_size + 1)
            finally:
                os.close(fd)
            head, _, answer = data.partition(b"\n")
            entry = json.loads(head)
            if entry.get("format") != FORMAT:
                return None
            for name, value in entry["env"].items():
                if env.get(name) != value:
                    return None
            paths, kinds, sigs, digests = entry["paths"], entry["kinds"], entry["sigs"], entry["digests"]
            if len(kinds) != len(paths):
                return None
            if not _unchanged_in_two(paths, kinds, sigs):
                return None
            for index, digest in digests.items():
                path = paths[int(index)]
                if _content_hash(path, _signature(path, _LETTER_KIND[kinds[int(index)].lower()])) != digest:
                    return None
            return answer
        except (OSError, ValueError, KeyError, TypeError, IndexError, AttributeError):
            return None

    def _pending(self, key: str) -> str:
        return os.path.join(self.folder, f".pending-{key}")

    def reserve(self, key: str) -> int | None:
        """The file the entry for `key` is written in (then renamed to its name), created here exclusively with
        mode 0600 and locked (flock) until it is closed: a reader that misses while it is locked waits for it
        (`wait_for_writer`). None when another writer holds it or the folder is not safe to write in."""
        fcntl = _fcntl()
        if fcntl is None or not self._private_folder():
            return None
        path = self._pending(key)
        for _ in range(2):
            try:
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
            except FileExistsError:
                if not self._drop_abandoned(path):
                    return None
                continue
            except OSError:
                return None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:  # only the other writer that just made it could hold it
                os.close(fd)
                return None
            return fd
        return None

    @staticmethod
    def _drop_abandoned(path: str) -> bool:
        """Remove a pending file no writer holds (one that was killed); False when a writer still holds it."""
        fcntl = _fcntl()
        if fcntl is None:
            return False
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except FileNotFoundError:
            return True  # gone meanwhile
        except OSError:
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            if os.path.samestat(os.fstat(fd), os.lstat(path)):  # still that file, not one a new writer just made
                os.unlink(path)
            return True
        except OSError:
            return False
        finally:
            os.close(fd)

    def wait_for_writer(self, key: str, timeout: float = WRITER_WAIT_S) -> bool:
        """Wait (at most `timeout` seconds) while a writer holds the pending file for `key`; True when there was
        one and it is done, so a fresh look may find its entry."""
        fcntl = _fcntl()
        if fcntl is None:
            return False
        try:
            fd = os.open(self._pending(key), os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:
            return False  # no writer under way (the common miss)
        try:
            deadline = time.monotonic() + timeout
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
                    return True
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        return False
                    time.sleep(0.002)
                except OSError:
                    return False
        finally:
            os.close(fd)

    def put_bytes(self, key: str, rec: Recording, answer: bytes | Sequence[bytes], fd: int | None = None) -> None:
        """Store the answer (bytes, or pieces of it written one after the other) with its observations; silently
        nothing when it cannot be stored safely. `fd`: the file `reserve(key)` gave (it is closed here), else the
        entry is reserved here."""
        chunks = [answer] if isinstance(answer, bytes) else answer
        if sum(map(len, chunks)) > MAX_ANSWER or not self._private_folder():
            if fd is not None:
                self._abandon(key, fd)
            return
        racy_from = rec.started_ns - RACY_NS
        paths: list[str] = []
        kinds: list[str] = []
        sigs: list[int] = []
        digests: dict[str, str] = {}
        for (path, kind), sig in rec.paths.items():
            letter = _KIND_LETTER[kind]
            if sig is None:
                letter = letter.upper()
            else:
                sigs += sig
                if sig[3] >= racy_from or sig[4] >= racy_from:
                    digest = _content_hash(path, sig)
                    if digest is None:  # changed just now and cannot be pinned down: do not store
                        if fd is not None:
                            self._abandon(key, fd)
                        return
                    digests[str(len(paths))] = digest
            paths.append(path)
            kinds.append(letter)
        entry = {"format": FORMAT, "env": rec.env.seen if rec.env is not None else {}, "paths": paths,
                 "kinds": "".join(kinds), "sigs": sigs, "digests": digests}
        if fd is None:
            fd = self.reserve(key)
            if fd is None:
                return  # another writer has it in hand, or the folder cannot take it
        tmp = self._pending(key)
        try:
            with os.fdopen(fd, "wb") as f:  # closing it, after the rename, lets a waiting reader in
                # json.dumps(entry) + "\n", written value by value: a big tree's columns are not held twice more
                for i, (name, value) in enumerate(entry.items()):
                    f.write(f'{"," if i else "{"}"{name}":'.encode())
                    f.write(json.dumps(value, ensure_ascii=True, separators=(",", ":")).encode())
                f.write(b"}\n")
                for chunk in chunks:
                    f.write(chunk)
                f.flush()
                os.replace(tmp, os.path.join(self.folder, key))
        except (OSError, ValueError):
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            return
        self._trim()

    def _abandon(self, key: str, fd: int) -> None:
        with contextlib.suppress(OSError):
            os.unlink(self._pending(key))
        os.close(fd)

    def _trim(self) -> None:
        try:
            entries = [e for e in os.scandir(self.folder) if not e.name.startswith(".")]
            if len(entries) > MAX_ENTRIES:
                entries.sort(key=lambda e: e.stat(follow_symlinks=False).st_mtime_ns)
                for e in entries[: len(entries) - MAX_ENTRIES]:
                    os.unlink(e.path)
        except OSError:
            pass


def cached_answer(parts: object, env: Mapping[str, str], compute: Callable[[Mapping[str, str]], str]) -> str:
    """`cached_chunks` for an answer that is one text."""
    chunks = cached_chunks(parts, env, lambda e: [compute(e).encode("utf-8", "surrogateescape")])
    return b"".join(chunks).decode("utf-8", "surrogateescape")


def cached_chunks(parts: object, env: Mapping[str, str], compute: Callable[[Mapping[str, str]], Sequence[bytes]],
                  later: list[Callable[[], None]] | None = None) -> Sequence[bytes]:
    """`compute(env)` as UTF-8 pieces (never joined: a big answer is not held twice), or its stored answer for the
    same `parts` on an unchanged tree and environment, as one piece.

    `later`: the store of a new answer is appended there instead of done, for the caller to run once the answer is
    out (the command line does it in a detached process). The entry is reserved now, so a run that starts after
    this one has answered and misses waits for that store (`Store.wait_for_writer`) and then finds it."""
    if not enabled(env):
        return compute(env)
    store, key = Store(cache_dir(env)), key_of(parts)
    hit = store.get_bytes(key, env)
    if hit is None and store.wait_for_writer(key):
        hit = store.get_bytes(key, env)
    if hit is not None:
        return [hit]
    with recording(env) as rec:
        chunks = compute(rec.env if rec.env is not None else env)
    if later is None:
        store.put_bytes(key, rec, chunks)
    else:
        fd = store.reserve(key)
        if fd is not None:
            later.append(lambda: store.put_bytes(key, rec, chunks, fd))
    return chunks


# ---------------------------------------------------------------- objects (the TUI's discovery result)
_ENV_REF = "env"


def _code_stamp() -> list[tuple[str, int, int]]:
    """(file, size, mtime_ns) of each of skilltui's source files: objects pickled by other code are never read."""
    root = os.path.dirname(os.path.abspath(__file__))
    out = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                with contextlib.suppress(OSError):
                    st = _stat(path)
                    out.append((os.path.relpath(path, root), st.st_size, st.st_mtime_ns))
    return out


@functools.cache
def _picklers() -> tuple[type, type]:
    """(pickler, unpickler) classes; pickle is imported only here, where the TUI needs it (a `list` run does not)."""
    import pickle

    class Pickler(pickle.Pickler):
        """Pickles, with any dict equal to the environment stored as a reference (never its values)."""

        def __init__(self, file: io.BytesIO, env: Mapping[str, str]) -> None:
            super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
            self.env, self.size = dict(env), len(env)

        def persistent_id(self, obj: Any) -> str | None:
            if isinstance(obj, dict) and len(obj) == self.size and obj == self.env:
                return _ENV_REF
            return None

    class Unpickler(pickle.Unpickler):
        def __init__(self, file: io.BytesIO, env: Mapping[str, str]) -> None:
            super().__init__(file)
            self.env = env

        def persistent_load(self, pid: Any) -> Any:
            if pid == _ENV_REF:
                return dict(self.env)  # the current environment, as discovery's own copy would be
            raise pickle.UnpicklingError(f"unknown reference {pid!r}")

    return Pickler, Unpickler


def object_key(parts: object) -> str:
    return key_of(["object", parts, _code_stamp()])


def load_object(parts: object, env: Mapping[str, str]) -> Any | None:
    """The object stored for `parts` when every observation it was stored with still holds, else None."""
    if not enabled(env):
        return None
    data = Store(cache_dir(env)).get_bytes(object_key(parts), env)
    if data is None:
        return None
    import pickle

    try:
        return _picklers()[1](io.BytesIO(data), env).load()
    except (pickle.UnpicklingError, EOFError, AttributeError, ImportError, IndexError, KeyError, TypeError,
            ValueError):  # written by an older layout or damaged: discover again
        return None


def store_object(parts: object, env: Mapping[str, str], rec: Recording, value: object) -> None:
    """Store `value` with what `rec` observed while it was computed; silently nothing when it cannot be."""
    if not enabled(env):
        return
    import pickle

    buf = io.BytesIO()
    try:
        _picklers()[0](buf, env).dump(value)
    except (pickle.PicklingError, AttributeError, TypeError, RecursionError):  # something that does not pickle
        return
    Store(cache_dir(env)).put_bytes(object_key(parts), rec, buf.getvalue())
