"""The Textual app driven through `App.run_test` on a fresh copy of the demo (SKILLTUI_DEMO_DIR=tmp_path)."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import os
import shutil
import time
from pathlib import Path

import pytest

from skilltui.demo import demo_options
from skilltui.model import Diagnostic, Options
from skilltui.tui import data
from skilltui.tui.app import SkilltuiApp
from skilltui.tui.screens.fileview import FileScreen
from skilltui.tui.screens.help import HelpScreen
from skilltui.tui.screens.toggle import ToggleRequest, ToggleScreen
from skilltui.tui.textual_private import mode_screen, render_lines
from skilltui.tui.widgets.table import LineTable

pytestmark = pytest.mark.slow  # drives the app; `pytest -m "not slow"` skips it

SIZE = (120, 40)
HOSTILE = "[bold]boom[/] [link=https://evil.example]x[/link] [/] [@click=app.quit]q[/] \x1b[31mred\x1b[0m $accent"


def aio(fn):
    """Run an async test with asyncio (no pytest plugin needed)."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return asyncio.run(asyncio.wait_for(fn(*args, **kwargs), 600))  # a hang fails the test, never the run

    return wrapper


@pytest.fixture
def demo(tmp_path) -> Options:
    return demo_options("claude", {"SKILLTUI_DEMO_DIR": str(tmp_path / "demo")}, reset=True)


async def until(condition, timeout: float = 60.0) -> None:
    """Wait until `condition()` holds; fail (never hang) after `timeout` seconds, generous for a loaded machine."""
    async def poll() -> None:
        while not condition():
            await asyncio.sleep(0.01)

    await asyncio.wait_for(poll(), timeout)


async def settle(app, pilot) -> None:
    for _ in range(3):
        await asyncio.wait_for(app.workers.wait_for_complete(), 120)
        await pilot.pause()


@contextlib.asynccontextmanager
async def running(opts: Options, size: tuple[int, int] = SIZE):
    """The app on these options, with discovery done."""
    app = SkilltuiApp(opts, poll=False)
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        yield app, pilot


def table_text(table) -> list[str]:
    """Each row's cells as text, " | " between them (a DataTable's or a LineTable's)."""
    if isinstance(table, LineTable):
        return [" | ".join(cell.text for cell in row) for row in table.rows]
    rows = []
    for row_key in table.rows:
        rows.append(" | ".join(str(getattr(c, "plain", c)) for c in table.get_row(row_key)))
    return rows


def settings_files(opts: Options) -> dict[str, str]:
    root = Path(opts.home).parent
    return {str(p): p.read_text() for p in root.rglob("*.json") if "settings" in p.name}


# ---------------------------------------------------------------- skills
@aio
async def test_skills_grouped_by_source_with_reasons(demo):
    async with running(demo) as (app, pilot):
        screen = app.screen
        table = screen.query_one("#skills")
        keys = screen.row_keys
        assert len(keys) == table.row_count
        groups = [k.split(":", 1)[1] for k in keys if k.startswith("group:")]
        assert groups[:2] == ["user", "project"]
        assert groups.index("legacy-command") < groups.index("plugin") < groups.index("bundled")
        text = "\n".join(table_text(table))
        assert "shadowed" in text and "winner:" in text  # the project commit-helper loses to the user's
        assert "invalid" in text and "two consecutive spaces" in text
        counts = str(screen.query_one("#counts").render())
        assert "listed of" in counts


@aio
async def test_filter_as_you_type(demo):
    async with running(demo) as (app, pilot):
        await pilot.press("slash", *"pdf")
        screen = app.screen
        assert [s.name for s in screen.rows.values()] == ["pdf-tools"]
        await pilot.press("escape")  # clears and returns to the table
        assert len(screen.rows) > 10
        await pilot.press("slash", *"shadowed")
        assert {s.status for s in screen.rows.values()} == {"shadowed"}


@aio
async def test_filter_takes_keys_typed_in_one_burst(demo):
    """A terminal delivers "/pdf" typed fast (or pasted) in one read: every key reaches the app before "/" is bound."""
    from textual import events

    async with running(demo) as (app, pilot):
        for key, char in (("slash", "/"), ("p", "p"), ("d", "d"), ("f", "f")):
            app.post_message(events.Key(key, char))
        await settle(app, pilot)
        assert app.screen.query_one("#filter").value == "pdf"
        assert [s.name for s in app.screen.rows.values()] == ["pdf-tools"]


@aio
async def test_budget_window_takes_keys_typed_in_one_burst(demo):
    from textual import events

    async with running(demo) as (app, pilot):
        await pilot.press("3")
        await settle(app, pilot)
        for key in "w2k":
            app.post_message(events.Key(key, key))
        await settle(app, pilot)
        assert app.screen.query_one("#window").value == "2k"
        assert app.screen.result.budget == 80


@aio
async def test_open_preview_shows_frontmatter_body_and_references(demo):
    async with running(demo) as (app, pilot):
        await pilot.press("slash", *"pdf", "enter", "enter")
        await settle(app, pilot)
        assert app.current_mode == "preview"
        screen = app.screen
        assert app.selected.name == "pdf-tools"
        fm = screen.query_one("#fm-table").render()
        assert "allowed-tools" in str(getattr(fm, "renderable", fm)) or "allowed-tools" in repr(screen.details)
        assert screen.details["frontmatter"]["fields"]["allowed-tools"] == "Bash(python3 scripts/*)"
        refs = {r["link"]: r for r in screen.details["references"]}
        ok = [oid for oid in screen.targets if oid.startswith("ref:")]
        assert len(ok) == 3  # forms, extract.py, merging
        assert set(screen.refused.values()) >= {"file not found", "leaves the skill folder; not followed"}
        assert not refs["../../../../secrets.txt"]["inside_skill_dir"]
        markdown = screen.doc
        assert "PDF tools" in markdown.source


@aio
async def test_open_referenced_file_and_refuse_escaping_link(demo):
    async with running(demo) as (app, pilot):
        await pilot.press("slash", *"pdf", "enter", "enter")
        await settle(app, pilot)
        await pilot.press("f", "enter")  # the first reference: references/forms.md
        await settle(app, pilot)
        assert isinstance(app.screen, FileScreen)
        assert app.screen.path.endswith(os.path.join("references", "forms.md"))
        await pilot.press("escape")
        assert app.current_mode == "preview" and not isinstance(app.screen, FileScreen)
        preview = app.screen
        escaping = next(oid for oid, why in preview.refused.items() if "leaves" in why)
        preview.open_target(escaping)
        await pilot.pause()
        assert not isinstance(app.screen, FileScreen)


