"""Gemini CLI 0.61.0 settings that decide skills (spec/gemini.md §2, §6, §7): where the files are, which are read,
workspace trust, `skills.enabled` / `skills.disabled`, and extension enablement."""

from __future__ import annotations

import errno
import json
import os
import stat
from dataclasses import dataclass, field
from typing import Any, Literal, NoReturn

from skilltui import fsio
from skilltui.model import Catalog
from skilltui.record import Record
from skilltui.settings_writer import mask_comments

Scope = Literal["system-defaults", "user", "workspace", "system"]
TrustLevel = Literal["TRUST_FOLDER", "TRUST_PARENT", "DO_NOT_TRUST"]
TRUST_LEVELS: tuple[str, ...] = ("TRUST_FOLDER", "TRUST_PARENT", "DO_NOT_TRUST")
SETTINGS_CAP = 4 * 1024 * 1024


class SettingsError(Exception):
    """A settings file Gemini CLI refuses to start with (it exits 52)."""


def strip_comments(text: str) -> str:
    """Comments become spaces: the writer's masking, so reading and writing agree on what is a comment."""
    return mask_comments(text)


def _no_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not JSON")


_V8 = {  # Python's wording -> Node 22's JSON.parse wording, for the errors people make in settings files
    "Expecting property name enclosed in double quotes": "Expected double-quoted property name in JSON",
    "Expecting ',' delimiter": "Expected ',' or '}' after property value in JSON",
    "Expecting value": "Unexpected token in JSON",
}


def v8_message(exc: json.JSONDecodeError) -> str:
    """The error as Gemini CLI prints it after `Error in <file>: ` (exact for a trailing comma, close otherwise)."""
    head = _V8.get(exc.msg, exc.msg)
    return f"{head} at position {exc.pos} (line {exc.lineno} column {exc.colno})"


def parse_jsonc(text: str) -> object:
    """Gemini's settings syntax: JSON plus comments; a trailing comma (or anything else) is an error."""
    return json.loads(strip_comments(text), parse_constant=_no_constant)


@dataclass(repr=False)
class SettingsFile(Record):
    scope: Scope
    path: str
    exists: bool = False
    read: bool = False  # its values count
    data: dict[str, Any] = field(default_factory=dict)
    error: str | None = None  # fatal: Gemini CLI exits 52
    skipped: str | None = None  # why an existing file does not count (untrusted workspace, insecure system file)

    def get(self, *keys: str) -> object:
        cur: object = self.data
        for k in keys:
            if not isinstance(cur, dict) or k not in cur:
                return None
            cur = cur[k]
        return cur


def read_settings_file(scope: Scope, path: str) -> SettingsFile:
    out = SettingsFile(scope, path)
    try:
        with fsio.open_binary(path) as f:  # a FIFO or device here must not block or read without end
            raw = f.read(SETTINGS_CAP)
    except FileNotFoundError:
        return out
    except (IsADirectoryError, NotADirectoryError):
        return out
    except fsio.NotRegularFile as exc:
        if exc.errno == errno.EISDIR:  # as IsADirectoryError before
            return out
        out.exists, out.error = True, f"cannot be read ({exc.strerror})"
        return out
    except OSError as exc:
        out.exists, out.error = True, f"cannot be read ({exc.strerror or exc})"
        return out
    out.exists = True
    text = raw.decode("utf-8", errors="replace")
    if not text.strip():
        out.read = True
        return out
    try:
        data = parse_jsonc(text)
    except json.JSONDecodeError as exc:
        out.error = v8_message(exc)
        return out
    except (ValueError, RecursionError) as exc:
        out.error = str(exc)
        return out
    if isinstance(data, dict):
        out.data, out.read = data, True
    else:
        out.read = True
    return out


def _secure_system_file(path: str) -> str | None:
    """None when Gemini CLI reads this system file: it and every folder above it belong to root, and no group or
    other may write them; else the reason it skips it."""
    cur = os.path.abspath(path)
    while True:
        try:
            st = os.stat(cur)
        except OSError:
            return None  # a missing file is simply absent
        if st.st_uid != 0:
            return f"{cur!r} is not owned by root"
        if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
            kind = "Parent directory" if cur != os.path.abspath(path) else "File"
            return f"{kind} {cur!r} is insecure: writable by group or others"
        parent = os.path.dirname(cur)
        if parent == cur:
            return None
        cur = parent


@dataclass(repr=False)
class Trust(Record):
    trusted: bool
    decided_by: str  # the variable, setting or file that decides
    detail: str  # one sentence for people


@dataclass(repr=False)
class Paths(Record):
    home: str  # $HOME: the cwd = home rule
    gemini_home: str  # $GEMINI_CLI_HOME or $HOME: holds .gemini and .agents
    cwd: str

    @property
    def user_dir(self) -> str:
        return os.path.join(self.gemini_home, ".gemini")

    @property
    def user_settings(self) -> str:
        return os.path.join(self.user_dir, "settings.json")

    @property
    def workspace_settings(self) -> str:
        return os.path.join(self.cwd, ".gemini", "settings.json")

    @property
    def extensions_dir(self) -> str:
        return os.path.join(self.user_dir, "extensions")

    @property
    def cwd_is_home(self) -> bool:
        return os.path.normpath(self.cwd) == os.path.normpath(self.home)


