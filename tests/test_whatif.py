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
    assert "formatter:format-code" in effect.removed and not effect.added and not effect.scanned  # resolved again
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


# ---------------------------------------------------------------- resolving again without a scan (issue #19)
import json  # noqa: E402
import sys  # noqa: E402
import threading  # noqa: E402
from pathlib import Path  # noqa: E402

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from skilltui import settings_writer  # noqa: E402
from skilltui.runtimes.claude import toggle  # noqa: E402

NOW = "2026-12-01T12:00:00Z"  # one clock for both sides: usage scores depend on it
PLUGIN_CASES = Path(__file__).resolve().parent / "fixtures" / "claude-plugins"


class FileTouches:
    """Counts the folder listings and file opens made by this thread while active, through Python's audit events
    (`open`, `os.listdir`, `os.scandir`): the real calls are observed, nothing is replaced."""

    _active: list[FileTouches] = []
    _installed = False

    def __init__(self) -> None:
        self.events: list[tuple[str, object]] = []
        self.thread = threading.get_ident()

    @classmethod
    def _hook(cls, event: str, args: tuple) -> None:
        if cls._active and event in ("open", "os.listdir", "os.scandir"):
            for counter in cls._active:
                if counter.thread == threading.get_ident():
                    counter.events.append((event, args[0] if args else None))

    def __enter__(self) -> FileTouches:
        if not FileTouches._installed:
            sys.addaudithook(FileTouches._hook)  # cannot be removed; idle unless a counter is active
            FileTouches._installed = True
        FileTouches._active.append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        FileTouches._active.remove(self)


def summary(catalog) -> tuple:
    """What a what-if must get right: every entry's fate, every plugin's state, and the listing text."""
    skills = [(s.path, s.name, s.label, str(s.status), s.reason, s.order, s.override, s.shadowed_by, s.display_name,
               s.description, s.plugin, s.source) for s in catalog.skills]
    plugins = [(p.id, p.enabled, p.loads, p.blocked, p.decided_by, p.decided_in, list(p.errors), sorted(p.notes),
                list(p.skills), list(p.commands)) for p in catalog.plugins]
    prepared = budget.prepared_for(catalog, now=NOW)
    return skills, plugins, listing.simulate_prepared(prepared, 8_000).text, listing.simulate_prepared(prepared, 300).text


def written_then_discovered(opts: Options, changes: list[whatif.PlannedChange]):
    """The ground truth: the changes really written by the writer, the tree discovered again, the files restored."""
    saved = {c.path: Path(c.path).read_bytes() if Path(c.path).exists() else None for c in changes}
    try:
        for c in changes:
            settings_writer.set_member(c.path, c.keys, c.value)
        return get("claude").discover(opts)
    finally:
        for path, data in saved.items():
            if data is None:
                Path(path).unlink(missing_ok=True)
            else:
                Path(path).write_bytes(data)


def check_same(catalog, opts: Options, changes: list[whatif.PlannedChange]) -> None:
    again, scanned = whatif.planned(catalog, opts, changes)
    assert not scanned
    assert summary(again) == summary(written_then_discovered(opts, changes)), changes


@pytest.mark.parametrize("case", sorted(p.parent.name for p in PLUGIN_CASES.glob("*/case.json")))
def test_resolving_again_equals_a_rediscovery_of_the_written_tree(case, tmp_path):
    from plugintrees import prepare
    from test_oracle_plugins import _options

    folder = PLUGIN_CASES / case
    spec = json.loads((folder / "case.json").read_text())
    run = spec["runs"][0]
    tree = prepare(folder, spec, run, tmp_path)
    opts = _options(spec, run, tree)
    catalog = get("claude").discover(opts)
    paths = catalog.settings.paths
    installed = [p.id for p in catalog.plugins if p.kind != "builtin"]
    assert installed, case
    for pid in installed + ["missing@mkt"]:
        for scope, value in (("user", True), ("user", False), ("local", True), ("project", False)):
            check_same(catalog, opts, [whatif.PlannedChange(paths.scope_file(scope), ("enabledPlugins", pid), value)])
    names = sorted({s.name for s in catalog.skills if s.source not in ("plugin", "plugin-command")})[:6]
    for name in names:
        for value in toggle.OVERRIDE_VALUES:
            check_same(catalog, opts, [whatif.PlannedChange(paths.scope_file("local"), ("skillOverrides", name), value)])


@pytest.fixture(scope="module")
def demo_tree(tmp_path_factory) -> Options:
    return demo_options("claude", {"SKILLTUI_DEMO_DIR": str(tmp_path_factory.mktemp("whatif") / "demo")}, reset=True)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(data=st.data())
def test_random_plugin_sets_and_overrides_need_no_rescan(demo_tree, data):
    """Random sets of plugin toggles and skill overrides over every scope file: resolving again equals writing them
    and discovering again (the demo is restored after each example)."""
    catalog = get("claude").discover(demo_tree)
    paths = catalog.settings.paths
    plugin_ids = [p.id for p in catalog.plugins] + ["ghost@nowhere"]
    names = sorted({s.name for s in catalog.skills}) + ["no-such-skill"]
    file = st.sampled_from([paths.scope_file(s) for s in ("user", "project", "local")])
    plugin_change = st.builds(lambda f, pid, v: whatif.PlannedChange(f, ("enabledPlugins", pid), v),
                              file, st.sampled_from(plugin_ids), st.booleans())
    override_change = st.builds(lambda f, n, v: whatif.PlannedChange(f, ("skillOverrides", n), v),
                                file, st.sampled_from(names), st.sampled_from(toggle.OVERRIDE_VALUES))
    changes = data.draw(st.lists(plugin_change | override_change, min_size=1, max_size=4))
    check_same(catalog, demo_tree, changes)


def test_a_plugin_toggle_or_an_override_lists_no_folder_and_opens_no_file(demo):
    catalog = get("claude").discover(demo)
    prepared = budget.prepared_for(catalog)
    paths = catalog.settings.paths
    chars = budget.params_for(catalog, demo).budget
    with FileTouches() as control:
        get("claude").discover(demo)
    assert any(e == "os.scandir" for e, _ in control.events) and any(e == "open" for e, _ in control.events)
    changes = [whatif.PlannedChange(paths.scope_file("user"), ("enabledPlugins", "formatter@demo-market"), False),
               whatif.PlannedChange(paths.scope_file("local"), ("enabledPlugins", "linter@demo-market"), True),
               whatif.PlannedChange(paths.scope_file("local"), ("skillOverrides", "commit-helper"), "off")]
    with FileTouches() as touches:
        effects = [whatif.effect(catalog, demo, c, chars, prepared) for c in changes]
    assert touches.events == []
    assert not any(e.scanned for e in effects) and not all(e.empty for e in effects)
    # a change resolution cannot answer (another setting) is discovered again, and says so
    with FileTouches() as touches:
        other = whatif.effect(catalog, demo, whatif.PlannedChange(paths.scope_file("local"), ("skillListingMaxDescChars",), 20),
                              chars, prepared)
    assert other.scanned and touches.events
