"""Gemini CLI 0.61.0: every recorded oracle fixture (tests/fixtures/gemini, spec/gemini.md §12) replayed against the
gemini runtime, plus the rules the recordings cannot show (diagnostics, trust display, the writer)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from skilltui.model import DISABLED, FILTERED, INVALID, LISTED, SHADOWED, Options
from skilltui.runtimes import REGISTRY, get
from skilltui.runtimes.gemini import frontmatter as gfm
from skilltui.runtimes.gemini.prompt import render

FIXTURES = Path(__file__).parent / "fixtures" / "gemini"
CASES = sorted(p.name for p in FIXTURES.iterdir() if (p / "expected.json").is_file())
DISCOVERY_CASES = [c for c in CASES if not c.startswith("toggle-")]
TOGGLE_CASES = [c for c in CASES if c.startswith("toggle-")]


def materialize(name: str, tmp_path: Path) -> tuple[Path, dict, dict]:
    """The case's tree copied to tmp (links kept), `$TREE` in its files replaced by the copy's path."""
    src = FIXTURES / name
    tree = tmp_path / "tree"
    shutil.copytree(src / "tree", tree, symlinks=True)
    meta = json.loads((src / "case.json").read_text())
    for folder in (meta["home"], meta["cwd"]):  # git keeps no empty folders
        (tree / folder).mkdir(parents=True, exist_ok=True)
    for p in tree.rglob("*"):
        if p.is_file() and not p.is_symlink():
            data = p.read_bytes()
            if b"$TREE" in data:
                p.write_bytes(data.replace(b"$TREE", str(tree).encode()))
    return tree, meta, json.loads((src / "expected.json").read_text())


def options(tree: Path, meta: dict) -> Options:
    env = {k: v.replace("$TREE", str(tree)) for k, v in meta["env"].items()}
    if meta["trust"] in ("yes", "no"):
        env["GEMINI_CLI_TRUST_WORKSPACE"] = "true" if meta["trust"] == "yes" else "false"
    return Options(cwd=str(tree / meta["cwd"]), home=str(tree / meta["home"]), runtime="gemini", env=env)


def placeholder(tree: Path, meta: dict):
    t = os.path.commonpath([str(tree / meta["home"]), str(tree / meta["cwd"])])  # the oracle's $TREE
    return lambda s: s.replace(t, "$TREE") if isinstance(s, str) else s


@pytest.mark.parametrize("name", DISCOVERY_CASES)
def test_recorded_case(name: str, tmp_path: Path) -> None:
    tree, meta, expected = materialize(name, tmp_path)
    ph = placeholder(tree, meta)
    runtime = get("gemini")
    catalog = runtime.discover(options(tree, meta))
    listing = expected["list"]
    if "error" in listing and "exited 52" in listing["error"]:  # Gemini CLI refuses to start
        assert catalog.facts.refused, "Gemini CLI exits 52 here; the catalog must say it would not start"
        assert ph(catalog.facts.refused) in listing["error"]
        assert catalog.listed() == []
        return
    assert not catalog.facts.refused
    on = catalog.settings.skills_enabled()[0]
    assert "error" not in listing, listing  # every recording but the refusals above is a real `skills list`
    ours = sorted((s.name, ph(s.description), ph(s.path), s.status == LISTED) for s in catalog.skills
                  if on and s.status in (LISTED, DISABLED))
    theirs = sorted((s["name"], s["description"], s["path"], s["enabled"]) for s in listing["skills"])
    assert ours == theirs
    conflicts = sorted(ph(s.reason) for s in catalog.skills if on and s.status == SHADOWED)
    assert conflicts == sorted(w for w in listing["warnings"]
                               if w.startswith("Skill conflict") or "overriding the built-in" in w)
    skipped = sorted(ph(d.message) for d in catalog.diagnostics if d.code == "gemini-extension-skipped")
    assert skipped == sorted(w for w in listing["warnings"] if w.startswith("Warning: Skipping extension"))
    prompt = expected.get("prompt")
    if prompt is not None:
        wording = "gemini-2.5" if meta["args"][-1:] == ["gemini-2.5-pro"] else "default"
        text = render(catalog.listed(), wording)
        assert (ph(text) if text else None) == prompt["prompt_text"]
        assert [ph(s.path) for s in catalog.listed()] == [s["path"] for s in prompt["skills"]]
        if wording == "default":
            assert ph(runtime.prompt(catalog).text) == (prompt["prompt_text"] or "")


def test_every_spec_vector_has_a_recording() -> None:
    for name in ("scan", "order", "tiers", "builtin-override", "frontmatter-values", "frontmatter-skipped", "fallback",
                 "settings-disabled", "extensions", "trust-longest-wins", "cwd-is-home", "alias-link", "self-link",
                 "toggle-untrusted"):
        assert name in CASES


def test_registry_and_interface() -> None:
    assert "gemini" in REGISTRY
    rt = get("gemini")
    assert (rt.key, rt.label, rt.version) == ("gemini", "Gemini CLI", "0.61.0")
    assert rt.has_budget is False


# ---------------------------------------------------------------- rules the recordings do not show as text
def test_untrusted_workspace_is_shown_dimmed_with_the_decider(tmp_path: Path) -> None:
    tree, meta, _ = materialize("trust-longest-wins", tmp_path)
    catalog = get("gemini").discover(options(tree, meta))
    ws = [s for s in catalog.skills if s.name == "ws-one"]
    assert [s.status for s in ws] == [FILTERED]
    assert "DO_NOT_TRUST" in ws[0].reason and "trustedFolders.json" in ws[0].reason
    trust = catalog.facts.trust
    assert trust.trusted is False and trust.decided_by.endswith("trustedFolders.json")
    assert any(d.code == "gemini-workspace-untrusted" for d in catalog.diagnostics)


def test_env_decides_trust_first(tmp_path: Path) -> None:
    tree, meta, _ = materialize("trust-folder", tmp_path)
    opts = options(tree, meta)
    opts.env["GEMINI_CLI_TRUST_WORKSPACE"] = "false"
    catalog = get("gemini").discover(opts)
    assert catalog.facts.trust.decided_by == "GEMINI_CLI_TRUST_WORKSPACE"
    assert [s.status for s in catalog.skills if s.name == "ws-one"] == [FILTERED]


def _findings(name: str, tmp_path: Path):
    from skilltui.checks.gemini import findings

    tree, meta, _ = materialize(name, tmp_path)
    catalog = get("gemini").discover(options(tree, meta))
    return catalog, findings(catalog)


def test_doctor_findings_gemini_users_meet(tmp_path: Path) -> None:
    _, found = _findings("alias-link", tmp_path / "a")
    assert {d.code for d in found} == {"gemini-loaded-twice"} and len(found) == 2  # one, two: each loaded twice
    _, found = _findings("user-alias-wins", tmp_path / "b")
    assert [d.code for d in found] == ["gemini-alias-shadows"] and "home/.gemini/skills/dup" in found[0].path
    _, found = _findings("settings-disabled-untrusted", tmp_path / "c")
    assert [d.code for d in found] == ["gemini-workspace-ignored"] and "GEMINI_CLI_TRUST_WORKSPACE" in found[0].message
    cat, found = _findings("frontmatter-skipped", tmp_path / "d")
    invalid = {os.path.basename(os.path.dirname(s.path)) for s in cat.skills if s.status == INVALID}
    assert invalid == {"bom", "leadblank", "trailsp", "dashes4", "unclosed", "emptyfile", "nofm", "noname", "nodesc",
                       "upper"}
    assert {d.path for d in found if d.code == "gemini-invalid-frontmatter"} == {s.path for s in cat.skills
                                                                                  if s.status == INVALID}
    assert any("[gemini-name-missing]" in d.message for d in found)
    cat, _ = _findings("scan", tmp_path / "e")
    assert {"gemini-too-deep", "gemini-hidden-dir"} <= {d.code for d in cat.diagnostics}
    cat, _ = _findings("same-name-in-root", tmp_path / "f")
    assert "gemini-order-race" in {d.code for d in cat.diagnostics}


def test_doctor_runs_the_gemini_checks(tmp_path: Path) -> None:
    from skilltui import doctor

    tree, meta, _ = materialize("alias-link", tmp_path)
    codes = {d.code for d in doctor.run(options(tree, meta), ("gemini",))}
    assert "gemini-loaded-twice" in codes and "doctor-check-failed" not in codes


def test_line_reader_uses_javascript_whitespace() -> None:
    # U+001C is whitespace to Python, not to JavaScript: the line is not a `description:` line
    assert gfm.line_reader("name: a\ndescription: one\n\x1cdescription: two") == ("a", "one")
    # U+FEFF is whitespace to JavaScript (trim removes it), not to Python's str.strip
    assert gfm.line_reader("name: \ufeffa\ufeff\ndescription: d") == ("a", "d")
    # a lone CR inside a line: JavaScript's `.` stops there and `$` needs the end, so the line does not count
    assert gfm.line_reader("name: a\rb\nname: c\ndescription: d") == ("c", "d")


def test_js_yaml_typing_decides_the_fallback() -> None:
    assert gfm.parse("---\nname: a\ndescription: 1_000 # c\n---\n").description == "1_000 # c"
    assert gfm.parse("---\nname: a\ndescription: yes # c\n---\n").description == "yes"
    assert gfm.parse("---\nname: a\ndescription: 2024-1-2 10:00:00 # c\n---\n").description == "2024-1-2 10:00:00 # c"
    assert gfm.parse("---\nname: a\ndescription: 1e5x # c\n---\n").description == "1e5x"
    assert gfm.parse("---\nname: a\n\"name\": b\ndescription: d\n---\n").via == "lines"  # duplicate key


def test_prompt_collapses_blank_lines_and_inserts_raw(tmp_path: Path) -> None:
    tree, meta, _ = materialize("block-blank-lines", tmp_path)
    catalog = get("gemini").discover(options(tree, meta))
    text = get("gemini").prompt(catalog).text
    assert "line two\n\nline six\n</description>" in text
    assert "\n\n\n" not in text
    view = get("gemini").prompt(catalog).to_json()
    assert view["budget"] is None and view["chars"] == len(text)


# ---------------------------------------------------------------- toggles, replayed against the recorded runs
def _lists(files: dict, ph) -> dict[str, object]:
    from skilltui.settings_writer import mask_comments

    out = {}
    for path, text in files.items():
        data = json.loads(mask_comments(text)) if text and text.strip() else {}
        out[path] = (data.get("skills") or {}).get("disabled")
    return out


@pytest.mark.parametrize("name", TOGGLE_CASES)
def test_recorded_toggle(name: str, tmp_path: Path) -> None:
    from skilltui.runtimes.gemini import toggle

    for i, run in enumerate(json.loads((FIXTURES / name / "expected.json").read_text())["skill"]):
        tree, meta, _ = materialize(name, tmp_path / str(i))
        ph = placeholder(tree, meta)
        opts = options(tree, meta)
        argv = run["command"][2:]
        scope = argv[argv.index("--scope") + 1] if "--scope" in argv else None
        before = {p: (Path(p.replace("$TREE", str(tree))).read_text() if Path(p.replace("$TREE", str(tree))).exists()
                      else None) for p in run["files"]}
        result = toggle.apply(toggle.plan(get("gemini").discover(opts), argv[0], argv[1], scope))
        assert result.ok, result.message
        after = {p: Path(p.replace("$TREE", str(tree))).read_text() for p in run["files"]
                 if Path(p.replace("$TREE", str(tree))).exists()}
        if name == "toggle-untrusted":
            # Gemini CLI rewrites the untrusted workspace file from an empty view (drops "general" and "beta");
            # skilltui appends and keeps every other byte, and says the file is not read.
            text = after["$TREE/repo/.gemini/settings.json"]
            assert text == before["$TREE/repo/.gemini/settings.json"].replace('["beta"]', '["beta", "alpha"]')
            assert any("not trusted" in w for w in result.warnings)
            continue
        assert _lists(after, ph) == _lists({p: t for p, t in run["files"].items()}, ph)
        for path, text in after.items():  # every other byte kept: only the one value differs
            old = before[path]
            if old is not None and old != text and '"disabled"' not in old:  # a member added, the rest kept
                from skilltui.settings_writer import mask_comments

                new_data = json.loads(mask_comments(text))
                new_data["skills"].pop("disabled")
                assert {k: v for k, v in new_data.items() if v != {}} == json.loads(mask_comments(old))
            elif old is not None and old != text:
                start = old.index('"disabled"')
                assert text[:start] == old[:start]
                assert text[text.index("]", start):].rstrip() == old[old.index("]", start):].rstrip()


def test_disable_unknown_and_already(tmp_path: Path) -> None:
    from skilltui.runtimes.gemini import toggle

    tree, meta, _ = materialize("toggle-already", tmp_path)
    catalog = get("gemini").discover(options(tree, meta))
    unknown = toggle.plan(catalog, "disable", "nosuch")
    assert not unknown.ok and unknown.message == 'Skill "nosuch" not found.'
    already = toggle.plan(catalog, "disable", "alpha")
    assert already.ok and already.edits == [] and "already disabled" in already.message


def test_disable_keeps_comments_and_refuses_a_trailing_comma(tmp_path: Path) -> None:
    from skilltui.runtimes.gemini import toggle

    tree, meta, _ = materialize("toggle-disable-existing", tmp_path)
    settings = tree / "repo/.gemini/settings.json"
    settings.write_text('{\n  // mine\n  "general": {"vimMode": true}, /* keep */\n  "skills": {"disabled": ["beta"]}\n}\n')
    result = toggle.apply(toggle.plan(get("gemini").discover(options(tree, meta)), "disable", "alpha"))
    assert result.ok
    assert settings.read_text() == ('{\n  // mine\n  "general": {"vimMode": true}, /* keep */\n'
                                    '  "skills": {"disabled": ["beta", "alpha"]}\n}\n')
    settings.write_text('{"skills": {"disabled": ["beta"],}}')
    refused = toggle.apply(toggle.plan(get("gemini").discover(options(tree, meta)), "disable", "alpha"))
    assert not refused.ok
    assert settings.read_text() == '{"skills": {"disabled": ["beta"],}}'


# ---------------------------------------------------------------- views: CLI, doctor, budget, TUI
def _cli(*argv: str, capsys) -> tuple[int, str, str]:
    from skilltui.cli import main

    rc = main(list(argv))
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_cli_runtime_gemini_everywhere(tmp_path: Path, capsys) -> None:
    tree, meta, _ = materialize("settings-disabled-untrusted", tmp_path)
    base = ["--runtime", "gemini", "--home", str(tree / "home"), "--cwd", str(tree / "repo")]
    rc, out, _ = _cli("list", "--all", *base, capsys=capsys)
    assert rc == 0 and "gemini 0.61.0" in out and "filtered: workspace not trusted" in out
    rc, out, _ = _cli("budget", *base, capsys=capsys)
    assert rc == 0 and "no budget" in out and "characters" in out and "<available_skills>" in out
    rc, out, _ = _cli("budget", "--json", *base, capsys=capsys)
    data = json.loads(out)
    assert data["budget"] is None and data["chars"] == len(data["text"])
    rc, out, _ = _cli("doctor", "--json", *base, capsys=capsys)
    codes = {d["code"] for d in json.loads(out)["diagnostics"]}
    assert {"gemini-workspace-ignored", "gemini-workspace-untrusted"} <= codes
    rc, out, _ = _cli("show", "beta", *base, capsys=capsys)
    assert rc == 0 and "Body of beta." in out
    rc, out, _ = _cli("doctor", "--runtime", "all", "--json", "--home", str(tree / "home"), "--cwd", str(tree / "repo"),
                      capsys=capsys)
    assert "gemini" in json.loads(out)["runtimes"]


def test_cli_skill_disable_and_enable(tmp_path: Path, capsys) -> None:
    tree, meta, _ = materialize("toggle-disable-new", tmp_path)
    base = ["--runtime", "gemini", "--home", str(tree / "home"), "--cwd", str(tree / "repo")]
    rc, out, err = _cli("skill", "disable", "ALPHA", "--scope", "user", *base, capsys=capsys)
    assert rc == 0 and "disabled" in out
    assert json.loads((tree / "home/.gemini/settings.json").read_text()) == {"skills": {"disabled": ["ALPHA"]}}
    rc, out, err = _cli("skill", "enable", "alpha", *base, capsys=capsys)
    assert rc == 0 and "already enabled" in out  # enable removes only the exact spelling, as Gemini CLI does
    rc, out, err = _cli("skill", "enable", "ALPHA", "--json", *base, capsys=capsys)
    assert json.loads(out)["ok"] is True
    assert json.loads((tree / "home/.gemini/settings.json").read_text()) == {"skills": {"disabled": []}}
    rc, out, err = _cli("skill", "disable", "nosuch", *base, capsys=capsys)
    assert rc == 1 and 'Skill "nosuch" not found.' in err
    rc, out, err = _cli("skill", "disable", "alpha", "--home", str(tree / "home"), "--cwd", str(tree / "repo"),
                        capsys=capsys)
    assert rc == 1 and "no per-skill enable/disable" in err


@pytest.mark.slow  # drives the app
def test_tui_cycles_to_gemini_and_shows_trust_and_prompt(tmp_path: Path) -> None:
    import asyncio

    from skilltui.demo import demo_options
    from skilltui.tui.app import SkilltuiApp

    opts = demo_options("claude", {"SKILLTUI_DEMO_DIR": str(tmp_path / "demo")}, reset=True)

    async def settle(app, pilot) -> None:
        for _ in range(3):
            await app.workers.wait_for_complete()
            await pilot.pause()

    async def run() -> None:
        app = SkilltuiApp(opts, poll=False)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(app, pilot)
            keys = [k for k, _ in app.runtimes]
            assert "gemini" in keys
            for _ in range(keys.index("gemini")):
                await pilot.press("r")
                await settle(app, pilot)
            assert app.state.catalog.runtime == "gemini"
            counts = str(app.screen.query_one("#counts").render())
            assert "workspace not trusted" in counts
            await pilot.press("3")
            await settle(app, pilot)
            params = str(app.screen.query_one("#budget-params").render())
            assert "gemini 0.61.0" in params and "no budget" in params and "characters" in params
            assert "<available_skills>" in app.screen.query_one("#prompt").text

    asyncio.run(asyncio.wait_for(run(), timeout=120))


def test_writer_edits_json_with_comments_keeping_every_comment(tmp_path: Path) -> None:
    from skilltui import settings_writer

    path = tmp_path / "settings.json"
    text = ('{\n  /* "skills": {"disabled": ["x"]} is only a comment, { and } too */\n'
            '  "ui": {"theme": "a // not a comment"}, // trailing\n'
            '  "skills": {\n    // the list\n    "disabled": ["beta"] // after\n  }\n}\n')
    path.write_text(text)
    change = settings_writer.set_member(path, ("skills", "disabled"), ["beta", "alpha"], comments=True)
    assert change.changed
    assert path.read_text() == text.replace('["beta"]', '["beta", "alpha"]')
    for before in ('{\n  // only a comment\n}\n', '{"skills": {"disabled": ["beta" /* why */]}}'):
        path.write_text(before)  # the edit would swallow a comment: refused, nothing written
        with pytest.raises(settings_writer.SettingsWriteError, match="comment"):
            settings_writer.set_member(path, ("skills", "disabled"), ["beta", "alpha"], comments=True)
        assert path.read_text() == before
    path.write_text('{"a": 1, /* unclosed')
    with pytest.raises(settings_writer.SettingsWriteError):
        settings_writer.set_member(path, ("skills", "disabled"), ["alpha"], comments=True)
    assert path.read_text() == '{"a": 1, /* unclosed'
