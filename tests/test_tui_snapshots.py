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


def test_every_saved_snapshot_belongs_to_a_scene():
    """syrupy fails a run that leaves a saved snapshot unused, but not under pytest-xdist (the README's command runs
    `-n auto`; its workers do not merge their reports): a picture of a scene that no longer exists is caught here."""
    from pathlib import Path

    folder = Path(__file__).parent / "__snapshots__" / "test_tui_snapshots"
    saved = {p.name for p in folder.iterdir()}
    assert saved == {f"test_screen[{scene.name}].svg" for scene in tour.SCENES}
