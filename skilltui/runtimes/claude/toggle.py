"""`plugin enable|disable` and `skill set`: which file to write and when to refuse (spec/claude-code.md §10.6, cli.md).

The decision is pure over a Catalog; the write itself goes through `settings_writer`, the only code that writes.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass, field
from typing import Any

from skilltui import fsio, settings_writer
from skilltui.model import Catalog, JSONValue, Plugin
from skilltui.record import Record
from skilltui.runtimes.claude.settings import WRITABLE_SCOPES, Settings, SettingsSource
from skilltui.runtimes.claude.settings import of as settings_of

RANK = {"user": 0, "project": 1, "local": 2}  # higher number = higher precedence
OVERRIDE_VALUES = ("on", "name-only", "user-invocable-only", "off")


@dataclass(repr=False)
class Outcome(Record):
    """What a toggle did or would do, shaped like Claude Code's `--json` line."""

    command: str  # enable | disable | set
    target: str  # plugin id or skill name
    scope: str | None
    scope_given: bool
    message: str
    failure_code: str | None = None
    extra: dict[str, JSONValue] = field(default_factory=dict)  # Claude Code's own extra keys of the --json line
    path: str | None = None  # the settings file to write
    keys: tuple[str, ...] = ()
    value: JSONValue = None  # the value written at `keys`
    change: settings_writer.Change | None = None
    warnings: list[str] = field(default_factory=list)
    within: str | None = None  # project/local scope: the project folder the real target must stay in (issue #17.6)
    ignore_context: tuple[str, dict[str, str]] | None = None  # (cwd, env) when the target is local settings
    gitignore: str | None = None  # the global git ignore file a local-settings write added its rule to
    gitignore_planned: str | None = None  # preview(): the git ignore file the write would add the rule to
    still_decides: str | None = None  # a file of higher precedence that sets this key: the write has no effect
    decides_scope: str | None = None  # its scope
    decides_note: str | None = None  # that, in one sentence
    gitignore_diff: list[str] = field(default_factory=list)  # preview(): the lines the write would add to that file

    def no_write(self) -> str | None:
        """Why writing would change nothing, naming the file that decides; None when the write changes the file and
        what Claude Code does (a dialog offers Write only then)."""
        if not self.ok:
            return self.message + (f"; {self.decides_note}" if self.decides_note else "")
        if self.change is not None and not self.change.changed:
            return f"{self.change.path} already holds this value"
        return self.decides_note

    @property
    def ok(self) -> bool:
        return self.failure_code is None

    def to_json(self) -> dict[str, Any]:
        subject = "skill" if self.command == "set" else "plugin"  # a skill override names a skill, never a plugin
        out: dict[str, Any] = {"command": self.command, "outcome": "ok" if self.ok else "failed", subject: self.target}
        if self.ok and subject == "plugin":
            out["pluginId"] = self.target
            out["scope"] = self.scope
        elif self.scope_given:
            out["scope"] = self.scope
        out["message"] = self.message
        if not self.ok:
            out["failureCode"] = self.failure_code
        out.update(self.extra)
        if self.change is not None:
            out["file"] = self.change.path
            out["change"] = {"before": self.change.old_line, "after": self.change.new_line, "created": self.change.created}
            if self.change.target != os.path.abspath(self.change.path):
                out["realFile"] = self.change.target  # the file is reached through a link
        if self.warnings:
            out["warnings"] = list(self.warnings)
        if self.gitignore:
            out["gitignore"] = {"file": self.gitignore, "added": LOCAL_IGNORE_RULE}
        return out

    def stderr_line(self) -> str:
        verb = self.command if self.command != "set" else "set skill"
        noun = "plugin " if self.command != "set" else ""
        return f'✘ Failed to {verb} {noun}"{self.target}": {self.message}'


def _enabled_value(value: Any, kind: str) -> bool:
    if kind in ("skills-dir", "inline"):
        return value is not False
    return value is True


def _deciding(settings: Settings, plugin_id: str, scopes: tuple[str, ...]) -> tuple[Any, SettingsSource | None]:
    d = settings.decide(plugin_id, scopes)
    return d.value, d.source


