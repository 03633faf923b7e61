"""spec/delivery.md: every test vector of §4 as a real tree (real symlinks and hard links), plus hostile inputs."""

from __future__ import annotations

import hashlib
import json
import os
import random
import sys

import pytest

from skilltui.checks.delivery import check_delivery, check_plugin

CANON = "---\nname: foo\nversion: 1.2.0\ndescription: Does foo things.\n---\n\n# Foo\nBody.\n"
TWIN = (
    "---\nname: foo\ndescription: Does foo things.\nmetadata:\n"
    '  syncs_with: ".agents/skills/foo/SKILL.md@{pin}"\n---\nCodex adapter body.\n'
)
IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


def write(path, text: str | bytes) -> str:
    path = str(path)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as fh:
        fh.write(text.encode() if isinstance(text, str) else text)
    return path


def codes(diags) -> list[tuple[str, str]]:
    return sorted((d.code, d.severity) for d in diags)


def one(diags, code):
    found = [d for d in diags if d.code == code]
    assert len(found) == 1, (code, diags)
    return found[0]


def assert_wellformed(diags):
    for d in diags:
        assert d.severity in ("error", "warning", "info"), d
        assert d.code and d.message and "\n" not in d.message, d
        assert d.path, d
        assert d.fix is None or "\n" not in d.fix, d


# ------------------------------------------------------------------------------------------------------- delivery
class Tree:
    """Repo r/ (git root), home h/, managed dir m/; canonical r/.agents/skills/foo/SKILL.md."""

    def __init__(self, tmp_path, chain=True):
        self.tmp = tmp_path
        self.r, self.h, self.m = tmp_path / "r", tmp_path / "h", tmp_path / "m"
        (self.r / ".git").mkdir(parents=True)
        (self.h / ".claude").mkdir(parents=True)
        self.m.mkdir()
        self.canon = write(self.r / ".agents/skills/foo/SKILL.md", CANON)
        self.user_link = str(self.h / ".claude/skills")
        self.proj_link = str(self.r / ".claude/skills")
        if chain:
            (self.r / ".claude").mkdir()
            os.symlink("../../r/.claude/skills", self.user_link)
            os.symlink("../.agents/skills", self.proj_link)

    def twin(self, pin="1.2.0", text=None) -> str:
        return write(self.r / ".codex/skills/foo/SKILL.md", text if text is not None else TWIN.format(pin=pin))

    def registry(self, *names, raw=None) -> str:
        data = {"twins": [{"name": n, "canonical": f".agents/skills/{n}/SKILL.md", "twin": f".codex/skills/{n}/SKILL.md"}
                          for n in names]}
        return write(self.r / ".agents/twin-registry.json", raw if raw is not None else json.dumps(data, indent=2))

    def agy(self, hardlink=True, adapter=True, digest=None):
        skills, adapters = self.tmp / "agy/skills", self.tmp / "agy/adapters"
        (skills / "foo").mkdir(parents=True)
        adapters.mkdir(parents=True)
        if hardlink:
            os.link(self.canon, skills / "foo/SKILL.md")
        if adapter:
            digest = digest or hashlib.sha256(open(self.canon, "rb").read()).hexdigest()
            write(adapters / "foo.md", f"---\nskill: foo\nprojection_sha256: {digest}\n---\nGenerated.\n")
        return {"agy_skills_dir": str(skills), "agy_adapters_dir": str(adapters)}

    def run(self, env=None, **kw):
        diags = check_delivery(str(self.r), str(self.h), managed_dir=str(self.m), env=env or {}, **kw)
        assert_wellformed(diags)
        return diags


@pytest.fixture
def tree(tmp_path):
    return Tree(tmp_path)


# §4 vectors, in the spec's order
def test_chain_ok(tree):
    assert tree.run() == []


def test_chain_absolute_link(tree):
    os.unlink(tree.user_link)
    os.symlink(str(tree.r / ".claude/skills"), tree.user_link)
    diags = tree.run()
    assert codes(diags) == [("claude-link-absolute", "info")]
    assert diags[0].path == tree.user_link and diags[0].line is None
    assert "~/.claude/skills" in diags[0].message and diags[0].fix


def test_chain_project_element_is_a_copy(tree):
    os.unlink(tree.proj_link)
    write(tree.r / ".claude/skills/foo/SKILL.md", CANON)
    diags = tree.run()
    assert codes(diags) == [("claude-link-not-symlink", "warning")]
    assert diags[0].path == tree.proj_link


def test_chain_dangling_user_link(tree):
    os.unlink(tree.user_link)
    os.symlink("../../r/.claude/skillz", tree.user_link)
    diags = tree.run()
    assert codes(diags) == [("claude-canonical-unreachable", "error"), ("claude-link-dangling", "error")]
    assert one(diags, "claude-link-dangling").path == tree.user_link
    assert one(diags, "claude-canonical-unreachable").path == tree.canon


