"""The one careful writer of a user's settings file (DESIGN.md "Never lose a user's settings", spec/cli.md).

It sets ONE member at a key path, e.g. ("enabledPlugins", "demo@mkt") -> True, and changes only the text of that one
value: order, indentation, escapes, line endings, BOM, final newline and every other byte stay as they were. A missing
member is added as the last member of its object in the style of its neighbours; a missing parent object is added the
same way; a missing file (and folder) is created as `{"enabledPlugins": {ID: value}}`, 2-space indented.

Choices worth knowing:
- An empty file (0 bytes, or only whitespace / a BOM) holds no settings, so it is treated as a missing file and written
  from scratch (a BOM, if any, is kept).
- Strict JSON: NaN/Infinity (which Python's json accepts) and non-UTF-8 bytes are refused as not valid JSON.
- "Read-only" is judged from the permission bits as well as os.access(): as root os.access() says yes to everything,
  and os.replace() would swap a read-only file out from under its owner; a user's "read-only" is honoured either way.
- preview() runs every refusal set_member() would (so the TUI can say "cannot write" before asking to confirm).
- Nothing is written when the file already holds exactly that value text (Change.changed is False).
- A rename replaces the file's inode: its mode (and, when allowed, owner) is copied, but hard links to the old inode,
  ACLs and extended attributes are not carried over.
- Only a regular file is ever replaced (or a missing one created), judged by fstat on what was opened: a settings path
  that leads to a device, FIFO, socket or folder is refused, whoever runs skilltui (issue #17).
- Writers of skilltui serialise on an advisory lock (flock) on the target's folder, held around read-check-write, so
  no success of one is lost to another; no lock file is left in the user's folder. Claude Code does not take that
  lock: against it, the re-check before the rename narrows, but cannot close, the window.
- Temp files of our own pattern (`.<name>.<8 hex>.tmp`) left by a killed writer are removed on the next write (under
  the lock, so never another writer's live one). A failed fsync of the folder after the rename is reported as an error.
- A file larger than Claude Code's settings cap (2 MiB) is refused: Claude Code does not read it, so skilltui neither
  reads it as settings nor edits it.
- `within` (project and local scope): a write whose real target (links resolved) leaves that folder is refused with
  OutsideError unless the caller confirmed it (the CLI's --follow-links; the TUI dialog shows the real target).
"""

from __future__ import annotations

import difflib
import errno
import fcntl
import json
import os
import re
import secrets
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass
from json.decoder import scanstring  # type: ignore[attr-defined]  # public in CPython, untyped in typeshed
from typing import Any, NoReturn

from skilltui import fsio
from skilltui.record import Record

__all__ = ["CAP", "Change", "OutsideError", "SettingsWriteError", "append_line", "is_outside", "plan_append", "preview",
           "read_json_object", "set_member", "text_diff"]

CAP = 2 * 1024 * 1024  # Claude Code's settings cap (oracle, 2026-12-03): a larger file is not read, so not edited
LOCK_TIMEOUT = 20.0  # seconds to wait for another skilltui writer of the same file

BOM = b"\xef\xbb\xbf"
_WS = re.compile(r"[ \t\n\r]*")  # JSON whitespace, exactly these four
_WS_INLINE = re.compile(r"[ \t]*")


def _ws_end(s: str, i: int) -> int:
    """Index after the JSON whitespace starting at s[i] (a `*` pattern always matches)."""
    m = _WS.match(s, i)
    assert m is not None
    return m.end()
# (value, end) for the JSON value starting at an index (C scanner); long integers read as JavaScript reads them
_scan_value: Callable[[str, int], tuple[Any, int]] = json.JSONDecoder(parse_int=fsio.js_int).scan_once  # type: ignore[attr-defined]

# A refusal: raises SettingsWriteError with the reason; never returns.
Fail = Callable[[str], NoReturn]


class SettingsWriteError(Exception):
    """A refusal: one line, naming the file; nothing was written."""


