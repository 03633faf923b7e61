"""oh-my-pi discovery (spec/omp.md): the golden case, every rule and test vector on small trees, skill:// URLs,
hostile input and the corpus."""

from __future__ import annotations

import collections
import json
import os
import shutil
from pathlib import Path

import pytest
from goldenlib import env_for, expected, load_case, prepare, restore_links

from skilltui.model import (
    DISABLED,
    FILTERED,
    HIDDEN,
    INVALID,
    LISTED,
    SHADOWED,
    Options,
)
from skilltui.runtimes.omp import discovery as omp
from skilltui.runtimes.omp.text import (
    glob_match,
    parse_omp_frontmatter,
    preview_description,
    sanitize_managed_description,
)


# ---------------------------------------------------------------- helpers
def write(root: Path, files: dict[str, str | bytes]) -> None:
    for rel, content in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            p.write_bytes(content)
        else:
            p.write_text(content)


def sk(name: str | None = None, desc: str | None = None, **extra) -> str:
    lines = ["---"]
    if name is not None:
        lines.append(f"name: {name}")
    if desc is not None:
        lines.append(f"description: {desc}")
    for key, value in extra.items():
        lines.append(f"{key.replace('_', '-')}: {value}")
    lines += ["---", "# body", ""]
    return "\n".join(lines)


@pytest.fixture
def box(tmp_path: Path):
    """A home and a git project under it: box.home, box.repo (git root), box.cwd = repo/sub."""

    class Box:
        root = tmp_path.resolve()
        home = root / "home"
        repo = root / "ws" / "repo"
        cwd = repo / "sub"

        def add(self, files: dict[str, str | bytes]) -> None:
            write(self.root, files)

        def config(self, text: str) -> None:
            write(self.root, {"home/.omp/agent/config.yml": text})

        def discover(self, rules: str = "18", env: dict | None = None, native: str = ".omp", cwd: Path | None = None):
            return omp.discover(Options(cwd=str(cwd or self.cwd), home=str(self.home), runtime="omp",
                                        env=env or {}, omp_rules=rules, native_dir=native))

    b = Box()
    b.home.mkdir(parents=True)
    (b.repo / ".git").mkdir(parents=True)
    b.cwd.mkdir(parents=True)
    return b


def listed(cat) -> list[tuple[str, str]]:
    return [(s["name"], s["source"]) for s in omp.skill_list_json(cat)["skills"]]


def row(cat, name: str, source: str | None = None):
    found = [s for s in cat.skills if s.name == name and (source is None or s.source == source)]
    assert found, f"no row {name} {source}"
    return found[0]


def codes(cat) -> collections.Counter:
    return collections.Counter(d.code for d in cat.diagnostics)


# ---------------------------------------------------------------- golden: omp 18.3.4 `omp skill list --json`
GOLDEN = "omp-skill-list-v18"


def _golden_runs():
    here = Path(__file__).resolve().parents[1].parent / "shared" / "golden" / GOLDEN / "case.json"
    env = os.environ.get("SKILLTUI_SHARED")
    if env:
        here = Path(env) / "golden" / GOLDEN / "case.json"
    try:
        return [r["id"] for r in json.loads(here.read_text())["runs"]]
    except OSError:
        return ["default"]


def _golden_catalog(shared_dir: Path, tmp_path: Path, run_id: str, rules: str = "18"):
    folder, case = load_case(shared_dir, GOLDEN)
    run = next(r for r in case["runs"] if r["id"] == run_id)
    tree = prepare(folder, case, run, tmp_path).resolve()
    home = tree / case["home"]
    opts = Options(cwd=str(tree / run.get("cwd", case["cwd"])), home=str(home), runtime="omp",
                   env=env_for(run, tree, home), omp_rules=rules)
    return folder, run, tree, omp.discover(opts)


@pytest.mark.parametrize("run_id", _golden_runs())
def test_golden_skill_list(shared_dir, tmp_path, run_id):
    folder, run, tree, cat = _golden_catalog(shared_dir, tmp_path, run_id)
    assert omp.skill_list_json(cat) == expected(folder, run, tree)


def test_golden_statuses_and_rows(shared_dir, tmp_path):
    _folder, _run, tree, cat = _golden_catalog(shared_dir, tmp_path, "default")
    assert cat.runtime == "omp" and cat.runtime_version == "18.3.4"
    listed_rows = cat.listed()
    assert [s.order for s in listed_rows] == list(range(14))
    assert [s.name for s in listed_rows][:3] == ["adup", "agent-user", "agents-proj"]
    assert row(cat, "dmi").status == HIDDEN and row(cat, "hidden-skill").status == HIDDEN
    user_dup = row(cat, "dup", "native:user")
    assert user_dup.status == SHADOWED
    assert user_dup.shadowed_by == str(tree / "ws/repo/.omp/skills/dup/SKILL.md")
    assert row(cat, "native-nodesc").status == INVALID
    assert row(cat, "off").status == DISABLED
    assert row(cat, "claude-user").status == DISABLED and "enabledProviders" in row(cat, "claude-user").reason
    assert row(cat, "plug-skill").status == DISABLED
    link_target = row(cat, "agents-proj", "agents:project")
    assert link_target.path.endswith("sub/.agents/skills/agents-proj-link/SKILL.md")
    root_copy = next(s for s in cat.skills if s.path.endswith("repo/.agents/skills/agents-proj/SKILL.md"))
    assert root_copy.status == SHADOWED and root_copy.shadowed_by == link_target.path
    c = codes(cat)
    assert c["omp-description-missing"] == 1 and c["omp-skill-disabled"] == 1
    assert c["omp-nested-ignored"] == 1 and c["omp-duplicate-file"] == 1 and c["omp-shadowed"] == 1
    assert c["omp-source-disabled"] == 7
    nested = next(d for d in cat.diagnostics if d.code == "omp-nested-ignored")
    assert nested.path.endswith("group/nested/SKILL.md")
    off = next(d for d in cat.diagnostics if d.code == "omp-skill-disabled")
    assert off.line == 4
    # the found-but-not-offered never appear: above the repo, codex at the repo root, github at the repo root
    everything = {s.name for s in cat.skills}
    assert not everything & {"above-repo", "codex-proj-root", "gh-skill", "hidden", "nested", "deep"}


def test_golden_v14_differences(shared_dir, tmp_path):
    _folder, _run, _tree, cat = _golden_catalog(shared_dir, tmp_path, "default", rules="14")
    names = dict(listed(cat))
    assert cat.runtime_version == "14.x"
    assert names["claude-user"] == "claude:user" and names["codex-user"] == "codex:user"
    assert names["myplug:plug-skill"] == "claude-plugins:user" and "plug-skill" not in names
    assert names["cdup"] == "claude:user"
    assert "dmi" in dict(listed(cat)) and row(cat, "dmi").status == LISTED  # no `hide` in v14


def test_golden_v14_no_pi_project_hides_dup(shared_dir, tmp_path):
    _folder, _run, _tree, cat = _golden_catalog(shared_dir, tmp_path, "no-pi-project", rules="14")
    names = dict(listed(cat))
    assert "dup" not in names and "native-proj" not in names and "native-user" in names
    assert row(cat, "dup", "native:user").status == SHADOWED