def test_managed_skill_shadows_canonical(tree):
    write(tree.m / ".claude/skills/foo/SKILL.md", "---\ndescription: managed foo\n---\n")
    diags = tree.run()
    assert codes(diags) == [("claude-canonical-shadowed", "warning")]
    assert diags[0].path == tree.canon and "managed" in diags[0].message
    # CLAUDE_CODE_DISABLE_POLICY_SKILLS removes the managed root
    assert tree.run(env={"CLAUDE_CODE_DISABLE_POLICY_SKILLS": "1"}) == []


def test_codex_twin_pinned_and_registered(tree):
    twin = tree.twin()
    tree.registry("foo")
    diags = tree.run()
    assert codes(diags) == [("codex-twin-duplicate-listing", "warning")]
    assert diags[0].path == twin and ".agents/skills/foo/SKILL.md" in diags[0].message
    assert ".codex/skills/foo/SKILL.md" in diags[0].message


def test_codex_twin_stale_pin(tree):
    twin = tree.twin(pin="1.1.0")
    tree.registry("foo")
    diags = tree.run()
    assert codes(diags) == [("codex-twin-duplicate-listing", "warning"), ("codex-twin-version-mismatch", "error")]
    d = one(diags, "codex-twin-version-mismatch")
    assert d.path == twin and d.line == 5
    assert "1.1.0" in d.message and "1.2.0" in d.message


def test_codex_config_disables_twin_by_path(tree):
    twin = tree.twin()
    tree.registry("foo")
    write(tree.h / ".codex/config.toml", f'[[skills.config]]\npath = "{twin}"\nenabled = false\n')
    assert tree.run() == []


def test_codex_config_name_selector_and_codex_home(tree):
    tree.twin()
    tree.registry("foo")
    alt = tree.tmp / "altcodex"
    write(alt / "config.toml", '[[skills.config]]\nname = "foo"\nenabled = false\n')
    assert tree.run(env={"CODEX_HOME": str(alt)}) == []
    # an entry with both selectors is ignored by Codex
    write(alt / "config.toml", '[[skills.config]]\nname = "foo"\npath = "/x"\nenabled = false\n')
    assert codes(tree.run(env={"CODEX_HOME": str(alt)})) == [("codex-twin-duplicate-listing", "warning")]


def test_codex_twin_without_syncs_with(tree):
    twin = tree.twin(text="---\nname: foo\ndescription: Does foo things.\n---\nbody\n")
    tree.registry("foo")
    diags = tree.run()
    assert {c for c, _ in codes(diags)} == {"codex-twin-syncs-with-missing", "codex-twin-duplicate-listing"}
    d = one(diags, "codex-twin-syncs-with-missing")
    assert (d.severity, d.path, d.line) == ("error", twin, 1)


def test_registry_names_missing_files(tree):
    reg = tree.registry("bar")
    diags = tree.run()
    assert codes(diags) == [("codex-twin-missing", "error"), ("codex-twin-registry-stale", "warning")]
    stale = one(diags, "codex-twin-registry-stale")
    assert stale.path == reg and stale.line == 4  # the line of "name": "bar"
    assert one(diags, "codex-twin-missing").path == str(tree.r / ".codex/skills/bar/SKILL.md")


def test_agy_hardlink_and_fresh_adapter(tree):
    assert tree.run(**tree.agy()) == []


def test_agy_copy_replaced_hardlink(tree):
    kw = tree.agy(hardlink=False)
    copy = write(tree.tmp / "agy/skills/foo/SKILL.md", CANON)
    diags = tree.run(**kw)
    assert codes(diags) == [("agy-hardlink-broken", "error")]
    assert diags[0].path == copy


def test_agy_canonical_edited_after_generation(tree):
    kw = tree.agy()
    with open(tree.canon, "a") as fh:  # in place: same inode, so the hard link holds
        fh.write("One more line.\n")
    diags = tree.run(**kw)
    assert codes(diags) == [("agy-projection-stale", "error")]
    assert diags[0].path == str(tree.tmp / "agy/adapters/foo.md") and diags[0].line == 3


# further transport cases
def test_no_delivery_in_use_means_no_claude_noise(tmp_path):
    """§1.2: without opting in, `.agents/skills` is a folder Codex reads: one note, no error, no command to run."""
    t = Tree(tmp_path, chain=False)
    d = one(t.run(), "claude-agents-folder-not-read")
    assert d.severity == "info" and len(t.run()) == 1
    # a real .claude/skills folder of the project does not opt in either
    write(t.r / ".claude/skills/own/SKILL.md", "---\ndescription: Own.\n---\n")
    assert codes(t.run()) == [("claude-agents-folder-not-read", "info")]


