"""Named scenes of the app on the bundled demo: what the snapshot tests compare and scripts/screenshots.py saves.

A scene is a terminal size and the keys a person would press from the start. The demo is copied fresh to a fixed
folder, so the paths shown (and so the pictures) are the same on every run.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from textual.pilot import Pilot

SNAPSHOT_DEMO_DIR = "/tmp/skilltui-snapshot-demo"


@dataclass(frozen=True)
class Scene:
    name: str
    title: str
    keys: tuple[str, ...] = ()
    size: tuple[int, int] = (120, 40)


SCENES = (
    Scene("skills", "Skills: every file found, by source, with its fate", ()),
    Scene("skills-filter", "Skills, filtered as you type", ("slash", *"commit")),
    Scene("preview", "Preview: frontmatter, body and referenced files", ("slash", *"pdf", "enter", "enter")),
    Scene("file", "A referenced file, highlighted", ("slash", *"pdf", "enter", "enter", "f", "enter")),
    Scene("budget", "Budget: the listing under the default window", ("3",)),
    Scene("budget-small", "Budget: a 2,000-token window squeezes descriptions", ("3", "w", *"2k")),
    Scene("plugins", "Plugins: who enables each one", ("4",)),
    Scene("toggle", "Toggling a plugin: scope, the one line, the effect", ("4", "t")),
    Scene("doctor", "Doctor: every diagnostic, grouped", ("5",)),
    Scene("help", "Help (?)", ("question_mark",)),
    Scene("skills-80x24", "Skills at 80×24", (), (80, 24)),
    Scene("preview-80x24", "Preview at 80×24", ("slash", *"pdf", "enter", "enter"), (80, 24)),
    Scene("budget-80x24", "Budget at 80×24", ("3",), (80, 24)),
)


def make_app(demo_dir: str = SNAPSHOT_DEMO_DIR):
    from skilltui.demo import demo_options
    from skilltui.tui.app import SkilltuiApp

    return SkilltuiApp(demo_options("claude", {"SKILLTUI_DEMO_DIR": demo_dir}, reset=True), poll=False)


async def settle(pilot: Pilot) -> None:
    app = pilot.app
    for _ in range(3):
        await asyncio.wait_for(app.workers.wait_for_complete(), 120)  # never hang a snapshot run
        await pilot.pause()


async def play(pilot: Pilot, keys: tuple[str, ...]) -> None:
    """Wait for discovery, press the keys (waiting after each), and stop cursors blinking so a picture is stable."""
    await settle(pilot)
    for key in keys:
        await pilot.press(key)
        await settle(pilot)
    for widget in pilot.app.screen.query("Input, TextArea"):
        widget.cursor_blink = False
    await settle(pilot)
