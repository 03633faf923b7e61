"""One test per private Textual API that skilltui uses (skilltui/tui/textual_private.py): after a Textual upgrade,
this file says what broke, in one place."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from textual.app import App, ComposeResult
from textual.screen import Screen
from textual.widgets import Static

from skilltui.tui import textual_private as private

pytestmark = pytest.mark.slow


class _Other(Screen):
    def compose(self) -> ComposeResult:
        yield Static("other screen text", id="other-text")


class _Main(Screen):
    def compose(self) -> ComposeResult:
        yield Static("main", id="main-text")


class _App(App):
    MODES = {"main": _Main, "other": _Other}
    DEFAULT_MODE = "main"


def _run(coro):
    return asyncio.run(asyncio.wait_for(coro, 120))


def test_prepare_mode_builds_without_switching_and_mode_screen_finds_it():
    async def go():
        app = _App()
        async with app.run_test(size=(40, 10)) as pilot:
            await pilot.pause()
            assert private.mode_screen(app, "other") is None
            screen = await private.prepare_mode(app, "other")
            assert isinstance(screen, _Other) and screen.is_mounted
            assert app.current_mode == "main"
            assert private.mode_screen(app, "other") is screen
            assert await private.prepare_mode(app, "other") is screen  # built once
            assert screen.query_one("#other-text", Static)

    _run(go())


def test_draw_offscreen_renders_a_screen_that_is_not_shown():
    async def go():
        app = _App()
        async with app.run_test(size=(40, 10)) as pilot:
            await pilot.pause()
            screen = await private.prepare_mode(app, "other")
            private.draw_offscreen(screen, app.size)
            assert app.screen is not screen
            assert any("other screen text" in line for line in private.render_lines(screen))
            assert any("main" in line for line in private.render_lines(app.screen))

    _run(go())


class _TrackingApp(private.BatchWakingApp):
    MODES = {"main": _Main, "other": _Other}
    DEFAULT_MODE = "main"


def test_adopt_app_stylesheet_marks_a_screen_as_styled_unless_a_refresh_is_pending():
    async def go():
        app = _TrackingApp()
        async with app.run_test(size=(40, 10)) as pilot:
            await pilot.pause()
            app.theme = "textual-light"  # a stylesheet change bumps the app's count, and the app refreshes
            await pilot.pause()
            screen = _Other()
            assert app._css_update_count > 0 and screen._css_update_count != app._css_update_count
            assert private.adopt_app_stylesheet(screen, app)
            assert screen._css_update_count == app._css_update_count
            app._invalidate_css()  # a change whose refresh has not run yet: Textual's refresh must style the screen
            later = _Other()
            assert not private.adopt_app_stylesheet(later, app)
            assert later._css_update_count != app._css_update_count
            app.refresh_css()
            assert private.adopt_app_stylesheet(later, app)

        plain = _App()  # an App that does not note its refreshes: nothing is adopted
        async with plain.run_test(size=(40, 10)) as pilot:
            await pilot.pause()
            assert not private.adopt_app_stylesheet(_Other(), plain)

    _run(go())


def test_a_mode_built_on_its_first_visit_is_not_restyled_by_a_css_refresh(monkeypatch):
    refreshes: list[int] = []
    original = App.refresh_css

    def counting(self, *args, **kwargs):
        refreshes.append(1)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(App, "refresh_css", counting)

    class _Adopting(_Other):
        def __init__(self) -> None:
            super().__init__()
            private.adopt_app_stylesheet(self, self.app)

    class _Modes(private.BatchWakingApp):
        MODES = {"main": _Main, "other": _Adopting}
        DEFAULT_MODE = "main"

    async def go():
        app = _Modes()
        async with app.run_test(size=(40, 10)) as pilot:
            await pilot.pause()
            assert refreshes  # Textual's own first refresh at start-up
            refreshes.clear()
            app.switch_mode("other")
            await pilot.pause()
            assert "other screen text" in "\n".join(private.render_lines(app.screen))
            assert not refreshes  # Textual reparses and restyles everything here for a screen it did not refresh

    _run(go())


def test_drawing_pending_while_a_batch_is_open_or_the_screen_waits_for_its_update():
    async def go():
        app = _App()
        async with app.run_test(size=(40, 10)) as pilot:
            await pilot.pause()
            for _ in range(500):
                if not private.drawing_pending(app):
                    break
                await asyncio.sleep(0.01)
            assert not private.drawing_pending(app)
            with app.batch_update():
                assert private.drawing_pending(app)
            app.screen.refresh()
            assert private.drawing_pending(app)  # a repaint waits for the screen's next update
            for _ in range(500):
                if not private.drawing_pending(app):
                    break
                await asyncio.sleep(0.01)
            assert not private.drawing_pending(app)

    _run(go())


def test_markdown_block_classes_exist():
    from textual.widgets import Markdown

    assert issubclass(private.MarkdownFence, private.MarkdownBlock)
    assert Markdown.BLOCKS["fence"] is private.MarkdownFence


class _TableApp(App):
    def compose(self) -> ComposeResult:
        yield private.FixedCellsTable(id="t")


def test_fixed_cells_table_sizes_without_measuring_and_measures_auto_columns():
    async def go():
        app = _TableApp()
        async with app.run_test(size=(60, 10)) as pilot:
            table = app.query_one(private.FixedCellsTable)
            table.add_column("a", width=10, key="a")
            table.add_column("b", width=6, key="b")
            for i in range(50):
                table.add_row(f"row {i} with a long cell", str(i), key=f"r{i}")
            await pilot.pause()
            assert table.virtual_size.height == 50 + 1  # rows and the header
            assert table.virtual_size.width == (10 + 2) + (6 + 2)  # each column with its padding
            assert table.columns["a"].content_width == len("a")  # fixed widths: the label only, no cell measured
            assert any("row 0" in line for line in private.render_lines(app.screen))
            table.add_column("c", key="c")  # an auto-width column: Textual measures again
            table.add_row("x", "y", "a wider cell here", key="last")
            await pilot.pause()
            assert table.columns["c"].content_width == len("a wider cell here")
            table.add_row("tall", "row", "z", key="tall", height=None)  # an automatic height: measured too
            await pilot.pause()
            assert table.rows["tall"].height == 1 and table.virtual_size.height == 52 + 1

    _run(go())


class _AreaApp(App):
    def compose(self) -> ComposeResult:
        yield private.TallTextArea(id="area", read_only=True, soft_wrap=True)


def test_tall_text_area_loads_text_given_before_it_has_a_width_once_it_has_one(monkeypatch):
    from textual.document._wrapped_document import WrappedDocument

    text = "\n".join(f"line {i} " + "word " * (i % 12) for i in range(300))
    wrapped_at: list[int] = []

    def counting(original):
        def wrap(self, width, *args, **kwargs):
            if self.document.line_count == 300:
                wrapped_at.append(width)
            return original(self, width, *args, **kwargs)
        return wrap

    # Textual's (a new document is wrapped at width 0 as it is made) and ours (every wrap that is not skipped)
    monkeypatch.setattr(WrappedDocument, "wrap", counting(WrappedDocument.wrap))
    monkeypatch.setattr(private._KeptHeightDocument, "_wrap_all", counting(private._KeptHeightDocument._wrap_all))

    async def go():
        app = _AreaApp()
        async with app.run_test(size=(40, 12)) as pilot:
            area = app.query_one(private.TallTextArea)
            await pilot.pause()
            area.show_text("ready")  # laid out: loaded at once
            assert area.text == "ready" == area.shown_text
            late = private.TallTextArea(read_only=True, soft_wrap=True)
            late.styles.scrollbar_gutter = "stable"  # as the budget's prompt: no second wrap when the bar appears
            late.show_text(text)  # not mounted, no width: kept until it has one
            assert late.text == "" and late.shown_text == text
            await app.screen.mount(late)
            for _ in range(500):
                if late.text == text:
                    break
                await asyncio.sleep(0.01)
            assert late.text == text and late.shown_text == text
            assert wrapped_at and all(w == late.wrap_width > 0 for w in wrapped_at if w)
            assert sum(1 for w in wrapped_at if w) == 1  # wrapped once, at its width
            assert any("line 1 word" in line for line in private.render_lines(app.screen))

    _run(go())


@given(st.lists(st.text(alphabet=st.sampled_from("ab cdefghijklm -.,:"), max_size=140)  # printable ASCII: the shortcut
                | st.text(alphabet=st.sampled_from("ab cd\tx-é界 \u200b"), max_size=90) | st.text(max_size=60),
                max_size=12),
       st.integers(min_value=0, max_value=40), st.sampled_from([None, 2, 4, 8]))
@settings(max_examples=400, deadline=None)
def test_kept_height_document_wraps_exactly_as_textual(lines, width, tab_width):
    """The wrap with its ASCII shortcut gives Textual's offsets, line maps and tab widths, for any text."""
    from textual.document._document import Document
    from textual.document._wrapped_document import WrappedDocument

    document = Document("\n".join(lines))
    ours, theirs = WrappedDocument(document), WrappedDocument(document)
    ours.__class__ = private._KeptHeightDocument
    ours.wrap(width, tab_width)
    theirs.wrap(width, tab_width)
    assert ours._wrap_offsets == theirs._wrap_offsets
    assert ours._offset_to_line_info == theirs._offset_to_line_info
    assert ours._line_index_to_offsets == theirs._line_index_to_offsets
    assert ours._tab_width_cache == theirs._tab_width_cache
    assert ours.height == theirs.height