@aio
async def test_markdown_link_click_is_never_followed_outside(demo):
    from textual.widgets import Markdown

    async with running(demo) as (app, pilot):
        skill = next(s for s in app.state.catalog.skills if s.name == "pdf-tools")
        app.open_preview(skill)
        await settle(app, pilot)
        body = app.screen.doc
        body.post_message(Markdown.LinkClicked(body, "../../../../secrets.txt"))
        await settle(app, pilot)
        assert not isinstance(app.screen, FileScreen)
        body.post_message(Markdown.LinkClicked(body, "https://example.com/"))
        await settle(app, pilot)
        assert not isinstance(app.screen, FileScreen)
        body.post_message(Markdown.LinkClicked(body, "references/forms.md"))
        await settle(app, pilot)
        assert isinstance(app.screen, FileScreen)


@aio
async def test_preview_source_view_and_frontmatter_error_line(demo):
    async with running(demo) as (app, pilot):
        skill = next(s for s in app.state.catalog.skills if s.name == "yaml-retry")
        app.open_preview(skill)
        await settle(app, pilot)
        error = app.screen.query_one("#fm-error")
        assert error.display  # parsed only after the retry: said, with the line
        await pilot.press("v")
        area = app.screen.query_one("#source")
        assert area.display and area.text.startswith("---")
        await pilot.press("v")
        assert not area.display


# ---------------------------------------------------------------- budget
@aio
async def test_budget_recomputes_when_the_window_changes(demo):
    from skilltui import budget

    async with running(demo) as (app, pilot):
        await pilot.press("3")
        await settle(app, pilot)
        screen = app.screen
        default = budget.params_for(app.state.claude, app.state.opts).budget
        assert screen.result.budget == default == app.budget_chars
        assert not screen.result.over_budget
        await pilot.press("w", *"700")
        assert screen.result.budget == 28  # 700 tokens × 4 chars/token × 0.01: the engine's formula
        assert screen.result.over_budget
        assert any(e.state == "name-only" for e in screen.result.entries)
        assert screen.changes  # rows that changed with this window are marked
        prompt = screen.query_one("#prompt").text
        assert "<system-reminder>" in prompt
        screen.query_one("#entries").focus()
        await pilot.press("o")  # an override for the highlighted entry, in the dialog that shows the change
        await settle(app, pilot)
        assert isinstance(app.screen, ToggleScreen) and app.screen.request.kind == "override"
        await pilot.press("escape")
        row = next(i for i, e in enumerate(screen.result.entries) if e.name == "linter:lint-fix")
        screen.query_one("#entries").move_cursor(row=row)
        await pilot.press("t")  # the entry's plugin
        await settle(app, pilot)
        assert isinstance(app.screen, ToggleScreen) and app.screen.request.target == "linter@demo-market"
        await pilot.press("escape")


@aio
async def test_budget_model_preset_and_free_model_id(demo):
    async with running(demo) as (app, pilot):
        await pilot.press("3")
        await settle(app, pilot)
        screen = app.screen
        await pilot.press("m", *"claude-opus-4-7")
        assert screen.result.budget == 30_000  # 1M window × 3 chars/token × 0.01
        screen.query_one("#window").focus()  # Tab moves between the fields; a letter key would be typed
        await pilot.press(*"200k")
        assert screen.result.budget == 6_000
        await pilot.press("ctrl+a", "ctrl+k", *"nonsense")
        assert screen.query_one("#window").has_class("-invalid")


@aio
async def test_budget_preset_list_follows_the_model_field_and_bad_windows_are_explained(demo):
    from textual.widgets import Select

    async with running(demo, size=(80, 24)) as (app, pilot):
        await pilot.press("3")
        await settle(app, pilot)
        screen = app.screen
        select = screen.query_one("#preset", Select)
        from skilltui.runtimes import get

        # nothing typed: the list shows the model the parameter line names (the one Claude Code would run)
        in_use = get("claude").listing_model(app.state.catalog, app.state.opts).model
        assert select.value == in_use and f"model {in_use}" in str(screen.query_one("#budget-params").render())
        await pilot.press("p")  # the preset list has a key
        assert select.expanded and screen.focused in (select, *select.query("*"))
        await pilot.press("escape")
        screen.use_preset(next(p for p in get("claude").presets if p.model == "claude-opus-4-7"))
        await settle(app, pilot)
        assert select.value == "claude-opus-4-7" and screen.result.budget == 30_000
        screen.query_one("#model").focus()
        await pilot.press("end", *"-x")  # another id: the list no longer claims a preset
        await settle(app, pilot)
        assert select.is_blank()
        fit = screen.query_one("#budget-fit")
        for bad, said in (("abc", "not a whole number"), ("0", "at least 1"), ("-5", "not a whole number"),
                          ("1.5m", "not a whole number"), ("99999999999", "too large")):
            screen.query_one("#window").value = bad
            await settle(app, pilot)
            assert said in str(fit.render()), bad
        # one line each: the parameters never wrap onto the fits/over line
        screen.query_one("#window").value = "999999999"
        await settle(app, pilot)
        assert screen.query_one("#budget-params").size.height == 1
        assert "fits" in str(fit.render()) or "Over budget" in str(fit.render())


@aio
async def test_budget_under_codex_offers_codex_models(demo):
    async with running(demo) as (app, pilot):
        await pilot.press("3")
        app.action_runtime("codex")
        await settle(app, pilot)
        screen = app.screen
        options = [p.label for p in screen.shown_presets]
        assert options and not any("Claude" in o for o in options)
        from skilltui.runtimes import get

        preset = get("codex").presets[0]
        screen.use_preset(preset)
        await settle(app, pilot)
        assert f"{preset.context_window * 2 // 100:,}" in str(screen.query_one("#budget-params").render())
        app.action_runtime("omp")  # no budget: no presets to offer
        await settle(app, pilot)
        assert not screen.query_one("#preset").display


# ---------------------------------------------------------------- plugins and the toggle
@aio
async def test_toggle_plugin_changes_exactly_one_line(demo):
    before = settings_files(demo)
    async with running(demo) as (app, pilot):
        await pilot.press("4")
        await settle(app, pilot)
        screen = app.screen
        row = next(i for i, p in enumerate(screen.plugins) if p.id == "formatter@demo-market")
        screen.query_one("#plugins").move_cursor(row=row)
        await pilot.press("t")
        await settle(app, pilot)
        dialog = app.screen
        assert isinstance(dialog, ToggleScreen)
        assert dialog.outcome.ok and dialog.outcome.change.old_line and dialog.outcome.change.new_line
        assert settings_files(demo) == before  # nothing written yet
        await pilot.press("w")
        await settle(app, pilot)
        assert not isinstance(app.screen, ToggleScreen)
        plugin = next(p for p in app.state.claude.plugins if p.id == "formatter@demo-market")
        assert not plugin.enabled
    after = settings_files(demo)
    changed = [p for p in after if after[p] != before.get(p)]
    assert len(changed) == 1
    old, new = before[changed[0]].splitlines(), after[changed[0]].splitlines()
    assert len(old) == len(new)
    diff = [(a, b) for a, b in zip(old, new) if a != b]
    assert len(diff) == 1 and "formatter@demo-market" in diff[0][1] and "false" in diff[0][1]