def test_project_link_missing_and_user_points_into_repo(tmp_path):
    t = Tree(tmp_path, chain=False)
    os.symlink("../../r/.agents/skills", t.user_link)
    diags = t.run()
    assert codes(diags) == [("claude-link-missing", "error")]
    assert diags[0].path == t.proj_link


def test_project_link_wrong_target(tree):
    write(tree.r / "elsewhere/foo/SKILL.md", CANON)
    os.unlink(tree.proj_link)
    os.symlink("../elsewhere", tree.proj_link)
    diags = tree.run()
    assert codes(diags) == [("claude-link-wrong-target", "error")]
    assert diags[0].path == tree.proj_link and "elsewhere" in diags[0].message


def test_drifted_copy_is_unreachable(tree):
    os.unlink(tree.proj_link)
    write(tree.r / ".claude/skills/foo/SKILL.md", CANON + "drift\n")
    assert codes(tree.run()) == [("claude-canonical-unreachable", "error"), ("claude-link-not-symlink", "warning")]


def test_link_loop(tree):
    os.unlink(tree.user_link)
    os.symlink("skills2", tree.user_link)
    os.symlink("skills", str(tree.h / ".claude/skills2"))
    diags = tree.run()
    d = one(diags, "claude-link-dangling")
    assert d.path == tree.user_link and "loops" in d.message
    assert {c for c, _ in codes(diags)} == {"claude-link-dangling", "claude-canonical-unreachable"}


def test_project_link_dangling_reported_once(tree):
    os.unlink(tree.proj_link)
    os.symlink("../.agents/gone", tree.proj_link)
    diags = tree.run()
    assert [d.path for d in diags if d.code == "claude-link-dangling"] == [tree.proj_link]


def test_canonical_not_offered(tree):
    write(tree.canon, CANON.replace("version: 1.2.0\n", "version: 1.2.0\ndisable-model-invocation: true\n"))
    d = one(tree.run(), "claude-canonical-not-offered")
    assert (d.severity, d.path, d.line) == ("warning", tree.canon, 4)
    write(tree.canon, CANON)
    write(tree.h / ".claude/settings.json", json.dumps({"skillOverrides": {"foo": "off"}}))
    d = one(tree.run(), "claude-canonical-not-offered")
    assert "skillOverrides" in d.message and "off" in d.message
    # a higher source (local) turns it back on
    write(tree.r / ".claude/settings.local.json", json.dumps({"skillOverrides": {"foo": "on"}}))
    assert tree.run() == []


def test_canonical_invalid_folder_name_not_offered(tree):
    write(tree.r / ".agents/skills/x:/SKILL.md", CANON)
    diags = tree.run()
    assert [d.path for d in diags if d.code == "claude-canonical-not-offered"] == [str(tree.r / ".agents/skills/x:/SKILL.md")]


def test_codex_twin_name_and_pin_path(tree):
    twin = tree.twin(text=TWIN.format(pin="1.2.0").replace("name: foo", "name: foo-codex"))
    tree.registry("foo")
    d = one(tree.run(), "codex-twin-name-mismatch")
    assert (d.path, d.line) == (twin, 2) and "foo-codex" in d.message
    tree.twin(text=TWIN.format(pin="1.2.0").replace(".agents/skills/foo/", ".agents/skills/bar/"))
    d = one(tree.run(), "codex-twin-syncs-with-invalid")
    assert (d.severity, d.line) == ("error", 5)
    tree.twin(text=TWIN.format(pin="1.2.0").replace("@1.2.0", ""))
    assert one(tree.run(), "codex-twin-syncs-with-invalid").line == 5


def test_codex_canonical_version_missing_and_metadata_version(tree):
    tree.twin()
    tree.registry("foo")
    write(tree.canon, CANON.replace("version: 1.2.0\n", ""))
    d = one(tree.run(), "codex-canonical-version-missing")
    assert (d.severity, d.path) == ("warning", tree.canon)
    write(tree.canon, CANON.replace("version: 1.2.0\n", "metadata:\n  version: 1.2.0\n"))
    assert codes(tree.run()) == [("codex-twin-duplicate-listing", "warning")]
    # a number-looking version is compared as written (1.10 is not 1.1)
    write(tree.canon, CANON.replace("version: 1.2.0", "version: 1.10"))
    tree.twin(pin="1.10")
    assert codes(tree.run()) == [("codex-twin-duplicate-listing", "warning")]


