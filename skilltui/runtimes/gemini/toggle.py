"""Enable and disable a skill the way Gemini CLI 0.61.0 writes `skills.disabled` (spec/gemini.md §6), through
skilltui/settings_writer.py: one value changed, every other byte (comments included) kept.

What Gemini CLI does, observed with the oracle:
- `/skills disable NAME` looks NAME up ignoring case among the discovered skills (unknown: `Skill "NAME" not found.`),
  then appends NAME as typed to `skills.disabled` of the workspace file (`<cwd>/.gemini/settings.json`), or of the
  user file when the cwd is the home folder. `--scope user|workspace` picks the file (as `gemini skills disable`).
  The exact string already present: "already disabled", nothing written.
- `enable NAME` removes the exact-case NAME from both the user and the workspace lists, leaving `[]`.
- In an untrusted workspace Gemini CLI writes the workspace file from an empty view of it, dropping its other keys and
  entries. skilltui does not copy that: it appends to the file as it is and says the file is not read until trusted.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from skilltui import settings_writer
from skilltui.model import Catalog
from skilltui.record import Record
from skilltui.runtimes.gemini.settings import GeminiSettings
from skilltui.runtimes.gemini.settings import of as settings_of

Action = Literal["enable", "disable"]
Scope = Literal["user", "workspace"]
KEYS = ("skills", "disabled")


@dataclass(repr=False)
class Edit(Record):
    path: str
    scope: Scope
    old: list[str] | None  # the list before (None: no key)
    new: list[str]
    change: settings_writer.Change | None = None


@dataclass(repr=False)
class GeminiToggle(Record):
    action: Action
    name: str
    ok: bool
    message: str
    edits: list[Edit] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    error: str | None = None

    def to_json(self) -> dict[str, object]:
        return {"action": self.action, "name": self.name, "ok": self.ok, "message": self.message,
                "error": self.error, "warnings": list(self.warnings),
                "edits": [{"path": e.path, "scope": e.scope, "old": e.old, "new": e.new,
                           "changed": bool(e.change and e.change.changed)} for e in self.edits]}


def _file(st: GeminiSettings, scope: Scope) -> str:
    return st.paths.user_settings if scope == "user" else st.paths.workspace_settings


def _current(path: str) -> list[str] | None:
    data = settings_writer.read_json_object(path, comments=True) or {}
    skills = data.get("skills")
    value = skills.get("disabled") if isinstance(skills, dict) else None
    if value is None:
        return None
    return list(value) if isinstance(value, list) else [value]


def plan(catalog: Catalog, action: Action, name: str, scope: Scope | None = None) -> GeminiToggle:
    """What to write, checked by the writer's own refusals (nothing is written here)."""
    st = settings_of(catalog)
    try:
        return _plan(catalog, st, action, name, scope)
    except settings_writer.SettingsWriteError as exc:
        return GeminiToggle(action, name, False, str(exc), error=str(exc))


def _plan(catalog: Catalog, st: GeminiSettings, action: Action, name: str, scope: Scope | None) -> GeminiToggle:
    if action == "disable":
        known = {s.name.lower() for s in catalog.skills if s.status not in ("invalid",)}
        if name.lower() not in known:
            return GeminiToggle(action, name, False, f'Skill "{name}" not found.', error="not found")
        scope = scope or ("user" if st.paths.cwd_is_home else "workspace")
        path = _file(st, scope)
        old = _current(path)
        if old is not None and name in old:
            return GeminiToggle(action, name, True, f'Skill "{name}" is already disabled.')
        edit = Edit(path, scope, old, [*(old or []), name])
        edit.change = settings_writer.preview(path, KEYS, edit.new, comments=True)
        out = GeminiToggle(action, name, True, f'Skill "{name}" disabled by adding it to the disabled list in {scope} '
                                               f"({path}) settings.", [edit])
        if scope == "workspace" and not st.trust.trusted:
            out.warnings.append(f"the workspace is not trusted, so Gemini CLI does not read {path} ({st.trust.detail}); "
                                "Gemini CLI's own disable would also rewrite that file without its other settings — "
                                "skilltui changed only skills.disabled")
        return out
    edits = []
    for sc in ("user", "workspace"):
        path = _file(st, sc)
        old = _current(path)
        if old is not None and name in old:
            edit = Edit(path, sc, old, [x for x in old if x != name])
            edit.change = settings_writer.preview(path, KEYS, edit.new, comments=True)
            edits.append(edit)
    if not edits:
        return GeminiToggle(action, name, True, f'Skill "{name}" is already enabled.')
    out = GeminiToggle(action, name, True, f'Skill "{name}" enabled by removing it from the disabled list in '
                                           + " and ".join(f"{e.scope} ({e.path})" for e in edits) + " settings.", edits)
    still = [f for f in st.counted() if any(isinstance(x, str) and x.lower() == name.lower() and x != name
                                            for x in (_as_list(f.get(*KEYS))))]
    for f in still:
        out.warnings.append(f"{f.path} still disables it under another spelling (the match ignores case; enable "
                            "removes only the exact one)")
    return out


def _as_list(value: object) -> list[object]:
    return value if isinstance(value, list) else [value] if isinstance(value, str) else []


def apply(toggle: GeminiToggle) -> GeminiToggle:
    """Write the planned edits (each one value, atomically); a refusal becomes the toggle's error."""
    if not toggle.ok:
        return toggle
    for edit in toggle.edits:
        try:
            edit.change = settings_writer.set_member(edit.path, KEYS, edit.new, comments=True)
        except settings_writer.SettingsWriteError as exc:
            toggle.ok, toggle.error, toggle.message = False, str(exc), str(exc)
            return toggle
    return toggle

