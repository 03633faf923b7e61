"""One file, read-only, highlighted with Pygments (Rich Syntax). Reads are capped; binary files are not shown."""

from __future__ import annotations

import os

from rich.syntax import Syntax
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from skilltui.text import safe
from skilltui.tui import data

READ_CAP = 256 * 1024
LINE_CAP = 4000


def read_for_display(path: str) -> tuple[str | None, str]:
    """(text, note): the file's start as text, or None and why it is not shown."""
    try:
        with open(path, "rb") as fh:
            raw = fh.read(READ_CAP + 1)
    except OSError as exc:
        return None, f"cannot be read: {exc.strerror or exc}"
    note = ""
    if len(raw) > READ_CAP:
        raw, note = raw[:READ_CAP], f"first {READ_CAP // 1024} KB shown"
    if b"\x00" in raw[:8192]:
        return None, "binary file; not shown"
    text = safe(raw.decode("utf-8", errors="replace"), keep_newlines=True)
    lines = text.split("\n")
    if len(lines) > LINE_CAP:
        text, note = "\n".join(lines[:LINE_CAP]), f"first {LINE_CAP} lines shown"
    return text, note


def lexer_for(path: str) -> str:
    from pygments.lexers import get_lexer_for_filename
    from pygments.util import ClassNotFound

    try:
        lexer = get_lexer_for_filename(os.path.basename(path))
    except ClassNotFound:
        return "text"
    return lexer.aliases[0] if lexer.aliases else lexer.name


class FileScreen(Screen):
    HELP = "A file, highlighted. Escape goes back."
    BINDINGS = [
        Binding("escape", "app.pop_screen", "Back", id="file.back"),
        Binding("question_mark", "app.help", "Help", key_display="?", show=False),
    ]

    def __init__(self, path: str, *, line: int | None = None, title: str | None = None) -> None:
        super().__init__()
        self.path = path
        self.line = line
        self.title_text = title

    def compose(self) -> ComposeResult:
        head = Text(no_wrap=True, overflow="ellipsis")
        head.append(safe(self.title_text or os.path.basename(self.path)), style="bold")
        head.append("  " + safe(data.short_path(self.path, self.app.catalog)), style="dim")
        yield Static(head, id="file-title")
        with VerticalScroll(id="file-scroll"):
            yield Static(id="file-code")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#file-scroll").loading = True
        self._read()

    @work(thread=True, exclusive=True, description="read file")
    def _read(self) -> None:
        text, note = read_for_display(self.path)
        self.app.call_from_thread(self._show, text, note)

    def _show(self, text: str | None, note: str) -> None:
        scroll = self.query_one("#file-scroll", VerticalScroll)
        scroll.loading = False
        code = self.query_one("#file-code", Static)
        if text is None:
            code.update(Text(note, style="italic"))
            return
        dark = self.app.current_theme.dark
        syntax = Syntax(text, lexer_for(self.path), line_numbers=True, word_wrap=True,
                        theme="monokai" if dark else "default", background_color="default",
                        highlight_lines={self.line} if self.line else None)
        code.update(syntax)
        if note:
            self.query_one("#file-title", Static).update(
                Text.assemble((safe(os.path.basename(self.path)), "bold"), "  ", (safe(data.short_path(self.path, self.app.catalog)), "dim"),
                              "  ", (f"({note})", "italic"), no_wrap=True, overflow="ellipsis"))
        if self.line:
            self.call_after_refresh(lambda: scroll.scroll_to(y=max(0, self.line - 5), animate=False))
        scroll.focus()