@aio
async def test_toggle_cancel_writes_nothing_and_scope_choice_changes_file(demo):
    before = settings_files(demo)
    async with running(demo) as (app, pilot):
        app.request_toggle(ToggleRequest("plugin", "formatter@demo-market", False))
        await settle(app, pilot)
        dialog = app.screen
        user_file = dialog.outcome.path
        await pilot.press("l")  # local scope
        await settle(app, pilot)
        assert dialog.outcome.path != user_file and dialog.outcome.path.endswith("settings.local.json")
        await pilot.press("escape")
        await settle(app, pilot)
        assert not isinstance(app.screen, ToggleScreen)
    assert settings_files(demo) == before


def dialog_text(dialog, widget: str = "#toggle-change") -> str:
    return str(dialog.query_one(widget).render())


def spy_notify(app) -> list[str]:
    """Every notification the app is asked to show (title and message), passed on to Textual as before."""
    said: list[str] = []
    real = app.notify

    def notify(message, *args, **kwargs):
        said.append(f"{kwargs.get('title', '')}: {message}")
        return real(message, *args, **kwargs)

    app.notify = notify
    return said


@aio
async def test_toggle_with_a_higher_scope_deciding_offers_no_write_and_says_which_file(demo):
    project = Path(demo.cwd) / ".claude" / "settings.json"
    doc = json.loads(project.read_text())
    doc.setdefault("enabledPlugins", {})["formatter@demo-market"] = True
    project.write_text(json.dumps(doc, indent=2) + "\n")
    before = settings_files(demo)
    async with running(demo) as (app, pilot):
        app.request_toggle(ToggleRequest("plugin", "formatter@demo-market", False))
        await settle(app, pilot)
        await pilot.press("u")  # the user file, although the project file decides
        await settle(app, pilot)
        dialog = app.screen
        assert dialog.outcome.ok and dialog.outcome.still_decides == str(project)
        assert not dialog.query_one("#write").display  # nothing a write would change: no Write button
        shown = dialog_text(dialog)
        assert "Nothing to write" in shown and "project/services/web/.claude/settings.json" in shown
        assert "still decides" in shown and "Press p to write the project file instead" in shown
        said = spy_notify(app)
        await pilot.press("w")  # `w` says why instead of doing nothing
        await settle(app, pilot)
        assert app.screen is dialog and len(said) == 1
        said = said[0]
        assert "Nothing to write" in said and "still decides" in said and "settings.json" in said
        await pilot.press("p")  # the file that decides: now there is something to write
        await settle(app, pilot)
        assert dialog.outcome.no_write() is None and dialog.query_one("#write").display
    assert settings_files(demo) == before


@aio
async def test_toggle_already_in_that_state_offers_no_write(demo):
    before = settings_files(demo)
    async with running(demo) as (app, pilot):
        app.request_toggle(ToggleRequest("plugin", "formatter@demo-market", True))  # it is enabled already
        await settle(app, pilot)
        dialog = app.screen
        assert not dialog.outcome.ok and not dialog.query_one("#write").display
        assert "already enabled" in dialog_text(dialog) and "Nothing to write" in dialog_text(dialog)
        said = spy_notify(app)
        await pilot.press("w")
        await settle(app, pilot)
        assert app.screen is dialog and len(said) == 1 and "already enabled" in said[0]
    assert settings_files(demo) == before


@aio
async def test_toggle_shows_every_line_a_new_local_file_gets_and_the_git_ignore_line(demo):
    """Creating enabledPlugins writes five lines and a local write adds the git ignore rule: the dialog shows each
    line as the writer writes it, and after Write the files hold exactly those lines."""
    home = Path(demo.home)
    ignore = home / ".config" / "git" / "ignore"
    async with running(demo) as (app, pilot):
        app.request_toggle(ToggleRequest("plugin", "formatter@demo-market", False))
        await settle(app, pilot)
        await pilot.press("l")
        await settle(app, pilot)
        dialog = app.screen
        local = Path(dialog.outcome.path)
        assert not local.exists() and dialog.outcome.change.created
        added = [ln[1:] for ln in dialog.outcome.change.diff() if ln.startswith("+")]
        assert len(added) == 5 and added[1] == '  "enabledPlugins": {'
        shown = dialog_text(dialog).splitlines()
        for line in added:
            assert "+" + line in [s.strip() for s in shown], line
        assert dialog.outcome.gitignore_planned == str(ignore)
        assert "~/.config/git/ignore" in dialog_text(dialog)
        assert "+**/.claude/settings.local.json" in [s.strip() for s in shown]
        assert dialog.query_one("#write").display
        await pilot.press("w")
        await settle(app, pilot)
        assert not isinstance(app.screen, ToggleScreen)
    assert local.read_text().splitlines() == added  # exactly the lines the dialog showed
    assert ignore.read_text() == "**/.claude/settings.local.json\n"


@aio
async def test_toggle_into_an_existing_object_shows_the_changed_neighbour_line(demo):
    """Adding a member to an existing object changes its neighbour's line too (a comma): both are shown."""
    before = settings_files(demo)
    async with running(demo) as (app, pilot):
        app.request_toggle(ToggleRequest("plugin", "formatter@demo-market", False))
        await settle(app, pilot)
        await pilot.press("p")
        await settle(app, pilot)
        dialog = app.screen
        project = dialog.outcome.path
        diff = dialog.outcome.change.diff()
        assert [ln for ln in diff if ln[:1] in "+-"] == ['-    "linter@demo-market": true',
                                                         '+    "linter@demo-market": true,',
                                                         '+    "formatter@demo-market": false']
        shown = [s.strip() for s in dialog_text(dialog).splitlines()]
        assert all(ln.strip() in shown for ln in diff if ln[:1] in "+-")
        await pilot.press("w")
        await settle(app, pilot)
    after = settings_files(demo)
    import difflib

    real = [ln for ln in difflib.unified_diff(before[project].splitlines(), after[project].splitlines(), lineterm="")
            if ln[:1] in "+-" and not ln.startswith(("+++", "---"))]
    assert real == [ln for ln in diff if ln[:1] in "+-"]


