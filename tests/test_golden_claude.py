"""Every Claude Code golden case (shared/golden/claude-*): listings byte for byte, plugin rows, enable/disable runs."""

from __future__ import annotations

import json

import pytest
from goldenlib import claude_options, expected, load_case, prepare

from skilltui import budget, cli

LISTING_CASES = ["claude-budget-fx3", "claude-budget-usage", "claude-frontmatter", "claude-names-scan", "claude-precedence",
                 "claude-walk-nogit", "claude-shadow-shipped", "claude-plugin-naming", "claude-plugin-enablement",
                 "claude-skill-overrides"]


def _runs(shared, names, listing: bool):
    out = []
    for name in names:
        folder, case = load_case(shared, name)
        for run in case["runs"]:
            if (" -p " in run["command"]) == listing:
                out.append((folder, case, run))
    return out


def _listing_params(shared_dir):
    return [pytest.param(c, id=f"{c}") for c in LISTING_CASES]


@pytest.mark.parametrize("case_name", LISTING_CASES)
def test_listing_runs(shared_dir, tmp_path, case_name):
    folder, case = load_case(shared_dir, case_name)
    runs = [r for r in case["runs"] if " -p " in r["command"]]
    assert runs
    for i, run in enumerate(runs):
        tree = prepare(folder, case, run, tmp_path / str(i))
        view = budget.run(claude_options(case, run, tree), model="claude-sonnet-4-6", now=run.get("now"))
        want = expected(folder, run, tree)
        got_entries = [{"label": e.label, "shipped": e.shipped, "state": e.shown} for e in view.result.entries]
        assert view.result.budget == want["budget"], run["id"]
        assert view.result.over_budget == want["over_budget"], run["id"]
        assert got_entries == want["entries"], run["id"]
        assert (view.text.split("\n") if view.text else []) == want["lines"], run["id"]
        if "reported_total_width" in want:
            assert view.result.total_full == want["reported_total_width"], run["id"]
            assert len(view.result.entries) == want["reported_entries"], run["id"]


def _run_cli(capsys, argv):
    code = cli.main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _global_args(case, run, tree):
    opts = claude_options(case, run, tree)
    args = ["--cwd", opts.cwd, "--home", opts.home, "--managed-dir", opts.managed_dir]
    return opts, args


@pytest.mark.parametrize("case_name", ["claude-plugin-naming", "claude-plugin-enablement"])
def test_plugin_list_rows(shared_dir, tmp_path, monkeypatch, capsys, case_name):
    folder, case = load_case(shared_dir, case_name)
    run = next(r for r in case["runs"] if r["id"] == "plugin-list")
    tree = prepare(folder, case, run, tmp_path)
    opts, args = _global_args(case, run, tree)
    monkeypatch.setattr("os.environ", opts.env)
    code, out, err = _run_cli(capsys, args + ["plugins", "--json"])
    assert code == 0, err
    rows = json.loads(out)
    want = expected(folder, run, tree)["stdout_json"]
    assert [r["id"] for r in rows] == [w["id"] for w in want]
    for row, w in zip(rows, want):
        assert row["version"] == w["version"]
        assert row["scope"] == w["scope"]
        assert row["install_path"] == w.get("installPath")
        managed_off = row["decided_by"] == "managed" and not row["enabled"]
        # Claude Code's own list prints "enabled": true for a managed-off plugin; skilltui reports the truth.
        assert row["enabled"] == (w["enabled"] and not managed_off), row["id"]
        for note in w.get("notes", []):
            assert note in row["notes"], row["id"]
        for error in w.get("errors", []):
            assert error in row["errors"], row["id"]
        if "Marketplace" in " ".join(w.get("errors", [])):
            assert not row["marketplace_known"] and not row["loads"]


ENABLE_RUNS = [r for r in ["disable-auto-project", "disable-both-auto", "enable-auto-fallback-user", "enable-auto-local",
                           "enable-auto-array", "disable-auto-user", "disable-scope-local", "disable-both-scope-user",
                           "enable-scope-user-lower", "disable-scope-user-conflict", "disable-scope-user-already",
                           "enable-scope-project-already", "enable-managed-blocked", "enable-not-installed",
                           "disable-not-installed"]]


def _settings_snapshot(tree):
    return {str(p.relative_to(tree)): p.read_bytes() for p in tree.rglob("settings*.json")}


@pytest.mark.parametrize("run_id", ENABLE_RUNS)
def test_enable_disable_runs(shared_dir, tmp_path, monkeypatch, capsys, run_id):
    folder, case = load_case(shared_dir, "claude-plugin-enablement")
    run = next(r for r in case["runs"] if r["id"] == run_id)
    tree = prepare(folder, case, run, tmp_path)
    opts, args = _global_args(case, run, tree)
    monkeypatch.setattr("os.environ", opts.env)
    words = run["command"].split()
    before = _settings_snapshot(tree)
    code, out, err = _run_cli(capsys, args + ["plugin"] + words[2:])
    want = expected(folder, run, tree)
    after = _settings_snapshot(tree)
    changed = {k for k in after if after[k] != before.get(k)}
    if run_id.endswith("not-installed"):  # skilltui refuses ids with no install record (cli.md)
        assert code == 1 and not changed
        line = json.loads(out)
        assert line["outcome"] == "failed" and line["failureCode"] == "plugin_not_installed"
        return
    assert code == want["rc"], err
    line = json.loads(out)
    for key, value in want["stdout_json"].items():
        assert line[key] == value, key
    assert changed == set(want["changed_files"])
    for rel, content in want["changed_files"].items():
        assert json.loads((tree / rel).read_text()) == content
    if want["rc"]:
        assert want["stderr"] in err
    if run_id in ("disable-both-scope-user", "enable-scope-user-lower"):
        assert "still decides" in err and ".claude/settings.json" in err
    elif want["rc"] == 0:
        assert "warning" not in err
