"""Doctor findings people can trust (issue #13): fixes never destroy, one finding per cause, internal keys only with
where to set them, severities that mean what the issue says."""

from __future__ import annotations

import json
import os
import re

import pytest
from test_delivery import CANON, TWIN, Tree, write

from skilltui import doctor
from skilltui.checks import delivery
from skilltui.model import Options

COMMAND = re.compile(r"\b(ln|rm|mv)((?:\s+[^\s;,()]+)+)")


def _resolve(arg: str, t: Tree) -> str:
    if arg.startswith("~/"):
        return str(t.h / arg[2:])
    return arg if os.path.isabs(arg) else str(t.r / arg)


def destructive(fix: str, t: Tree, names: list[str]) -> list[str]:
    """Commands in a fix text that would replace, move onto or delete an existing real file or folder."""
    bad = []
    for m in COMMAND.finditer(fix):
        tool, args = m.group(1), m.group(2).split()
        flags = "".join(a[1:] for a in args if a.startswith("-"))
        paths = [a.strip("`'\"").rstrip(".") or "." for a in args if not a.startswith("-")]
        if not paths:
            continue
        for name in names or ["<name>"]:
            targets = [_resolve(p.replace("<name>", name), t) for p in paths]
            dest = targets[-1]
            removes = tool == "rm" and any(os.path.lexists(p) for p in targets)
            if removes or (tool == "mv" and os.path.lexists(dest)) or (tool == "ln" and len(targets) >= 2 and os.path.lexists(dest) and not (
                    os.path.islink(dest) and "f" in flags and "n" in flags)):
                bad.append(m.group(0))
    return bad


def scenarios(tmp_path):
    """Every transport setup of the delivery tests, plus the issue's: a real ~/.claude/skills with skills of its own."""
    made = []

    def new(name, chain=True):
        t = Tree(tmp_path / name, chain=chain) if (tmp_path / name).mkdir() is None else None
        made.append(t)
        return t

    new("ok")
    t = new("user-real-folder", chain=False)  # the issue's home: 3 skills of the user's own, project opts in
    for own in ("alpha", "beta", "gamma"):
        write(t.h / f".claude/skills/{own}/SKILL.md", f"---\nname: {own}\ndescription: Mine.\n---\n")
    write(t.r / ".claude/skills/local/SKILL.md", "---\nname: local\ndescription: Project own.\n---\n")
    t.registry("foo")
    t = new("user-link-elsewhere", chain=False)
    write(t.tmp / "dotfiles/skills/mine/SKILL.md", "---\nname: mine\ndescription: Mine.\n---\n")
    os.symlink(str(t.tmp / "dotfiles/skills"), t.user_link)
    t.registry("foo")
    t = new("dangling")
    os.unlink(t.user_link)
    os.symlink("../../r/.claude/skillz", t.user_link)
    t = new("project-copy")
    os.unlink(t.proj_link)
    write(t.r / ".claude/skills/foo/SKILL.md", CANON + "drift\n")
    t = new("project-wrong")
    write(t.r / "elsewhere/foo/SKILL.md", CANON)
    os.unlink(t.proj_link)
    os.symlink("../elsewhere", t.proj_link)
    t = new("file-not-link")
    os.unlink(t.proj_link)
    write(t.proj_link, "not a folder")
    t = new("twins")
    t.twin(pin="1.1.0")
    t.registry("foo", "bar")
    t = new("agy")
    kw = t.agy(hardlink=False)
    write(t.tmp / "agy/skills/foo/SKILL.md", CANON + "edited\n")
    t.kw = kw
    return made


def test_no_fix_destroys(tmp_path):
    checked = 0
    for t in scenarios(tmp_path):
        names = sorted(os.listdir(t.r / ".agents/skills"))
        for d in t.run(**getattr(t, "kw", {})):
            checked += bool(d.fix)
            assert not destructive(d.fix or "", t, names), (t.tmp.name, d)
    assert checked >= 10


def test_issue_home_keeps_its_skills_folder(tmp_path):
    """The issue's case: no `ln -sfn … ~/.claude/skills` over a real folder; the fix says what it would lose."""
    t = next(s for s in scenarios(tmp_path) if s.tmp.name == "user-real-folder")
    diags = t.run()
    text = " ".join(d.fix or "" for d in diags)
    assert "-sf" not in text
    user = [d for d in diags if d.path == t.user_link]
    assert user and all(d.severity != "error" for d in user)
    assert "alpha" in user[0].fix and "lose" in user[0].fix


def test_destructive_scanner_catches_the_old_fixes(tmp_path):
    """The scanner itself: the fix the issue quotes is caught."""
    t = next(s for s in scenarios(tmp_path) if s.tmp.name == "user-real-folder")
    assert destructive("ln -sfn ../../r/.claude/skills ~/.claude/skills", t, ["foo"])
    assert destructive("rm -rf .claude/skills", t, ["foo"])
    assert not destructive("ln -s ../.agents/skills/foo ~/.claude/skills/new", t, ["foo"])


