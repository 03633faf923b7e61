"""Every rule of spec/claude-code.md on small self-made trees (no ../shared needed), driven through the real CLI.

Each test builds its own home/project/managed tree in tmp_path (treelib.World), runs `skilltui.cli.main` in-process
with explicit --home/--cwd/--managed-dir and a minimal environment, and checks the JSON or the listing rows.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import unicodedata
from pathlib import Path

import pytest
from treelib import DIR, Link, World, build, md

U = "home/.claude/skills"  # user skills
P = "home/proj/.claude/skills"  # project skills (cwd)
M = "managed/.claude/skills"  # managed skills
UC = "home/.claude/commands"
PC = "home/proj/.claude/commands"
USER_SETTINGS = "home/.claude/settings.json"
PROJECT_SETTINGS = "home/proj/.claude/settings.json"
LOCAL_SETTINGS = "home/proj/.claude/settings.local.json"
MANAGED_SETTINGS = "managed/managed-settings.json"
SCOPED = ' (scoped to {f}/ — use this instead of the unscoped "{n}" skill when the files being changed are under {f}/)'


@pytest.fixture
def w(tmp_path, monkeypatch, capsys) -> World:
    return World(tmp_path, monkeypatch, capsys)


def by_name(rows: list[dict]) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for r in rows:
        out.setdefault(r["name"], []).append(r)
    return out


# ================================================================ §2 roots and precedence
def test_precedence_managed_user_project_adddir(w):
    w.write({
        f"{M}/dup/SKILL.md": md("managed dup"), f"{M}/m1/SKILL.md": md("m1"),
        f"{U}/dup/SKILL.md": md("user dup"), f"{U}/u1/SKILL.md": md("u1"),
        f"{P}/dup/SKILL.md": md("project dup"), f"{P}/p1/SKILL.md": md("p1"),
        "xdir/.claude/skills/dup/SKILL.md": md("add-dir dup"), "xdir/.claude/skills/a1/SKILL.md": md("a1"),
    })
    kw = {"add_dirs": (w.p("xdir"),)}
    assert w.names(**kw) == ["dup", "m1", "u1", "p1", "a1", "xdir:dup"]
    rows = by_name(w.entries(**kw))
    winner = [r for r in rows["dup"] if r["status"] == "listed"]
    assert [r["source"] for r in winner] == ["managed"]
    losers = {r["source"]: r for r in rows["dup"] if r["status"] != "listed"}
    assert set(losers) == {"user", "project", "add-dir"}
    for r in losers.values():
        assert r["status"] == "shadowed" and r["shadowed_by"] == winner[0]["path"] and r["reason"]
    assert {r["source"] for n in ("m1", "u1", "p1", "a1") for r in rows[n]} == {"managed", "user", "project", "add-dir"}
    assert any(d["code"] == "claude-shadowed" for d in w.diags(**kw))


def test_project_walk_inside_git(w):
    """§2.1: cwd … git root inclusive; nothing above the root; nothing below cwd."""
    repo = "home/work/repo"
    w.write({
        "home/work/.claude/skills/above/SKILL.md": md("above the git root"),
        f"{repo}/.git": DIR,
        f"{repo}/.claude/skills/r/SKILL.md": md("repo root"),
        f"{repo}/.claude/skills/same/SKILL.md": md("from the repo root"),
        f"{repo}/sub/.claude/skills/s/SKILL.md": md("sub"),
        f"{repo}/sub/deep/.claude/skills/d/SKILL.md": md("cwd"),
        f"{repo}/sub/deep/.claude/skills/same/SKILL.md": md("from cwd"),
        f"{repo}/sub/deep/child/.claude/skills/below/SKILL.md": md("below cwd"),
    })
    cwd = w.p(f"{repo}/sub/deep")
    assert w.names(cwd=cwd) == ["d", "same", "s", "r"]
    same = [r for r in w.entries(cwd=cwd) if r["name"] == "same" and r["status"] == "listed"]
    assert same[0]["description"] == "from cwd"
    assert all(r["source"] == "project" for r in w.entries(cwd=cwd) if r["name"] in ("d", "s", "r"))


def test_project_walk_git_file_counts(w):
    """A `.git` entry may be a file (worktrees, submodules): it still marks the root."""
    w.write({"home/work/.claude/skills/above/SKILL.md": md("x"), "home/work/wt/.git": "gitdir: /elsewhere\n",
             "home/work/wt/.claude/skills/in/SKILL.md": md("in")})
    assert w.names(cwd=w.p("home/work/wt")) == ["in"]


@pytest.mark.parametrize("git_at_home", [False, True], ids=["no-git", "git-root-is-home"])
def test_project_walk_under_home(w, git_at_home):
    """§2.1: no git (or a git root equal to $HOME): cwd … the child of $HOME; $HOME itself is never a project dir."""
    files = {
        f"{U}/u/SKILL.md": md("user"),
        "home/a/.claude/skills/ha/SKILL.md": md("a"),
        "home/a/b/.claude/skills/hb/SKILL.md": md("b"),
        "home/a/b/.claude/commands/cb.md": "cmd b\n",
        f"{UC}/cu.md": "cmd user\n",
        ".claude/skills/outside-home/SKILL.md": md("above home"),
    }
    if git_at_home:
        files["home/.git"] = DIR
    w.write(files)
    cwd = w.p("home/a/b")
    assert w.names(cwd=cwd) == ["u", "hb", "ha", "cb", "cu"]
    rows = by_name(w.entries(cwd=cwd))
    assert [r["source"] for r in rows["u"]] == ["user"]  # read once, as the user dir
    assert [r["source"] for r in rows["cu"]] == ["legacy-command"] and len(rows["cu"]) == 1
    assert "outside-home" not in rows
    assert not [d for d in w.diags(cwd=cwd) if d["code"] == "claude-duplicate-file"]


def test_project_walk_outside_home_goes_to_root(w):
    """§2.1: no git, cwd outside $HOME: cwd … / inclusive."""
    w.write({
        "out/x/.claude/skills/x1/SKILL.md": md("x"),
        "out/.claude/skills/o1/SKILL.md": md("out"),
        ".claude/skills/top/SKILL.md": md("top"),
    })
    names = w.names(cwd=w.p("out/x"))
    assert [n for n in names if n in ("x1", "o1", "top")] == ["x1", "o1", "top"]
    assert {r["source"] for r in w.entries(cwd=w.p("out/x")) if r["name"] in ("x1", "o1", "top")} == {"project"}


def test_project_walk_outside_home_with_git(w):
    w.write({"out/.claude/skills/o1/SKILL.md": md("above"), "out/repo/.git": DIR,
             "out/repo/x/.claude/skills/x1/SKILL.md": md("x"), "out/repo/.claude/skills/r1/SKILL.md": md("r")})
    names = w.names(cwd=w.p("out/repo/x"))
    assert names == ["x1", "r1"]


def test_cwd_is_home_gives_no_project_dirs(w):
    w.write({f"{U}/u/SKILL.md": md("user"), f"{UC}/c.md": "a command\n"})
    assert w.names(cwd=w.home) == ["u", "c"]
    rows = by_name(w.entries(cwd=w.home))
    assert len(rows["u"]) == 1 and rows["u"][0]["source"] == "user"
    assert len(rows["c"]) == 1 and rows["c"][0]["source"] == "legacy-command"


def test_add_dir_no_walk_and_flag_order(w):
    w.write({
        "outer/.claude/skills/not-read/SKILL.md": md("parent of an add-dir"),
        "outer/x1/.claude/skills/same/SKILL.md": md("first add-dir"),
        "outer/x2/.claude/skills/same/SKILL.md": md("second add-dir"),
        "outer/x2/.claude/skills/only2/SKILL.md": md("only in x2"),
        "outer/x1/sub/.claude/skills/below/SKILL.md": md("below an add-dir"),
    })
    kw = {"add_dirs": (w.p("outer/x1"), w.p("outer/x2"))}
    names = w.names(**kw)
    assert names == ["same", "only2", "x2:same"]
    same = [r for r in w.entries(**kw) if r["name"] == "same"]
    assert [(r["description"], r["status"]) for r in same] == [("first add-dir", "listed"), ("second add-dir", "shadowed")]


def test_scoped_extra_for_taken_add_dir_name(w):
    """§6.3: listed again as `<F>:<name>` with the scoped suffix, between plugin-authoring and init."""
    w.write({
        f"{U}/coll/SKILL.md": md("user coll"),
        "xdir/.claude/skills/coll/SKILL.md": md("x coll", when_to_use="when x"),
        f"{U}/twice/SKILL.md": md("user twice"),
        f"{P}/twice/SKILL.md": md("project twice"),  # project-walk duplicates get no scoped entry
    })
    kw = {"add_dirs": (w.p("xdir"),)}
    rows = w.rows(**kw)
    assert rows == ["- coll: user coll", "- twice: user twice",
                    "- xdir:coll: x coll" + SCOPED.format(f="xdir", n="coll") + " - when x"]
    entries = [e["name"] for e in w.json("budget", "--json", "--budget", "100000", **kw)["entries"]]
    i = entries.index("xdir:coll")
    assert entries[i - 1] == "plugin-authoring" and entries[i + 1] == "init"
    assert [n for n in w.names(**kw) if ":" in n] == ["xdir:coll"]
    scoped = [r for r in w.entries(**kw) if r["name"] == "xdir:coll"]
    assert scoped[0]["source"] == "add-dir" and scoped[0]["status"] == "listed"


def test_disable_policy_skills(w):
    w.write({f"{M}/pol/SKILL.md": md("managed pol"), f"{M}/only-managed/SKILL.md": md("m"), f"{U}/pol/SKILL.md": md("user pol")})
    assert w.rows() == ["- only-managed: m", "- pol: managed pol"]
    w.setenv("CLAUDE_CODE_DISABLE_POLICY_SKILLS", "1")
    assert w.rows() == ["- pol: user pol"]
    assert not [r for r in w.entries() if r["source"] == "managed"]


def test_claude_config_dir(w):
    w.write({
        "cfg/skills/c1/SKILL.md": md("from the config dir"),
        "cfg/commands/cmd.md": "config dir command\n",
        "cfg/settings.json": {"skillOverrides": {"c2": "off"}},
        "cfg/skills/c2/SKILL.md": md("switched off by cfg/settings.json"),
        f"{U}/h1/SKILL.md": md("~/.claude is not read when CLAUDE_CONFIG_DIR is set"),
        f"{UC}/hc.md": "not read\n",
    })
    w.setenv("CLAUDE_CONFIG_DIR", str(w.p("cfg")))
    assert w.names() == ["c1", "cmd"]
    rows = by_name(w.entries())
    assert rows["c1"][0]["source"] == "user" and rows["c2"][0]["status"] == "disabled"
    assert "h1" not in rows and "hc" not in rows


def test_claude_config_dir_is_nfc_normalised(w):
    nfc = unicodedata.normalize("NFC", "café")
    nfd = unicodedata.normalize("NFD", "café")
    assert nfc != nfd
    w.write({f"{nfc}/skills/n1/SKILL.md": md("nfc folder")})
    w.setenv("CLAUDE_CONFIG_DIR", str(w.p(nfd)))
    assert w.names() == ["n1"]


# ================================================================ §3 scanning one skills directory
def test_scan_rules(w):
    w.write({
        f"{U}/loose.md": md("a file directly in the skills folder"),
        f"{U}/synced/SKILL.md": md("reserved"),
        f"{U}/low/skill.md": md("lower-case name"),
        f"{U}/nest/inner/SKILL.md": md("two levels down"),
        f"{U}/.hidden/SKILL.md": md("hidden folder"),
        f"{U}/ok/SKILL.md": md("ok"),
        f"{U}/ok/deeper/SKILL.md": md("inside another skill"),
        f"{U}/empty": DIR,
        f"{U}/filelink": Link("../../target.txt"),
        "home/target.txt": "a file, not a folder\n",
    })
    assert w.names() == [".hidden", "ok"]
    codes = {(d["code"], os.path.basename(os.path.dirname(d["path"])) if d["path"].endswith(".md") and "loose" not in d["path"]
              else os.path.basename(d["path"])) for d in w.diags()}
    assert ("claude-loose-md-ignored", "loose.md") in codes
    assert ("claude-skill-md-lowercase", "low") in codes
    assert ("claude-nested-skill-ignored", "inner") in codes
    assert not [r for r in w.entries() if r["name"] in ("synced", "loose", "low", "nest", "inner", "deeper", "empty", "filelink")]


def test_size_limit(w):
    head = "---\ndescription: {}\n---\n"

    def sized(desc: str, size: int) -> str:
        text = head.format(desc)
        return text + "x" * (size - len(text))

    w.write({f"{U}/edge/SKILL.md": sized("exactly one million", 1_000_000),
             f"{U}/big/SKILL.md": sized("one byte too many", 1_000_001)})
    assert os.path.getsize(w.user_skills / "edge" / "SKILL.md") == 1_000_000
    assert w.rows() == ["- edge: exactly one million"]
    assert [d for d in w.diags("claude-skill-too-large") if d["path"].endswith("big/SKILL.md")]
    assert "big" not in w.names()


ICU_VECTOR = [".hidden", "a", "A", "a_b", "a-b", "a:b", "a.b", "a1", "a10", "a2", "ab", "alias", "b", "B", "café", "e", "é",
              "emoji😀", "f", "ns:ok", "ok", "Zed", "zed-1"]


def test_icu_order_vector(w):
    w.write({f"{U}/{n}/SKILL.md": md(f"skill {n}") for n in reversed(ICU_VECTOR)})
    assert w.names() == ICU_VECTOR


def test_icu_order_within_each_group_not_across(w):
    w.write({f"{U}/zeta/SKILL.md": md("z"), f"{U}/Alpha/SKILL.md": md("a"),
             f"{P}/beta/SKILL.md": md("b"), f"{P}/aardvark/SKILL.md": md("a")})
    assert w.names() == ["Alpha", "zeta", "aardvark", "beta"]


def test_symlinked_skill_folder_followed(w):
    w.write({"elsewhere/real/SKILL.md": md("behind a link"), f"{U}/linked": Link(str(Path(w.root) / "elsewhere/real")),
             f"{U}/rel-linked": Link("../../../elsewhere/real2"), "elsewhere/real2/SKILL.md": md("relative link")})
    assert w.rows() == ["- linked: behind a link", "- rel-linked: relative link"]
    row = w.entry("linked")
    assert row["path"] == str(w.user_skills / "linked" / "SKILL.md")


def test_realpath_dedupe(w):
    """§6.1: ~/.claude/skills/alias → <proj>/.claude/skills/real: alias (user) is listed, real is not."""
    w.write({f"{P}/real/SKILL.md": md("the real one"), f"{U}/alias": Link(str(w.proj_skills / "real"))})
    assert w.names() == ["alias"]
    real = w.entry("real")
    assert real["status"] == "shadowed" and real["source"] == "project"
    assert real["shadowed_by"] == str(w.user_skills / "alias" / "SKILL.md")
    assert w.entry("alias")["source"] == "user"
    assert w.diags("claude-duplicate-file")


def test_realpath_dedupe_links_to_skill_md(w):
    """The same real SKILL.md reached through a linked file (not folder) is deduped too."""
    w.write({f"{U}/one/SKILL.md": md("shared"), f"{U}/two/SKILL.md": Link("../one/SKILL.md")})
    assert w.names() == ["one"]
    assert w.entry("two")["status"] == "shadowed"


# ================================================================ §2.2 legacy commands
def test_legacy_command_names(w):
    w.write({
        f"{UC}/grp/sub/deep.md": md("deep command"),
        f"{UC}/dup.md": md("dup command"),
        f"{UC}/cmdskill/SKILL.md": md("a SKILL.md in a commands tree"),
        f"{UC}/lower/skill.md": md("any letter case"),
        f"{UC}/.hid/h.md": md("hidden folders included"),
        f"{UC}/notes.txt": "not markdown\n",
        f"{UC}/nodesc.md": "",
    })
    names = w.names()
    assert names == [".hid:h", "cmdskill", "dup", "grp:sub:deep", "lower", "nodesc"]
    assert {r["source"] for r in w.entries() if r["name"] in names} == {"legacy-command"}
    assert "- nodesc: Custom command" in w.rows()
    assert "- grp:sub:deep: deep command" in w.rows()


def test_legacy_user_over_project(w):
    w.write({f"{UC}/dup.md": md("user dup"), f"{PC}/dup.md": md("project dup"), f"{PC}/aaa.md": md("project aaa")})
    assert w.rows() == ["- aaa: project aaa", "- dup: user dup"]
    rows = by_name(w.entries())["dup"]
    assert [(r["path"].startswith(str(w.home / ".claude")), r["status"]) for r in rows] == [(True, "listed"), (False, "shadowed")]


def test_legacy_link_loops_skipped(w):
    w.write({f"{UC}/x.md": md("x"), f"{UC}/again": Link("."), f"{UC}/sub/up": Link(".."), f"{UC}/sub/s.md": md("s")})
    names = [n for n in w.names()]
    assert names == ["sub:s", "x"]


def test_legacy_one_group_sorted_after_skills(w):
    w.write({
        "managed/.claude/commands/mm.md": md("managed"), f"{UC}/bb.md": md("user"), f"{PC}/aa.md": md("project"),
        "xdir/.claude/commands/cc.md": md("add-dir"), f"{U}/zz/SKILL.md": md("a skill"),
    })
    assert w.names(add_dirs=(w.p("xdir"),)) == ["zz", "aa", "bb", "cc", "mm"]


def test_legacy_command_loses_to_skill(w):
    w.write({f"{UC}/same.md": md("command"), f"{P}/same/SKILL.md": md("skill")})
    assert w.rows() == ["- same: skill"]
    assert [r["status"] for r in w.entries() if r["name"] == "same" and r["source"] == "legacy-command"] == ["shadowed"]


# ================================================================ §4.2 names
OFFERED = ["bad name", "café", "emoji😀", "ns:ok", "UpperCase", "dot.name", ".hidden", "a:b", "a_b"]
DROPPED = ["a  b", "x:", "a<b", ":x", "a :b", "a\u200bb", "a: b", "a>b", "a\u200eb", "a\u202eb", "a\u2066b", "a\u2028b",
           "a\x85b", "a\x01b", "tab\tname", "a\x7fb"]


def test_names_offered_and_dropped(w):
    w.write({f"{U}/{n}/SKILL.md": md(f"d {n!r}") for n in OFFERED + DROPPED})
    assert sorted(w.names()) == sorted(OFFERED)
    rows = by_name(w.entries())
    for n in DROPPED:
        assert [r["status"] for r in rows[n]] == ["invalid"], n
    invalid = {d["path"] for d in w.diags("claude-name-invalid")}
    assert len(invalid) == len(DROPPED)


def test_name_length_limit_in_utf16_units(w):
    """At most 256 UTF-16 units; legacy command names can exceed a file name's 255 bytes."""
    a, b = "a" * 128, "b" * 127
    e1, e2 = "😀" * 60, "😀" * 3  # 120 + 1 + 6 = 127 units but only 63 code points
    w.write({f"{UC}/{a}/{b}.md": md("256 units"), f"{UC}/{a}/{b}c.md": md("257 units"),
             f"{UC}/{a}/{e1}/{e2}.md": md("128 + 1 + 127 = 256 units"),
             f"{UC}/{a}/{e1}/{e2}x.md": md("257 units, 194 code points")})
    names = w.names()
    assert f"{a}:{b}" in names and f"{a}:{e1}:{e2}" in names
    assert w.entry(f"{a}:{b}c")["status"] == "invalid"
    assert w.entry(f"{a}:{e1}:{e2}x")["status"] == "invalid"


