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
  ACLs and extended attributes are not carried over. The re-check before the rename narrows, but cannot close, the
  window in which another process could still write (there is no locking protocol shared with Claude Code).
"""

from __future__ import annotations

import errno
import json
import os
import re
import secrets
import stat
from dataclasses import dataclass
from json.decoder import scanstring
from typing import Any

__all__ = ["Change", "SettingsWriteError", "append_line", "preview", "read_json_object", "set_member"]

BOM = b"\xef\xbb\xbf"
_WS = re.compile(r"[ \t\n\r]*")  # JSON whitespace, exactly these four
_WS_INLINE = re.compile(r"[ \t]*")
_scan_value = json.JSONDecoder().scan_once  # (value, end) for the JSON value starting at an index (C scanner)


class SettingsWriteError(Exception):
    """A refusal: one line, naming the file; nothing was written."""


@dataclass
class Change:
    path: str  # the file as named by the user
    target: str  # the real file written (symbolic links resolved)
    old_line: str | None  # line(s) of the member before; None when it did not exist
    new_line: str  # line(s) of the member after
    created: bool  # the file did not exist
    changed: bool = True  # False when the file already held exactly this; nothing is written then


# ---------------------------------------------------------------- tokenizer: spans of one object's members


@dataclass
class _Member:
    key: str  # unescaped
    key_start: int  # index of the key's opening quote
    colon: str  # text between the key and the value (": ", " : ", ":")
    value_start: int
    value_end: int


@dataclass
class _Obj:
    start: int  # index of "{"
    end: int  # index after "}"
    members: list[_Member]


def _object(s: str, i: int) -> _Obj:
    """Members of the object whose "{" is at s[i]. `s` is already known to be valid JSON, so no error checks here;
    nested values are skipped whole by the C scanner, so only the objects on the key path are walked."""
    members: list[_Member] = []
    j = _WS.match(s, i + 1).end()
    while s[j] != "}":
        key, k_end = scanstring(s, j + 1)
        v = _WS.match(s, _WS.match(s, k_end).end() + 1).end()
        v_end = _scan_value(s, v)[1]
        members.append(_Member(key, j, s[k_end:v], v, v_end))
        j = _WS.match(s, v_end).end()
        if s[j] == ",":
            j = _WS.match(s, j + 1).end()
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
    return s[start : _WS_INLINE.match(s, start).end()]


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


def _apply(s: str, keys: tuple[str, ...], value: Any, fail) -> tuple[str, str | None, str]:
    """Set `keys` to `value` in the JSON text `s` (valid, top level an object). Returns (new text, old member lines or
    None, new member lines). With duplicate keys the last one is used, as JSON parsers keep the last."""
    unit = _indent_unit(s)
    nl = "\r\n" if "\r\n" in s[: s.find("\n") + 1] else "\n"
    obj = _object(s, _WS.match(s).end())
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


@dataclass(frozen=True)
class _Snapshot:
    data: bytes | None  # None: no file
    ident: tuple[int, int, int] | None  # (mtime_ns, size, inode)
    mode: int | None


def _read(target: str, fail) -> _Snapshot:
    try:
        with open(target, "rb") as f:
            st = os.fstat(f.fileno())
            if stat.S_ISDIR(st.st_mode):  # some platforms open directories
                fail("it is a directory")
            data = f.read()
    except FileNotFoundError:
        return _Snapshot(None, None, None)
    except IsADirectoryError:
        fail("it is a directory")
    except OSError as e:
        fail(f"it cannot be read ({e.strerror or e})")
    return _Snapshot(data, (st.st_mtime_ns, st.st_size, st.st_ino), stat.S_IMODE(st.st_mode))


def _no_constants(name: str):
    raise ValueError(f"{name} is not JSON")


def _parse(data: bytes, fail, comments: bool = False) -> tuple[bytes, str | None, dict | None]:
    """(BOM or b"", text without BOM or None when empty, parsed object or None when empty). `comments`: the file may
    hold `//` and `/* */` comments (nothing else is relaxed: a trailing comma is still refused)."""
    bom = BOM if data.startswith(BOM) else b""
    try:
        text = data[len(bom) :].decode("utf-8")
    except UnicodeDecodeError:
        fail("not valid JSON (not UTF-8 text)")
    if not _WS.fullmatch(text):
        try:
            obj = json.loads(mask_comments(text) if comments else text, parse_constant=_no_constants)
        except json.JSONDecodeError as e:
            fail(f"not valid JSON ({e.msg} at line {e.lineno} column {e.colno})")
        except (ValueError, RecursionError) as e:
            fail(f"not valid JSON ({e})")
        if not isinstance(obj, dict):
            fail(f"the top level is {_kind(obj)}, not a JSON object")
        return bom, text, obj
    return bom, None, None


def _failer(name: str, verb: str, context: str = ""):
    def fail(reason: str):
        raise SettingsWriteError(f"cannot {verb} {name}: {context}{reason}")

    return fail


def read_json_object(path: str | os.PathLike, comments: bool = False) -> dict | None:
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


def _splice(original: str, masked: str, new_masked: str, fail) -> str:
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


def _compute(name: str, target: str, snap: _Snapshot, keys, value, fail, comments: bool = False) -> tuple[bytes, Change]:
    bom, text, _ = _parse(snap.data, fail, comments) if snap.data is not None else (b"", None, None)
    if comments and text is not None:
        masked = mask_comments(text)
        new_masked, old_line, new_line = _apply(masked, keys, value, fail)
        new_text = _splice(text, masked, new_masked, fail)
    else:
        new_text, old_line, new_line = _apply(text if text is not None else "{}\n", keys, value, fail)
    new = bom + new_text.encode("utf-8")
    return new, Change(name, target, old_line, new_line, snap.data is None, new != snap.data)


def _read_only(st: os.stat_result, path: str) -> bool:
    return not (st.st_mode & 0o222) or not os.access(path, os.W_OK)


def _check_writable(target: str, snap: _Snapshot, fail) -> None:
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


def preview(path: str | os.PathLike, keys: tuple[str, ...], value: Any, comments: bool = False) -> Change:
    """The change set_member() would make, without writing. Raises the same refusals."""
    name, target = os.fspath(path), os.path.realpath(path)
    fail = _failer(name, "write")
    snap = _read(target, fail)
    change = _compute(name, target, snap, _check_keys(keys), value, fail, comments)[1]
    if change.changed:
        _check_writable(target, snap, fail)
    return change


def set_member(path: str | os.PathLike, keys: tuple[str, ...], value: Any, comments: bool = False) -> Change:
    """Set the member at `keys` (depth 1 or 2 in practice) to `value`, changing only that value's text, atomically.
    Raises SettingsWriteError (one line naming the file; nothing written) when it must refuse."""
    name, target = os.fspath(path), os.path.realpath(path)  # through symbolic links: write the real file
    keys = _check_keys(keys)
    fail = _failer(name, "write")
    snap = _read(target, fail)
    new, change = _compute(name, target, snap, keys, value, fail, comments)
    if not change.changed:
        return change
    _check_writable(target, snap, fail)
    folder = os.path.dirname(target)
    tmp, fd = None, -1
    try:
        os.makedirs(folder, exist_ok=True)
        while fd < 0:  # a hidden temp file beside the target, so the rename stays on one file system
            tmp = os.path.join(folder, f".{os.path.basename(target)}.{secrets.token_hex(4)}.tmp")
            try:
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600 if snap.mode is not None else 0o666)
            except FileExistsError:
                pass
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
            new, change = _compute(name, target, snap, keys, value, again, comments)
            if not change.changed:  # the other writer already set it
                _discard(fd, tmp)
                return change
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
        if e.errno == errno.ENOSPC:
            fail("the disk is full")
        if e.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
            fail(f"permission denied ({e.strerror})")
        fail(e.strerror or str(e))
    except BaseException:
        _discard(fd, tmp)
        raise
    _fsync_folder(folder)
    return change


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
    """Make the rename itself durable. Not every platform can open a folder (Windows); the rename is done anyway."""
    try:
        dfd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dfd)
    except OSError:
        pass
    finally:
        os.close(dfd)


def append_line(path: str | os.PathLike, line: str) -> bool:
    """Add `line` to a line-based file (a git ignore file) unless the file already contains it; create it and its
    folders when missing. Returns whether it wrote. The way Claude Code does it: `\n<line>\n` appended, so a file
    without a final newline gets one. One O_APPEND write: other lines are never rewritten, so no temp file is needed."""
    name = os.fspath(path)
    fail = _failer(name, "write")
    try:
        os.makedirs(os.path.dirname(os.path.abspath(name)), exist_ok=True)
        try:
            st = os.stat(name)
        except FileNotFoundError:
            st = None
        if st is not None and not stat.S_ISREG(st.st_mode):
            fail("it is not a regular file")
        if st is not None:
            if st.st_size > 2_000_000:
                fail("it is larger than 2000000 bytes")
            with open(name, "rb") as fh:
                if line.encode() in fh.read():
                    return False
        data = (("\n" if st is not None else "") + line + "\n").encode()
        fd = os.open(name, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            _write_all(fd, data)
        finally:
            os.close(fd)
    except OSError as e:
        fail(e.strerror or str(e))
    return True