def test_golden_skill_urls(shared_dir, tmp_path):
    _folder, _run, tree, cat = _golden_catalog(shared_dir, tmp_path, "default")
    link = tree / "ws/repo/sub/.agents/skills/agents-proj-link"
    assert omp.resolve_url(cat, "skill://agents-proj/references/tables.md") == str(link / "references/tables.md")
    assert omp.resolve_url(cat, "skill://agents-proj") == str(link / "SKILL.md")
    info = omp.resolve_url_info(cat, "skill://agents-proj/references/tables.md")
    assert info.content_type == "text/markdown" and info.kind == "file"
    with pytest.raises(omp.SkillUrlError) as err:
        omp.resolve_url(cat, "skill://agents-proj/..%2Foutside.txt")
    assert str(err.value) == "Path traversal (..) is not allowed in skill:// URLs"
    with pytest.raises(omp.SkillUrlError) as err:
        omp.resolve_url(cat, "skill://agents-proj/../x")
    assert str(err.value) == f"File not found: {link}/x"
    with pytest.raises(omp.SkillUrlError) as err:
        omp.resolve_url(cat, "skill://nope")
    names = ", ".join(s["name"] for s in omp.skill_list_json(cat)["skills"])
    assert str(err.value) == f"Unknown skill: nope\nAvailable: {names}"
    # hidden skills stay loadable
    assert omp.resolve_url(cat, "skill://dmi").endswith("dmi/SKILL.md")


# ---------------------------------------------------------------- providers, walks, priorities (§1-§3)
def test_provider_order_and_walk(box):
    box.add({
        "ws/repo/sub/.omp/skills/a/SKILL.md": sk("same", "native cwd"),
        "ws/repo/.omp/skills/a/SKILL.md": sk("same", "native root"),
        "ws/.omp/skills/above/SKILL.md": sk("above", "above the git root"),
        "home/.omp/agent/skills/u/SKILL.md": sk("same", "native user"),
        "ws/repo/.claude/skills/c/SKILL.md": sk("c", "claude project"),
        "ws/repo/sub/.claude/skills/c/SKILL.md": sk("c", "claude cwd"),
        "ws/repo/.agent/skills/x/SKILL.md": sk("x", "singular agent at root"),
        "ws/repo/.agents/skills/x/SKILL.md": sk("x", "plural agents at root"),
        "ws/repo/.codex/skills/cx/SKILL.md": sk("cx", "codex at root: not read"),
        "ws/repo/.github/skills/g/SKILL.md": sk("g", "github at root: not read"),
        "ws/repo/sub/.github/skills/g2/SKILL.md": sk("g2", "github at cwd"),
        "ws/repo/sub/.opencode/skills/o/SKILL.md": sk("o", "opencode project"),
        "home/.config/opencode/skills/ou/SKILL.md": sk("ou", "opencode user (opt-in)"),
    })
    cat = box.discover()
    got = {s["name"]: s for s in omp.skill_list_json(cat)["skills"]}
    assert got["same"]["description"] == "native cwd"  # closest walk dir first, native beats everything
    assert got["c"]["description"] == "claude cwd"
    assert got["x"]["description"] == "singular agent at root"  # .agent before .agents in one dir
    assert got["g2"]["source"] == "github:project" and "g" not in got
    assert "cx" not in got and "above" not in got
    assert got["o"]["source"] == "opencode:project" and "ou" not in got
    assert row(box.discover(), "ou").status == DISABLED


def test_same_priority_registration_order(box):
    """claude-plugins, agents and codex share priority 70 and keep their registration order."""
    plug = box.root / "plug"
    box.add({
        "home/.claude/plugins/installed_plugins.json": json.dumps(
            {"version": 2, "plugins": {"p@m": [{"scope": "user", "installPath": str(plug)}]}}),
        "plug/skills/s/SKILL.md": sk("s70", "from plugin"),
        "home/.agents/skills/s/SKILL.md": sk("s70", "from agents user"),
        "home/.codex/skills/s/SKILL.md": sk("s70", "from codex user"),
        "home/.agents/skills/t/SKILL.md": sk("t70", "agents"),
        "home/.codex/skills/t/SKILL.md": sk("t70", "codex"),
    })
    box.config("enabledProviders:\n  - claude\n  - codex\n")
    got = dict(listed(box.discover()))
    assert got["s70"] == "claude-plugins:user" and got["t70"] == "agents:user"


def test_walk_without_git_stops_at_home_and_v18_skips_home(box):
    shutil.rmtree(box.repo / ".git")
    box.add({
        "home/proj/.keep": "",
        "home/.claude/skills/hc/SKILL.md": sk("hc", "claude dir in home"),
        "home/.agents/skills/ha/SKILL.md": sk("ha", "agents dir in home"),
        "home/.omp/skills/hn/SKILL.md": sk("hn", "native project dir at home"),
        ".agents/skills/outside/SKILL.md": sk("outside", "above home"),
    })
    cwd = box.home / "proj"
    cat18 = box.discover(cwd=cwd)
    got18 = dict(listed(cat18))
    assert got18["ha"] == "agents:user" and "hc" not in got18 and "outside" not in got18
    assert got18["hn"] == "native:project"  # the native walk does not skip $HOME
    cat14 = box.discover(rules="14", cwd=cwd)
    got14 = dict(listed(cat14))
    assert got14["ha"] == "agents:project"  # v14 walks $HOME as a project dir too
    assert got14["hc"] == "claude:user"  # user first; the project copy is the same file
    assert row(cat14, "hc", "claude:project").status == SHADOWED
    assert "outside" not in got14


def test_walk_outside_home_goes_to_root(tmp_path):
    root = tmp_path.resolve()
    write(root, {"a/b/c/.keep": "", "a/.agents/skills/high/SKILL.md": sk("high", "two levels up"),
                 "h/.keep": ""})
    cat = omp.discover(Options(cwd=str(root / "a/b/c"), home=str(root / "h"), runtime="omp"))
    assert ("high", "agents:project") in listed(cat)
    assert cat.facts.repo_root is None and cat.facts.walk[-1] == "/"


def test_git_file_marks_repo_root(box):
    shutil.rmtree(box.repo / ".git")
    box.add({"ws/repo/.git": "gitdir: elsewhere\n", "ws/.agents/skills/above/SKILL.md": sk("above", "above")})
    assert "above" not in dict(listed(box.discover()))
    assert box.discover().facts.repo_root == str(box.repo)