def test_internal_keys_come_with_where_to_set_them(tmp_path):
    plugin = tmp_path / "p"
    write(plugin / ".claude-plugin/plugin.json", json.dumps({"name": "p"}))
    write(plugin / "skills/run/SKILL.md", "---\nname: run\ndescription: Run it.\n---\nBody.\n")
    write(plugin / "commands/run.md", "---\ndescription: Run it.\n---\nFollow skills/run/SKILL.md\n")
    diags = delivery.check_plugin(str(plugin))
    for d in diags:
        text = f"{d.message} {d.fix or ''}"
        assert "delivery." not in text, d
    guide = [d for d in diags if d.code == "plugin-capability-guide-missing"]
    assert guide and delivery.GUIDE_ENV in (guide[0].fix or "")


def test_pairing_checks_only_for_pairing_plugins(tmp_path):
    """§1.2: a command without a skill is an error only in a plugin that follows the pairing convention."""
    plugin = tmp_path / "official"
    write(plugin / ".claude-plugin/plugin.json", json.dumps({"name": "official"}))
    write(plugin / "commands/help.md", "---\ndescription: Help.\n---\nExplain the commands of this plugin.\n")
    write(plugin / "skills/other/SKILL.md", "---\nname: other\ndescription: Other.\n---\nBody.\n")
    assert [d for d in delivery.check_plugin(str(plugin)) if d.severity == "error"] == []
    write(plugin / "commands/other.md", "---\ndescription: Other.\n---\nFollow skills/other/SKILL.md\n")
    codes = {d.code for d in delivery.check_plugin(str(plugin))}
    assert "plugin-command-without-skill" in codes


def test_one_finding_per_cause_with_its_lenses(tmp_path):
    skill = tmp_path / "home/.claude/skills/broken"
    write(skill / "SKILL.md", "---\nname: broken\ndescription: a: b: c\n  - x\n---\nBody.\n")
    (tmp_path / "proj").mkdir()
    opts = Options(cwd=str(tmp_path / "proj"), home=str(tmp_path / "home"), managed_dir=str(tmp_path / "m"),
                   env={"HOME": str(tmp_path / "home")})
    diags = [d for d in doctor.run(opts, ("claude",)) if d.path and "broken" in d.path]
    invalid = [d for d in diags if doctor.CAUSES.get(d.code) == "frontmatter-invalid"]
    assert len(invalid) == 1, diags
    assert set(invalid[0].lenses) == {"Claude Code", "Agent Skills spec"}
    assert invalid[0].to_json()["lenses"] == list(invalid[0].lenses)


@pytest.mark.parametrize("pin", ["1.2.0", "1.1.0"])
def test_twin_findings_name_codex(tmp_path, pin):
    t = Tree(tmp_path)
    write(t.r / ".codex/skills/foo/SKILL.md", TWIN.format(pin=pin))
    t.registry("foo")
    errors = [d.code for d in t.run() if d.severity == "error"]
    assert errors == ([] if pin == "1.2.0" else ["codex-twin-version-mismatch"])


def test_shipped_entries_without_files_are_not_checked_as_folders(tmp_path):
    """Codex's system skills are listed before Codex writes them: no 'Path does not exist' for them."""
    (tmp_path / "proj").mkdir()
    opts = Options(cwd=str(tmp_path / "proj"), home=str(tmp_path / "home"), managed_dir=str(tmp_path / "m"),
                   env={"HOME": str(tmp_path / "home")}, runtime="codex")
    assert not [d for d in doctor.run(opts, ("codex",)) if d.code == "spec-missing-skill-md"]


def test_yaml_errors_read_as_one_line_for_people_and_stay_exact_in_json(tmp_path, capsys):
    from skilltui import cli

    skill = tmp_path / "home" / ".claude" / "skills" / "colon"
    skill.mkdir(parents=True)
    # a flow list: YAML to Claude Code, refused by the spec's strict YAML only (so its finding stands alone)
    (skill / "SKILL.md").write_text("---\nname: colon\ndescription: Deploy checklist\nallowed-tools: [Read, Grep]\n---\n"
                                    "Body\n")
    (tmp_path / "proj").mkdir()
    args = ["--home", str(tmp_path / "home"), "--cwd", str(tmp_path / "proj"), "--no-cache", "doctor"]
    cli.main(args)
    human = capsys.readouterr().out
    assert "While scanning (line 4, column 16); Found ugly disallowed JSONesque flow mapping" in human
    assert "<unicode string>" not in human and "^ (line" not in human
    cli.main([*args, "--json"])
    exact = [d["message"] for d in json.loads(capsys.readouterr().out)["diagnostics"] if d["code"] == "spec-yaml-invalid"]
    assert exact and '\n  in "<unicode string>", line 4, column 16:\n' in exact[0]
