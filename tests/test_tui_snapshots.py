"""Snapshot tests (pytest-textual-snapshot) of every screen on the demo, at fixed sizes.

The demo is copied to a fixed folder (skilltui.tui.tour.SNAPSHOT_DEMO_DIR) so the paths in the pictures are stable.
After a deliberate change of the UI: `pytest tests/test_tui_snapshots.py --snapshot-update`, then look at the SVGs.
"""

from __future__ import annotations

import pytest

from skilltui.tui import tour

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("scene", tour.SCENES, ids=lambda s: s.name)
def test_screen(snap_compare, scene):
    app = tour.make_app()
    assert snap_compare(app, terminal_size=scene.size, run_before=lambda pilot: tour.play(pilot, scene.keys))
