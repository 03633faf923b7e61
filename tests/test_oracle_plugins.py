"""Claude Code's plugin rules replayed from recordings of the real tool (tests/fixtures/claude-plugins).

Each case is a small tree plus what Claude Code 2.1.332 printed for it (`record.py` there re-records them with
../shared/oracle; this file never calls the oracle): the listing's plugin entries and their order (several install
records, marketplaces that no longer list a plugin, --add-dir settings), `claude plugin list` rows, `plugin
enable|disable` targets, and the git ignore rule Claude Code adds when it writes local settings.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from plugintrees import GIT, prepare

from skilltui import budget, cli
from skilltui.model import Options
from skilltui.runtimes import discover
from skilltui.runtimes.claude import plugins as plugin_mod

HERE = Path(__file__).resolve().parent / "fixtures" / "claude-plugins"


def _runs(kind: str) -> list:
    out = []
    for case_file in sorted(HERE.glob("*/case.json")):
        case = json.loads(case_file.read_text())
        for run in case["runs"]:
            if run["cmd"][0] == kind:
                out.append(pytest.param(case_file.parent, case, run, id=f"{case_file.parent.name}:{run['id']}"))
    return out


def _args(run: dict, tree: Path) -> list[str]:
    return [a.replace("$TREE", str(tree)) for a in run.get("args", [])]


def _options(case: dict, run: dict, tree: Path) -> Options:
    home = tree / case["home"]
    args = _args(run, tree)
    add_dirs = [args[i + 1] for i, a in enumerate(args) if a == "--add-dir"]
    flag = next((args[i + 1] for i, a in enumerate(args) if a == "--settings"), None)
    env = {"HOME": str(home), "PATH": os.environ.get("PATH", "")}
    env.update({k: v.replace("$TREE", str(tree)) for k, v in run.get("env", {}).items()})
    managed = tree / case.get("managed_dir", "no-managed-dir")
    return Options(cwd=str(tree / run.get("cwd", case["cwd"])), home=str(home), runtime="claude",
                   managed_dir=str(managed), add_dirs=add_dirs, settings_flag=flag, env=env)


def _expected(folder: Path, run: dict, tree: Path):
    return json.loads((folder / f"expected-{run['id']}.json").read_text().replace("$TREE", str(tree)))


def _skills_dir_plugins(tree: Path, case: dict) -> list[str]:
    skills = tree / case["home"] / ".claude" / "skills"
    return [n for n in os.listdir(skills) if (skills / n / ".claude-plugin" / "plugin.json").is_file()] if skills.is_dir() else []


# ---------------------------------------------------------------- the listing: which record loads, order, causes
@pytest.mark.parametrize("folder, case, run", _runs("claude-listing"))
def test_listing(folder, case, run, tmp_path):
    tree = prepare(folder, case, run, tmp_path)
    want = _expected(folder, run, tree)
    assert want["over_budget"] is None  # the fixtures stay under the budget, so every entry is compared in full
    rows = [e for e in want["entries"] if not e["shipped"]]

    # `@skills-dir` plugins come in the order their folder lists them (not sorted): the recording shows Claude Code
    # following the order its copy listed; this copy may list them otherwise, so expect this copy's order.
    recorded = want.get("readdir", {}).get("home/.claude/skills", [])
    sd_recorded = [n for n in recorded if n in _skills_dir_plugins(tree, case)]
    sd_rows = [e for e in rows if e["label"].split(":", 1)[0] in sd_recorded]
    assert [e["label"].split(":", 1)[0] for e in sd_rows] == sd_recorded
    here = {n: i for i, n in enumerate(_skills_dir_plugins(tree, case))}
    sd_rows.sort(key=lambda e: here[e["label"].split(":", 1)[0]])
    rows = [e for e in rows if e not in sd_rows] + sd_rows

    view = budget.run(_options(case, run, tree), model="claude-sonnet-4-6")
    got = [e for e in view.result.entries if not e.shipped]
    assert [e.label for e in got] == [e["label"] for e in rows]
    assert (view.text or "") == "\n".join(e["text"] for e in rows)


# ---------------------------------------------------------------- `claude plugin list` rows
def _comparable(row: dict) -> dict:
    out = {k: v for k, v in row.items() if k not in ("installedAt", "lastUpdated", "noteDetails", "errorDetails", "folderVersion")}
    if row["id"].endswith("@builtin"):
        out.pop("hasUserConfig", None)  # Claude Code's own plugins' internals
    return out


@pytest.mark.parametrize("folder, case, run", [p for p in _runs("claude-plugin-list") if "--text" not in p.values[2]["cmd"]])
def test_plugin_list_rows(folder, case, run, tmp_path):
    tree = prepare(folder, case, run, tmp_path)
    recorded = _expected(folder, run, tree)
    here = {f"{n}@skills-dir": i for i, n in enumerate(_skills_dir_plugins(tree, case))}
    sd = sorted((r for r in recorded if r["id"] in here), key=lambda r: here[r["id"]])  # folder order, as test_listing
    recorded = [r for r in recorded if r["id"].endswith("@builtin") is False and r["id"] not in here] + sd + [
        r for r in recorded if r["id"].endswith("@builtin")]
    want = [_comparable(r) for r in recorded]
    catalog = discover(_options(case, run, tree))
    got = [r.to_json() for r in plugin_mod.list_rows(catalog.plugins, catalog.settings)]
    assert [r["id"] for r in got] == [r["id"] for r in want]
    for g, w, details in zip(got, want, recorded):
        kinds = [d["type"] for d in details.get("errorDetails", [])]
        if kinds and set(kinds) <= {"generic-error", "manifest-parse-error"}:
            # A failed download's text names a random temp folder; a JSON parser's words are Bun's. Same cause, same row.
            assert len(g.pop("errors")) == len(w.pop("errors")), w["id"]
        assert g == w


def test_plugin_list_causes_are_typed(tmp_path):
    """The causes the rows show are typed on the plugin, one per plugin id, with the first cause that applies."""
    folder = HERE / "delisted"
    case = json.loads((folder / "case.json").read_text())
    run = case["runs"][0]
    tree = prepare(folder, case, run, tmp_path)
    catalog = discover(_options(case, run, tree))
    blocked = {p.id: p.blocked for p in catalog.plugins if p.kind == "marketplace"}
    assert blocked == {"bad2@mkt": "not-enabled", "t@dmkt": "not-in-marketplace", "u@dmkt": None,
                       "v@badmf": "marketplace-failed", "w@nomf": "marketplace-failed", "x@mkt": None,
                       "y2@mkt": "not-enabled", "y@mkt": "not-in-marketplace", "z2@gone": "not-enabled",
                       "z@gone": "marketplace-unknown"}
    u = next(p for p in catalog.plugins if p.id == "u@dmkt")
    assert u.read_from_folder == str(tree / "dmkt/plugins/u") and u.loads
    disabled = {s.plugin: s.reason for s in catalog.skills if s.status == "disabled"}
    assert "its marketplace no longer lists it" in disabled["y@mkt"]


def test_one_plugin_per_id_with_its_records(tmp_path):
    """Several install records stay one plugin (one toggle, one row in skilltui's views); the record that applies
    here is marked, and the plugin's files are that record's."""
    folder = HERE / "records"
    case = json.loads((folder / "case.json").read_text())
    run = next(r for r in case["runs"] if r["id"] == "listing-sub")
    tree = prepare(folder, case, run, tmp_path)
    catalog = discover(_options(case, run, tree))
    ids = [p.id for p in catalog.plugins]
    assert len(ids) == len(set(ids))
    b = next(p for p in catalog.plugins if p.id == "b@mkt")
    assert [(r.scope, r.applies) for r in b.records] == [("project", True), ("user", True)]  # the first one loads
    assert b.root == str(tree / "home/.claude/plugins/cache/mkt/b/2.0.0") and b.version == "2.0.0"
    c = next(p for p in catalog.plugins if p.id == "c@mkt")
    assert not c.loads and c.blocked == "other-project" and str(tree / "other") in c.errors[0]


# ---------------------------------------------------------------- enable / disable and the git ignore rule
def _files(tree: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in tree.rglob("*") if p.is_file() and ".git" not in p.parts and "cache" not in p.parts}


@pytest.mark.parametrize("folder, case, run", _runs("claude-plugin"))
def test_enable_disable(folder, case, run, tmp_path, monkeypatch, capsys):
    if run.get("capture") and not GIT:
        pytest.skip("git is not installed: the git ignore rule asks git")
    tree = prepare(folder, case, run, tmp_path)
    opts = _options(case, run, tree)
    want = _expected(folder, run, tree)
    monkeypatch.setattr("os.environ", opts.env)
    before = _files(tree)
    code = cli.main(["--cwd", opts.cwd, "--home", opts.home, "--managed-dir", opts.managed_dir, "plugin",
                     *[a for a in run["cmd"][1:]]])
    out = capsys.readouterr().out
    after = _files(tree)
    assert code == want["rc"]
    line = json.loads(out)
    for key, value in want["result"].items():
        assert line[key] == value, key
    settings_changed = {p for p in after if after[p] != before.get(p) and "settings" in Path(p).name}
    assert settings_changed == set(want["changed"])
    for path in want["changed"]:
        assert json.loads(after[path]) == json.loads(want["files"][path])
        if path not in before:  # a file Claude Code creates: the same bytes
            assert after[path].decode() == want["files"][path]
    for rel, content in want.get("captured", {}).items():
        path = tree / rel
        assert (path.read_text() if path.is_file() else None) == content, rel
    if "capture" not in run:  # this recording did not look beyond the settings files
        return
    others = {p for p in after if after[p] != before.get(p)} - settings_changed
    assert others == {str(tree / rel) for rel, c in want.get("captured", {}).items() if c is not None
                      and (str(tree / rel) not in before or before[str(tree / rel)].decode() != c)}


def test_skill_set_local_adds_the_git_ignore_rule(tmp_path, monkeypatch, capsys):
    """`skill set NAME off` writes local settings: the same rule as Claude Code's local writes (issue #14)."""
    if not GIT:
        pytest.skip("git is not installed")
    home, repo = tmp_path / "home", tmp_path / "repo"
    (home / ".claude/skills/libafl").mkdir(parents=True)
    (home / ".claude/skills/libafl/SKILL.md").write_text("---\ndescription: fuzzing\n---\nbody\n")
    repo.mkdir()
    env = {"HOME": str(home), "PATH": os.environ.get("PATH", "")}
    subprocess.run([GIT, "init", "-q", str(repo)], check=True, timeout=60, env=env)
    monkeypatch.setattr("os.environ", env)
    args = ["--cwd", str(repo), "--home", str(home), "--managed-dir", str(tmp_path / "none")]
    assert cli.main(args + ["skill", "set", "libafl", "off", "--json"]) == 0
    line = json.loads(capsys.readouterr().out)
    ignore = home / ".config/git/ignore"
    assert ignore.read_text() == "**/.claude/settings.local.json\n"
    assert line["gitignore"] == {"file": str(ignore), "added": "**/.claude/settings.local.json"}
    status = subprocess.run([GIT, "status", "--porcelain", "--untracked-files=all"], cwd=repo, env=env, check=True,
                            capture_output=True, text=True, timeout=60).stdout
    assert ".claude/settings.local.json" not in status  # git ignores it now
    assert cli.main(args + ["skill", "set", "libafl", "on", "--json"]) == 0  # already ignored: nothing more written
    assert "gitignore" not in json.loads(capsys.readouterr().out)
    assert ignore.read_text() == "**/.claude/settings.local.json\n"


@pytest.mark.parametrize("folder, case, run", [p for p in _runs("claude-plugin-list") if "--text" in p.values[2]["cmd"]])
def test_plugin_list_text_status(folder, case, run, tmp_path):
    """`claude plugin list` (text): each installed plugin's Status line agrees with skilltui's row and cause."""
    tree = prepare(folder, case, run, tmp_path)
    text = (folder / f"expected-{run['id']}.txt").read_text().replace("$TREE", str(tree))
    status = {}
    for block in text.split("\n\n"):
        lines = [ln.strip() for ln in block.strip().splitlines()]
        if lines and lines[0].startswith("❯ ") and not lines[0].endswith("@builtin"):
            status[lines[0][2:]] = next(ln.split(": ", 1)[1] for ln in lines if ln.startswith("Status: "))
    catalog = discover(_options(case, run, tree))
    plugins = {p.id: p for p in catalog.plugins if p.kind != "builtin"}
    rows = {r.id: r for r in plugin_mod.list_rows(catalog.plugins, catalog.settings)}
    assert set(status) == set(plugins)
    for pid, shown in status.items():
        row, p = rows[pid], plugins[pid]
        if shown == "✘ failed to load":
            assert row.enabled and row.errors and not p.loads, pid
        elif shown == "✘ disabled":
            assert not row.enabled and not p.loads, pid
        else:
            assert shown == "✔ enabled" and row.enabled and not row.errors, pid
            assert p.loads == (p.blocked is None) and p.blocked in (None, "managed-off"), pid


def test_preview_names_the_git_ignore_file_without_writing(tmp_path):
    """The toggle dialog's preview says which git ignore file a local write will touch, and writes nothing."""
    from skilltui.runtimes.claude import toggle

    if not GIT:
        pytest.skip("git is not installed")
    folder = HERE / "gitignore"
    case = json.loads((folder / "case.json").read_text())
    run = next(r for r in case["runs"] if r["id"] == "local-xdg")
    tree = prepare(folder, case, run, tmp_path)
    catalog = discover(_options(case, run, tree))
    planned = toggle.preview(toggle.plan_plugin(catalog, "s@mkt", True, "local"))
    assert planned.gitignore_planned == str(tree / "xdg/git/ignore") and not (tree / "xdg").exists()
    assert not (tree / "repo/.claude").exists()
    assert toggle.preview(toggle.plan_plugin(catalog, "s@mkt", True, "user")).gitignore_planned is None


@pytest.mark.parametrize("run", [r for r in json.loads((HERE / "gitignore" / "case.json").read_text())["runs"]
                                 if "local" in r["cmd"]], ids=lambda r: r["id"])
def test_the_dialog_shows_the_git_ignore_lines_claude_code_adds(run, tmp_path, monkeypatch):
    """What the toggle dialog shows for the git ignore file (the preview's diff, before anything is written) is
    exactly what Claude Code added to it in the recorded run, and what skilltui's write then adds."""
    from skilltui.runtimes.claude import toggle
    from skilltui.settings_writer import text_diff

    if not GIT:
        pytest.skip("git is not installed")
    folder = HERE / "gitignore"
    case = json.loads((folder / "case.json").read_text())
    tree = prepare(folder, case, run, tmp_path)
    want = _expected(folder, run, tree)
    opts = _options(case, run, tree)
    monkeypatch.setattr("os.environ", opts.env)
    before = {rel: (tree / rel).read_bytes() if (tree / rel).is_file() else None for rel in want["captured"]}
    planned = toggle.preview(toggle.plan_plugin(discover(opts), "s@mkt", True, "local"))
    assert planned.no_write() is None
    changed = [rel for rel, text in want["captured"].items() if (text.encode() if text is not None else None) != before[rel]]
    if not changed:  # Claude Code left every ignore file alone: the dialog shows none
        assert planned.gitignore_planned is None and planned.gitignore_diff == []
    else:
        (rel,) = changed
        assert planned.gitignore_planned == str(tree / rel)
        assert planned.gitignore_diff == text_diff(before[rel], want["captured"][rel].encode())
    assert {rel: (tree / rel).read_bytes() if (tree / rel).is_file() else None for rel in before} == before  # unwritten
    done = toggle.apply(planned)
    assert done.ok
    for rel, text in want["captured"].items():
        assert ((tree / rel).read_text() if (tree / rel).is_file() else None) == text, rel
