"""Claude Code's layered settings (spec/claude-code.md §10.5): where each scope's file is, what it says, who decides.

Reading only. Every write goes through `settings_writer`.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import math
import os
import unicodedata
from dataclasses import dataclass, field

from skilltui import fsio
from skilltui.model import Catalog, Diagnostic, Options
from skilltui.record import Record

# Highest first. `add-dir` settings count for marketplace plugins after user (§10.5).
PRECEDENCE = ("managed", "flag", "local", "project", "user", "add-dir")
WRITABLE_SCOPES = ("user", "project", "local")
SETTINGS_CAP = 2 * 1024 * 1024  # bytes; Claude Code ignores a larger settings file (oracle: 2,097,152 read, +1 not)


@dataclass(repr=False)
class SettingsSource(Record):
    """One settings file (or inline --settings) as read."""

    scope: str
    path: str | None  # None for inline `--settings` JSON
    data: dict[str, object] = field(default_factory=dict)  # {} when missing, unparseable or skipped
    exists: bool = False
    error: str | None = None  # why the file counts as empty


@dataclass(repr=False)
class Decision(Record):
    """Which settings file decides a plugin's enabledPlugins value."""

    value: object  # the deciding enabledPlugins value, or None when no file mentions the id
    source: SettingsSource | None

    @property
    def scope(self) -> str:
        return self.source.scope if self.source else "default"


@dataclass(repr=False)
class Paths(Record):
    """Where Claude Code looks, derived once from the options."""

    home: str
    cwd: str
    config_dir: str
    managed_dir: str
    git_root: str | None  # None outside a work tree, or when the work tree's root is $HOME
    local_root: str  # where settings.local.json lives
    plugins_dir: str
    global_config: str

    def scope_file(self, scope: str) -> str:
        if scope == "user":
            return os.path.join(self.config_dir, "settings.json")
        if scope == "project":
            return os.path.join(self.cwd, ".claude", "settings.json")
        if scope == "local":
            return os.path.join(self.local_root, ".claude", "settings.local.json")
        raise ValueError(scope)


def find_git_root(cwd: str, home: str) -> str | None:
    d = cwd
    while True:
        if os.path.lexists(os.path.join(d, ".git")):
            return None if os.path.normpath(d) == os.path.normpath(home) else d
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent


def _owned(path: str) -> bool:
    try:
        return os.stat(path).st_uid == os.getuid()
    except OSError:
        return True  # a folder that does not exist yet will be created by the user
    except AttributeError:  # pragma: no cover - no getuid on Windows
        return True


def paths_for(opts: Options) -> Paths:
    env = opts.env
    home = os.path.abspath(opts.home)
    cwd = os.path.abspath(opts.cwd)
    # A relative CLAUDE_CONFIG_DIR (or plugin cache folder) is taken from the folder Claude Code runs in, as Node's
    # path functions do (observed: `../../cfg` from ws/repo; harness seed 53, trees 9 and 23).
    # Set but empty, it is that folder itself (observed: skills from <cwd>/skills, settings from <cwd>/settings.json).
    given = env.get("CLAUDE_CONFIG_DIR")
    config_dir = os.path.join(cwd, os.path.join(home, ".claude") if given is None else given)
    config_dir = unicodedata.normalize("NFC", os.path.abspath(config_dir))
    git_root = find_git_root(cwd, home)
    local_root = cwd
    if git_root and all(_owned(p) for p in (git_root, os.path.join(git_root, ".git"), os.path.join(git_root, ".claude"))):
        local_root = git_root
    plugins_dir = os.path.join(cwd, env.get("CLAUDE_CODE_PLUGIN_CACHE_DIR") or os.path.join(config_dir, "plugins"))
    global_config = (
        os.path.join(cwd, given, ".claude.json") if given is not None else os.path.join(home, ".claude.json")
    )
    return Paths(home, cwd, config_dir, os.path.abspath(opts.managed_dir), git_root, local_root, plugins_dir, global_config)