@dataclass(repr=False)
class GeminiSettings(Record):
    paths: Paths
    files: list[SettingsFile]
    trust: Trust
    fatal: str | None = None  # Gemini CLI would not start: "Error in <file>: ..."
    notes: list[str] = field(default_factory=list)  # warnings Gemini prints (skipped system files)

    @property
    def sources(self) -> list[SettingsFile]:  # files the TUI watches
        return self.files

    def counted(self) -> list[SettingsFile]:
        return [f for f in self.files if f.read]

    def skills_enabled(self) -> tuple[bool, SettingsFile | None]:
        """`skills.enabled`: system beats workspace beats user beats system defaults; default on."""
        for scope in ("system", "workspace", "user", "system-defaults"):
            for f in self.counted():
                value = f.get("skills", "enabled")
                if f.scope == scope and isinstance(value, bool):
                    return value, f
        return True, None

    def disabled_names(self) -> dict[str, SettingsFile]:
        """Lower-cased `skills.disabled` entries of every counted file (the lists add up) -> the first file naming it."""
        out: dict[str, SettingsFile] = {}
        for f in self.counted():
            value = f.get("skills", "disabled")
            entries = value if isinstance(value, list) else [value] if isinstance(value, str) else []
            for e in entries:
                if isinstance(e, str):
                    out.setdefault(e.lower(), f)
        return out

    def value_in(self, scope: Scope, *keys: str) -> object:
        for f in self.counted():
            if f.scope == scope:
                return f.get(*keys)
        return None


def of(catalog: Catalog) -> GeminiSettings:
    """The Gemini CLI settings a Gemini catalog carries (Catalog.settings is typed per runtime by its reader)."""
    settings = catalog.settings
    if not isinstance(settings, GeminiSettings):
        raise ValueError(f"a {catalog.runtime} catalog carries no Gemini CLI settings")
    return settings


def _env_bool(env: dict[str, str], key: str) -> bool | None:
    value = env.get(key)
    if value is None:
        return None
    low = value.strip().lower()
    return True if low in ("true", "1") else False if low in ("false", "0") else None


def _trusted_folders(path: str) -> tuple[list[tuple[str, str]], str | None]:
    f = read_settings_file("user", path)
    if f.error:
        return [], f"Error in {path}: {f.error}"
    rules = []
    for rule_path, level in f.data.items():
        if level not in TRUST_LEVELS:
            return [], (f'Error in {path}: Invalid trust level "{level}" for path "{rule_path}". '
                        f"Possible values are: {', '.join(TRUST_LEVELS)}")
        rules.append((rule_path, level))
    return rules, None


def _under(path: str, folder: str) -> bool:
    folder = os.path.normpath(folder)
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def decide_trust(paths: Paths, env: dict[str, str], user_like: list[SettingsFile]) -> tuple[Trust, str | None]:
    """(trust, fatal error) by §2's inputs, strongest first."""
    forced = _env_bool(env, "GEMINI_CLI_TRUST_WORKSPACE")
    if forced is not None:
        return Trust(forced, "GEMINI_CLI_TRUST_WORKSPACE",
                     f"GEMINI_CLI_TRUST_WORKSPACE={env['GEMINI_CLI_TRUST_WORKSPACE']} decides"), None
    for f in user_like:  # system, then user settings (a workspace's own file has no say)
        if f.read and f.get("security", "folderTrust", "enabled") is False:
            return Trust(True, f.path, f"security.folderTrust.enabled is false in {f.path}"), None
    tf_path = env.get("GEMINI_CLI_TRUSTED_FOLDERS_PATH") or os.path.join(paths.user_dir, "trustedFolders.json")
    rules, fatal = _trusted_folders(tf_path)
    if fatal:
        return Trust(False, tf_path, fatal), fatal
    cwd = os.path.normpath(paths.cwd)
    best: tuple[int, str, str] | None = None
    for rule_path, level in rules:
        folder = os.path.dirname(os.path.normpath(rule_path)) if level == "TRUST_PARENT" else rule_path
        if _under(cwd, folder) and (best is None or len(os.path.normpath(folder)) >= best[0]):
            best = (len(os.path.normpath(folder)), rule_path, level)
    if best is None:
        return Trust(False, tf_path, f"no rule in {tf_path} covers this folder (folder trust is on by default)"), None
    _, rule_path, level = best
    return Trust(level != "DO_NOT_TRUST", tf_path, f'{tf_path}: "{rule_path}": "{level}"'), None


