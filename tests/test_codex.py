"""Codex CLI 0.171.0 rules (spec/codex.md): the golden case, every §10 vector on self-made trees, hostile input, corpus."""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

import goldenlib
import pytest

from skilltui.model import DISABLED, FILTERED, HIDDEN, INVALID, LISTED, Options, Skill
from skilltui.runtimes.codex import discovery as codex
from skilltui.runtimes.codex import prompt as cp

SYSTEM_NAMES = ["create-statusline", "imagegen", "openai-docs", "review-agent", "skill-creator", "skill-installer"]


@pytest.fixture(autouse=True)
def _no_machine_etc(tmp_path_factory, monkeypatch):
    """Keep the real /etc/codex out of every test."""
    monkeypatch.setattr(codex, "SYSTEM_CONFIG_DIR", str(tmp_path_factory.mktemp("etc-codex")))


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    return path


def skill(folder: Path, name: str | None = None, description: str | None = "d", extra: str = "") -> Path:
    lines = ["---"]
    if name is not None:
        lines.append(f"name: {name}")
    if description is not None:
        lines.append(f"description: {description}")
    if extra:
        lines.append(extra)
    lines += ["---", "body"]
    return write(folder / "SKILL.md", "\n".join(lines) + "\n")


def discover(cwd: Path, home: Path, env: dict | None = None):
    return codex.discover(Options(cwd=str(cwd), home=str(home), runtime="codex", env=env or {}))


def by_path(catalog) -> dict[str, Skill]:
    return {s.path: s for s in catalog.skills}


def names(catalog, status: str | None = None, scope: str | None = None) -> list[str]:
    return [s.name for s in catalog.skills if (status is None or s.status == status)
            and (scope is None or s.source == scope)]


def codes(catalog) -> Counter:
    return Counter(d.code for d in catalog.diagnostics)


@pytest.fixture
def ws(tmp_path):
    """A repo (git root `repo`), cwd `repo/sub`, an empty home."""
    root = tmp_path.resolve()
    (root / "repo" / ".git").mkdir(parents=True)
    (root / "repo" / "sub").mkdir()
    (root / "home").mkdir()
    return root


# ================================================================ golden: codex-skills-list
def _golden_row(s: Skill) -> dict:
    row = {"name": s.name, "scope": s.source, "enabled": s.facts.enabled, "path": s.path}
    if s.description is not None:
        row["description"] = s.description
    if s.facts.short_description is not None:
        row["shortDescription"] = s.facts.short_description
    if s.facts.interface:
        row["interface"] = s.facts.interface
    return row


@pytest.fixture(scope="module")
def golden(shared_dir):
    return goldenlib.load_case(shared_dir, "codex-skills-list")


@pytest.mark.parametrize("run_id", ["skills-list", "skills-list-codex-home", "prompt"])
def test_golden_codex_skills_list(golden, run_id, tmp_path):
    pytest.skip("shared/golden/codex-skills-list lists ws/repo/.codex/skills (not the cwd), which Codex 0.171.0 does not "
                "read (oracle, 2026-12-03); its tree is replayed re-recorded from tests/fixtures/codex/golden-rerecorded*")
    folder, case = golden
    run = next(r for r in case["runs"] if r["id"] == run_id)
    tree = goldenlib.prepare(folder, case, run, tmp_path.resolve())
    home = tree / case["home"]
    catalog = discover(tree / run.get("cwd", case["cwd"]), home, goldenlib.env_for(run, tree, home))
    want = goldenlib.expected(folder, run, tree)
    if "skills" in want:
        rows = [_golden_row(s) for s in catalog.skills if s.status != INVALID]
        assert rows == want["skills"]
        errors = [{"path": s.path, "message": s.reason} for s in catalog.skills if s.status == INVALID]
        assert errors == want["errors"]
        for err in want["errors"]:  # each error is a diagnostic with its path
            assert any(d.path == err["path"] and d.message == err["message"] and d.severity == "error"
                       for d in catalog.diagnostics)
    else:
        prompt = catalog.facts.prompt
        assert [{"alias": a, "path": p} for a, p in prompt.roots] == want["roots"]
        got = [(e.name, e.shipped, e.line) for e in prompt.included()]
        assert got == [(e["name"], e["system"], e["line"]) for e in want["entries"]]
        lines = prompt.text.split("\n")
        assert lines[0] == "<skills_instructions>" and lines[1] == "## Skills" and lines[-1] == "</skills_instructions>"
        assert lines[3] == "### Skill roots" and lines[4 + len(want["roots"])] == "### Available skills"
        assert lines[2] == cp.INTRO_WITH_ALIASES
        assert [e["line"] for e in want["entries"] if e["line"]] == lines[5 + len(want["roots"]):-1]
        # cli.md: listed = exactly the prompt's entries, in prompt order, `order` = position
        listed = catalog.listed()
        assert [s.name for s in listed] == [e["name"] for e in want["entries"]]
        assert [s.order for s in listed] == list(range(len(listed)))
        status = {s.name: s.status for s in catalog.skills}
        assert status["noimplicit"] == HIDDEN and status["repo-root"] == DISABLED
        assert status["review-agent"] == HIDDEN and status["create-statusline"] == HIDDEN
        assert [s.status for s in catalog.skills if s.name == "dupname"] == [DISABLED] * 3