def test_codex_twin_invalid(tree):
    twin = tree.twin(text="# no frontmatter\n")
    tree.registry("foo")
    d = one(tree.run(), "codex-twin-invalid")
    assert (d.severity, d.path, d.line) == ("error", twin, 1)
    tree.twin(text=TWIN.format(pin="1.2.0").replace("description: Does foo things.\n", ""))
    diags = tree.run()
    assert "missing field `description`" in one(diags, "codex-twin-invalid").message
    assert not any(d.code == "codex-twin-duplicate-listing" for d in diags)
    tree.twin(text=TWIN.format(pin="1.2.0").replace("name: foo", "name: " + "n" * 65))
    assert "64" in one(tree.run(), "codex-twin-invalid").message


def test_codex_orphan_registry_missing_and_unlisted(tree):
    twin = write(tree.r / ".codex/skills/ghost/SKILL.md", TWIN.format(pin="1").replace("foo", "ghost"))
    diags = tree.run()
    assert one(diags, "codex-twin-orphan").path == twin
    assert one(diags, "codex-twin-registry-missing").path == str(tree.r / ".agents/twin-registry.json")
    reg = tree.registry()
    d = one(tree.run(), "codex-twin-registry-stale")
    assert d.path == reg and ".codex/skills/ghost/SKILL.md" in d.message


@pytest.mark.parametrize("raw", ["{not json", "[]", '{"twins": {}}', '{"twins": [{"name": 3}]}',
                                 '{"twins": [{"name": "x", "canonical": "/etc/passwd", "twin": "../../x"}]}',
                                 "[" * 100_000, "\x00\xff"])
def test_registry_invalid(tree, raw):
    tree.twin()
    reg = tree.registry(raw=raw)
    d = one(tree.run(), "codex-twin-registry-invalid")
    assert (d.severity, d.path) == ("error", reg)


def test_registry_invalid_json_line(tree):
    tree.registry(raw='{\n  "twins": [\n    {"name": "foo",}\n  ]\n}\n')
    assert one(tree.run(), "codex-twin-registry-invalid").line == 3


def test_agy_missing_and_adapter_problems(tree):
    kw = tree.agy(hardlink=False, adapter=False)
    diags = tree.run(**kw)
    assert codes(diags) == [("agy-adapter-missing", "warning"), ("agy-hardlink-missing", "error")]
    assert one(diags, "agy-hardlink-missing").path == str(tree.tmp / "agy/skills/foo/SKILL.md")
    adapters = tree.tmp / "agy/adapters"
    write(adapters / "bar.json", json.dumps({"skill": "bar", "projection_sha256": "0" * 64}))
    write(adapters / "sub/foo.json", json.dumps({"skill": "foo", "projection_sha256": "ABC"}))
    write(adapters / "README.md", "Adapters are generated.\n")
    diags = tree.run(**kw)
    assert one(diags, "agy-adapter-orphan").path == str(adapters / "bar.json")
    d = one(diags, "agy-projection-hash-missing")
    assert d.path == str(adapters / "sub/foo.json") and d.line == 1 and "ABC" in d.message


def test_agy_symlink_is_not_a_hardlink(tree):
    kw = tree.agy(hardlink=False)
    os.symlink(tree.canon, str(tree.tmp / "agy/skills/foo/SKILL.md"))
    assert "symbolic link" in one(tree.run(**kw), "agy-hardlink-broken").message


def test_agy_runs_only_with_both_settings(tree):
    kw = tree.agy(hardlink=False, adapter=False)
    assert tree.run(agy_skills_dir=kw["agy_skills_dir"]) == []


# hostile delivery inputs
def test_hostile_delivery_tree(tree):
    outside = write(tree.tmp / "outside/x/SKILL.md", "---\nversion: 9\ndescription: TOPSECRET\n---\n")
    os.symlink(os.path.dirname(outside), str(tree.r / ".agents/skills/escape"))
    os.symlink("nowhere", str(tree.r / ".agents/skills/dangling"))
    os.mkdir(str(tree.r / ".agents/skills/fifo"))
    os.mkfifo(str(tree.r / ".agents/skills/fifo/SKILL.md"))
    write(tree.r / ".agents/skills/big/SKILL.md", "---\ndescription: big\n---\n" + "x" * 1_100_000)
    write(tree.r / ".agents/skills/bin/SKILL.md", bytes(range(256)) * 10)
    write(tree.r / ".agents/skills/bomb/SKILL.md", "---\na: &a [1,1,1,1,1,1,1,1,1]\n" + "".join(
        f"{c}: &{c} [*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p}]\n" for p, c in zip("abcdefgh", "bcdefghi")) + "---\n")
    tree.twin(text="---\nmetadata: {unclosed\ndescription: x\n---\n")
    write(tree.h / ".codex/config.toml", "[[skills.config\n\x00garbage")
    write(tree.h / ".claude/settings.json", "{garbage")
    kw = tree.agy(adapter=False)
    adapters = tree.tmp / "agy/adapters"
    os.symlink(".", str(adapters / "loop"))
    os.symlink("/etc/passwd", str(adapters / "passwd.md"))
    write(adapters / "broken.md", "---\nskill: [foo\nprojection_sha256: x\n---\n")
    diags = tree.run(**kw)
    assert not any(d.code == "delivery-check-failed" for d in diags), diags
    unreadable = {d.path for d in diags if d.code == "delivery-unreadable"}
    assert str(tree.r / ".agents/skills/escape/SKILL.md") in unreadable
    assert str(tree.r / ".agents/skills/fifo/SKILL.md") in unreadable
    assert str(tree.r / ".agents/skills/big/SKILL.md") in unreadable
    assert str(adapters / "passwd.md") in unreadable
    assert not any("TOPSECRET" in d.message for d in diags)
    assert str(tree.r / ".agents/skills/dangling") in unreadable
    assert str(adapters / "loop") in unreadable
    assert one(diags, "codex-twin-invalid").message.startswith("Codex rejects .codex/skills/foo/SKILL.md: invalid YAML")