class OutsideError(SettingsWriteError):
    """The real target (links resolved) is outside the folder the write was confined to."""

    def __init__(self, message: str, target: str) -> None:
        super().__init__(message)
        self.target = target


@dataclass(repr=False)
class Change(Record):
    path: str  # the file as named by the user
    target: str  # the real file written (symbolic links resolved)
    old_line: str | None  # line(s) of the member before; None when it did not exist
    new_line: str  # line(s) of the member after
    created: bool  # the file did not exist
    changed: bool = True  # False when the file already held exactly this; nothing is written then
    outside: bool = False  # the real target leaves the folder the write is confined to (a link points out of it)
    before: bytes | None = None  # the file's bytes as read (None: no file)
    after: bytes = b""  # the bytes the write puts there: what a dialog shows, computed by the writer itself

    def diff(self, context: int = 1) -> list[str]:
        """Every line the write adds, removes or changes (see text_diff)."""
        return text_diff(self.before, self.after, context)


def _text_lines(data: bytes | None) -> list[str]:
    if not data:
        return []
    text = data.decode("utf-8", errors="replace").removeprefix("\ufeff")
    lines = [ln.removesuffix("\r") for ln in text.split("\n")]
    return lines[:-1] if text.endswith("\n") else lines


def text_diff(before: bytes | None, after: bytes, context: int = 1) -> list[str]:
    """A unified diff of the exact bytes before and after a write, without its file header: `@@` hunk lines, then
    lines starting with " ", "-" or "+". Line endings and a BOM are not shown; a blank line added is a lone "+"."""
    return list(difflib.unified_diff(_text_lines(before), _text_lines(after), lineterm="", n=context))[2:]


# ---------------------------------------------------------------- tokenizer: spans of one object's members


@dataclass(repr=False)
class _Member(Record):
    key: str  # unescaped
    key_start: int  # index of the key's opening quote
    colon: str  # text between the key and the value (": ", " : ", ":")
    value_start: int
    value_end: int


@dataclass(repr=False)
class _Obj(Record):
    start: int  # index of "{"
    end: int  # index after "}"
    members: list[_Member]


def _object(s: str, i: int) -> _Obj:
    """Members of the object whose "{" is at s[i]. `s` is already known to be valid JSON, so no error checks here;
    nested values are skipped whole by the C scanner, so only the objects on the key path are walked."""
    members: list[_Member] = []
    j = _ws_end(s, i + 1)
    while s[j] != "}":
        key, k_end = scanstring(s, j + 1)
        v = _ws_end(s, _ws_end(s, k_end) + 1)
        v_end = _scan_value(s, v)[1]
        members.append(_Member(key, j, s[k_end:v], v, v_end))
        j = _ws_end(s, v_end)
        if s[j] == ",":
            j = _ws_end(s, j + 1)
    return _Obj(i, j + 1, members)


# ---------------------------------------------------------------- style of the file


