"""oh-my-pi settings (spec/omp.md §5): config.yml layers, each rule set's defaults, source toggles, provider opt-ins.

Layers, lowest first: global `<agentDir>/config.yml` (else `config.yaml`, else a legacy `settings.json` that omp would
migrate), then the project layer: `<cwd>/<native>/settings.json` and `<cwd>/.claude/settings.json` (deep-merged in
provider order), overridden by `<cwd>/<native>/config.yml`. Objects merge deeply; arrays and scalars replace.
Never writes; a broken file becomes a diagnostic and counts as empty.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from skilltui import fsio
from skilltui.frontmatter import YamlError, load_yaml12, read_text
from skilltui.model import Diagnostic
from skilltui.record import Record
from skilltui.runtimes.omp.text import js_truthy

READ_CAP = 1_000_000

# One settings mapping as parsed from YAML or JSON (keys made strings, as omp's JavaScript sees them); every reader
# checks the type of the value it takes.
Layer = dict[str, object]

DEFAULTS_18: Layer = {
    "skills.enabled": True,
    "skills.enableSkillCommands": True,
    "skills.enableCodexUser": False,
    "skills.enableClaudeUser": False,
    "skills.enableClaudeProject": True,
    "skills.enablePiUser": True,
    "skills.enablePiProject": True,
    "skills.enableAgentsUser": True,
    "skills.enableAgentsProject": True,
    "skills.customDirectories": [],
    "skills.ignoredSkills": [],
    "skills.includeSkills": [],
    "disabledExtensions": [],
    "enabledProviders": [],
    "disabledProviders": [],
}

DEFAULTS_14: Layer = {
    "skills.enabled": True,
    "skills.enableSkillCommands": True,
    "skills.enableCodexUser": True,
    "skills.enableClaudeUser": True,
    "skills.enableClaudeProject": True,
    "skills.enablePiUser": True,
    "skills.enablePiProject": True,
    "skills.customDirectories": [],
    "skills.ignoredSkills": [],
    "skills.includeSkills": [],
    "disabledExtensions": [],
}

# Foreign tools whose user-level (~/...) sources are opt-in in v18 (capability registry FOREIGN_USER_PROVIDERS).
FOREIGN_USER_PROVIDERS = {"cursor", "codex", "claude", "claude-plugins", "gemini", "opencode", "windsurf", "github"}

_MISSING = object()


def deep_merge(base: Layer, override: Layer) -> Layer:
    result = dict(base)
    for key, value in override.items():
        existing = base.get(key, _MISSING)
        if isinstance(value, dict) and isinstance(existing, dict):
            result[key] = deep_merge(existing, value)
        else:
            result[key] = value
    return result


def _get_path(obj: object, segments: list[str]) -> object:
    current = obj
    for seg in segments:
        if not isinstance(current, dict):
            return _MISSING
        if seg not in current:
            return _MISSING
        current = current[seg]
    return current


@dataclass(repr=False)
class OmpSettings(Record):
    rules: str
    cwd: str
    home: str
    merged: Layer = field(default_factory=dict)
    files: list[str] = field(default_factory=list)  # settings files that were read, lowest layer first
    env: dict[str, str] = field(default_factory=dict)

    def raw(self, key: str) -> object:
        value = _get_path(self.merged, key.split("."))
        return None if value is _MISSING else value

    def is_set(self, key: str) -> bool:
        return _get_path(self.merged, key.split(".")) is not _MISSING

    def get(self, key: str) -> object:
        value = _get_path(self.merged, key.split("."))
        if value is _MISSING:
            defaults = DEFAULTS_18 if self.rules == "18" else DEFAULTS_14
            value = defaults.get(key)
            return list(value) if isinstance(value, list) else value
        if key == "disabledProviders":
            scoped = _path_scoped_list(value, self.cwd, self.home)
            if scoped is not None:
                return scoped
        return value

    def string_list(self, key: str) -> list[str]:
        """A list setting as omp can use it: a list keeps its strings (others are dropped here, with a diagnostic
        raised by `validate`); anything else counts as empty."""
        value = self.get(key)
        if not isinstance(value, list):
            return []
        return [v for v in value if isinstance(v, str)]

    # ---------------------------------------------------------------- provider opt-ins (capability registry)
    def disabled_providers(self) -> set[str]:
        if self.rules != "18":
            return set()
        return set(self.string_list("disabledProviders"))

    def enabled_providers(self) -> list[str]:
        if self.rules != "18":
            return []
        return self.string_list("enabledProviders")

    def is_user_source_enabled(self, provider: str) -> bool:
        """`isUserSourceEnabled`: native and .agents user dirs are on; foreign tools' user dirs are opt-in (v18)."""
        pid = provider[1:] if provider.startswith(".") else provider
        if pid in self.disabled_providers():
            return False
        if pid not in FOREIGN_USER_PROVIDERS:
            return True
        enabled = self.enabled_providers()
        if pid in enabled or "*" in enabled or "all" in enabled:
            return True
        if pid == "claude-plugins" and "claude" in enabled:
            return True
        if pid == "claude" and (self.env.get("CLAUDE_CONFIG_DIR") or "").strip():
            return True
        if pid == "claude" and self.raw("skills.enableClaudeUser") is True:
            return True
        return bool(pid == "codex" and self.raw("skills.enableCodexUser") is True)

    def source_enabled(self, provider: str, level: str) -> tuple[bool, str | None]:
        """Whether one discovered source is on, and if not, which setting switched it off."""
        if self.rules == "18":
            return self._source_enabled_18(provider, level)
        return self._source_enabled_14(provider, level)

    def _toggle(self, key: str) -> bool:
        return js_truthy(self.get(key))

    def _source_enabled_18(self, provider: str, level: str) -> tuple[bool, str | None]:
        if provider == "omp-managed":
            return True, None
        if provider in self.disabled_providers():
            return False, f"provider `{provider}` is listed in disabledProviders"
        toggles = {
            ("codex", "user"): "skills.enableCodexUser",
            ("claude", "user"): "skills.enableClaudeUser",
        }
        if (provider, level) in toggles:
            key = toggles[(provider, level)]
            if self._toggle(key) or self.is_user_source_enabled(provider):
                return True, None
            return False, (
                f"{provider} user skills are opt-in in omp 18: add `{provider}` to enabledProviders or set {key}: true"
            )
        direct = {
            ("claude", "project"): "skills.enableClaudeProject",
            ("native", "user"): "skills.enablePiUser",
            ("native", "project"): "skills.enablePiProject",
            ("agents", "user"): "skills.enableAgentsUser",
            ("agents", "project"): "skills.enableAgentsProject",
        }
        if (provider, level) in direct:
            key = direct[(provider, level)]
            return (True, None) if self._toggle(key) else (False, f"{key} is false")
        if level == "user":
            if self.is_user_source_enabled(provider):
                return True, None
            hint = "`claude`" if provider == "claude-plugins" else f"`{provider}`"
            return False, f"{provider} user skills are opt-in in omp 18: add {hint} to enabledProviders"
        return True, None

    def _source_enabled_14(self, provider: str, level: str) -> tuple[bool, str | None]:
        direct = {
            ("codex", "user"): "skills.enableCodexUser",
            ("claude", "user"): "skills.enableClaudeUser",
            ("claude", "project"): "skills.enableClaudeProject",
            ("native", "user"): "skills.enablePiUser",
            ("native", "project"): "skills.enablePiProject",
        }
        if (provider, level) in direct:
            key = direct[(provider, level)]
            return (True, None) if self._toggle(key) else (False, f"{key} is false")
        if any(self._toggle(k) for k in direct.values()):
            return True, None
        return False, "all five skills.enable* toggles are false (omp 14 then switches every other source off)"


