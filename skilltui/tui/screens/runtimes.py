"""Same skill, every runtime (`a` on the Preview): which copy each runtime picks, from where, and which it ignores."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Static
from textual.worker import get_current_worker

from skilltui import preview
from skilltui.model import Options
from skilltui.text import safe
from skilltui.tui import data

STATUS_STYLE = {"listed": "bold", "shadowed": "dim", "invalid": "red", "disabled": "dim", "hidden": "dim italic",
                "conditional": "italic", "filtered": "dim"}


def runtimes_table(rows: list[dict], home: str) -> Table:
    """One row per copy; every string from disk goes in as plain Text."""
    table = Table(expand=True, show_lines=False, box=None, pad_edge=False)
    for column in ("Runtime", "Status", "Source", "Path", "Why"):
        table.add_column(column, overflow="fold")
    for row in rows:
        name = Text(f"{row['runtime']} {row['runtime_version']}", style="bold")
        if not row["copies"]:
            table.add_row(name, Text("not found", style="dim"), Text(""), Text(""), Text(""))
        for i, c in enumerate(row["copies"]):
            path = c["path"].replace(home, "~", 1) if home and c["path"].startswith(home) else c["path"]
            table.add_row(name if i == 0 else Text(""), Text(c["status"], style=STATUS_STYLE.get(c["status"], "")),
                          Text(safe(c["source"])), Text(safe(path)), Text(safe(c["reason"] or "")))
    return table


class RuntimesScreen(ModalScreen):
    BINDINGS = [Binding("escape,q,a", "app.pop_screen", "Close", key_display="esc")]

    def __init__(self, opts: Options, name: str) -> None:
        super().__init__()
        self.opts, self.skill_name = opts, name

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="runtimes-box"):
            yield Static(Text(f"{self.skill_name} in every runtime (simulated)", style="bold"), id="runtimes-title")
            yield Static(Text("discovering with each runtime's rules…", style="italic"), id="runtimes-table")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#runtimes-box").focus()
        self._compare()

    @work(thread=True, exclusive=True, description="discover with every runtime")
    def _compare(self) -> None:
        try:
            rows, error = preview.every_runtime(self.opts, self.skill_name), None
        except Exception as exc:  # a runtime's discovery failing must not take the dialog down: said and logged
            rows, error = [], data.logged(exc, "every-runtime comparison")
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._show, rows, error)

    def _show(self, rows: list[dict], error: str | None) -> None:
        target = self.query_one("#runtimes-table", Static)
        target.update(Text(safe(error), style="red") if error else runtimes_table(rows, self.opts.home))