@aio
async def test_override_dialog_shows_the_skill_overrides_lines(demo):
    async with running(demo) as (app, pilot):
        app.request_toggle(ToggleRequest("override", "commit-helper", "off"))
        await settle(app, pilot)
        dialog = app.screen
        shown = [s.strip() for s in dialog_text(dialog).splitlines()]
        assert '+  "skillOverrides": {' in shown and '+    "commit-helper": "off"' in shown
        assert "+**/.claude/settings.local.json" in shown


@aio
async def test_override_effect_before_writing_when_the_engine_can(demo):
    async with running(demo) as (app, pilot):
        app.request_toggle(ToggleRequest("override", "commit-helper", "off"))
        await settle(app, pilot)
        dialog = app.screen
        assert dialog.outcome.ok and dialog.outcome.path.endswith("settings.local.json")
        effect = str(dialog.query_one("#toggle-effect").render())
        assert "- commit-helper" in effect


# ---------------------------------------------------------------- doctor, help, palette, navigation
@aio
async def test_every_screen_reachable_from_the_footer_keys(demo):
    async with running(demo, (80, 24)) as (app, pilot):
        for key, mode in zip("12345", ("skills", "preview", "budget", "plugins", "doctor")):
            await pilot.press(key)
            await settle(app, pilot)
            assert app.current_mode == mode
        keys = {b.key for b in app.BINDINGS}
        assert {"1", "2", "3", "4", "5", "q", "question_mark"} <= keys
        await pilot.press("q")
    assert app.return_code == 0


def diagnostic_leaves(node) -> list:
    """The Doctor tree's nodes that hold a finding, in order."""
    leaves = []
    for child in node.children:
        if isinstance(child.data, Diagnostic):
            leaves.append(child)
        leaves += diagnostic_leaves(child)
    return leaves


@aio
async def test_doctor_opens_the_skill_of_a_diagnostic(demo):
    from textual.widgets import Tree

    async with running(demo) as (app, pilot):
        await pilot.press("5")
        await settle(app, pilot)
        tree = app.screen.query_one("#diagnostics", Tree)
        leaves = diagnostic_leaves(tree.root)
        assert leaves
        target = next(n for n in leaves if n.data.path and n.data.path.endswith(os.path.join("pdf-tools", "SKILL.md")))
        tree.move_cursor(target)
        await pilot.press("enter")
        await settle(app, pilot)
        assert app.current_mode == "preview" and app.selected.name == "pdf-tools"


@aio
async def test_doctor_detail_names_the_checks_that_found_a_merged_cause(demo):
    """The demo's yaml-retry frontmatter is one finding that Claude Code and the Agent Skills spec both state (the
    doctor merges them): its detail says who found it; a finding only one check states says nothing of the kind."""
    from textual.widgets import Tree

    async with running(demo) as (app, pilot):
        await pilot.press("5")
        await settle(app, pilot)
        tree = app.screen.query_one("#diagnostics", Tree)
        tree.root.expand_all()
        await settle(app, pilot)
        leaves = diagnostic_leaves(tree.root)
        merged = next(n for n in leaves if len(n.data.lenses) > 1)
        alone = next(n for n in leaves if len(n.data.lenses) <= 1)
        for node, said in ((merged, True), (alone, False)):
            tree.move_cursor(node)
            await settle(app, pilot)
            detail = str(app.screen.query_one("#diag-detail").render())
            assert node.data.code in detail
            assert ("(found by " + ", ".join(node.data.lenses) + ")" in detail) is said and ("found by" in detail) is said, detail


@aio
async def test_every_screen_follows_the_theme(demo):
    async with running(demo) as (app, pilot):
        for key in "12345":
            await pilot.press(key)
            await settle(app, pilot)
            app.theme = "textual-light"
            await settle(app, pilot)
            app.theme = "textual-dark"
            await settle(app, pilot)
        assert app.current_mode == "doctor"


@aio
async def test_help_screen(demo):
    async with running(demo) as (app, pilot):
        await pilot.press("question_mark")
        await settle(app, pilot)
        assert isinstance(app.screen, HelpScreen)
        source = app.screen.query_one("#help-text").source
        assert "This screen: Skills" in source and "`/`" in source and "Budget (3)" in source
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)


@aio
async def test_command_palette_reaches_screens_and_skills(demo):
    async with running(demo) as (app, pilot):
        await pilot.press("ctrl+p")
        await pilot.press(*"go to budget")
        await settle(app, pilot)  # the palette's search is a worker: enter before its answer would pick nothing
        await pilot.press("enter")
        await settle(app, pilot)
        assert app.current_mode == "budget"
        from skilltui.tui.commands import SkilltuiCommands

        texts = [c.text for c in SkilltuiCommands(app.screen)._commands()]
        assert "Preview skill pdf-tools (pdf) (user)" in texts
        assert any(t.startswith("Disable plugin formatter@demo-market") for t in texts)
        assert any(t.startswith("Budget: simulate") for t in texts)


@aio
async def test_runtime_switcher_offers_importable_runtimes(demo):
    async with running(demo) as (app, pilot):
        keys = [k for k, _ in app.runtimes]
        assert "claude" in keys
        await pilot.press("r")
        await settle(app, pilot)
        if len(keys) > 1:
            assert app.opts.runtime == keys[1] and app.state.catalog.runtime == keys[1]
        else:
            assert app.opts.runtime == "claude"


@aio
async def test_refreshes_when_a_skill_file_changes(demo):
    async with running(demo) as (app, pilot):
        first = app.state
        skill = next(s for s in first.catalog.skills if s.name == "standup")
        text = Path(skill.path).read_text()
        time.sleep(0.01)
        Path(skill.path).write_text(text.replace("Summarise", "Summarize"))
        os.utime(skill.path, ns=(time.time_ns(), time.time_ns() + 10_000_000))
        app.check_files()
        await settle(app, pilot)
        assert app.state is not first
        texts = [app.state.text_for(s) for s in app.state.catalog.skills if s.name == "standup"]
        assert texts and texts[0].startswith("Summarize")