def _path_scoped_list(value: object, cwd: str, home: str) -> list[str] | None:
    """`disabledProviders` may hold `{path|paths|pathPrefix|pathPrefixes, values|items|providers}` entries."""
    if not isinstance(value, list):
        return None
    out: list[str] = []

    def strings(v: object) -> list[str]:
        if isinstance(v, str):
            return [v]
        if isinstance(v, list):
            return [x for x in v if isinstance(x, str)]
        return []

    def expand(p: str) -> str:
        if p == "~":
            return home
        if p.startswith("~/"):
            return os.path.join(home, p[2:])
        return p

    for entry in value:
        if isinstance(entry, str):
            out.append(entry)
            continue
        if not isinstance(entry, dict):
            continue
        prefixes = [*strings(entry.get("path")), *strings(entry.get("paths")), *strings(entry.get("pathPrefix")),
                    *strings(entry.get("pathPrefixes"))]
        matched = False
        for prefix in prefixes:
            root = os.path.normpath(os.path.join(cwd, expand(prefix)))
            rel = os.path.relpath(os.path.normpath(cwd), root)
            if rel == "." or (not rel.startswith("..") and not os.path.isabs(rel)):
                matched = True
                break
        if matched:
            out.extend([*strings(entry.get("values")), *strings(entry.get("items")), *strings(entry.get("providers"))])
    return out


