"""One rule, one place: where the Doctor's checks once carried their own copy of a runtime rule, the Doctor and the
Skills listing (the runtime's catalog) now say the same thing. One test per former disagreement (issue #19)."""

from __future__ import annotations

import json
import os

import pytest

from skilltui import doctor
from skilltui.model import INVALID, LISTED, Options
from skilltui.runtimes import discover

CANON = "---\nname: {name}\nversion: 1.2.0\ndescription: Does things.\n{extra}---\n\nBody.\n"
TWIN = "---\n{fields}metadata:\n  syncs_with: \".agents/skills/foo/SKILL.md@1.2.0\"\n---\nAdapter.\n"


def write(path, text: str) -> str:
    os.makedirs(os.path.dirname(str(path)), exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)
    return str(path)


def delivery_tree(tmp_path, folder: str = "foo", extra: str = ""):
    """A project that opts into the delivery model: ~/.claude/skills -> r/.claude/skills -> r/.agents/skills."""
    r, h = tmp_path / "r", tmp_path / "h"
    (r / ".git").mkdir(parents=True)
    (r / ".claude").mkdir()
    (h / ".claude").mkdir(parents=True)
    canon = write(r / ".agents/skills" / folder / "SKILL.md", CANON.format(name="foo", extra=extra))
    os.symlink("../../r/.claude/skills", h / ".claude/skills")
    os.symlink("../.agents/skills", r / ".claude/skills")
    opts = Options(cwd=str(r), home=str(h), managed_dir=str(tmp_path / "m"), env={"HOME": str(h)})
    return opts, canon


def claude_verdict(opts: Options, canon: str) -> bool:
    """Does the Skills listing (Claude Code's catalog) list this file?"""
    real = os.path.realpath(canon)
    return any(s.status == LISTED and os.path.realpath(s.path) == real for s in discover(opts).skills)


def doctor_says_not_offered(opts: Options, canon: str) -> bool:
    return any(d.code in ("claude-canonical-not-offered", "claude-canonical-shadowed") and d.path == canon
               for d in doctor.run(opts, ("claude",)))


@pytest.mark.parametrize("folder", ["a\u3164b", "a\ufe0fb", "x\u034fy", "x:", "plain"])
def test_folder_names_judged_by_claude_rule(tmp_path, folder):
    """Hangul filler, variation selector and combining grapheme joiner: the delivery check once called them valid."""
    opts, canon = delivery_tree(tmp_path, folder)
    listed = claude_verdict(opts, canon)
    assert listed == (folder == "plain")
    assert doctor_says_not_offered(opts, canon) == (not listed)


@pytest.mark.parametrize("value", ["1", "'1'", "yes", "true", "on", "0", "false"])
def test_disable_model_invocation_judged_by_claude_rule(tmp_path, value):
    """`disable-model-invocation: 1` was hidden for the Doctor and listed by the Skills screen."""
    opts, canon = delivery_tree(tmp_path, extra=f"disable-model-invocation: {value}\n")
    listed = claude_verdict(opts, canon)
    assert doctor_says_not_offered(opts, canon) == (not listed)


@pytest.mark.parametrize("files", [
    {"h/.claude/settings.json": {"skillOverrides": {"foo": "off"}}},
    {"h/.claude/settings.json": {"skillOverrides": {"foo": "name-only"}}},
    {"h/.claude/settings.json": {"skillOverrides": {"foo": "off"}}, "r/.claude/settings.local.json": {"skillOverrides": {"foo": "on"}}},
    {"m/managed-settings.json": {"skillOverrides": {"foo": "user-invocable-only"}}},
    {"h/.claude/settings.json": {"skillOverrides": {"foo": "off", "bar": "bogus"}}},
])
def test_settings_read_by_claude_rule(tmp_path, files):
    """skillOverrides: the delivery check read the settings files itself, with its own merge."""
    opts, canon = delivery_tree(tmp_path)
    for rel, data in files.items():
        write(tmp_path / rel, json.dumps(data))
    assert doctor_says_not_offered(opts, canon) == (not claude_verdict(opts, canon))


def _codex_tree(tmp_path, twin_fields: str, config: str = ""):
    opts, canon = delivery_tree(tmp_path)
    twin = write(tmp_path / "r/.codex/skills/foo/SKILL.md", TWIN.format(fields=twin_fields))
    if config:
        write(tmp_path / "h/.codex/config.toml", config)
    return Options(**{**opts.__dict__, "runtime": "codex"}), canon, twin