def _dumps(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate cannot be written raw in UTF-8: escape it instead
        text = json.dumps(value)
    return text


def _indent_unit(s: str) -> str:
    """The file's indentation step: a tab if the first indented line uses tabs, else the smallest space indent."""
    indents = re.findall(r"\n([ \t]+)[^ \t\r\n]", s)
    if not indents:
        return "  "
    if indents[0].startswith("\t"):
        return "\t"
    spaces = [len(x) for x in indents if not x.startswith("\t")]
    return " " * min(spaces)


def _line_indent(s: str, pos: int) -> str:
    start = s.rfind("\n", 0, pos) + 1
    m = _WS_INLINE.match(s, start)
    assert m is not None  # a `*` pattern always matches
    return s[start : m.end()]


def _lines(s: str, a: int, b: int) -> str:
    """The full text line(s) covering s[a:b], for a one-line diff display."""
    start = s.rfind("\n", 0, a) + 1
    end = s.find("\n", b)
    return s[start : len(s) if end < 0 else end].replace("\r\n", "\n").rstrip("\r")


# ---------------------------------------------------------------- the edit itself (pure, on text)


def _insert(s: str, obj: _Obj, kv: str, colon: str, unit: str, nl: str, multiline: bool) -> tuple[str, int]:
    """Add member text `kv` as the last member of `obj`. Returns the new text and where `kv` starts in it."""
    if obj.members:
        last = obj.members[-1]
        if len(obj.members) > 1:  # copy the separator between the last two members: comma, line ending, indent
            sep = s[obj.members[-2].value_end : last.key_start]
        else:  # one member: reuse the whitespace before it (on its own line) or a space as `: ` suggests
            gap = s[obj.start + 1 : last.key_start]
            sep = "," + (gap if "\n" in gap else (" " if colon.endswith(" ") else ""))
        pos = last.value_end
        return s[:pos] + sep + kv + s[pos:], pos + len(sep)
    inner = s[obj.start + 1 : obj.end - 1]  # only whitespace
    if multiline or "\n" in inner:
        ind = _line_indent(s, obj.start)
        head = "{" + nl + ind + unit
        new = head + kv + nl + ind + "}"
    else:  # `{}` inside a one-line file stays on one line
        head = "{" + inner
        new = head + kv + inner + "}"
    return s[: obj.start] + new + s[obj.end :], obj.start + len(head)


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    return {dict: "an object", list: "an array", str: "a string", type(None): "null"}.get(type(value), "a number")


def _apply(s: str, keys: tuple[str, ...], value: Any, fail: Fail) -> tuple[str, str | None, str]:
    """Set `keys` to `value` in the JSON text `s` (valid, top level an object). Returns (new text, old member lines or
    None, new member lines). With duplicate keys the last one is used, as JSON parsers keep the last."""
    unit = _indent_unit(s)
    nl = "\r\n" if "\r\n" in s[: s.find("\n") + 1] else "\n"
    obj = _object(s, _ws_end(s, 0))
    # A file that is only `{}` grows onto several lines (a new settings file); a one-line file stays on one line.
    multiline = not obj.members or "\n" in s[obj.start : obj.end]
    colon = ": "
    for depth, key in enumerate(keys):
        if obj.members and "\n" not in obj.members[-1].colon:
            colon = obj.members[-1].colon  # spacing around ":" as the siblings (or the enclosing object) have it
        leaf = depth == len(keys) - 1
        payload = _dumps(value) if leaf else "{}"
        found = [m for m in obj.members if m.key == key]
        if not found:
            kv = _dumps(key) + colon + payload
            s, at = _insert(s, obj, kv, colon, unit, nl, multiline)
            if leaf:
                return s, None, _lines(s, at, at + len(kv))
            obj = _object(s, at + len(kv) - 2)  # the "{}" just added; fill it on the next round
            continue
        m = found[-1]
        if leaf:
            new = s[: m.value_start] + payload + s[m.value_end :]
            return new, _lines(s, m.key_start, m.value_end), _lines(new, m.key_start, m.value_start + len(payload))
        if s[m.value_start] != "{":
            path = ".".join(json.dumps(k, ensure_ascii=False) for k in keys[: depth + 1])
            fail(f"{path} is {_kind(_scan_value(s, m.value_start)[0])}, not a JSON object")
        obj = _object(s, m.value_start)
    raise AssertionError("unreachable")


# ---------------------------------------------------------------- reading


@dataclass(frozen=True, repr=False)
class _Snapshot(Record):
    data: bytes | None  # None: no file
    ident: tuple[int, int, int] | None  # (mtime_ns, size, inode)
    mode: int | None


def _read(target: str, fail: Fail) -> _Snapshot:
    """The target's bytes, through fsio: opened without blocking, refused unless fstat says regular file, capped."""
    try:
        fd, st = fsio.open_regular(target)
    except FileNotFoundError:
        if os.path.lexists(target):  # a link that leads nowhere (or a NUL in the path): not ours to create
            fail("it is a link to a missing file" if os.path.islink(target) else "it cannot be opened")
        return _Snapshot(None, None, None)
    except fsio.NotRegularFile as e:
        fail(f"it {e.strerror}")
    except OSError as e:
        fail(f"it cannot be read ({e.strerror or e})")
    try:
        data = fsio.read_fd(fd, CAP, st.st_size)
    except OSError as e:
        fail(f"it cannot be read ({e.strerror or e})")
    finally:
        os.close(fd)
    if len(data) > CAP:
        fail(f"it is larger than {CAP:,} bytes, so Claude Code does not read it; not edited")
    return _Snapshot(data, (st.st_mtime_ns, st.st_size, st.st_ino), stat.S_IMODE(st.st_mode))


def _no_constants(name: str) -> NoReturn:
    raise ValueError(f"{name} is not JSON")


def _parse(data: bytes, fail: Fail, comments: bool = False) -> tuple[bytes, str | None, dict[str, Any] | None]:
    """(BOM or b"", text without BOM or None when empty, parsed object or None when empty). `comments`: the file may
    hold `//` and `/* */` comments (nothing else is relaxed: a trailing comma is still refused)."""
    bom = BOM if data.startswith(BOM) else b""
    try:
        text = data[len(bom) :].decode("utf-8")
    except UnicodeDecodeError:
        fail("not valid JSON (not UTF-8 text)")
    if not _WS.fullmatch(text):
        try:
            obj = fsio.json_loads(mask_comments(text) if comments else text, parse_constant=_no_constants)
        except json.JSONDecodeError as e:
            fail(f"not valid JSON ({e.msg} at line {e.lineno} column {e.colno})")
        except (ValueError, RecursionError) as e:
            fail(f"not valid JSON ({e})")
        if not isinstance(obj, dict):
            fail(f"the top level is {_kind(obj)}, not a JSON object")
        return bom, text, obj
    return bom, None, None


def _failer(name: str, verb: str, context: str = "") -> Fail:
    def fail(reason: str) -> NoReturn:
        raise SettingsWriteError(f"cannot {verb} {name}: {context}{reason}")

    return fail


def read_json_object(path: str | os.PathLike[str], comments: bool = False) -> dict[str, Any] | None:
    """The settings object in `path`; None when the file is missing or empty. Raises SettingsWriteError when it cannot
    be read, is not valid JSON or not an object."""
    fail = _failer(os.fspath(path), "read")
    snap = _read(os.path.realpath(path), fail)
    return None if snap.data is None else _parse(snap.data, fail, comments)[2]


# ---------------------------------------------------------------- preview / write


def mask_comments(text: str) -> str:
    """`//` and `/* */` comments outside strings replaced by spaces (line breaks kept): same length, same offsets, so
    JSON-with-comments files (Gemini CLI's settings) parse and are edited as plain JSON, then spliced back."""
    out = list(text)
    i, n = 0, len(text)
    while i < n:
        if text[i] == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
            i += 1
            continue
        if text.startswith("//", i):
            end = min((k for k in (text.find("\n", i), text.find("\r", i)) if k >= 0), default=n)
        elif text.startswith("/*", i):
            close = text.find("*/", i + 2)
            end = n if close < 0 else close + 2
        else:
            i += 1
            continue
        for j in range(i, end):
            if text[j] not in "\r\n":
                out[j] = " "
        i = end
    return "".join(out)


def _splice(original: str, masked: str, new_masked: str, fail: Fail) -> str:
    """The one contiguous edit between `masked` and `new_masked`, applied to `original` (whose comments `masked`
    blanked): every byte outside the edited value, comments included, stays. An edit that would replace a comment
    (one inside the old value, or the only content of an empty object) is refused rather than made."""
    p = 0
    limit = min(len(masked), len(new_masked))
    while p < limit and masked[p] == new_masked[p]:
        p += 1
    q = 0
    while q < limit - p and masked[len(masked) - 1 - q] == new_masked[len(new_masked) - 1 - q]:
        q += 1
    if original[p : len(original) - q] != masked[p : len(masked) - q]:
        fail("the change would remove a comment inside the edited value; edit that part by hand")
    return original[:p] + new_masked[p : len(new_masked) - q] + original[len(original) - q :]


def _compute(name: str, target: str, snap: _Snapshot, keys: tuple[str, ...], value: Any, fail: Fail,
             comments: bool = False) -> tuple[bytes, Change]:
    bom, text, _ = _parse(snap.data, fail, comments) if snap.data is not None else (b"", None, None)
    if comments and text is not None:
        masked = mask_comments(text)
        new_masked, old_line, new_line = _apply(masked, keys, value, fail)
        new_text = _splice(text, masked, new_masked, fail)
    else:
        new_text, old_line, new_line = _apply(text if text is not None else "{}\n", keys, value, fail)
    new = bom + new_text.encode("utf-8")
    return new, Change(name, target, old_line, new_line, snap.data is None, new != snap.data, before=snap.data, after=new)


def _read_only(st: os.stat_result, path: str) -> bool:
    return not (st.st_mode & 0o222) or not os.access(path, os.W_OK)


def _check_writable(target: str, snap: _Snapshot, fail: Fail) -> None:
    if snap.data is not None and _read_only(os.stat(target), target):
        fail("the file is read-only")
    folder = os.path.dirname(target)
    while not os.path.exists(folder):  # missing folders will be made inside the nearest existing one
        folder = os.path.dirname(folder)
    if not os.path.isdir(folder):
        fail(f"{folder} is not a folder")
    if _read_only(os.stat(folder), folder) or not os.access(folder, os.X_OK):
        fail(f"the folder {folder} is read-only")


def _check_keys(keys: tuple[str, ...]) -> tuple[str, ...]:
    keys = tuple(keys)
    if not keys or not all(isinstance(k, str) for k in keys):
        raise ValueError(f"keys must be a non-empty tuple of strings, not {keys!r}")
    return keys


def is_outside(target: str, within: str | os.PathLike[str] | None) -> bool:
    """True when the real path `target` is not inside the real folder `within` (None: no confinement)."""
    if within is None:
        return False
    root = os.path.realpath(within)
    return os.path.commonpath([root, target]) != root


def _confine(name: str, target: str, within: str | os.PathLike[str] | None) -> None:
    if is_outside(target, within):
        raise OutsideError(f"cannot write {name}: it leads outside the project, to {target}; nothing written "
                           "(confirm that real target to write it: --follow-links)", target)


def preview(path: str | os.PathLike[str], keys: tuple[str, ...], value: Any, comments: bool = False, *,
            within: str | os.PathLike[str] | None = None) -> Change:
    """The change set_member() would make, without writing. Raises the same refusals, except that a real target
    outside `within` is reported in Change.outside (for the caller to show and confirm) rather than refused."""
    name, target = os.fspath(path), os.path.realpath(path)
    fail = _failer(name, "write")
    snap = _read(target, fail)
    change = _compute(name, target, snap, _check_keys(keys), value, fail, comments)[1]
    change.outside = is_outside(target, within)
    if change.changed:
        _check_writable(target, snap, fail)
    return change


def set_member(path: str | os.PathLike[str], keys: tuple[str, ...], value: Any, comments: bool = False, *,
               within: str | os.PathLike[str] | None = None, follow_links: bool = False) -> Change:
    """Set the member at `keys` (depth 1 or 2 in practice) to `value`, changing only that value's text, atomically.
    Raises SettingsWriteError (one line naming the file; nothing written) when it must refuse; OutsideError when the
    real target leaves `within`, unless `follow_links` (the user confirmed that real target)."""
    name, target = os.fspath(path), os.path.realpath(path)  # through symbolic links: write the real file
    keys = _check_keys(keys)
    fail = _failer(name, "write")
    outside = is_outside(target, within)
    if outside and not follow_links:
        _confine(name, target, within)
    snap = _read(target, fail)  # refusals (not JSON, not a regular file, too large) before any folder is made
    new, change = _compute(name, target, snap, keys, value, fail, comments)
    change.outside = outside
    if not change.changed:
        return change
    _check_writable(target, snap, fail)
    folder = os.path.dirname(target)
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as e:
        _os_fail(e, fail)
    with _Lock(target, fail):
        if os.path.realpath(path) != target:  # a link was swapped while we waited: decide again from the start
            fail("its links changed while it was being written")
        _remove_stale_temps(target)
        now = _read(target, fail)
        if now != snap:  # another writer got there while we waited for the lock: start from what is there now
            snap = now
            new, change = _compute(name, target, snap, keys, value,
                                   _failer(name, "write", "it changed on disk while being written, and now: "), comments)
            change.outside = outside
            if not change.changed:  # the other writer already set it
                return change
            _check_writable(target, snap, fail)
        return _replace(name, target, snap, new, change, keys, value, fail, comments)


def _replace(name: str, target: str, snap: _Snapshot, new: bytes, change: Change, keys: tuple[str, ...], value: Any, fail: Fail,
             comments: bool) -> Change:
    """Temp file beside the target, fsync, re-check the target is still what we read (else recompute once on what is
    there now: an outside program wrote meanwhile), rename, fsync the folder."""
    folder = os.path.dirname(target)
    tmp, fd = None, -1
    try:
        while fd < 0:  # a hidden temp file beside the target, so the rename stays on one file system
            tmp = os.path.join(folder, f".{os.path.basename(target)}.{secrets.token_hex(4)}.tmp")
            try:
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0),
                             0o600 if snap.mode is not None else 0o666)
            except FileExistsError:
                pass
        assert tmp is not None  # the loop ends once a temp file is open
        for attempt in (1, 2):
            if snap.mode is not None:  # before the content goes in: a 0600 file with secrets never sits 0644
                os.chmod(tmp, snap.mode)
            _write_all(fd, new)
            now = _read(target, fail)  # never overwrite someone else's edit made since we read
            if now == snap:
                break
            if attempt == 2:
                fail("it changed on disk again while being written")
            snap = now
            again = _failer(name, "write", "it changed on disk while being written, and now: ")
            outside = change.outside
            new, change = _compute(name, target, snap, keys, value, again, comments)
            change.outside = outside
            if not change.changed:  # the other writer already set it
                _discard(fd, tmp)
                return change
            _check_writable(target, snap, fail)
            os.ftruncate(fd, 0)
            os.lseek(fd, 0, os.SEEK_SET)
        if snap.data is not None and hasattr(os, "chown"):
            st = os.stat(target)
            if (st.st_uid, st.st_gid) != (os.getuid(), os.getgid()):
                try:  # keep the owner when we may (root editing a user's file)
                    os.chown(tmp, st.st_uid, st.st_gid)
                except OSError:
                    pass
        os.close(fd)
        fd = -1
        os.replace(tmp, target)
        tmp = None
    except OSError as e:
        _discard(fd, tmp)
        _os_fail(e, fail)
    except BaseException:
        _discard(fd, tmp)
        raise
    try:
        _fsync_folder(folder)
    except OSError as e:
        fail(f"the new content is in place but the folder could not be synced to disk ({e.strerror or e}); "
             "it may be lost on a crash")
    return change