# ---------------------------------------------------------------- untrusted text
def _hostile_tree(root: Path) -> Options:
    home, project = root / "home", root / "project"
    skills = home / ".claude" / "skills"
    for folder in ("[bold]x[red]", "esc\x1b[31mape", "plain", "[link=https:⁄⁄e.example]y"):
        d = skills / folder
        d.mkdir(parents=True)
        (d / "SKILL.md").write_text(
            f"---\nname: \"{HOSTILE.replace(chr(27), '')}\"\ndescription: \"{HOSTILE.replace(chr(27), '')}\"\n---\n"
            f"# {HOSTILE}\n\nBody [bold]not bold[/] and \x1b[2J clear and [link=file:///etc/passwd]l[/link].\n\n"
            f"[a link](../../../../etc/passwd) and [ok]({'x.md'})\n")
    (skills / "plain" / "x.md").write_text(HOSTILE)
    (project / ".git").mkdir(parents=True)
    return Options(cwd=str(project), home=str(home), managed_dir=str(root / "managed"), env={"HOME": str(home)})


@aio
async def test_markup_and_escapes_in_names_descriptions_and_bodies_are_text(tmp_path):
    from skilltui.tui.textual_private import MarkdownBlock

    opts = _hostile_tree(tmp_path)
    async with running(opts) as (app, pilot):
        assert app.current_mode == "skills"
        rows = "\n".join(table_text(app.screen.query_one("#skills")))
        assert "[bold]x[red]" in rows and "[bold]boom[/]" in rows
        assert "\x1b" not in rows
        for skill in [s for s in app.state.catalog.skills if s.path]:
            app.open_preview(skill)
            await settle(app, pilot)
            screen = app.screen
            source = screen.doc.source
            assert "[bold]not bold[/]" in source and "\x1b" not in source
            shown = [b._content.plain for b in screen.doc.query(MarkdownBlock) if getattr(b, "_content", None)]
            assert any("[bold]not bold[/]" in text for text in shown)  # rendered as text, not as markup
            assert any("[@click=app.quit]q[/]" in text for text in shown)
            title = str(screen.query_one("#preview-title").render())
            assert "\x1b" not in title
        await pilot.press("f", "down", "enter")
        await settle(app, pilot)
        await pilot.press("3")
        await settle(app, pilot)
        prompt = app.screen.query_one("#prompt").text
        assert "[bold]" in str(prompt)
        await pilot.press("5")
        await settle(app, pilot)
        await pilot.press("ctrl+p", *"bold")
        await settle(app, pilot)  # the palette's search (a worker) shows the hostile names
        await pilot.press("escape")
        await pilot.press("question_mark")
        await settle(app, pilot)
    assert app.return_code in (None, 0)


# ---------------------------------------------------------------- speed on a large body
@aio
async def test_large_body_first_screen_is_fast(tmp_path, shared_dir):
    source = shared_dir / "corpus" / "github__awesome-copilot" / "skills" / "quality-playbook" / "SKILL.md"
    if not source.is_file():
        pytest.skip("the 292 KB corpus file is not available")
    home = tmp_path / "home"
    d = home / ".claude" / "skills" / "quality-playbook"
    d.mkdir(parents=True)
    shutil.copy(source, d / "SKILL.md")
    (tmp_path / "project").mkdir()
    opts = Options(cwd=str(tmp_path / "project"), home=str(home), managed_dir=str(tmp_path / "m"), env={"HOME": str(home)})
    async with running(opts) as (app, pilot):
        skill = next(s for s in app.state.catalog.skills if s.name == "quality-playbook")
        other = next(s for s in app.state.catalog.skills if s.shipped)
        times = []
        for _ in range(3):  # a shared machine is noisy: the best of three is what the code costs
            app.open_preview(other)
            await settle(app, pilot)
            painted = asyncio.Event()
            start = time.perf_counter()
            app.open_preview(skill)
            preview_screen = mode_screen(app, "preview")  # the body is read off the UI thread, then mounted
            await until(lambda p=preview_screen: p.doc is not None and bool(p.doc.children))
            body = preview_screen.doc
            app.call_after_refresh(painted.set)  # the first frame that holds the first piece
            await asyncio.wait_for(painted.wait(), 60)
            times.append(time.perf_counter() - start)
            assert body.lines_shown < body.lines_total
        print("first screen of the 292 KB body:", [round(t, 3) for t in times])  # a figure; bench/ holds targets
        await settle(app, pilot)
        assert body.lines_shown > body._first  # the screen below the first piece is filled after the first paint
        shown = body.lines_shown
        await pilot.press("end")
        await settle(app, pilot)
        assert body.lines_shown > shown  # scrolling to the end loads the next piece


def test_long_paths_are_cut_at_their_start_to_the_column():
    from rich.cells import cell_len

    from skilltui.tui.screens.preview import fit_start

    path = "references/a-rather-long-folder-name/scene-design-system.md"
    assert fit_start(path, 100) == path
    for width in (2, 5, 12, 30):
        cut = fit_start(path, width)
        assert cut.startswith("…") and path.endswith(cut[1:]) and cell_len(cut) <= width
    wide = "参考/文件名很长的路径.md"
    assert cell_len(fit_start(wide, 11)) <= 11 and fit_start(wide, 11).endswith("路径.md")


@aio
async def test_referenced_file_paths_fit_the_column(tmp_path):
    home = tmp_path / "home"
    d = home / ".claude" / "skills" / "deep"
    (d / "references" / "a-rather-long-folder-name").mkdir(parents=True)
    (d / "references" / "a-rather-long-folder-name" / "scene-design-system.md").write_text("x")
    (d / "SKILL.md").write_text("---\nname: deep\ndescription: x\n---\n\nSee "
                                "[design](references/a-rather-long-folder-name/scene-design-system.md).\n")
    (tmp_path / "project").mkdir()
    opts = Options(cwd=str(tmp_path / "project"), home=str(home), managed_dir=str(tmp_path / "m"), env={"HOME": str(home)})
    async with running(opts) as (app, pilot):
        app.open_preview(next(s for s in app.state.catalog.skills if s.name == "deep"))
        await settle(app, pilot)
        refs = app.screen.query_one("#refs")
        first = str(refs.get_option_at_index(0).prompt)
        assert first.startswith("✓ …") and first.endswith("scene-design-system.md :6")
        assert len(first) <= refs.scrollable_content_region.width
        refs.highlighted = 0
        await pilot.press("f", "enter")
        await settle(app, pilot)
        assert isinstance(app.screen, FileScreen)  # the cut label still opens the whole path