# ================================================================ §4.3 labels
def test_label_vectors(w):
    w.write({
        f"{U}/named-diff/SKILL.md": md("d", name="other-name"),
        f"{U}/named-space/SKILL.md": md("d", name="Fancy Name"),
        f"{U}/zz-disp/SKILL.md": md("d", name="shown-name"),
        f"{U}/x/SKILL.md": md("d", name="x"),
        f"{U}/p1/SKILL.md": md("d", name="q1"),  # the display name is another entry's name
        f"{U}/q1/SKILL.md": md("d"),
        f"{U}/long-disp/SKILL.md": md("d", name="n" * 257),
        f"{U}/num/SKILL.md": md("d", name="42"),
        f"{U}/uni/SKILL.md": md("d", name="Café_ü.1-2:x"),
        f"{UC}/grp/tool.md": md("d", name="tool"),  # the name ends with ':' + display
    })
    labels = dict(zip(w.names(), w.labels()))
    assert labels["named-diff"] == "named-diff (other-name)"
    assert labels["named-space"] == "named-space"
    assert labels["zz-disp"] == "zz-disp (shown-name)"
    assert labels["x"] == "x"
    assert labels["p1"] == "p1"
    assert labels["long-disp"] == "long-disp"
    assert labels["num"] == "num (42)"
    assert labels["uni"] == "uni (Café_ü.1-2:x)"
    assert labels["grp:tool"] == "grp:tool"
    assert "- named-diff (other-name): d" in w.rows()
    assert any(d["code"] == "claude-display-name-unused" for d in w.diags())