def read_json_file(path: str, cap: int = SETTINGS_CAP) -> tuple[object, str | None, bool]:
    """(value, error, exists). Never raises: a problem comes back as an error text. Read through fsio: a FIFO or device
    is refused without blocking, the read stops at the cap, a 5,000-digit integer reads as JavaScript reads it."""
    try:
        got = fsio.read_capped_bytes(path, cap)
    except FileNotFoundError:
        return None, None, False
    except fsio.NotRegularFile as exc:
        return None, exc.strerror, True
    except OSError as exc:
        return None, f"cannot be read ({exc.strerror or exc})", os.path.lexists(path)
    if got.truncated:
        return None, f"is larger than {cap:,} bytes; Claude Code does not read it", True
    text = got.data.decode("utf-8", errors="replace").lstrip("\ufeff")
    if not text.strip():
        return {}, None, True
    try:
        return fsio.json_loads(text), None, True
    except (json.JSONDecodeError, RecursionError) as exc:
        where = f" (line {exc.lineno}, column {exc.colno})" if isinstance(exc, json.JSONDecodeError) else ""
        return None, f"is not valid JSON{where}: {getattr(exc, 'msg', 'too deeply nested')}", True
    except ValueError as exc:
        return None, f"is not valid JSON: {exc}", True


def _invalid_enabled_plugins(value: object) -> str | None:
    """Claude Code rejects the whole file when an enabledPlugins value is neither a boolean nor a version list."""
    if not isinstance(value, dict):
        return "enabledPlugins: Invalid input (expected an object)"
    for key, v in value.items():
        if isinstance(v, bool) or (isinstance(v, list) and all(isinstance(x, str) for x in v)):
            continue
        return f"enabledPlugins.{key}: Invalid input"
    return None


OVERRIDE_VALUES = ("on", "name-only", "user-invocable-only", "off")


def _invalid_skill_overrides(value: object) -> str | None:
    """An skillOverrides value other than the four words voids the whole file, like a bad enabledPlugins value
    (spec/claude-code.md §7.1, observed); the message is Claude Code's."""
    if not isinstance(value, dict):
        return "skillOverrides: Invalid input (expected an object)"
    for key, v in value.items():
        if v not in OVERRIDE_VALUES:
            return f"skillOverrides.{key}: Invalid value. Expected one of: " + ", ".join(f'"{w}"' for w in OVERRIDE_VALUES)
    return None


def _type_word(value: object) -> str:
    """How Claude Code's settings schema names a value of the wrong type ("Expected number, but received string")."""
    if isinstance(value, float) and math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value is None or isinstance(value, bool):
        return "null" if value is None else "boolean"
    return "string" if isinstance(value, str) else "array" if isinstance(value, list) else (
        "object" if isinstance(value, dict) else "number")