@aio
async def test_next_preview_keeps_loading_after_a_scrolled_one(tmp_path):
    """A body is drawn before its screen is shown; the check for "near the end" must not use the last document's
    geometry (a long document scrolled down), or the next body stops at its first piece."""
    home = tmp_path / "home"
    for name in ("long-a", "long-b"):
        d = home / ".claude" / "skills" / name
        d.mkdir(parents=True)
        paras = "\n\n".join(f"Paragraph {i} of {name}, long enough to wrap once or twice on a narrow screen." for i in range(400))
        (d / "SKILL.md").write_text(f"---\nname: {name}\ndescription: x\n---\n\n# {name}\n\n{paras}\n")
    (tmp_path / "project").mkdir()
    opts = Options(cwd=str(tmp_path / "project"), home=str(home), managed_dir=str(tmp_path / "m"), env={"HOME": str(home)})
    async with running(opts) as (app, pilot):
        a, b = (next(s for s in app.state.catalog.skills if s.name == n) for n in ("long-a", "long-b"))
        app.open_preview(a)
        await settle(app, pilot)
        for _ in range(6):
            await pilot.press("end")
            await settle(app, pilot)
        assert app.screen.query_one("#preview-doc").scroll_y > 50
        app.action_back()
        await settle(app, pilot)
        app.open_preview(b)
        await settle(app, pilot)
        body = app.screen.doc
        assert app.selected is b and body.lines_shown > body._first


# ---------------------------------------------------------------- the corpus as a project
def _mount_corpus(corpus: Path, base: Path) -> Options:
    """Every corpus skill linked into one project's .claude/skills (the corpus itself is only read)."""
    home, proj = base / "home", base / "proj"
    skills = proj / ".claude" / "skills"
    skills.mkdir(parents=True)
    (proj / ".git").mkdir()
    (home / ".claude").mkdir(parents=True)
    for i, md in enumerate(sorted(corpus.rglob("SKILL.md"))):
        if md.is_file() and not md.is_symlink():
            (skills / f"s{i:04d}-{md.parent.name}").symlink_to(md.parent)
    return Options(cwd=str(proj), home=str(home), managed_dir=str(base / "managed"), env={"HOME": str(home)})


