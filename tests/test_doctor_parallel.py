"""The command line spreads the doctor's skill pass over forked processes (`doctor.run(..., workers=N)`): the findings
must be exactly those of one process, in the same order, and a child that fails leaves its part to the parent."""

from __future__ import annotations

import json
import os

import pytest

from skilltui import doctor
from skilltui.checks import invisible
from skilltui.model import Options
from skilltui.runtimes.claude import discovery as claude

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the parallel pass needs os.fork")

BODIES = [
    "---\nname: {n}\ndescription: Tool {i}.\n---\nSee [ref](refs/{i}.md).\n",
    "---\nname: {n}\ndescription: Tool {i}: use it for x.\n---\nPlain text.\n",
    "---\nname: {n}\ndescription: Tool {i}.\nmetadata:\n  tags: [a, b]\n---\nBody.\n",
    "---\nname: other-{i}\ndescription: Tool\u200b {i}.\n---\nZero\u200bwidth and [gone](../../x.md).\n",
    "---\nname: {n}\ndescription: >\n  folded {i}\n---\n```\nhandlers[key](payload)\n```\n",
    "no frontmatter {i}\n",
]


def _home(tmp_path, skills: int) -> Options:
    root = tmp_path / "home/.claude/skills"
    for i in range(skills):
        name = f"tool-{i:04d}"
        (root / name).mkdir(parents=True)
        (root / name / "SKILL.md").write_text(BODIES[i % len(BODIES)].format(n=name, i=i))
    (tmp_path / "proj").mkdir()
    _plugins(tmp_path / "home")
    return Options(cwd=str(tmp_path / "proj"), home=str(tmp_path / "home"), managed_dir=str(tmp_path / "managed"),
                   env={"HOME": str(tmp_path / "home")})


def _plugins(home, count: int = 3) -> None:
    """Installed, enabled plugins whose checks have findings (bad YAML, no description, a missing manifest path):
    the plugin checks run in the last forked child when the pass is cut in parts."""
    records, enabled = {}, {}
    for n in range(count):
        root = home / f".claude/plugins/cache/mkt/p{n}/1.0.0"
        (root / ".claude-plugin").mkdir(parents=True)
        (root / ".claude-plugin/plugin.json").write_text(json.dumps({"name": f"p{n}", "skills": "./missing"}))
        for i, text in enumerate(("---\nname: a\ndescription: Do: this: now\n  - x\n---\nBody [r](r.md).\n",
                                  "---\nname: b\n---\nNo description.\n", "---\nname: c\ndescription: Fine.\n---\n")):
            (root / f"skills/s{i}").mkdir(parents=True)
            (root / f"skills/s{i}/SKILL.md").write_text(text)
        records[f"p{n}@mkt"] = [{"scope": "user", "installPath": str(root), "version": "1.0.0"}]
        enabled[f"p{n}@mkt"] = True
    market = home / ".claude/plugins/marketplaces/mkt"
    (market / ".claude-plugin").mkdir(parents=True)
    (market / ".claude-plugin/marketplace.json").write_text(json.dumps({"name": "mkt", "owner": {"name": "o"}, "plugins": [
        {"name": pid.split("@")[0], "source": {"source": "github", "repo": f"o/{pid}"}} for pid in records]}))
    (home / ".claude/plugins/installed_plugins.json").write_text(json.dumps({"version": 2, "plugins": records}))
    (home / ".claude/plugins/known_marketplaces.json").write_text(json.dumps({"mkt": {
        "source": {"source": "github", "repo": "o/mkt"}, "installLocation": str(market)}}))
    (home / ".claude/settings.json").write_text(json.dumps({"enabledPlugins": enabled}))


def _json(found):
    return [d.to_json() for d in found]


@pytest.fixture
def small_parts(monkeypatch):
    monkeypatch.setattr(doctor, "PARALLEL_MIN", 5)  # a small tree is cut in parts too


def test_parallel_findings_equal_one_process(tmp_path, small_parts):
    opts = _home(tmp_path, 41)
    one = doctor.run(opts, ("claude",))
    codes = doctor.counts(one)
    for code in ("skill-link-broken", "skill-link-escapes", "spec-yaml-invalid", "spec-name-dir-mismatch",
                 "invisible-characters", "spec-no-frontmatter"):  # every lens of the pass has findings to merge
        assert codes.get(code, 0) >= 6, code
    assert codes.get("plugin-path-missing", 0) == 3  # and the plugin checks, which the last child runs
    for workers in (2, 3, 8):
        assert _json(doctor.run(opts, ("claude",), workers=workers)) == _json(one)


def test_every_runtime_in_parallel(tmp_path, small_parts):
    opts = _home(tmp_path, 30)
    runtimes = ("claude", "codex", "omp", "gemini")
    assert _json(doctor.run(opts, runtimes, workers=2)) == _json(doctor.run(opts, runtimes))


def test_a_failed_child_leaves_its_part_to_the_parent(tmp_path, small_parts, monkeypatch):
    opts = _home(tmp_path, 24)
    one = _json(doctor.run(opts, ("claude",)))
    monkeypatch.setattr(doctor, "_fork_pass", lambda catalog, items, then=None: None)  # no child could start
    assert _json(doctor.run(opts, ("claude",), workers=2)) == one
    monkeypatch.setattr(doctor, "_fork_pass", lambda catalog, items, then=None: lambda: None)  # the child died
    assert _json(doctor.run(opts, ("claude",), workers=2)) == one