# ================================================================ §5 frontmatter and text (§12 table)
FRONTMATTER_ROWS = [
    ("yaml-colon", "---\ndescription: has: a colon inside\n---\nBody\n", "- yaml-colon: has: a colon inside"),
    ("multi", '---\ndescription: |\n  line one <tag> & "q"\n  line\ttwo\n---\nBody\n', '- multi: line one &lt;tag&gt; & "q" line two'),
    ("num-desc", "---\ndescription: 42\n---\nBody\n", "- num-desc: 42"),
    ("plain-nodesc", "# Heading title here\n\nMore text.\n", "- plain-nodesc: Heading title here"),
    ("empty-desc", '---\ndescription: ""\n---\n\n\nSecond para first line\n', "- empty-desc: Second para first line"),
    ("wtu-only", "---\nwhen_to_use: only when to use\n---\nFirst body line\n", "- wtu-only: First body line - only when to use"),
    ("proj-skill", "---\ndescription: A project level skill.\nwhen_to_use: Use when testing project skills.\n---\n",
     "- proj-skill: A project level skill. - Use when testing project skills."),
    ("long", "---\ndescription: " + "L" * 1600 + "END\n---\n", "- long: " + "L" * 1535 + "…"),
    ("xs", "x" * 150 + "\n", "- xs: " + "x" * 97 + "..."),
    ("dmi", "---\ndescription: hidden\ndisable-model-invocation: true\n---\n", None),
    ("uinv", "---\ndescription: still listed\nuser-invocable: false\n---\n", "- uinv: still listed"),
    ("crlf", "---\r\ndescription: [x] y\r\n---\r\nBody line\r\n", "- crlf: Body line"),
    ("x", '---\ndescription: "a\\u2800b k\\uFE0Fl g\\u200Dh 🧑\\u200D🚀"\n---\n', "- x: a b k l g h 🧑\u200d🚀"),
    # further rows of §5 (no golden case)
    ("bracket", "---\ndescription: [x] y\n---\nBody\n", "- bracket: [x] y"),  # retry quotes a non-list [..]
    ("flow-list", "---\ndescription: [x, y]\n---\nList body\n", "- flow-list: List body"),  # list: ignored
    ("bool-desc", "---\ndescription: true\n---\n", "- bool-desc: true"),
    ("float-desc", "---\ndescription: 3.10\n---\n", "- float-desc: 3.1"),
    ("map-desc", "---\ndescription:\n  a: b\n---\nMap body\n", "- map-desc: Map body"),
    ("yaml12-yes", "---\ndescription: yes\n---\n", "- yaml12-yes: yes"),  # YAML 1.2: a string, not a boolean
    ("key-case", "---\nDescription: capitalised key\n---\nCase body\n", "- key-case: Case body"),
    ("wtu-dash", "---\ndescription: d\nwhen-to-use: not read\n---\n", "- wtu-dash: d"),
    ("wtu-num", "---\ndescription: d\nwhen_to_use: 7\n---\n", "- wtu-num: d - 7"),
    ("bom", "\ufeff---\ndescription: after a BOM\n---\n", "- bom: after a BOM"),
    ("early-close", "---\ndescription: a --- b\nname: n\n---\nBody\n", "- early-close: a"),
    ("unclosed", "---\ndescription: never closed\n", "- unclosed: ---"),
    ("open-ws", "---  \t\ndescription: spaces after the opener\n---\n", "- open-ws: spaces after the opener"),
    ("not-at-start", "\n---\ndescription: x\n---\nreal body\n", "- not-at-start: ---"),
    ("list-fm", "---\n- a\n- b\n---\nList frontmatter body\n", "- list-fm: List frontmatter body"),
    ("scalar-fm", "---\njust a scalar\n---\nScalar frontmatter body\n", "- scalar-fm: Scalar frontmatter body"),
    ("invalid-yaml", "---\ndescription: ok\n  bad: [\n---\nInvalid body\n", "- invalid-yaml: Invalid body"),
    ("heading-deep", "### Deep heading\n", "- heading-deep: Deep heading"),
    ("empty-file", "", "- empty-file: Skill"),
    ("blank-body", "---\ndescription: \n---\n\n   \n", "- blank-body: Skill"),
    ("ansi-desc", '---\ndescription: "\\e[31mred\\e[0m text"\n---\n', "- ansi-desc: red text"),
    ("amp-quote", "---\ndescription: a & b 'c' \"d\"\n---\n", "- amp-quote: a & b 'c' \"d\""),
    ("dmi-yes", '---\ndescription: hidden\ndisable-model-invocation: "yes"\n---\n', None),
    ("dmi-on", "---\ndescription: hidden\ndisable-model-invocation: ON\n---\n", None),
    ("dmi-zero", '---\ndescription: shown\ndisable-model-invocation: "0"\n---\n', "- dmi-zero: shown"),
    ("emoji-zwj", "---\ndescription: dev 👩\u200d💻 ok\n---\n", "- emoji-zwj: dev 👩\u200d💻 ok"),
    ("tag-chars", "---\ndescription: a\U000e0041\U000e0042b\n---\n", "- tag-chars: a b"),
    ("blank-str", '---\ndescription: "   "\n---\nBlank string body\n', "- blank-str: Blank string body"),
    ("exp-desc", "---\ndescription: 1e3\n---\n", "- exp-desc: 1000"),
    ("hex-desc", "---\ndescription: 0x1F\n---\n", "- hex-desc: 31"),
    ("inf-desc", "---\ndescription: .inf\n---\n", "- inf-desc: Infinity"),
    ("wtu-list", "---\ndescription: d\nwhen_to_use: [a, b]\n---\n", "- wtu-list: d - a,b"),
    ("wtu-map", "---\ndescription: d\nwhen_to_use: {a: 1}\n---\n", "- wtu-map: d - [object Object]"),
    ("wtu-raw", "---\ndescription: d\nwhen_to_use: '  <spaced>  '\n---\n", "- wtu-raw: d -   &lt;spaced&gt;  "),
    ("dash-open", "----\ndescription: x\n---\n", "- dash-open: ----"),
    ("empty-block", "---\n---\nAfter an empty block\n", "- empty-block: After an empty block"),
    pytest.param("big-int", "---\ndescription: 12345678901234567890123\n---\n", "- big-int: 1.2345678901234568e+22",
                 id="big-int"),
    pytest.param("tiny-float", "---\ndescription: 1e-7\n---\n", "- tiny-float: 1e-7",
                 id="tiny-float"),
    pytest.param("round-float", "---\ndescription: 123456789012345678901.0\n---\n", "- round-float: 123456789012345680000",
                 id="round-float"),
    pytest.param("split-pair", "x" * 96 + "😀" + "y" * 10 + "\n", "- split-pair: " + "x" * 96 + " ...",
                 id="split-pair"),
]


@pytest.mark.parametrize(("folder", "text", "row"),
                         [pytest.param(*r, id=r[0]) if type(r) is tuple else r for r in FRONTMATTER_ROWS])
def test_frontmatter_row(w, folder, text, row):
    w.write({f"{U}/{folder}/SKILL.md": text, f"{U}/zz-neighbour/SKILL.md": md("still here")})
    rows = w.rows()
    assert rows[-1] == "- zz-neighbour: still here"
    if row is None:
        assert rows == ["- zz-neighbour: still here"]
        assert w.entry(folder)["status"] == "hidden"
    else:
        assert rows == [row, "- zz-neighbour: still here"]


def test_description_cap_from_settings(w):
    w.write({f"{U}/long/SKILL.md": "---\ndescription: " + "L" * 1600 + "END\n---\n",
             USER_SETTINGS: {"skillListingMaxDescChars": 100}})
    assert w.rows() == ["- long: " + "L" * 99 + "…"]


def test_cap_counts_utf16_units(w):
    w.write({f"{U}/emo/SKILL.md": "---\ndescription: " + "😀" * 60 + "\n---\n", USER_SETTINGS: {"skillListingMaxDescChars": 100}})
    # 99 units keep 49 emoji and half of the 50th; that lone surrogate cannot be written, so U+FFFD stands in (text.py)
    assert w.rows() == ["- emo: " + "😀" * 49 + "\ufffd…"]


