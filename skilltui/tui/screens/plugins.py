"""Plugins: installed Claude Code plugins, whether each is enabled and loads, and the settings file that decides it."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, Static

from skilltui.model import Plugin
from skilltui.text import safe
from skilltui.tui import data, messages
from skilltui.tui.messages import ToggleRequest
from skilltui.tui.screens.base import BaseScreen, palette
from skilltui.tui.screens.skills import tail
from skilltui.tui.widgets.table import RowTable

NARROW = 110  # the app's breakpoint: below it, columns fit 80 cells (the count of skills and commands scrolls)
COLUMNS = (("Plugin", 34), ("State", 9), ("Loads", 6), ("Decided by", 10), ("In", 30), ("Skills", 6), ("Cmds", 5))
NARROW_COLUMNS = (("Plugin", 24), ("State", 8), ("Loads", 5), ("Decided by", 10), ("In", 20), ("Skills", 6),
                  ("Cmds", 5))


class PluginsScreen(BaseScreen):
    MODE = "plugins"
    AUTO_FOCUS = "#plugins"
    HELP = ("Installed Claude Code plugins: whether each is enabled, whether it loads (its marketplace must be "
            "known), and which settings file decides. `t` or Enter toggles the highlighted plugin: you choose the "
            "file to write (user, project or local), see the one line that changes and its effect on the listing, "
            "and are warned when a file of higher precedence will still decide.")
    BINDINGS = [
        Binding("t", "toggle", "Toggle", id="plugins.toggle", tooltip="Enable or disable the highlighted plugin"),
        Binding("enter", "toggle", "Toggle", show=False),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.plugins: list[Plugin] = []
        self._width = 0

    def compose_body(self) -> ComposeResult:
        yield Static(id="plugins-summary")
        table = RowTable(id="plugins", cursor_type="row")
        table.loading = True
        yield table
        yield Static(id="plugin-detail")

    def on_resize(self) -> None:
        if self.app.state is not None and (self.app.size.width < NARROW) != (self._width < NARROW):
            self.call_after_refresh(self.refresh_view)

    def refresh_view(self) -> None:
        table = self.query_one("#plugins", DataTable)
        state = self.app.state
        if state is None:
            table.loading = True
            return
        table.loading = False
        catalog = state.claude
        summary = self.query_one("#plugins-summary", Static)
        if catalog is None:
            summary.update(Text("Plugins are a Claude Code feature; Claude Code's settings could not be read.",
                                style="italic"))
            return
        colours = palette(self.app)
        keep = table.cursor_row
        table.clear(columns=True)
        narrow = self.app.size.width < NARROW
        columns = NARROW_COLUMNS if narrow else COLUMNS
        self._width = self.app.size.width
        for name, width in columns:
            table.add_column(name, width=width, key=name)
        in_width = dict(columns)["In"]
        self.plugins = list(catalog.plugins)
        for i, p in enumerate(self.plugins):
            problem = bool(p.errors) or (p.enabled and not p.loads)
            table.add_row(
                Text(safe(p.id), no_wrap=True, overflow="ellipsis", style="bold" if p.loads else "dim"),
                Text("enabled" if p.enabled else "disabled", style=colours["ok"] if p.enabled else "dim"),
                Text("yes" if p.loads else "no", style=colours["error"] if problem else ("" if p.loads else "dim")),
                Text(p.decided_by, style="dim" if p.decided_by == "default" else ""),
                Text(tail(safe(data.short_path(p.decided_in, catalog)), in_width) if p.decided_in else "–",
                     style="dim", no_wrap=True),
                Text(str(len(p.skills)), justify="right"),
                Text(str(len(p.commands)), justify="right"),
                key=f"p:{i}",
            )
        enabled = sum(p.enabled for p in self.plugins)
        loads = sum(p.loads for p in self.plugins)
        line = Text(f"{len(self.plugins)} plugins · {enabled} enabled · {loads} load", no_wrap=True)
        line.append(f"   Claude Code {catalog.runtime_version} (simulated)", style="dim")
        summary.update(line)
        if table.row_count:
            table.move_cursor(row=min(keep, table.row_count - 1), animate=False)
        self._detail()

    def highlighted(self) -> Plugin | None:
        table = self.query_one("#plugins", DataTable)
        if not self.plugins or not table.row_count:
            return None
        return self.plugins[min(table.cursor_row, len(self.plugins) - 1)]

    def _detail(self) -> None:
        p = self.highlighted()
        detail = self.query_one("#plugin-detail", Static)
        if p is None:
            detail.update(Text("No plugins are installed.", style="italic") if self.app.state else "")
            return
        t = Text()
        t.append(safe(p.id), style="bold")
        t.append(f"  {p.kind}" + (f", version {safe(p.version)}" if p.version else "")
                 + (f", installed at {p.scope} scope" if p.scope else ""), style="dim")
        if p.skills:
            t.append("\nskills: ", style="bold")
            t.append(safe(", ".join(p.skills)))
        if p.commands:
            t.append("\ncommands: ", style="bold")
            t.append(safe(", ".join(p.commands)))
        for note in p.notes:
            t.append("\n• " + safe(note), style="italic")
        for error in p.errors:
            t.append("\n✗ " + safe(error), style=palette(self.app)["error"])
        detail.update(t)

    @on(DataTable.RowHighlighted, "#plugins")
    def _highlighted(self) -> None:
        self._detail()

    @on(DataTable.RowSelected, "#plugins")
    def _selected(self) -> None:
        self.action_toggle()

    def action_toggle(self) -> None:
        p = self.highlighted()
        if p is None:
            return
        if p.kind == "builtin":
            self.notify("Built-in plugins are not installed from a marketplace; there is no entry to write.",
                        markup=False)
            return
        self.post_message(messages.RequestToggle(ToggleRequest("plugin", p.id, not p.enabled)))