def load(cwd: str, home: str, env: dict[str, str]) -> GeminiSettings:
    paths = Paths(home=home, gemini_home=env.get("GEMINI_CLI_HOME") or home, cwd=cwd)
    system_dir = "/etc/gemini-cli"
    defaults_path = env.get("GEMINI_CLI_SYSTEM_DEFAULTS_PATH") or os.path.join(system_dir, "system-defaults.json")
    system_path = env.get("GEMINI_CLI_SYSTEM_SETTINGS_PATH") or os.path.join(system_dir, "settings.json")
    files = [read_settings_file("system-defaults", defaults_path), read_settings_file("user", paths.user_settings),
             read_settings_file("workspace", paths.workspace_settings), read_settings_file("system", system_path)]
    notes: list[str] = []
    for f in files:
        if f.scope in ("system", "system-defaults") and f.exists:
            why = _secure_system_file(f.path)
            if why:
                f.read, f.error, f.skipped = False, None, why
                notes.append(f"Security Warning: Skipping system settings file '{f.path}': {why}")
    fatal = next((f"Error in {f.path}: {f.error}" for f in files if f.error), None)
    user_like = [f for f in files if f.scope in ("system", "user", "system-defaults")]
    trust, trust_fatal = decide_trust(paths, env, user_like)
    ws = files[2]
    if ws.exists and not ws.error:
        if not trust.trusted:
            ws.read, ws.skipped = False, "the workspace is not trusted"
        elif paths.cwd_is_home:
            ws.read, ws.skipped = False, "the workspace is the home folder (the user file already counts)"
    return GeminiSettings(paths, files, trust, fatal or trust_fatal, notes)


# ---------------------------------------------------------------- extensions (§7)
@dataclass(repr=False)
class Extension(Record):
    folder: str  # ~/.gemini/extensions/<dir>
    name: str | None
    path: str  # where its files are read from (a linked extension's source)
    active: bool
    problem: str | None = None  # why Gemini CLI skipped it ("Warning: Skipping extension in ...")
    disabled_by: str | None = None  # extension-enablement.json rule that turns it off

    @property
    def skills_root(self) -> str:
        return os.path.join(self.path, "skills")


def _read_json(path: str) -> object:
    with fsio.open_binary(path) as f:
        return fsio.json_loads(f.read(SETTINGS_CAP).decode("utf-8", errors="replace"))


def _enablement(extensions_dir: str, name: str, cwd: str) -> str | None:
    """The override that disables `name` here, if any: rules in order, the last match wins; `!` disables; a trailing
    `/*` matches the folder and everything below (only `!/*` was observed)."""
    try:
        data = _read_json(os.path.join(extensions_dir, "extension-enablement.json"))
    except (OSError, ValueError):
        return None
    entry = data.get(name) if isinstance(data, dict) else None
    rules = entry.get("overrides") if isinstance(entry, dict) else None
    state: str | None = None
    for rule in rules if isinstance(rules, list) else []:
        if not isinstance(rule, str):
            continue
        negate = rule.startswith("!")
        pattern = rule[1:] if negate else rule
        if pattern.endswith("/*"):
            hit = _under(os.path.normpath(cwd), pattern[:-2] or "/")
        else:
            hit = os.path.normpath(cwd) == os.path.normpath(pattern)
        if hit:
            state = rule if negate else None
    return state


def _valid_ext_name(name: str) -> bool:
    return bool(name) and all(c.isascii() and (c.isalnum() or c == "-") for c in name)


def extensions(paths: Paths) -> list[Extension]:
    """Each folder of ~/.gemini/extensions in ascending byte order, loaded or skipped as Gemini CLI does."""
    folder = paths.extensions_dir
    try:
        names = sorted(os.listdir(folder), key=os.fsencode)
    except OSError:
        return []
    out = []
    for d in names:
        ext_dir = os.path.join(folder, d)
        if not os.path.isdir(ext_dir):
            continue
        source = ext_dir
        try:
            install = _read_json(os.path.join(ext_dir, ".gemini-extension-install.json"))
            if isinstance(install, dict) and install.get("type") == "link" and isinstance(install.get("source"), str):
                source = install["source"]
        except (OSError, ValueError):
            pass
        config_path = os.path.join(source, "gemini-extension.json")
        try:
            config = _read_json(config_path)
        except FileNotFoundError:
            out.append(Extension(ext_dir, None, source, False, f"Configuration file not found at {config_path}"))
            continue
        except (OSError, ValueError) as exc:
            out.append(Extension(ext_dir, None, source, False, f"{config_path} cannot be read: {exc}"))
            continue
        name = config.get("name") if isinstance(config, dict) else None
        version = config.get("version") if isinstance(config, dict) else None
        if not isinstance(name, str) or not isinstance(version, str):
            missing = "name" if not isinstance(name, str) else "version"
            out.append(Extension(ext_dir, name if isinstance(name, str) else None, source, False,
                                 f"Failed to load extension config from {config_path}: "
                                 f'Invalid configuration in {config_path}: missing "{missing}"'))
            continue
        if not _valid_ext_name(name):
            out.append(Extension(ext_dir, name, source, False,
                                 f"Failed to load extension config from {config_path}: "
                                 f'Invalid extension name: "{name}". Only letters (a-z, A-Z), numbers (0-9), and '
                                 "dashes (-) are allowed."))
            continue
        off = _enablement(folder, name, paths.cwd)
        out.append(Extension(ext_dir, name, source, off is None, disabled_by=off))
    return out