# ---------------------------------------------------------------- the git ignore rule for settings.local.json
# Observed (2.1.332): every write of local settings also makes sure git ignores the file everywhere. Unless
# `git check-ignore .claude/settings.local.json` (from the cwd, in a work tree) already says it is ignored, the line
# `**/.claude/settings.local.json` is appended to the user's global ignore file: `core.excludesFile` from the global
# git config (`~` expanded; a relative value is not used), else `$XDG_CONFIG_HOME/git/ignore`, else
# `~/.config/git/ignore`. A file that already holds the line is left alone. Outside git it is written too.
LOCAL_IGNORE_RULE = "**/.claude/settings.local.json"
_GIT_TIMEOUT = 10  # seconds; git answers in milliseconds, a hung one must not hang skilltui


def _git(args: list[str], cwd: str, env: dict[str, str]) -> tuple[int, str]:
    try:
        proc = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=_GIT_TIMEOUT)
    except (OSError, subprocess.SubprocessError):
        return -1, ""
    return proc.returncode, proc.stdout


def _git_env(settings: Settings) -> dict[str, str]:
    """What Claude Code gives git: its own environment (HOME decides the global config), no system config."""
    env = {"PATH": settings.env.get("PATH") or os.environ.get("PATH", ""), "HOME": settings.paths.home}
    for key in ("XDG_CONFIG_HOME", "GIT_CONFIG_GLOBAL"):
        if settings.env.get(key):
            env[key] = settings.env[key]
    return env


def global_gitignore(cwd: str, env: dict[str, str]) -> str:
    """The global git ignore file Claude Code writes to."""
    code, out = _git(["--git-dir=/dev/null", "config", "--no-includes", "core.excludesfile"], cwd,
                     dict(env, GIT_CONFIG_NOSYSTEM="1"))
    value = out.strip() if code == 0 else ""
    home = env.get("HOME", "")
    if value == "~" or value.startswith("~/"):
        return os.path.join(home, value[2:])
    if value and os.path.isabs(value):
        return value
    xdg = env.get("XDG_CONFIG_HOME")
    if xdg and os.path.isabs(xdg):
        return os.path.join(xdg, "git", "ignore")
    return os.path.join(home, ".config", "git", "ignore")


def planned_ignore(cwd: str, env: dict[str, str]) -> str | None:
    """The git ignore file that a local-settings write would add the rule to, or None when none would change."""
    in_work_tree = _git(["rev-parse", "--is-inside-work-tree"], cwd, env) == (0, "true\n")
    if in_work_tree and _git(["check-ignore", "-q", "--", ".claude/settings.local.json"], cwd, env)[0] == 0:
        return None
    path = global_gitignore(cwd, env)
    try:
        with fsio.open_binary(path) as fh:  # a FIFO as the ignore file must not block
            if LOCAL_IGNORE_RULE.encode() in fh.read(2_000_001):
                return None
    except OSError:
        pass
    return path


def ignore_local_settings(cwd: str, env: dict[str, str]) -> str | None:
    """Add the rule as Claude Code does; returns the file written, or None when nothing was needed."""
    path = planned_ignore(cwd, env)
    return path if path and settings_writer.append_line(path, LOCAL_IGNORE_RULE) else None


def _file_problem(path: str) -> str | None:
    """skilltui refuses to write a file that does not parse or whose enabledPlugins is not an object."""
    try:
        data = settings_writer.read_json_object(path)
    except settings_writer.SettingsWriteError as exc:
        return str(exc)
    if data is not None and "enabledPlugins" in data and not isinstance(data["enabledPlugins"], dict):
        return f"{path}: enabledPlugins is not an object; not written"
    return None


