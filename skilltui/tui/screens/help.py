"""The help screen (`?`): what the current screen shows, its keys, and the keys that work everywhere."""

from __future__ import annotations

from importlib import resources

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Markdown

from skilltui.tui.widgets.footer import QuietFooter


def _keys_table(bindings) -> str:
    rows = ["| Key | Action |", "|---|---|"]
    seen = set()
    for b in bindings:
        if not b.description or (b.key, b.description) in seen:
            continue
        seen.add((b.key, b.description))
        key = b.key_display or b.key.replace("question_mark", "?").replace("slash", "/")
        rows.append(f"| `{key}` | {b.description} |")
    return "\n".join(rows)


def _bindings(owner) -> list[Binding]:
    return [b for b in getattr(owner, "BINDINGS", []) if isinstance(b, Binding)]


def help_markdown(screen: Screen | None, app) -> str:
    text = resources.files("skilltui.tui").joinpath("help.md").read_text(encoding="utf-8")
    parts = []
    if screen is not None:
        title = getattr(screen, "MODE", "") or screen.__class__.__name__.replace("Screen", "")
        focused = [b for b in _bindings(screen.focused) if b.show] if screen.focused is not None else []
        parts.append(f"## This screen: {title.capitalize()}\n\n{getattr(screen, 'HELP', '')}\n\n"
                     + _keys_table(focused + _bindings(screen)))
    parts.append("## Everywhere\n\n" + _keys_table(_bindings(app)) + "\n| `ctrl+p` | Command palette |")
    return "\n\n".join(parts) + "\n\n" + text


class HelpScreen(ModalScreen):
    BINDINGS = [
        Binding("escape,q,question_mark", "app.pop_screen", "Close", key_display="esc"),
    ]

    def __init__(self, under: Screen | None = None) -> None:
        super().__init__()
        self.under = under
        self._shown_once = False

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-box"):
            yield Markdown(help_markdown(self.under, self.app), id="help-text")
        yield QuietFooter()

    def on_mount(self) -> None:
        self.query_one("#help-box").focus()

    @on(events.ScreenResume)
    def _styled_at_mount(self, event: events.ScreenResume) -> None:
        # Textual restyles a screen's every widget each time it is shown; this one was composed and styled against
        # the current stylesheet a moment ago, so its first showing need not do it again (as BaseScreen does)
        if not self._shown_once:
            self._shown_once = True
            event.refresh_styles = False
