"""The bar at the top of every screen: the five screens (clickable), and which runtime and folder are shown."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Static

from skilltui.text import safe
from skilltui.tui import data

SCREENS = (("skills", "Skills"), ("preview", "Preview"), ("budget", "Budget"), ("plugins", "Plugins"),
           ("doctor", "Doctor"))


class NavTab(Static):
    """One screen's tab; a click switches to it."""

    def __init__(self, number: int, mode: str, title: str, current: bool) -> None:
        super().__init__(f"{number} {title}", markup=False, classes="-current" if current else "")
        self.mode = mode
        self.tooltip = f"{title} (key {number})"

    def on_click(self) -> None:
        self.run_action(f"app.screen('{self.mode}')")


class TopBar(Horizontal):
    def __init__(self, current: str) -> None:
        super().__init__()
        self.current = current

    def compose(self) -> ComposeResult:
        yield Static(Text("skilltui", style="bold"), id="brand")
        for i, (mode, title) in enumerate(SCREENS, 1):
            yield NavTab(i, mode, title, mode == self.current)
        yield Static(id="where")

    def on_mount(self) -> None:
        self.watch(self.app, "state", self._update)
        self.watch(self.app, "busy", self._update)

    def on_resize(self) -> None:
        self._update()

    def _update(self, _=None) -> None:
        app = self.app
        state = getattr(app, "state", None)
        busy = getattr(app, "busy", "")
        where = Text(no_wrap=True, overflow="ellipsis", justify="right")
        if busy:
            where.append(busy + "  ", style="italic")
        elif state is None and getattr(app, "load_error", None):
            where.append("discovery failed: " + safe(app.load_error), style="bold")
        if state is not None:
            narrow = app.size.width < 110  # 80 columns: the runtime and the folder's name, no more
            where.append(data.runtime_label(state.catalog) + ("" if narrow else " (simulated)"))
            place = safe(data.cwd_label(state.catalog))
            parts = place.split("/")
            if narrow:
                place = parts[-1]
            elif len(place) > 40 and len(parts) > 3:
                place = "…/" + "/".join(parts[-3:])
            where.append(" · " + place, style="dim")
        self.query_one("#where", Static).update(where)