def plan_plugin(catalog: Catalog, plugin_id: str, enable: bool, scope: str | None) -> Outcome:
    command = "enable" if enable else "disable"
    settings = settings_of(catalog)
    out = Outcome(command, plugin_id, scope, scope is not None, "")
    plugin = next((p for p in catalog.plugins if p.id == plugin_id and p.kind != "builtin"), None)
    if plugin is None:
        out.message = f'Plugin "{plugin_id}" is not installed (no record in installed_plugins.json); nothing written'
        out.failure_code = "plugin_not_installed"
        return out
    for src in settings.sources:
        if src.error and src.path and src.scope in WRITABLE_SCOPES:
            out.warnings.append(f"{src.path} {src.error}; it counts as empty")

    if scope is None:
        # The scope that decides today, else user: the install records' scope plays no part (observed with
        # project- and local-scope records for this very project).
        _, now = _deciding(settings, plugin_id, ("local", "project", "user"))
        target = now.scope if now is not None else "user"
    else:
        target = scope
    out.scope = target
    out.path = settings.paths.scope_file(target)
    out.within = _project_root(out.path, target)
    out.keys, out.value = ("enabledPlugins", plugin_id), enable
    if target == "local":
        out.ignore_context = (settings.paths.cwd, _git_env(settings))

    problem = _file_problem(out.path)
    if problem:
        out.message, out.failure_code = problem, "settings_file_invalid"
        return out

    managed_value, _ = _deciding(settings, plugin_id, ("managed",))
    if enable and managed_value is False:
        out.message = f'Plugin "{plugin_id}" is blocked by your organization\'s policy and cannot be enabled'
        out.failure_code = "plugin_policy_blocked"
        return out

    if scope is not None:
        own_value, own_src = _deciding(settings, plugin_id, (scope,))
        higher = [s for s in ("local", "project", "user") if RANK[s] > RANK[scope]]
        _, high_src = _deciding(settings, plugin_id, tuple(higher))
        if own_src is None and high_src is not None:
            h = high_src.scope
            out.message = (f'Plugin "{plugin_id}" is installed at {h} scope, not {scope}. '
                           f"Use --scope {h} or omit --scope to auto-detect.")
            out.failure_code, out.extra = "not_installed_at_scope", {"installedScope": h}
            _note_higher(out, settings, plugin, scope)
            return out
        lower = tuple(s for s in ("local", "project", "user") if RANK[s] <= RANK[scope])
        value, _ = _deciding(settings, plugin_id, lower)
        if _enabled_value(value, plugin.kind) == enable:
            out.message = f'Plugin "{plugin_id}" is already {command}d at {scope} scope'
            out.failure_code, out.extra = "already_in_goal_state", {"alreadyInGoalState": True}
            _note_higher(out, settings, plugin, scope)
            return out
    elif plugin.enabled == enable:
        out.message = f'Plugin "{plugin_id}" is already {command}d'
        out.failure_code, out.extra = "already_in_goal_state", {"alreadyInGoalState": True}
        return out

    out.message = f"Successfully {command}d plugin: {plugin.name} (scope: {target})"
    _note_higher(out, settings, plugin, target)
    if out.decides_note:
        out.warnings.append(out.decides_note)
    return out


def _note_higher(out: Outcome, settings: Settings, plugin: Plugin, target: str) -> None:
    """A file above `target` that sets the plugin decides whatever `target` says: name it."""
    higher_scopes = tuple(s for s in ("managed", "flag", "local", "project") if s not in RANK or RANK[s] > RANK[target])
    value, above = _deciding(settings, plugin.id, higher_scopes)
    if above is not None:  # the written value is not the one that decides
        state = "enabled" if _enabled_value(value, plugin.kind) else "disabled"
        out.still_decides, out.decides_scope = above.path or "--settings", above.scope
        out.decides_note = f"{out.still_decides} ({above.scope} scope) still decides: the plugin stays {state}"


