"""Severity that means something (issue #13): one table of codes (skilltui/findings.py) decides every finding's
severity; every code the engine can emit is in it; every skill the runtime does not offer (status `invalid`) has an
`error` naming its file, in the doctor's own output, for every runtime, on the demo and on recorded fixture trees."""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import sys
from pathlib import Path

import fixturelib
import pytest

from skilltui import cli, doctor, findings
from skilltui.checks import conformance
from skilltui.demo import demo_options
from skilltui.model import FILTERED, INVALID, SEVERITIES, Diagnostic, Options
from skilltui.runtimes import REGISTRY, get

PACKAGE = Path(__file__).resolve().parent.parent / "skilltui"
# What a finding code looks like: the prefix of the runtime or check that emits it, then kebab-case words.
CODE_SHAPE = re.compile(r"(?:claude|codex|omp|gemini|plugin|spec|agy|skill|delivery|doctor|settings|file|invisible)"
                        r"-[a-z0-9]+(?:-[a-z0-9]+)*")
# Strings of that shape that are not finding codes: model ids, source and provider names, Gemini's frontmatter problem
# keys (quoted inside gemini-invalid-frontmatter's message), bundled skill names, skill:// error kinds, widget ids.
NOT_CODES = re.compile(r"claude-(?:\d|opus|sonnet|haiku)[a-z0-9.-]*|gemini-\d[\d.]*|codex-auto-review|claude-plugins"
                       r"|claude-api|codex-home|omp-managed|omp-plugins|plugin-command|plugin-authoring|plugin-detail"
                       r"|plugin-escape|skill-creator|skill-installer|gemini-(?:frontmatter|name|description)-missing"
                       r"|[a-z]+-80x24|doctor-summary|file-(?:title|scroll|code)")


def _engine_files() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def _literals(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [(n.lineno, n.value) for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)]


def test_every_code_literal_in_the_code_is_in_the_table():
    """Any string of a code's shape anywhere in skilltui/ is a code of the table, or one of the few known non-codes:
    a new code cannot be emitted without a severity and a line saying what the runtime does."""
    unknown = []
    for path in _engine_files():
        for line, value in _literals(path):
            if CODE_SHAPE.fullmatch(value) and value not in findings.CODES and not NOT_CODES.fullmatch(value):
                unknown.append(f"{path.relative_to(PACKAGE.parent)}:{line} {value}")
    assert unknown == []


def test_each_call_site_says_the_severity_the_table_gives():
    """The severity word written at a call site (`Diagnostic("error", "claude-…", …)`) is the table's: the table
    decides anyway, and the code must not read otherwise."""
    wrong = []
    for path in _engine_files():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            words = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
            severity = next((w for w in words if w in SEVERITIES), None)
            code = next((w for w in words if w in findings.CODES), None)
            if severity and code and findings.CODES[code].severity != severity:
                wrong.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno} {code} says {severity}")
    assert wrong == []


def test_the_table_decides_a_findings_severity():
    for code, entry in findings.CODES.items():
        assert entry.severity in SEVERITIES and entry.does.strip(), code
        for said in SEVERITIES:
            assert Diagnostic(said, code, None, "m").severity == entry.severity
    # the conformance lens's own table is a view of this one
    assert {c: e.severity for c, e in findings.CODES.items() if c.startswith("spec-")} == conformance.CODES
    assert Diagnostic("warning", "not-in-the-table-yet", None, "m").severity == "warning"


