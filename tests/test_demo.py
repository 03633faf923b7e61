"""The bundled demo, as a new user meets it: every status is there, a toggle changes one line, the doctor's fixes work."""

from __future__ import annotations

import json
import os

import pytest

from skilltui import cli, doctor
from skilltui.demo import demo_options


@pytest.fixture
def demo(tmp_path, monkeypatch):
    monkeypatch.setenv("SKILLTUI_DEMO_DIR", str(tmp_path / "demo"))
    return demo_options("claude", dict(os.environ), reset=True)


def run(capsys, *argv):
    code = cli.main(["--demo", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_demo_shows_every_status(demo, capsys):
    code, out, _ = run(capsys, "list", "--all", "--json")
    assert code == 0
    skills = json.loads(out)["skills"]
    by = {(s["name"], s["source"]): s for s in skills}
    assert {s["status"] for s in skills} >= {"listed", "shadowed", "invalid", "hidden", "conditional"}
    assert {s["source"] for s in skills if s["status"] == "listed"} >= {"user", "project", "legacy-command", "plugin", "bundled", "builtin"}
    assert by[("commit-helper", "project")]["status"] == "shadowed"
    assert by[("commit-helper", "project")]["shadowed_by"].endswith("home/.claude/skills/commit-helper/SKILL.md")
    assert by[("release  notes", "user")]["status"] == "invalid"
    assert by[("api-conventions", "project")]["status"] == "conditional"
    assert by[("pdf-tools", "user")]["label"] == "pdf-tools (pdf)"
    assert by[("yaml-retry", "user")]["description"] == "Deploy checklist: build, tag and ship a release"
    assert by[("web-deploy", "project")]["status"] == "listed"  # found from the nested cwd
    assert by[("linter:lint-fix", "plugin")]["status"] == "listed"  # user false, project true


def test_human_list_of_the_demo(demo, capsys):
    code, out, _ = run(capsys, "list")
    assert code == 0 and "commit-helper" in out and "simulated" in out


def test_toggle_changes_exactly_one_line(demo, capsys):
    settings = os.path.join(demo.cwd, ".claude", "settings.json")
    before = open(settings, encoding="utf-8").read().splitlines()
    code, out, err = run(capsys, "plugin", "disable", "linter@demo-market")
    assert code == 0, err
    after = open(settings, encoding="utf-8").read().splitlines()
    assert len(before) == len(after)
    assert [(a, b) for a, b in zip(before, after) if a != b] == [
        ('    "linter@demo-market": true', '    "linter@demo-market": false')]
    code, out, _ = run(capsys, "plugins", "--json")
    row = next(p for p in json.loads(out) if p["id"] == "linter@demo-market")
    assert row["enabled"] is False and row["decided_by"] == "project" and row["decided_in"] == settings
    code, out, _ = run(capsys, "list", "--json")
    assert "linter:lint-fix" not in [s["name"] for s in json.loads(out)["skills"]]


def test_each_deliberate_defect_shows_once_and_its_fix_works(demo, capsys):
    home_skills = os.path.join(demo.home, ".claude", "skills")
    codes = doctor.counts(doctor.run(demo, ("claude",)))
    for code in ("claude-name-invalid", "claude-frontmatter-retried", "claude-shadowed", "claude-conditional",
                 "skill-link-broken", "skill-link-escapes", "plugin-ineffective-disable"):
        assert codes.get(code) == 1, code
    os.rename(os.path.join(home_skills, "release  notes"), os.path.join(home_skills, "release-notes"))
    with open(os.path.join(home_skills, "pdf-tools", "references", "layout.md"), "w") as fh:
        fh.write("# Layout\n")
    path = os.path.join(home_skills, "yaml-retry", "SKILL.md")
    text = open(path).read().replace("description: Deploy checklist: build, tag and ship a release",
                                     'description: "Deploy checklist: build, tag and ship a release"')
    open(path, "w").write(text)
    assert run(capsys, "plugin", "disable", "linter@demo-market", "--scope", "project")[0] == 0
    codes = doctor.counts(doctor.run(demo, ("claude",)))
    for code in ("claude-name-invalid", "claude-frontmatter-retried", "skill-link-broken", "plugin-ineffective-disable"):
        assert code not in codes, code


def test_bytecode_of_an_installed_package_is_not_copied_into_the_demo(tmp_path, monkeypatch):
    """`pip install` compiles the demo's scripts next to them; the demo must not list a `.pyc` as a referenced file."""
    import compileall
    import shutil

    from skilltui import demo as demo_mod

    tree = tmp_path / "tree"
    shutil.copytree(demo_mod.TREE, tree)
    assert compileall.compile_dir(str(tree), quiet=1)  # what an installed package holds
    assert list(tree.rglob("__pycache__"))
    monkeypatch.setattr(demo_mod, "TREE", str(tree))
    dest = demo_mod.install(str(tmp_path / "copy"))
    assert not [p for p in (tmp_path / "copy").rglob("*") if "__pycache__" in p.parts]
    assert os.path.isfile(os.path.join(dest, "home/.claude/skills/pdf-tools/scripts/extract.py"))
