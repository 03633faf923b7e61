"""The hostile-input suite: broken, malicious and absurd trees through every command of the CLI.

For every scenario × command: no traceback (cli.main returns 0 or 1, stderr never says "Traceback" or "internal
error"), JSON stays valid, human output holds no ESC or other control character (newline and tab aside), and a good
skill beside the bad ones is still listed. Per scenario: each bad input gets a diagnostic, and markup strings come back
verbatim in JSON. Plus property tests of `parse_claude` (hypothesis).
"""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from treelib import DIR, TRACEBACK, Link, World, build, md, strict_json

from skilltui import cli
from skilltui.frontmatter import parse_claude

U = "home/.claude/skills"
UC = "home/.claude/commands"
P = "home/proj/.claude/skills"
USER_SETTINGS = "home/.claude/settings.json"
PROJECT_SETTINGS = "home/proj/.claude/settings.json"
LOCAL_SETTINGS = "home/proj/.claude/settings.local.json"
PLUGINS = "home/.claude/plugins"
GOOD = {f"{U}/good/SKILL.md": md("good one")}
GOOD_ROW = "- good: good one"

MARKUP = ["[bold]x[/]", "[link=file:///etc/passwd]y[/link]", "[red on white]z"]
ANSI = ["\x1b[31mred\x1b[0m", "\x1b]0;title\x07", "\x1b]8;;file:///etc/passwd\x1b\\link\x1b]8;;\x1b\\", "\x9b31m", "\x07bell",
        "\u202eevil\u202c"]
# Human output may hold no C0 control but newline and tab, no DEL and no C1 control (0x9B is an 8-bit CSI).
FS0 = MARKUP[0].replace("/", "_")  # as a folder name: "[bold]x[_]"
# The plugin's items carry its plugin.json name, markup and all (a control character there would make Claude Code
# reject the manifest: observed); the skill folder FS0 has every character outside [A-Za-z0-9_-] made "-".
EVIL_SKILL = f"{MARKUP[0]}:-bold-x-_-"
BAD_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
BIDI = re.compile("[\u202a-\u202e\u2066-\u2069]")


def _plugin_files(w: World, pid: str, files: dict, *, manifest: object = None, known: bool = True) -> Path:
    name, market = pid.split("@")
    root = w.p(f"{PLUGINS}/cache/{market[:200]}/{name[:200]}/1.0.0")
    build(root, files)
    if manifest is not None:
        build(root, {".claude-plugin/plugin.json": manifest})
    location = w.p(f"{PLUGINS}/marketplaces/{market[:200]}")  # its marketplace must list it (§10.4)
    w.write({
        f"{PLUGINS}/installed_plugins.json": {"version": 2, "plugins": {pid: [{
            "scope": "user", "installPath": str(root), "version": "1.0.0",
            "installedAt": "2025-01-01T00:00:00.000Z", "lastUpdated": "2025-01-01T00:00:00.000Z"}]}},
        f"{PLUGINS}/known_marketplaces.json": {market: {"source": {"source": "github", "repo": "o/r"},
                                                        "installLocation": str(location)}} if known else {},
        f"{PLUGINS}/marketplaces/{market[:200]}/.claude-plugin/marketplace.json": {
            "name": market, "owner": {"name": "o"}, "plugins": [{"name": name, "source": "./x"}]},
    })
    return root


RESOLVE_RAW = ("cli.cmd_resolve prints the resolved path raw: a path holding ESC/OSC sequences (a plugin skill folder "
               "named \\x1b]0;title\\x07 is a valid name once sanitised, or a project folder) reaches the terminal")
NON_UTF8 = ("a file name that is not UTF-8 comes back from os.scandir with lone surrogates (bad\\udcff); they reach "
            "json.dumps / print unchanged and a UTF-8 stdout raises UnicodeEncodeError: 'internal error', exit 1, for "
            "list --all --json, budget --json/--text, doctor --json, show --json, resolve")


# ================================================================ scenarios
@dataclass
class Scenario:
    name: str
    build: Callable[[World], None]
    diags: list[tuple[str, str]] = field(default_factory=list)  # (code, path relative to the tree root) that must appear
    show: tuple[str, ...] = ("good",)
    plugin: str = "demo@m"
    cwd: str | None = None  # relative to the tree root
    verbatim: dict[str, str] = field(default_factory=dict)  # skill name -> raw description that JSON must keep
    xfail: dict[str, str] = field(default_factory=dict)  # command id -> engine bug that makes it fail
    xfail_scenario: str | None = None  # engine bug that makes the scenario-level checks fail


def _loops(w: World) -> None:
    w.write({
        f"{U}/self": Link("self"),
        f"{U}/anc": Link(".."),
        f"{U}/root-anc": Link("../../.."),
        f"{U}/ping": Link("pong"), f"{U}/pong": Link("ping"),
        f"{UC}/again": Link("."),
        f"{UC}/grp/up": Link("../.."),
        f"{UC}/grp/cmd.md": md("a command"),
        f"{P}/me": Link(str(w.p(P))),
        "home/proj/.claude/commands/loop/x": Link(".."),
        f"{U}/good2/SKILL.md": md("second good"),
        f"{U}/good2/sub/back": Link("../.."),  # a loop inside a skill folder (show lists its files)
    })
    _plugin_files(w, "demo@m", {"skills/loop": Link("."), "skills/ok/SKILL.md": md("plugin ok"),
                                "commands/again": Link("."), "commands/c.md": md("plugin cmd")},
                  manifest={"name": "demo", "skills": ["./skills/loop", "./"]})
    w.write({USER_SETTINGS: {"enabledPlugins": {"demo@m": True}}})


def _dangling(w: World) -> None:
    w.write({
        f"{U}/dangling": Link("nowhere"),
        f"{U}/mdlink/SKILL.md": Link("../../nowhere.md"),
        f"{UC}/dl.md": Link("nowhere.md"),
        f"{U}/good/ref": Link("/nonexistent/file"),
    })


def _dangling_skill_md(w: World) -> None:
    w.write({f"{U}/mdlink/SKILL.md": Link("../../nowhere.md")})


