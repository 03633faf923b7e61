"""The bundled demo: a small home and project showing every status. Used by `--demo` and by the tests.

The tree is stored with `dot-` in place of leading dots (package data skips hidden files) and copied to a
temporary folder before use, so nothing the demo writes ever touches a real file.

Where the copy lives (issue #14): $SKILLTUI_DEMO_DIR if set (the caller's choice, used as given), else `tree/` inside a
private per-user folder in the temporary folder. That folder is created with mode 0700 and, when it exists, used only
if it is a real folder (not a link) owned by this user and closed to others; otherwise a fresh private temporary copy
is made for this run. Another local user can thus neither pre-create it nor redirect the demo's writes.
"""

from __future__ import annotations

import atexit
import os
import shutil
import stat
import sys
import tempfile

from skilltui import __version__
from skilltui.model import Options

TREE = os.path.join(os.path.dirname(__file__), "tree")
CWD = os.path.join("project", "services", "web")  # nested below the git root, as people start agents
MARKER = ".skilltui-demo"
PASSED_ENV = ("PATH", "LANG", "LC_ALL", "TERM", "COLORTERM", "TMPDIR", "NO_COLOR")


def _uid() -> int:
    return os.getuid() if hasattr(os, "getuid") else 0


def private_folder(path: str) -> str | None:
    """Why `path` is not a safe private folder of this user (None: it is, created 0700 if it was missing)."""
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    except OSError as exc:
        return f"cannot be created ({exc.strerror or exc})"
    st = os.lstat(path)
    if stat.S_ISLNK(st.st_mode) or not stat.S_ISDIR(st.st_mode):
        return "is not a real folder"
    if st.st_uid != _uid():
        return "belongs to another user"
    if st.st_mode & 0o077:
        return "is open to other users"
    return None


def demo_dir(env: dict[str, str]) -> str:
    """The demo copy: $SKILLTUI_DEMO_DIR, or `tree/` in this user's private folder in the temporary folder, kept between
    commands; a fresh private temporary copy when that folder is not safe."""
    if env.get("SKILLTUI_DEMO_DIR"):
        return env["SKILLTUI_DEMO_DIR"]
    base = os.path.join(tempfile.gettempdir(), f"skilltui-demo-{_uid()}")
    problem = private_folder(base)
    if problem is None:
        return os.path.join(base, "tree")
    fresh = tempfile.mkdtemp(prefix="skilltui-demo-")  # 0700, a new name: nobody else's
    atexit.register(shutil.rmtree, fresh, ignore_errors=True)  # one per run: not left behind
    print(f"skilltui: {base} {problem}; using a fresh demo copy in {fresh} (removed on exit)", file=sys.stderr)
    return os.path.join(fresh, "tree")


def install(dest: str) -> str:
    """Copy the demo tree to `dest` (fresh), restoring dot names, filling $DEMO, marking the git root."""
    if os.path.isdir(dest):
        shutil.rmtree(dest)
    for dirpath, dirnames, filenames in os.walk(TREE):
        # an installed package may hold bytecode of the demo's scripts (pip compiles them): not part of the demo
        dirnames[:] = [d for d in dirnames if d != "__pycache__"]
        rel = os.path.relpath(dirpath, TREE)
        out_dir = os.path.join(dest, *[_undot(p) for p in rel.split(os.sep) if p != "."])
        os.makedirs(out_dir, exist_ok=True)
        for name in filenames:
            with open(os.path.join(dirpath, name), "rb") as fh:
                data = fh.read()
            if name.endswith(".json"):
                data = data.replace(b"$DEMO", dest.encode())
            with open(os.path.join(out_dir, _undot(name)), "wb") as fh:
                fh.write(data)
    os.makedirs(os.path.join(dest, "project", ".git"), exist_ok=True)
    with open(os.path.join(dest, MARKER), "w") as fh:
        fh.write(__version__)
    return dest


def _undot(name: str) -> str:
    return "." + name[4:] if name.startswith("dot-") else name


def ensure(env: dict[str, str]) -> str:
    dest = demo_dir(env)
    try:
        with open(os.path.join(dest, MARKER)) as fh:
            if fh.read() == __version__:
                return dest
    except OSError:
        pass
    return install(dest)


def demo_options(runtime: str, env: dict[str, str], reset: bool = False) -> Options:
    root = install(demo_dir(env)) if reset else ensure(env)  # reset: `--demo-reset`
    demo_env = {k: v for k, v in env.items() if k in PASSED_ENV}
    demo_env["HOME"] = os.path.join(root, "home")
    return Options(cwd=os.path.join(root, CWD), home=os.path.join(root, "home"), runtime=runtime,
                   managed_dir=os.path.join(root, "managed"), env=demo_env)