def test_description_capped_diagnostic(w):
    w.write({f"{U}/long/SKILL.md": "---\ndescription: " + "L" * 1600 + "END\n---\n"})
    codes = {d["code"] for d in w.json("doctor", "--json")["diagnostics"]}
    assert "claude-description-capped" in codes


def test_frontmatter_diagnostics(w):
    w.write({
        f"{U}/retried/SKILL.md": "---\ndescription: has: a colon\n---\n",
        f"{U}/invalid/SKILL.md": "---\ndescription: ok\n  bad: [\n---\n",
        f"{U}/early/SKILL.md": "---\ndescription: a --- b\n---\n",
        f"{U}/nodesc/SKILL.md": "Body only\n",
        f"{U}/listdesc/SKILL.md": "---\ndescription: [a, b]\n---\nx\n",
    })
    found = {(d["code"], Path(d["path"]).parent.name) for d in w.diags() if d["path"]}
    assert ("claude-frontmatter-retried", "retried") in found
    assert ("claude-frontmatter-invalid", "invalid") in found
    assert ("claude-frontmatter-early-close", "early") in found
    assert ("claude-description-missing", "nodesc") in found
    assert ("claude-description-ignored", "listdesc") in found


def test_show_reports_frontmatter(w):
    w.write({f"{U}/s/SKILL.md": "---\ndescription: has: a colon\nname: Disp\n---\nThe body\n"})
    data = w.json("show", "s", "--json")
    assert data["frontmatter"]["status"] == "retried"
    assert data["frontmatter"]["fields"] == {"description": "has: a colon", "name": "Disp"}
    assert data["body"] == "The body\n"


# ================================================================ §5.5 paths
@pytest.mark.parametrize(("paths", "conditional"), [
    ('"src/**/*.py"', True),
    ('"**"', False),
    ('["**/**"]', False),
    ('"src/**"', True),
    ('["**", "docs/*.md"]', True),
    ('"a,{b,c}/x"', True),
    ('[]', False),
    ('""', False),
])
def test_paths_conditional(w, paths, conditional):
    w.write({f"{U}/cond/SKILL.md": md("c", paths=paths), f"{U}/plain/SKILL.md": md("p")})
    assert w.names() == (["plain"] if conditional else ["cond", "plain"])
    assert w.entry("cond")["status"] == ("conditional" if conditional else "listed")


def test_paths_patterns_split_and_expanded(w):
    w.write({f"{U}/cond/SKILL.md": md("c", paths='"a/**, {b,c}/x.py, d/**"')})
    row = w.entry("cond")
    assert row["status"] == "conditional"
    assert row.get("paths") == ["a", "b/x.py", "c/x.py", "d"]


def test_conditional_shadows_nothing(w):
    w.write({f"{U}/dup/SKILL.md": md("conditional user copy", paths='"src/**/*.ts"'), f"{P}/dup/SKILL.md": md("project copy")})
    assert w.rows() == ["- dup: project copy"]


# ================================================================ §7.1 skillOverrides
def test_skill_overrides_values(w):
    w.write({
        f"{U}/{n}/SKILL.md": md(f"{n} text") for n in ("a-off", "b-name", "c-uio", "d-on", "e-none")
    } | {USER_SETTINGS: {"skillOverrides": {"a-off": "off", "b-name": "name-only", "c-uio": "user-invocable-only",
                                             "d-on": "on"}}})
    assert w.rows() == ["- b-name", "- d-on: d-on text", "- e-none: e-none text"]
    rows = by_name(w.entries())
    assert rows["a-off"][0]["status"] == "disabled" and rows["c-uio"][0]["status"] == "disabled"
    entries = {e["name"]: e for e in w.json("budget", "--json", "--budget", "10")["entries"]}
    assert entries["b-name"]["state"] == "fixed"  # forced rows are never shortened further


def test_skill_overrides_invalid_value_voids_the_file(w):
    # Observed (tests/fixtures/claude/overrides-invalid): Claude Code skips the whole file, its other overrides too.
    w.write({f"{U}/{n}/SKILL.md": md(f"{n} text") for n in ("a-off", "f-bogus")}
            | {USER_SETTINGS: {"skillOverrides": {"a-off": "off", "f-bogus": "sometimes"}}})
    assert w.rows() == ["- a-off: a-off text", "- f-bogus: f-bogus text"]
    diag = next(d for d in w.json("doctor", "--json")["diagnostics"] if d["code"] == "settings-invalid-value")
    assert "skillOverrides.f-bogus: Invalid value" in diag["message"]


@pytest.mark.parametrize(("key", "bad", "words"), [
    ("skillListingBudgetFraction", 0, "Number must be greater than or equal to 0"),
    ("skillListingBudgetFraction", 1.5, "Too big: expected number to be <=1"),
    ("skillListingBudgetFraction", "0.01", "Expected number, but received string"),
    ("skillListingMaxDescChars", 2.5, "Expected int, but received number"),
    ("skillListingMaxDescChars", 0, "Number must be greater than or equal to 0"),
])
def test_listing_numbers_out_of_range_void_the_file(w, key, bad, words):
    # Observed (tests/fixtures/claude/settings-numbers): the file is skipped, its skillOverrides too; the finding
    # gives Claude Code's words and the range it accepts.
    w.write({f"{U}/a-off/SKILL.md": md("a-off text"), USER_SETTINGS: {key: bad, "skillOverrides": {"a-off": "off"}}})
    assert w.rows() == ["- a-off: a-off text"]
    diag = next(d for d in w.json("doctor", "--json")["diagnostics"] if d["code"] == "settings-invalid-value")
    assert f"{key}: {words}; Claude Code skips this whole file" in diag["message"]
    assert diag["fix"].startswith(f"Set {key} to ")


def test_listing_numbers_in_range_are_read(w):
    w.write({f"{U}/long/SKILL.md": md("L" * 300),
             USER_SETTINGS: {"skillListingMaxDescChars": 100.0, "skillListingBudgetFraction": 1}})
    assert w.rows() == ["- long: " + "L" * 99 + "…"]
    assert w.json("budget", "--json", "--model", "claude-sonnet-4-6")["budget"] == 800000
    assert not [d for d in w.diags() if d["code"].startswith("settings-")]


def test_skill_overrides_on_shipped_entries(w):
    w.write({USER_SETTINGS: {"skillOverrides": {"dataviz": "off", "init": "name-only"}}})
    entries = {e["name"]: e for e in w.json("budget", "--json")["entries"]}
    assert "dataviz" not in entries
    assert entries["init"]["state"] == "fixed" and entries["init"]["full_width"] == len("- init")
    assert w.entry("dataviz")["status"] == "disabled"


def test_skill_overrides_keyed_by_name_only(w):
    # Observed (tests/fixtures/claude/overrides): a key equal to the display name does nothing.
    w.write({f"{U}/p/SKILL.md": md("p", name="q"), f"{U}/r/SKILL.md": md("r", name="s"), f"{U}/t/SKILL.md": md("t", name="v"),
             USER_SETTINGS: {"skillOverrides": {"p": "name-only", "q": "off", "r": "off", "s": "on", "t": "on", "v": "name-only"}}})
    assert w.rows() == ["- p", "- t (v): t"]  # a forced row uses the bare name, never the "(display)" label
    assert w.entry("r")["status"] == "disabled"


def test_skill_overrides_merged_per_key(w):
    w.write({f"{U}/{n}/SKILL.md": md(n) for n in ("m", "n", "o")} | {
        USER_SETTINGS: {"skillOverrides": {"m": "off", "n": "off"}},
        LOCAL_SETTINGS: {"skillOverrides": {"m": "on"}},
        PROJECT_SETTINGS: {"skillOverrides": {"o": "name-only"}},
    })
    assert w.rows() == ["- m: m", "- o"]


def test_skill_overrides_from_flag_settings(w):
    w.write({f"{U}/f/SKILL.md": md("f"), LOCAL_SETTINGS: {"skillOverrides": {"f": "on"}}})
    assert w.rows(settings='{"skillOverrides": {"f": "off"}}') == []


# ================================================================ §10 plugins
def install(w: World, plugins: dict[str, dict], *, known: tuple[str, ...] | None = None) -> dict[str, Path]:
    """Install marketplace plugins: {id: {"files": {...}, "manifest": {...}, "scope": "user", "version": "1.0.0"}}.
    Every marketplace is known unless `known` lists the known ones. Returns {id: install path}."""
    records, markets, roots = {}, {}, {}
    for pid, spec in plugins.items():
        name, market = pid.split("@")
        version = spec.get("version", "1.0.0")
        root = w.home / ".claude" / "plugins" / "cache" / market / name / version
        build(root, spec.get("files", {}))
        manifest = {"name": name, "version": version, **spec.get("manifest", {})}
        if not (root / ".claude-plugin" / "plugin.json").exists():
            build(root, {".claude-plugin/plugin.json": manifest})
        rec = {"scope": spec.get("scope", "user"), "installPath": str(root), "version": version,
               "installedAt": "2025-01-01T00:00:00.000Z", "lastUpdated": "2025-01-01T00:00:00.000Z"}
        if rec["scope"] in ("project", "local"):
            rec["projectPath"] = str(w.cwd)
        records[pid] = [rec]
        if known is None or market in known:
            markets[market] = {"source": {"source": "github", "repo": f"o/{market}"},
                               "installLocation": str(w.home / ".claude/plugins/marketplaces" / market),
                               "lastUpdated": "2025-01-01T00:00:00.000Z"}
        roots[pid] = root
    listed: dict[str, list[dict]] = {}  # each marketplace lists its plugins, or Claude Code loads none of them (§10.4)
    for pid in plugins:
        name, market = pid.split("@")
        listed.setdefault(market, []).append({"name": name, "source": {"source": "github", "repo": f"o/{name}"}})
    w.write({"home/.claude/plugins/installed_plugins.json": {"version": 2, "plugins": records},
             "home/.claude/plugins/known_marketplaces.json": markets}
            | {f"home/.claude/plugins/marketplaces/{m}/.claude-plugin/marketplace.json":
               {"name": m, "owner": {"name": "o"}, "plugins": entries} for m, entries in listed.items()})
    return roots


