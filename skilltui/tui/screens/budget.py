"""Budget: Claude Code's skill listing under a chosen context window, recomputed on every keystroke.

The engine prepares the rows once per catalog (`budget.prepared_for`); each change here only runs
`listing.simulate_prepared`, a pure function, so typing a window feels instant.
"""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Input, Select, Static

from skilltui import budget, units, whatif
from skilltui.runtimes import ModelPreset, get
from skilltui.runtimes.claude import listing
from skilltui.text import safe
from skilltui.tui import messages
from skilltui.tui.messages import ToggleRequest
from skilltui.tui.screens.base import BaseScreen, palette
from skilltui.tui.textual_private import TallTextArea
from skilltui.tui.widgets.budget_bar import BudgetBar
from skilltui.tui.widgets.table import Cell, Column, LazyRows, LineTable


def parse_window(value: str) -> int | None:
    """The window field: "" -> None; "200k", "1m", "1_000_000" -> tokens; else ValueError with a message for the user
    (the CLI's parser: skilltui.units)."""
    if not value.strip():
        return None
    return units.parse_count(value, "window")


class BudgetScreen(BaseScreen):
    MODE = "budget"
    AUTO_FOCUS = "#entries"
    HELP = ("Claude Code's skill listing as the model receives it, under the context window you choose: pick a model "
            "preset, type a model id, or type a window in tokens (200k, 1m). The bar shows the columns taken by "
            "entries shipped inside Claude Code, by full descriptions and by bare names, against the budget. The "
            "last column marks entries whose state differs from the default window (what the runtime would do now). `o` sets a skill override and `t` toggles the "
            "entry's plugin; both show the effect on this listing before anything is written.")
    BINDINGS = [
        # p, m and w are written in the fields themselves ("preset (p)"), so the footer keeps room at 80 columns
        Binding("p", "presets", "Preset", show=False, id="budget.preset", tooltip="Choose one of the runtime's models"),
        Binding("m", "focus('model')", "Model", show=False, id="budget.model", tooltip="Type a model id"),
        Binding("w", "focus('window')", "Window", show=False, id="budget.window",
                tooltip="Type a context window in tokens"),
        Binding("o", "override", "Override", id="budget.override", tooltip="Set a skillOverrides value for this entry"),
        Binding("t", "toggle_plugin", "Toggle plugin", id="budget.plugin", tooltip="Enable or disable this entry's plugin"),
        Binding("escape", "leave_field", "Back to the table", show=False, id="budget.leave"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.result: listing.Listing | None = None
        self._previous: dict[str, str] = {}  # entry states under the default window: the baseline of "Change"
        self._default_budget = 0
        self._prepared = None
        self.changes: dict[str, tuple[str, str]] = {}
        self._filled_for = None  # the prepared rows the table's columns were set for
        self._filled_narrow = False
        self._presets_of: str | None = None  # the runtime whose presets the list shows
        self.window_error: str | None = None  # what is wrong with the typed window, said on the screen
        self._pending_preset: ModelPreset | None = None
        self.shown_presets: tuple[ModelPreset, ...] = ()

    def compose_body(self) -> ComposeResult:
        with Horizontal(id="budget-controls"):
            yield Select([], prompt="preset (p)", id="preset", compact=True)
            yield Input(placeholder="model id (m)", id="model", compact=True)
            yield Input(placeholder="window (w), e.g. 200k", id="window", compact=True)
        yield Static(id="budget-params")
        yield Static(id="budget-fit")
        yield BudgetBar(id="bar")
        with Horizontal(id="budget-main"):
            table = LineTable(id="entries")  # draws only the rows it shows: 6,000 entries cost a screenful
            table.loading = True
            yield table
            with Vertical(id="prompt-box"):
                yield Static(Text("Prompt text, exactly", style="bold"), id="prompt-title", classes="side-title")
                yield TallTextArea(id="prompt", read_only=True, soft_wrap=True, show_cursor=False)

    def on_resize(self) -> None:
        if self._ready and self.app.state is not None and (self.app.size.width < 110) != self._filled_narrow:
            self.call_after_refresh(self.recompute)  # the columns fit the new width

    def refresh_view(self) -> None:
        if self._pending_preset is not None:
            preset, self._pending_preset = self._pending_preset, None
            self.use_preset(preset)  # its fields' Changed messages recompute
        self.recompute()

    # ------------------------------------------------------------ the simulation
    def recompute(self) -> None:
        state = self.app.state
        table = self.query_one("#entries", LineTable)
        params_line = self.query_one("#budget-params", Static)
        if state is None:
            table.loading = True
            params_line.update(Text(self.app.busy or "scanning…", style="italic"))
            return
        table.loading = False
        self._show_presets(state.catalog.runtime)
        if not get(state.catalog.runtime).listing_budget:
            self._other_runtime(state, table, params_line)
            return
        self.query_one("#bar", BudgetBar).display = True
        if state.claude is None or state.prepared is None:
            self.query_one("#budget-fit", Static).update("")
            params_line.update(Text("The budget simulation models Claude Code's listing; it is not available: "
                                    + safe(state.error or "Claude Code's catalog could not be read"), style="italic"))
            table.clear()
            self._filled_for = None
            return
        if state.prepared is not self._prepared:  # a new catalog: its default model may be another preset
            self._prepared = state.prepared
            self._sync_preset()
            default = budget.params_for(state.claude, state.opts)
            self._previous = {e.label: e.state for e in listing.simulate_prepared(state.prepared, default.budget).entries}
            self._default_budget = default.budget
        model = self.query_one("#model", Input).value.strip() or None
        window = self._window()
        params, result = whatif.listing_under(state.claude, state.opts, state.prepared, model=model,
                                              context_window=window)
        self.result = result
        self.post_message(messages.BudgetChanged(params.budget))
        now = {e.label: e.state for e in result.entries}
        self.changes = {k: (self._previous[k], v) for k, v in now.items() if k in self._previous and self._previous[k] != v}
        self._show_params(params, result)
        self.query_one("#bar", BudgetBar).show(result, palette(self.app))
        self._fill(table, result)
        title = Text("Prompt text, exactly\n", style="bold")
        title.append("in the system message" if params.placement == "system-message" else "in the first user message",
                     style="not bold dim")
        self.query_one("#prompt-title", Static).update(title)
        self.query_one("#prompt", TallTextArea).show_text(safe(result.prompt(params.placement), keep_newlines=True))

    def _other_runtime(self, state, table: LineTable, params_line: Static) -> None:
        """Codex and oh-my-pi render their own prompt with their own limits: show that text and each entry's fate."""
        window = self._window()
        if window is None:
            typed = self.query_one("#model", Input).value.strip()
            window = next((p.context_window for p in get(state.catalog.runtime).presets if p.model == typed), None)
        view = budget.other_runtime(state.catalog, context_window=window)
        data = view.to_json()
        catalog = state.catalog
        t = Text(f"Simulated prompt of {catalog.runtime} {catalog.runtime_version}", style="bold")
        if data.get("budget") is None:
            t.append("   no budget: every listed skill is in the prompt in full", style="dim")
            if isinstance(data.get("chars"), int):
                t.append(f"   {data['chars']:,} characters")
        else:
            t.append(f"   budget {data['budget']:,} {data.get('unit', 'chars')}"
                     + (f" (2% of a {window:,}-token window)" if window else " (window unknown: 8,000 characters)"))
            if data.get("over_budget"):
                t.append("   over budget: descriptions shortened or skills dropped", style=palette(self.app)["warning"])
        params_line.update(t)
        self.query_one("#budget-fit", Static).update(self._error_line() or "")
        self.query_one("#bar", BudgetBar).display = False
        self.result, self._filled_for = None, None
        table.set_columns([Column(name, name, width) for name, width in (("#", 3), ("Entry", 30), ("Source", 16),
                                                                         ("State", 10))])
        table.set_rows([(Cell(str(i + 1), "dim", right=True), Cell(safe(e["name"])),
                         Cell(safe(e.get("scope") or e.get("source") or ""), "dim"), Cell(e.get("state", "")))
                        for i, e in enumerate(data.get("entries", []))])
        self.query_one("#prompt", TallTextArea).show_text(safe(view.text, keep_newlines=True))

    def _show_params(self, params: listing.BudgetParams, result: listing.Listing) -> None:
        t = Text(no_wrap=True, overflow="ellipsis")
        t.append(f"Budget {params.budget:,} columns", style="bold")
        if params.source == "formula":
            t.append(f" = window {params.context_window:,} tokens × {params.chars_per_token:g} chars/token × "
                     f"{params.fraction:g}")
        elif params.source == "env":
            t.append(" from SLASH_COMMAND_TOOL_CHAR_BUDGET")
        else:
            t.append(f" ({params.source})")
        simulated = f"simulated listing of Claude Code {result.prepared.version}"
        tooltip = simulated
        state = self.app.state
        if state is not None and state.claude is not None and not self.query_one("#model", Input).value.strip() \
                and self._window() is None:
            choice = budget.default_model(state.claude, state.opts)  # no model typed: the user's own, and why
            # the line has room for where the model comes from; the whole why is the line's tooltip
            t.append(f"   model {choice.model} ({choice.short})", style="dim")
            tooltip = f"model {choice.why}" + (f"\nassumed: {choice.assumed}" if choice.assumed else "") + f"\n{simulated}"
        t.append(f"   {simulated}", style="dim")
        params_line = self.query_one("#budget-params", Static)
        params_line.update(t)
        params_line.tooltip = Text(tooltip)  # Text: the why may quote a settings path, never markup
        error = self._error_line()
        if error is not None:
            self.query_one("#budget-fit", Static).update(error)
            return
        t = Text(no_wrap=True, overflow="ellipsis")
        if result.over_budget:
            squeezed = sum(e.state == "name-only" for e in result.entries)
            t.append(f"Over budget: full width {result.total_full:,} > {result.budget:,}; "
                     f"{squeezed} description{'s' if squeezed != 1 else ''} cut to the bare name",
                     style=palette(self.app)["warning"])
        else:
            t.append(f"Everything fits: {result.total_full:,} of {result.budget:,} columns at full width")
        if self.changes:
            t.append(f"   {len(self.changes)} entries differ from the default window "
                     f"(budget {self._default_budget:,})", style="italic")
        self.query_one("#budget-fit", Static).update(t)

    # ------------------------------------------------------------ the fields
    def _window(self) -> int | None:
        """The typed window, or None (empty or invalid; an invalid one is said on the screen)."""
        field = self.query_one("#window", Input)
        try:
            window = parse_window(field.value)
        except ValueError as exc:
            self.window_error = str(exc)
            field.add_class("-invalid")
            return None
        self.window_error = None
        field.remove_class("-invalid")
        return window

    def _error_line(self) -> Text | None:
        if self.window_error is None:
            return None
        return Text(safe(self.window_error), no_wrap=True,
                    overflow="ellipsis", style=f"bold {palette(self.app)['error']}")

    def _show_presets(self, runtime: str) -> None:
        """The current runtime's model presets (a runtime property); none for a runtime without a budget."""
        if runtime == self._presets_of:
            return
        self._presets_of = runtime
        select = self.query_one("#preset", Select)
        presets = self.shown_presets = get(runtime).presets
        with self.prevent(Select.Changed):
            select.set_options([(p.label, p.model) for p in presets])
        select.display = bool(presets)
        self.query_one("#model", Input).display = bool(presets)
        self._sync_preset()

    def _sync_preset(self) -> None:
        """The preset list shows the typed model id when it is a preset, and nothing otherwise; with neither a model
        nor a window typed, the model the runtime would run (the one the parameter line names)."""
        select = self.query_one("#preset", Select)
        typed = self.query_one("#model", Input).value.strip()
        state = self.app.state
        if not typed and not self.query_one("#window", Input).value.strip() and state is not None:
            choice = get(state.catalog.runtime).listing_model(state.catalog, state.opts)
            typed = choice.model if choice is not None and choice.model else ""
        models = {p.model for p in get(self._presets_of).presets} if self._presets_of else set()
        with self.prevent(Select.Changed):
            if typed in models:
                select.value = typed
            elif not select.is_blank():
                select.clear()

    def use_preset(self, preset: ModelPreset) -> None:
        """Show the listing under this model: its id in the model field, its window (if the runtime needs it)."""
        if not self._ready:  # asked from the palette before this screen was ever shown: once it is composed
            self._pending_preset = preset
            return
        self.query_one("#model", Input).value = preset.model
        self.query_one("#window", Input).value = f"{preset.context_window:_}" if preset.context_window else ""
        if self._presets_of is not None:
            self._sync_preset()

    COLUMNS = (("#", 3), ("Entry", 22), ("Source", 10), ("State", 9), ("Shown", 6), ("Full", 6), ("vs default", 12))
    NARROW_WIDTHS = {"Entry": 19, "Source": 8, "vs default": 10}  # below the app's breakpoint: 80 cells

    @staticmethod
    def _cells(i: int, e, colours: dict[str, str], changes: dict[str, tuple[str, str]]) -> tuple[Cell, ...]:
        shown = e.full_width if e.shown == "full" else e.name_only_width
        change = changes.get(e.label)
        return (
            Cell(str(i + 1), "dim", right=True),
            Cell(safe(e.label), "" if e.shown == "full" else "italic", ellipsis=True),
            Cell(e.source, "dim", ellipsis=True),
            Cell(e.state, colours.get(e.state, "")),
            Cell(f"{shown:,}", right=True),
            Cell(f"{e.full_width:,}", "dim", right=True),
            Cell(f"→ {change[1]}" if change else "", "bold"),
        )

    def _fill(self, table: LineTable, result: listing.Listing) -> None:
        """Rows for the listing, all at once: the table builds a line only when it shows it, and keeps the lines
        whose row did not change, so a keystroke redraws the few rows that changed on screen."""
        palette_ = palette(self.app)
        colours = {"full": palette_["ok"], "name-only": palette_["warning"], "fixed": palette_["primary"]}
        narrow = self.app.size.width < 110
        if self._filled_for is not result.prepared or self._filled_narrow != narrow or not table.columns:
            table.set_columns([Column(name, name, self.NARROW_WIDTHS.get(name, width) if narrow else width)
                               for name, width in self.COLUMNS])
        self._filled_narrow, self._filled_for = narrow, result.prepared
        entries, changes = result.entries, self.changes
        table.set_rows(LazyRows(len(entries), lambda i: self._cells(i, entries[i], colours, changes)))

    # ------------------------------------------------------------ events
    @on(Input.Changed, "#model")
    def _model_changed(self) -> None:
        self._sync_preset()
        self.recompute()

    @on(Input.Changed, "#window")
    def _window_changed(self) -> None:
        self._sync_preset()
        self.recompute()

    @on(Select.Changed, "#preset")
    def _preset(self, event: Select.Changed) -> None:
        if isinstance(event.value, str) and self._presets_of is not None:
            preset = next((p for p in get(self._presets_of).presets if p.model == event.value), None)
            if preset is not None:
                self.use_preset(preset)

    def action_presets(self) -> None:
        select = self.query_one("#preset", Select)
        if not select.display:
            self.notify("This runtime has no budget: every listed skill is sent in full, whatever the model.",
                        markup=False)
            return
        self.set_focus(select)
        select.expanded = True

    @on(Input.Submitted)
    def action_leave_field(self) -> None:
        """Enter or Esc in a field hands the keys back to the table, so 1–5 switch screens again."""
        self.set_focus(self.query_one("#entries", LineTable))

    def on_key(self, event) -> None:
        # Keys typed in one burst ("w2k" fast, or from tmux send-keys) all reach the table before the "w" binding
        # runs, as on the Skills screen: "w" and "m" move the focus as the key passes, and the printable keys after
        # them, which come back unused from the table, go to the field.
        field = self.focused if isinstance(self.focused, Input) else None
        if field is None:
            which = {"w": "window", "m": "model"}.get(event.key)
            if which is not None:
                self.action_focus(which)
                event.stop()
        elif event.is_printable and event.character:
            field.insert_text_at_cursor(event.character)
            event.stop()

    def action_focus(self, which: str) -> None:
        # at once, not deferred like Widget.focus(): the keys typed right after belong to the field
        self.set_focus(self.query_one(f"#{which}", Input))

    def _entry(self):
        table = self.query_one("#entries", LineTable)
        if self.result is None or not table.row_count:
            return None
        return self.result.entries[table.cursor_row]

    def _skill(self, entry):
        state = self.app.state
        if entry is None or state is None or state.claude is None:
            return None
        return next((s for s in state.claude.listed() if s.name == entry.name), None)

    def action_override(self) -> None:
        entry = self._entry()
        if entry is None:
            return
        if entry.shipped:
            self.notify("Entries shipped inside Claude Code take skillOverrides too; choose a value.", markup=False)
        value = "name-only" if entry.shown == "full" else "on"
        self.post_message(messages.RequestToggle(ToggleRequest("override", entry.name, value)))

    def action_toggle_plugin(self) -> None:
        skill = self._skill(self._entry())
        if skill is None or not skill.plugin:
            self.notify("This entry does not come from a plugin; use the Plugins screen (4) for the others.",
                        markup=False)
            return
        self.post_message(messages.RequestToggle(ToggleRequest("plugin", skill.plugin, False)))