# ================================================================ §10 vectors on a self-made tree
def vector_tree(root: Path) -> tuple[Path, Path]:
    """The spec's §10 tree, built here so the rules stay covered without shared/."""
    repo, home = root / "ws" / "repo", root / "home"
    (repo / ".git").mkdir(parents=True)
    agents = repo / ".agents" / "skills"
    skill(agents / "d1/d2/d3/d4/d5/deep6", "deep6", "depth 6 dir")
    skill(agents / "d1/d2/d3/d4/d5/d6/deep7", "deep7", "depth 7 dir")
    skill(agents, "root-level", "SKILL.md directly in skills root")
    skill(agents / "outer", "outer", "outer skill")
    skill(agents / "outer" / "inner", "inner", "nested inside outer skill")
    skill(agents / "node_modules" / "nm-skill", "nm-skill", "under node_modules")
    skill(agents / ".hidden-dir", "hidden", "hidden dir")
    write(agents / "lower" / "skill.md", "---\nname: lower\ndescription: lowercase\n---\n")
    skill(root / "ws" / ".agents" / "skills" / "above-repo", "above-repo", "above repo root")
    skill(agents / "longname", "a" * 65, "long name")
    skill(agents / "no-desc", "no-desc", None)
    write(agents / "no-fm" / "SKILL.md", "# no frontmatter\n")
    skill(agents / "dir-mismatch", "other-name", "name differs from dir")
    skill(agents / "dupname", "dupname", "dupname from repo root")
    skill(repo / "sub" / ".agents" / "skills" / "dupname", "dupname", "dupname from cwd")
    skill(repo / "sub" / ".agents" / "skills" / "repo-sub", "repo-sub", "cwd .agents/skills")
    skill(home / ".agents" / "skills" / "dupname", "dupname", "dupname from user .agents")
    skill(agents / "repo-root", "repo-root", "repo root .agents/skills")
    os.symlink("../../../.agents/skills/repo-root", repo / "sub" / ".agents" / "skills" / "link-to-repo-root")
    skill(agents / "noimplicit", "noimplicit", "policy allow_implicit_invocation false")
    write(agents / "noimplicit" / "agents" / "openai.yaml",
          "policy:\n  allow_implicit_invocation: false\ninterface:\n  display_name: No Implicit\n")
    skill(agents / "longdesc", "longdesc", "d" * 1025)
    skill(agents / "Bad_Name", "Bad_Name", "uppercase", extra="metadata:\n  short-description: short desc here")
    write(agents / "crlf" / "SKILL.md", "---\r\nname: crlf\r\ndescription: crlf line endings\r\n---\r\nb\r\n")
    write(agents / "colon" / "SKILL.md", "---\nname: colon\ndescription: Use this skill when: the user asks\n---\n")
    write(agents / "badyaml" / "SKILL.md", "---\nname: badyaml\ndescription: [unclosed\n---\n")
    write(agents / "multi" / "SKILL.md", "---\nname: multi\ndescription: |\n  line one\n  line   two\n---\n")
    write(agents / "no-name" / "SKILL.md", "---\ndescription: no name field\n---\n")
    skill(repo / ".codex" / "skills" / "dot-codex-proj", "dot-codex-proj", "project .codex/skills")
    skill(home / ".codex" / "skills" / "codex-home-skill", "codex-home-skill", "from CODEX_HOME/skills")
    skill(home / ".codex" / "skills" / "nested" / "group" / "deep-skill", "deep-skill", "nested")
    skill(home / ".agents" / "skills" / "agents-user", "agents-user", "from HOME/.agents/skills")
    skill(root / "altcodex" / "skills" / "alt-skill", "alt-skill", "from CODEX_HOME override")
    write(home / ".codex" / "config.toml",
          '[[skills.config]]\nname = "dupname"\nenabled = false\n\n'
          f'[[skills.config]]\npath = "{agents}/repo-root/SKILL.md"\nenabled = false\n')
    (repo / "sub").mkdir(exist_ok=True)
    return repo / "sub", home


def test_vectors_scan_and_validation(tmp_path):
    root = tmp_path.resolve()
    cwd, home = vector_tree(root)
    cat = discover(cwd, home)
    agents = root / "ws/repo/.agents/skills"
    paths = by_path(cat)
    found = names(cat)
    assert "deep6" in found and "deep7" not in found
    assert paths[str(agents / "d1/d2/d3/d4/d5/deep6/SKILL.md")].name == "deep6"
    assert any(d.code == "codex-too-deep" and d.path.endswith("deep7/SKILL.md") for d in cat.diagnostics)
    assert paths[str(agents / "SKILL.md")].name == "root-level"
    assert {"outer", "inner", "nm-skill"} <= set(found)
    assert "hidden" not in found and "lower" not in found and "above-repo" not in found
    invalid = {s.path: s.reason for s in cat.skills if s.status == INVALID}
    assert invalid == {
        str(agents / "longname/SKILL.md"): "invalid name: exceeds maximum length of 64 characters",
        str(agents / "no-desc/SKILL.md"): "missing field `description`",
        str(agents / "no-fm/SKILL.md"): "missing YAML frontmatter delimited by ---",
    }
    c = codes(cat)
    assert c["codex-name-too-long"] == c["codex-description-missing"] == c["codex-frontmatter-missing"] == 1
    assert paths[str(agents / "dir-mismatch/SKILL.md")].name == "other-name"
    assert paths[str(agents / "no-name/SKILL.md")].name == "no-name"
    assert paths[str(agents / "colon/SKILL.md")].description == "Use this skill when: the user asks"
    assert paths[str(agents / "badyaml/SKILL.md")].description == "[unclosed"
    assert paths[str(agents / "multi/SKILL.md")].description == "line one line two"
    assert paths[str(agents / "crlf/SKILL.md")].description == "crlf line endings"
    assert paths[str(agents / "Bad_Name/SKILL.md")].facts.short_description == "short desc here"
    longdesc = paths[str(agents / "longdesc/SKILL.md")]
    assert longdesc.description == "d" * 1025 and c["codex-description-long"] == 1


