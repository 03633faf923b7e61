"""A row table whose Home and End go to the first and last row (Textual's scroll sideways, which a row cursor
never needs)."""

from __future__ import annotations

from textual.binding import Binding
from textual.widgets import DataTable


class RowTable(DataTable):
    BINDINGS = [
        Binding("home", "scroll_top", "First row", show=False, id="table.first"),
        Binding("end", "scroll_bottom", "Last row", show=False, id="table.last"),
    ]