def _not_a_number(value: object) -> str | None:
    """The schema's refusal of a value that is not a finite number (a boolean is not one), else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isinf(value):
        return f"Expected number, but received {_type_word(value)}"
    return None


def _invalid_budget_fraction(value: object) -> str | None:
    """skillListingBudgetFraction must be a finite number above 0 and at most 1 (observed: 0 and -0.5 are refused
    with this message, 1e-9 and 1 are read)."""
    if (refused := _not_a_number(value)) or not isinstance(value, (int, float)):
        return refused
    if value <= 0:
        return "Number must be greater than or equal to 0"
    return "Too big: expected number to be <=1" if value > 1 else None


def _invalid_max_desc_chars(value: object) -> str | None:
    """skillListingMaxDescChars must be an integer of at least 1 (observed: 100.0 and 1000000 are read; 1.5, 0 and -5
    are refused with these messages)."""
    if (refused := _not_a_number(value)) or not isinstance(value, (int, float)):
        return refused
    if isinstance(value, float) and not value.is_integer():
        return "Expected int, but received number"
    return "Number must be greater than or equal to 0" if value < 1 else None


# Settings whose bad value voids the whole file, as a bad enabledPlugins or skillOverrides value does (observed: a
# skillOverrides entry in the same file no longer applies); in managed settings only the key itself is ignored.
_NUMBER_RULES = {"skillListingBudgetFraction": _invalid_budget_fraction,
                 "skillListingMaxDescChars": _invalid_max_desc_chars}


def load_source(scope: str, path: str | None, text: str | None = None) -> SettingsSource:
    src = SettingsSource(scope, path)
    if text is not None:  # inline `--settings {...}`
        src.exists = True
        try:
            value, error = fsio.json_loads(text), None
        except (ValueError, RecursionError) as exc:  # JSONDecodeError is a ValueError
            value, error = None, f"is not valid JSON: {exc}"
    elif path is not None:
        value, error, src.exists = read_json_file(path)
    else:  # neither text nor a file: an empty source
        value, error = None, None
    if error is None and scope == "managed" and isinstance(value, dict) and isinstance(value.get("enabledPlugins"), dict):
        # Observed: managed settings are not skipped for a bad enabledPlugins value; that entry alone is ignored.
        value = dict(value, enabledPlugins={k: v for k, v in value["enabledPlugins"].items()
                                            if _invalid_enabled_plugins({k: v}) is None})
    if error is None and scope == "managed" and isinstance(value, dict):
        value = {k: v for k, v in value.items() if k not in _NUMBER_RULES or _NUMBER_RULES[k](v) is None}
    if error is None and value is not None:
        error = _invalid(value)
    if error is None and isinstance(value, dict):
        src.data = value
    src.error = error
    return src


def _invalid(value: object) -> str | None:
    """Why Claude Code counts a parsed settings file as empty, or None when it reads it."""
    if not isinstance(value, dict):
        return "is not a JSON object"
    if "enabledPlugins" in value and (error := _invalid_enabled_plugins(value["enabledPlugins"])):
        return error
    if "skillOverrides" in value and (error := _invalid_skill_overrides(value["skillOverrides"])):
        return error
    for key, rule in _NUMBER_RULES.items():
        if key in value and (error := rule(value[key])):
            return f"{key}: {error}"
    return None


def env_truthy(value: str | None) -> bool:
    """Claude Code's reading of a boolean environment variable (observed for CLAUDE_CODE_DISABLE_POLICY_SKILLS:
    `1`, `true`, `yes`, `on` in any case and with spaces around; `0`, `false`, `no`, `off`, `2`, empty are not)."""
    return value is not None and value.strip().lower() in ("1", "true", "yes", "on")


Change = tuple[str, tuple[str, ...], object]  # (settings file, key path, value): a write not made yet


def with_changes(settings: Settings, changes: list[Change]) -> Settings | None:
    """The settings as Claude Code would read them once each change were written (a "what if"): the file's data
    copied, changed in memory and judged again as a file read. Nothing is read or written; `settings` is unchanged.
    None when a change cannot be answered so: its file counts as empty today (a fixed value could revive it) or is
    not one of the files read."""
    sources = list(settings.sources)
    for path, keys, value in changes:
        at = [i for i, src in enumerate(sources) if src.path and os.path.abspath(src.path) == os.path.abspath(path)]
        if not at or any(sources[i].error for i in at):
            return None
        for i in at:
            src = sources[i]
            data = copy.deepcopy(src.data)
            node = data
            for key in keys[:-1]:  # a parent that is not an object: the writer refuses, so nothing changes
                child = node.setdefault(key, {})
                if not isinstance(child, dict):
                    break
                node = child
            else:
                node[keys[-1]] = value
            error = _invalid(data)
            sources[i] = SettingsSource(src.scope, src.path, {} if error else data, True, error)
    return dataclasses.replace(settings, sources=sources)


def of(catalog: Catalog) -> Settings:
    """The Claude Code settings a Claude catalog carries (Catalog.settings is typed per runtime by its reader)."""
    settings = catalog.settings
    if not isinstance(settings, Settings):
        raise ValueError(f"a {catalog.runtime} catalog carries no Claude Code settings")
    return settings


@dataclass(repr=False)
class Settings(Record):
    """Claude Code's settings files, highest precedence first, with what reading them said."""

    paths: Paths
    sources: list[SettingsSource]  # highest precedence first
    diagnostics: list[Diagnostic] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)  # the environment Claude Code would run with

    def source(self, scope: str) -> SettingsSource | None:
        return next((s for s in self.sources if s.scope == scope), None)

    def decide(self, plugin_id: str, scopes: tuple[str, ...] = PRECEDENCE) -> Decision:
        """The first source (highest first) whose enabledPlugins mentions the id decides; values are not merged."""
        for src in self.sources:
            if src.scope in scopes:
                ep = src.data.get("enabledPlugins")
                if isinstance(ep, dict) and plugin_id in ep:
                    return Decision(ep[plugin_id], src)
        return Decision(None, None)

    def value(self, key: str) -> object:
        """A plain setting: the highest source that sets it wins. --add-dir settings count only for enabledPlugins."""
        for src in self.sources:
            if key in src.data and src.scope != "add-dir":
                return src.data[key]
        return None

    def description_cap(self) -> int | None:
        """skillListingMaxDescChars as Claude Code reads it (load_source voided a file with a bad one); None: unset."""
        cap = self.value("skillListingMaxDescChars")
        return int(cap) if isinstance(cap, (int, float)) else None

    def merged_map(self, key: str, skip: tuple[str, ...] = ()) -> dict[str, object]:
        """A map setting (skillOverrides) merged per entry, the higher source winning each entry; sources of the
        scopes in `skip` are not read."""
        out: dict[str, object] = {}
        for src in reversed(self.sources):
            # --add-dir settings count only for enabledPlugins (observed, §10.5), whatever the caller skips
            if src.scope == "add-dir" or src.scope in skip:
                continue
            value = src.data.get(key)
            if isinstance(value, dict):
                out.update(value)
        return out

    def plugin_order(self) -> list[str]:
        """Ids in the order they first appear reading the add-dir folders (in --add-dir order), user, project, local,
        flag, managed (§10.3, observed: an id an add-dir folder names comes before every user one)."""
        seen: dict[str, None] = {}
        for scope in ("add-dir", "user", "project", "local", "flag", "managed"):
            # add-dir sources are kept highest first (the last folder first): read them in --add-dir order here
            for src in reversed(self.sources) if scope == "add-dir" else self.sources:
                enabled = src.data.get("enabledPlugins")
                if src.scope == scope and isinstance(enabled, dict):
                    for key in enabled:
                        seen.setdefault(key, None)
        return list(seen)