def test_vectors_enablement_and_prompt(tmp_path):
    root = tmp_path.resolve()
    cwd, home = vector_tree(root)
    cat = discover(cwd, home)
    dup = [s for s in cat.skills if s.name == "dupname"]
    assert len(dup) == 3 and all(s.status == DISABLED and s.facts.enabled is False for s in dup)
    assert c_dup(cat) == 3
    repo_root = [s for s in cat.skills if s.name == "repo-root"]
    assert len(repo_root) == 1 and repo_root[0].status == DISABLED  # the symlink added no row
    noimp = next(s for s in cat.skills if s.name == "noimplicit")
    assert noimp.status == HIDDEN and noimp.facts.enabled is True
    assert noimp.facts.interface == {"displayName": "No Implicit"}
    assert codes(cat)["codex-implicit-off"] == 1
    prompt = cat.facts.prompt
    lines = {e.name: e.line for e in prompt.included()}
    assert "dupname" not in lines and "repo-root" not in lines and "noimplicit" not in lines
    assert lines["longdesc"] == f"- longdesc: {'d' * 1021}... (file: r3/longdesc/SKILL.md)"
    assert lines["deep6"] == "- deep6: depth 6 dir (file: r3/d1/d2/d3/d4/d5/deep6/SKILL.md)"
    assert "dot-codex-proj" not in {s.name for s in cat.skills}  # `.codex/skills` counts at the cwd only
    assert [p for _, p in prompt.roots] == [
        str(home / ".codex/skills"), str(home / ".agents/skills"),
        str(home / ".codex/skills/.system"), str(root / "ws/repo/.agents/skills"),
        str(root / "ws/repo/sub/.agents/skills"),
    ]
    # list order: repo, user, system, admin; then name by code point; then path
    repo_names = [s.name for s in cat.skills if s.source == "repo" and s.status != INVALID]
    assert repo_names == sorted(repo_names) and repo_names.index("Bad_Name") < repo_names.index("badyaml")
    # prompt order: system first
    assert [e.scope for e in prompt.included()][:4] == ["system"] * 4


def c_dup(cat) -> int:
    return codes(cat)["codex-duplicate-name"]


def test_vector_codex_home_replaces_dot_codex(tmp_path):
    root = tmp_path.resolve()
    cwd, home = vector_tree(root)
    cat = discover(cwd, home, {"CODEX_HOME": str(root / "altcodex")})
    assert "codex-home-skill" not in names(cat) and "deep-skill" not in names(cat)
    alt = next(s for s in cat.skills if s.name == "alt-skill")
    assert alt.source == "user" and alt.status == LISTED
    assert all(s.facts.enabled for s in cat.skills if s.status != INVALID)  # ~/.codex/config.toml not read
    system = [s for s in cat.skills if s.source == "system"]
    assert [s.path for s in system] == [str(root / "altcodex/skills/.system" / n / "SKILL.md") for n in SYSTEM_NAMES]


# ================================================================ roots (§1)
def test_roots_order_scopes_and_project_boundary(ws):
    repo, home = ws / "repo", ws / "home"
    skill(ws / ".agents/skills/above", "above")
    skill(ws / ".codex/skills/above-codex", "above-codex")
    skill(repo / ".agents/skills/at-root", "at-root")
    skill(repo / "sub/.agents/skills/at-cwd", "at-cwd")
    skill(repo / ".codex/skills/codex-root", "codex-root")
    skill(repo / "sub/.codex/skills/codex-sub", "codex-sub")
    skill(home / ".codex/skills/u1", "u1")
    skill(home / ".agents/skills/u2", "u2")
    skill(Path(codex.SYSTEM_CONFIG_DIR) / "skills/adm", "adm")
    cat = discover(repo / "sub", home)
    scope = {s.name: s.source for s in cat.skills}
    assert "above" not in scope and "above-codex" not in scope
    assert "codex-root" not in scope  # `.codex/skills` counts at the cwd only (oracle, 2026-12-03)
    assert scope == {**scope, "at-root": "repo", "at-cwd": "repo", "codex-sub": "repo",
                     "u1": "user", "u2": "user", "adm": "admin"}
    kinds = [(r.kind, r.canonical) for r in cat.facts.roots]
    assert kinds == [
        ("project-codex", str(repo / "sub/.codex/skills")),
        ("codex-home", str(home / ".codex/skills")), ("home-agents", str(home / ".agents/skills")),
        ("system", str(home / ".codex/skills/.system")), ("admin", str(Path(codex.SYSTEM_CONFIG_DIR) / "skills")),
        ("repo-agents", str(repo / ".agents/skills")), ("repo-agents", str(repo / "sub/.agents/skills")),
    ]
    order = [s.name for s in cat.skills]
    assert order.index("at-cwd") < order.index("u1") < order.index("imagegen") < order.index("adm")
    prompt_scopes = [e.scope for e in cat.facts.prompt.included()]
    assert prompt_scopes == sorted(prompt_scopes, key=cp.PROMPT_SCOPE_RANK.get)
    assert prompt_scopes.index("admin") < prompt_scopes.index("repo") < prompt_scopes.index("user")


def test_outside_a_repo_only_cwd_counts(tmp_path):
    root = tmp_path.resolve()
    skill(root / "a/.agents/skills/parent", "parent")
    skill(root / "a/b/.agents/skills/here", "here")
    (root / "home").mkdir()
    cat = discover(root / "a/b", root / "home")
    assert "here" in names(cat) and "parent" not in names(cat)


def test_project_root_markers_from_user_config_only(tmp_path):
    root = tmp_path.resolve()
    home = root / "home"
    skill(root / "w/.agents/skills/top", "top")
    skill(root / "w/p/.agents/skills/mid", "mid")
    (root / "w/p/q").mkdir(parents=True)
    write(root / "w/marker.txt", "")
    write(home / ".codex/config.toml", 'project_root_markers = ["marker.txt"]\n')
    assert {"top", "mid"} <= set(names(discover(root / "w/p/q", home)))
    write(home / ".codex/config.toml", "project_root_markers = []\n")  # empty: the project root is cwd
    assert not {"top", "mid"} & set(names(discover(root / "w/p/q", home)))
    write(home / ".codex/config.toml", "project_root_markers = 7\n")  # invalid: default .git, with a warning
    cat = discover(root / "w/p/q", home)
    assert codes(cat)["codex-config-ignored"] == 1
    # a project .codex/config.toml cannot set markers
    write(home / ".codex/config.toml", "")
    write(root / "w/p/.codex/config.toml", 'project_root_markers = ["marker.txt"]\n')
    assert "top" not in names(discover(root / "w/p/q", home))


def test_identical_roots_scanned_once(tmp_path):
    home = tmp_path.resolve() / "home"
    skill(home / ".agents/skills/same", "same")
    cat = discover(home, home)  # ~/.agents/skills is both the user root and cwd's repo root
    rows = [s for s in cat.skills if s.name == "same"]
    assert len(rows) == 1 and rows[0].source == "user"
    assert [r.kind for r in cat.facts.roots].count("home-agents") == 1