def test_tall_text_area_keeps_a_height_that_follows_text_and_width():
    from textual.document._wrapped_document import WrappedDocument

    def fresh(area) -> int:  # Textual's own answer for the same text, width and tabs
        return WrappedDocument(area.document, area.wrap_width, area.indent_width).height

    async def go():
        app = _AreaApp()
        async with app.run_test(size=(40, 12)) as pilot:
            area = app.query_one(private.TallTextArea)
            area.load_text("\n".join(f"line {i} " + "word " * (i % 12) for i in range(300)))
            await pilot.pause()
            assert type(area.wrapped_document).__name__ == "_KeptHeightDocument"
            wide = area.wrapped_document.height
            assert wide == fresh(area) and wide > 300  # long lines wrap
            document = area.wrapped_document
            offsets = document._wrap_offsets
            document.wrap(area.wrap_width, area.indent_width)  # as Textual does when a scrollbar comes or goes
            assert document._wrap_offsets is offsets  # the same width: not wrapped again
            document.wrap(area.wrap_width - 5, area.indent_width)
            assert document._wrap_offsets is not offsets and document.height > wide
            document.wrap(area.wrap_width, area.indent_width)
            assert document.height == wide
            await pilot.resize_terminal(24, 12)
            await pilot.pause()
            assert area.wrapped_document.height == fresh(area) > wide  # narrower: more wrapped lines
            area.load_text("one\ntwo")
            await pilot.pause()
            assert area.wrapped_document.height == fresh(area) == 2
            assert any("two" in line for line in private.render_lines(app.screen))

    _run(go())


