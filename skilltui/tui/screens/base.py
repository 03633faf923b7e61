"""What every top-level screen shares: the top bar, the footer, and redrawing when the catalog changes.

A screen draws from the app's state in `refresh_view()`. When the state changes while the screen is not shown,
the redraw waits until it is shown again, so a refresh costs only the visible screen.
"""

from __future__ import annotations

from textual import events, on
from textual.app import ComposeResult
from textual.css.query import NoMatches
from textual.screen import Screen

from skilltui.tui import textual_private as private
from skilltui.tui.widgets.footer import StableFooter
from skilltui.tui.widgets.topbar import TopBar

HELP_TEXT = ""


class BaseScreen(Screen):
    MODE = ""
    HELP = ""  # a paragraph for the help screen: what this screen shows and does
    WATCH = ("state",)  # app attributes whose change redraws this screen

    def __init__(self) -> None:
        super().__init__()
        self._stale = True
        self._ready = False  # set once the widgets are composed and mounted
        self._focus_when_suspended: bool | None = None
        # Built while no stylesheet refresh is pending (any time after start-up, ahead or on a first visit): it is
        # styled against the app's current stylesheet when mounted, so Textual's mode switch need not reparse the
        # stylesheet and restyle every widget, as it does for a screen it has not seen refreshed.
        private.adopt_app_stylesheet(self, self.app)

    def compose(self) -> ComposeResult:
        yield TopBar(self.MODE)
        yield from self.compose_body()
        yield StableFooter()

    def compose_body(self) -> ComposeResult:
        yield from ()

    def on_mount(self) -> None:
        self._ready = True
        private.adopt_app_stylesheet(self, self.app)  # styled as it mounted (the first screen too)
        for name in self.WATCH:
            self.watch(self.app, name, self._app_changed, init=False)
        self.watch(self.app, "theme", self._app_changed, init=False)
        self.call_after_refresh(self.on_screen_resume)

    def _app_changed(self, _=None) -> None:
        self._stale = True
        if self.is_current and self._ready:
            self._redraw()

    @on(events.ScreenResume)
    def _keep_styles(self, event: events.ScreenResume) -> None:
        # Textual restyles every widget of a screen each time it is shown (about 1 ms a widget). A suspended
        # screen's styles stay current (class changes restyle at once, a theme change goes through the mode
        # switch's CSS refresh), so only a change of the terminal's focus, which styles follow, needs it.
        if self._focus_when_suspended is None or self._focus_when_suspended == self.app.app_focus:
            event.refresh_styles = False  # runs before Screen's own handler, which reads it (a public field)

    @on(events.ScreenSuspend)
    def _remember_focus(self) -> None:
        self._focus_when_suspended = self.app.app_focus

    def on_screen_resume(self) -> None:
        # a screen shown for the first time is resumed before its widgets exist; on_mount draws it then
        if self._stale and self._ready and self.is_current:
            self._redraw()

    def draw_ahead(self) -> None:
        """Draw from the current state while not shown, when the app prepares this screen in idle time: the first
        visit then only shows it (for the Budget screen that moves ~0.1-0.3 s of work off the visit)."""
        if self._stale and self._ready and self.app.state is not None:
            self._redraw()

    def _redraw(self) -> None:
        self._stale = False
        try:
            self.refresh_view()
        except NoMatches:  # still being composed (a first visit can resume before its widgets are mounted)
            self._stale = True
            self.call_after_refresh(self.on_screen_resume)

    def refresh_view(self) -> None:
        """Draw from the app's current state (called when it changes and the screen is visible)."""


def palette(app) -> dict[str, str]:
    """Theme colours for Rich text in tables, so rows follow Textual's theme. "dim" stands in for muted text."""
    v = app.theme_variables

    def colour(name: str, fallback: str) -> str:
        value = v.get(name, "")
        return value if len(value) == 7 and value.startswith("#") else fallback

    return {
        "ok": colour("text-success", "green"),
        "error": colour("text-error", "red"),
        "warning": colour("text-warning", "yellow"),
        "accent": colour("text-accent", colour("accent", "blue")),
        "primary": colour("text-primary", colour("primary", "blue")),
        "muted": "dim",
    }