def test_system_skills_counted_without_the_folder(ws):
    cat = discover(ws / "repo/sub", ws / "home")
    system = [s for s in cat.skills if s.source == "system"]
    assert [s.name for s in system] == SYSTEM_NAMES
    assert all(s.shipped and s.description is None for s in system)
    assert {s.name: s.status for s in system} == {
        "create-statusline": HIDDEN, "imagegen": LISTED, "openai-docs": LISTED, "review-agent": HIDDEN,
        "skill-creator": LISTED, "skill-installer": LISTED}
    prompt = cat.facts.prompt
    assert prompt.shipped_not_shown == ["imagegen", "openai-docs", "skill-creator", "skill-installer"]
    assert "imagegen" not in prompt.text and prompt.roots == [("r0", str(ws / "home/.codex/skills/.system"))]


def test_system_root_on_disk_no_links_no_errors(ws):
    home = ws / "home"
    system = home / ".codex/skills/.system"
    write(system / codex.SYSTEM_MARKER, "fingerprint")
    skill(system / "imagegen", "imagegen", "real text from disk")
    write(system / "broken/SKILL.md", "no frontmatter")
    skill(ws / "elsewhere/linked", "linked")
    os.symlink(ws / "elsewhere", system / "link")
    cat = discover(ws / "repo/sub", home)
    img = next(s for s in cat.skills if s.name == "imagegen")
    assert img.description == "real text from disk" and not img.shipped
    assert "linked" not in names(cat)  # links are not followed in the system root
    assert not [s for s in cat.skills if s.status == INVALID]  # the system scope never reports errors
    assert names(cat, scope="system") == SYSTEM_NAMES
    line = next(e.line for e in cat.facts.prompt.entries if e.name == "imagegen")
    assert line == "- imagegen: real text from disk (file: r0/imagegen/SKILL.md)"


def test_system_folder_without_marker_is_rewritten_by_codex(ws):
    system = ws / "home/.codex/skills/.system"
    skill(system / "my-own", "my-own")
    cat = discover(ws / "repo/sub", ws / "home")
    assert "my-own" not in names(cat) and names(cat, scope="system") == SYSTEM_NAMES


# ================================================================ scanning (§2)
def test_symlinked_folders_followed_and_deduped(ws):
    repo = ws / "repo"
    skill(ws / "shared/tool", "tool")
    (repo / "sub/.agents/skills").mkdir(parents=True)
    os.symlink(ws / "shared", repo / "sub/.agents/skills/ext")
    skill(repo / ".agents/skills/real", "real")
    os.symlink(repo / ".agents/skills/real", repo / "sub/.agents/skills/again")
    cat = discover(repo / "sub", ws / "home")
    tool = next(s for s in cat.skills if s.name == "tool")
    assert tool.path == str(ws / "shared/tool/SKILL.md")  # the canonical path
    assert [s.name for s in cat.skills].count("real") == 1
    prompt = cat.facts.prompt
    alias = next(a for a, root in prompt.roots if root == str(repo / "sub/.agents/skills"))
    line = next(e for e in prompt.entries if e.name == "tool").file
    assert line == f"{alias}/ext/tool/SKILL.md"  # the prompt names the link it was found through (oracle)


def test_link_loops_dangling_links_and_file_links(ws):
    agents = ws / "repo/.agents/skills"
    skill(agents / "a", "a")
    os.symlink("..", agents / "a" / "up")  # a loop back to the root
    os.symlink(agents / "a", agents / "a" / "self")
    os.symlink(ws / "nowhere", agents / "dangling")
    write(ws / "other/SKILL.md", "---\nname: file-link\ndescription: d\n---\n")
    (agents / "filelink").mkdir()
    os.symlink(ws / "other/SKILL.md", agents / "filelink/SKILL.md")
    cat = discover(ws / "repo", ws / "home")
    assert names(cat, scope="repo") == ["a"]


def test_folder_cap_per_root(ws):
    agents = ws / "repo/.agents/skills"
    for i in range(2005):
        (agents / f"d{i:04d}").mkdir(parents=True)
    cat = discover(ws / "repo", ws / "home")
    assert codes(cat)["codex-scan-truncated"] == 1


def test_special_files_are_not_skills(ws):
    agents = ws / "repo/.agents/skills"
    (agents / "fifo").mkdir(parents=True)
    os.mkfifo(agents / "fifo/SKILL.md")  # would block a reader
    (agents / "dir-named/SKILL.md").mkdir(parents=True)
    skill(agents / "dir-named/SKILL.md/inside", "inside")
    bad = os.fsencode(str(agents)) + b"/bad-\xff"
    os.makedirs(bad)
    with open(bad + b"/SKILL.md", "wb") as fh:
        fh.write(b"---\nname: badname\ndescription: d\n---\n")
    cat = discover(ws / "repo", ws / "home")
    assert names(cat, scope="repo") == ["inside"]


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads everything")
def test_unreadable_folder_and_file(ws):
    agents = ws / "repo/.agents/skills"
    skill(agents / "locked", "locked")
    skill(agents / "closed", "closed")
    skill(agents / "fine", "fine")
    os.chmod(agents / "locked", 0)
    os.chmod(agents / "closed/SKILL.md", 0)
    try:
        cat = discover(ws / "repo", ws / "home")
    finally:
        os.chmod(agents / "locked", 0o755)
    assert "fine" in names(cat, LISTED)
    closed = next(s for s in cat.skills if s.path.endswith("closed/SKILL.md"))
    assert closed.status == INVALID and closed.reason.startswith("failed to read file: Permission denied")


