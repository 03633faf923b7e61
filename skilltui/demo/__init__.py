"""The bundled demo: a small home and project showing every status. Used by `--demo` and by the tests.

The tree is stored with `dot-` in place of leading dots (package data skips hidden files) and copied to a
temporary folder before use, so nothing the demo writes ever touches a real file.
"""

from __future__ import annotations

import os
import shutil
import tempfile

from skilltui import __version__
from skilltui.model import Options

TREE = os.path.join(os.path.dirname(__file__), "tree")
CWD = os.path.join("project", "services", "web")  # nested below the git root, as people start agents
MARKER = ".skilltui-demo"
PASSED_ENV = ("PATH", "LANG", "LC_ALL", "TERM", "COLORTERM", "TMPDIR", "NO_COLOR")


def demo_dir(env: dict[str, str]) -> str:
    """The demo copy: $SKILLTUI_DEMO_DIR, or one per user in the temporary folder, kept between commands."""
    return env.get("SKILLTUI_DEMO_DIR") or os.path.join(tempfile.gettempdir(), f"skilltui-demo-{os.getuid() if hasattr(os, 'getuid') else 0}")


def install(dest: str) -> str:
    """Copy the demo tree to `dest` (fresh), restoring dot names, filling $DEMO, marking the git root."""
    if os.path.isdir(dest):
        shutil.rmtree(dest)
    for dirpath, _dirnames, filenames in os.walk(TREE):
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
    root = install(demo_dir(env)) if reset else ensure(env)
    demo_env = {k: v for k, v in env.items() if k in PASSED_ENV}
    demo_env["HOME"] = os.path.join(root, "home")
    return Options(cwd=os.path.join(root, CWD), home=os.path.join(root, "home"), runtime=runtime,
                   managed_dir=os.path.join(root, "managed"), env=demo_env)