def _special_files(w: World) -> None:
    w.write({
        f"{U}/zero/SKILL.md": Link("/dev/zero"),
        f"{U}/null/SKILL.md": Link("/dev/null"),
        f"{U}/dirskill/SKILL.md": DIR,
        f"{U}/filelink": Link("/etc/hostname"),
        f"{UC}/devnull.md": Link("/dev/null"),
    })


def _big_binary(w: World) -> None:
    w.write({
        f"{U}/huge/SKILL.md": "---\ndescription: huge\n---\n" + "x" * 5_000_000,
        f"{U}/binary/SKILL.md": bytes(range(256)) * 64 + b"\x00\xff\xfe\x00",
        f"{U}/latin1/SKILL.md": b"---\ndescription: caf\xe9 cr\xe8me\n---\nbody \xff\n",
        f"{U}/nul/SKILL.md": b"---\ndescription: a\x00b\n---\n",
        f"{U}/utf16/SKILL.md": "---\ndescription: utf16\n---\n".encode("utf-16"),
        f"{UC}/binary.md": os.urandom(4096),
    })


def _yaml(w: World) -> None:
    bomb = "---\na: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [" + ", ".join([f"*{chr(97 + i)}"] * 10) + "]\n" for i in range(8)
    ) + "description: *i\n---\nbomb body\n"
    w.write({
        f"{U}/bomb/SKILL.md": bomb,
        f"{U}/selfref/SKILL.md": "---\ndescription: &d [*d]\n---\n",
        f"{U}/deep-flow/SKILL.md": "---\ndescription: " + "[" * 20000 + "]" * 20000 + "\n---\n",
        f"{U}/deep-block/SKILL.md": "---\n" + "".join("  " * i + f"k{i}:\n" for i in range(400)) + "---\n",
        f"{U}/fm-list/SKILL.md": "---\n- a\n- b\n---\nlist body\n",
        f"{U}/fm-scalar/SKILL.md": "---\njust text\n---\nscalar body\n",
        f"{U}/fm-number/SKILL.md": "---\n42\n---\n",
        f"{U}/python-tag/SKILL.md": "---\ndescription: !!python/object/apply:os.system ['echo pwned']\n---\n",
        f"{U}/unhashable/SKILL.md": "---\n? [a, b]\n: c\ndescription: x\n---\n",
        f"{U}/binary-tag/SKILL.md": "---\ndescription: !!binary aGVsbG8=\nname: !!set {a, b}\n---\n",
        f"{U}/multi-doc/SKILL.md": "---\ndescription: a\n...\n---\n",
        f"{U}/dup-keys/SKILL.md": "---\ndescription: one\ndescription: two\n---\n",
        f"{U}/ctrl/SKILL.md": "---\ndescription: raw \x1b[31m escape\n---\nctrl body\n",
        f"{U}/weird-types/SKILL.md": "---\ndescription: {a: 1}\nwhen_to_use: [1, [2, {b: 3}]]\nname: [x]\npaths: {a: b}\n"
                                     "disable-model-invocation: [true]\nuser-invocable: {}\n---\n",
        f"{U}/nan/SKILL.md": "---\ndescription: .nan\nname: .inf\nwhen_to_use: -.inf\nmetadata: {a: .nan}\n---\n",
        "home/.claude.json": '{"skillUsage": {"good": {"usageCount": NaN, "lastUsedAt": Infinity}, "nan": {"usageCount": 1e999}}}',
        f"{U}/brace-bomb/SKILL.md": "---\ndescription: x\npaths: \"" + "{a,b}" * 12 + "\"\n---\n",
    })


def _markup(w: World) -> None:
    files = {}
    for i, m in enumerate(MARKUP + ANSI):
        folder = m.replace("/", "_")
        desc = json.dumps(f"desc {m} end")
        files[f"{U}/{folder}/SKILL.md"] = f"---\ndescription: {desc}\nname: {json.dumps(m)}\n---\n# {m}\nbody {m}\n"
        files[f"{UC}/c{i}{folder}.md"] = f"---\ndescription: {desc}\n---\n"
    files[f"{U}/plain-markup/SKILL.md"] = f"---\ndescription: {json.dumps(MARKUP[1])}\n---\n{ANSI[0]} [bold]body[/]\n"
    w.write(files)
    _plugin_files(w, "evil@m", {
        f"skills/{FS0}/SKILL.md": f"---\ndescription: {json.dumps(MARKUP[0] + ANSI[0])}\n---\n",
        f"skills/{ANSI[1]}/SKILL.md": f"---\ndescription: {json.dumps(ANSI[2])}\n---\n",
        f"commands/{ANSI[0]}.md": "---\ndescription: ansi command\n---\n",
    }, manifest={"name": MARKUP[0], "version": ANSI[1], "description": MARKUP[1]})
    w.write({USER_SETTINGS: {"enabledPlugins": {"evil@m": True, f"{ANSI[0]}@m": True, f"{MARKUP[0]}@m": True}},
             f"{PLUGINS}/known_marketplaces.json": {"m": {"source": {"source": "github", "repo": "o/r"},
                                                          "installLocation": str(w.p(f"{PLUGINS}/marketplaces/m"))},
                                                    ANSI[0]: {"source": ANSI[1]}}})


LONG_PARTS = ["n" * 249] * 15  # a path of ~3,750 characters stays under PATH_MAX (4096)
LONG_ID = "p" * 10_000 + "@m"


