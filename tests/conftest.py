"""Shared fixtures. Tests that read ../shared (golden cases, corpus) go through `shared_dir` and skip without it."""

from __future__ import annotations

import os
from pathlib import Path

import background
import pytest

REPO = Path(__file__).resolve().parents[1]


def _find_shared() -> Path | None:
    env = os.environ.get("SKILLTUI_SHARED")
    for candidate in ([Path(env)] if env else []) + [REPO.parent / "shared"]:
        if (candidate / "golden").is_dir():
            return candidate
    return None


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    found = _find_shared()
    if found is None:
        pytest.skip("../shared (golden cases and corpus) is not beside this clone; set SKILLTUI_SHARED to use it")
    return found


@pytest.fixture(scope="session")
def corpus_tree(shared_dir: Path, tmp_path_factory) -> Path:
    """A writable copy of shared/corpus with its symbolic links restored from MANIFEST.json."""
    import json
    import shutil

    src = shared_dir / "corpus"
    if not (src / "MANIFEST.json").is_file():
        pytest.skip("shared/corpus is not available")
    dest = tmp_path_factory.mktemp("corpus") / "corpus"
    shutil.copytree(src, dest, symlinks=True, copy_function=shutil.copyfile)
    for p in [dest, *dest.rglob("*")]:
        if not p.is_symlink() and p.is_dir():
            p.chmod(0o755)
    manifest = json.loads((src / "MANIFEST.json").read_text())
    for source in manifest["sources"]:
        for link in source.get("symlinks", []):
            path = dest / source["corpus_dir"] / link["path"]
            if path.is_symlink() or (path.is_file() and path.stat().st_size < 4096):
                path.unlink()
                path.symlink_to(link["target"])
    return dest


@pytest.fixture(autouse=True, scope="session")
def _private_answer_cache(tmp_path_factory):
    """Command-line runs in tests store cached answers in a temporary folder, never in the user's ~/.cache."""
    old = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("xdg-cache"))
    yield
    if old is None:
        os.environ.pop("XDG_CACHE_HOME", None)
    else:
        os.environ["XDG_CACHE_HOME"] = old


# Textual's Pilot gives the screen a fixed 30 s to work through its pending messages on every press and pause (and
# run_test once at start), then raises WaitForScreenTimeout. On a 2-core machine at load 10 and more, a first screen or
# the Help screen's Markdown can take longer: that was the `test_screen[help]` flake. The tests keep their own bounds
# (every test's run is capped, every settle has a timeout); this puts Textual's fixed one on the same scale.
PILOT_SCREEN_TIMEOUT = 300.0


@pytest.fixture(autouse=True, scope="session")
def _patient_pilot():
    try:
        from textual.pilot import Pilot
    except ImportError:  # an engine-only environment: nothing drives the app
        yield
        return
    wait = Pilot._wait_for_screen
    if wait.__defaults__ != (30.0,):  # a Textual upgrade changed it: look again rather than patch blindly
        pytest.fail(f"Pilot._wait_for_screen's defaults are {wait.__defaults__}, not (30.0,): revisit conftest.py")
    wait.__defaults__ = (PILOT_SCREEN_TIMEOUT,)
    yield
    wait.__defaults__ = (30.0,)


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    """Start the selected tests' background commands (tests/background.py) now, beside the rest of the run."""
    if hasattr(session.config, "workerinput"):
        # a pytest-xdist worker: every worker collects every test and none knows which it will run, so an early start
        # here would run the command once per worker; the owning test starts it, and the other worker uses the core
        return
    for item in session.items:
        marker = item.get_closest_marker("background")
        if marker is not None:
            background.start(*marker.args)


def pytest_sessionfinish(session: pytest.Session) -> None:
    background.stop_all()
