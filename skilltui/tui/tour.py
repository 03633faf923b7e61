"""Named scenes of the app on the bundled demo: what the snapshot tests compare and scripts/screenshots.py saves.

A scene is a terminal size and the keys a person would press from the start. The demo is copied fresh to a folder
of the caller's (the tests' tmp_path) or a new private temporary one; the app shows paths from the project's name or
from `~`, so the pictures do not depend on where the copy is.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import tempfile
from dataclasses import dataclass

from textual.pilot import Pilot
from textual.worker import WorkerCancelled

from skilltui.record import Record


@dataclass(frozen=True, repr=False)
class Scene(Record):
    name: str
    title: str
    keys: tuple[str, ...] = ()
    size: tuple[int, int] = (120, 40)


PREVIEW = ("slash", *"pdf", "enter", "enter")
SMALL = (80, 24)

SCENES = (
    Scene("skills", "Skills: every file found, by source, with its fate", ()),
    Scene("skills-filter", "Skills, filtered as you type", ("slash", *"commit")),
    Scene("preview", "Preview: frontmatter, body and referenced files", PREVIEW),
    Scene("file", "A referenced file, highlighted", (*PREVIEW, "f", "enter")),
    Scene("budget", "Budget: the listing under the default window", ("3",)),
    Scene("budget-small", "Budget: a 2,000-token window squeezes descriptions", ("3", "w", *"2k")),
    Scene("plugins", "Plugins: who enables each one", ("4",)),
    Scene("toggle", "Toggling a plugin: scope, the one line, the effect", ("4", "t")),
    Scene("doctor", "Doctor: every diagnostic, grouped", ("5",)),
    Scene("help", "Help (?)", ("question_mark",)),
    Scene("touch", "Touch files: what Claude Code adds as the agent reads them",
          ("t", *"src/api/routes.ts ui/button.tsx", "enter")),
    # every screen, designed for 80×24
    Scene("skills-80x24", "Skills at 80×24", (), SMALL),
    Scene("preview-80x24", "Preview at 80×24", PREVIEW, SMALL),
    Scene("source-80x24", "Preview's source view (v) at 80×24", (*PREVIEW, "v"), SMALL),
    Scene("runtimes-80x24", "All runtimes (a) at 80×24", (*PREVIEW, "a"), SMALL),
    Scene("file-80x24", "A referenced file at 80×24", (*PREVIEW, "f", "enter"), SMALL),
    Scene("budget-80x24", "Budget at 80×24", ("3",), SMALL),
    Scene("budget-bad-80x24", "Budget: a window that is not a number, at 80×24", ("3", "w", *"abc"), SMALL),
    Scene("plugins-80x24", "Plugins at 80×24", ("4",), SMALL),
    Scene("toggle-80x24", "Toggling a plugin at 80×24", ("4", "t"), SMALL),
    Scene("toggle-local-80x24", "A new local settings file: every line it gets, and the git ignore line, at 80×24",
          ("4", "t", "l"), SMALL),
    Scene("toggle-decided-80x24", "Nothing to write: a higher scope decides, at 80×24", ("4", "down", "t", "u"), SMALL),
    Scene("doctor-80x24", "Doctor at 80×24", ("5",), SMALL),
    Scene("help-80x24", "Help at 80×24", ("question_mark",), SMALL),
    Scene("touch-80x24", "Touch files at 80×24", ("t",), SMALL),
)


def make_app(demo_dir: str | None = None):
    """The app on a fresh copy of the demo in `demo_dir` (created; default: a new private temporary folder)."""
    from skilltui.demo import demo_options
    from skilltui.tui.app import SkilltuiApp

    folder = demo_dir or os.path.join(tempfile.mkdtemp(prefix="skilltui-tour-"), "demo")
    return SkilltuiApp(demo_options("claude", {"SKILLTUI_DEMO_DIR": folder}, reset=True), poll=False)


async def settle(pilot: Pilot) -> None:
    app = pilot.app
    for _ in range(3):
        with contextlib.suppress(WorkerCancelled):  # a worker replaced by a newer one
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