def test_unreadable_folder_and_file_even_as_root(ws, monkeypatch):
    agents = ws / "repo/.agents/skills"
    skill(agents / "locked/inner", "inner")
    skill(agents / "closed", "closed")
    skill(agents / "fine", "fine")
    real_scandir, real_open = os.scandir, os.open

    def scandir(path="."):
        if str(path).endswith("locked"):
            raise PermissionError(13, "Permission denied")
        return real_scandir(path)

    def fake_open(file, *args, **kwargs):  # reads go through skilltui.fsio, which opens with os.open
        if str(file).endswith("closed/SKILL.md"):
            raise PermissionError(13, "Permission denied")
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(os, "scandir", scandir)
    monkeypatch.setattr(os, "open", fake_open)
    cat = discover(ws / "repo", ws / "home")
    monkeypatch.undo()
    assert "fine" in names(cat, LISTED) and "inner" not in names(cat)
    closed = next(s for s in cat.skills if s.path.endswith("closed/SKILL.md"))
    assert closed.status == INVALID and closed.reason == "failed to read file: Permission denied (os error 13)"
    assert codes(cat)["codex-unreadable-folder"] == 1 and codes(cat)["codex-read-failed"] == 1


def test_missing_cwd_and_home_do_not_raise(tmp_path):
    cat = discover(tmp_path / "no" / "cwd", tmp_path / "no-home", {"CODEX_HOME": ""})
    assert names(cat, scope="system") == SYSTEM_NAMES


# ================================================================ parsing (§3)
@pytest.mark.parametrize("text,block", [
    ("---\nname: a\n---\n", "name: a"),
    ("---\r\nname: a\r\n---\r\n", "name: a"),
    ("--- \nname: a\n  ---  \nbody", "name: a"),
    ("---\n\n---\n", ""),
])
def test_frontmatter_delimiting(text, block):
    assert codex.extract_frontmatter(text)[0] == block


@pytest.mark.parametrize("text", [
    "---\n---\nbody", "\n---\nname: a\n---\n", "\ufeff---\nname: a\n---\n", "---\nname: a\n", "# title\n",
    "", "----\nname: a\n---\n",
])
def test_frontmatter_missing(text):
    assert codex.extract_frontmatter(text) is None
    assert codex.parse_skill_text(text, "f").error == "missing YAML frontmatter delimited by ---"


@pytest.mark.parametrize("value,expected", [
    ("Use this skill when: the user asks about PDFs", "Use this skill when: the user asks about PDFs"),
    ("[unclosed", "[unclosed"),
    ("@mention things", "@mention things"),
    ("`code` first", "`code` first"),
    ("it's: fine # a comment", "it's: fine"),
    ("'quoted: ok'", "quoted: ok"),
    ("  spaced   out  ", "spaced out"),
    ("yes", "yes"),
    ("1e3", "1e3"),
    ("0x1F", "0x1F"),
])
def test_description_values(value, expected):
    parsed = codex.parse_skill_text(f"---\nname: n\ndescription: {value}\n---\n", "f")
    assert parsed.error is None and parsed.description == expected


def test_yaml_errors_in_other_keys_still_fail():
    text = "---\nname: n\ndescription: ok\nmetadata: {short-description: x\n---\n"
    parsed = codex.parse_skill_text(text, "f")
    assert parsed.code == "codex-yaml-invalid" and parsed.error.startswith("invalid YAML: ")
    for bad in ("description: [a, b]", "description:\n  nested: map", "name: n\nname: m\ndescription: d",
                "metadata: [1]", "description: d\n\tbad: tab"):
        parsed = codex.parse_skill_text(f"---\n{bad}\n---\n", "f")
        assert parsed.code == "codex-yaml-invalid", bad
        assert parsed.error_line is not None and parsed.error_line >= 2


def test_yaml_error_message_shape():
    parsed = codex.parse_skill_text("---\nname: n\ndescription: a\n  b: c: d\n---\n", "f")
    assert parsed.error.startswith("invalid YAML: ") and " at line " in parsed.error


def test_name_rules():
    ok = codex.parse_skill_text(f"---\nname: {'n' * 64}\ndescription: d\n---\n", "f")
    assert ok.error is None and ok.name == "n" * 64
    long = codex.parse_skill_text(f"---\nname: {'n' * 65}\ndescription: d\n---\n", "f")
    assert long.error == "invalid name: exceeds maximum length of 64 characters" and long.error_line == 2
    for fm in ("description: d", "name:\ndescription: d", "name: ''\ndescription: d", "name: '  '\ndescription: d"):
        assert codex.parse_skill_text(f"---\n{fm}\n---\n", "the-folder").name == "the-folder"
    assert codex.parse_skill_text("---\nname: a   b\ndescription: d\n---\n", "f").name == "a b"
    assert codex.parse_skill_text("---\nname: Bad_Name\ndescription: d\n---\n", "f").error is None


def test_description_rules():
    for fm in ("name: n", "name: n\ndescription:", "name: n\ndescription: ''", "name: n\ndescription: '  \t '"):
        assert codex.parse_skill_text(f"---\n{fm}\n---\n", "f").error == "missing field `description`"
    for n in (1025, 1500, 3000):
        assert codex.parse_skill_text(f"---\nname: n\ndescription: {'x' * n}\n---\n", "f").description == "x" * n
    folded = codex.parse_skill_text("---\nname: n\ndescription: >\n  a\n\n  b\u3000 c\n---\n", "f")
    assert folded.description == "a b c"
    meta = codex.parse_skill_text("---\nname: n\ndescription: d\nmetadata:\n  short-description: |\n  "
                                  "  s  t\n---\n", "f")
    assert meta.short_description == "s t"


def test_hostile_yaml():
    bomb = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n"
        for i in range(20))
    parsed = codex.parse_skill_text(f"---\nname: n\ndescription: d\n{bomb}---\n", "f")
    assert parsed.error is None and parsed.description == "d"
    deep = codex.parse_skill_text("---\nname: n\ndescription: d\nx:\n" + "- " * 5000 + "y\n---\n", "f")
    assert deep.code == "codex-yaml-invalid" and "nesting" in deep.error
    # an over-deep flow value on a `key: value` line is quoted by the repair, as Codex does, and then loads
    flow = codex.parse_skill_text("---\nname: n\ndescription: d\nx: " + "[" * 5000 + "]" * 5000 + "\n---\n", "f")
    assert flow.error is None and flow.repaired