def test_not_offered_means_error():
    """The classification the issue asks for, on the codes it names: each is a skill or plugin the runtime does not
    load or offer."""
    for code in ("claude-name-invalid", "claude-skill-too-large", "claude-unreadable", "claude-dir-unreadable",
                 "claude-link-broken", "claude-skill-md-lowercase", "claude-nested-skill-ignored",
                 "claude-plugin-item-unlisted", "codex-too-deep", "codex-unreadable-folder", "codex-scan-truncated",
                 "gemini-too-deep", "gemini-extension-skipped", "omp-unreadable-skill", "omp-description-missing",
                 "omp-dangling-link", "omp-read-failed"):
        assert findings.CODES[code].severity == "error", code
    for code in ("claude-frontmatter-retried", "claude-description-capped", "codex-description-long",
                 "omp-frontmatter-fallback", "gemini-yaml-fallback"):
        assert findings.CODES[code].severity == "warning", code  # loads, but drifts
    for code in ("claude-conditional", "claude-shadowed", "omp-skill-disabled", "gemini-disabled"):
        assert findings.CODES[code].severity == "info", code  # what someone chose


def _check(diags: list[Diagnostic], skills_by_runtime: dict[str, list], where: str) -> None:
    for d in diags:
        assert d.code in findings.CODES, f"{where}: {d.code} is not in skilltui/findings.py"
        assert d.severity == findings.CODES[d.code].severity, (where, d.code)
    errors = {(d.runtime, os.path.realpath(d.path)) for d in diags if d.severity == "error" and d.path}
    for runtime, skills in skills_by_runtime.items():
        for s in skills:
            # not offered: invalid everywhere; and a Claude Code plugin skill left out of the listing (no description)
            unlisted_skill = runtime == "claude" and s.status == FILTERED and s.source == "plugin"
            if (s.status == INVALID or unlisted_skill) and s.path:
                assert (runtime, os.path.realpath(s.path)) in errors, \
                    f"{where}: {runtime} does not offer {s.path} ({s.reason}) but no error names it"


def _doctor(opts: Options, runtimes: tuple[str, ...]) -> tuple[list[Diagnostic], dict[str, list]]:
    from skilltui.runtimes import discover

    skills = {}
    for r in runtimes:
        o = Options(**{**vars(opts), "runtime": r})
        skills[r] = discover(o).skills
    return doctor.run(opts, runtimes), skills


def test_demo_not_offered_rows_have_errors(tmp_path, monkeypatch):
    monkeypatch.setenv("SKILLTUI_DEMO_DIR", str(tmp_path / "demo"))
    opts = demo_options("claude", dict(os.environ), reset=True)
    diags, skills = _doctor(opts, tuple(REGISTRY))
    assert any(s.status == INVALID for s in skills["claude"])  # the demo's 'release  notes'
    _check(diags, skills, "demo")
    named = [d for d in diags if d.code == "claude-name-invalid"]
    assert [d.severity for d in named] == ["error"] and named[0].path.endswith("release  notes/SKILL.md")