def test_delivery_missing_everything(tmp_path):
    assert check_delivery(str(tmp_path / "nope"), str(tmp_path / "nohome"), managed_dir=str(tmp_path / "m")) == []
    assert isinstance(check_delivery("\x00bad", "\x00bad"), list)


def test_canonical_root_is_a_file(tmp_path):
    t = Tree(tmp_path, chain=False)
    import shutil
    shutil.rmtree(str(t.r / ".agents/skills"))
    write(t.r / ".agents/skills", "../skills\n")  # a symlink checked out as a text file
    d = one(t.run(), "delivery-unreadable")
    assert (d.path, d.severity) == (str(t.r / ".agents/skills"), "warning")


@pytest.mark.skipif(IS_ROOT, reason="root reads every folder")
def test_unreadable_canonical_folder(tree):
    os.chmod(str(tree.r / ".agents/skills"), 0)
    try:
        diags = tree.run()
    finally:
        os.chmod(str(tree.r / ".agents/skills"), 0o755)
    assert one(diags, "delivery-unreadable").path == str(tree.r / ".agents/skills")


# --------------------------------------------------------------------------------------------------------- plugin
HOOKS = {"hooks": {"SessionStart": [{"hooks": [
    {"type": "command", "command": "bash ${CLAUDE_PLUGIN_ROOT}/hooks/start.sh", "timeout": 10}]}]}}
SKILL = "---\nname: run\ndescription: Run it.\nmcp_tool: mcp__plugin_p_core__run\n---\n\n# Run\nDo it.\n"
COMMAND = "---\ndescription: Run it.\n---\nFollow skills/run/SKILL.md\n"


class Plug:
    def __init__(self, tmp_path):
        self.p = tmp_path / "p"
        self.manifest = self.json(".claude-plugin/plugin.json", {"name": "p", "skills": "./skills/", "mcpServers": "./.mcp.json"})
        self.json(".mcp.json", {"mcpServers": {"core": {"command": "node", "args": ["server.js"]}}})
        self.skill = write(self.p / "skills/run/SKILL.md", SKILL)
        self.command = write(self.p / "commands/run.md", COMMAND)
        self.hooks = self.json("hooks/hooks.json", HOOKS)
        write(self.p / "hooks/start.sh", "#!/bin/sh\n")

    def json(self, rel, data) -> str:
        return write(self.p / rel, json.dumps(data, indent=2) if not isinstance(data, str) else data)

    def edit(self, rel, old, new) -> str:
        path = str(self.p / rel)
        text = open(path).read()
        assert old in text
        return write(path, text.replace(old, new))

    def run(self, **kw):
        diags = check_plugin(str(self.p), **kw)
        assert_wellformed(diags)
        return diags


@pytest.fixture
def plug(tmp_path):
    return Plug(tmp_path)


BASE_INFOS = [("plugin-capability-guide-missing", "info"), ("plugin-capability-section-missing", "info")]


def test_plugin_unchanged(plug):
    diags = plug.run()
    assert codes(diags) == BASE_INFOS
    assert one(diags, "plugin-capability-section-missing").path == plug.skill


def test_plugin_command_description_mismatch(plug):
    plug.edit("commands/run.md", "Run it.", "Run.")
    diags = plug.run()
    assert codes(diags) == sorted(BASE_INFOS + [("plugin-command-description-mismatch", "warning")])
    d = one(diags, "plugin-command-description-mismatch")
    assert (d.path, d.line) == (plug.command, 2)
    assert '"Run."' in d.message and '"Run it."' in d.message and "skills/run/SKILL.md:3" in d.message