@pytest.mark.parametrize("fields", [
    "name: foo\ndescription: Does things.\n",
    "name: foo\ndescription: \"\"\n",  # empty: Codex says the description is missing
    "name: foo\ndescription: \"   \"\n",
    "name: foo\n",
    f"name: {'n' * 65}\ndescription: Long.\n",
    "name: \"  foo  \"\ndescription: Does things.\n",  # Codex collapses the spaces: the same name
    "name: [foo]\ndescription: Does things.\n",
])
def test_codex_twin_validity_and_name_by_codex_rule(tmp_path, fields):
    """Name and description of a twin: the delivery check had its own YAML reading and its own rules."""
    opts, canon, twin = _codex_tree(tmp_path, fields)
    catalog = discover(opts)
    entry = next((s for s in catalog.skills if os.path.realpath(s.path) == os.path.realpath(twin)), None)
    diags = [d for d in doctor.run(opts, ("codex",)) if d.path == twin]
    invalid_by_doctor = any(d.code == "codex-twin-invalid" for d in diags)
    assert invalid_by_doctor == (entry is None or entry.status == INVALID), (diags, entry)
    if entry is not None and entry.status != INVALID:
        mismatch = any(d.code == "codex-twin-name-mismatch" for d in diags)
        assert mismatch == (entry.name != "foo")


@pytest.mark.parametrize("config", [
    "",
    '[[skills.config]]\npath = "{twin}"\nenabled = false\n',
    '[[skills.config]]\nname = "foo"\nenabled = false\n',
    '[[skills.config]]\npath = "{twin}"\nname = "foo"\nenabled = false\n',
    '[[skills.config]]\npath = "~/../r/.codex/skills/foo/SKILL.md"\nenabled = false\n',
])
def test_codex_duplicate_listing_by_codex_rule(tmp_path, config):
    """Whether Codex lists both copies: the delivery check read ~/.codex/config.toml with its own rules."""
    opts, canon, twin = _codex_tree(tmp_path, "name: foo\ndescription: Does things.\n")
    write(tmp_path / "h/.codex/config.toml", config.format(twin=twin))
    listed = {os.path.realpath(s.path) for s in discover(opts).skills if s.status == LISTED}
    both = os.path.realpath(twin) in listed and os.path.realpath(canon) in listed
    diags = doctor.run(opts, ("codex",))
    assert any(d.code == "codex-twin-duplicate-listing" for d in diags) == both


@pytest.mark.parametrize("description", ["Runs.", "''", "1e+21", "[a, b]", "{a: 1}", "true"])
def test_plugin_description_by_claude_rule(tmp_path, description):
    """`plugin-description-missing` once used the check's own reading of `description`."""
    base = tmp_path / "home/.claude/plugins/cache/m/p/1.0.0"
    write(base / ".claude-plugin/plugin.json", json.dumps({"name": "p"}))
    write(base / "skills/run/SKILL.md", f"---\ndescription: {description}\n---\nBody.\n")
    write(tmp_path / "home/.claude/plugins/installed_plugins.json", json.dumps(
        {"version": 2, "plugins": {"p@m": [{"scope": "user", "installPath": str(base), "version": "1.0.0"}]}}))
    write(tmp_path / "home/.claude/plugins/known_marketplaces.json", json.dumps({"m": {"source": {"source": "github", "repo": "o/r"}}}))
    write(tmp_path / "home/.claude/settings.json", json.dumps({"enabledPlugins": {"p@m": True}}))
    (tmp_path / "proj").mkdir()
    opts = Options(cwd=str(tmp_path / "proj"), home=str(tmp_path / "home"), managed_dir=str(tmp_path / "m"),
                   env={"HOME": str(tmp_path / "home")})
    entry = next(s for s in discover(opts).skills if s.path.endswith("run/SKILL.md"))
    found = [d for d in doctor.run(opts, ("claude",))
             if d.code in ("plugin-description-missing", "claude-plugin-item-unlisted") and d.path == entry.path]
    assert bool(found) == (not entry.facts.has_description)
    if found:  # the plugin check and Claude Code's own finding are one cause: reported once, both lenses named
        assert len(found) == 1 and set(found[0].lenses) <= {"Claude Code", "plugin consistency"}
