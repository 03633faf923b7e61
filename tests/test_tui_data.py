"""The TUI's engine adapters (skilltui/tui/data.py), without an app: watched files and changes during a scan."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from skilltui.demo import demo_options
from skilltui.model import Options
from skilltui.tui import data


@pytest.fixture
def demo(tmp_path) -> Options:
    return demo_options("claude", {"SKILLTUI_DEMO_DIR": str(tmp_path / "demo")}, reset=True)


def test_watch_covers_manifests_marketplaces_managed_dropins_and_global_config(demo):
    managed = Path(demo.managed_dir)
    (managed / "managed-settings.d").mkdir(parents=True)
    (managed / "managed-settings.d" / "10-team.json").write_text("{}")
    loaded = data.load(demo)
    paths = data.watch_paths(loaded.catalog, loaded.claude)
    home = Path(demo.home)
    assert str(home / ".claude.json") in paths
    assert str(managed / "managed-settings.d") in paths
    assert str(managed / "managed-settings.d" / "10-team.json") in paths
    assert str(home / ".claude" / "plugins" / "marketplaces" / "demo-market" / ".claude-plugin" / "marketplace.json") in paths
    manifests = [p for p in paths if p.endswith(os.path.join(".claude-plugin", "plugin.json"))]
    assert any("linter" in p for p in manifests) and any("formatter" in p for p in manifests)


def test_a_change_during_the_scan_makes_the_next_poll_scan_again(demo, monkeypatch):
    settings = Path(demo.home) / ".claude" / "settings.json"
    real = data.discover
    calls = []

    def discover_then_edit(opts):
        catalog = real(opts)
        if not calls:  # the user edits a settings file after it was read, before the scan ends
            settings.write_text(settings.read_text())
        calls.append(opts.runtime)
        return catalog

    monkeypatch.setattr(data, "discover", discover_then_edit)
    loaded = data.load(demo)
    assert loaded.signature == data.STALE
    assert data.signature(data.watch_paths(loaded.catalog, loaded.claude)) != loaded.signature


def test_a_quiet_scan_keeps_its_signature(demo):
    past = 1_000_000_000  # every file dated long before the scan
    for dirpath, dirnames, filenames in os.walk(Path(demo.home).parent):
        for name in dirnames + filenames:
            os.utime(os.path.join(dirpath, name), (past, past), follow_symlinks=False)
    loaded = data.load(demo)
    assert loaded.signature != data.STALE
    assert data.signature(data.watch_paths(loaded.catalog, loaded.claude)) == loaded.signature