def test_plugin_skill_renamed(plug):
    plug.edit("skills/run/SKILL.md", "name: run", "name: runner")
    diags = plug.run()
    assert codes(diags) == sorted(BASE_INFOS + [("plugin-skill-dir-name-mismatch", "warning"),
                                                ("plugin-skill-name-mismatch", "error")])
    for code in ("plugin-skill-name-mismatch", "plugin-skill-dir-name-mismatch"):
        d = one(diags, code)
        assert (d.path, d.line) == (plug.skill, 2) and "runner" in d.message


def test_plugin_mcp_tool_unknown_server(plug):
    plug.edit("skills/run/SKILL.md", "mcp__plugin_p_core__run", "mcp__plugin_p_other__run")
    diags = plug.run()
    assert codes(diags) == sorted(BASE_INFOS + [("plugin-mcp-tool-unknown-server", "error")])
    d = one(diags, "plugin-mcp-tool-unknown-server")
    assert (d.path, d.line) == (plug.skill, 4) and '"other"' in d.message and "core" in d.message


def test_plugin_mcp_tool_bare(plug):
    plug.edit("skills/run/SKILL.md", "mcp__plugin_p_core__run", "run")
    diags = plug.run()
    assert codes(diags) == sorted(BASE_INFOS + [("plugin-mcp-tool-unverified", "info")])
    assert one(diags, "plugin-mcp-tool-unverified").line == 4


def test_plugin_hook_without_root_var(plug):
    plug.edit("hooks/hooks.json", "bash ${CLAUDE_PLUGIN_ROOT}/hooks/start.sh", "bash hooks/start.sh")
    diags = plug.run()
    assert codes(diags) == sorted(BASE_INFOS + [("plugin-hook-root-var-missing", "error")])
    d = one(diags, "plugin-hook-root-var-missing")
    text = open(plug.hooks).read().split("\n")
    assert (d.path, d.line) == (plug.hooks, next(i for i, ln in enumerate(text, 1) if "bash hooks/start.sh" in ln))
    assert "${CLAUDE_PLUGIN_ROOT}/hooks/start.sh" in d.fix


def test_plugin_hook_event_unknown(plug):
    plug.edit("hooks/hooks.json", "SessionStart", "SessionBegin")
    diags = plug.run()
    assert codes(diags) == sorted(BASE_INFOS + [("plugin-hook-event-unknown", "warning")])
    assert one(diags, "plugin-hook-event-unknown").line == 3


def test_plugin_skills_path_missing(plug):
    plug.edit(".claude-plugin/plugin.json", '"./skills/"', '"./skill/"')
    diags = plug.run()
    assert codes(diags) == sorted(BASE_INFOS + [("plugin-path-missing", "error")])
    assert (one(diags, "plugin-path-missing").path, one(diags, "plugin-path-missing").line) == (plug.manifest, 3)


def test_plugin_skills_path_not_dot_slash(plug):
    plug.edit(".claude-plugin/plugin.json", '"./skills/"', '"skills"')
    diags = plug.run()
    assert codes(diags) == sorted(BASE_INFOS + [("plugin-path-invalid", "error")])
    assert one(diags, "plugin-path-invalid").line == 3


def test_plugin_capability_undefined(plug, tmp_path):
    plug.edit("skills/run/SKILL.md", "Do it.\n", "Do it.\n\n## Required Skill Capabilities\n- `net.fetch`: fetch URLs\n"
              "- fs.read: read files\n\n## Next\n- `not.a.token`\n")
    guide = write(tmp_path / "guide.md", "# Capabilities\n- `fs.read` reads files\n")
    diags = plug.run(capability_guide=guide)
    assert codes(diags) == [("plugin-capability-undefined", "error")]
    d = one(diags, "plugin-capability-undefined")
    assert (d.path, d.line) == (plug.skill, 11) and "net.fetch" in d.message


# further plugin cases
def test_plugin_manifest_problems(plug):
    plug.json(".claude-plugin/plugin.json", "{nope")
    d = one(plug.run(), "plugin-manifest-missing")
    assert (d.severity, d.path, d.line) == ("error", plug.manifest, 1)
    os.unlink(plug.manifest)
    assert one(plug.run(), "plugin-manifest-missing").path == plug.manifest
    for name in ("", "my plugin", "a\x07b", 5):
        plug.json(".claude-plugin/plugin.json", {"name": name})
        d = one(plug.run(), "plugin-manifest-name-invalid")
        assert d.line == 2
    plug.json(".claude-plugin/plugin.json", {"version": "1"})
    assert one(plug.run(), "plugin-manifest-name-invalid").line == 1