def _os_fail(e: OSError, fail: Fail) -> NoReturn:
    if e.errno == errno.ENOSPC:
        fail("the disk is full")
    if e.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        fail(f"permission denied ({e.strerror})")
    fail(e.strerror or str(e))


class _Lock:
    """flock on the folder that holds the target: it outlives every rename of the file, and nothing is created in the
    user's folder for it (a `.lock` file would be left behind, since removing one races other writers)."""

    def __init__(self, target: str, fail: Fail) -> None:
        self.path = os.path.dirname(target) or "."
        self.fail = fail
        self.fd = -1

    def __enter__(self) -> _Lock:
        flags = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)
        try:
            self.fd = os.open(self.path, flags)
        except OSError as e:
            self.fail(f"its folder {self.path} cannot be opened to lock it ({e.strerror or e})")
        deadline = time.monotonic() + LOCK_TIMEOUT
        delay = 0.002
        while True:
            try:
                fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return self
            except BlockingIOError:
                pass
            except OSError as e:  # a file system without flock: go on unlocked, as before the lock existed
                if e.errno in (errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS):
                    return self
                self._close()
                self.fail(f"its folder {self.path} cannot be locked ({e.strerror or e})")
            if time.monotonic() > deadline:
                self._close()
                self.fail(f"another skilltui has held the lock on {self.path} for over {LOCK_TIMEOUT:.0f} s")
            time.sleep(delay)
            delay = min(delay * 2, 0.05)

    def __exit__(self, *exc: object) -> None:
        self._close()

    def _close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)  # closing the last descriptor releases the flock
            self.fd = -1