def plugin_rows(w: World, **kw) -> dict[str, dict]:
    return {r["id"]: r for r in w.json("plugins", "--json", **kw)}


def test_plugin_naming(w):
    install(w, {"demo@hand-mkt": {"files": {
        "skills/Weird.Name/SKILL.md": md("weird folder"),
        "skills/fm-named/SKILL.md": md("named in frontmatter", name="other"),
        "skills/plain/SKILL.md": md("plain"),
        "skills/nodesc/SKILL.md": "no description at all\n",
        "skills/wtu/SKILL.md": "---\nwhen_to_use: only when_to_use given\n---\nb\n",
        "commands/sub/nested.md": md("nested command"),
        "commands/top.md": md("top command"),
        "commands/bare.md": "no frontmatter\n",
    }}})
    w.write({USER_SETTINGS: {"enabledPlugins": {"demo@hand-mkt": True}}})
    names = w.names()
    commands, skills = names[:2], names[2:]
    assert sorted(commands) == ["demo:sub:nested", "demo:top"]
    assert skills == ["demo:fm-named", "demo:plain", "demo:Weird-Name", "demo:wtu"]
    assert w.labels()[2] == "demo:fm-named (demo:other)"
    rows = w.rows()
    assert "- demo:wtu: b - only when_to_use given" in rows
    assert "- demo:Weird-Name: weird folder" in rows
    assert "- demo:fm-named (demo:other): named in frontmatter" in rows
    assert w.entry("demo:nodesc")["status"] == "filtered"
    assert w.entry("demo:bare")["status"] == "filtered"
    assert {r["source"] for r in w.entries() if r["name"].startswith("demo:")} == {"plugin", "plugin-command"}
    # the skill the model never sees is an error; the command still works when typed: a warning
    assert [(d["path"].split("/")[-2], d["severity"]) for d in w.diags("claude-plugin-item-unlisted")] == [("nodesc", "error")]
    assert [(d["path"].split("/")[-1], d["severity"]) for d in w.diags("claude-plugin-command-unlisted")] == [("bare.md", "warning")]
    row = plugin_rows(w)["demo@hand-mkt"]
    assert row["enabled"] and row["loads"] and row["marketplace_known"]
    assert set(row["skills"]) >= {"demo:Weird-Name", "demo:plain", "demo:wtu"}


def test_plugin_manifest_commands_replace_folder(w):
    install(w, {"demo@m": {"manifest": {"commands": "./cmds"},
                           "files": {"cmds/a.md": md("from cmds"), "commands/old.md": md("default folder")}}})
    w.write({USER_SETTINGS: {"enabledPlugins": {"demo@m": True}}})
    assert w.names() == ["demo:a"]
    notes = plugin_rows(w)["demo@m"]["notes"]
    assert 'Default commands/ folder is ignored because the manifest sets "commands"' in notes


def test_plugin_manifest_skills_add_to_folder(w):
    install(w, {"demo@m": {"manifest": {"skills": ["./extra"]},
                           "files": {"extra/e1/SKILL.md": md("extra"), "skills/s1/SKILL.md": md("default")}}})
    w.write({USER_SETTINGS: {"enabledPlugins": {"demo@m": True}}})
    assert sorted(w.names()) == ["demo:e1", "demo:s1"]


def test_plugin_root_skill_named_by_frontmatter(w):
    install(w, {"demo@m": {"manifest": {"skills": ["./"]}, "files": {"SKILL.md": md("root skill", name="rooty")}}})
    w.write({USER_SETTINGS: {"enabledPlugins": {"demo@m": True}}})
    assert w.names() == ["demo:rooty"]


def test_skills_dir_plugin(w):
    w.write({
        f"{U}/sdp/.claude-plugin/plugin.json": {"name": "sdp", "version": "0.1.0"},
        f"{U}/sdp/SKILL.md": md("top-level skill of the folder"),
        f"{U}/sdp/skills/inner/SKILL.md": md("plugin skill"),
        f"{U}/.dotp/.claude-plugin/plugin.json": {"name": "dotp"},
        f"{U}/.dotp/skills/i/SKILL.md": md("not a plugin"),
        f"{U}/synced/.claude-plugin/plugin.json": {"name": "synced"},
        f"{U}/synced/skills/i/SKILL.md": md("not a plugin"),
    })
    install(w, {"demo@m": {"files": {"skills/dm/SKILL.md": md("marketplace plugin skill")}}})
    w.write({USER_SETTINGS: {"enabledPlugins": {"demo@m": True}}})
    assert w.names() == ["sdp", "demo:dm", "sdp:inner"]  # @skills-dir plugins after marketplace plugins
    assert w.entry("sdp:inner")["plugin"] == "sdp@skills-dir"
    rows = plugin_rows(w)
    assert rows["sdp@skills-dir"]["enabled"] and rows["sdp@skills-dir"]["decided_by"] == "default"
    assert not [i for i in rows if i.startswith(("dotp@", "synced@", ".dotp@"))]
    ids = list(rows)
    assert ids.index("demo@m") < ids.index("sdp@skills-dir") < ids.index("cc-plugin-agents-md@builtin")

    w.write({USER_SETTINGS: {"enabledPlugins": {"demo@m": True, "sdp@skills-dir": False}}})
    assert w.names() == ["sdp", "demo:dm"]
    assert w.entry("sdp:inner")["status"] == "disabled"


def test_unknown_marketplace(w):
    install(w, {"demo@ghost": {"files": {"skills/g/SKILL.md": md("ghost skill")}}}, known=())
    w.write({USER_SETTINGS: {"enabledPlugins": {"demo@ghost": True}}})
    row = plugin_rows(w)["demo@ghost"]
    assert row["enabled"] is True and row["loads"] is False and row["marketplace_known"] is False
    assert "Marketplace ghost not found" in row["errors"]
    assert w.names() == []
    assert w.entry("demo:g")["status"] == "disabled"
    d = w.diags("plugin-marketplace-unknown")
    assert d and d[0]["severity"] == "error" and 'its marketplace "ghost" is not known here' in d[0]["message"]


def test_github_extra_marketplace_is_not_enough(w):
    install(w, {"demo@gh": {"files": {"skills/g/SKILL.md": md("g")}}}, known=())
    w.write({USER_SETTINGS: {"enabledPlugins": {"demo@gh": True},
                             "extraKnownMarketplaces": {"gh": {"source": {"source": "github", "repo": "o/r"}}}}})
    assert plugin_rows(w)["demo@gh"]["loads"] is False


def test_version_list_disables(w):
    install(w, {"demo@m": {"files": {"skills/s/SKILL.md": md("s")}}})
    w.write({USER_SETTINGS: {"enabledPlugins": {"demo@m": ["1.0.0"]}}})
    row = plugin_rows(w)["demo@m"]
    assert row["enabled"] is False and row["decided_by"] == "user"
    assert any("version list" in n for n in row["notes"])
    assert w.diags("plugin-version-list")
    assert w.names() == []


def test_managed_false_is_hard_off(w):
    install(w, {"demo@m": {"files": {"skills/s/SKILL.md": md("s")}}})
    w.write({MANAGED_SETTINGS: {"enabledPlugins": {"demo@m": False}}, USER_SETTINGS: {"enabledPlugins": {"demo@m": True}},
             LOCAL_SETTINGS: {"enabledPlugins": {"demo@m": True}}})
    row = plugin_rows(w)["demo@m"]
    assert row["enabled"] is False and row["loads"] is False and row["decided_by"] == "managed"
    assert w.names() == []
    assert w.diags("plugin-managed-off")
    code, out, err = w.run("plugin", "enable", "demo@m", "--json", check=False)
    assert code == 1
    line = json.loads(out)
    assert line["failureCode"] == "plugin_policy_blocked"
    assert line["message"] == "Plugin \"demo@m\" is blocked by your organization's policy and cannot be enabled"


def test_managed_dropin_counts(w):
    install(w, {"demo@m": {"files": {"skills/s/SKILL.md": md("s")}}})
    w.write({"managed/managed-settings.d/10-off.json": {"enabledPlugins": {"demo@m": False}},
             USER_SETTINGS: {"enabledPlugins": {"demo@m": True}}})
    row = plugin_rows(w)["demo@m"]
    assert row["enabled"] is False and row["decided_by"] == "managed"
    assert row["decided_in"] == str(w.p("managed/managed-settings.d/10-off.json"))


def test_invalid_value_skips_whole_settings_file(w):
    install(w, {"demo@m": {"files": {"skills/s/SKILL.md": md("s")}}})
    w.write({f"{U}/u1/SKILL.md": md("u1"),
             USER_SETTINGS: {"enabledPlugins": {"demo@m": True, "x@m": "yes"}, "skillOverrides": {"u1": "off"}}})
    row = plugin_rows(w)["demo@m"]
    assert row["enabled"] is False and row["decided_by"] == "default" and row["decided_in"] is None
    assert w.names() == ["u1"]  # its skillOverrides do not apply either
    d = w.diags("settings-invalid-value")
    assert d and d[0]["severity"] == "error" and d[0]["path"] == str(w.p(USER_SETTINGS))


@pytest.mark.parametrize("bad", [1, {}, "true", None, [1]])
def test_invalid_value_types(w, bad):
    install(w, {"demo@m": {"files": {"skills/s/SKILL.md": md("s")}}})
    w.write({PROJECT_SETTINGS: {"enabledPlugins": {"demo@m": True, "other@m": bad}}})
    assert plugin_rows(w)["demo@m"]["enabled"] is False
    assert w.diags("settings-invalid-value")


