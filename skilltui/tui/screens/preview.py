"""Preview: one SKILL.md as the model would read it: frontmatter as a field table, the body as Markdown, and the
files it references beside it. Links are resolved by the engine; only files inside the skill folder ever open."""

from __future__ import annotations

import asyncio
import json
import os
from urllib.parse import unquote

from rich.cells import cell_len
from rich.table import Table
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container, Horizontal, Vertical, VerticalScroll
from textual.css.query import NoMatches
from textual.widgets import Markdown, OptionList, Static, TextArea
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from skilltui import preview
from skilltui.model import Skill
from skilltui.text import safe
from skilltui.tui import data, messages
from skilltui.tui.screens.base import BaseScreen, palette
from skilltui.tui.widgets.markdown import ProgressiveMarkdown

SOURCE_CAP = 1_000_000


def fit_start(text: str, width: int) -> str:
    """`text` cut at its start to `width` cells, so a path keeps its informative end: "…/scene-design-system.md"."""
    if width <= 1 or cell_len(text) <= width:
        return text
    while text and cell_len(text) > width - 1:
        text = text[max(1, (cell_len(text) - width) // 2):]  # about half the excess at a time, then one by one
    return "…" + text


def field_value(value) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


class PreviewScreen(BaseScreen):
    MODE = "preview"
    AUTO_FOCUS = "#preview-doc"
    WATCH = ("state",)
    HELP = ("The highlighted skill's SKILL.md: its frontmatter as a table (with the parse error and its line, if "
            "any), its body rendered as Markdown, and beside it every file the body references plus the files in "
            "its folder. Broken links and links that leave the skill folder are marked and never opened. Large "
            "bodies render a screenful at a time as you scroll; `v` shows the whole file as text.")
    BINDINGS = [
        Binding("escape", "app.back", "Back", id="preview.back"),
        Binding("f", "focus_files", "Files", id="preview.files", tooltip="Move to the list of referenced files"),
        Binding("v", "toggle_source", "Source/rendered", id="preview.source",
                tooltip="Show the whole file as text with line numbers, or the rendered preview"),
        Binding("a", "all_runtimes", "All runtimes", id="preview.runtimes",
                tooltip="Which copy of this skill each runtime picks, and which it ignores and why"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.skill: Skill | None = None
        self.details: dict | None = None
        self.targets: dict[str, str] = {}  # option id -> path that may be opened
        self.refused: dict[str, str] = {}  # option id -> why it is not opened
        self._loading: ProgressiveMarkdown | None = None  # the document a piece is being added to
        self._shown_state = None
        self._docs = 0
        self._details_pending: tuple | None = None
        self.doc: ProgressiveMarkdown | None = None
        self._body_ready = asyncio.Event()  # set once the shown skill's body is read and its document mounted

    def compose_body(self) -> ComposeResult:
        yield Static(id="preview-title")
        with Horizontal(id="preview-main"):
            with VerticalScroll(id="preview-doc"):
                yield Static(id="fm-error")
                yield Static(id="fm-table")
                yield Container(id="body-holder")
                yield Static(id="more")
            yield TextArea(id="source", read_only=True, show_line_numbers=True, soft_wrap=True)
            with Vertical(id="preview-side"):
                yield Static("Referenced files", classes="side-title")
                yield OptionList(id="refs")

    def on_mount(self) -> None:
        super().on_mount()
        self.watch(self.app, "selected", self._selection_changed, init=False)
        try:
            source, doc = self.query_one("#source"), self.query_one("#preview-doc", VerticalScroll)
        except NoMatches:  # the app quit while this screen was being built ahead: its widgets are already gone
            return
        source.display = False
        # near the end? asked when the reader scrolls and when the document's laid-out height changes (a body drawn
        # before the screen was shown is only laid out once it is)
        self.watch(doc, "scroll_y", self._scrolled, init=False)
        self.watch(doc, "virtual_size", self._scrolled, init=False)

    def highlighted_skill(self) -> Skill | None:
        return self.skill

    def on_resize(self) -> None:
        if self.details is not None:
            self.call_after_refresh(self._references, True)  # paths are fitted to the column's new width

    def _selection_changed(self, _=None) -> None:
        """Draw a newly selected skill at once, even before this screen is shown: the app shows the screen once the
        first piece of the body is mounted, so the first paint already holds it."""
        self._stale = True
        if self._ready:
            self._redraw()

    async def first_piece(self) -> None:
        """Wait until the body is read and its first piece is on this screen (the caller bounds the wait)."""
        if self.app.state is None or self.app.selected is None:
            return  # no body to wait for: the screen shows its hint at once
        await self._body_ready.wait()
        if self.doc is not None:
            await self.doc.first_piece.wait()

    # ------------------------------------------------------------ drawing
    def refresh_view(self) -> None:
        state, skill = self.app.state, self.app.selected
        if skill is self.skill and state is self._shown_state:
            return
        self.skill, self._shown_state = skill, state
        self._show_source(False)
        title = self.query_one("#preview-title", Static)
        if state is None:
            title.update(Text(self.app.busy or "scanning…", style="italic"))
            self._clear()
            return
        if skill is None:
            title.update(Text("No skill selected. Pick one on the Skills screen (1) and press Enter.", style="italic"))
            self._clear()
            return
        title.update(self._title(skill, state))
        self.details = None
        self._details_pending = None
        self.query_one("#fm-error", Static).display = False
        self.query_one("#refs", OptionList).clear_options()
        if not skill.path:
            self._frontmatter(skill)
            self._body(None)
            return
        # The catalog keeps no bodies: read it off the UI thread (a slow disk or a FIFO never freezes the app),
        # show its first screenful, then work out the frontmatter table and the references (a regex pass over the
        # whole body), also off the UI thread.
        self._body_ready.clear()
        self.query_one("#fm-table", Static).update(Text("reading…", style="dim italic"))
        self._read_body(state, skill)

    @work(thread=True, exclusive=True, group="body", description="read the skill's body")
    def _read_body(self, state: data.Loaded, skill: Skill) -> None:
        fm = skill.frontmatter
        body = fm.read_body() if fm is not None else None
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._body_read, state, skill, body)

    def _body_read(self, state: data.Loaded, skill: Skill, body: str | None) -> None:
        if skill is not self.skill:
            return
        self._body(body)
        if self.doc is None:
            self._read_details(state, skill)
        else:  # after the first piece is on screen, so the two do not compete
            self._details_pending = (state, skill)

    @work(thread=True, exclusive=True, group="details", description="read skill details")
    def _read_details(self, state: data.Loaded, skill: Skill) -> None:
        try:
            details, error = preview.skill_details(state.catalog, skill), None
        except OSError as exc:  # a file that vanished since discovery, an unreadable folder
            details, error = None, f"Cannot read {skill.path}: {exc}"
        except Exception as exc:  # a bug in the engine: said and logged, the preview stays up
            details, error = None, f"Cannot show {skill.path}: {data.logged(exc, 'skill details')}"
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._show_details, skill, details, error)

    def _show_details(self, skill: Skill, details: dict | None, error: str | None) -> None:
        if skill is not self.skill:
            return
        if error:
            self.notify(error, severity="error", markup=False)
        self.details = details
        self._frontmatter(skill)
        if self.doc is None and details is not None:
            self._body(details["body"])
        self._references()

    def _clear(self) -> None:
        self.details = None
        self.query_one("#fm-error", Static).display = False
        self.query_one("#fm-table", Static).update("")
        self.query_one("#body-holder").remove_children()
        self.doc = None
        self.query_one("#more", Static).update("")
        self.query_one("#refs", OptionList).clear_options()

    def _title(self, skill: Skill, state: data.Loaded) -> Text:
        colours = palette(self.app)
        t = Text(no_wrap=True, overflow="ellipsis")
        t.append(safe(skill.label or skill.name), style="bold")
        colour = {"listed": colours["ok"], "invalid": colours["error"]}.get(skill.status, "")
        t.append(f"  {skill.status}", style=colour or "italic")
        t.append(f"  [{skill.source}{' ' + safe(skill.plugin) if skill.plugin else ''}]", style="dim")
        if skill.reason:
            t.append("  " + safe(data.short_paths_in(skill.reason, state.catalog)), style="italic")
        t.append("\n")
        t.append(safe(data.short_path(skill.path, state.catalog)) if skill.path
                 else "shipped inside the runtime; its text is not on disk", style="dim")
        return t

    def _frontmatter(self, skill: Skill) -> None:
        error = self.query_one("#fm-error", Static)
        table_widget = self.query_one("#fm-table", Static)
        d = self.details
        if d is None:
            error.display = False
            table_widget.update(Text("No file to preview." if not skill.path else "", style="italic"))
            return
        fm = d["frontmatter"]
        if fm["error"] or fm["status"] in ("invalid", "not-mapping", "retried"):
            where = f" at line {fm['error_line']}" if fm["error_line"] else ""
            msg = {"retried": "parsed only after the runtime quoted its values",
                   "not-mapping": "is not a mapping"}.get(fm["status"], "does not parse")
            text = Text(f"Frontmatter {msg}{where}", style="bold")
            if fm["error"]:
                text.append(": " + safe(fm["error"]), style="")
            error.update(text)
            error.set_class(fm["status"] != "retried", "-error")
            error.display = True
        else:
            error.display = False
        if not fm["fields"]:
            table_widget.update(Text("No frontmatter." if fm["status"] == "none" else "", style="dim italic"))
            return
        table = Table(show_header=False, box=None, expand=True, padding=(0, 1), pad_edge=False)
        table.add_column("field", style="bold", no_wrap=True, max_width=28)
        table.add_column("value", ratio=1)
        for key, value in fm["fields"].items():
            table.add_row(Text(safe(str(key))), Text(safe(field_value(value), keep_newlines=True)))
        table_widget.update(table)

    def _body(self, body: str | None) -> None:
        self._body_ready.set()
        holder = self.query_one("#body-holder")
        holder.remove_children()
        self.doc = None
        if body is None:
            self.query_one("#more", Static).update("")
            return
        if not body.strip():
            holder.mount(Static(Text("(empty body)", style="dim italic")))
            self.query_one("#more", Static).update("")
            return
        self._docs += 1
        doc = ProgressiveMarkdown(body, id=f"body-{self._docs}", classes="body")
        self.doc = doc
        holder.mount(doc)
        self.query_one("#more", Static).display = False
        self.query_one("#preview-doc", VerticalScroll).scroll_home(animate=False)

    def _references(self, keep: bool = False) -> None:
        refs = self.query_one("#refs", OptionList)
        kept = refs.highlighted if keep else None
        refs.clear_options()
        self.targets, self.refused = {}, {}
        d = self.details
        if d is None:
            return
        colours = palette(self.app)
        files = d["files"]

        def openable(ref: dict) -> bool:
            return bool(ref["exists"] and ref["inside_skill_dir"] and ref["resolved"])

        # A path longer than the column is cut at its start, to the room left by the scrollbar when there will be
        # one (a refused link takes up to three lines with its reason).
        lines = sum(1 if openable(ref) else 3 for ref in d["references"]) + (len(files) + 2 if files else 0)
        room = (refs.size.width - refs.styles.gutter.width - refs.get_component_styles("option-list--option").padding.width
                - (refs.styles.scrollbar_size_vertical if lines > refs.size.height else 0))
        options: list[Option | None] = []
        for i, ref in enumerate(d["references"]):
            oid = f"ref:{i}"
            ok = openable(ref)
            t = Text(no_wrap=True, overflow="ellipsis")
            if ok:
                t.append("✓ ", style=colours["ok"])
                self.targets[oid] = ref["resolved"]
            elif not ref["inside_skill_dir"] and ref["resolved"]:
                t.append("⊘ ", style=colours["error"])
            else:
                t.append("✗ ", style=colours["error"])
            where = f" :{ref['line']}" if ref["line"] else ""
            t.append(fit_start(safe(ref["link"]), room - 2 - len(where)))
            t.append(where, style="dim")
            if not ok:
                why = ref["problem"] or "not found"
                self.refused[oid] = why
                t.append("\n   " + safe(why), style="dim italic")
            options.append(Option(t, id=oid))
        if not options:
            options.append(Option(Text("(no links in the body)", style="dim italic"), id="none", disabled=True))
        if files:
            options.append(None)
            options.append(Option(Text(f"In the skill folder ({len(files)})", style="bold"), id="files", disabled=True))
            folder = self.skill.skill_dir or os.path.dirname(self.skill.path)
            for i, rel in enumerate(files):
                oid = f"file:{i}"
                self.targets[oid] = os.path.join(folder, rel)
                options.append(Option(Text(fit_start(safe(rel), room), no_wrap=True), id=oid))
        refs.add_options(options)
        first = next((i for i, o in enumerate(options) if o is not None and not o.disabled), None)
        refs.highlighted = kept if kept is not None else first

    # ------------------------------------------------------------ reading a large body a piece at a time
    def _update_more(self, doc: ProgressiveMarkdown) -> None:
        more = self.query_one("#more", Static)
        if doc.complete:
            more.update("")
            more.display = False
        else:
            more.display = True
            more.update(Text(f"Lines 1–{doc.lines_shown} of {doc.lines_total} rendered; scroll down for more, "
                             "or press v for the whole file as text.", style="dim italic"))

    def _scrolled(self, _=None) -> None:
        scroll = self.query_one("#preview-doc", VerticalScroll)
        if scroll.max_scroll_y - scroll.scroll_y <= scroll.size.height * 2:
            self.load_more()

    def load_more(self) -> None:
        doc = self.doc
        if doc is None or doc.complete or not doc.is_mounted or self._loading is doc:
            return
        self._loading = doc
        self.run_worker(self._load_more(doc), group="more")

    async def _load_more(self, doc: ProgressiveMarkdown) -> None:
        try:
            if doc is self.doc:  # not a document replaced meanwhile
                await doc.load_more()
        finally:
            if self._loading is doc:
                self._loading = None
        if doc is self.doc:
            self._update_more(doc)
            self.call_after_refresh(self._scrolled)

    # ------------------------------------------------------------ opening files, never following a bad link
    def open_target(self, oid: str | None) -> None:
        if oid in self.targets:
            path = self.targets[oid]
            self.post_message(messages.OpenFile(path, title=os.path.relpath(path, self.skill.skill_dir or os.path.dirname(self.skill.path))))
        elif oid in self.refused:
            self.notify(f"Not opened: {self.refused[oid]}", severity="warning", markup=False)

    @on(ProgressiveMarkdown.PieceMounted)
    def _piece_mounted(self, event: ProgressiveMarkdown.PieceMounted) -> None:
        """A piece of the body is mounted: after the next paint, read the details if still pending, and load more
        while the end is near."""
        event.stop()
        self.call_after_refresh(self._after_piece)

    def _after_piece(self) -> None:
        if self.doc is not None:
            self._update_more(self.doc)
        if self._details_pending is not None:
            state, skill = self._details_pending
            self._details_pending = None
            if skill is self.skill:
                self._read_details(state, skill)
        self._scrolled()

    @on(OptionList.OptionSelected, "#refs")
    def _ref_selected(self, event: OptionList.OptionSelected) -> None:
        self.open_target(event.option.id)

    @on(Markdown.LinkClicked)
    def _link_clicked(self, event: Markdown.LinkClicked) -> None:
        event.stop()
        event.prevent_default()
        href = event.href
        for i, ref in enumerate((self.details or {}).get("references", [])):
            link = ref["link"][1:-1] if ref["link"].startswith("<") and ref["link"].endswith(">") else ref["link"]
            if unquote(link) == href or link == href:
                self.open_target(f"ref:{i}")
                return
        self.notify(f"Not followed: {safe(href)[:200]} is not a file inside the skill folder.", severity="warning",
                    markup=False)

    # ------------------------------------------------------------ actions
    def action_all_runtimes(self) -> None:
        from skilltui.tui.screens.runtimes import RuntimesScreen

        if self.skill is not None and self.app.state is not None:
            self.app.open_screen(RuntimesScreen(self.app.state.opts, self.skill.name))

    def action_focus_files(self) -> None:
        self.set_focus(self.query_one("#refs", OptionList))  # at once: Enter may follow

    @work(thread=True, exclusive=True, group="source", description="read the whole file")
    def _read_source(self, skill: Skill) -> None:
        from skilltui.frontmatter import read_text

        try:
            text, error = read_text(skill.path, SOURCE_CAP).text, None
        except OSError as exc:
            text, error = None, f"Cannot read the file: {exc}"
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._source_read, skill, text, error)

    def _source_read(self, skill: Skill, text: str | None, error: str | None) -> None:
        if skill is not self.skill:
            return
        if text is None:
            self.notify(error or "Cannot read the file.", severity="error", markup=False)
            return
        area = self.query_one("#source", TextArea)
        area.load_text(safe(text, keep_newlines=True))
        line = (self.details or {}).get("frontmatter", {}).get("error_line")
        if line:
            area.move_cursor((line - 1, 0), center=True)
        area.display = True
        self.query_one("#preview-doc").display = False
        if self.is_current:
            self.set_focus(area)

    def action_toggle_source(self) -> None:
        self._show_source(not self.query_one("#source").display)

    def _show_source(self, show: bool) -> None:
        area = self.query_one("#source", TextArea)
        doc = self.query_one("#preview-doc")
        if show and (self.skill is None or not self.skill.path):
            return
        if show:
            self._read_source(self.skill)  # shown once read, off the UI thread
            return
        area.display = show
        doc.display = not show
        if self.is_current:
            self.set_focus(area if show else doc)
