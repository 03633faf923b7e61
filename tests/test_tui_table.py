"""LineTable (skilltui/tui/widgets/table.py): it must look like the DataTable it replaces, segment for segment, and
answer the keys, the mouse and the messages the screens use."""

from __future__ import annotations

import asyncio

import pytest
from rich.text import Text
from textual.app import App, ComposeResult
from textual.containers import Horizontal
from textual.geometry import Region
from textual.widgets import DataTable

from skilltui.tui.widgets.table import Cell, Column, LazyRows, LineTable

pytestmark = pytest.mark.slow

COLUMNS = (Column("#", "#", 3), Column("Entry", "Entry", 12), Column("State", "State", 9), Column("Full", "Full", 6))


def rows(n: int) -> list[tuple[Cell, ...]]:
    out = []
    for i in range(n):
        name = ["short", "a-name-that-is-much-too-long", "wide 漢字漢字漢字漢字", "", "trailing   "][i % 5]
        out.append((Cell(str(i + 1), "dim", right=True), Cell(name, "italic" if i % 2 else "", ellipsis=i % 3 != 0),
                    Cell(["full", "name-only", "fixed"][i % 3], ["#00ff00", "#ffaa00", "bold"][i % 3]),
                    Cell(f"{i * 1234:,}  ", "" if i % 4 else "bold", right=True)))
    return out


def as_text(cell: Cell) -> Text:
    """The Rich cell a screen gave its DataTable for this cell."""
    return Text(cell.text, style=cell.style, justify="right" if cell.right else None, no_wrap=True,
                overflow="ellipsis" if cell.ellipsis else None)


class _Both(App):
    CSS = "Horizontal > * { width: 1fr; height: 1fr; }"

    def __init__(self, n: int) -> None:
        super().__init__()
        self.n = n
        self.seen: list[tuple[str, int]] = []  # the LineTable's messages

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield DataTable(id="old", cursor_type="row")
            yield LineTable(id="new")

    def on_line_table_row_highlighted(self, message: LineTable.RowHighlighted) -> None:
        self.seen.append(("highlighted", message.cursor_row))

    def on_line_table_row_selected(self, message: LineTable.RowSelected) -> None:
        self.seen.append(("selected", message.cursor_row))

    def on_mount(self) -> None:
        old, new = self.query_one("#old", DataTable), self.query_one("#new", LineTable)
        for c in COLUMNS:
            old.add_column(c.label, width=c.width, key=c.key)
        data = rows(self.n)
        for i, r in enumerate(data):
            old.add_row(*(as_text(c) for c in r), key=str(i))
        new.set_columns(COLUMNS)
        new.set_rows(data)


def _run(coro):
    return asyncio.run(asyncio.wait_for(coro, 120))


def _lines(widget, height: int) -> list[list]:
    return [list(strip) for strip in widget.render_lines(Region(0, 0, widget.size.width, height))]


@pytest.mark.parametrize("focused", [False, True])
def test_line_table_draws_what_a_data_table_draws(focused):
    async def go():
        app = _Both(40)
        async with app.run_test(size=(110, 16)) as pilot:
            old, new = app.query_one("#old", DataTable), app.query_one("#new", LineTable)
            app.set_focus(None)
            await pilot.pause()
            for row in (0, 7, 33):
                old.move_cursor(row=row)
                new.move_cursor(row=row)
                await pilot.pause()
                assert new.cursor_row == old.cursor_row == row
                assert new.scroll_offset == old.scroll_offset
                if focused:  # each focused in turn, so each is drawn with its focused look
                    old.focus()
                    await pilot.pause()
                theirs = _lines(old, 16)
                if focused:
                    new.focus()
                    await pilot.pause()
                ours = _lines(new, 16)
                app.set_focus(None)
                assert [" ".join(s.text for s in line) for line in ours] == \
                    [" ".join(s.text for s in line) for line in theirs]
                assert ours == theirs

    _run(go())


def test_line_table_keys_mouse_and_messages():
    async def go():
        app = _Both(100)
        seen = app.seen
        async with app.run_test(size=(110, 16)) as pilot:
            new = app.query_one("#new", LineTable)
            new.focus()
            await pilot.pause()
            await pilot.press("end")
            assert new.cursor_row == new.row_count - 1 == 99
            assert new.scroll_y == new.max_scroll_y > 0  # the last row is shown
            await pilot.press("home")
            assert new.cursor_row == 0 and new.scroll_y == 0
            await pilot.press("down", "down", "up")
            assert new.cursor_row == 1
            await pilot.press("pagedown")
            page = new.cursor_row - 1
            assert page == new.scrollable_content_region.height - 1 > 3
            await pilot.press("pageup")
            assert new.cursor_row == 1
            await pilot.press("enter")
            await pilot.pause()
            assert ("selected", 1) in seen and ("highlighted", 1) in seen
            await pilot.click(new, offset=(5, 4))  # the fourth row below the header (scrolled to the top)
            await pilot.pause()
            assert new.cursor_row == 3 + int(new.scroll_y)
            clicked = new.cursor_row
            await pilot.click(new, offset=(5, 4))  # a click on the cursor's row selects it
            await pilot.pause()
            assert seen[-1] == ("selected", clicked)
            new.set_rows(rows(5))  # fewer rows: the cursor stays on one
            await pilot.pause()
            assert new.cursor_row <= 4 and new.virtual_size.height == 6

    _run(go())


def test_only_visible_lines_are_built_and_an_unchanged_row_is_not_rebuilt():
    async def go():
        app = _Both(6000)
        async with app.run_test(size=(110, 16)) as pilot:
            new = app.query_one("#new", LineTable)
            await pilot.pause()
            built = dict(new._lines)
            assert 0 < len(built) <= 16  # a screenful, not 6,000
            data = list(new.rows)
            made: list[int] = []

            def make(i: int) -> tuple[Cell, ...]:
                made.append(i)
                return (Cell("changed"),) * 4 if i == 2 else data[i]

            new.set_rows(LazyRows(len(data), make))
            await pilot.pause()
            assert new._lines[2][3] is not built[2][3]
            assert all(new._lines[i][3] is built[i][3] for i in built if i != 2)  # equal rows: the same strips
            assert 0 < len(made) <= 16 and len(set(made)) == len(made)  # each shown row made once, no other
            assert len(new.rows) == 6000 and new.rows[-1] == data[-1] and new.rows[1:3][1][0].text == "changed"

    _run(go())