_TEMP = re.compile(r"\.(?P<name>.+)\.[0-9a-f]{8}\.tmp\Z", re.S)


def _remove_stale_temps(target: str) -> None:
    """Temp files of our own pattern for this target, left by a killed writer. Called under the lock: every skilltui
    writer makes its temp file while holding it, so any such file found now is stale."""
    folder, base = os.path.split(target)
    try:
        with os.scandir(folder) as it:
            stale = [e.path for e in it if e.name.startswith(f".{base}.") and (m := _TEMP.match(e.name))
                     and m["name"] == base and e.is_file(follow_symlinks=False)]
    except OSError:
        return
    for path in stale:
        try:
            os.unlink(path)
        except OSError:
            pass


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
    os.fsync(fd)


def _discard(fd: int, tmp: str | None) -> None:
    if fd >= 0:
        os.close(fd)
    if tmp is not None:
        try:
            os.unlink(tmp)
        except OSError:
            pass


def _fsync_folder(folder: str) -> None:
    """Make the rename itself durable; raises OSError when the folder cannot be synced. Windows cannot open a folder:
    there the rename is all there is."""
    if os.name == "nt":  # pragma: no cover
        return
    dfd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        os.fsync(dfd)
    finally:
        os.close(dfd)


APPEND_CAP = 2_000_000  # bytes of a line-based file (a git ignore file) read to look for the line