def test_scan_rules_one_level(box):
    box.add({
        "ws/repo/.agents/skills/group/nested/SKILL.md": sk("nested", "two levels"),
        "ws/repo/.agents/skills/SKILL.md": sk("loose", "directly in the dir"),
        "ws/repo/.agents/skills/.dot/SKILL.md": sk("dot", "hidden dir"),
        "ws/repo/.agents/skills/lower/skill.md": sk("lower", "wrong file name"),
        "ws/repo/.agents/skills/ok/SKILL.md": sk(None, "no name: folder name"),
        "ws/repo/.agents/skills/spaced/SKILL.md": sk("'  Bad_Name  '", "trimmed, no charset check"),
        "ws/repo/.agents/skills/numname/SKILL.md": sk("123", "non-string name: folder name"),
        "ws/repo/.agents/skills/long/SKILL.md": sk("x" * 80, "d" * 2000),
    })
    (box.repo / ".agents/skills/zlinked").symlink_to(box.repo / ".agents/skills/ok")
    (box.repo / ".agents/skills/afile").write_text("not a folder")
    cat = box.discover()
    got = dict(listed(cat))
    assert set(got) == {"ok", "Bad_Name", "numname", "x" * 80}
    assert "nested" not in got and "loose" not in got and "dot" not in got and "lower" not in got
    c = codes(cat)
    assert c["omp-nested-ignored"] == 1 and c["omp-loose-skill-file"] == 1 and c["omp-hidden-ignored"] == 1
    linked = next(s for s in cat.skills if s.path.endswith("zlinked/SKILL.md"))
    assert linked.name == "zlinked" and linked.status == SHADOWED and linked.shadowed_by.endswith("/ok/SKILL.md")
    assert any(d.code == "omp-duplicate-file" for d in cat.diagnostics)  # different names, same file


def test_item_order_within_dir_and_final_sort(box):
    box.add({f"ws/repo/.agents/skills/{d}/SKILL.md": sk(n, "d") for d, n in
             [("d1", "b"), ("d2", "B"), ("d3", "a"), ("d4", "_x"), ("d5", "Zed"), ("d6", "é")]})
    assert [n for n, _ in listed(box.discover())] == ["_x", "a", "B", "b", "Zed", "é"]


def test_same_name_in_one_dir_first_path_wins(box):
    box.add({"ws/repo/.agents/skills/b-dir/SKILL.md": sk("twin", "from b"),
             "ws/repo/.agents/skills/a-dir/SKILL.md": sk("twin", "from a")})
    cat = box.discover()
    assert omp.skill_list_json(cat)["skills"][0]["description"] == "from a"
    assert row(cat, "twin").status == LISTED and not omp.skill_list_json(cat)["warnings"]


def test_description_requirement_by_provider(box):
    nodesc = sk("n", None)
    box.add({
        "ws/repo/sub/.omp/skills/n1/SKILL.md": nodesc,
        "ws/repo/sub/.github/skills/n2/SKILL.md": nodesc,
        "ws/repo/sub/.claude/skills/n3/SKILL.md": sk("n3", None),
        "ws/repo/sub/.agents/skills/n4/SKILL.md": "# no frontmatter at all\n",
        "ws/repo/sub/.codex/skills/n5/SKILL.md": sk("n5", "''"),
        "ws/repo/sub/.omp/skills/zero/SKILL.md": sk("zero", "0"),
        "ws/repo/sub/.omp/skills/num/SKILL.md": sk("num", "42"),
        "ws/repo/sub/.omp/skills/list/SKILL.md": sk("list", "[a, b]"),
    })
    cat = box.discover()
    got = {s["name"]: s["description"] for s in omp.skill_list_json(cat)["skills"]}
    assert got == {"n3": "", "n4": "", "n5": "", "num": "", "list": ""}  # truthy non-strings pass, print ""
    assert codes(cat)["omp-description-missing"] == 3
    assert row(cat, "n", "native:project").status == INVALID


def test_enabled_false_only_boolean(box):
    box.add({"ws/repo/.agents/skills/a/SKILL.md": sk("a", "d", enabled="false"),
             "ws/repo/.agents/skills/b/SKILL.md": sk("b", "d", enabled="'false'"),
             "ws/repo/.agents/skills/c/SKILL.md": sk("c", "d", enabled="no")})
    cat = box.discover()
    assert set(dict(listed(cat))) == {"b", "c"}
    assert row(cat, "a").status == DISABLED


def test_hide_and_disable_model_invocation(box):
    box.add({"ws/repo/.agents/skills/h/SKILL.md": sk("h", "d", hide="true"),
             "ws/repo/.agents/skills/m/SKILL.md": sk("m", "d", disable_model_invocation="true"),
             "ws/repo/.agents/skills/s/SKILL.md": sk("s", "d", hide="'true'"),
             "ws/repo/.agents/skills/v/SKILL.md": sk("v", "visible")})
    cat = box.discover()
    hides = {s["name"]: s["hide"] for s in omp.skill_list_json(cat)["skills"]}
    assert hides == {"h": True, "m": True, "s": False, "v": False}
    assert [s.name for s in cat.listed()] == ["s", "v"]
    assert "- h:" not in omp.system_prompt(cat) and "- v: visible" in omp.system_prompt(cat)
    assert row(box.discover(rules="14"), "h").status == LISTED


# ---------------------------------------------------------------- dedupe, filters, settings (§4, §5)
def test_v18_filters_before_dedupe_v14_after(box):
    box.add({"ws/repo/.omp/skills/dup/SKILL.md": sk("dup", "project"),
             "home/.omp/agent/skills/dup/SKILL.md": sk("dup", "user")})
    box.config("skills:\n  enablePiProject: false\n")
    cat18 = box.discover()
    assert omp.skill_list_json(cat18)["skills"][0]["description"] == "user"
    assert row(cat18, "dup", "native:project").status == DISABLED
    cat14 = box.discover(rules="14")
    assert listed(cat14) == []
    assert row(cat14, "dup", "native:user").status == SHADOWED
    assert row(cat14, "dup", "native:project").status == DISABLED


def test_filtered_item_claims_no_realpath(box):
    box.add({"ws/repo/.omp/skills/real/SKILL.md": sk("real", "the file")})
    os.makedirs(box.repo / ".agents/skills")
    (box.repo / ".agents/skills/real").symlink_to(box.repo / ".omp/skills/real")
    box.config("skills:\n  enablePiProject: false\n")
    assert listed(box.discover()) == [("real", "agents:project")]


def test_globs_and_disabled_extensions(box):
    box.add({f"ws/repo/.agents/skills/{n}/SKILL.md": sk(n, "d") for n in
             ["adup", "cdup", "dup", "native-a", "native-b", "keep", "other"]})
    box.config('skills:\n  ignoredSkills: ["?dup"]\n  includeSkills: ["*dup", "native-*", "{keep,other}"]\n'
               'disabledExtensions: ["skill:other"]\n')
    cat = box.discover()
    assert [n for n, _ in listed(cat)] == ["dup", "keep", "native-a", "native-b"]
    assert row(cat, "adup").status == FILTERED and "ignoredSkills" in row(cat, "adup").reason
    assert row(cat, "other").status == FILTERED and "disabledExtensions" in row(cat, "other").reason
    assert codes(cat)["omp-filtered"] == 3


def test_disabled_extension_lets_the_next_copy_through(box):
    box.add({"ws/repo/.omp/skills/x/SKILL.md": sk("x", "native"),
             "ws/repo/.agents/skills/x/SKILL.md": sk("x", "agents")})
    box.config('disabledExtensions: ["skill:x"]\n')
    assert listed(box.discover()) == []  # disabledExtensions removes the name everywhere


