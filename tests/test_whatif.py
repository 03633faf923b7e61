"""skilltui/whatif.py: one pipeline for the listing under a window and for a planned settings change."""

from __future__ import annotations

import os

import pytest

from skilltui import budget, whatif
from skilltui.demo import demo_options
from skilltui.model import Options
from skilltui.runtimes import get
from skilltui.runtimes.claude import listing


@pytest.fixture
def demo(tmp_path) -> Options:
    return demo_options("claude", {"SKILLTUI_DEMO_DIR": str(tmp_path / "demo")}, reset=True)


def test_the_cli_and_the_tui_get_the_same_listing(demo):
    catalog = get("claude").discover(demo)
    prepared = budget.prepared_for(catalog)
    params, result = whatif.listing_under(catalog, demo, prepared, context_window=2_000)
    view = budget.run(demo, context_window=2_000, catalog=catalog)
    assert params == view.params and result.text == view.result.text and result.budget == 80


def test_a_plugin_toggle_and_an_override_before_writing(demo):
    catalog = get("claude").discover(demo)
    paths = catalog.settings.paths
    chars = budget.params_for(catalog, demo).budget
    before = listing.simulate_prepared(budget.prepared_for(catalog), chars)
    effect = whatif.effect(catalog, demo, whatif.PlannedChange(
        paths.scope_file("user"), ("enabledPlugins", "formatter@demo-market"), False), chars)
    assert "formatter:format-code" in effect.removed and not effect.added and effect.scanned
    assert effect.used_after < effect.used_before == before.columns.used
    local = paths.scope_file("local")
    effect = whatif.effect(catalog, demo, whatif.PlannedChange(local, ("skillOverrides", "commit-helper"), "name-only"),
                           chars)
    assert ("commit-helper", "full", "name-only (override)") in effect.changed
    assert "commit-helper: full → name-only (override)" in effect.text()
    assert catalog.settings.source("local").data.get("skillOverrides") is None  # nothing leaked back
    assert not os.path.exists(local)  # nothing written


def test_a_change_the_file_already_holds_needs_no_scan(demo, monkeypatch):
    catalog = get("claude").discover(demo)
    src = next(s for s in catalog.settings.sources if s.path and isinstance(s.data.get("enabledPlugins"), dict)
               and s.data["enabledPlugins"])
    plugin, value = next(iter(src.data["enabledPlugins"].items()))
    chars = budget.params_for(catalog, demo).budget
    runtime = type(get("claude"))

    def no_scan(self, opts):
        raise AssertionError("discovered again for a change that cannot alter discovery")

    monkeypatch.setattr(runtime, "discover", no_scan)
    effect = whatif.effect(catalog, demo, whatif.PlannedChange(src.path, ("enabledPlugins", plugin), value), chars)
    assert effect.empty and not effect.scanned
    assert "No change to the listing" in effect.text()


def test_every_runtime_says_which_model_presets_its_budget_view_offers():
    from skilltui.runtimes import REGISTRY, ModelPreset

    for key in REGISTRY:
        presets = get(key).presets
        assert isinstance(presets, tuple) and all(isinstance(p, ModelPreset) for p in presets), key
    assert get("claude").presets and all(p.context_window for p in get("codex").presets)
