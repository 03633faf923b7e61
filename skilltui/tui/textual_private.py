"""Every use of Textual's private API, in one place, each with a test (tests/test_tui_private.py).

skilltui pins Textual exactly (pyproject.toml: textual==8.2.8). Upgrading means: change the pin, run
tests/test_tui_private.py, and fix what it reports here; no other module touches a name starting with "_" in Textual.

Why each is needed:
- `prepare_mode`/`mode_screen`: building a screen ahead of its first visit (Textual's own first step of
  `switch_mode`, without the switch), so a first visit only shows it (0.1-0.3 s saved per screen).
- `draw_offscreen`: a layout and one undisplayed frame, so each widget's lines are cached for that first visit.
- `adopt_app_stylesheet`: a screen built after start-up is styled against the current stylesheet, so the mode switch
  does not restyle every widget again.
- `MarkdownFence`: the code-block widget of Textual's Markdown, replaced to highlight safely.
"""

from __future__ import annotations

from textual.app import App
from textual.geometry import Size
from textual.screen import Screen
from textual.widgets._markdown import MarkdownBlock, MarkdownFence

__all__ = ["MarkdownBlock", "MarkdownFence", "adopt_app_stylesheet", "draw_offscreen", "mode_screen", "prepare_mode",
           "render_lines"]


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


def draw_offscreen(screen: Screen, size: Size) -> None:
    """Lay out `screen` at `size` and render one frame that is not displayed (fills the widgets' line caches)."""
    screen._refresh_layout(size)
    screen._compositor.render_update(full=True)


def adopt_app_stylesheet(screen: Screen, app: App) -> None:
    """Mark `screen` as styled against the app's current stylesheet (call before it is mounted)."""
    screen._css_update_count = app._css_update_count


def render_lines(screen: Screen) -> list[str]:
    """The text of each line the screen shows now (for tests and the hostile suite)."""
    return [strip.text for strip in screen._compositor.render_strips()]
