"""The toggle dialog: which settings file to write, the exact lines the write changes (the writer's own planned bytes,
diffed), the git ignore line a local write adds, who still decides, and the effect on the listing, all before anything
is written. Write is offered only when writing changes something; else the dialog (and `w`) says why and which file
decides. Writing goes through the engine's one careful writer (`toggle.apply`)."""

from __future__ import annotations

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, RadioButton, RadioSet, Static
from textual.worker import get_current_worker

from skilltui import settings_writer, whatif
from skilltui.runtimes.claude import toggle
from skilltui.text import safe
from skilltui.tui import data
from skilltui.tui.messages import ToggleRequest
from skilltui.tui.screens.base import palette

SCOPES = ("user", "project", "local")


class ToggleScreen(ModalScreen):
    HELP = ("Choose the settings file (scope) to write. The dialog shows every line the write adds or changes (and "
            "the git ignore line a local write adds), says when a file of higher precedence still decides (then "
            "there is nothing to write), and shows the effect on the skill listing. Nothing is written until you "
            "press Write.")
    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="toggle.cancel"),
        Binding("ctrl+s,w", "write", "Write", id="toggle.write"),
        Binding("a", "scope('auto')", "Auto scope", show=False),
        Binding("u", "scope('user')", "User", show=False),
        Binding("p", "scope('project')", "Project", show=False),
        Binding("l", "scope('local')", "Local", show=False),
    ]

    def __init__(self, request: ToggleRequest, state: data.Loaded, budget_chars: int | None) -> None:
        super().__init__()
        self.request = request
        self.state = state
        self.budget_chars = budget_chars
        self.scope: str | None = None if request.kind == "plugin" else "local"
        self.value = request.value
        self.outcome: toggle.Outcome | None = None

    def compose(self) -> ComposeResult:
        catalog = self.state.claude
        paths = catalog.settings.paths
        with Vertical(id="toggle-dialog"):
            yield Static(Content(self.request.title), id="toggle-title")
            yield Static(self._now(), id="toggle-now")
            if self.request.kind == "override":
                with RadioSet(id="toggle-value"):
                    for v in toggle.OVERRIDE_VALUES:
                        yield RadioButton(Content(v), value=v == self.value, name=v)
            yield Static(Content("Write to"), classes="toggle-label")
            with RadioSet(id="toggle-scope"):
                if self.request.kind == "plugin":
                    yield RadioButton(Content("auto: the file that decides it now"), value=True, name="auto")
                for scope in SCOPES:
                    label = f"{scope:<8}{data.short_path(paths.scope_file(scope), catalog)}"
                    yield RadioButton(Content(safe(label)), value=scope == self.scope, name=scope)
            yield Static(id="toggle-change")
            yield Static(id="toggle-warnings")
            yield Static(id="toggle-effect")
            with Horizontal(id="toggle-buttons"):
                yield Static(Content("w write · esc cancel · a u p l: file"), id="toggle-keys")
                yield Button("Write", id="write", variant="primary")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        self.plan()

    def _now(self) -> Text:
        """Where things stand before the change."""
        catalog = self.state.claude
        r = self.request
        t = Text(style="dim")
        if r.kind == "plugin":
            p = next((p for p in catalog.plugins if p.id == r.target), None)
            if p is not None:
                t.append(f"Now {'enabled' if p.enabled else 'disabled'}, decided by {p.decided_by}")
                if p.decided_in:
                    t.append(f" ({safe(data.short_path(p.decided_in, catalog))})")
                t.append("; it loads." if p.loads else "; it does not load.")
        else:
            s = next((s for s in catalog.skills if s.name == r.target), None)
            if s is not None:
                t.append(f"Now {s.status}" + (f", skillOverrides: {s.override}" if s.override else "") + ".")
        return t

    # ------------------------------------------------------------ planning (nothing written)
    def plan(self) -> None:
        catalog = self.state.claude
        r = self.request
        if r.kind == "plugin":
            outcome = toggle.plan_plugin(catalog, r.target, bool(self.value), self.scope)
        else:
            outcome = toggle.plan_override(catalog, r.target, self.value, self.scope)
        try:
            toggle.preview(outcome)
        except settings_writer.SettingsWriteError as exc:
            outcome.message, outcome.failure_code = str(exc), "write_refused"
        self.outcome = outcome
        self._show_change(outcome)
        self.query_one("#write", Button).display = outcome.no_write() is None
        effect = self.query_one("#toggle-effect", Static)
        if outcome.ok and self.budget_chars is not None:
            effect.update(Text("Effect on the listing: working it out…", style="italic"))
            self._effect(outcome)
        else:
            effect.update("")

    def _show_change(self, outcome: toggle.Outcome) -> None:
        change_w = self.query_one("#toggle-change", Static)
        warn_w = self.query_one("#toggle-warnings", Static)
        catalog = self.state.claude
        why = outcome.no_write()
        t = Text()
        if not outcome.ok:
            t.append(safe(data.short_paths_in(outcome.message, catalog)), style="bold")
        elif outcome.change is not None:
            c = outcome.change
            t.append(safe(data.short_path(c.path, catalog)), style="bold")
            if c.created:
                t.append("  (a new file)", style="italic")
            if c.outside:  # a link leads out of the project: show where the write really goes; Write confirms it
                t.append(f"\n⚠ through a link, outside the project: {safe(c.target)} — Write confirms this real file",
                         style="bold")
            if why is None:
                self._diff(t, c.diff())
                if outcome.gitignore_planned and outcome.gitignore_diff:  # Claude Code's rule for local settings
                    t.append("\n" + safe(data.short_path(outcome.gitignore_planned, catalog)), style="bold")
                    t.append("  (so git ignores settings.local.json everywhere)", style="italic")
                    self._diff(t, outcome.gitignore_diff)
        if why is not None:  # Write is hidden: say why, which file decides, and how to write that one instead
            reason = why if outcome.ok else outcome.decides_note
            t.append("\nNothing to write" + (": " if reason else "."), style="bold")
            if reason:
                t.append(safe(data.short_paths_in(reason, catalog)), style="italic")
            key = {"user": "u", "project": "p", "local": "l"}.get(outcome.decides_scope or "")
            if key and outcome.decides_scope != outcome.scope:
                t.append(f"\nPress {key} to write the {outcome.decides_scope} file instead.", style="italic")
        change_w.update(t)
        w = Text()
        for warning in outcome.warnings:
            if warning == outcome.decides_note:  # said with "Nothing to write" above
                continue
            w.append("⚠ " + safe(warning) + "\n", style="bold")
        warn_w.update(w)
        warn_w.display = bool(w.plain)

    def _diff(self, t: Text, lines: list[str]) -> None:
        """Diff lines as written: added green, removed red, context dim (text, never markup). Hunk headers are left
        out: one setting changes one place of a file, so there is one hunk."""
        colours = palette(self.app)
        for line in lines:
            if line.startswith("@@"):
                continue
            style = {"+": colours["ok"], "-": colours["error"]}.get(line[:1], "dim")
            t.append("\n" + safe(line), style=style)

    @work(thread=True, exclusive=True, group="effect", description="simulate the toggle")
    def _effect(self, outcome: toggle.Outcome) -> None:
        try:
            effect = data.what_if(self.state, whatif.PlannedChange(outcome.path, tuple(outcome.keys), outcome.value),
                                  self.budget_chars)
            text = "Effect on the listing: " + data.effect_text(effect)
        except Exception as exc:  # the dialog still writes the change: say (and log) why its effect is not shown
            text = f"Effect on the listing could not be worked out: {data.logged(exc, 'what-if')}"
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._show_effect, text)  # widgets are touched on the UI thread only

    def _show_effect(self, text: str) -> None:
        self.query_one("#toggle-effect", Static).update(Text(safe(text), style="italic"))

    # ------------------------------------------------------------ events and actions
    @on(RadioSet.Changed, "#toggle-scope")
    def _scope_changed(self, event: RadioSet.Changed) -> None:
        name = event.pressed.name
        self.scope = None if name == "auto" else name
        self.plan()

    @on(RadioSet.Changed, "#toggle-value")
    def _value_changed(self, event: RadioSet.Changed) -> None:
        self.value = event.pressed.name
        self.plan()

    def action_scope(self, scope: str) -> None:
        for button in self.query_one("#toggle-scope", RadioSet).query(RadioButton):
            if button.name == scope:
                button.value = True

    @on(Button.Pressed, "#write")
    def action_write(self) -> None:
        outcome = self.outcome
        if outcome is None:
            return
        why = outcome.no_write()
        if why is not None:  # never silently nothing: say why, and which file decides
            self.notify(safe(data.short_paths_in(why, self.state.claude)), title="Nothing to write",
                        severity="warning", markup=False)
            return
        # The dialog showed the real target when a link leads out of the project: pressing Write confirms it.
        self.dismiss(toggle.apply(outcome, follow_links=outcome.change is not None and outcome.change.outside))

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
