"""Replays the Claude Code fixtures recorded from the real tool (tests/fixtures/claude, re-recorded by its record.py):
every row's label and state, and the exact rows of the entries not shipped inside Claude Code."""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path

import pytest

from skilltui import budget
from skilltui.model import Options

_SPEC = importlib.util.spec_from_file_location("claude_fixture", Path(__file__).parent / "fixtures" / "claude" / "fixture.py")
fixture = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(fixture)

RUNS = [pytest.param(case, run, id=f"{case.name}/{run['id']}") for case in fixture.cases() for run in fixture.load(case)["runs"]]


def _options(data: dict, run: dict, root: Path) -> Options:
    home = root / data.get("home", "home")
    env = {"HOME": str(home), "PATH": os.environ.get("PATH", "/usr/bin:/bin"), **fixture.run_env(run, root)}
    if run.get("budget") is not None:
        env["SLASH_COMMAND_TOOL_CHAR_BUDGET"] = str(run["budget"])
    return Options(cwd=str(root / data.get("cwd", "repo")), home=str(home), runtime="claude",
                   managed_dir=str(root / data.get("managed_dir", "no-managed-dir")),
                   add_dirs=[str(root / d) for d in run.get("add_dirs", [])], env=env)


def test_every_case_is_recorded():
    assert fixture.cases(), "no fixtures found"
    for case in fixture.cases():
        for run in fixture.load(case)["runs"]:
            assert (case / f"expected-{run['id']}.json").is_file(), f"{case.name}/{run['id']}: run record.py"


@pytest.mark.parametrize(("case", "run"), RUNS)
def test_listing_matches_recording(tmp_path, case, run):
    data = fixture.load(case)
    root = fixture.build(data, tmp_path / "tree")
    want = fixture.expected(case, run)
    view = budget.run(_options(data, run, root), model=run.get("model") or fixture.DEFAULT_MODEL)
    entries = view.result.entries
    assert [(e.label, e.shown) for e in entries] == [(w["label"], w["state"]) for w in want["entries"]]
    # The recorder tells shipped rows by their text, so a forced `- dataviz` row counts as not shipped there.
    assert [e.shipped for e in entries if e.shown == "full"] == [w["shipped"] for w in want["entries"] if w["state"] == "full"]
    assert [e.row for e, w in zip(entries, want["entries"]) if not w["shipped"]] == want["lines"]
    assert view.result.over_budget == (want["over_budget"] is not None)
    if want["over_budget"]:
        assert view.result.budget == want["over_budget"]["budget"]
        assert view.result.total_full == want["over_budget"]["width"]
        assert len(entries) == want["over_budget"]["skills"]


def _catalog_and_opts(tmp_path, settings: dict | None = None, env: dict | None = None):
    from skilltui.runtimes import discover

    home, cwd = tmp_path / "home", tmp_path / "repo"
    (home / ".claude").mkdir(parents=True)
    cwd.mkdir()
    if settings is not None:
        import json

        (home / ".claude" / "settings.json").write_text(json.dumps(settings))
    opts = Options(cwd=str(cwd), home=str(home), managed_dir=str(tmp_path / "managed"), env={"HOME": str(home), **(env or {})})
    return discover(opts), opts


def test_default_model_order(tmp_path):
    """§8.0: --model, else ANTHROPIC_MODEL, else settings `model`, else claude-opus-5-5 (an assumption, said so)."""
    catalog, opts = _catalog_and_opts(tmp_path / "a")
    choice = budget.default_model(catalog, opts)
    assert (choice.model, choice.source) == ("claude-opus-5-5", "default") and "subscription" in choice.assumed
    view = budget.run(opts, catalog=catalog)
    assert view.result.budget == 30000 and view.to_json()["model"] == "claude-opus-5-5"
    assert view.to_json()["assumed"] == choice.assumed
    catalog, opts = _catalog_and_opts(tmp_path / "b", settings={"model": "claude-sonnet-4-6"})
    choice = budget.default_model(catalog, opts)
    assert (choice.model, choice.source) == ("claude-sonnet-4-6", "settings") and choice.assumed is None
    assert budget.run(opts, catalog=catalog).result.budget == 8000
    catalog, opts = _catalog_and_opts(tmp_path / "c", settings={"model": "claude-sonnet-4-6"}, env={"ANTHROPIC_MODEL": "opus"})
    assert budget.default_model(catalog, opts).source == "env"
    assert budget.run(opts, catalog=catalog).result.budget == 30000
    choice = budget.default_model(catalog, opts, "claude-sonnet-4-6[1m]")
    assert choice.source == "flag" and "account" in choice.assumed
    assert budget.run(opts, catalog=catalog, model="claude-sonnet-4-6[1m]").result.budget == 40000
    data = budget.run(opts, catalog=catalog, context_window=200_000).to_json()
    assert (data["model"], data["model_source"]) == (None, "context-window")


@pytest.fixture(scope="module")
def corpus_home(corpus_tree, tmp_path_factory):
    from test_corpus_claude import _mount

    from skilltui.runtimes import discover

    opts = _mount(corpus_tree, tmp_path_factory.mktemp("corpus-home"))
    opts.env["PATH"] = os.environ.get("PATH", "/usr/bin:/bin")
    return opts, discover(opts)


@pytest.mark.parametrize("run_id", ["full", "default"])
def test_corpus_as_one_home_matches_recording(corpus_home, run_id):
    """shared/corpus mounted as one home (every skill, command and plugin), recorded by `record.py --corpus`."""
    opts, catalog = corpus_home
    want = json.loads((fixture.HERE / "corpus-as-home" / f"expected-{run_id}.json").read_text(encoding="utf-8"))
    view = budget.run(opts, catalog=catalog, model=fixture.DEFAULT_MODEL, budget=10_000_000 if run_id == "full" else None)
    entries = view.result.entries
    assert [(e.label, e.shown) for e in entries] == [(w["label"], w["state"]) for w in want["entries"]]
    assert [e.row for e, w in zip(entries, want["entries"]) if not w["shipped"]] == want["lines"]
    if want["over_budget"]:
        assert (view.result.budget, view.result.total_full) == (want["over_budget"]["budget"], want["over_budget"]["width"])


def test_list_json_names_the_model(tmp_path, capsys):
    from skilltui import cli

    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "settings.json").write_text('{"model": "sonnet"}')
    (tmp_path / "repo").mkdir()
    code = cli.main(["--cwd", str(tmp_path / "repo"), "--home", str(home), "--managed-dir", str(tmp_path / "m"), "list", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    assert (data["model"], data["model_source"], data["assumed"]) == ("sonnet", "settings", None)
    assert str(home / ".claude" / "settings.json") in data["model_why"]