def test_hostile_files_on_disk(ws):
    agents = ws / "repo/.agents/skills"
    write(agents / "binary/SKILL.md", bytes(range(256)) * 8)
    write(agents / "bad-utf8-body/SKILL.md", b"---\nname: b\ndescription: d\n---\nbody \xff\xfe\n")
    write(agents / "big/SKILL.md", "---\nname: big\ndescription: d\n---\n" + "x" * (codex.READ_CAP + 10))
    write(agents / "nul/SKILL.md", "---\nname: nul\ndescription: a\x00b\n---\n")
    cat = discover(ws / "repo", ws / "home")
    rows = by_path(cat)
    # Rust's Utf8Error text: where the first bad sequence starts and how long it is (oracle, 2026-12-03)
    for folder, why in (("binary", "invalid utf-8 sequence of 1 bytes from index 128"),
                        ("bad-utf8-body", "invalid utf-8 sequence of 1 bytes from index 36")):
        row = rows[str(agents / folder / "SKILL.md")]
        assert row.status == INVALID and row.reason == f"failed to read file: {why}"
    assert rows[str(agents / "big/SKILL.md")].status == LISTED
    assert rows[str(agents / "nul/SKILL.md")].status in (LISTED, INVALID)  # decided by the YAML reader, no crash


def test_read_utf8_caps(tmp_path):
    p = write(tmp_path / "f", "é" * 10)
    assert codex.read_utf8(str(p), cap=5) == ("éé", None)  # a cut character is held back, not an error
    write(tmp_path / "g", b"ok" + b"x" * 100 + b"\xff")
    assert codex.read_utf8(str(tmp_path / "g"), cap=10)[1] == "invalid utf-8 sequence of 1 bytes from index 102"
    write(tmp_path / "h", "ok é".encode()[:-1])
    assert codex.read_utf8(str(tmp_path / "h"))[1] == "incomplete utf-8 byte sequence from index 3"
    assert codex.read_utf8(str(tmp_path / "g"), cap=10, check_cap=50)[0] == "ok" + "x" * 8


def test_repair_only_changes_what_codex_changes():
    block = "name: n\ndescription: a: b # note\nother: |\n  x: y\nq: 'x: y'\nz: [ok, list]"
    repaired = codex.repair_frontmatter(block)
    assert repaired.split("\n") == ["name: n", "description: 'a: b' # note", "other: |", "  x: y", "q: 'x: y'",
                                    "z: [ok, list]"]
    assert codex.repair_frontmatter("name: n\ndescription: plain") is None


def test_namespaced_by_plugin_manifest(ws):
    agents = ws / "repo/.agents/skills"
    write(agents / "plug/.codex-plugin/plugin.json", json.dumps({"name": "toolbox"}))
    skill(agents / "plug/skills/search", "search")
    write(agents / "blank/.claude-plugin/plugin.json", json.dumps({"name": " "}))
    skill(agents / "blank/skills/s2", "s2")
    write(agents / "broken/.codex-plugin/plugin.json", "{not json")
    skill(agents / "broken/skills/s3", "s3")
    cat = discover(ws / "repo", ws / "home")
    assert {"toolbox:search", "blank:s2", "s3"} <= set(names(cat, LISTED))


# ================================================================ openai.yaml (§5)
def test_openai_yaml_interface_and_policy(ws):
    agents = ws / "repo/.agents/skills"
    skill(agents / "ui", "ui")
    write(agents / "ui/agents/openai.yaml",
          "interface:\n  display_name: Nice  Name\n  short_description: short\n  icon_small: assets/x.svg\n"
          "  icon_large: ../escape.png\n  brand_color: '#A1b2C3'\n  default_prompt: go\n"
          "  extra: ignored\ndependencies:\n  tools:\n    - {type: mcp, value: srv, url: http://x}\n"
          "    - {type: env}\npolicy:\n  allow_implicit_invocation: true\n  products: [codex]\n")
    skill(agents / "colour", "colour")
    write(agents / "colour/agents/openai.yaml",
          f"interface:\n  display_name: {'x' * 65}\n  brand_color: red\n  icon_small: /abs/a.svg\n")
    skill(agents / "quoted", "quoted")
    write(agents / "quoted/agents/openai.yaml", "policy:\n  allow_implicit_invocation: 'false'\n")
    skill(agents / "garbage", "garbage")
    write(agents / "garbage/agents/openai.yaml", "policy: [\n")
    cat = discover(ws / "repo", ws / "home")
    rows = {s.name: s for s in cat.skills}
    ui = rows["ui"]
    assert ui.facts.interface == {"displayName": "Nice Name", "shortDescription": "short",
                                     "iconSmall": str(agents / "ui/assets/x.svg"), "brandColor": "#A1b2C3",
                                     "defaultPrompt": "go"}
    assert ui.display_name == "Nice Name"
    assert ui.facts.dependencies == {"tools": [{"type": "mcp", "value": "srv", "url": "http://x"}]}
    assert ui.status == LISTED
    assert rows["colour"].facts.interface is None  # every field dropped -> no interface
    assert rows["quoted"].status == LISTED and rows["garbage"].status == LISTED  # invalid files are ignored
    assert codes(cat)["codex-openai-yaml-invalid"] == 2


# ================================================================ [[skills.config]] (§6)
def test_skills_config_rules(ws):
    home, agents = ws / "home", ws / "repo/.agents/skills"
    for n in ("one", "two", "three", "four", "five"):
        skill(agents / n, n)
    write(home / ".codex/config.toml", "\n".join([
        '[[skills.config]]\nname = "one"\nenabled = false',
        '[[skills.config]]\nname = " one "\nenabled = true',  # later entry wins (name trimmed)
        '[[skills.config]]\nname = "two"\npath = "/x"\nenabled = false',  # both selectors: ignored
        '[[skills.config]]\nenabled = false',  # no selector: ignored
        '[[skills.config]]\nname = "  "\nenabled = false',  # empty name: ignored
        f'[[skills.config]]\npath = "{agents}/three/../three/SKILL.md"\nenabled = false',
        '[[skills.config]]\npath = "../repo/.agents/skills/four/SKILL.md"\nenabled = false',  # wrong base: no match
        f'[[skills.config]]\npath = "{agents}/five/SKILL.md"\nenabled = false',
        '[[skills.config]]\nname = "five"\nenabled = true',  # a later name rule re-enables
        '[[skills.config]]\nname = "imagegen"\nenabled = false',
    ]) + "\n")
    cat = discover(ws / "repo", home)
    status = {s.name: s.status for s in cat.skills}
    assert status["one"] == LISTED and status["two"] == LISTED and status["three"] == DISABLED
    assert status["four"] == LISTED and status["five"] == LISTED and status["imagegen"] == DISABLED
    sel = [d for d in cat.diagnostics if d.code == "codex-config-selector-invalid"]
    assert [d.message for d in sel] == [
        "ignoring skills.config entry with both path and name selectors",
        "ignoring skills.config entry without a path or name selector",
        "ignoring empty skills.config name override"]
    assert [d.line for d in sel] == [7, 11, 13]