def plan_append(path: str | os.PathLike[str], line: str) -> tuple[bytes | None, bytes] | None:
    """(the file's bytes or None when it is missing, the bytes append_line would add), or None when the file already
    contains `line`. Read through fsio: no blocking open, a regular file only, capped. Raises SettingsWriteError."""
    name = os.fspath(path)
    fail = _failer(name, "write")
    try:
        got: fsio.Capped | None = fsio.read_capped_bytes(name, APPEND_CAP)
    except FileNotFoundError:
        got = None
    except fsio.NotRegularFile:
        fail("it is not a regular file")
    except OSError as e:
        fail(e.strerror or str(e))
    if got is None:
        return None, (line + "\n").encode()
    if got.truncated:
        fail(f"it is larger than {APPEND_CAP} bytes")
    if line.encode() in got.data:
        return None
    return got.data, ("\n" + line + "\n").encode()  # Claude Code's way: a file without a final newline gets one


def append_line(path: str | os.PathLike[str], line: str) -> bool:
    """Add `line` to a line-based file (a git ignore file) unless the file already contains it; create it and its
    folders when missing. Returns whether it wrote. The way Claude Code does it: `\n<line>\n` appended, so a file
    without a final newline gets one (plan_append). One O_APPEND write: other lines are never rewritten, so no temp
    file is needed. The append is opened without blocking and checked to be a regular file, so a FIFO swapped in
    after the read cannot hang it."""
    name = os.fspath(path)
    fail = _failer(name, "write")
    planned = plan_append(name, line)
    if planned is None:
        return False
    data = planned[1]
    try:
        os.makedirs(os.path.dirname(os.path.abspath(name)), exist_ok=True)
        fd = os.open(name, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0), 0o644)
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                fail("it is not a regular file")
            _write_all(fd, data)
        finally:
            os.close(fd)
    except OSError as e:
        fail(e.strerror or str(e))
    return True
