"""What screens and widgets ask of the app. They post one of these (it bubbles up to the app) instead of calling the
app's methods, so a screen knows nothing of the app's internals and every request is handled in one place
(`SkilltuiApp.on_*`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from textual.message import Message

from skilltui.model import Diagnostic, Skill
from skilltui.record import Record
from skilltui.runtimes import ModelPreset


@dataclass(repr=False)
class ToggleRequest(Record):
    """A settings change the user asked for, before the dialog asks where to write it."""

    kind: Literal["plugin", "override"]
    target: str  # plugin id, or skill name
    value: bool | str  # enable (bool) for a plugin; an override value for a skill

    @property
    def title(self) -> str:
        if self.kind == "plugin":
            return f"{'Enable' if self.value else 'Disable'} plugin {self.target}"
        return f"Set skill override for {self.target}"


class OpenPreview(Message):
    def __init__(self, skill: Skill) -> None:
        super().__init__()
        self.skill = skill


class OpenFile(Message):
    def __init__(self, path: str, *, line: int | None = None, title: str | None = None) -> None:
        super().__init__()
        self.path, self.line, self.title = path, line, title


class OpenDiagnostic(Message):
    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__()
        self.diagnostic = diagnostic


class RequestToggle(Message):
    def __init__(self, request: ToggleRequest) -> None:
        super().__init__()
        self.request = request


class UsePreset(Message):
    """Show the Budget screen under one of the current runtime's model presets."""

    def __init__(self, preset: ModelPreset) -> None:
        super().__init__()
        self.preset = preset


class SelectRuntime(Message):
    def __init__(self, runtime: str) -> None:
        super().__init__()
        self.runtime = runtime


class BudgetChanged(Message):
    """The Budget screen's budget (characters), which the toggle dialog's effect uses."""

    def __init__(self, chars: int | None) -> None:
        super().__init__()
        self.chars = chars