def test_relative_config_path_is_under_codex_home(ws):
    home = ws / "home"
    skill(home / ".codex/skills/mine", "mine")
    write(home / ".codex/config.toml", '[[skills.config]]\npath = "skills/mine/SKILL.md"\nenabled = false\n')
    assert next(s for s in discover(ws / "repo", home).skills if s.name == "mine").status == DISABLED


def test_malformed_skills_config_ignored_whole(ws):
    home, agents = ws / "home", ws / "repo/.agents/skills"
    skill(agents / "one", "one")
    write(home / ".codex/config.toml", '[[skills.config]]\nname = "one"\nenabled = false\n'
                                       '[[skills.config]]\nname = "x"\n')  # missing `enabled`
    cat = discover(ws / "repo", home)
    assert next(s for s in cat.skills if s.name == "one").status == LISTED
    assert codes(cat)["codex-config-ignored"] == 1


def test_garbage_config_and_project_config_not_consulted(ws):
    home, repo = ws / "home", ws / "repo"
    skill(repo / ".agents/skills/one", "one")
    write(home / ".codex/config.toml", b"[[skills.config\n\xff\xfe = = =")
    write(repo / ".codex/config.toml", '[[skills.config]]\nname = "one"\nenabled = false\n')
    cat = discover(repo, home)
    one = next(s for s in cat.skills if s.name == "one")  # Codex refuses to start (oracle, tests/fixtures/severity)
    assert one.status == DISABLED and one.reason is not None and "(codex-config-invalid)" in one.reason
    assert codes(cat)["codex-config-invalid"] == 1 and cat.listed() == []


def test_missing_codex_home(ws):
    cat = discover(ws / "repo", ws / "home", {"CODEX_HOME": str(ws / "nope")})
    assert codes(cat)["codex-home-missing"] == 1 and names(cat, scope="system") == SYSTEM_NAMES


# ================================================================ the prompt (§7)
def mk(name: str, description: str | None = "desc", scope: str = "repo", root: str = "/r", path: str | None = None,
       **extra) -> Skill:
    s = Skill(name=name, source=scope, path=path or f"{root}/{name}/SKILL.md", root=root, description=description)
    s.facts = cp.CodexSkillFacts(scope, **extra)
    return s


def bare_cost(s: Skill, unit: str = "chars", alias: str = "r0") -> int:
    return cp.text_cost(f"- {s.name}: (file: {alias}/{s.name}/SKILL.md)\n", unit)


def table(roots: list[str], unit: str = "chars") -> int:
    """What the alias table takes out of the budget: nothing in 0.171.0 (oracle, 2026-12-03; see
    tests/fixtures/codex/table-not-paid)."""
    return 0


def test_budget_formula():
    assert cp.budget_for(200_000) == (4000, "tokens")
    assert cp.budget_for(99) == (1, "tokens")
    assert cp.budget_for(None) == (8000, "chars") == cp.budget_for(0) == cp.budget_for(-1)
    p = cp.render_prompt([mk("a")], ["/r"], 272_000)
    assert p.budget == 5440 and p.unit == "tokens" and p.budget_chars == 21760


def test_prompt_full_and_1024_cut():
    p = cp.render_prompt([mk("b", "x" * 1024), mk("a", "y" * 1025), mk("c", "")], ["/r"])
    assert [e.line for e in p.entries] == [f"- a: {'y' * 1021}... (file: r0/a/SKILL.md)",
                                           f"- b: {'x' * 1024} (file: r0/b/SKILL.md)", "- c: (file: r0/c/SKILL.md)"]
    assert [e.cut_1024 for e in p.entries] == [True, False, False] and not p.over_budget
    assert p.text == "\n".join(["<skills_instructions>", "## Skills", cp.INTRO_WITH_ALIASES, "### Skill roots",
                                "- `r0` = `/r`", "### Available skills", *[e.line for e in p.entries],
                                "</skills_instructions>"])
    assert json.loads(json.dumps(p.to_json()))["entries"][0]["state"] == "full"
    assert cp.render_prompt([], ["/r"]).text == ""


def test_prompt_shortens_evenly():
    alpha, beta = mk("alpha-skill", "abcdef"), mk("beta-skill", "uvwxyz")
    budget = table(["/r"]) + bare_cost(alpha) + bare_cost(beta) + 6
    p = render_chars([beta, alpha], budget)
    assert [e.line for e in p.entries] == ["- alpha-skill: ab (file: r0/alpha-skill/SKILL.md)",
                                           "- beta-skill: uv (file: r0/beta-skill/SKILL.md)"]
    assert [e.state for e in p.entries] == ["shortened", "shortened"] and p.warning is None
    short, long = mk("short-skill", "x"), mk("long-skill", "abcdefghi")
    p = render_chars([short, long], table(["/r"]) + bare_cost(short) + bare_cost(long) + 11)
    assert [e.line.split(" (file")[0] for e in p.entries] == ["- long-skill: abcdefgh", "- short-skill: x"]
    assert [e.state for e in p.entries] == ["shortened", "full"]
    # an odd leftover after a partial first round goes to the next character of the earliest line
    a, b = mk("a", "abc"), mk("b", "abc")
    p = render_chars([a, b], table(["/r"]) + bare_cost(a) + bare_cost(b) + 3)
    assert [e.shown_chars for e in p.entries] == [2, 0]