def _beyond_path_max(top: Path, levels: int = 20) -> None:
    """Folders nested deeper than PATH_MAX, built relative to open folder descriptors (absolute paths would fail)."""
    top.mkdir(parents=True, exist_ok=True)
    fd = os.open(top, os.O_RDONLY)
    try:
        for _ in range(levels):
            os.mkdir("q" * 250, dir_fd=fd)
            nfd = os.open("q" * 250, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = nfd
        out = os.open("x.md", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        os.write(out, b"---\ndescription: beyond PATH_MAX\n---\n")
        os.close(out)
    finally:
        os.close(fd)


def _long_names(w: World) -> None:
    w.write({
        f"{UC}/{'/'.join(LONG_PARTS)}/x.md": md("a name of ~3,750 characters"),
        f"{U}/longdisp/SKILL.md": md("d", name="N" * 10_000),
        f"{U}/longdesc/SKILL.md": md("D" * 10_000, when_to_use="W" * 10_000),
        f"{U}/{'é' * 127}/SKILL.md": md("254 bytes of name"),
        f"{U}/longbody/SKILL.md": "B" * 200_000 + "\n",
        f"{U}/longfm/SKILL.md": "---\ndescription: x\n" + "".join(f"k{i}: {'v' * 100}\n" for i in range(5000)) + "---\n",
    })
    _beyond_path_max(w.p(f"{UC}/deepest"))
    root = _plugin_files(w, LONG_ID, {"skills/s/SKILL.md": md("a skill of a plugin with a 10,000-character name"),
                                      "skills/" + "s" * 250 + "/SKILL.md": md("long folder")},
                         manifest={"name": "p" * 10_000})
    assert root.exists()
    w.write({USER_SETTINGS: {"enabledPlugins": {LONG_ID: True, "z" * 10_000 + "@" + "m" * 10_000: True}}})


def _deep(w: World) -> None:
    deep = "/".join(["d"] * 200)
    w.write({
        f"{UC}/{deep}/x.md": md("200 levels down"),
        f"{U}/good/{deep}/leaf.md": "leaf",
        f"home/{deep}/.claude/skills/deepskill/SKILL.md": md("in the deep cwd"),
        "home/d/.claude/skills/shallow/SKILL.md": md("near the top of the walk"),
    })


UNREADABLE_LOCKS = (f"{U}/lockeddir", f"{U}/lockedfile/SKILL.md", P, f"{UC}/lockedcmd")


def _unreadable_files(w: World) -> None:
    w.write({
        f"{U}/lockeddir/SKILL.md": md("in a locked folder"),
        f"{U}/lockedfile/SKILL.md": md("locked file"),
        f"{P}/x/SKILL.md": md("in a locked root"),
        f"{UC}/lockedcmd/c.md": md("locked commands folder"),
    })


def _lock(w: World) -> None:
    for rel in UNREADABLE_LOCKS:
        os.chmod(w.p(rel), 0)


def _unreadable(w: World) -> None:
    _unreadable_files(w)
    _lock(w)


def _settings_folders(w: World) -> None:
    w.write({
        USER_SETTINGS: DIR, PROJECT_SETTINGS: DIR, LOCAL_SETTINGS: DIR,
        "managed/managed-settings.json": DIR, "managed/managed-settings.d/a.json": DIR,
        "home/.claude.json": DIR,
        f"{PLUGINS}/installed_plugins.json": DIR, f"{PLUGINS}/known_marketplaces.json": DIR,
    })


def _settings_garbage(w: World) -> None:
    w.write({
        USER_SETTINGS: os.urandom(2048),
        PROJECT_SETTINGS: "[" * 100_000 + "]" * 100_000,
        LOCAL_SETTINGS: '{"enabledPlugins": {"demo@m": true}, "skillOverrides": [1], "skillListingMaxDescChars": "x", '
                        '"skillListingBudgetFraction": 1e400, "extraKnownMarketplaces": {"a": 1, "b": {"source": "x"}}}',
        "managed/managed-settings.json": "[]",
        "managed/managed-settings.d/b.json": '{"enabledPlugins": null}',
        "home/.claude.json": '{"skillUsage": {"good": {"usageCount": "many", "lastUsedAt": 1e400}, "x": 5}}',
    })
    _plugin_files(w, "demo@m", {"skills/s/SKILL.md": md("plugin skill")}, manifest={"name": "demo"})


def _installed_list(w: World) -> None:
    w.write({f"{PLUGINS}/installed_plugins.json": [{"demo@m": {}}], f"{PLUGINS}/known_marketplaces.json": [1, 2],
             USER_SETTINGS: {"enabledPlugins": {"demo@m": True}}})


def _installed_binary(w: World) -> None:
    w.write({f"{PLUGINS}/installed_plugins.json": os.urandom(1024) + b"\xff",
             f"{PLUGINS}/known_marketplaces.json": b"\xff\xfe\x00garbage",
             USER_SETTINGS: {"enabledPlugins": {"demo@m": True}}})


def _installed_weird_records(w: World) -> None:
    root = w.p(f"{PLUGINS}/cache/m/demo/1.0.0")
    build(root, {"skills/s/SKILL.md": md("s"), ".claude-plugin/plugin.json": {"name": "demo"}})
    w.write({
        f"{PLUGINS}/installed_plugins.json": {"version": 2, "plugins": {
            "demo@m": [{"scope": "user", "installPath": str(root), "version": 5}],
            "a@m": "a string", "b@m": [1, None, "x"], "c@m": [{"scope": [], "installPath": 7}],
            "d@m": [{"scope": "project", "projectPath": 3, "installPath": "relative/path"}],
            "e@m": [{"scope": "user", "installPath": str(w.p("nowhere"))}],
            "f@m": [{"scope": "user", "installPath": str(w.p("home/.claude/settings.json"))}],
            "g@m": [{"scope": "user", "installPath": "/"}],
        }},
        f"{PLUGINS}/known_marketplaces.json": {"m": {"source": {"source": "directory", "path": 5}}},
        USER_SETTINGS: {"enabledPlugins": {k: True for k in ("demo@m", "a@m", "b@m", "c@m", "d@m", "e@m", "f@m", "g@m")},
                        "extraKnownMarketplaces": {"m": "str", "n": {"source": {"source": "directory", "path": str(w.p("nomkt"))}}}},
    })


def _plugin_json_invalid(w: World) -> None:
    _plugin_files(w, "demo@m", {"skills/s/SKILL.md": md("still loads"), ".claude-plugin/plugin.json": "{ not json"})
    _plugin_files_extra(w)
    w.write({USER_SETTINGS: {"enabledPlugins": {"demo@m": True, "list@m": True, "esc@m": True}}})


def _plugin_files_extra(w: World) -> None:
    """More plugins beside demo@m: a list manifest, and one whose paths try to leave its folder."""
    records = json.loads(w.p(f"{PLUGINS}/installed_plugins.json").read_text())
    for name, manifest in (("list", [1, 2]),
                           ("esc", {"name": "esc", "skills": ["../../../../../../..", "/etc", 5, {"x": 1}],
                                    "commands": {"c": {"source": "../../../../../../etc/hostname"}, "d": 5}})):
        root = w.p(f"{PLUGINS}/cache/m/{name}/1.0.0")
        build(root, {".claude-plugin/plugin.json": manifest, "skills/s/SKILL.md": md(f"{name} skill")})
        records["plugins"][f"{name}@m"] = [{"scope": "user", "installPath": str(root), "version": "1.0.0"}]
    w.write({f"{PLUGINS}/installed_plugins.json": records})


def _non_utf8_names(w: World) -> None:
    """File names that are not UTF-8 (Python sees them as lone surrogates, U+DC80–U+DCFF)."""
    w.write({
        f"{U}/bad\udcff/SKILL.md": md("a folder name that is not UTF-8"),
        f"{U}/ok-dir/ref\udcfe.md": "x",
        f"{U}/ok-dir/SKILL.md": md("links to a file with a non-UTF-8 name", body="[r](ref%FE.md) [s](ref\udcfe.md)\n"),
        f"{UC}/c\udcfe.md": md("a command file name that is not UTF-8"),
        f"{P}/p\udce9/SKILL.md": md("latin-1 é"),
    })
    _plugin_files(w, "demo@m", {"skills/\udcff/SKILL.md": md("plugin skill folder that is not UTF-8"),
                                "skills/s/SKILL.md": md("s")}, manifest={"name": "demo"})
    w.write({USER_SETTINGS: {"enabledPlugins": {"demo@m": True}}})


def _ansi_paths(w: World) -> None:
    cwd = f"home/proj{ANSI[0]}{MARKUP[0].replace('/', '_')}{ANSI[1]}"
    w.write({
        f"{cwd}/.claude/skills/inproj/SKILL.md": md("in a project with escapes in its path"),
        f"{cwd}/.claude/settings.json": {"enabledPlugins": {"demo@m": False}, "skillOverrides": {"inproj": "on"}},
        f"{cwd}/.claude/settings.local.json": "{broken",
    })
    _plugin_files(w, "demo@m", {"skills/s/SKILL.md": md("s")}, manifest={"name": "demo"})


SCENARIOS = [
    Scenario("loops", _loops, [("claude-link-broken", f"{U}/self"), ("claude-link-broken", f"{U}/ping")],
             show=("good", "good2"), plugin="demo@m"),
    Scenario("dangling", _dangling, [("claude-link-broken", f"{U}/dangling"), ("claude-link-broken", f"{U}/mdlink/SKILL.md")]),
    Scenario("special-files", _special_files, [("claude-unreadable", f"{U}/dirskill/SKILL.md")]),
    Scenario("big-binary", _big_binary, [("claude-skill-too-large", f"{U}/huge/SKILL.md"),
                                         ("file-invalid-utf8", f"{U}/binary/SKILL.md"),
                                         ("file-invalid-utf8", f"{U}/latin1/SKILL.md")],
             show=("good", "binary", "latin1", "nul")),
    Scenario("yaml", _yaml, [("claude-description-ignored", f"{U}/selfref/SKILL.md"),
                             ("claude-frontmatter-retried", f"{U}/deep-flow/SKILL.md"),
                             ("claude-frontmatter-invalid", f"{U}/fm-list/SKILL.md"),
                             ("claude-frontmatter-invalid", f"{U}/fm-scalar/SKILL.md"),
                             ("claude-frontmatter-retried", f"{U}/python-tag/SKILL.md"),
                             ("claude-description-ignored", f"{U}/weird-types/SKILL.md")],
             show=("good", "bomb", "deep-block", "weird-types", "binary-tag", "ctrl", "nan")),
    Scenario("markup", _markup, [("claude-name-invalid", f"{U}/{ANSI[0]}/SKILL.md")],
             show=("good", FS0, "plain-markup", EVIL_SKILL, f"{MARKUP[0]}:--0-title-"), plugin="evil@m",

             verbatim={FS0: f"desc {MARKUP[0]} end", MARKUP[2]: f"desc {MARKUP[2]} end",
                       "plain-markup": MARKUP[1], EVIL_SKILL: MARKUP[0] + ANSI[0]}),
    Scenario("long-names", _long_names, [("claude-name-invalid", f"{PLUGINS}/cache/m/{'p' * 200}/1.0.0/skills/s/SKILL.md")],
             show=("good", "longdisp", "longdesc", "longbody", "longfm", ":".join(LONG_PARTS) + ":x"), plugin=LONG_ID),
    Scenario("deep", _deep, [], show=("good", "deepskill"), cwd="home/" + "/".join(["d"] * 200)),
    Scenario("unreadable", _unreadable, [("claude-unreadable", f"{U}/lockedfile/SKILL.md")]),
    Scenario("settings-folders", _settings_folders, [("settings-unparseable", USER_SETTINGS),
                                                     ("settings-unparseable", PROJECT_SETTINGS),
                                                     ("settings-unparseable", LOCAL_SETTINGS),
                                                     ("settings-unparseable", "managed/managed-settings.json"),
                                                     ("plugin-file-unreadable", f"{PLUGINS}/installed_plugins.json")]),
    Scenario("settings-garbage", _settings_garbage, [("settings-unparseable", USER_SETTINGS),
                                                     ("settings-unparseable", PROJECT_SETTINGS),
                                                     ("settings-unparseable", "managed/managed-settings.json"),
                                                     ("settings-invalid-value", "managed/managed-settings.d/b.json")]),
    Scenario("installed-list", _installed_list, []),
    Scenario("installed-binary", _installed_binary, [("plugin-file-unreadable", f"{PLUGINS}/installed_plugins.json"),
                                                     ("plugin-file-unreadable", f"{PLUGINS}/known_marketplaces.json")]),
    Scenario("installed-weird-records", _installed_weird_records, []),
    Scenario("plugin-json-invalid", _plugin_json_invalid,
             [("plugin-manifest-invalid", f"{PLUGINS}/cache/m/demo/1.0.0/.claude-plugin/plugin.json")],
             show=("good", "demo:s")),
    Scenario("non-utf8-names", _non_utf8_names, [], show=("good", "ok-dir", "bad\ufffd")),
    Scenario("ansi-paths", _ansi_paths, [], show=("good", "inproj"),
             cwd=f"home/proj{ANSI[0]}{MARKUP[0].replace('/', '_')}{ANSI[1]}"),
]


def _can_make_unreadable(tmp: Path) -> bool:
    probe = tmp / "probe"
    probe.write_text("x")
    os.chmod(probe, 0)
    try:
        with open(probe):
            return False
    except PermissionError:
        return True
    finally:
        os.chmod(probe, stat.S_IRUSR | stat.S_IWUSR)


def make_world(request, tmp_path, monkeypatch, capsys, scenario: Scenario) -> World:
    if scenario.name == "unreadable" and not _can_make_unreadable(tmp_path):
        pytest.skip("chmod 000 does not stop reads here (running as root: the *_as_nobody tests cover it, or a file "
                    "system without permissions)")
    w = World(tmp_path, monkeypatch, capsys)
    w.write(GOOD)
    scenario.build(w)
    request.addfinalizer(lambda: _restore_modes(tmp_path))
    return w


def _restore_modes(root: Path) -> None:
    """So pytest can delete the tree: give every folder and file of the tree its permissions back (top down)."""
    for dirpath, dirnames, filenames in os.walk(root):
        for n in dirnames + filenames:
            p = os.path.join(dirpath, n)
            if not os.path.islink(p):
                try:
                    os.chmod(p, 0o700)
                except OSError:
                    pass


def _tag(name: str) -> str:
    """A short, printable test id for a skill name."""
    return re.sub(r"[^A-Za-z0-9:_.-]", lambda m: f"x{ord(m.group()):x}", name)[:24]


def _commands(s: Scenario) -> list[tuple[str, list[str]]]:
    cmds = [("list-all-json", ["list", "--all", "--json"]), ("list-all", ["list", "--all"]), ("list", ["list"]),
            ("plugins-json", ["plugins", "--json"]), ("plugins", ["plugins"]),
            ("budget-json", ["budget", "--json"]), ("budget-text", ["budget", "--text"]), ("budget", ["budget"]),
            ("doctor-json", ["doctor", "--json"]), ("doctor", ["doctor"]),
            ("doctor-all-json", ["doctor", "--json", "--runtime", "all"])]
    for name in s.show:
        cmds += [(f"show-json-{_tag(name)}", ["show", name, "--json"]), (f"show-{_tag(name)}", ["show", name]),
                 (f"resolve-{_tag(name)}", ["resolve", f"skill://{name}"])]
    cmds += [("plugin-enable", ["plugin", "enable", s.plugin]), ("plugin-disable-json", ["plugin", "disable", s.plugin, "--json"]),
             ("skill-set", ["skill", "set", "good", "off"]), ("skill-set-json", ["skill", "set", s.show[-1], "name-only", "--json"])]
    return cmds


MATRIX = [pytest.param(s, argv, id=f"{s.name}-{cid}",
                       marks=[pytest.mark.xfail(strict=True, reason=s.xfail[cid])] if cid in s.xfail else [])
          for s in SCENARIOS for cid, argv in _commands(s)]


def check_human(text: str, where: str) -> None:
    bad = BAD_CONTROL.search(text)
    assert bad is None, f"{where}: control character {bad.group()!r} at {bad.start()}: {text[max(0, bad.start() - 60):bad.start() + 20]!r}"
    assert not BIDI.search(text), f"{where}: bidirectional override in output"


def check_command(argv: list[str], code, out: str, err: str) -> None:
    """What every command owes any input: an exit code of 0 or 1 with a reason, no traceback, valid JSON, clean text."""
    assert isinstance(code, int) and code in (0, 1), (argv, code, err)
    assert not TRACEBACK.search(err), err
    check_human(err, "stderr")
    if "--json" in argv:
        if out.strip():
            data = strict_json(out)
            if argv[0] == "doctor":
                failed = [d for d in data["diagnostics"] if d["code"] in ("doctor-check-failed", "plugin-check-failed")]
                assert not failed, failed  # a check that raised and was caught is still a crash
        else:
            assert code == 1 and err.strip()
    else:
        check_human(out, "stdout")
    if argv[0] in ("list", "budget") and "--json" not in argv and argv[-1] != "--text":
        assert "good" in out
    if argv[:2] == ["budget", "--text"]:
        assert GOOD_ROW in out.split("\n")
    if code == 1:
        assert err.strip(), "exit 1 needs a one-line reason on stderr"
    if argv[0] in ("show", "resolve") and argv[1] in ("good", "skill://good"):
        assert code == 0, err


@pytest.mark.parametrize(("scenario", "argv"), MATRIX)
def test_every_command_survives(request, tmp_path, monkeypatch, capsys, scenario, argv):
    w = make_world(request, tmp_path, monkeypatch, capsys, scenario)
    cwd = w.p(scenario.cwd) if scenario.cwd else None
    code, out, err = w.run(*argv, cwd=cwd, check=False)
    check_command(argv, code, out, err)


@pytest.mark.parametrize("scenario", [pytest.param(s, id=s.name, marks=[pytest.mark.xfail(strict=True, reason=s.xfail_scenario)]
                                                   if s.xfail_scenario else []) for s in SCENARIOS])
def test_good_skill_still_listed_and_bad_inputs_diagnosed(request, tmp_path, monkeypatch, capsys, scenario):
    w = make_world(request, tmp_path, monkeypatch, capsys, scenario)
    cwd = w.p(scenario.cwd) if scenario.cwd else None
    data = w.catalog(cwd=cwd)
    listed = [s for s in data["skills"] if s["status"] == "listed"]
    assert "good" in [s["name"] for s in listed]
    assert GOOD_ROW in w.rows(cwd=cwd)
    found = {(d["code"], d["path"]) for d in data["diagnostics"]}
    doctor = {(d["code"], d["path"]) for d in w.json("doctor", "--json", cwd=cwd)["diagnostics"]}
    for code, rel in scenario.diags:
        path = str(w.p(rel))
        assert (code, path) in found | doctor, f"no {code} for {rel}; got {sorted(c for c, p in found if p == path)}"
    for name, raw in scenario.verbatim.items():
        rows = [s for s in data["skills"] if s["name"] == name]
        assert rows and rows[0]["description"] == raw, (name, rows[:1])


# ================================================================ scenario-specific checks
@pytest.fixture
def w(tmp_path, monkeypatch, capsys) -> World:
    world = World(tmp_path, monkeypatch, capsys)
    world.write(GOOD)
    return world


def test_markup_verbatim_in_json_and_inert_in_text(w):
    _markup(w)
    data = w.catalog()
    names = {s["name"] for s in data["skills"]}
    for m in MARKUP:
        assert m.replace("/", "_") in names
    for a in ANSI:
        a = a.replace("/", "_")
        assert a in names  # invalid names are still reported, verbatim
        assert w.entry(a, path_part="/skills/")["status"] == "invalid"
    assert w.entry(FS0)["display_name"] == MARKUP[0]
    shown = w.json("show", FS0, "--json")
    assert shown["body"] == f"# {MARKUP[0]}\nbody {MARKUP[0]}\n"
    assert shown["frontmatter"]["fields"]["name"] == MARKUP[0]
    code, out, err = w.run("list")
    assert FS0 in out and "[link=file:___etc_passwd]y[_link]" in out
    every = w.run("list", "--all")[1]
    assert "\x1b" not in out + every and "\u2407bell" in every  # a stray BEL stays visible as a Control Picture
    rows = w.rows()
    assert f"- {FS0}: desc {MARKUP[0]} end" in rows
    assert "- plain-markup: [link=file:///etc/passwd]y[/link]" in rows
    assert all("\x1b" not in r and "\x07" not in r for r in rows)
    body = w.run("show", "plain-markup")[1]
    assert "[bold]body[/]" in body and "\x1b" not in body


def test_evil_plugin_names(w):
    _markup(w)
    rows = {r["id"]: r for r in w.json("plugins", "--json")}
    assert rows["evil@m"]["loads"] is True
    assert not [i for i in rows if "\x1b" in i or "[" in i]  # ids outside the id pattern are set aside
    listed = w.names()
    assert EVIL_SKILL in listed
    assert all("\x1b" not in n for n in listed)
    diags = w.json("doctor", "--json")["diagnostics"]
    assert [d for d in diags if d["code"] == "plugin-not-installed" and "\x1b" in d["message"]]
    human = w.run("doctor")[1]
    check_human(human, "doctor")


def test_dangling_skill_md_link_is_diagnosed(w):
    _dangling_skill_md(w)
    path = str(w.p(f"{U}/mdlink/SKILL.md"))
    assert [d for d in w.json("doctor", "--json")["diagnostics"] if d["path"] in (path, os.path.dirname(path))]


def test_installed_plugins_list_is_diagnosed(w):
    _installed_list(w)
    path = str(w.p(f"{PLUGINS}/installed_plugins.json"))
    assert [d for d in w.json("doctor", "--json")["diagnostics"] if d["path"] == path]


def test_unreadable_folders_and_files(request, tmp_path, monkeypatch, capsys):
    scenario = next(s for s in SCENARIOS if s.name == "unreadable")
    w = make_world(request, tmp_path, monkeypatch, capsys, scenario)  # skips when chmod cannot stop reads
    found = {(d["code"], d["path"]) for d in w.catalog()["diagnostics"]}
    assert ("claude-unreadable", str(w.p(f"{U}/lockedfile/SKILL.md"))) in found
    assert ("claude-dir-unreadable", str(w.p(P))) in found
    assert w.names()[:1] == ["good"]


# ---- as root, chmod 000 stops nothing: run the same commands in a forked child that gave up root
NOBODY = 65534


@dataclass
class Unprivileged:
    w: World
    run: Callable[[list[list[str]]], list[dict]]


@pytest.fixture
def as_nobody(monkeypatch, capsys):
    """A World in a folder every user may enter, locked as UNREADABLE_LOCKS says, and a function running CLI argv
    lists in a forked child whose uid and gid are nobody's. Only as root (elsewhere the plain tests run)."""
    if not hasattr(os, "fork") or not hasattr(os, "geteuid") or os.geteuid() != 0:
        pytest.skip("only needed as root; unprivileged runs use chmod directly")
    import tempfile

    top = Path(tempfile.mkdtemp(prefix="skilltui-nobody-"))
    os.chmod(top, 0o755)
    w = World(top, monkeypatch, capsys)
    w.write(GOOD)
    _unreadable_files(w)
    for dirpath, dirnames, filenames in os.walk(top):
        for n in dirnames:
            os.chmod(os.path.join(dirpath, n), 0o777)
        for n in filenames:
            os.chmod(os.path.join(dirpath, n), 0o666)
    warm = World(top / "warm", monkeypatch, capsys)  # import every module the commands need while still root
    warm.write(GOOD)
    for argv in _commands(Scenario("warm", lambda _: None)):
        warm.run(*argv[1], check=False)
    _lock(w)
    base = ["--cwd", str(w.cwd), "--home", str(w.home), "--managed-dir", str(w.managed)]
    env = {"HOME": str(w.home), "PATH": os.environ.get("PATH", "/usr/bin:/bin")}

    def run(argvs: list[list[str]]) -> list[dict]:
        import contextlib
        import io

        r, wfd = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: never return into pytest
            try:
                os.close(r)
                os.setgroups([])
                os.setgid(NOBODY)
                os.setuid(NOBODY)
                os.environ.clear()
                os.environ.update(env)
                results = []
                for argv in argvs:
                    out, err = io.StringIO(), io.StringIO()
                    try:
                        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                            code = cli.main(argv + base)
                    except BaseException as exc:
                        code, err = None, io.StringIO(f"Traceback: {exc!r}")
                    results.append({"argv": argv, "code": code, "out": out.getvalue(), "err": err.getvalue()})
                with os.fdopen(wfd, "wb") as fh:
                    fh.write(json.dumps(results).encode())
            finally:
                os._exit(0)
        os.close(wfd)
        with os.fdopen(r, "rb") as fh:
            data = fh.read()
        os.waitpid(pid, 0)
        assert data, "the unprivileged child wrote nothing"
        return json.loads(data)

    yield Unprivileged(w, run)
    _restore_modes(top)
    import shutil

    shutil.rmtree(top, ignore_errors=True)


def test_unreadable_every_command_as_nobody(as_nobody):
    scenario = next(s for s in SCENARIOS if s.name == "unreadable")
    argvs = [argv for _, argv in _commands(scenario)]
    results = as_nobody.run(argvs)
    assert len(results) == len(argvs)
    for res in results:
        check_command(res["argv"], res["code"], res["out"], res["err"])


def test_unreadable_diagnosed_as_nobody(as_nobody):
    w = as_nobody.w
    (res,) = as_nobody.run([["list", "--all", "--json"]])
    data = strict_json(res["out"])
    assert "good" in [s["name"] for s in data["skills"] if s["status"] == "listed"]
    found = {(d["code"], d["path"]) for d in data["diagnostics"]}
    assert ("claude-unreadable", str(w.p(f"{U}/lockedfile/SKILL.md"))) in found
    assert ("claude-dir-unreadable", str(w.p(P))) in found
    assert w.p(P).stat().st_mode & 0o777 == 0  # still locked: the checks above ran against real permissions


def test_locked_skill_folder_diagnosed_as_nobody(as_nobody):
    (res,) = as_nobody.run([["list", "--all", "--json"]])
    folder = str(as_nobody.w.p(f"{U}/lockeddir"))
    assert [d for d in strict_json(res["out"])["diagnostics"] if (d["path"] or "").startswith(folder)]


def test_locked_commands_folder_diagnosed_as_nobody(as_nobody):
    (res,) = as_nobody.run([["list", "--all", "--json"]])
    folder = str(as_nobody.w.p(f"{UC}/lockedcmd"))
    assert [d for d in strict_json(res["out"])["diagnostics"] if (d["path"] or "").startswith(folder)]


def test_binary_and_invalid_utf8(w):
    _big_binary(w)
    latin1 = w.entry("latin1", path_part="/skills/")
    assert latin1["status"] == "listed" and latin1["description"] == "caf\ufffd cr\ufffdme"
    assert "- latin1: caf\ufffd cr\ufffdme" in w.rows()
    assert "huge" not in w.names()
    assert w.entry("binary", path_part="/skills/")["status"] in ("listed", "invalid")
    nul = w.entry("nul")
    assert nul["status"] == "listed"
    assert all("\x00" not in r for r in w.rows())


def test_special_files_do_not_hang(w):
    _special_files(w)
    assert "good" in w.names()
    assert "- good: good one" in w.rows()


FIFO_PLACES = {
    "skill-md": f"{U}/pipe/SKILL.md",
    "command-md": f"{UC}/pipe.md",
    "user-settings": USER_SETTINGS,
    "installed-plugins": f"{PLUGINS}/installed_plugins.json",
    "plugin-json": f"{PLUGINS}/cache/m/demo/1.0.0/.claude-plugin/plugin.json",
}


@pytest.mark.parametrize("place", list(FIFO_PLACES))
def test_fifo_does_not_hang(w, place):
    """A file that is a named pipe would block a plain read forever; skilltui must not wait on it."""
    if not hasattr(os, "mkfifo"):
        pytest.skip("no named pipes here")
    if place == "plugin-json":
        _plugin_files(w, "demo@m", {"skills/s/SKILL.md": md("s")})
        w.write({USER_SETTINGS: {"enabledPlugins": {"demo@m": True}}})
    fifo = w.p(FIFO_PLACES[place])
    fifo.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(fifo)
    result: dict = {}

    def run():
        try:
            result["names"] = w.names()
        except BaseException as exc:
            result["error"] = exc

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(5)
    hung = t.is_alive()
    for _ in range(200):  # unblock every blocked read: a writer that opens and closes gives the reader end-of-file
        if not t.is_alive():
            break
        try:
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:
            pass
        t.join(0.1)
    assert not t.is_alive()
    assert not hung, f"discovery blocked on a named pipe at {FIFO_PLACES[place]}"
    assert "error" not in result, result.get("error")
    assert "good" in result["names"]


def test_brace_bomb_in_paths_is_bounded(w):
    w.write({f"{U}/brace-bomb/SKILL.md": "---\ndescription: x\npaths: \"" + "{a,b}" * 40 + "\"\n---\n"})
    argv = [sys.executable, "-m", "skilltui", "list", "--json", "--cwd", str(w.cwd), "--home", str(w.home),
            "--managed-dir", str(w.managed)]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=15, env=dict(os.environ))
    except subprocess.TimeoutExpired:
        pytest.fail("discovery did not finish within 15 s")
    assert done.returncode == 0 and "good" in done.stdout


def test_alias_bomb_is_bounded(w):
    _yaml(w)
    bomb = w.json("show", "bomb", "--json")
    assert bomb["frontmatter"]["status"] in ("ok", "invalid", "retried")  # ok: aliases shared, oversized values defused
    assert len(json.dumps(bomb)) < 100_000
    assert w.entry("python-tag")["status"] == "listed"


def test_alias_bomb_description_falls_back_to_body(w):
    _yaml(w)
    assert w.entry("bomb")["description"] == "bomb body"


def test_long_names(w):
    _long_names(w)
    name = ":".join(LONG_PARTS) + ":x"
    assert w.entry(name)["status"] == "invalid"
    plugin_skill = LONG_ID.split("@")[0] + ":s"
    assert w.entry(plugin_skill)["status"] == "invalid" and len(plugin_skill) > 10_000
    assert LONG_ID in [r["id"] for r in w.json("plugins", "--json")]
    labels = w.labels()
    assert "longdisp" in labels  # a 10,000-character display name is not shown in the label
    long_row = next(r for r in w.rows() if r.startswith("- longdesc: "))
    assert long_row == "- longdesc: " + "D" * 1535 + "…"
    assert "good" in w.names()
    code, out, err = w.run("plugin", "disable", LONG_ID)
    assert json.loads(w.p(USER_SETTINGS).read_text())["enabledPlugins"][LONG_ID] is False


def test_deep_trees(w):
    _deep(w)
    cwd = w.p("home/" + "/".join(["d"] * 200))
    names = w.names(cwd=cwd)
    assert names[:2] == ["good", "deepskill"] and "shallow" in names
    data = w.json("show", "good", "--json")
    assert any(f.endswith("/d/leaf.md") for f in data["files"])


def test_deep_command_within_name_limit_is_listed(w):
    w.write({f"{UC}/{'/'.join(['d'] * 100)}/x.md": md("100 levels down")})
    assert "d:" * 100 + "x" in w.names()


def test_settings_paths_that_are_folders(w):
    _settings_folders(w)
    for argv in (["plugin", "enable", "demo@m"], ["skill", "set", "good", "off"],
                 ["skill", "set", "good", "off", "--scope", "user"]):
        code, out, err = w.run(*argv, check=False)
        assert code == 1 and err.count("\n") >= 1
    assert w.p(USER_SETTINGS).is_dir() and w.p(LOCAL_SETTINGS).is_dir()


def test_flag_settings_garbage(w):
    w.write({"flagdir": DIR, "flagbin": os.urandom(100)})
    for value in (str(w.p("flagdir")), str(w.p("flagbin")), "{bad json", str(w.p("missing.json")), "[1]", "{}" * 3):
        code, out, err = w.run("list", "--json", settings=value, check=False)
        assert code in (0, 1)
        if code == 0:
            assert "good" in [s["name"] for s in json.loads(out)["skills"]]


def test_bad_global_options(w):
    for argv in (["list", "--cwd", str(w.p("nope"))], ["list", "--home", str(w.p(f"{U}/good/SKILL.md"))]):
        assert cli.main(argv) == 1


# ================================================================ parse_claude properties
STATUSES = {"none", "ok", "retried", "invalid", "not-mapping"}


def _strip_bom(text: str) -> str:
    return text[1:] if text.startswith("\ufeff") else text


def _check(text: str) -> None:
    fm = parse_claude(text)
    assert fm.status in STATUSES
    assert isinstance(fm.data, dict)
    assert _strip_bom(text).endswith(fm.body)
    if not fm.present:
        assert fm.body == _strip_bom(text) and fm.status == "none" and fm.data == {}
    if fm.status in ("invalid", "not-mapping", "none"):
        assert fm.data == {}


_yamlish = st.lists(st.sampled_from([
    "---", "--- ", "---\r", "\n", "\r\n", "\t", " ", "description", "name", "when_to_use", "paths", ":", ": ", "-", "- ",
    "[", "]", "{", "}", ",", "*a", "&a", "!", "!!str", "|", ">", "#", "%", "@", "`", "'", '"', "\\", "?", "\ufeff", "…",
    "x", "42", "3.10", "true", "yes", "null", "~", "\x00", "\x1b", "😀", "\u2028", "\u200d", "<", "&",
]), max_size=40).map("".join)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text())
def test_parse_claude_any_text(text):
    _check(text)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(_yamlish, _yamlish.map(lambda s: "---\n" + s), _yamlish.map(lambda s: "---\n" + s + "\n---\n" + s),
                 st.tuples(st.booleans(), _yamlish, st.text()).map(lambda t: ("\ufeff" if t[0] else "") + "---\n" + t[1] + "\n---" + t[2])))