@pytest.mark.parametrize("pattern,name,ok", [
    ("?dup", "adup", True), ("?dup", "dup", False), ("*dup", "dup", True), ("*", "a/b", False),
    ("**", "a/b", True), ("{a,b}c", "bc", True), ("{a,b}c", "cc", False), ("native-*", "native-", True),
    ("[ab]x", "bx", True), ("[!ab]x", "ax", False), ("A*", "abc", False), ("!foo", "bar", True),
    ("a\\*", "a*", True), ("{unclosed", "{unclosed", True), ("[unclosed", "[unclosed", True),
    ("{a,{b,c}}", "c", True),
])
def test_glob(pattern, name, ok):
    assert glob_match(pattern, name) is ok


def test_glob_pathological_inputs_stay_fast():
    import time

    start = time.monotonic()
    assert glob_match("*a*a*a*a*a*a*a*a*a*c", "a" * 5000) is False
    assert glob_match("{a,b}" * 40, "ab" * 20) is False  # 2**40 alternatives: bounded, matches nothing
    assert glob_match("{" * 5000 + "x", "x") is False or True  # deep nesting never raises
    assert glob_match("*", "n" * 1_000_000) is True
    assert time.monotonic() - start < 10


def test_foreign_user_opt_ins(box):
    plug = box.root / "plug"
    box.add({
        "home/.claude/skills/cu/SKILL.md": sk("cu", "claude user"),
        "home/.codex/skills/xu/SKILL.md": sk("xu", "codex user"),
        "home/.config/opencode/skills/ou/SKILL.md": sk("ou", "opencode user"),
        "home/.claude/plugins/installed_plugins.json": json.dumps(
            {"version": 2, "plugins": {"p@m": [{"scope": "user", "installPath": str(plug)}]}}),
        "plug/skills/ps/SKILL.md": sk("ps", "plugin"),
        "elsewhere/skills/ec/SKILL.md": sk("ec", "claude config dir"),
    })
    assert listed(box.discover()) == []
    box.config("enabledProviders: ['*']\n")
    assert {n for n, _ in listed(box.discover())} == {"cu", "xu", "ou", "ps"}
    box.config("enabledProviders: [all]\ndisabledProviders: [opencode]\n")
    assert {n for n, _ in listed(box.discover())} == {"cu", "xu", "ps"}
    box.config("skills:\n  enableClaudeUser: true\n  enableCodexUser: true\n")
    assert {n for n, _ in listed(box.discover())} == {"cu", "xu"}  # the legacy toggles bring no plugins
    box.config("")
    cat = box.discover(env={"CLAUDE_CONFIG_DIR": str(box.root / "elsewhere")})
    assert listed(cat) == [("ec", "claude:user")]


def test_disabled_providers_remove_project_sources_too(box):
    box.add({"ws/repo/.agents/skills/a/SKILL.md": sk("a", "agents project"),
             "ws/repo/.claude/skills/a/SKILL.md": sk("a", "claude project")})
    box.config("disabledProviders: [claude]\n")
    cat = box.discover()
    assert listed(cat) == [("a", "agents:project")]
    assert "disabledProviders" in row(cat, "a", "claude:project").reason


def test_path_scoped_disabled_providers(box):
    box.add({"ws/repo/.claude/skills/a/SKILL.md": sk("a", "claude project")})
    box.config(f"disabledProviders:\n  - pathPrefix: {box.root / 'elsewhere'}\n    providers: [claude]\n")
    assert listed(box.discover()) == [("a", "claude:project")]
    box.config(f"disabledProviders:\n  - pathPrefix: {box.repo}\n    providers: [claude]\n")
    assert listed(box.discover()) == []


def test_v14_all_toggles_off_means_nothing(box):
    box.add({"ws/repo/.agents/skills/a/SKILL.md": sk("a", "agents"),
             "ws/repo/.omp/skills/n/SKILL.md": sk("n", "native")})
    box.config("skills:\n" + "".join(f"  {k}: false\n" for k in
               ["enableCodexUser", "enableClaudeUser", "enableClaudeProject", "enablePiUser", "enablePiProject"]))
    assert listed(box.discover(rules="14")) == []
    assert dict(listed(box.discover()))["a"] == "agents:project"  # v18 has its own agents toggles


def test_skills_enabled_false(box):
    box.add({"ws/repo/.agents/skills/a/SKILL.md": sk("a", "agents")})
    box.config("skills:\n  enabled: false\n")
    cat = box.discover()
    assert omp.skill_list_json(cat) == {"skills": [], "warnings": []}
    assert row(cat, "a").status == DISABLED and codes(cat)["omp-skills-disabled"] == 1


def test_settings_layers(box):
    box.add({"ws/repo/.agents/skills/a/SKILL.md": sk("a", "agents"),
             "ws/repo/sub/.omp/skills/n/SKILL.md": sk("n", "native")})
    box.config("skills:\n  enableAgentsProject: false\n  enablePiProject: false\n")
    assert listed(box.discover()) == []
    box.add({"ws/repo/sub/.omp/config.yml": "skills:\n  enableAgentsProject: true\n"})  # project beats global
    assert listed(box.discover()) == [("a", "agents:project")]
    box.add({"ws/repo/sub/.omp/settings.json": json.dumps({"skills": {"enablePiProject": True}})})
    assert {n for n, _ in listed(box.discover())} == {"a", "n"}
    box.add({"ws/repo/.omp/config.yml": "skills:\n  enableAgentsProject: false\n"})  # only cwd counts
    assert {n for n, _ in listed(box.discover())} == {"a", "n"}


def test_config_yaml_fallback_and_legacy_json(box):
    box.add({"ws/repo/.agents/skills/a/SKILL.md": sk("a", "agents")})
    write(box.root, {"home/.omp/agent/config.yaml": "skills:\n  enableAgentsProject: false\n"})
    assert listed(box.discover()) == []
    (box.home / ".omp/agent/config.yaml").unlink()
    write(box.root, {"home/.omp/agent/settings.json": json.dumps({"skills": {"enableAgentsProject": False}})})
    cat = box.discover()
    assert listed(cat) == [] and codes(cat)["omp-settings-legacy"] == 1


def test_agent_dir_env_profile_and_config_dir(box):
    box.add({"custom-agent/skills/e/SKILL.md": sk("e", "from PI_CODING_AGENT_DIR"),
             "home/.omp/profiles/work/agent/skills/p/SKILL.md": sk("p", "profile"),
             "home/.myomp/agent/skills/m/SKILL.md": sk("m", "PI_CONFIG_DIR"),
             "home/.omp/agent/skills/d/SKILL.md": sk("d", "default")})
    assert listed(box.discover()) == [("d", "native:user")]
    assert listed(box.discover(env={"PI_CODING_AGENT_DIR": str(box.root / "custom-agent")})) == [("e", "native:user")]
    assert listed(box.discover(env={"OMP_PROFILE": "work"})) == [("p", "native:user")]
    assert listed(box.discover(env={"PI_CONFIG_DIR": ".myomp"})) == [("m", "native:user")]
    cat = box.discover(env={"OMP_PROFILE": "Bad Name"})
    assert listed(cat) == [] and codes(cat)["omp-profile-invalid"] == 1  # omp exits (tests/fixtures/severity)