def test_plugin_commands_folder_ignored_and_paths(plug):
    plug.json(".claude-plugin/plugin.json", {"name": "p", "commands": ["./commands/run.md", "/abs/x.md", "./../escape"],
                                             "mcpServers": "https://example.com/mcp", "hooks": "./hooks/none.json"})
    diags = plug.run()
    assert one(diags, "plugin-commands-folder-ignored").path == plug.manifest
    assert sorted(d.message for d in diags if d.code == "plugin-path-invalid") == [
        'plugin.json `commands` path "./../escape" leaves the plugin folder',
        'plugin.json `commands` path "/abs/x.md" is absolute']
    assert one(diags, "plugin-path-missing").message == 'plugin.json `hooks` path "./hooks/none.json" does not exist'


def test_plugin_pairing(plug):
    write(plug.p / "commands/orphan.md", "---\ndescription: x\n---\nFollow skills/orphan/SKILL.md\n")
    write(plug.p / "skills/lonely/SKILL.md", "---\nname: lonely\ndescription: y\n---\n")
    plug.edit("commands/run.md", "Follow skills/run/SKILL.md\n", "Do this.\nThen that.\n")
    diags = plug.run()
    assert one(diags, "plugin-command-without-skill").path == str(plug.p / "commands/orphan.md")
    assert one(diags, "plugin-skill-without-command").path == str(plug.p / "skills/lonely/SKILL.md")
    d = one(diags, "plugin-command-not-delegating")
    assert (d.path, d.line, d.severity) == (plug.command, 4, "warning")


def test_plugin_aliases_and_descriptions(plug):
    plug.edit("commands/run.md", "description: Run it.\n", "description: Run it.\naliases: [go, start]\n")
    write(plug.p / "commands/go.md", "---\nwhen_to_use: sometimes\n---\nFollow skills/go/SKILL.md\n")
    write(plug.p / "commands/bare.md", "Follow skills/bare/SKILL.md\n")
    diags = plug.run()
    d = one(diags, "plugin-command-alias-collision")
    assert (d.path, d.line) == (plug.command, 3) and '"go"' in d.message
    # a command without description still works when typed: a warning, not the error of a skill the model never sees
    d = one(diags, "plugin-command-description-missing")
    assert (d.path, d.severity) == (str(plug.p / "commands/bare.md"), "warning")


def test_plugin_mcp_config_missing_and_args(plug):
    os.unlink(str(plug.p / ".mcp.json"))
    plug.json(".claude-plugin/plugin.json", {"name": "p"})
    plug.edit("skills/run/SKILL.md", "mcp_tool:", "mcp_args: [1, 2]\nmcp_tool:")
    diags = plug.run()
    d = one(diags, "plugin-mcp-config-missing")
    assert (d.severity, d.path, d.line) == ("error", plug.skill, 5)
    assert one(diags, "plugin-mcp-args-invalid").line == 4


def test_plugin_mcp_flat_and_sanitised_names(plug):
    plug.json(".claude-plugin/plugin.json", {"name": "my.plug"})
    plug.json(".mcp.json", {"my server": {"command": "x"}})
    plug.edit("skills/run/SKILL.md", "mcp__plugin_p_core__run", "mcp__plugin_my_plug_my_server__run")
    assert not any(d.code.startswith("plugin-mcp") for d in plug.run())
    plug.json(".mcp.json", "{broken")
    assert one(plug.run(), "plugin-mcp-config-invalid").path == str(plug.p / ".mcp.json")