def test_check_failures_are_counted_across_parts(tmp_path, small_parts, monkeypatch):
    opts = _home(tmp_path, 24)
    real = invisible.body_findings

    def flaky(catalog, s, body):
        if s.name.endswith(("3", "7")):
            raise RuntimeError(f"boom {s.name}")
        return real(catalog, s, body)

    monkeypatch.setattr(invisible, "body_findings", flaky)  # the forked children inherit it
    monkeypatch.setattr(doctor, "_early", lambda path, text, fm: None)  # every skill through the pass's lenses
    one = _json(doctor.run(opts, ("claude",)))
    failed = [d for d in one if d["code"] == "doctor-check-failed"]
    assert len(failed) == 1 and "other skills" in failed[0]["message"]
    assert _json(doctor.run(opts, ("claude",), workers=2)) == one


def _pids_of_calls(monkeypatch, name: str) -> list[int]:
    """The process id of each call of `doctor.<name>` from now on, in this process (a forked child's calls stay there)."""
    calls: list[int] = []
    real = getattr(doctor, name)

    def counted(*args):
        calls.append(os.getpid())
        return real(*args)

    monkeypatch.setattr(doctor, name, counted)
    return calls


def test_the_plugin_checks_run_beside_the_pass(tmp_path, small_parts, monkeypatch):
    """With the pass cut in parts, the plugin checks run once, in the last child (not in this process). When discovery
    did the lenses' work (the pass is short), the budget check and the first plugins have a child, and the other
    plugins are checked here meanwhile (doctor._halves)."""
    opts = _home(tmp_path, 41)
    calls = _pids_of_calls(monkeypatch, "_check_plugin")
    one = _json(doctor.run(opts, ("claude",)))
    assert calls == [os.getpid()] * 3
    calls.clear()
    claude._PARSED.clear()  # parsed afresh, as on the command line: discovery runs the lenses
    assert _json(doctor.run(opts, ("claude",), workers=2)) == one
    assert calls == [os.getpid()] * 2  # a short pass: two of the three here, beside the budget check's child
    calls.clear()
    monkeypatch.setattr(doctor, "_early", lambda path, text, fm: None)  # every file through the pass, cut in parts
    assert _json(doctor.run(opts, ("claude",), workers=2)) == one
    assert calls == []  # the child's calls were in the child


def test_the_work_beside_a_short_pass_is_cut_where_both_end_together():
    def then(weight):
        return doctor.Then(lambda: [], weight)

    budget, plugins = then(600), [then(10) for _ in range(50)]
    away, stay = doctor._halves(doctor._joined((budget, *plugins)), 600)  # the bench tree's figures
    assert stay is not None and away.pieces == (budget, *plugins[:25]) and stay.pieces == tuple(plugins[25:])
    away, stay = doctor._halves(doctor._joined((budget, *plugins)), 1200)  # this process is busy: the child takes all
    assert stay is None and away.pieces == (budget, *plugins)
    away, stay = doctor._halves(doctor._joined((budget, *plugins)), 0)  # nothing else to do here: half each
    assert stay is not None and away is budget and len(stay.pieces) == 50
    assert doctor._halves(budget, 0) == (budget, None)  # one piece: the child's


def test_children_are_reaped(tmp_path, small_parts):
    opts = _home(tmp_path, 20)
    before = _children()
    doctor.run(opts, ("claude",), workers=4)
    # no child left behind, finished (a zombie is still listed) or not; the suite's own background jobs (mypy) are
    # children of this process too, so compare with before instead of asking for none at all
    assert _children() <= before


def _children() -> set[int]:
    """This process's child pids, zombies included (Linux's /proc/<pid>/task/<tid>/children)."""
    tasks = f"/proc/{os.getpid()}/task"
    if not os.path.isdir(tasks) or not os.path.exists(f"{tasks}/{os.getpid()}/children"):
        pytest.skip("needs /proc/<pid>/task/<tid>/children (Linux)")
    found: set[int] = set()
    for tid in os.listdir(tasks):
        with open(f"{tasks}/{tid}/children") as fh:
            found.update(int(p) for p in fh.read().split())
    return found


def test_the_budget_check_runs_beside_the_pass_with_the_same_finding(tmp_path, small_parts, monkeypatch):
    """Over budget (a tiny skillListingBudgetFraction): the budget check runs in the child beside the pass, once, and
    its finding is the one of a single process, in the same place."""
    opts = _home(tmp_path, 41)
    settings = tmp_path / "home/.claude/settings.json"
    settings.write_text(json.dumps({**json.loads(settings.read_text()), "skillListingBudgetFraction": 0.0005}))
    calls = _pids_of_calls(monkeypatch, "budget_findings")
    one = _json(doctor.run(opts, ("claude",)))
    assert calls == [os.getpid()]
    assert [d["code"] for d in one].count("claude-listing-over-budget") == 1
    calls.clear()
    claude._PARSED.clear()  # parsed afresh, as on the command line: discovery runs the lenses
    assert _json(doctor.run(opts, ("claude",), workers=2)) == one
    assert calls == []  # it ran in the child