def test_xcsh_native_dir(box):
    box.add({"ws/repo/sub/.xcsh/skills/x/SKILL.md": sk("x", "xcsh project"),
             "home/.xcsh/agent/skills/xu/SKILL.md": sk("xu", "xcsh user"),
             "ws/repo/sub/.omp/skills/o/SKILL.md": sk("o", "omp project"),
             "home/.xcsh/agent/config.yml": "skills:\n  ignoredSkills: [xu]\n"})
    for rules in ("18", "14"):
        cat = box.discover(rules=rules, native=".xcsh")
        assert listed(cat) == [("x", "native:project")]
        assert cat.facts.native_dir == ".xcsh"


# ---------------------------------------------------------------- custom directories (§4.5)
def test_custom_directories(box):
    box.add({
        "home/.agents/skills/shared/SKILL.md": sk("shared", "agents user"),
        "home/my-skills/shared/SKILL.md": sk("shared", "custom wins silently"),
        "home/my-skills/cust/SKILL.md": sk("cust", "custom 1"),
        "home/my-skills/nodesc/SKILL.md": sk("nodesc", None),
        "home/my-skills/group/deep/SKILL.md": sk("deep", "nested"),
        "c2/cust/SKILL.md": sk("cust", "custom 2"),
    })
    box.config(f"skills:\n  customDirectories:\n    - ~/my-skills\n    - {box.root / 'c2'}\n    - /does/not/exist\n")
    cat = box.discover()
    out = omp.skill_list_json(cat)
    got = {s["name"]: s for s in out["skills"]}
    assert got["shared"]["source"] == "custom:user" and got["shared"]["description"] == "custom wins silently"
    assert got["cust"]["filePath"] == str(box.home / "my-skills/cust/SKILL.md")
    assert set(got) == {"shared", "cust"}
    assert out["warnings"] == [{"skillPath": str(box.root / "c2/cust/SKILL.md"),
                                "message": f'name collision: "cust" already loaded from '
                                           f'{box.home / "my-skills/cust/SKILL.md"}, skipping this one'}]
    assert row(cat, "shared", "agents:user").status == SHADOWED
    assert codes(cat)["omp-name-collision"] == 1 and codes(cat)["omp-description-missing"] == 1
    cat14 = box.discover(rules="14")
    got14 = dict(listed(cat14))
    assert got14["shared"] == "agents:user"
    assert any(w["message"].startswith('name collision: "shared" already loaded from ')
               for w in omp.skill_list_json(cat14)["warnings"])


def test_custom_directory_that_is_a_file_warns_with_its_path(box):
    box.add({"home/not-a-dir": "x"})
    box.config("skills:\n  customDirectories: ['~/not-a-dir']\n")
    warnings = omp.skill_list_json(box.discover())["warnings"]
    target = str(box.home / "not-a-dir")
    assert warnings == [{"skillPath": target, "message": f"Failed to read skills directory: {target} "
                                                         f"(Error: ENOTDIR: not a directory, scandir '{target}')"}]


def test_provider_dir_unreadable_warning_prefix(box):
    box.add({"ws/repo/.agents/skills": "a file where a folder should be"})
    cat = box.discover()
    target = str(box.repo / ".agents/skills")
    assert omp.skill_list_json(cat)["warnings"] == [
        {"skillPath": "", "message": f"[Agent Dirs (.agent/.agents)] Failed to read skills directory: {target} "
                                     f"(Error: ENOTDIR: not a directory, scandir '{target}')"}]
    assert codes(cat)["omp-read-failed"] == 1


# ---------------------------------------------------------------- managed skills (§4.6)
def test_managed_skills(box):
    box.add({
        "home/.omp/agent/managed-skills/learned/SKILL.md": sk("learned", "a <b>`learned`</b> ~~~ thing\n"),
        "home/.omp/agent/managed-skills/taken/SKILL.md": sk("taken", "managed copy"),
        "home/.omp/agent/managed-skills/hidden-owner/SKILL.md": sk("hidden-owner", "managed copy"),
        "home/.omp/agent/managed-skills/Bad/SKILL.md": sk("Bad", "invalid managed name"),
        "ws/repo/.agents/skills/taken/SKILL.md": sk("taken", "authored"),
        "ws/repo/.omp/skills/hidden-owner/SKILL.md": sk("hidden-owner", "native, switched off"),
        "ws/repo/.agents/skills/hidden-owner/SKILL.md": sk("hidden-owner", "agents copy, enabled"),
    })
    box.config("skills:\n  enablePiProject: false\n")
    cat = box.discover()
    got = {s["name"]: s for s in omp.skill_list_json(cat)["skills"]}
    assert got["learned"]["source"] == "omp-managed:user"
    assert got["learned"]["description"] == "a blearned/b ~ thing"
    assert got["taken"]["description"] == "authored"
    assert got["hidden-owner"]["description"] == "agents copy, enabled"
    assert "Bad" not in got and row(cat, "Bad").status == INVALID
    assert row(cat, "taken", "omp-managed:user").status == SHADOWED
    assert "learned" not in dict(listed(box.discover(rules="14")))


def test_sanitize_managed_description():
    assert sanitize_managed_description("a\u200bb\x00c  <x>`y`~~~z\n") == "a b c xy~z"


# ---------------------------------------------------------------- claude plugins (§2.3)
def _plugin_box(box, records, manifest: dict | None = None, extra: dict | None = None):
    plug = box.root / "plug"
    files = {"plug/skills/ps/SKILL.md": sk("ps", "plugin skill"),
             "home/.claude/plugins/installed_plugins.json": json.dumps({"version": 2, "plugins": records})}
    if manifest is not None:
        files["plug/.claude-plugin/plugin.json"] = json.dumps(manifest)
    files.update(extra or {})
    box.add(files)
    box.config("enabledProviders: [claude]\n")
    return plug


def test_plugin_names_and_enabled_plugins(box):
    plug = _plugin_box(box, {"myplug@mkt": [{"scope": "user", "installPath": "PLUG"}]})
    path = box.home / ".claude/plugins/installed_plugins.json"
    path.write_text(path.read_text().replace("PLUG", str(plug)))
    assert listed(box.discover()) == [("ps", "claude-plugins:user")]
    cat14 = box.discover(rules="14")
    assert ("myplug:ps", "claude-plugins:user") in listed(cat14)
    assert omp.resolve_url(cat14, "skill://myplug:ps") == str(plug / "skills/ps/SKILL.md")
    write(box.root, {"ws/repo/sub/.claude/settings.json": json.dumps({"enabledPlugins": {"myplug@mkt": False}})})
    cat = box.discover()
    assert listed(cat) == [] and codes(cat)["omp-plugin-skipped"] == 1


