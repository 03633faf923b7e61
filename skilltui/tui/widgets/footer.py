"""Textual's Footer, rebuilt only when the keys it shows change.

Textual's Footer recomposes (a dozen new widgets, each styled) whenever the screen's bindings are updated: on every
focus change and every screen switch, even when the keys shown stay the same. That cost about 0.1 s a time on a
screen switch, so this footer first compares what it would show with what it shows.

Each new FooterKey also started compact (its own default) and was then bound to the footer's `compact`, so each key
was restyled twice as it mounted (two class changes); here a bound key starts with the footer's value, and the
binding then changes nothing.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Footer

from skilltui.tui.textual_private import FooterKey


class QuietFooter(Footer):
    """Textual's Footer whose new keys start with their final `compact` (no restyle as each mounts)."""

    def compose(self) -> ComposeResult:
        for widget in super().compose():
            if isinstance(widget, FooterKey):
                # the palette key is not bound to the footer's compact: it keeps FooterKey's own default (compact)
                compact = True if widget.has_class("-command-palette") else self.compact
                widget.set_reactive(FooterKey.compact, compact)
                widget.set_class(compact, "-compact", update=False)
            yield widget


class StableFooter(QuietFooter):
    def __init__(self) -> None:
        super().__init__()
        self._shown: tuple | None = None

    def _keys(self) -> tuple:
        return tuple((b.key, b.description, b.key_display, b.show, b.group, enabled, tooltip)
                     for (_, b, enabled, tooltip) in self.screen.active_bindings.values())

    def on_resize(self, event) -> None:
        compact = event.size.width < 110  # 80 columns: every key still fits, with less space around each
        if compact != self.compact:
            self.compact = compact

    def bindings_changed(self, screen) -> None:
        if self.is_attached and screen is self.screen and screen.app.app_focus:
            keys = self._keys()
            if keys == self._shown:
                return
            self._shown = keys
        super().bindings_changed(screen)