# ---------------------------------------------------------------- loading
def _read_yaml(path: str, diags: list[Diagnostic]) -> tuple[Layer | None, bool]:
    """(mapping, present). A missing file is (None, False); a broken one is ({}, True) plus an error diagnostic."""
    try:
        if not os.path.isfile(path):
            return None, False
        ft = read_text(path, READ_CAP)
    except OSError as exc:
        diags.append(Diagnostic("error", "omp-settings-unreadable", path,
                                f"cannot read {os.path.basename(path)} ({exc.strerror or exc}); omp would fail to "
                                f"start with 'Failed to read settings config'; skilltui treats it as empty"))
        return {}, True
    try:
        parsed = load_yaml12(ft.text)
    except YamlError as exc:
        diags.append(Diagnostic("error", "omp-settings-invalid", path,
                                f"not valid YAML ({exc}); omp reports 'Settings config is invalid' and moves the file "
                                f"aside; skilltui treats it as empty",
                                line=exc.line + 1 if exc.line is not None else None))
        return {}, True
    if parsed is None:
        return {}, True
    if not isinstance(parsed, dict):
        diags.append(Diagnostic("error", "omp-settings-invalid", path,
                                "Settings YAML must contain a mapping at the document root; skilltui treats it as "
                                "empty", line=1))
        return {}, True
    return _stringify_map(parsed), True


def _read_json(path: str, diags: list[Diagnostic]) -> Layer | None:
    try:
        if not os.path.isfile(path):
            return None
        ft = read_text(path, READ_CAP)
    except OSError:
        return None
    try:
        parsed = fsio.json_loads(ft.text)
    except (ValueError, RecursionError) as exc:
        diags.append(Diagnostic("error", "omp-settings-invalid", path,
                                f"not valid JSON ({exc.__class__.__name__}); omp ignores this file"))
        return None
    if not isinstance(parsed, dict):
        diags.append(Diagnostic("error", "omp-settings-invalid", path, "not a JSON object; omp ignores this file"))
        return None
    return parsed


def _stringify_map(value: dict[object, object]) -> Layer:
    from skilltui.runtimes.omp.text import js_string_key

    return {js_string_key(k): _stringify_keys(v) for k, v in value.items()}


def _stringify_keys(value: object) -> object:
    if isinstance(value, dict):
        return _stringify_map(value)
    if isinstance(value, list):
        return [_stringify_keys(v) for v in value]
    return value


def load_settings(rules: str, agent_dir: str, cwd: str, home: str, native_dir: str, env: dict[str, str],
                  diags: list[Diagnostic]) -> OmpSettings:
    settings = OmpSettings(rules=rules, cwd=cwd, home=home, env=env)  # not a copy (see discovery)
    global_layer: Layer = {}
    found = False
    for name in ("config.yml", "config.yaml"):
        path = os.path.join(agent_dir, name)
        data, present = _read_yaml(path, diags)
        if data is not None:
            global_layer = data
            settings.files.append(path)
            found = True
            break
        if present:
            found = True
            break
    if not found:
        legacy = os.path.join(agent_dir, "settings.json")
        data = _read_json(legacy, diags)
        if data is not None:
            global_layer = data
            settings.files.append(legacy)
            diags.append(Diagnostic("info", "omp-settings-legacy", legacy,
                                    "legacy settings.json: omp migrates it to config.yml on first start"))

    discovered: Layer = {}
    for path in (os.path.join(cwd, native_dir, "settings.json"), os.path.join(cwd, ".claude", "settings.json")):
        data = _read_json(path, diags)
        if data is not None:
            discovered = deep_merge(discovered, data)
            settings.files.append(path)
    native_path = os.path.join(cwd, native_dir, "config.yml")
    native, _present = _read_yaml(native_path, diags)
    if native is not None:
        settings.files.append(native_path)
    project = deep_merge(discovered, native or {})
    settings.merged = deep_merge(deep_merge({}, global_layer), project)
    validate(settings, diags)
    return settings


_LIST_KEYS = ("skills.customDirectories", "skills.ignoredSkills", "skills.includeSkills", "disabledExtensions",
              "enabledProviders", "disabledProviders")


def validate(settings: OmpSettings, diags: list[Diagnostic]) -> None:
    where = settings.files[-1] if settings.files else None
    for key in _LIST_KEYS:
        if settings.rules != "18" and key in ("enabledProviders", "disabledProviders"):
            continue
        if not settings.is_set(key):
            continue
        value = settings.raw(key)
        if not isinstance(value, list):
            diags.append(Diagnostic("warning", "omp-settings-type", where,
                                    f"{key} should be a list, found {type(value).__name__}; omp 18.3.4 still starts "
                                    f"and does not use it (oracle); skilltui treats it as empty"))
        elif key != "disabledProviders" and any(not isinstance(v, str) for v in value):
            diags.append(Diagnostic("error", "omp-settings-entry-type", where,
                                    f"{key} holds entries that are not strings; omp 18.3.4 stops with an error on "
                                    f"them (oracle: `skill list` exits 1) and loads no skill"))