def test_plugin_manifest_skills_and_outside_root(box):
    plug = box.root / "plug"
    _plugin_box(box, {"p@m": [{"scope": "user", "installPath": str(plug)}]},
                manifest={"name": "p", "skills": ["./extra", "../outside", "./"]},
                extra={"plug/extra/es/SKILL.md": sk("es", "manifest dir"),
                       "plug/SKILL.md": sk("rootskill", "plugin root as a skill"),
                       "outside/os/SKILL.md": sk("os", "outside")})
    cat = box.discover()
    assert {n for n, _ in listed(cat)} == {"ps", "es", "rootskill"}
    assert omp.skill_list_json(cat)["warnings"] == [
        {"skillPath": "", "message": "[Claude Code Marketplace] [claude-plugins] Ignoring skills path outside plugin "
                                     "root for p@m: ../outside"}]
    assert {n for n, _ in listed(box.discover(rules="14"))} == {"p:es", "p:rootskill"}  # v14: instead of skills/


def test_plugin_project_scope_and_omp_registries(box):
    plug, plug2 = box.root / "plug", box.root / "plug2"
    _plugin_box(box, {"other@m": [{"scope": "project", "projectPath": str(box.root / "elsewhere"),
                                   "installPath": str(plug)}],
                      "here@m": [{"scope": "local", "projectPath": str(box.repo), "installPath": str(plug)}],
                      "bad": [{"installPath": str(plug)}],
                      "nopath@m": [{"scope": "user"}]},
                extra={"plug2/skills/p2/SKILL.md": sk("p2", "from the omp registry")})
    cat = box.discover()
    assert listed(cat) == [("ps", "claude-plugins:project")]  # `here@m` is bound to this repo (the git root)
    messages = [w["message"] for w in omp.skill_list_json(cat)["warnings"]]
    assert messages == ["[Claude Code Marketplace] Invalid plugin ID format (missing @marketplace): bad",
                        "[Claude Code Marketplace] Plugin nopath@m entry has no installPath"]
    write(box.root, {"home/.omp/plugins/installed_plugins.json": json.dumps(
        {"version": 2, "plugins": {"here@m": [{"scope": "user", "installPath": str(plug2)}]}})})
    assert listed(box.discover()) == [("p2", "claude-plugins:user")]  # omp's registry wins for the same id


def test_plugin_registry_garbage(box):
    box.add({"home/.claude/plugins/installed_plugins.json": "{not json"})
    box.config("enabledProviders: [claude]\n")
    cat = box.discover()
    path = box.home / ".claude/plugins/installed_plugins.json"
    assert omp.skill_list_json(cat)["warnings"] == [
        {"skillPath": "", "message": f"[Claude Code Marketplace] Failed to parse Claude Code plugin registry: {path}"}]


# ---------------------------------------------------------------- skillshare and extension packages (v18)
def test_skillshare_locked_skills(box):
    entry = {"version": "1.2.3", "integrity": "sha512-abc", "resolved": "/t.tgz"}
    store = "home/.omp/skillshare/@acme/tool/1.2.3"
    box.add({
        "home/.omp/agent/skills.lock.json": json.dumps({"version": 1, "skills": {
            "@acme/tool": entry, "@acme/gone": dict(entry, version="2.0.0"),
            "@acme/stale": dict(entry, version="3.0.0")}}),
        f"{store}/.skillshare-integrity": "sha512-abc\n",
        f"{store}/SKILL.md": sk(None, "registry skill"),
        "home/.omp/skillshare/@acme/stale/3.0.0/.skillshare-integrity": "sha512-other",
        "home/.omp/skillshare/@acme/stale/3.0.0/SKILL.md": sk("stale", "integrity differs"),
        "ws/repo/.omp/skills.lock.json": json.dumps({"version": 1, "skills": {"bad id": entry}}),
        "secret.txt": "s",
    })
    (box.home / ".omp/skillshare/@acme/tool/1.2.3/leak").symlink_to(box.root / "secret.txt")
    cat = box.discover()
    assert listed(cat) == [("tool", "skillshare:user")]
    warnings = omp.skill_list_json(cat)["warnings"]
    assert len(warnings) == 1 and warnings[0]["message"].startswith("[Skillshare] Failed to read skills lock: ")
    assert 'invalid skill id "bad id"' in warnings[0]["message"]
    with pytest.raises(omp.SkillUrlError) as err:
        omp.resolve_url(cat, "skill://tool/leak")
    assert str(err.value) == "skill:// path resolves outside the plugin root: skill://tool/leak"
    box.add({"ws/repo/.omp/skills/tool/SKILL.md": sk("tool", "authored wins")})
    assert omp.skill_list_json(box.discover())["skills"][0]["source"] == "native:project"
    assert listed(box.discover(rules="14")) == [("tool", "native:project")]


def test_extension_package_skills(box):
    box.add({
        "home/.omp/agent/config.yml": "extensions:\n  - ~/ext/pkg\n  - ~/ext/plain\n  - ~/ext/missing\n",
        "home/ext/pkg/package.json": json.dumps({"omp": {"skills": ["./more", "../escape", "./absent"]}}),
        "home/ext/pkg/more/m/SKILL.md": sk("m", "manifest skills dir"),
        "home/ext/pkg/skills/ignored/SKILL.md": sk("ignored", "the manifest replaces skills/"),
        "home/ext/escape/e/SKILL.md": sk("e", "outside the package"),
        "home/ext/plain/skills/p/SKILL.md": sk("p", "conventional skills/"),
        "home/ext/plain/skills/nd/SKILL.md": sk("nd", None),
    })
    cat = box.discover()
    assert sorted(listed(cat)) == [("m", "omp-plugins:user"), ("p", "omp-plugins:user")]
    assert omp.skill_list_json(cat)["warnings"] == [{"skillPath": "", "message": "[OMP Extension Packages] "
                                                     "[omp-plugins] Skipping manifest skills directory outside "
                                                     "plugin root: ../escape"}]
    assert row(cat, "nd").status == INVALID
    box.add({"ws/repo/sub/.omp/config.yml": "extensions: []\n"})  # the project array replaces the user one
    assert listed(box.discover()) == []


# ---------------------------------------------------------------- frontmatter (§6)
@pytest.mark.parametrize("text,expect", [
    ("---\r\nname: crlf\r\ndescription: windows\r\n---\r\nbody", {"name": "crlf", "description": "windows"}),
    ("---\nname: c\n<!-- a comment -->\ndescription: d\n---\n", {"name": "c", "description": "d"}),
    ("---\nname: q\ndescription: Use when: you need it\n---\n", {"name": "q", "description": "Use when: you need it"}),
    ("---\nname: t\ndescription:\tx\n---\n", {"name": "t", "description": "x"}),
    ("---\nname: u\ndescription: [unclosed\n---\n", {"name": "u", "description": "[unclosed"}),
    ("---\nname: f\ndescription: >\n  folded\n  text\n---\n", {"name": "f", "description": "folded text\n"}),
    ("---\nname: k\ndisable-model-invocation: true\nuser-invocable: false\n---\n",
     {"name": "k", "disableModelInvocation": True, "userInvocable": False}),
    ("---\nname: y\non: yes\ncount: 010\n---\n", {"name": "y", "on": "yes", "count": 10}),
    ("no frontmatter\n", {}),
    ("---\njust a string\n---\n", {}),
    ("---\nname: broken\ndescription: a: b: c\n  bad: indent\nenabled: false\n---\n",
     {"name": "broken", "description": "a: b: c", "enabled": False}),
])
def test_frontmatter(text, expect):
    assert parse_omp_frontmatter(text).data == expect