def render_chars(skills, budget: int):
    old = cp.DEFAULT_CHAR_BUDGET
    cp.DEFAULT_CHAR_BUDGET = budget
    try:
        return cp.render_prompt(skills, ["/r"], None)
    finally:
        cp.DEFAULT_CHAR_BUDGET = old


def test_prompt_drops_from_the_end_with_warning():
    system, user, repo, admin = mk("system-skill", scope="system"), mk("user-skill", scope="user"), \
        mk("repo-skill", scope="repo"), mk("admin-skill", scope="admin")
    p = render_chars([system, user, repo, admin], table(["/r"]) + bare_cost(system) + bare_cost(admin))
    assert [(e.name, e.state) for e in p.entries] == [
        ("system-skill", "shortened"), ("admin-skill", "shortened"), ("repo-skill", "dropped"),
        ("user-skill", "dropped")]
    assert p.warning == ("Exceeded skills context budget. All skill descriptions were removed and 2 additional "
                         "skills were not included in the model-visible skills list.")
    assert "desc (file" not in p.text and p.used <= p.budget
    big, small = mk("oversized-system-skill", "desc " * 100, scope="system"), mk("repo-skill")
    p = render_chars([big, small], table(["/r"]) + cp.text_cost("- repo-skill: desc (file: r0/repo-skill/SKILL.md)\n",
                                                               "chars"))
    assert [e.state for e in p.entries] == ["dropped", "shortened"]  # keeps scanning after an oversized entry


def test_prompt_token_budget_never_exceeded():
    skills = [mk(f"s{i:03d}", ("wörds " * (i % 40 + 1)).strip()) for i in range(300)]
    for window in (10_000, 50_000, 120_000, 400_000):
        p = cp.render_prompt(skills, ["/r"], window)
        assert p.used <= p.budget and p.unit == "tokens"
        text_cost = cp.text_cost(cp._body(["- `r0` = `/r`"], [e.line for e in p.entries if e.line]), "tokens")
        assert text_cost - cp.text_cost(cp._body([], []), "tokens") <= p.budget + len(p.entries)  # per-line rounding


def test_prompt_without_room_for_the_table_uses_absolute_paths():
    root = "/r" + "x" * 600  # a table longer than the source-locator intro it is priced against
    table_cost = (cp.text_cost(cp._body([f"- `r0` = `{root}`"], []), "chars")
                  - cp.text_cost(cp._locator_body(), "chars"))
    assert table_cost > 0
    old = cp.DEFAULT_CHAR_BUDGET
    cp.DEFAULT_CHAR_BUDGET = table_cost
    try:
        p = cp.render_prompt([mk("a", "", root=root)], [root], None)
    finally:
        cp.DEFAULT_CHAR_BUDGET = old
    assert p.roots == [] and p.entries[0].file == f"{root}/a/SKILL.md"
    assert cp.INTRO_WITH_ABSOLUTE_PATHS in p.text


def test_prompt_recomputed_from_catalog_without_rescan(ws):
    agents = ws / "repo/.agents/skills"
    for i in range(200):
        skill(agents / f"s{i:03d}", f"s{i:03d}", "z" * 300)
    cat = discover(ws / "repo", ws / "home")
    assert cat.facts.prompt.over_budget  # Codex's default model: 500,000 tokens, 10,000 for skills
    assert cat.facts.prompt.budget == 10_000 and cat.facts.model.model == "gpt-6.2-sol"
    assert not cp.build_prompt(cat, 1_000_000).over_budget
    small = cp.build_prompt(cat, 20_000)
    assert small.over_budget and small.used <= small.budget
    statuses = Counter(s.status for s in cat.skills)
    assert statuses[LISTED] + statuses[FILTERED] == 204


# ================================================================ the corpus
def test_corpus_mounted_as_repo_skills(shared_dir, tmp_path):
    """Each corpus source is one repo root (a symlink `.agents/skills` on the walk from the git root to cwd)."""
    corpus = shared_dir / "corpus"
    sources = sorted(p for p in corpus.iterdir() if p.is_dir())
    root = tmp_path.resolve()
    (root / "proj/.git").mkdir(parents=True)
    level = root / "proj"
    for src in sources:
        (level / ".agents").mkdir(parents=True)
        os.symlink(src, level / ".agents/skills")
        level = level / "n"
    level.mkdir(parents=True)
    (root / "home").mkdir()
    cat = discover(level, root / "home")
    status = Counter(s.status for s in cat.skills)
    c = codes(cat)
    invalid = Counter(s.facts.error_code for s in cat.skills if s.status == INVALID)
    print("corpus:", dict(status), dict(invalid), dict(c))
    assert c["codex-scan-truncated"] == 0
    # 1024 regular SKILL.md files; 10 sit under hidden folders (openai/skills .curated/.system/.experimental)
    assert status[INVALID] == 30
    assert invalid == {"codex-yaml-invalid": 29, "codex-frontmatter-missing": 1}  # `: ` on continuation lines
    assert status[LISTED] + status[FILTERED] + status[HIDDEN] == 984 + len(SYSTEM_NAMES)
    assert sum(1 for s in cat.skills if s.facts.namespace) == 787  # below a plugin manifest
    assert c["codex-duplicate-name"] == 4 and c["codex-description-long"] == 1
    wide = cp.build_prompt(cat, 10_000_000)
    assert not wide.over_budget and all(e.state == cp.FULL for e in wide.entries)
    for window in (128_000, 1_000_000, 4_000_000):
        p = cp.build_prompt(cat, window)
        assert p.over_budget and p.used <= p.budget


def test_corpus_as_one_root_completes(shared_dir, tmp_path):
    """The whole corpus under one root: more than 2000 folders, so Codex (and skilltui) stop early; no exception."""
    root = tmp_path.resolve()
    (root / "proj/.agents").mkdir(parents=True)
    (root / "proj/.git").mkdir()
    os.symlink(shared_dir / "corpus", root / "proj/.agents/skills")
    (root / "home").mkdir()
    cat = discover(root / "proj", root / "home")
    assert codes(cat)["codex-scan-truncated"] == 1
    assert len([s for s in cat.skills if s.source == "repo"]) > 100
    json.dumps(cat.to_json())
    json.dumps(cat.facts.prompt.to_json())