@aio
async def test_corpus_opens_before_the_scan_ends_and_stays_responsive(tmp_path, shared_dir, monkeypatch):
    import threading

    corpus = shared_dir / "corpus"
    if not corpus.is_dir():
        pytest.skip("the corpus is not available")
    opts = _mount_corpus(corpus, tmp_path)
    release = threading.Event()
    real_load = data.load

    def slow_load(o, **options):  # discovery that ends only when the test says so
        release.wait(30)
        return real_load(o, **options)

    monkeypatch.setattr(data, "load", slow_load)
    app = SkilltuiApp(opts, poll=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.state is None  # the first screen is up while discovery runs, and says so
        assert app.screen.query_one("#skills").loading and "scanning" in app.busy
        await pilot.press("question_mark")  # keys work during the scan
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape", "3")
        assert app.current_mode == "budget"
        await pilot.press("1")
        release.set()
        await until(lambda: app.state is not None)
        await pilot.pause()
        screen = app.screen
        assert len(screen.rows) > 1000
        table = screen.query_one("#skills")
        assert table.row_count == len(screen.row_keys) > 1000
        assert 0 < table.rows.made < 200  # a row's cells are made when it is drawn: a screenful, not every row
        await pilot.press("slash", *"playwright")
        # the filter waits for a pause in the typing on a big catalog: wait until it has run for the whole word
        await until(lambda: screen.needle == "playwright" and screen._debounce is None)
        await pilot.pause()
        assert 0 < len(screen.rows) < 100
        assert all("playwright" in (s.name + s.label + (s.description or "") + app.state.text_for(s)).casefold()
                   for s in screen.rows.values())
        await pilot.press("enter", "enter")
        await settle(app, pilot)
        assert app.current_mode == "preview" and app.screen.doc is not None
        for key in "3451":
            await pilot.press(key)
        await settle(app, pilot)
        assert app.current_mode == "skills"


@aio
async def test_a_failed_discovery_is_said_not_raised(demo, monkeypatch):
    def broken(opts, **options):
        raise OSError("disk on fire [bold]x[/]")

    monkeypatch.setattr(data, "load", broken)
    async with running(demo) as (app, pilot):
        assert app.state is None and "disk on fire [bold]x[/]" in app.load_error
        counts = str(app.screen.query_one("#counts").render())
        assert "Discovery failed" in counts and "[bold]x[/]" in counts
        await pilot.press("q")
    assert app.return_code == 0


@aio
async def test_preview_compares_every_runtime(demo):
    """`a` on the Preview: the same skill through each runtime's eyes (code-style lives in .agents/skills)."""
    from textual.geometry import Region

    from skilltui.tui.screens.runtimes import RuntimesScreen

    async with running(demo) as (app, pilot):
        await pilot.press("r")  # Codex sees code-style; Claude Code does not
        await settle(app, pilot)
        await pilot.press("slash", *"code-style", "enter", "enter")
        await settle(app, pilot)
        assert app.current_mode == "preview" and app.selected.name == "code-style"
        await pilot.press("a")
        await settle(app, pilot)
        assert isinstance(app.screen, RuntimesScreen)
        for _ in range(100):
            await pilot.pause(0.05)
            if not app.screen.workers:
                break
        await pilot.pause(0.05)
        lines = app.screen.query_one("#runtimes-table").render_lines(Region(0, 0, 100, 20))
        text = "\n".join(line.text for line in lines)
        assert "claude 2.1.332" in text and "not found" in text and "codex 0.171.0" in text and "listed" in text
        await pilot.press("escape")
        assert app.current_mode == "preview" and not isinstance(app.screen, RuntimesScreen)


@aio
async def test_budget_says_which_model_and_where_it_comes_from_within_the_line(demo):
    """The parameter line is one line: the model and its source must fit at 120 columns (the whole why, cut there
    before, is the line's tooltip)."""
    async with running(demo) as (app, pilot):
        await pilot.press("3")
        await settle(app, pilot)
        line = app.screen.query_one("#budget-params")
        shown = "".join(seg.text for seg in line.render_line(0))
        assert "model claude-opus-5-5 (Claude Code's default)" in shown
        assert "set `model` in settings or pass --model" in str(line.tooltip)


@aio
async def test_budget_shows_each_runtimes_own_prompt(demo):
    async with running(demo) as (app, pilot):
        await pilot.press("r")  # Codex
        await settle(app, pilot)
        await pilot.press("3")
        await settle(app, pilot)
        screen = app.screen
        params = str(screen.query_one("#budget-params").render())
        assert "Simulated prompt of codex 0.171.0" in params and "8,000" in params
        assert "<skills_instructions>" in screen.query_one("#prompt").text
        assert "code-style" in screen.query_one("#prompt").text
        await pilot.press("w", *"100k", "enter")
        await settle(app, pilot)
        assert "2% of a 100,000-token window" in str(screen.query_one("#budget-params").render())
        await pilot.press("r")  # oh-my-pi: no budget, the whole list
        await settle(app, pilot)
        assert "omp 18.3.4" in str(screen.query_one("#budget-params").render())
        assert "# Skills & Rules" in screen.query_one("#prompt").text


# ---------------------------------------------------------------- quitting and teardown
@aio
async def test_ctrl_c_quits_even_from_a_text_field(demo):
    async with running(demo) as (app, pilot):
        await pilot.press("slash", "x")
        assert app.screen.focused is app.screen.query_one("#filter")
        await pilot.press("ctrl+c")
        await until(lambda: app.return_code is not None)
        assert app.return_code == 0


@pytest.mark.parametrize("opener", ["touch", "help"])
@aio
async def test_a_key_right_after_quit_opens_no_screen(demo, opener):
    """q then t (or ?) in one burst, as a fast typist or tmux sends them: the app closes cleanly. The second key's
    screen was pushed onto the closing app, found none of its widgets in on_mount and ended it with a traceback and
    exit code 1. Here the two keys' actions run back to back, as they do when both arrive in one read."""
    async with running(demo) as (app, pilot):
        await until(lambda: app.state is not None)
        app.exit()
        (app.screen.action_touch if opener == "touch" else app.action_help)()
        await until(lambda: not app.is_running)
    assert app.return_code == 0


@aio
async def test_prepare_timers_firing_after_teardown_do_nothing(demo):
    """The flake: a prepare timer that fires while the app is closing raised ScreenStackError."""
    async with running(demo) as (app, pilot):
        screen = app.screen
    assert not app.screen_stack
    await app._prepare_modes()  # would build a mode on a closed app
    app._draw_unseen(screen)  # would read app.screen: ScreenStackError


QUIT_WHILE_BLOCKED = r"""
import sys, threading
from pathlib import Path
from textual import work
sys.path.insert(0, sys.argv[1])
from skilltui.demo import demo_options
from skilltui.tui.app import SkilltuiApp, run_and_leave

blocked = threading.Event()

class App(SkilltuiApp):
    CSS_PATH = str(Path(sys.modules[SkilltuiApp.__module__].__file__).parent / SkilltuiApp.CSS_PATH)

    @work(thread=True, group="stuck")
    def stuck(self):
        blocked.set()
        threading.Event().wait()  # like a read from a FIFO that no one writes: never returns

async def pilot(p):
    p.app.stuck()
    while not blocked.is_set():
        await p.pause(0.01)
    await p.press(sys.argv[3])

app = App(demo_options("claude", {"SKILLTUI_DEMO_DIR": sys.argv[2]}, reset=True), poll=False)
print("exit", run_and_leave(app, headless=True, auto_pilot=pilot, size=(80, 24)), flush=True)
"""


@pytest.mark.parametrize("key", ["q", "ctrl+c"])
def test_quit_never_waits_for_a_blocked_worker(tmp_path, key):
    import subprocess
    import sys

    repo = str(Path(__file__).resolve().parents[1])
    script = tmp_path / "quit_while_blocked.py"
    script.write_text(QUIT_WHILE_BLOCKED)
    done = subprocess.run([sys.executable, str(script), repo, str(tmp_path / "demo"), key],
                          capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-2000:]  # without the key the app would run until the timeout
    assert "exit" not in done.stdout  # left through os._exit: the blocked thread was not joined


# ---------------------------------------------------------------- the palette follows the current screen
def _declared_bindings(node) -> set[str]:
    """Actions bound by skilltui's own classes (not Textual's) on `node`."""
    from textual.binding import Binding

    out = set()
    for cls in type(node).__mro__:
        if cls.__module__.startswith("skilltui."):
            out |= {(b if isinstance(b, Binding) else Binding(*b)).action for b in cls.__dict__.get("BINDINGS", [])}
    return out


@aio
async def test_every_binding_of_every_screen_is_in_the_palette(demo):
    from skilltui.tui.commands import SkilltuiCommands

    async with running(demo) as (app, pilot):
        def check(screen) -> None:
            commands = SkilltuiCommands(screen)._commands()
            actions = {c.action for c in commands}
            wanted = _declared_bindings(app) | _declared_bindings(screen)
            for widget in screen.query("*"):
                wanted |= _declared_bindings(widget)
            missing = wanted - actions
            assert not missing, (type(screen).__name__, missing)
            keyed = [c for c in commands if c.action is not None]
            assert len({c.text for c in keyed}) == len(keyed), [c.text for c in keyed]  # q and ctrl+c: one Quit
            kinds = [c.text.startswith(("Everywhere:", "Go to ")) for c in keyed]
            assert kinds == sorted(kinds), [c.text for c in keyed]  # this screen's own commands come first

        for mode in app.MODES:
            await pilot.press(str(list(app.MODES).index(mode) + 1))
            await settle(app, pilot)
            assert app.current_mode == mode
            check(app.screen)
        await pilot.press("1", "question_mark")
        await settle(app, pilot)
        check(app.screen)
        await pilot.press("escape", "4", "t")
        await settle(app, pilot)
        assert isinstance(app.screen, ToggleScreen)
        check(app.screen)
        await pilot.press("escape")
        skill = next(s for s in app.state.catalog.skills if s.path and s.status == "listed")
        app.open_file(skill.path)
        await settle(app, pilot)
        assert isinstance(app.screen, FileScreen)
        check(app.screen)


@aio
async def test_a_screen_key_runs_from_the_palette(demo):
    async with running(demo) as (app, pilot):
        await pilot.press("3")
        await settle(app, pilot)
        await pilot.press("ctrl+p")
        await pilot.press(*"budget: window")
        await settle(app, pilot)  # the palette's search is a worker
        await pilot.press("enter")
        await settle(app, pilot)
        assert app.current_mode == "budget"
        assert app.screen.focused is app.screen.query_one("#window")


@aio
async def test_home_and_end_go_to_the_first_and_last_row(demo):
    async with running(demo) as (app, pilot):
        for key, table_id in (("1", "#skills"), ("3", "#entries"), ("4", "#plugins")):
            await pilot.press(key)
            await settle(app, pilot)
            table = app.screen.query_one(table_id)
            table.focus()
            await pilot.press("end")
            assert table.cursor_row == table.row_count - 1 > 0, table_id
            await pilot.press("home")
            assert table.cursor_row == 0, table_id


@aio
async def test_quitting_during_the_markdown_warm_up_is_quiet(demo):
    """The hidden Markdown document mounted after the first rows (`_warm_markdown`) may still be mounting when the
    user quits: the app closes without an error (it raised MountError once: "before SafeMarkdown is mounted")."""
    for ticks in range(6):  # quit at a different point of the warm-up each time
        app = SkilltuiApp(demo, poll=False)
        async with app.run_test(size=SIZE):
            await until(lambda app=app: app.state is not None)
            warm = asyncio.ensure_future(app._warm_markdown())
            for _ in range(ticks):
                await asyncio.sleep(0)
            app.exit(0)
            await asyncio.wait_for(warm, 60)  # finishes, or gives up quietly, never raises
        assert app.return_code == 0, ticks


@aio
async def test_preview_with_no_skill_selected_has_no_body_to_wait_for(demo):
    """The switch to Preview waits (briefly) for the body's first piece; with no skill selected there is none, so
    the wait ends at once instead of running out its time (it did, on every such visit)."""
    async with running(demo) as (app, pilot):
        await until(lambda: mode_screen(app, "preview") is not None)
        screen = mode_screen(app, "preview")
        assert app.selected is None and app.state is not None
        waiting = screen.first_piece()
        with pytest.raises(StopIteration):
            waiting.send(None)  # finished without suspending
        app.select(app.state.catalog.skills[0])
        waiting = screen.first_piece()
        try:  # with a skill selected it waits for its body (read off the UI thread)
            await asyncio.wait_for(waiting, 60)
        finally:
            waiting.close()
        assert screen.doc is not None or screen.skill is app.selected


def test_the_workers_steps_after_the_rows_wait_for_a_quiet_moment_boundedly(demo, monkeypatch):
    """After the first rows the discovery thread still stats files, writes the cache and imports the other screens;
    it holds the interpreter lock meanwhile, so each step waits until no key has come for QUIET_SECONDS (at most
    MAX_QUIET_WAIT_SECONDS), and a cancelled worker does not wait. A fake clock: no wall time in the test."""
    from types import SimpleNamespace

    from skilltui.tui import app as app_module

    class Clock:
        def __init__(self) -> None:
            self.now = 1000.0
            self.slept: list[float] = []

        def monotonic(self) -> float:
            return self.now

        def sleep(self, seconds: float) -> None:
            self.slept.append(seconds)
            self.now += seconds

    clock = Clock()
    monkeypatch.setattr(app_module, "time", clock)
    app = SkilltuiApp(demo, poll=False)
    running_worker = SimpleNamespace(is_cancelled=False)
    app._last_input = clock.now - 0.1  # a key a moment ago
    app._wait_for_quiet(running_worker)
    assert clock.now - app._last_input == pytest.approx(app_module.QUIET_SECONDS, abs=0.06)
    clock.slept.clear()
    app._wait_for_quiet(running_worker)  # quiet already: no wait
    assert clock.slept == []

    class Typing(Clock):  # a key at every moment: the wait is bounded
        def sleep(self, seconds: float) -> None:
            super().sleep(seconds)
            app._last_input = self.now

    typing = Typing()
    monkeypatch.setattr(app_module, "time", typing)
    app._last_input = typing.now
    app._wait_for_quiet(running_worker)
    assert sum(typing.slept) == pytest.approx(app_module.MAX_QUIET_WAIT_SECONDS, abs=0.06)
    typing.slept.clear()
    app._wait_for_quiet(SimpleNamespace(is_cancelled=True))
    assert typing.slept == []


@aio
async def test_work_ahead_waits_while_keys_come_and_while_the_event_loop_is_busy(demo):
    """The screens built ahead on the UI thread wait for a quiet moment: a key within QUIET_SECONDS, a check that
    ran late (the loop was busy: a first visit being built) or a pending frame postpone them, boundedly."""
    from skilltui.tui import app as app_module
    from skilltui.tui.textual_private import drawing_pending

    async with running(demo) as (app, pilot):
        await until(lambda: not drawing_pending(app))
        # one clock reading for every check (a busy machine may pause this test between two lines), and the app's
        # own postponements so far forgotten
        now = time.monotonic()
        app._last_input, app._warm_due, app._postponed = now, now, 0
        assert app._warm_wait(now) > app_module.QUIET_SECONDS / 2  # typing: wait
        app._last_input = now - 10
        app._warm_due = now - 1.0  # the check runs a second late: the loop was busy
        waits = [app._warm_wait(now) for _ in range(app_module.MAX_POSTPONED)]
        assert all(w > 0 for w in waits)
        assert app._warm_wait(now) == 0  # postponed enough: runs anyway (never held back for ever)
        await until(lambda: not drawing_pending(app))
        now = app._warm_due = time.monotonic()
        assert app._warm_wait(now) == 0  # quiet, on time, nothing to draw: now


@aio
async def test_a_screen_prepared_in_idle_time_is_drawn_before_its_first_visit(demo):
    """The app builds the other screens while idle (`_prepare_modes`) and draws them from the current state too, so
    a first visit only shows the screen: Budget's listing, table and prompt are there before it is shown."""
    async with running(demo) as (app, pilot):
        def drawn() -> bool:
            screen = mode_screen(app, "budget")
            return screen is not None and getattr(screen, "result", None) is not None

        await until(drawn)
        screen = mode_screen(app, "budget")
        assert app.current_mode == "skills"
        assert screen.query_one("#entries").row_count == len(screen.result.entries) > 0
        # the demo's model (Claude Code's default, claude-opus-5-5) gets the rows in its system message
        assert screen.query_one("#prompt").text.startswith("The following skills are available for use with the Skill tool:")
        assert "in the system message" in str(screen.query_one("#prompt-title").render())
        await pilot.press("3")
        await settle(app, pilot)
        fit = str(screen.query_one("#budget-fit").render())
        assert app.screen is screen and ("Over budget:" in fit or "Everything fits:" in fit)


@aio
async def test_help_is_not_restyled_whole_when_first_shown(demo, monkeypatch):
    """Textual restyles a screen's every widget each time it is shown; the help screen was styled as it mounted a
    moment before, so its first showing skips that (about 0.1 s of the popup's first paint)."""
    import sys

    from textual.dom import DOMNode

    restyled: list[tuple[object, str]] = []  # (node, the function that asked)
    original = DOMNode.update_node_styles

    def counting(self, *args, **kwargs):
        restyled.append((self, sys._getframe(1).f_code.co_name))
        return original(self, *args, **kwargs)

    monkeypatch.setattr(DOMNode, "update_node_styles", counting)
    async with running(demo) as (app, pilot):
        await pilot.press("question_mark")
        await until(lambda: isinstance(app.screen, HelpScreen))
        await settle(app, pilot)
        help_screen = app.screen
        assert "Everywhere" in "\n".join(render_lines(help_screen))
        assert (help_screen, "_on_screen_resume") not in restyled