def test_frontmatter_fallback_reported_with_line(box):
    box.add({"ws/repo/.agents/skills/b/SKILL.md": "---\nname: b\ndescription: ok\nx: [\n  y: 1\n---\n"})
    cat = box.discover()
    assert ("b", "agents:project") in listed(cat)
    diag = next(d for d in cat.diagnostics if d.code == "omp-frontmatter-fallback")
    assert diag.line is not None and diag.line >= 4


# ---------------------------------------------------------------- the prompt (§7)
def test_preview_description():
    assert preview_description("  short\n\n text ") == "short text"
    sentence = "This first sentence is comfortably over forty characters. " + "More words " * 10
    assert preview_description(sentence) == "This first sentence is comfortably over forty characters."
    words = "word " * 40
    out = preview_description(words)
    assert out.endswith("…") and not out.endswith(" …") and len(out) <= 100
    assert preview_description("x" * 150) == "x" * 98 + "…"
    short_sentence = "Too short. " + "and then a long tail of words " * 5
    assert not preview_description(short_sentence).startswith("Too short.…")


def test_system_prompt_forms(box):
    long = ("Analyse things. " + "This skill has a rather long description that goes on and on " * 3).strip()
    box.add({"ws/repo/.agents/skills/a/SKILL.md": sk("a", long),
             "ws/repo/.agents/skills/b/SKILL.md": sk("b", "short")})
    cat = box.discover()
    text = omp.system_prompt(cat)
    assert text.startswith("# Skills & Rules\nMatching skill → MUST read `skill://<name>` first.\n<skills>\n- a: ")
    assert text.endswith("- b: short\n</skills>\n")
    assert omp.prompt_entries(cat)[0][1] == preview_description(long)
    full = omp.system_prompt(cat, compress=False)
    assert f"- a: {long}\n" in full
    custom = omp.system_prompt(cat, template="custom")
    assert '<skill name="b">\nshort\n</skill>' in custom
    assert omp.system_prompt(cat, has_read_tool=False) == ""
    v14 = omp.system_prompt(box.discover(rules="14"))
    assert v14 == f"# Skills\n- a: {long}\n- b: short\n"
    assert omp.render_system_prompt([], "18") == ""


# ---------------------------------------------------------------- skill:// (§8)
def test_skill_urls(box):
    box.add({"ws/repo/.agents/skills/s/SKILL.md": sk("s", "d"),
             "ws/repo/.agents/skills/s/refs/a.md": "# a",
             "ws/repo/.agents/skills/s/data.json": "{}",
             "ws/repo/.agents/skills/s/notes.txt": "x",
             "ws/repo/secret.txt": "secret"})
    skill_dir = box.repo / ".agents/skills/s"
    (skill_dir / "escape").symlink_to(box.repo / "secret.txt")
    (skill_dir / "inside").symlink_to(skill_dir / "notes.txt")
    cat = box.discover()
    assert omp.resolve_url(cat, "skill://s/refs/a.md") == str(skill_dir / "refs/a.md")
    assert omp.resolve_url(cat, "skill://s/refs%2Fa.md") == str(skill_dir / "refs/a.md")
    assert omp.resolve_url(cat, "skill://s/refs/./a.md") == str(skill_dir / "refs/a.md")
    assert omp.resolve_url(cat, "skill://s/x/../notes.txt?q=1#frag") == str(skill_dir / "notes.txt")
    assert omp.resolve_url(cat, "skill://s/inside") == str(skill_dir / "inside")
    assert omp.resolve_url_info(cat, "skill://s/data.json").content_type == "application/json"
    assert omp.resolve_url_info(cat, "skill://s/notes.txt").content_type == "text/plain"
    assert omp.resolve_url_info(cat, "skill://s/refs").kind == "directory"
    cases = {
        "skill://s//etc/passwd": "Absolute paths are not allowed in skill:// URLs",
        "skill://s/%2Fetc%2Fpasswd": "Absolute paths are not allowed in skill:// URLs",
        "skill://s/..%2F..%2Fsecret.txt": "Path traversal (..) is not allowed in skill:// URLs",
        "skill://s/a%5C..%5Cb": "Path traversal (..) is not allowed in skill:// URLs",
        "skill://s/escape": "Path traversal is not allowed",
        "skill://s/missing.md": f"File not found: {skill_dir / 'missing.md'}",
        "skill://s/%E0%A4%A": "URI malformed",
        "skill://": "skill:// URL requires a skill name: skill://<name>",
        "skill://S": "Unknown skill: S\nAvailable: s",
    }
    for url, message in cases.items():
        with pytest.raises(omp.SkillUrlError) as err:
            omp.resolve_url(cat, url)
        assert str(err.value) == message, url
    with pytest.raises(omp.SkillUrlError) as err:
        omp.resolve_url(cat, "skill://s/escape")
    assert err.value.kind == "symlink-escape" and err.value.runtime_follows
    with pytest.raises(omp.SkillUrlError) as err:
        omp.resolve_url(box.discover(rules="14"), "skill://s/refs")
    assert str(err.value) == f"File not found: {skill_dir / 'refs'}"
    empty = omp.discover(Options(cwd=str(box.root), home=str(box.root / "nohome"), runtime="omp"))
    with pytest.raises(omp.SkillUrlError) as err:
        omp.resolve_url(empty, "skill://s")
    assert str(err.value) == "Unknown skill: s\nAvailable: none"


def test_plugin_skill_url_must_stay_in_plugin_root(box):
    plug = box.root / "plug"
    _plugin_box(box, {"p@m": [{"scope": "user", "installPath": str(plug)}]},
                extra={"plug/shared/common.md": "shared", "secret.txt": "s"})
    (plug / "skills/ps/common.md").symlink_to(plug / "shared/common.md")
    (plug / "skills/ps/leak").symlink_to(box.root / "secret.txt")
    cat = box.discover()
    assert omp.resolve_url(cat, "skill://ps/common.md") == str(plug / "shared/common.md")
    with pytest.raises(omp.SkillUrlError) as err:
        omp.resolve_url(cat, "skill://ps/leak")
    assert str(err.value) == "skill:// path resolves outside the plugin root: skill://ps/leak"