class _WakingApp(private.BatchWakingApp):
    MODES = {"main": _Main, "other": _Other}
    DEFAULT_MODE = "main"


def _pending(screen: Screen) -> bool:
    """The screen has a layout or repaint waiting for its update timer."""
    return bool(screen._layout_required or screen._repaint_required or screen._dirty_widgets)


async def _switch_inside_a_longer_batch(app: App, pilot) -> Screen:
    """switch_mode opens a 0.05 s batch; a second batch (as a Footer's recompose opens) outlives it and closes last."""
    await pilot.pause()
    with app.batch_update():
        app.switch_mode("other")
        await asyncio.sleep(0.3)  # the switch's own batch closes meanwhile; the screen's idle found a batch open
    return app.screen


def test_batch_waking_app_draws_a_screen_when_the_last_batch_closes():
    async def go():
        app = _WakingApp()
        async with app.run_test(size=(40, 10)) as pilot:
            screen = await _switch_inside_a_longer_batch(app, pilot)
            for _ in range(1000):  # no event arrives meanwhile: only the prompt at the batch's end draws it
                if not _pending(screen):
                    break
                await asyncio.sleep(0.01)
            assert not _pending(screen)
            assert "other screen text" in "\n".join(private.render_lines(screen))

        # Textual alone leaves that repaint pending until some unrelated event (this is why the class exists)
        plain = _App()
        async with plain.run_test(size=(40, 10)) as pilot:
            screen = await _switch_inside_a_longer_batch(plain, pilot)
            await asyncio.sleep(0.5)
            assert _pending(screen)

    _run(go())


def test_footer_keys_start_with_the_footers_compact_and_are_not_restyled_for_it(monkeypatch):
    from textual.binding import Binding

    from skilltui.tui.widgets.footer import StableFooter

    restyled: list[object] = []
    original = private.FooterKey.update_node_styles

    def counting(self, *args, **kwargs):
        restyled.append(self)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(private.FooterKey, "update_node_styles", counting)

    class _Keys(Screen):
        BINDINGS = [Binding("a", "bell", "Alpha"), Binding("b", "app.quit", "Beta")]

        def compose(self) -> ComposeResult:
            yield StableFooter()

    class _KeysApp(App):
        def on_mount(self) -> None:
            self.push_screen(_Keys())

    async def go():
        for width, compact in ((120, False), (80, True)):  # StableFooter is compact below 110 columns
            app = _KeysApp()
            async with app.run_test(size=(width, 10)) as pilot:
                footer = None
                for _ in range(500):
                    await pilot.pause()
                    footer = app.screen.query_one(StableFooter)
                    keys = list(footer.query(private.FooterKey))
                    if footer.compact == compact and keys:
                        break
                    await asyncio.sleep(0.01)
                restyled.clear()
                before = set(footer.query(private.FooterKey))
                footer.refresh(recompose=True)  # new keys, as on a screen switch
                for _ in range(500):
                    await pilot.pause()
                    keys = list(footer.query(private.FooterKey))
                    if keys and not before & set(keys):
                        break
                    await asyncio.sleep(0.01)
                bound = [k for k in keys if not k.has_class("-command-palette")]
                assert len(bound) >= 2
                assert all(k.compact == compact and k.has_class("-compact") == compact for k in bound)
                # the palette key is not bound to the footer's compact: it keeps Textual's compact look
                assert all(k.compact and k.has_class("-compact") for k in keys if k not in bound)
                assert not [k for k in restyled if k in keys]  # no class change after the key was composed

    _run(go())
