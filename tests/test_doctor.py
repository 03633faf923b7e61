"""Doctor findings not covered elsewhere: budget pressure, installed-but-disabled plugins, manifest paths that escape."""

from __future__ import annotations

import json

from treelib import build, md

from skilltui import doctor
from skilltui.model import Options


def _opts(root, env=None) -> Options:
    home = root / "home"
    return Options(cwd=str(root / "proj"), home=str(home), managed_dir=str(root / "managed"),
                   env={"HOME": str(home), **(env or {})})


def _plugin(root, name: str, manifest: dict, files: dict, enabled) -> None:
    base = f"home/.claude/plugins/cache/m/{name}/1.0.0"
    settings = {"enabledPlugins": {f"{name}@m": enabled}} if enabled is not None else {}
    build(root, {
        "proj/.git": {},
        f"{base}/.claude-plugin/plugin.json": manifest,
        **{f"{base}/{k}": v for k, v in files.items()},
        "home/.claude/plugins/installed_plugins.json": {"version": 2, "plugins": {f"{name}@m": [
            {"scope": "user", "installPath": str(root / base), "version": "1.0.0"}]}},
        "home/.claude/plugins/known_marketplaces.json": {"m": {"source": {"source": "github", "repo": "o/r"},
                                                                "installLocation": str(root / "home/.claude/plugins/marketplaces/m")}},
        "home/.claude/plugins/marketplaces/m/.claude-plugin/marketplace.json": {  # it must list the plugin (§10.4)
            "name": "m", "owner": {"name": "o"}, "plugins": [{"name": name, "source": "./x"}]},
        "home/.claude/settings.json": settings,
    })


def test_budget_pressure_names_the_entries_that_lose_their_description(tmp_path):
    build(tmp_path, {f"home/.claude/skills/s{i:02d}/SKILL.md": md("d" * 300) for i in range(12)})
    (tmp_path / "proj").mkdir()
    sonnet = {"ANTHROPIC_MODEL": "claude-sonnet-4-6"}  # the user's model decides the budget (spec §8.0)
    found = [d for d in doctor.run(_opts(tmp_path, sonnet), ("claude",)) if d.code == "claude-listing-over-budget"]
    assert len(found) == 1 and found[0].severity == "warning" and found[0].fix
    assert "8000-column budget" in found[0].message and "s11" in found[0].message and "s00" not in found[0].message
    assert "from ANTHROPIC_MODEL" in found[0].message
    # With nothing set, Claude Code's default model (claude-opus-5-5, a 30000-column budget) has room for all twelve.
    assert not [d for d in doctor.run(_opts(tmp_path), ("claude",)) if d.code == "claude-listing-over-budget"]
    roomy = doctor.run(_opts(tmp_path, {"SLASH_COMMAND_TOOL_CHAR_BUDGET": "50000"}), ("claude",))
    assert not [d for d in roomy if d.code == "claude-listing-over-budget"]


def test_installed_but_not_enabled_plugin(tmp_path):
    _plugin(tmp_path, "quiet", {"name": "quiet"}, {"skills/x/SKILL.md": md("x")}, enabled=None)
    found = [d for d in doctor.run(_opts(tmp_path), ("claude",)) if d.code == "plugin-disabled"]
    assert len(found) == 1 and found[0].severity == "info"
    assert "no settings file mentions it" in found[0].message and found[0].fix == "skilltui plugin enable quiet@m"


def test_disabled_by_a_file_names_that_file(tmp_path):
    _plugin(tmp_path, "off", {"name": "off"}, {"skills/x/SKILL.md": md("x")}, enabled=False)
    found = [d for d in doctor.run(_opts(tmp_path), ("claude",)) if d.code == "plugin-disabled"]
    assert found and found[0].path == str(tmp_path / "home/.claude/settings.json")


def test_manifest_skills_path_that_leaves_the_plugin(tmp_path):
    _plugin(tmp_path, "esc", {"name": "esc", "skills": "../../../../../../outside"},
            {"skills/ok/SKILL.md": md("ok")}, enabled=True)
    build(tmp_path, {"outside/evil/SKILL.md": md("must not load")})
    diags = doctor.run(_opts(tmp_path), ("claude",))
    found = [d for d in diags if d.code == "plugin-path-escapes"]
    assert len(found) == 1 and found[0].path.endswith("esc/1.0.0/.claude-plugin/plugin.json")
    from skilltui.runtimes import discover

    names = [s.name for s in discover(_opts(tmp_path)).listed()]
    assert "esc:ok" in names and "esc:evil" not in names


def test_doctor_json_is_sorted_by_severity(tmp_path, capsys):
    from skilltui import cli

    build(tmp_path, {"home/.claude/skills/a  b/SKILL.md": md("x"), "home/.claude/skills/ok/SKILL.md": "no frontmatter"})
    (tmp_path / "proj").mkdir()
    o = _opts(tmp_path)
    assert cli.main(["--cwd", o.cwd, "--home", o.home, "--managed-dir", o.managed_dir, "doctor", "--json"]) == 0
    sev = [d["severity"] for d in json.loads(capsys.readouterr().out)["diagnostics"]]
    assert sev == sorted(sev, key=doctor.SEVERITY_ORDER.__getitem__)
