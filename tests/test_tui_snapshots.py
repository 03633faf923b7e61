"""Snapshot tests (pytest-textual-snapshot) of every screen on the demo, at fixed sizes.

Each test copies the demo into its own tmp_path (never a shared folder: parallel runs would race); the app shows
paths from the project's name or `~`, so the pictures do not depend on where the copy is.
After a deliberate change of the UI: `pytest tests/test_tui_snapshots.py --snapshot-update`, then look at the SVGs.
"""

from __future__ import annotations

import pytest

from skilltui.tui import tour

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("scene", tour.SCENES, ids=lambda s: s.name)
def test_screen(snap_compare, scene, tmp_path):
    app = tour.make_app(str(tmp_path / "demo"))
    assert snap_compare(app, terminal_size=scene.size, run_before=lambda pilot: tour.play(pilot, scene.keys))