def test_plugin_order_follows_enabled_plugins(w):
    install(w, {
        "a@m": {"files": {"skills/sk/SKILL.md": md("a skill"), "commands/cmd.md": md("a command")}},
        "b@m": {"files": {"skills/sk/SKILL.md": md("b skill"), "commands/cmd.md": md("b command")}},
        "c@m": {"files": {"skills/sk/SKILL.md": md("c skill")}},
    })
    w.write({
        USER_SETTINGS: {"enabledPlugins": {"b@m": True}},
        PROJECT_SETTINGS: {"enabledPlugins": {"c@m": True, "a@m": True}},
        f"{UC}/legacy.md": md("legacy"),
    })
    assert w.names() == ["legacy", "b:cmd", "a:cmd", "b:sk", "c:sk", "a:sk"]
    entries = [e["name"] for e in w.json("budget", "--json")["entries"]]
    assert entries.index("a:sk") + 1 == entries.index("dataviz")  # plugin skills, then the bundled skills


def test_extra_known_marketplace_directory_source(w):
    market = w.p("mkt-dir")
    build(market, {
        ".claude-plugin/marketplace.json": {"name": "dm", "owner": {"name": "o"},
                                            "plugins": [{"name": "dp", "source": "./plugins/dp"}]},
        "plugins/dp/.claude-plugin/plugin.json": {"name": "dp", "version": "2.0.0"},
        "plugins/dp/skills/ds/SKILL.md": md("read from the marketplace folder"),
    })
    install(w, {"dp@dm": {"files": {"skills/stale/SKILL.md": md("the stale cache copy")}}}, known=())
    w.write({USER_SETTINGS: {"enabledPlugins": {"dp@dm": True},
                             "extraKnownMarketplaces": {"dm": {"source": {"source": "directory", "path": str(market)}}}}})
    row = plugin_rows(w)["dp@dm"]
    assert row["marketplace_known"] is True and row["loads"] is True
    assert w.rows() == ["- dp:ds: read from the marketplace folder"]


def test_project_scope_install_applies_only_to_its_project(w):
    install(w, {"demo@m": {"scope": "project", "files": {"skills/s/SKILL.md": md("s")}}})
    w.write({USER_SETTINGS: {"enabledPlugins": {"demo@m": True}}, "home/other/x": "x"})
    assert w.names() == ["demo:s"]
    elsewhere = plugin_rows(w, cwd=w.p("home/other"))["demo@m"]  # listed, as `claude plugin list` does, but not loaded
    assert not elsewhere["loads"] and elsewhere["blocked"] == "other-project" and elsewhere["errors"]


def test_builtin_plugins_listed(w):
    ids = list(plugin_rows(w))
    assert ids == ["cc-plugin-agents-md@builtin", "cc-plugin-plugin-authoring@builtin", "cc-plugin-privacy@builtin"]
    w.write({MANAGED_SETTINGS: {}})
    assert list(plugin_rows(w))[-1] == "cc-plugin-sec-default@builtin"


# ================================================================ §10.5 enablement table (§12)
ENABLEMENT = [
    # (user, project, local, managed, enabled, decided_by, deciding file, note)
    (True, None, None, None, True, "user", USER_SETTINGS, None),
    (False, True, None, None, True, "project", PROJECT_SETTINGS, "Disabled in ~/.claude/settings.json but still loads"),
    (None, True, False, None, False, "local", LOCAL_SETTINGS, None),
    (True, True, None, None, True, "project", PROJECT_SETTINGS, None),
    (["1.0.0"], None, None, None, False, "user", USER_SETTINGS, "version list"),
    (None, None, None, None, False, "default", None, None),
    ("INVALID", None, None, None, False, "default", None, None),
    (None, None, True, False, False, "managed", MANAGED_SETTINGS, None),
]


@pytest.mark.parametrize(("user", "project", "local", "managed", "enabled", "decided_by", "decided_in", "note"), ENABLEMENT,
                         ids=[f"row{i + 1}" for i in range(len(ENABLEMENT))])
def test_enablement_table(w, user, project, local, managed, enabled, decided_by, decided_in, note):
    install(w, {"demo@m": {"files": {"skills/s/SKILL.md": md("s")}}})
    for rel, value in ((USER_SETTINGS, user), (PROJECT_SETTINGS, project), (LOCAL_SETTINGS, local), (MANAGED_SETTINGS, managed)):
        if value == "INVALID":
            w.write({rel: {"enabledPlugins": {"demo@m": True, "other@m": "yes"}}})
        elif value is not None:
            w.write({rel: {"enabledPlugins": {"demo@m": value}}})
    row = plugin_rows(w)["demo@m"]
    assert row["enabled"] is enabled
    assert row["decided_by"] == decided_by
    assert row["decided_in"] == (str(w.p(decided_in)) if decided_in else None)
    if note:
        assert any(note in n for n in row["notes"]), row["notes"]
    if note and "Disabled" in note:
        assert w.diags("plugin-ineffective-disable")
    assert w.names() == (["demo:s"] if enabled else [])


def test_enablement_flag_settings(w):
    install(w, {"demo@m": {"files": {"skills/s/SKILL.md": md("s")}}})
    w.write({LOCAL_SETTINGS: {"enabledPlugins": {"demo@m": True}}, "flag.json": {"enabledPlugins": {"demo@m": False}}})
    row = plugin_rows(w, settings='{"enabledPlugins": {"demo@m": false}}')["demo@m"]
    assert (row["enabled"], row["decided_by"], row["decided_in"]) == (False, "flag", None)
    row = plugin_rows(w, settings=str(w.p("flag.json")))["demo@m"]
    assert (row["enabled"], row["decided_by"], row["decided_in"]) == (False, "flag", str(w.p("flag.json")))


def test_enablement_local_at_git_root(w):
    """Local settings live at the git root (cwd a subfolder); a cwd settings.local.json is read too."""
    install(w, {"demo@m": {"files": {"skills/s/SKILL.md": md("s")}}})
    w.write({"home/proj/.git": DIR, "home/proj/sub/x": "", LOCAL_SETTINGS: {"enabledPlugins": {"demo@m": True}}})
    row = plugin_rows(w, cwd=w.p("home/proj/sub"))["demo@m"]
    assert (row["enabled"], row["decided_by"], row["decided_in"]) == (True, "local", str(w.p(LOCAL_SETTINGS)))


def test_enablement_project_is_cwd_not_git_root(w):
    install(w, {"demo@m": {"files": {"skills/s/SKILL.md": md("s")}}})
    w.write({"home/proj/.git": DIR, "home/proj/sub/x": "", PROJECT_SETTINGS: {"enabledPlugins": {"demo@m": True}}})
    row = plugin_rows(w, cwd=w.p("home/proj/sub"))["demo@m"]
    assert row["enabled"] is False and row["decided_by"] == "default"


# ================================================================ §10.6 writes (§12 "Writes")
SCOPE_FILES = {"user": USER_SETTINGS, "project": PROJECT_SETTINGS, "local": LOCAL_SETTINGS}


def snapshot(w: World) -> dict[str, bytes | None]:
    return {s: (w.p(f).read_bytes() if w.p(f).exists() else None) for s, f in SCOPE_FILES.items()}


def one_line_changed(before: bytes, after: bytes) -> tuple[str, str]:
    a, b = before.decode().splitlines(keepends=True), after.decode().splitlines(keepends=True)
    assert len(a) == len(b), (a, b)
    diff = [(x, y) for x, y in zip(a, b) if x != y]
    assert len(diff) == 1, diff
    return diff[0]


WRITES = [
    # (settings by scope, argv, expected scope written or None when refused, new value, failure code)
    ({"project": True, "local": False}, ["enable"], "local", True, None),
    ({"user": False, "project": True}, ["disable"], "project", False, None),
    ({"user": True, "project": True}, ["disable", "--scope", "user"], "user", False, None),
    ({"local": False, "project": True}, ["disable", "--scope", "user"], None, None, "not_installed_at_scope"),
]


@pytest.mark.parametrize(("state", "argv", "scope", "value", "failure"), WRITES, ids=["v1", "v2", "v4", "v5"])
def test_writes_vectors(w, state, argv, scope, value, failure):
    install(w, {"demo@m": {"files": {"skills/s/SKILL.md": md("s")}}})
    for s, v in state.items():
        w.write({SCOPE_FILES[s]: {"theme": "dark", "enabledPlugins": {"other@m": True, "demo@m": v}, "after": [1, 2]}})
    before = snapshot(w)
    action, *rest = argv
    code, out, err = w.run("plugin", action, "demo@m", *rest, "--json", check=False)
    after = snapshot(w)
    line = json.loads(out)
    if failure:
        assert code == 1 and after == before
        assert line["outcome"] == "failed" and line["failureCode"] == failure
        assert line["installedScope"] == "local"
        assert line["message"] == ('Plugin "demo@m" is installed at local scope, not user. '
                                   "Use --scope local or omit --scope to auto-detect.")
        assert line["scope"] == "user"
        assert '✘ Failed to disable plugin "demo@m": ' in err
        return
    assert code == 0, err
    changed = {s for s in before if before[s] != after[s]}
    assert changed == {scope}
    old, new = one_line_changed(before[scope], after[scope])
    assert old.replace(json.dumps(not value), json.dumps(value)) == new
    assert json.loads(after[scope])["enabledPlugins"]["demo@m"] is value
    assert line["outcome"] == "ok" and line["scope"] == scope and line["pluginId"] == "demo@m"
    assert line["message"] == f"Successfully {action}d plugin: demo (scope: {scope})"
    if scope == "user" and "--scope" in argv:  # v4: project still enables it; skilltui warns
        assert "still decides" in err and str(w.p(PROJECT_SETTINGS)) in err


