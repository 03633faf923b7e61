"""Every use of Textual's private API, in one place, each with a test (tests/test_tui_private.py).

skilltui pins Textual exactly (pyproject.toml: textual==8.2.8). Upgrading means: change the pin, run
tests/test_tui_private.py, and fix what it reports here; no other module touches a name starting with "_" in Textual.

Why each is needed:
- `prepare_mode`/`mode_screen`: building a screen ahead of its first visit (Textual's own first step of
  `switch_mode`, without the switch), so a first visit only shows it (0.1-0.3 s saved per screen).
- `draw_offscreen`: a layout and one undisplayed frame, so each widget's lines are cached for that first visit.
- `adopt_app_stylesheet`: a screen built while no stylesheet refresh is pending is styled against the current stylesheet
  as it mounts, so the mode switch need not reparse the stylesheet and restyle every widget again (Textual does that
  for any screen it has not refreshed itself: ~50-80 ms of a first visit).
- `drawing_pending`: idle-time work (screens prepared ahead) waits while a switch is still being drawn.
- `MarkdownFence`: the code-block widget of Textual's Markdown, replaced to highlight safely.
- `FixedCellsTable`: a DataTable measures every cell of every new row when idle (`_update_dimensions`), to size
  auto-width columns and auto-height rows; with fixed widths and heights that is all discarded work (about a second
  of the event loop for 6,000 rows), so it is skipped and only the virtual size is set.
- `TallTextArea`: a TextArea asks its wrapped document's height once per line it draws, and Textual sums every
  line's wrap offsets for each answer; for the budget's 6,000-line prompt that was about half a second a frame.
  The height is kept from one wrap to the next instead (the document class is swapped for a subclass that does),
  and a wrap at the width the text is already wrapped at is skipped.
- `FooterKey`: Footer's key widget (not exported by Textual); QuietFooter (and so StableFooter) gives each new key
  the footer's `compact` before it mounts, so it is not restyled twice (its own default, then the bound value) on
  every footer compose.
- `BatchWakingApp._end_batch`: a screen's repaint waits while a batch is open (`switch_mode` opens one for 0.05 s,
  and a Footer recompose another); when the last batch to close is not the switch's, Textual prompts only the app,
  so the new screen stayed undrawn until some other event arrived (the 2 s file poll: Plugins' first visit took
  2.4 s of which 0.3 s was work). The top screen is prompted too when the last batch closes.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any, Generic, TypeVar

from textual._wrap import compute_wrap_offsets
from textual.app import App
from textual.document._wrapped_document import WrappedDocument
from textual.expand_tabs import get_tab_widths
from textual.geometry import Size
from textual.screen import Screen
from textual.widgets import DataTable, TextArea
from textual.widgets._data_table import RowKey
from textual.widgets._footer import FooterKey

__all__ = ["BatchWakingApp", "FixedCellsTable", "FooterKey", "TallTextArea", "adopt_app_stylesheet", "draw_offscreen", "drawing_pending", "mode_screen", "prepare_mode", "render_lines"]
# also MarkdownBlock and MarkdownFence, through __getattr__ below


def __getattr__(name: str) -> object:
    """`MarkdownBlock` and `MarkdownFence`, imported on first use: Textual's Markdown module (and markdown-it) is
    not needed for the first screen, so the first paint does not wait for it."""
    if name in ("MarkdownBlock", "MarkdownFence"):
        from textual.widgets import _markdown

        return getattr(_markdown, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


ReturnType = TypeVar("ReturnType")


class BatchWakingApp(App[ReturnType], Generic[ReturnType]):
    """An App whose top screen is prompted (`check_idle`) when the last open batch update closes, so a repaint
    that waited for the batch is not left pending until some unrelated event; it also notes the stylesheet version
    of its last CSS refresh, for `adopt_app_stylesheet`."""

    _css_refreshed_at: int | None = None

    def refresh_css(self, animate: bool = True) -> None:
        super().refresh_css(animate)
        self._css_refreshed_at = self._css_update_count

    def _end_batch(self) -> None:
        super()._end_batch()
        if not self._batch_count:
            stack = self._screen_stacks.get(self._current_mode)
            if stack:
                stack[-1].check_idle()


class FixedCellsTable(DataTable):
    """A DataTable that skips measuring new cells while every column has a fixed width and no new row has an
    automatic height or a label (the measures would size nothing)."""

    def _update_dimensions(self, new_rows: Iterable[RowKey]) -> None:
        new_rows = list(new_rows)
        rows = self.rows
        if any(c.auto_width for c in self.columns.values()) or any(
                (row := rows.get(key)) is not None and (row.auto_height or row.label is not None) for key in new_rows):
            super()._update_dimensions(new_rows)
            return
        header = self.header_height if self.show_header else 0
        width = sum(c.get_render_width(self) for c in self.columns.values()) + self._row_label_column_width
        self.virtual_size = Size(width, self._total_row_height + header)


def mode_screen(app: App, mode: str) -> Screen | None:
    """The base screen of `mode` once it is built, else None (never builds it)."""
    stack = app._screen_stacks.get(mode)
    return stack[0] if stack else None


async def prepare_mode(app: App, mode: str) -> Screen:
    """Build and mount the screen of `mode` without switching to it; returns it (the existing one if built)."""
    await app._init_mode(mode)
    screen = mode_screen(app, mode)
    assert screen is not None, f"Textual did not build mode {mode!r}"
    return screen


def draw_offscreen(screen: Screen, size: Size, before_render: Callable[[], object] | None = None) -> None:
    """Lay out `screen` at `size` and render one frame that is not displayed (fills the widgets' line caches).
    `before_render` runs once the widgets have their sizes (then the screen is laid out again)."""
    screen._refresh_layout(size)
    if before_render is not None:
        before_render()
        screen._refresh_layout(size)
    screen._compositor.render_update(full=True)


def adopt_app_stylesheet(screen: Screen, app: App) -> bool:
    """Mark `screen` as styled against the app's current stylesheet (call before it is mounted, or once it is),
    unless the stylesheet has changed since the app's last CSS refresh (start-up, or a theme change not yet applied:
    Textual's own refresh must run then); True if marked. Textual sets a screen's mark only in a refresh while the
    screen is mounted, so even the first screen is otherwise refreshed again when it is shown again."""
    if getattr(app, "_css_refreshed_at", None) != app._css_update_count:
        return False
    screen._css_update_count = app._css_update_count
    return True


def drawing_pending(app: App) -> bool:
    """True while a batch update is open (a mode switch opens one) or the current screen has a layout or repaint
    still to do."""
    if app._batch_count:
        return True
    try:
        screen = app.screen
    except Exception:
        return False
    return bool(screen._layout_required or screen._scroll_required or screen._repaint_required
                or screen._recompose_required or screen._dirty_widgets)


def render_lines(screen: Screen) -> list[str]:
    """The text of each line the screen shows now (for tests and the hostile suite)."""
    return [strip.text for strip in screen._compositor.render_strips()]


_WORD = re.compile(r"[^ ]")


def _ascii_wrap_offsets(line: str, width: int) -> list[int]:
    """textual._wrap.compute_wrap_offsets for a line of printable ASCII (each character one cell, no tabs), a row at
    a time instead of a chunk at a time. Textual's chunks are a word with the spaces after it (or leading spaces);
    a row takes chunks while they end within it; the chunk that does not is moved to the next row, or, if longer
    than a row, folded into rows of `width` characters from its start."""
    n = len(line)
    breaks: list[int] = []
    row = pos = 0  # where the current row starts; where the next chunk starts
    while row + width < n:
        limit = row + width
        # the chunk that does not fit starts at the last chunk start in [pos, limit]: after a space, not a space
        j = line.rfind(" ", pos, limit)
        if j >= 0 and line[j + 1] == " ":  # j + 1 == limit, inside a run of spaces: its word's start
            k = j
            while k > pos and line[k - 1] == " ":
                k -= 1
            j = line.rfind(" ", pos, k)
        start = pos if j < 0 else j + 1
        space = line.find(" ", start)
        if space < 0:
            end = n
        else:
            after = _WORD.search(line, space)
            end = n if after is None else after.start()
        if end - start <= width:
            breaks.append(start)  # start > 0: a chunk at 0 that fits a row would have ended within it
            row = pos = start
        else:  # longer than a row: folded
            last = start + (end - start - 1) // width * width
            breaks.extend(range(start or width, last + 1, width))
            row, pos = last, end
    return breaks


class _KeptHeightDocument(WrappedDocument):
    """A wrapped document whose height is computed once per wrap, not once per question, and which is not wrapped
    again at the width it is wrapped at (TextArea rewraps whenever a scrollbar comes or goes, even at the same
    width: a 6,000-line prompt was wrapped twice on each load)."""

    _kept_height: int | None = None
    _wrapped_at: tuple[int, int | None] | None = None  # (width, tab width) of the last full wrap; None after an edit

    def wrap(self, width: int, tab_width: int | None = None) -> None:
        if (width, tab_width) == self._wrapped_at:
            return  # same text, same width: the same offsets
        self._wrap_all(width, tab_width)
        self._wrapped_at = (width, tab_width)
        self._kept_height = None

    def _wrap_all(self, width: int, tab_width: int | None) -> None:
        """WrappedDocument.wrap, with a shortcut for lines of printable ASCII (no tabs, one cell a character): the
        same offsets (tests/test_tui_private.py compares them), in a fraction of the time."""
        self._width = width
        if tab_width:
            self._tab_width = tab_width
        tab_size = self._tab_width
        wrap_offsets: list[list[int]] = []
        line_info: list[tuple[int, int]] = []
        line_offsets: list[list[int]] = []
        tab_widths: list[list[int]] = []
        current = 0
        for index, line in enumerate(self.document.lines):
            if line.isascii() and line.isprintable():
                offsets = _ascii_wrap_offsets(line, width) if width else []
                tab_widths.append([0] if line else [])  # as get_tab_widths: one section, none when empty
            else:
                sections = get_tab_widths(line, tab_size)
                offsets = compute_wrap_offsets(line, width, tab_size=tab_size,
                                               precomputed_tab_sections=sections) if width else []
                tab_widths.append([w for _, w in sections])
            wrap_offsets.append(offsets)
            rows = len(offsets) + 1
            line_offsets.append(list(range(current, current + rows)))
            line_info.extend((index, y) for y in range(rows))
            current += rows
        self._wrap_offsets = wrap_offsets
        self._offset_to_line_info = line_info
        self._line_index_to_offsets = line_offsets
        self._tab_width_cache = tab_widths

    def wrap_range(self, *args: Any, **kwargs: Any) -> Any:
        result = super().wrap_range(*args, **kwargs)
        self._kept_height = None
        self._wrapped_at = None
        return result

    @property
    def height(self) -> int:
        if self._kept_height is None:
            self._kept_height = super().height
        return self._kept_height


class TallTextArea(TextArea):
    """A TextArea for long text: its wrapped document keeps its height between wraps, and text given before the area
    has a width (not laid out yet: a screen being built) is loaded once it has one, so it is wrapped once, at that
    width, and not first at width 0 (each pass over the budget's 6,000-line prompt cost ~10-40 ms); on a screen
    being shown, just after its first frame (loading the budget's prompt is ~0.04 s of that frame otherwise)."""

    _pending: str | None = None

    def show_text(self, text: str) -> None:
        """Show `text` (read-only use): loaded now if the area has a width, else at its first resize."""
        if self._has_width():
            self._pending = None
            if self.text != text:
                self.load_text(text)
        else:
            self._pending = text

    @property
    def shown_text(self) -> str:
        """The text shown, or to be shown once the area has a width."""
        return self.text if self._pending is None else self._pending

    def _has_width(self) -> bool:
        return bool(self.size.width and (self.wrap_width or not self.soft_wrap))

    def on_resize(self) -> None:
        if self._pending is not None and self._has_width():
            if self.screen.is_current:
                # shown now: the rest of the screen's first frame goes out first, the text in the next one
                self.call_after_refresh(self._load_pending)
            else:
                self._load_pending()

    def _load_pending(self) -> None:
        if self._pending is not None and self._has_width():
            text, self._pending = self._pending, None
            if self.text != text:
                self.load_text(text)

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "wrapped_document" and type(value) is WrappedDocument:
            value.__class__ = _KeptHeightDocument  # same layout, one cached property more
        super().__setattr__(name, value)