@pytest.mark.parametrize("hooks, code", [
    ("not json", "plugin-hooks-invalid"),
    ({"hooks": []}, "plugin-hooks-invalid"),
    ({"hooks": {"Stop": [{"hooks": [{"type": "prompt", "prompt": "x"}]}]}}, "plugin-hook-type-unexpected"),
    ({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "  "}]}]}}, "plugin-hook-command-missing"),
    ({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true", "timeout": -1}]}]}}, "plugin-hook-timeout-invalid"),
    ({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true", "timeout": "5"}]}]}}, "plugin-hook-timeout-invalid"),
    ({"hooks": {"Stop": [{"matcher": 3, "hooks": []}]}}, "plugin-hooks-invalid"),
])
def test_plugin_hook_shapes(plug, hooks, code):
    plug.json("hooks/hooks.json", hooks)
    d = one(plug.run(), code)
    assert d.path == plug.hooks


def test_plugin_hook_absolute_path_inside_root(plug):
    plug.json("hooks/hooks.json", {"hooks": {"Stop": [{"hooks": [
        {"type": "command", "command": f"python3 {plug.p}/hooks/start.sh --flag ~/x $HOME/y /usr/bin/env"}]}]}})
    d = one(plug.run(), "plugin-hook-root-var-missing")
    assert str(plug.p / "hooks/start.sh") in d.message


def test_plugin_hostile(plug, tmp_path):
    secret = write(tmp_path / "secret/SKILL.md", "---\nname: secret\ndescription: SECRET\n---\n")
    os.symlink(os.path.dirname(secret), str(plug.p / "skills/escape"))
    os.symlink("/etc/passwd", str(plug.p / "commands/passwd.md"))
    os.symlink("loop2", str(plug.p / "skills/loop1"))
    os.symlink("loop1", str(plug.p / "skills/loop2"))
    os.mkdir(str(plug.p / "skills/fifo"))
    os.mkfifo(str(plug.p / "skills/fifo/SKILL.md"))
    write(plug.p / "skills/huge/SKILL.md", "---\nname: huge\n---\n" + "y" * 2_000_000)
    write(plug.p / "skills/garbage/SKILL.md", os.urandom(4096))
    write(plug.p / "skills/yaml/SKILL.md", "---\nname: a\n  description: b: c\n---\n")
    write(plug.p / "skills/crlf/SKILL.md", "---\r\nname: crlf\r\ndescription: x\r\n---\r\n")
    os.symlink("/etc/hostname", str(plug.p / "hooks/hooks.json.tmp"))
    plug.json(".mcp.json", "[" * 50_000)
    plug.json("hooks/hooks.json", "{" * 50_000)
    write(plug.p / "commands/dots.md", "---\ndescription: \x1b[31mred\u202e\n---\nFollow skills/dots/SKILL.md\n")
    diags = plug.run(capability_guide="/nonexistent/guide.md")
    assert not any(d.code == "plugin-check-failed" for d in diags), diags
    assert not any("SECRET" in d.message for d in diags)
    unreadable = {d.path for d in diags if d.code == "plugin-unreadable"}
    assert str(plug.p / "skills/escape/SKILL.md") in unreadable
    assert str(plug.p / "commands/passwd.md") in unreadable
    assert str(plug.p / "skills/fifo/SKILL.md") in unreadable
    assert str(plug.p / "skills/huge/SKILL.md") in unreadable
    assert str(plug.p / "skills/loop1") in unreadable
    invalid = {d.path for d in diags if d.code == "plugin-frontmatter-invalid"}
    assert str(plug.p / "skills/yaml/SKILL.md") in invalid
    assert str(plug.p / "skills/crlf/SKILL.md") not in invalid  # CRLF parses: claude-code.md §5.1 (observed)
    assert one(diags, "plugin-hooks-invalid").path == plug.hooks
    assert one(diags, "plugin-mcp-config-invalid").path == str(plug.p / ".mcp.json")
    for d in diags:
        assert "\x1b" not in d.message and "\u202e" not in d.message


def test_plugin_missing_folder(tmp_path):
    diags = check_plugin(str(tmp_path / "nothing"))
    assert one(diags, "plugin-manifest-missing")
    assert isinstance(check_plugin("\x00"), list)


@pytest.mark.skipif(IS_ROOT, reason="root reads every folder")
def test_plugin_unreadable_skills_folder(plug):
    os.chmod(str(plug.p / "skills"), 0)
    try:
        diags = plug.run()
    finally:
        os.chmod(str(plug.p / "skills"), 0o755)
    assert one(diags, "plugin-unreadable").path == str(plug.p / "skills")


def test_random_garbage_never_raises(tmp_path):
    """Random bytes in every file the checks read: diagnostics, never an exception."""
    rng = random.Random(1234)
    for i in range(25):
        t = Tree(tmp_path / f"d{i}")
        plug = Plug(tmp_path / f"p{i}")
        kw = t.agy()
        t.twin()
        t.registry("foo")
        files = [t.canon, str(t.r / ".codex/skills/foo/SKILL.md"), str(t.r / ".agents/twin-registry.json"),
                 str(t.tmp / "agy/adapters/foo.md"), plug.manifest, plug.skill, plug.command, plug.hooks,
                 str(plug.p / ".mcp.json")]
        for path in rng.sample(files, 4):
            data = open(path, "rb").read()
            cut = rng.randrange(len(data) + 1)
            noise = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 40)))
            with open(path, "r+b") as fh:  # in place, so hard links survive
                fh.truncate(0)
                fh.write(data[:cut] + noise + data[cut:])
        assert not any(d.code == "delivery-check-failed" for d in t.run(**kw))
        assert not any(d.code == "plugin-check-failed" for d in plug.run())


@pytest.mark.skipif(sys.platform.startswith("win"), reason="symlinks")
def test_corpus_plugins_do_not_fail(shared_dir):
    roots = sorted({p.parent.parent for p in (shared_dir / "corpus").rglob(".claude-plugin/plugin.json")})
    assert roots
    for root in roots:
        diags = check_plugin(str(root))
        assert not any(d.code == "plugin-check-failed" for d in diags), (root, diags)