def test_writes_vector3_creates_user_file(w):
    install(w, {"demo@m": {"files": {"skills/s/SKILL.md": md("s")}}})
    before = snapshot(w)
    code, out, err = w.run("plugin", "enable", "demo@m", "--json")
    after = snapshot(w)
    assert {s for s in before if before[s] != after[s]} == {"user"}
    assert after["user"] == b'{\n  "enabledPlugins": {\n    "demo@m": true\n  }\n}\n'
    assert json.loads(out)["scope"] == "user"
    assert w.names() == ["demo:s"]


def test_write_adds_missing_key_in_neighbour_style(w):
    install(w, {"demo@m": {"files": {"skills/s/SKILL.md": md("s")}}})
    w.write({USER_SETTINGS: '{\n    "enabledPlugins": {\n        "other@m": false\n    },\n    "x": 1\n}'})
    w.run("plugin", "enable", "demo@m")
    assert w.p(USER_SETTINGS).read_text() == (
        '{\n    "enabledPlugins": {\n        "other@m": false,\n        "demo@m": true\n    },\n    "x": 1\n}')


@pytest.mark.parametrize(("state", "argv", "message"), [
    ({"user": True}, ["enable"], 'Plugin "demo@m" is already enabled'),
    ({}, ["disable"], 'Plugin "demo@m" is already disabled'),
    ({"user": True}, ["enable", "--scope", "local"], 'Plugin "demo@m" is already enabled at local scope'),
    ({"local": False, "project": True}, ["enable", "--scope", "project"], 'Plugin "demo@m" is already enabled at project scope'),
])
def test_writes_already_in_goal_state(w, state, argv, message):
    install(w, {"demo@m": {"files": {"skills/s/SKILL.md": md("s")}}})
    for s, v in state.items():
        w.write({SCOPE_FILES[s]: {"enabledPlugins": {"demo@m": v}}})
    before = snapshot(w)
    code, out, err = w.run("plugin", argv[0], "demo@m", *argv[1:], "--json", check=False)
    assert code == 1 and snapshot(w) == before
    line = json.loads(out)
    assert line["failureCode"] == "already_in_goal_state" and line["alreadyInGoalState"] is True
    assert line["message"] == message


def test_writes_refuse_unknown_plugin_and_bad_file(w):
    install(w, {"demo@m": {"files": {"skills/s/SKILL.md": md("s")}}})
    code, out, err = w.run("plugin", "enable", "nope@m", check=False)
    assert code == 1 and not w.p(USER_SETTINGS).exists() and "nope@m" in err
    w.write({USER_SETTINGS: "{ not json"})
    code, out, err = w.run("plugin", "enable", "demo@m", check=False)
    assert code == 1 and w.p(USER_SETTINGS).read_text() == "{ not json"
    w.write({USER_SETTINGS: '{"enabledPlugins": []}'})
    assert w.p(USER_SETTINGS).read_text() == '{"enabledPlugins": []}'
    code, out, err = w.run("plugin", "enable", "demo@m", "--scope", "user", check=False)
    assert code == 1 and w.p(USER_SETTINGS).read_text() == '{"enabledPlugins": []}'


def test_write_goes_through_symlink(w):
    install(w, {"demo@m": {"files": {"skills/s/SKILL.md": md("s")}}})
    w.write({"dotfiles/claude-settings.json": {"enabledPlugins": {"demo@m": False}},
             USER_SETTINGS: Link(str(w.p("dotfiles/claude-settings.json")))})
    w.run("plugin", "enable", "demo@m")
    assert w.p(USER_SETTINGS).is_symlink()
    assert json.loads(w.p("dotfiles/claude-settings.json").read_text())["enabledPlugins"]["demo@m"] is True


# ================================================================ `skill set` (skillOverrides)
def test_skill_set_local_by_default(w):
    w.write({f"{U}/foo/SKILL.md": md("foo text"), f"{U}/bar/SKILL.md": md("bar text")})
    code, out, err = w.run("skill", "set", "foo", "off")
    assert json.loads(w.p(LOCAL_SETTINGS).read_text()) == {"skillOverrides": {"foo": "off"}}
    assert not w.p(USER_SETTINGS).exists() and not w.p(PROJECT_SETTINGS).exists()
    assert w.entry("foo")["status"] == "disabled"
    assert w.rows() == ["- bar: bar text"]
    assert "foo" not in [e["name"] for e in w.json("budget", "--json")["entries"]]

    w.run("skill", "set", "bar", "name-only", "--scope", "user")
    assert json.loads(w.p(USER_SETTINGS).read_text()) == {"skillOverrides": {"bar": "name-only"}}
    assert w.rows() == ["- bar"]

    w.run("skill", "set", "foo", "on")
    assert json.loads(w.p(LOCAL_SETTINGS).read_text())["skillOverrides"] == {"foo": "on"}
    assert w.rows() == ["- bar", "- foo: foo text"]


def test_skill_set_local_file_at_git_root(w):
    w.write({"home/proj/.git": DIR, "home/proj/sub/.claude/skills/deep/SKILL.md": md("deep")})
    w.run("skill", "set", "deep", "off", cwd=w.p("home/proj/sub"))
    assert json.loads(w.p(LOCAL_SETTINGS).read_text())["skillOverrides"] == {"deep": "off"}
    assert w.names(cwd=w.p("home/proj/sub")) == []


def test_skill_set_shipped_and_unknown(w):
    w.run("skill", "set", "dataviz", "off")
    assert "dataviz" not in [e["name"] for e in w.json("budget", "--json")["entries"]]
    code, out, err = w.run("skill", "set", "no-such-skill", "off", check=False)
    assert code == 1 and "no-such-skill" in err
    assert json.loads(w.p(LOCAL_SETTINGS).read_text())["skillOverrides"] == {"dataviz": "off"}


def test_skill_set_keeps_other_bytes(w):
    w.write({f"{U}/foo/SKILL.md": md("foo"),
             LOCAL_SETTINGS: '{\r\n\t"skillOverrides": {\r\n\t\t"foo": "on"\r\n\t},\r\n\t"z": "\\u00e9"\r\n}'})
    w.run("skill", "set", "foo", "off")
    assert w.p(LOCAL_SETTINGS).read_bytes() == b'{\r\n\t"skillOverrides": {\r\n\t\t"foo": "off"\r\n\t},\r\n\t"z": "\\u00e9"\r\n}'


# ================================================================ show: references
_OPENED: list[str] = []
_RECORDING = [False]


def _audit(event, args):
    if _RECORDING[0] and event == "open" and args and isinstance(args[0], (str, bytes, os.PathLike)):
        _OPENED.append(os.fsdecode(args[0]))


sys.addaudithook(_audit)


@contextlib.contextmanager
def recording_opens():
    """Every path opened (audit event "open") inside the block."""
    _OPENED.clear()
    _RECORDING[0] = True
    try:
        yield _OPENED
    finally:
        _RECORDING[0] = False


REF_BODY = """# Refs
See [a](ref/a.md), [gone](missing.md) and [up](../../secret.txt).
Also [web](https://example.com/x), [anchor](#top), [abs](/etc/hostname), ![img](img/p.png "title").
Via a link: [esc](esc/file.txt). Encoded: [sp](ref/with%20space.md).

[def]: ref/b.md
"""


def test_show_references(w):
    w.write({
        f"{U}/refs/SKILL.md": md("references", body=REF_BODY),
        f"{U}/refs/ref/a.md": "a", f"{U}/refs/ref/b.md": "b", f"{U}/refs/img/p.png": b"\x89PNG",
        f"{U}/refs/ref/with space.md": "sp",
        "home/.claude/secret.txt": "SENTINEL-SECRET",
        "outside/file.txt": "SENTINEL-OUTSIDE",
        f"{U}/refs/esc": Link(str(w.p("outside"))),
    })
    with recording_opens() as opened:
        data = w.json("show", "refs", "--json")
        code, human, err = w.run("show", "refs")
    assert str(w.user_skills / "refs" / "SKILL.md") in opened  # the recorder works
    refs = {r["link"]: r for r in data["references"]}
    assert set(refs) == {"ref/a.md", "missing.md", "../../secret.txt", "/etc/hostname", "img/p.png", "esc/file.txt",
                         "ref/with%20space.md", "ref/b.md"}
    skill_dir = w.user_skills / "refs"
    assert (refs["ref/a.md"]["resolved"], refs["ref/a.md"]["exists"], refs["ref/a.md"]["inside_skill_dir"]) == \
        (str(skill_dir / "ref/a.md"), True, True)
    assert (refs["missing.md"]["exists"], refs["missing.md"]["inside_skill_dir"]) == (False, True)
    assert refs["../../secret.txt"]["inside_skill_dir"] is False and refs["../../secret.txt"]["exists"] is False
    assert refs["esc/file.txt"]["inside_skill_dir"] is False and refs["esc/file.txt"]["exists"] is False
    assert refs["/etc/hostname"]["inside_skill_dir"] is False
    assert refs["ref/with%20space.md"]["exists"] is True and refs["img/p.png"]["exists"] is True
    assert refs["ref/b.md"]["exists"] is True
    assert refs["missing.md"]["line"] == 5  # 1-based file line: three frontmatter lines, "# Refs", then this one
    assert "SENTINEL" not in human + json.dumps(data)
    never = {str(w.p("home/.claude/secret.txt")), str(w.p("outside/file.txt")), str(skill_dir / "esc/file.txt")}
    assert not never & {os.path.realpath(p) for p in opened} and not never & set(opened)


def test_doctor_reports_broken_and_escaping_links(w):
    w.write({f"{U}/refs/SKILL.md": md("r", body="[gone](missing.md) [up](../../x.md)\n")})
    codes = {d["code"] for d in w.json("doctor", "--json")["diagnostics"]}
    assert {"skill-link-broken", "skill-link-escapes"} <= codes


