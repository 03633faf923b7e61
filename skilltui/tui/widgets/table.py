"""Row tables.

`RowTable`: a DataTable whose Home and End go to the first and last row (Textual's scroll sideways, which a row cursor
never needs), and which does not measure cells that fixed-width columns never use (textual_private).

`LineTable`: a table that does work only for the lines it shows. A DataTable keeps a Rich renderable per cell,
indexes every row as it is added and rebuilds its row offsets on every addition, so 6,000 rows cost seconds before
and after the first frame. Here rows are plain tuples of `Cell`s set at once; a line's Strip is built when the line
is drawn, straight from the cell's text (no Rich rendering), and kept until that row, the cursor or the look
changes. It looks like a DataTable with a row cursor, segment for segment (tests/test_tui_table.py compares them).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import ClassVar, NamedTuple, overload

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Region, Size, Spacing
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from skilltui.tui.textual_private import FixedCellsTable


class RowTable(FixedCellsTable):
    BINDINGS = [
        Binding("home", "scroll_top", "First row", show=False, id="table.first"),
        Binding("end", "scroll_bottom", "Last row", show=False, id="table.last"),
    ]


class Cell(NamedTuple):
    """One cell: its text (already made safe: never markup, no control codes), a Rich style string, and how it is
    laid out: right-justified or not, a long text cut with "…" or cropped."""

    text: str
    style: str = ""
    right: bool = False
    ellipsis: bool = False


class Column(NamedTuple):
    key: str
    label: str
    width: int  # the text's width; each side has one cell of padding, as in a DataTable


Row = tuple[Cell, ...]


class LazyRows(Sequence[Row]):
    """`count` rows, each made by `make(i)` the first time it is asked for: a table of 6,000 rows then makes the
    cells of the rows it shows, not of all of them."""

    def __init__(self, count: int, make: Callable[[int], Row]) -> None:
        self._count = count
        self._make = make
        self._made: dict[int, Row] = {}

    def __len__(self) -> int:
        return self._count

    @property
    def made(self) -> int:
        """How many rows were made so far."""
        return len(self._made)

    @overload
    def __getitem__(self, index: int) -> Row: ...
    @overload
    def __getitem__(self, index: slice) -> list[Row]: ...

    def __getitem__(self, index: int | slice) -> Row | list[Row]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._count))]
        if index < 0:
            index += self._count
        if not 0 <= index < self._count:
            raise IndexError(index)
        row = self._made.get(index)
        if row is None:
            row = self._made[index] = self._make(index)
        return row
PAD = 1  # DataTable's cell_padding
CACHE_LINES = 400  # strips kept; a screenful is ~40, so scrolling back and forth stays cached


@lru_cache(maxsize=512)
def _parse(style: str) -> Style:
    return Style.parse(style)


@lru_cache(maxsize=4096)
def _layout(text: str, width: int, right: bool, ellipsis: bool) -> tuple[str, str]:
    """(the styled part, the unstyled fill after it) of a cell `width` wide, as Rich lays out a one-line Text:
    right-justified text is stripped on the right and padded on the left inside its style; other text is cut, and
    the fill after it is unstyled."""
    if right:
        text = text.rstrip()
    if cell_len(text) > width:
        text = set_cell_size(text, width - 1) + "…" if ellipsis else set_cell_size(text, width)
    fill = " " * (width - cell_len(text))
    return (fill + text, "") if right else (text, fill)


class LineTable(ScrollView, can_focus=True):
    """A table with a row cursor over plain rows, drawn a line at a time (Textual's line API)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "select_cursor", "Select", show=False),
        Binding("up", "cursor_up", "Cursor up", show=False),
        Binding("down", "cursor_down", "Cursor down", show=False),
        Binding("right", "scroll_right", "Scroll right", show=False),
        Binding("left", "scroll_left", "Scroll left", show=False),
        Binding("pageup", "page_up", "Page up", show=False),
        Binding("pagedown", "page_down", "Page down", show=False),
        Binding("ctrl+home", "first_row", "Top", show=False),
        Binding("ctrl+end", "last_row", "Bottom", show=False),
        Binding("home", "first_row", "First row", show=False, id="table.first"),
        Binding("end", "last_row", "Last row", show=False, id="table.last"),
    ]
    COMPONENT_CLASSES: ClassVar[set[str]] = {"datatable--header", "datatable--cursor", "datatable--hover",
                                             "datatable--header-hover"}
    # DataTable's own rules for what a row table uses, so both look the same under every theme
    DEFAULT_CSS = """
    LineTable {
        background: $surface;
        color: $foreground;
        height: auto;
        max-height: 100%;
        &:focus {
            background-tint: $foreground 5%;
            & > .datatable--cursor {
                background: $block-cursor-background;
                color: $block-cursor-foreground;
                text-style: $block-cursor-text-style;
            }
            & > .datatable--header {
                background-tint: $foreground 5%;
            }
        }
        & > .datatable--header {
            text-style: bold;
            background: $panel;
            color: $foreground;
        }
        &:ansi > .datatable--header {
            background: ansi_bright_blue;
            color: ansi_default;
        }
        & > .datatable--cursor {
            background: $block-cursor-blurred-background;
            color: $block-cursor-blurred-foreground;
            text-style: $block-cursor-blurred-text-style;
        }
        & > .datatable--header-hover {
            background: $accent 30%;
        }
        & > .datatable--hover {
            background: $block-hover-background;
        }
    }
    """

    cursor_row: reactive[int] = reactive(0, always_update=False, init=False)
    hover_row: reactive[int | None] = reactive(None, init=False)

    class _RowMessage(Message):
        def __init__(self, table: LineTable, cursor_row: int) -> None:
            super().__init__()
            self.table = table
            self.cursor_row = cursor_row

        @property
        def control(self) -> LineTable:
            return self.table

    class RowHighlighted(_RowMessage):
        """The cursor moved to `cursor_row` (also sent when new rows are set)."""

    class RowSelected(_RowMessage):
        """Enter on a row, or a click on the cursor's row."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.columns: tuple[Column, ...] = ()
        self.rows: Sequence[Row] = ()
        self._lines: dict[int, tuple[Row | None, bool, bool, Strip]] = {}  # row (-1: header) -> what it was built from
        self._look: tuple = ()  # what every cached line depends on; a change drops them all
        self._show_hover = False

    # ------------------------------------------------------------ data
    @property
    def row_count(self) -> int:
        return len(self.rows)

    def set_columns(self, columns: Sequence[Column]) -> None:
        self.columns = tuple(columns)
        self._lines.clear()
        self._resize_virtual()

    def set_rows(self, rows: Sequence[Row]) -> None:
        """Show these rows. Lines whose row is equal to the one drawn before are kept, so setting a list that differs
        in a few rows redraws only those."""
        self.rows = rows
        self._resize_virtual()
        last = max(len(rows) - 1, 0)
        if self.cursor_row > last:
            self.cursor_row = last
        self.refresh()
        if rows:
            self.post_message(self.RowHighlighted(self, self.cursor_row))

    def clear(self) -> None:
        self.set_columns(())
        self.set_rows(())

    def _table_width(self) -> int:
        return sum(c.width + 2 * PAD for c in self.columns)

    def _resize_virtual(self) -> None:
        self.virtual_size = Size(self._table_width(), len(self.rows) + 1)

    # ------------------------------------------------------------ drawing
    def render_line(self, y: int) -> Strip:
        width = self.size.width
        base = self.rich_style
        look = (base, self.get_pseudo_class_state(), width, self.columns)
        if look != self._look or len(self._lines) > CACHE_LINES:
            self._lines.clear()
            self._look = look
        scroll_x, scroll_y = self.scroll_offset
        index = -1 if y == 0 else y - 1 + scroll_y
        if index >= len(self.rows):
            return Strip.blank(width, base)
        row = None if index < 0 else self.rows[index]
        cursor = index == self.cursor_row and index >= 0
        hover = self._show_hover and index == self.hover_row
        kept = self._lines.get(index)
        if kept is not None and kept[0] == row and kept[1] == cursor and kept[2] == hover:
            strip = kept[3]
        else:
            strip = self._build(index, row, base, cursor, hover, width)
            self._lines[index] = (row, cursor, hover, strip)
        if scroll_x:
            strip = strip.crop(scroll_x, scroll_x + width)
        return strip.adjust_cell_length(width, base).simplify()

    def _build(self, index: int, row: Row | None, base: Style, cursor: bool, hover: bool, width: int) -> Strip:
        """One line as a DataTable draws it: each cell padded by one space, its text over the row's style with the
        cursor's on top, and the rest of the width in the row's style."""
        component = Style()
        if hover:
            component += self.get_component_rich_style("datatable--hover")
            if index < 0:
                component += self.get_component_rich_style("datatable--header-hover")
        if cursor:
            component += self.get_component_rich_style("datatable--cursor")
        row_style = self.get_component_styles("datatable--header").rich_style if index < 0 else base
        post = Style.from_color(color=component.color)  # the cursor's colour wins over the cell's (DataTable's "css")
        segments: list[Segment] = []
        add = segments.append
        cells: Sequence[Cell] = [Cell(c.label) for c in self.columns] if row is None else row
        pad = " " * PAD
        for c, (column, cell) in enumerate(zip(self.columns, cells)):
            pre = row_style + Style.from_meta({"row": index, "column": c}) + component
            plain = pre + post
            styled = (pre + _parse(cell.style) + post) if cell.style else plain
            text, fill = _layout(cell.text, column.width, cell.right, cell.ellipsis)
            add(Segment(pad, plain))
            if text:  # an empty text makes no segment (Rich's), so the padding around it is one
                add(Segment(text, styled))
            if fill:
                add(Segment(fill, plain))
            add(Segment(pad, plain))
        rest = max(0, width - self._table_width())
        extend = row_style + component + Style.from_meta({"row": index, "column": 0, "out_of_bounds": True})
        add(Segment(" " * rest, extend))
        return Strip(segments).simplify()

    def _refresh_row(self, index: int | None) -> None:
        if index is not None and 0 <= index < len(self.rows):
            self.refresh(Region(0, index + 1 - int(self.scroll_y), self.size.width, 1))

    # ------------------------------------------------------------ the cursor
    def validate_cursor_row(self, row: int) -> int:
        return max(0, min(row, len(self.rows) - 1))

    def watch_cursor_row(self, old: int, new: int) -> None:
        self._refresh_row(old)
        self._refresh_row(new)
        self._scroll_cursor_into_view()
        if self.rows:
            self.post_message(self.RowHighlighted(self, new))

    def watch_hover_row(self, old: int | None, new: int | None) -> None:
        self.refresh()  # a header hover spans the top line; a row's, one line: both are a handful of lines

    def move_cursor(self, *, row: int | None = None, animate: bool = False, scroll: bool = True) -> None:
        if row is None:
            return
        if scroll:
            self.cursor_row = row
            return
        old = self.cursor_row
        self.set_reactive(LineTable.cursor_row, self.validate_cursor_row(row))  # no scroll: the watcher would
        self._refresh_row(old)
        self._refresh_row(self.cursor_row)
        if self.rows and old != self.cursor_row:
            self.post_message(self.RowHighlighted(self, self.cursor_row))

    def scroll_to_cursor(self) -> None:
        """Scroll so the cursor's row is in view (after a `move_cursor(..., scroll=False)`)."""
        self._scroll_cursor_into_view()

    def _scroll_cursor_into_view(self, animate: bool = False) -> None:
        if not self.rows:
            return
        region = Region(int(self.scroll_x), self.cursor_row + 1, max(self.size.width, self._table_width()), 1)
        self.scroll_to_region(region, animate=animate, spacing=Spacing(1, 0, 0, 0), force=True)

    def _keys_used(self) -> None:
        if self._show_hover:
            self._show_hover = False
            self.refresh()

    def action_cursor_up(self) -> None:
        self._keys_used()
        self.cursor_row -= 1

    def action_cursor_down(self) -> None:
        self._keys_used()
        self.cursor_row += 1

    def action_first_row(self) -> None:
        self._keys_used()
        self.cursor_row = 0

    def action_last_row(self) -> None:
        self._keys_used()
        self.cursor_row = len(self.rows) - 1

    def _page(self) -> int:
        return max(1, self.scrollable_content_region.height - 1)

    def action_page_down(self) -> None:
        self._keys_used()
        height = self._page()
        self.scroll_relative(y=height, animate=False, force=True)
        self.move_cursor(row=self.cursor_row + height, scroll=False)

    def action_page_up(self) -> None:
        self._keys_used()
        height = self._page()
        self.scroll_relative(y=-height, animate=False, force=True)
        self.move_cursor(row=self.cursor_row - height, scroll=False)

    def action_select_cursor(self) -> None:
        self._keys_used()
        if self.rows:
            self.post_message(self.RowSelected(self, self.cursor_row))

    # ------------------------------------------------------------ the mouse
    def on_mouse_move(self, event: events.MouseMove) -> None:
        meta = event.style.meta
        self._show_hover = bool(meta)
        self.hover_row = meta.get("row") if meta else None

    def on_leave(self, _: events.Leave) -> None:
        self._show_hover = False
        self.hover_row = None

    def on_click(self, event: events.Click) -> None:
        meta = event.style.meta
        row = meta.get("row")
        if not isinstance(row, int) or row < 0 or row >= len(self.rows):
            return
        event.stop()
        if row == self.cursor_row:
            self.post_message(self.RowSelected(self, row))
        else:
            self.cursor_row = row
            self._scroll_cursor_into_view(animate=True)