def load_settings(opts: Options, paths: Paths | None = None) -> Settings:
    paths = paths or paths_for(opts)
    sources: list[SettingsSource] = []
    managed = os.path.join(paths.managed_dir, "managed-settings.json")
    sources.append(load_source("managed", managed))
    dropins = os.path.join(paths.managed_dir, "managed-settings.d")
    try:
        names = sorted(n for n in os.listdir(dropins) if n.endswith(".json"))
    except OSError:
        names = []
    sources.extend(load_source("managed", os.path.join(dropins, n)) for n in names)
    if opts.settings_flag:
        flag = opts.settings_flag
        if flag.lstrip().startswith("{"):
            sources.append(load_source("flag", None, text=flag))
        else:
            sources.append(load_source("flag", os.path.abspath(flag)))
    local = paths.scope_file("local")
    sources.append(load_source("local", local))
    cwd_local = os.path.join(paths.cwd, ".claude", "settings.local.json")
    if cwd_local != local:
        sources.append(load_source("local", cwd_local))
    sources.append(load_source("project", paths.scope_file("project")))
    sources.append(load_source("user", paths.scope_file("user")))
    # Both files of each folder count for enabledPlugins; Claude Code merges them in --add-dir order, settings.json
    # then settings.local.json, the later winning: highest first is the reverse (observed: add-dir-precedence).
    for d in reversed(opts.add_dirs):
        for name in ("settings.local.json", "settings.json"):
            sources.append(load_source("add-dir", os.path.join(os.path.abspath(d), ".claude", name)))

    settings = Settings(paths, sources, env=dict(opts.env))
    if opts.pending:  # a "what if" view: the changes applied in memory, never written
        settings = with_changes(settings, opts.pending) or settings
        sources = settings.sources
    for src in sources:
        if not src.error:
            continue
        where = src.path or "--settings"
        fix = _VALUE_FIXES.get(src.error.partition(":")[0].partition(".")[0])  # a value of a key it checks
        if fix:
            settings.diagnostics.append(
                Diagnostic("error", "settings-invalid-value", src.path, f"{where}: {src.error}; Claude Code skips this whole file",
                           fix=fix)
            )
        else:
            settings.diagnostics.append(
                Diagnostic("error", "settings-unparseable", src.path, f"{where} {src.error}; it counts as empty",
                           fix="Fix the JSON syntax of this file")
            )
    return settings


# The keys whose bad value makes Claude Code skip a settings file (`_invalid`), with the smallest fix of each.
_VALUE_FIXES = {
    "enabledPlugins": "Use true or false for each enabledPlugins value",
    "skillOverrides": "Use one of on, name-only, user-invocable-only, off",
    "skillListingBudgetFraction": "Set skillListingBudgetFraction to a number above 0 and at most 1 (the default is "
                                  "0.01), or remove it",
    "skillListingMaxDescChars": "Set skillListingMaxDescChars to a whole number of at least 1 (the default is 1536), "
                                "or remove it",
}


def has_managed_settings(settings: Settings) -> bool:
    return any(s.scope == "managed" and s.exists for s in settings.sources)