# ================================================================ resolve skill://
def test_resolve_skill_urls(w):
    w.write({f"{U}/refs/SKILL.md": md("r"), f"{U}/refs/ref/a.md": "a", f"{U}/other/SKILL.md": md("o"),
             "outside/file.txt": "x", f"{U}/refs/esc": Link(str(w.p("outside")))})
    d = w.user_skills / "refs"
    assert w.run("resolve", "skill://refs")[1] == f"{d / 'SKILL.md'}\n"
    assert w.run("resolve", "skill://refs/ref/a.md")[1] == f"{d / 'ref/a.md'}\n"
    assert w.run("resolve", "skill://refs/ref/../ref/a.md")[1] == f"{d / 'ref/a.md'}\n"  # URL parsing collapses /../

    def fails(url: str) -> str:
        code, out, err = w.run("resolve", url, check=False)
        assert code == 1 and out == "", (url, out)
        assert err.count("\n") == 1, err  # one line
        return err

    err = fails("skill://nope")
    assert "Unknown skill: nope" in err and "Available: other, refs" in err
    assert "Absolute paths are not allowed in skill:// URLs" in fails("skill://refs/%2Fetc%2Fpasswd")
    assert "Path traversal (..) is not allowed in skill:// URLs" in fails("skill://refs/..%2F..%2Fx")
    assert "Path traversal is not allowed" in fails("skill://refs/esc/file.txt")
    assert f"File not found: {d / 'none.md'}" in fails("skill://refs/none.md")
    assert f"File not found: {d / 'x'}" in fails("skill://refs/../x")


def test_resolve_only_loaded_skills(w):
    w.write({f"{U}/on/SKILL.md": md("on"), f"{U}/hid/SKILL.md": md("h", disable_model_invocation="true"),
             f"{U}/bad<name/SKILL.md": md("invalid")})
    assert w.run("resolve", "skill://hid")[0] == 0  # hidden skills stay loadable
    assert w.run("resolve", "skill://bad<name", check=False)[0] == 1


# ================================================================ more of §6, §8, §10 end to end
def test_user_entry_replaces_shipped_and_is_flexible(w):
    w.write({f"{U}/dataviz/SKILL.md": md("my own dataviz"), f"{UC}/init.md": md("my init")})
    entries = [e for e in w.json("budget", "--json", "--budget", "10")["entries"]]
    mine = [e for e in entries if e["name"] == "dataviz"]
    assert len(mine) == 1 and mine[0]["source"] == "user" and mine[0]["state"] == "name-only"
    assert [e["source"] for e in entries if e["name"] == "init"] == ["legacy-command"]
    assert w.rows() == ["- dataviz: my own dataviz", "- init: my init"]
    shipped_init = [r for r in w.entries() if r["name"] == "init" and r["source"] == "builtin"]
    assert shipped_init[0]["status"] == "shadowed"


def test_skill_folder_shadows_plugin_item_of_same_name(w):
    install(w, {"demo@m": {"files": {"skills/s/SKILL.md": md("plugin copy")}}})
    w.write({USER_SETTINGS: {"enabledPlugins": {"demo@m": True}}, f"{U}/demo:s/SKILL.md": md("folder copy")})
    assert w.rows() == ["- demo:s: folder copy"]
    assert [r["status"] for r in w.entries() if r["name"] == "demo:s" and r["source"] == "plugin"] == ["shadowed"]


def test_plugin_item_name_sanitised(w):
    install(w, {"demo@m": {"files": {"skills/a b.c/SKILL.md": md("spaces and dots"), "skills/café/SKILL.md": md("accent")}}})
    w.write({USER_SETTINGS: {"enabledPlugins": {"demo@m": True}}})
    assert sorted(w.names()) == ["demo:a-b-c", "demo:caf-"]


def test_greedy_budget_vector_end_to_end(w, tmp_path):
    """§12 "Greedy": A (extra 27), Bb (extra 51), C (extra 17) with 52 columns left after the fixed part."""
    w.write({f"{U}/A/SKILL.md": md("a" * 25), f"{U}/Bb/SKILL.md": md("b" * 49), f"{U}/C/SKILL.md": md("c" * 15)})
    base = 6039 + (3 + 4 + 3) + (6 + 17) + 15  # exempt shipped full + flexible name-only + (n − 1) newlines
    budget = str(base + 52)
    assert w.rows("--budget", budget) == ["- A: " + "a" * 25, "- Bb", "- C: " + "c" * 15]
    usage = tmp_path / "usage.json"
    usage.write_text(json.dumps({"skillUsage": {"Bb": {"usageCount": 50, "lastUsedAt": 1_700_000_000_000}}}))
    now = "2023-11-14T22:13:20Z"  # = 1_700_000_000_000 ms
    assert w.rows("--budget", budget, "--usage", str(usage), "--now", now) == ["- A", "- Bb: " + "b" * 49, "- C"]
    data = w.json("budget", "--json", "--budget", budget, "--usage", str(usage), "--now", now)
    assert data["over_budget"] is True
    assert {e["name"]: e["score"] for e in data["entries"]}["Bb"] == 50


def test_budget_sources(w):
    w.write({USER_SETTINGS: {"skillListingBudgetFraction": 0.02}})
    assert w.json("budget", "--json", "--model", "claude-sonnet-4-6")["budget"] == 16000
    w.setenv("SLASH_COMMAND_TOOL_CHAR_BUDGET", "10,000")
    assert w.json("budget", "--json", "--model", "claude-sonnet-4-6")["budget"] == 10000
    assert w.json("budget", "--json", "--budget", "123")["budget"] == 123
    w.setenv("SLASH_COMMAND_TOOL_CHAR_BUDGET", "0")
    assert w.json("budget", "--json", "--model", "claude-opus-4-7")["budget"] == 60000


def test_usage_read_from_global_config(w):
    w.write({f"{U}/s/SKILL.md": md("s"), "home/.claude.json": {"skillUsage": {"s": {"usageCount": 3, "lastUsedAt": 0}}},
             "cfg/.claude.json": {"skillUsage": {"s": {"usageCount": 9, "lastUsedAt": 0}}}, "cfg/skills/s/SKILL.md": md("s")})
    def score():
        return {e["name"]: e["score"] for e in w.json("budget", "--json", "--now", "1970-01-01T00:00:00Z")["entries"]}["s"]
    assert score() == 3
    w.setenv("CLAUDE_CONFIG_DIR", str(w.p("cfg")))
    assert score() == 9


def test_add_dir_settings_enable_after_user(w):
    install(w, {"demo@m": {"files": {"skills/s/SKILL.md": md("s")}}})
    w.write({"xdir/.claude/settings.json": {"enabledPlugins": {"demo@m": True}}})
    row = plugin_rows(w, add_dirs=(w.p("xdir"),))["demo@m"]
    assert (row["enabled"], row["decided_by"]) == (True, "add-dir")
    w.write({USER_SETTINGS: {"enabledPlugins": {"demo@m": False}}})
    row = plugin_rows(w, add_dirs=(w.p("xdir"),))["demo@m"]
    assert (row["enabled"], row["decided_by"]) == (False, "user")


def test_plugin_cache_dir_env_and_v1_records(w):
    root = w.p("pcache/cache/m/demo/0.9.0")
    build(root, {".claude-plugin/plugin.json": {"name": "demo"}, "skills/s/SKILL.md": md("from the env cache dir")})
    w.write({"pcache/installed_plugins.json": {"version": 1, "plugins": {
                 "demo@m": {"version": "0.9.0", "installPath": str(root), "installedAt": "2025-01-01T00:00:00.000Z"},
                 "not an id": {"version": "1", "installPath": str(root)}}},
             "pcache/known_marketplaces.json": {"m": {"source": {"source": "github", "repo": "o/r"},
                                                      "installLocation": str(w.p("pcache/marketplaces/m"))}},
             "pcache/marketplaces/m/.claude-plugin/marketplace.json": {"name": "m", "plugins": [{"name": "demo"}]},
             USER_SETTINGS: {"enabledPlugins": {"demo@m": True}}})
    w.setenv("CLAUDE_CODE_PLUGIN_CACHE_DIR", str(w.p("pcache")))
    rows = plugin_rows(w)
    assert rows["demo@m"]["version"] == "0.9.0" and rows["demo@m"]["scope"] == "user" and rows["demo@m"]["loads"]
    assert not [i for i in rows if i.startswith("not")]
    assert w.rows() == ["- demo:s: from the env cache dir"]


def test_marketplace_plugins_sorted_by_id(w):
    install(w, {pid: {} for pid in ("b@m", "A@m", "a@m", "a@l")})
    assert [i for i in plugin_rows(w) if not i.endswith("@builtin")] == ["A@m", "a@l", "a@m", "b@m"]


def test_plugin_not_installed_diagnostic(w):
    w.write({USER_SETTINGS: {"enabledPlugins": {"ghost@m": True}}})
    d = w.diags("plugin-not-installed")
    assert d and d[0]["path"] == str(w.p(USER_SETTINGS))


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to give a folder another owner")
def test_local_root_is_cwd_when_git_root_not_owned(w):
    install(w, {"demo@m": {"files": {"skills/s/SKILL.md": md("s")}}})
    w.write({"home/proj/.git": DIR, "home/proj/sub/.claude/settings.local.json": {"enabledPlugins": {"demo@m": True}},
             LOCAL_SETTINGS: {"enabledPlugins": {"demo@m": False}}})
    os.chown(w.p("home/proj/.git"), 4242, 4242)
    row = plugin_rows(w, cwd=w.p("home/proj/sub"))["demo@m"]
    assert (row["enabled"], row["decided_in"]) == (True, str(w.p("home/proj/sub/.claude/settings.local.json")))
    w.run("skill", "set", "demo:s", "off", cwd=w.p("home/proj/sub"))
    assert "skillOverrides" in json.loads(w.p("home/proj/sub/.claude/settings.local.json").read_text())