def test_demo_doctor_strict_exits_1_on_its_error(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SKILLTUI_DEMO_DIR", str(tmp_path / "demo"))
    demo_options("claude", dict(os.environ), reset=True)
    assert cli.main(["--demo", "doctor", "--strict", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert {d["code"] for d in data["diagnostics"] if d["severity"] == "error"} == {"claude-name-invalid"}
    home_skills = Path(tmp_path / "demo")  # fix the one error the demo has: --strict passes
    folder = next(home_skills.rglob("release  notes"))
    folder.rename(folder.with_name("release-notes"))
    assert cli.main(["--demo", "doctor", "--strict"]) == 0
    assert cli.main(["--demo", "doctor"]) == 0
    capsys.readouterr()


CASES = fixturelib.cases()


@pytest.mark.parametrize("case_dir", CASES, ids=[f"{c.parent.name}/{c.name}" for c in CASES])
def test_recorded_trees_not_offered_rows_have_errors(case_dir, tmp_path, monkeypatch):
    from skilltui.runtimes.codex import discovery as codex

    monkeypatch.setattr(codex, "SYSTEM_CONFIG_DIR", str(tmp_path / "no-etc-codex"))
    tree, _ = fixturelib.load(case_dir)
    root = fixturelib.materialise(tree, tmp_path)
    runtime = "claude" if tree.runtime.startswith("claude") else tree.runtime
    if runtime == "claude":
        opts = fixturelib._claude_options(tree, root)
    else:
        opts = Options(cwd=str(root / tree.cwd), home=str(root / tree.home), runtime=runtime,
                       env=fixturelib._env(tree, root))
    diags, skills = _doctor(opts, (runtime,))
    _check(diags, skills, case_dir.name)


def _claude_kit():
    import importlib.util

    spec = importlib.util.spec_from_file_location("claude_fixture", Path(__file__).parent / "fixtures/claude/fixture.py")
    assert spec is not None and spec.loader is not None
    kit = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(kit)
    return kit


CLAUDE_KIT = _claude_kit()
CLAUDE_CASES = CLAUDE_KIT.cases()


@pytest.mark.parametrize("case", CLAUDE_CASES, ids=[c.name for c in CLAUDE_CASES])
def test_recorded_claude_trees_not_offered_rows_have_errors(case, tmp_path):
    data = CLAUDE_KIT.load(case)
    run = data["runs"][0]
    root = CLAUDE_KIT.build(data, tmp_path / "t")
    home = root / data.get("home", "home")
    opts = Options(cwd=str(root / data.get("cwd", "repo")), home=str(home), runtime="claude",
                   managed_dir=str(root / data.get("managed_dir", "no-managed-dir")),
                   add_dirs=[str(root / d) for d in run.get("add_dirs", [])],
                   env={"HOME": str(home), **CLAUDE_KIT.run_env(run, root)})
    diags, skills = _doctor(opts, ("claude",))
    _check(diags, skills, case.name)


GEMINI = Path(__file__).parent / "fixtures" / "gemini"
GEMINI_CASES = sorted(p.name for p in GEMINI.iterdir() if (p / "expected.json").is_file()
                      and not p.name.startswith("toggle-"))


@pytest.mark.parametrize("name", GEMINI_CASES)
def test_recorded_gemini_trees_not_offered_rows_have_errors(name, tmp_path):
    sys.path.insert(0, str(Path(__file__).parent))
    from test_gemini import materialize, options

    tree, meta, _ = materialize(name, tmp_path)
    opts = options(tree, meta)
    diags, skills = _doctor(opts, ("gemini",))
    _check(diags, skills, name)


def test_an_invalid_row_of_each_runtime_is_checked(tmp_path):
    """The checks above are not vacuous: a tree where each runtime meets a skill it does not offer."""
    home, cwd = tmp_path / "home", tmp_path / "repo"
    (cwd / ".git").mkdir(parents=True)
    bad = "---\nname: bad\n---\nno description\n"
    for folder in (home / ".claude/skills/bad  name", home / ".codex/skills/bad", home / ".omp/agent/skills/bad",
                   home / ".gemini/skills/bad"):
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text("---\n---\n" if "gemini" in str(folder) else bad)
    (home / ".claude/skills/bad  name/SKILL.md").write_text("---\ndescription: d\n---\nx\n")
    opts = Options(cwd=str(cwd), home=str(home), managed_dir=str(tmp_path / "managed"), env={"HOME": str(home)})
    runtimes = ("claude", "codex", "omp", "gemini")
    diags, skills = _doctor(opts, runtimes)
    for r in runtimes:
        assert any(s.status == INVALID for s in skills[r]), r
    _check(diags, skills, "invalid-per-runtime")
    shutil.rmtree(home)


RECORDED = Path(__file__).parent / "fixtures" / "severity"
RECORDED_CASES = sorted(p.parent.name for p in RECORDED.glob("*/recorded.json"))


def _emptied(catalog):
    """The same catalog with no skill found: the prompt a runtime sends when it lists nothing."""
    import copy

    empty = copy.copy(catalog)
    empty.skills = []
    return empty


@pytest.mark.parametrize("name", RECORDED_CASES)
def test_severity_follows_what_the_recorded_runtime_did(name, tmp_path, monkeypatch):
    """Trees recorded from the real runtime (tests/fixtures/severity/record.py): where it exits and offers nothing,
    the doctor has an error and nothing is listed; where it starts and lists the skill, a warning at most, and the
    same skills are listed."""
    from skilltui.runtimes import discover
    from skilltui.runtimes.codex import discovery as codex

    monkeypatch.setattr(codex, "SYSTEM_CONFIG_DIR", str(tmp_path / "no-etc-codex"))
    case = RECORDED / name
    rec = json.loads((case / "recorded.json").read_text())
    tree = tmp_path / "tree"
    shutil.copytree(case / "tree", tree, symlinks=True)
    env = {k: v.replace("$TREE", str(tree)) for k, v in rec["env"].items()}
    opts = Options(cwd=str(tree / "repo"), home=str(tree / "home"), runtime=rec["runtime"],
                   env={"HOME": str(tree / "home"), **env})
    catalog = discover(opts)
    diags = [d for d in doctor.run(opts, (rec["runtime"],)) if d.runtime == rec["runtime"]]
    errors = [d.code for d in diags if d.severity == "error"]
    meant = rec.get("not_offered", [])  # written by hand: meant as skills; the recording shows they are not listed
    if rec["exit"]:
        assert errors, (name, rec["error"], [d.code for d in diags])
        assert catalog.listed() == [] and catalog.facts.refused, (name, [s.name for s in catalog.listed()])
        assert any(findings.stops(code) for code in errors), name
        assert get(rec["runtime"]).prompt(catalog).text == get(rec["runtime"]).prompt(_emptied(catalog)).text, name
        return
    assert not catalog.facts.refused, name
    if rec["runtime"] == "omp":  # `omp skill list` rows are the listing (Codex's recording adds its system skills)
        assert sorted(s.name for s in catalog.listed()) == sorted(rec["skills"]), name
    if meant:
        assert rec["skills"] == ["ok"], name
        named = {os.path.relpath(d.path, tree) for d in diags if d.severity == "error" and d.path}
        assert named == set(meant), (name, named)
    else:
        assert rec["skills"] and errors == [], (name, errors)
        assert any(d.severity == "warning" for d in diags), name  # the value it does not use is still said


def test_what_claude_code_did_not_offer_is_an_error(tmp_path):
    """tests/fixtures/claude/not-offered, recorded from Claude Code 2.1.332: it lists only `ok`. Each other thing in
    that skills folder meant as a skill has an error naming it; the loose notes.md is info (not meant as a skill)."""
    case = next(c for c in CLAUDE_CASES if c.name == "not-offered")
    data = CLAUDE_KIT.load(case)
    assert CLAUDE_KIT.expected(case, data["runs"][0])["lines"] == ["- ok: An ordinary skill"]
    root = CLAUDE_KIT.build(data, tmp_path / "t")
    home = root / "home"
    opts = Options(cwd=str(root / "repo"), home=str(home), managed_dir=str(root / "no-managed-dir"),
                   env={"HOME": str(home)})
    diags = doctor.run(opts, ("claude",))
    skills = home / ".claude/skills"
    by_path = {}
    for d in diags:
        if d.runtime == "claude" and d.path:
            by_path.setdefault(os.path.relpath(d.path, skills), set()).add((d.code, d.severity))
    assert ("claude-name-invalid", "error") in by_path["release  notes/SKILL.md"]
    assert ("claude-skill-md-lowercase", "error") in by_path["lower/skill.md"]
    assert ("claude-nested-skill-ignored", "error") in by_path["group/inner/SKILL.md"]
    assert ("claude-loose-skill-file", "error") in by_path["SKILL.md"]
    assert ("claude-link-broken", "error") in by_path["dangling"]
    assert ("claude-link-broken", "error") in by_path["badlink/SKILL.md"]
    assert by_path["notes.md"] == {("claude-loose-md-ignored", "info")}
    assert not any(sev == "error" for sev_codes in [by_path.get("ok/SKILL.md", set())] for _, sev in sev_codes)