def test_parse_claude_frontmatter_like(text):
    _check(text)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from(["description", "name", "when_to_use", "x-y", "Key"]),
                       st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc"),
                                                      blacklist_characters="\u2028\u2029\ufeff\ufffe\uffff"), max_size=30),
                       max_size=4),
       st.text(max_size=40))
def test_parse_claude_quoted_values_round_trip(fields, body):
    """A block of JSON-quoted string values parses as exactly those values, and the body is what follows."""
    block = "".join(f"{k}: {json.dumps(v, ensure_ascii=False)}\n" for k, v in fields.items())
    if "---" in block:
        return
    fm = parse_claude("---\n" + block + "---\n" + body)
    assert fm.status in ("ok", "none") or not fields
    assert fm.data == fields or (not fields and fm.data == {})
    assert body.endswith(fm.body) or fm.body == body.lstrip()


# ================================================================ the TUI on every hostile tree
@pytest.mark.slow  # drives the app; the quick run keeps the command-line survival tests
@pytest.mark.parametrize("scenario", [pytest.param(s, id=s.name) for s in SCENARIOS if not s.xfail_scenario])
def test_tui_survives(request, tmp_path, monkeypatch, capsys, scenario):
    """The app opens on each hostile tree, lists the good skill, previews every skill file and shows every screen,
    with no exception and no control character on screen."""
    import asyncio

    from skilltui.model import Options
    from skilltui.tui.app import SkilltuiApp

    w = make_world(request, tmp_path, monkeypatch, capsys, scenario)
    cwd = w.p(scenario.cwd) if scenario.cwd else w.cwd
    opts = Options(cwd=str(cwd), home=str(w.home), managed_dir=str(w.managed), env={"HOME": str(w.home)})

    async def settle(app, pilot) -> None:
        for _ in range(3):
            await app.workers.wait_for_complete()
            await pilot.pause()

    def screen_text(app) -> str:
        from skilltui.tui.textual_private import render_lines

        return "\n".join(render_lines(app.screen))

    async def drive() -> SkilltuiApp:
        app = SkilltuiApp(opts, poll=False)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(app, pilot)
            assert app.state is not None, app.load_error
            assert any(s.name == "good" and s.status == "listed" for s in app.screen.rows.values())
            shown = screen_text(app)
            assert "good" in shown
            check_human(shown, "skills screen")
            for skill in [s for s in app.state.catalog.skills if s.path][:25]:
                app.open_preview(skill)
                await settle(app, pilot)
                check_human(screen_text(app), f"preview of {skill.path!r}")
            for key in "345":
                await pilot.press(key)
                await settle(app, pilot)
                check_human(screen_text(app), f"screen {key}")
        return app

    app = asyncio.run(drive())
    assert app.return_code in (None, 0) and app._exception is None
