"""The listing blocks Claude Code adds as files are touched, replayed from real recordings (tests/fixtures/touch,
recorded by tools/record_touch.py with the real Claude Code 2.1.332), and the `touch` command around them."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from skilltui.cli import main
from skilltui.model import Options
from skilltui.runtimes.claude import discovery
from skilltui.runtimes.claude.touch import first_match, simulate_session
from skilltui.touch_view import TouchRequest, run_touch
from skilltui.touched import TouchedError, expand, git_changed

CASES = Path(__file__).parent / "fixtures" / "touch"
CASE_NAMES = sorted(p.name for p in CASES.iterdir() if (p / "recorded.json").is_file())


def _tree(name: str, tmp_path: Path) -> tuple[Path, dict]:
    case = json.loads((CASES / name / "case.json").read_text())
    tree = tmp_path / "tree"
    shutil.copytree(CASES / name, tree, ignore=shutil.ignore_patterns("case.json", "recorded.json"))
    for stored in tree.rglob("_gitignore"):  # stored under another name, or this repository's git would obey them
        stored.rename(stored.with_name(".gitignore"))
    if case["git"]:
        (tree / case["git"] / ".git" / "info").mkdir(parents=True)  # discovery needs only the entry
        (tree / case["git"] / ".git" / "info" / "exclude").write_text("".join(f"{x}\n" for x in case.get("exclude", [])))
    return tree, case


def _announcements_as_sets(blocks: list[str]) -> list[str]:
    # A "New skills discovered" block lists a folder in the directory order of the machine that recorded it.
    return ["\n".join(sorted(b.split("\n"))) if b.startswith("New skills discovered") else b for b in blocks]


@pytest.mark.parametrize("name", CASE_NAMES)
def test_blocks_match_the_recording(name: str, tmp_path: Path) -> None:
    tree, case = _tree(name, tmp_path)
    recorded = json.loads((CASES / name / "recorded.json").read_text())
    opts = Options(cwd=str(tree / case["cwd"]), home=str(tree / "home"), env={})
    catalog = discovery.discover(opts)
    touched = [(tool, path.replace("$TREE", str(tree))) for tool, path in case["steps"]]
    session = simulate_session(catalog, touched, case["budget"] or 8000, catalog.facts.git_root)
    assert len(session.steps) == len(recorded["steps"])
    if case.get("late_blocks"):  # the tool's race: a block may come with the next tool result; the sequence is fixed
        ours = [b for step in session.steps for b in step.blocks]
        assert _announcements_as_sets(ours) == _announcements_as_sets([b for r in recorded["steps"] for b in r["added"]])
        return
    for step, rec in zip(session.steps, recorded["steps"]):
        assert _announcements_as_sets(step.blocks) == _announcements_as_sets(rec["added"] or []), step.path


def test_the_recorded_cases_cover_what_the_issue_lists() -> None:
    assert {"paths-spellings", "nested-names", "nested-gitignored", "same-skill-twice", "outside-cwd", "missing-file",
            "failed-tools", "binary-extensions"} <= set(CASE_NAMES)


@pytest.mark.parametrize(("pattern", "path", "hit"), [
    ("*.MD", "notes/lower.md", True),  # case is ignored
    ("/only.txt", "sub/only.txt", False),
    ("/only.txt", "only.txt", True),
    ("gen", "deep/gen/f.c", True),  # a bare name matches a folder at any depth
    ("!src/x.ts", "src/x.ts", False),
    (" b/*.py", "b/x.py", False),  # the space kept after a comma
    ("./dot/x.ts", "dot/x.ts", False),
    ("mid/**/end.txt", "mid/end.txt", True),
])
def test_one_pattern(pattern: str, path: str, hit: bool) -> None:
    assert (first_match([pattern], path) is not None) is hit


def test_expand_globs_folders_and_missing_files(tmp_path: Path) -> None:
    (tmp_path / "src" / ".hidden").mkdir(parents=True)
    for f in ("src/a.ts", "src/b.ts", "src/.hidden/c.ts", "README.md"):
        (tmp_path / f).write_text("x\n")
    files, notes = expand(["src/**/*.ts", "README.md", "src/a.ts", "gone.txt", "nomatch/*.x"], str(tmp_path))
    assert files == ["src/.hidden/c.ts", "src/a.ts", "src/b.ts", "README.md", "gone.txt"]
    assert notes == ["nomatch/*.x: no file matches"]
    files, _ = expand(["src"], str(tmp_path))
    assert files == ["src/a.ts", "src/b.ts", "src/.hidden/c.ts"]


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(cwd), "-c", "user.name=t", "-c", "user.email=t@t", *args], check=True,
                   capture_output=True, timeout=60)


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_git_changes_and_ranges(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "pkg").mkdir(parents=True)
    _git(repo, "init", "-q", "-b", "main")
    (repo / "pkg" / "old.txt").write_text("1\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "one")
    (repo / "pkg" / "old.txt").write_text("2\n")
    (repo / "pkg" / "new.txt").write_text("n\n")
    assert sorted(git_changed(str(repo / "pkg"))) == ["new.txt", "old.txt"]
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "two")
    assert git_changed(str(repo), "HEAD~1..HEAD") == ["pkg/new.txt", "pkg/old.txt"]
    with pytest.raises(TouchedError):
        git_changed(str(repo), "--output=/tmp/x")
    with pytest.raises(TouchedError):
        git_changed(str(tmp_path))  # not a work tree


def test_touch_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tree, case = _tree("nested-names", tmp_path)
    cwd = tree / case["cwd"]
    args = ["--cwd", str(cwd), "--home", str(tree / "home"), "touch", "apps/web/src/page.tsx", "../elsewhere.txt"]
    assert main([*args, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    first, outside = out["steps"]
    assert [f["folder"] for f in first["folders"]] == ["apps/web", "apps"]
    assert "apps/web:deploy" in [a["label"] for a in first["added"]]
    assert outside["rel"] is None and outside["blocks"] == []
    assert out["assumed"]
    assert main([*args, "--text"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("<system-reminder>\nNew skills discovered in apps/web/.claude/skills")
    assert main(args) == 0
    assert "outside the working folder" in capsys.readouterr().out
    assert main(["--cwd", str(cwd), "--home", str(tree / "home"), "touch"]) == 1
    assert "give files" in capsys.readouterr().err


def test_never_activated_says_why(tmp_path: Path) -> None:
    tree, case = _tree("paths-spellings", tmp_path)
    opts = Options(cwd=str(tree / case["cwd"]), home=str(tree / "home"), env={})
    view = run_touch(opts, TouchRequest(["b/x.py", "x/y.txt"], None, 8000))
    why = {u.skill.name: u.why for u in view.session.unmatched}
    assert "leading space after a comma" in why["p-comma"]
    assert "a negation matches nothing" in why["p-neg"]


def test_untrusted_names_reach_the_terminal_escaped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    skills = tmp_path / "repo" / "sub\x1b]52;c;eA==\x07" / ".claude" / "skills" / "evil"
    skills.mkdir(parents=True)
    (skills / "SKILL.md").write_text("---\ndescription: \x1b[31mred\n---\n")
    (skills.parents[2] / "f.txt").write_text("x\n")
    (tmp_path / "home").mkdir()
    rel = str((skills.parents[2] / "f.txt").relative_to(tmp_path / "repo"))
    assert main(["--cwd", str(tmp_path / "repo"), "--home", str(tmp_path / "home"), "touch", rel]) == 0
    assert "\x1b" not in capsys.readouterr().out


# ---------------------------------------------------------------- the TUI view
@pytest.mark.slow  # drives the app
def test_touch_screen_in_the_app(tmp_path: Path) -> None:
    import asyncio

    from skilltui.demo import demo_options
    from skilltui.tui.app import SkilltuiApp
    from skilltui.tui.screens.touch import TouchScreen

    opts = demo_options("claude", {"SKILLTUI_DEMO_DIR": str(tmp_path / "demo")}, reset=True)

    async def scenario() -> None:
        app = SkilltuiApp(opts, poll=False)

        async def no_preparing() -> None:  # the idle-time screen building is not under test and may race teardown
            return None

        app._prepare_modes = no_preparing  # type: ignore[method-assign]
        async with app.run_test(size=(120, 40)) as pilot:
            async def until(condition, what: str) -> None:  # polled, with a generous limit for loaded machines
                for _ in range(1200):
                    if condition():
                        return
                    await pilot.pause(0.05)
                raise AssertionError(f"timed out waiting for {what}")

            await until(lambda: app.state is not None, "discovery")
            await pilot.press("t")
            await until(lambda: isinstance(app.screen, TouchScreen), "the touch screen")
            screen = app.screen
            screen.query_one("#touch-input").value = "src/api/routes.ts ui/button.tsx"
            await pilot.press("enter")
            await until(lambda: screen.view is not None, "the simulation")
            await pilot.pause()
            rows = [" | ".join(str(getattr(c, "plain", c)) for c in screen.query_one("#touch-table").get_row(k))
                    for k in screen.query_one("#touch-table").rows]
            assert rows[0].startswith("src/api/routes.ts | api-conventions | paths 'src/api'")
            assert rows[1].startswith("ui/button.tsx | ui-kit | ui/.claude/skills")
            blocks = str(screen.query_one("#touch-blocks").render())
            assert "New skills discovered in ui/.claude/skills" in blocks
            await pilot.press("escape")
            await until(lambda: not isinstance(app.screen, TouchScreen), "the screen to close")

    asyncio.run(scenario())
