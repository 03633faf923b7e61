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


def _cached_demo(tmp_path) -> Options:
    from dataclasses import replace

    opts = demo_options("claude", {"SKILLTUI_DEMO_DIR": str(tmp_path / "demo")}, reset=True)
    return replace(opts, env={**opts.env, "XDG_CACHE_HOME": str(tmp_path / "cache"),
                              "SECRET_TOKEN": "not-for-any-file-7f3a"})


def _rows(loaded: data.Loaded) -> list[tuple]:
    return [(s.name, s.path, s.status, s.reason, loaded.text_for(s)) for s in loaded.catalog.skills]


def test_first_rows_come_from_the_cache_only_while_the_tree_is_unchanged(tmp_path):
    opts = _cached_demo(tmp_path)
    first = data.load(opts, cached=True)
    assert not first.cached and first.store is not None
    first.store()
    again = data.load(opts, cached=True)
    assert again.cached and again.store is None
    assert _rows(again) == _rows(first) and again.catalog.to_json(include_all=True) == first.catalog.to_json(include_all=True)
    assert again.prepared is not None and again.prepared.entries == first.prepared.entries
    # the environment is never written into the cache, and the loaded result carries the current one
    stored = b"".join(p.read_bytes() for p in (tmp_path / "cache").rglob("*") if p.is_file())
    assert stored and b"not-for-any-file-7f3a" not in stored
    assert again.catalog.settings.env.get("SECRET_TOKEN") == "not-for-any-file-7f3a"
    # an edited skill: discovered again, with the new text
    skill = next(s for s in first.catalog.skills if s.status == "listed" and s.path and s.source == "user")
    text = Path(skill.path).read_text()
    Path(skill.path).write_text(text.replace("description:", "description: Edited now.", 1))
    edited = data.load(opts, cached=True)
    assert not edited.cached
    assert any("Edited now." in edited.text_for(s) for s in edited.catalog.skills if s.path == skill.path)
    # a variable that discovery reads, changed: discovered again
    edited.store()
    assert data.load(opts, cached=True).cached
    opts.env["CLAUDE_CODE_DISABLE_POLICY_SKILLS"] = "1"
    assert not data.load(opts, cached=True).cached


def test_without_the_cache_nothing_is_stored(tmp_path):
    opts = _cached_demo(tmp_path)
    loaded = data.load(opts)
    assert not loaded.cached and loaded.store is None
    assert not (tmp_path / "cache").exists()
    opts.env["SKILLTUI_NO_CACHE"] = "1"
    loaded = data.load(opts, cached=True)
    assert not loaded.cached and loaded.store is None and not (tmp_path / "cache").exists()


def test_a_claude_catalog_that_fails_under_another_runtime_is_said_not_hidden(tmp_path, monkeypatch, caplog):
    opts = demo_options("codex", {"SKILLTUI_DEMO_DIR": str(tmp_path / "demo")}, reset=True)
    real = data.discover

    def failing_claude(o):
        if o.runtime == "claude":
            raise RuntimeError("boom in the claude rules")
        return real(o)

    monkeypatch.setattr(data, "discover", failing_claude)
    loaded = data.load(opts)
    assert loaded.catalog.runtime == "codex" and loaded.catalog.skills
    assert loaded.claude is None and loaded.prepared is None
    assert loaded.error is not None and "boom in the claude rules" in loaded.error
    # ... and logged with its traceback: the one line on the screen is not all there is of a bug
    logged = [r for r in caplog.records if r.name == "skilltui.tui" and r.exc_info]
    assert logged and str(logged[0].exc_info[1]) == "boom in the claude rules"


def test_listing_rows_that_fail_are_said_and_logged(tmp_path, monkeypatch, caplog):
    from skilltui import budget

    opts = demo_options("claude", {"SKILLTUI_DEMO_DIR": str(tmp_path / "demo")}, reset=True)

    def failing(*args, **kwargs):
        raise TypeError("bad listing rows")

    monkeypatch.setattr(budget, "prepared_for", failing)
    loaded = data.load(opts)
    assert loaded.prepared is None and loaded.error == "TypeError: bad listing rows"
    assert [str(r.exc_info[1]) for r in caplog.records if r.exc_info] == ["bad listing rows"]
    listed = loaded.catalog.listed()[0]
    assert loaded.text_for(listed).startswith((listed.description or "")[:20])  # the description as discovered
