"""A row table whose Home and End go to the first and last row (Textual's scroll sideways, which a row cursor
never needs), and which does not measure cells that fixed-width columns never use (textual_private)."""

from __future__ import annotations

from textual.binding import Binding

from skilltui.tui.textual_private import FixedCellsTable


class RowTable(FixedCellsTable):
    BINDINGS = [
        Binding("home", "scroll_top", "First row", show=False, id="table.first"),
        Binding("end", "scroll_bottom", "Last row", show=False, id="table.last"),
    ]