# ---------------------------------------------------------------- hostile input
def test_hostile_trees_never_raise(box):
    skills = box.repo / ".agents/skills"
    box.add({
        "ws/repo/.agents/skills/binary/SKILL.md": b"---\nname: binary\ndescription: bin\n---\n\x00\x01\xff\xfe",
        "ws/repo/.agents/skills/badutf8/SKILL.md": b"---\nname: bad\xffutf\ndescription: d\n---\n",
        "ws/repo/.agents/skills/bom/SKILL.md": "\ufeff---\nname: bom\ndescription: has a BOM\n---\n",
        "ws/repo/.agents/skills/empty/SKILL.md": "",
        "ws/repo/.agents/skills/big/SKILL.md": sk("big", "huge") + "x" * 1_200_000,
        "ws/repo/.agents/skills/bomb/SKILL.md": "---\nname: bomb\ndescription: d\na: &a [x,x,x,x,x,x,x,x,x]\n"
                                                 "b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b]\n"
                                                 "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: [*d,*d,*d,*d,*d,*d,*d,*d]\n---\n",
        "ws/repo/.agents/skills/deep/SKILL.md": "---\nname: deep\ndescription: d\nx: " + "[" * 500 + "\n---\n",
        "ws/repo/.agents/skills/dirskill/SKILL.md/.keep": "",
        "home/.omp/agent/config.yml": "skills: [unclosed\n  - : :\n",
    })
    (skills / "loop").symlink_to(skills / "loop")
    os.makedirs(os.fsencode(skills) + b"/bad\xffname")
    (Path(os.fsdecode(os.fsencode(skills) + b"/bad\xffname")) / "SKILL.md").write_text(sk("undecodable", "d"))
    (skills / "dangling").symlink_to(box.root / "nowhere")
    os.makedirs(skills / "danglingmd")
    (skills / "danglingmd/SKILL.md").symlink_to(box.root / "nowhere.md")
    os.makedirs(skills / "fifo")
    os.mkfifo(skills / "fifo/SKILL.md")
    (box.cwd / ".omp").mkdir()
    (box.cwd / ".omp/skills").symlink_to(box.cwd / ".omp/skills")  # a looping skills folder
    cat = box.discover()
    got = {s["name"]: s for s in omp.skill_list_json(cat)["skills"]}
    assert {"binary", "bom", "big", "deep"} <= set(got)
    assert got["bom"]["description"] == "has a BOM"
    assert any(n.startswith("bad") for n in got)
    assert row(cat, "empty").status == INVALID
    assert row(cat, "danglingmd").status == INVALID and row(cat, "fifo").status == INVALID
    assert row(cat, "dirskill").status == INVALID
    c = codes(cat)
    assert c["omp-settings-invalid"] == 1 and c["omp-file-truncated"] == 1 and c["omp-invalid-utf8"] == 2
    assert c["omp-dangling-link"] >= 1 and c["omp-unreadable-skill"] >= 3 and c["omp-undecodable-name"] == 1
    assert "undecodable" not in got
    json.dumps(cat.to_json())
    assert any(w["message"].startswith("[OMP] Failed to read skills directory: ") and "ELOOP" in w["message"]
               for w in omp.skill_list_json(cat)["warnings"])
    for rules in ("14", "18"):
        box.discover(rules=rules)  # neither rule set raises
    assert omp.system_prompt(cat)


def test_garbage_settings_values(box):
    box.add({"ws/repo/.agents/skills/a/SKILL.md": sk("a", "d")})
    box.config("skills:\n  customDirectories: just-a-string\n  ignoredSkills: [1, null, a]\n  enabled: yes\n"
               "enabledProviders: {x: 1}\n")
    cat = box.discover()
    assert listed(cat) == []  # "a" is ignored; `enabled: yes` is the (truthy) string "yes"
    # not a list: omp 18.3.4 starts and ignores it; entries that are not strings: it exits (oracle, 2026-12-03)
    assert codes(cat)["omp-settings-type"] == 2 and codes(cat)["omp-settings-entry-type"] == 1


def test_alias_bomb_in_settings(box):
    box.config("a: &a [x,x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]"
               "\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]\n")
    cat = box.discover()
    assert codes(cat)["omp-settings-invalid"] == 1


def test_catalog_json_shape(box):
    box.add({"ws/repo/.agents/skills/a/SKILL.md": sk("a", "d"),
             "ws/repo/.omp/skills/a/SKILL.md": sk("a", "native")})
    cat = box.discover()
    data = cat.to_json()
    json.dumps(data)
    first = data["skills"][0]
    assert first["status"] == "listed" and first["order"] == 0 and first["source"] == "native:project"
    assert cat.skills[0].facts.provider == "native" and cat.skills[0].facts.level == "project"
    assert "provider" not in first  # runtime facts stay internal: the JSON has the documented keys only
    loser = data["skills"][1]
    assert loser["status"] == "shadowed" and loser["shadowed_by"] == first["path"] and loser["order"] is None
    assert {"severity", "code", "path", "line", "message"} <= set(data["diagnostics"][0])


def test_skill_list_text(box):
    box.add({"ws/repo/.agents/skills/a/SKILL.md": sk("a", '"tab\\there"')})
    out, err = omp.skill_list_text(box.discover())
    assert out == "a\ttab\\x09here\n" and err == ""
    empty = omp.discover(Options(cwd=str(box.root), home=str(box.root / "nohome"), runtime="omp"))
    assert omp.skill_list_text(empty) == ("No skills discovered.\n", "")


# ---------------------------------------------------------------- the corpus
@pytest.fixture(scope="module")
def corpus_copy(shared_dir, tmp_path_factory):
    """A copy of shared/corpus (hard links where possible) with flattened symbolic links restored."""
    dest = tmp_path_factory.mktemp("omp-corpus") / "corpus"

    def link_or_copy(src, dst):
        try:
            os.link(src, dst)
        except OSError:
            shutil.copy2(src, dst)

    shutil.copytree(shared_dir / "corpus", dest, symlinks=True, copy_function=link_or_copy)
    for folder, _dirs, _files in os.walk(dest):
        os.chmod(folder, 0o755)
    restore_links(dest)
    return dest


@pytest.mark.slow  # sweeps the whole corpus
def test_corpus(corpus_copy, tmp_path):
    root = tmp_path.resolve()
    home, proj = root / "home", root / "proj"
    (proj / ".git").mkdir(parents=True)
    (proj / ".omp").mkdir()
    (proj / ".omp/skills").symlink_to(corpus_copy)  # the corpus mounted as a project skills folder
    collections_ = []
    for folder, dirs, _files in os.walk(corpus_copy):
        dirs.sort()
        if any(os.path.lexists(os.path.join(folder, d, "SKILL.md")) for d in dirs):
            collections_.append(folder)
    write(root, {"home/.omp/agent/config.yml": json.dumps({"skills": {"customDirectories": sorted(collections_)}})})
    cat = omp.discover(Options(cwd=str(proj), home=str(home), runtime="omp"))
    statuses = collections.Counter(s.status for s in cat.skills)
    c = codes(cat)
    out = omp.skill_list_json(cat)
    assert len(collections_) == 220
    assert not [s for s in cat.skills if s.root.endswith(".omp/skills")]  # repos are not skill folders
    assert statuses == {"listed": 1042, "shadowed": 248, "invalid": 215, "hidden": 3}
    assert len(out["skills"]) == 1045 and len(out["warnings"]) == 39
    assert c["omp-name-collision"] == 39 and c["omp-duplicate-file"] == 209 and c["omp-unreadable-skill"] == 213
    assert c["omp-nested-ignored"] == 1374 and c["omp-frontmatter-fallback"] == 29
    json.dumps(cat.to_json())
    assert omp.system_prompt(cat).count("\n- ") == 1042
    cat14 = omp.discover(Options(cwd=str(proj), home=str(home), runtime="omp", omp_rules="14"))
    assert len(omp.skill_list_json(cat14)["skills"]) == 1045