def plan_override(catalog: Catalog, name: str, value: str, scope: str | None) -> Outcome:
    """`skill set NAME on|name-only|user-invocable-only|off`: skillOverrides in the chosen file (local by default)."""
    settings = settings_of(catalog)
    target = scope or "local"
    path = settings.paths.scope_file(target)
    out = Outcome("set", name, target, scope is not None, "", path=path)
    out.within = _project_root(path, target)
    out.keys, out.value = ("skillOverrides", name), value
    if target == "local":
        out.ignore_context = (settings.paths.cwd, _git_env(settings))
    if value not in OVERRIDE_VALUES:
        out.message, out.failure_code = f"unknown override {value!r}; use one of {', '.join(OVERRIDE_VALUES)}", "bad_value"
        return out
    if not any(s.name == name for s in catalog.skills):
        out.message, out.failure_code = f'No skill named "{name}" was found; nothing written', "skill_not_found"
        return out
    try:
        data = settings_writer.read_json_object(path)
    except settings_writer.SettingsWriteError as exc:
        out.message, out.failure_code = str(exc), "settings_file_invalid"
        return out
    if data is not None and "skillOverrides" in data and not isinstance(data["skillOverrides"], dict):
        out.message, out.failure_code = f"{out.path}: skillOverrides is not an object; not written", "settings_file_invalid"
        return out
    out.message = f"Set skill {name} to {value} (scope: {target})"
    for src in settings.sources:  # highest first: a source above the target that sets the name still decides
        if src.scope == target:
            break
        other = src.data.get("skillOverrides")
        if isinstance(other, dict) and name in other and other[name] != value:
            out.still_decides, out.decides_scope = src.path or "--settings", src.scope
            out.decides_note = f"{out.still_decides} ({src.scope} scope) sets {name} to {other[name]} and still decides"
            out.warnings.append(out.decides_note)
            break
    return out


def _project_root(path: str, scope: str) -> str | None:
    """The folder a project/local settings file must stay in: the one holding its `.claude`. User scope is not
    confined (dotfile links are the user's own)."""
    return os.path.dirname(os.path.dirname(os.path.abspath(path))) if scope in ("project", "local") else None


def preview(outcome: Outcome) -> Outcome:
    """The change apply() would make; `change.outside` tells that the real target leaves the project (to confirm)."""
    if outcome.ok and outcome.path is not None:
        outcome.change = settings_writer.preview(outcome.path, outcome.keys, outcome.value, within=outcome.within)
        if outcome.ignore_context is not None:  # so a dialog can show every file the write will touch
            outcome.gitignore_planned = planned_ignore(*outcome.ignore_context)
            planned = None
            if outcome.gitignore_planned is not None:
                try:
                    planned = settings_writer.plan_append(outcome.gitignore_planned, LOCAL_IGNORE_RULE)
                except settings_writer.SettingsWriteError as exc:  # the settings write stands; say it up front
                    outcome.warnings.append(f"{exc}; add {LOCAL_IGNORE_RULE} to your git ignore file yourself")
            if planned is not None:
                before, added = planned
                outcome.gitignore_diff = settings_writer.text_diff(before, (before or b"") + added)
            else:
                outcome.gitignore_planned = None
    return outcome


def apply(outcome: Outcome, follow_links: bool = False) -> Outcome:
    """Write the planned change. A refused write turns the outcome into a failure with the writer's one line. Unless
    `follow_links` (the user confirmed the real target), a project/local write whose real target leaves the project
    is refused."""
    if not outcome.ok or outcome.path is None:
        return outcome
    try:
        outcome.change = settings_writer.set_member(outcome.path, outcome.keys, outcome.value, within=outcome.within,
                                                    follow_links=follow_links)
    except settings_writer.OutsideError as exc:
        outcome.message, outcome.failure_code = str(exc), "target_outside_project"
        outcome.extra["realFile"] = exc.target
    except settings_writer.SettingsWriteError as exc:
        outcome.message, outcome.failure_code = str(exc), "write_refused"
        return outcome
    if outcome.ignore_context is not None:  # as Claude Code does after writing local settings
        try:
            outcome.gitignore = ignore_local_settings(*outcome.ignore_context)
        except settings_writer.SettingsWriteError as exc:  # the settings write stands; say why git may not ignore it
            outcome.warnings.append(f"{exc}; add {LOCAL_IGNORE_RULE} to your git ignore file yourself")
    return outcome
