"""oh-my-pi's view of plugins (spec/omp.md §2.3): Claude Code's installed plugins as omp's `claude-plugins` provider
reads them, and the `skills/` folders of omp extension packages (`omp-plugins`).

This is omp's reader, not Claude Code's: omp loads an installed plugin unless `enabledPlugins` says `false` (Claude Code
needs a literal `true`), ignores marketplaces, and in v18 also reads omp's own registries. File formats:
spec/claude-code.md §10.1-10.3.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass

from skilltui import fsio
from skilltui.frontmatter import YamlError, load_yaml12, read_text
from skilltui.model import Diagnostic
from skilltui.record import Record

READ_CAP = 1_000_000


@dataclass(repr=False)
class PluginRoot(Record):
    id: str  # name@marketplace
    marketplace: str
    plugin: str
    version: str
    path: str  # installPath as recorded (absolute in practice)
    scope: str  # omp level: user | project (| whatever a registry records)
    registry: str  # the installed_plugins.json it came from


@dataclass(frozen=True, repr=False)
class SkippedInstall(Record):
    """An install record omp does not load, and why (a doctor note)."""

    id: str
    path: str
    reason: str


@dataclass(frozen=True, repr=False)
class _Install(Record):
    """One entry of an installed_plugins.json list, as far as omp reads it (an entry without installPath is none)."""

    install_path: str
    enabled: object  # only a literal false skips it
    scope: object
    version: object
    project_path: object

    @classmethod
    def of(cls, entry: object) -> _Install | None:
        if not isinstance(entry, dict):
            return None
        path = entry.get("installPath")
        if not isinstance(path, str) or not path:
            return None
        return cls(path, entry.get("enabled"), entry.get("scope"), entry.get("version"), entry.get("projectPath"))


@dataclass(repr=False)
class ExtensionRoot(Record):
    path: str
    level: str


def expand_tilde(p: str, home: str) -> str:
    if p == "~":
        return home
    if p.startswith("~/") or p.startswith("~\\"):
        return os.path.join(home, p[2:])
    if p.startswith("~"):
        return os.path.join(home, p[1:])
    return p


def absolute(p: str, cwd: str) -> str:
    return p if os.path.isabs(p) else os.path.normpath(os.path.join(cwd, p))


def canonical(p: str) -> str | None:
    try:
        return os.path.realpath(p, strict=True)
    except (OSError, ValueError, RuntimeError):
        return None


def _read_json_file(path: str) -> tuple[object, bool]:
    """(parsed, present). Missing or non-file → (None, False); unparsable → (None, True)."""
    try:
        if not os.path.isfile(path):
            return None, False
        text = read_text(path, READ_CAP).text
    except OSError:
        return None, False
    if not text:
        return None, False
    try:
        return fsio.json_loads(text), True
    except (ValueError, RecursionError):
        return None, True


def _registry_plugins(path: str) -> tuple[dict[str, object] | None, bool]:
    """(the registry's `plugins` map, present); a registry omp rejects (no numeric version, no map) is (None, True)."""
    data, present = _read_json_file(path)
    if not present:
        return None, False
    if not isinstance(data, dict):
        return None, True
    plugins = data.get("plugins")
    if isinstance(data.get("version"), bool) or not isinstance(data.get("version"), (int, float)) \
            or not isinstance(plugins, dict):
        return None, True
    return plugins, True


def _installs(plugin_id: str, records: list[object], warnings: list[str]) -> Iterator[_Install]:
    """A registry's install records for one plugin, in order; one without an installPath is omp's warning."""
    for record in records:
        entry = _Install.of(record)
        if entry is None:
            warnings.append(f"Plugin {plugin_id} entry has no installPath")
        else:
            yield entry


def _split_id(plugin_id: str) -> tuple[str, str] | None:
    at = plugin_id.rfind("@")
    if at == -1:
        return None
    return plugin_id[:at], plugin_id[at + 1 :]


def active_project_registry(cwd: str, home: str, native_dir: str) -> str | None:
    """Nearest `<dir>/<native>/plugins/installed_plugins.json`: a `<native>` folder, else a `.git` (never $HOME)."""
    for marker_is_git in (False, True):
        d = os.path.abspath(cwd)
        while d != home:
            marker = os.path.join(d, ".git" if marker_is_git else native_dir)
            if os.path.exists(marker) if marker_is_git else os.path.isdir(marker):
                return os.path.join(d, native_dir, "plugins", "installed_plugins.json")
            parent = os.path.dirname(d)
            if parent == d:
                break
            d = parent
    return None


def claude_enabled_overrides(claude_cfg: str, project_dirs: list[str], diags: list[Diagnostic]) -> dict[str, bool]:
    enabled: dict[str, bool] = {}
    candidates = [os.path.join(claude_cfg, "settings.json")]
    for d in project_dirs:
        candidates += [os.path.join(d, ".claude", "settings.json"), os.path.join(d, ".claude", "settings.local.json")]
    for path in candidates:
        data, present = _read_json_file(path)
        if present and data is None:
            diags.append(Diagnostic("error", "omp-settings-invalid", path,
                                    "not valid JSON; omp reads no enabledPlugins from it"))
        if not isinstance(data, dict):
            continue
        mapping = data.get("enabledPlugins")
        if not isinstance(mapping, dict):
            continue
        for key, value in mapping.items():
            if isinstance(value, bool):
                enabled[key] = value
    return enabled


def list_claude_plugin_roots(rules: str, home: str, cwd: str, claude_cfg: str, omp_plugins_dir: str, native_dir: str,
                             warnings: list[str], diags: list[Diagnostic]) -> tuple[list[PluginRoot], list[SkippedInstall]]:
    """Plugin roots in omp's order, plus the install records omp skipped (for skilltui's rows and doctor).

    `warnings` receives omp's own warning texts (without the provider prefix).
    """
    skipped: list[SkippedInstall] = []
    project_registry = active_project_registry(cwd, home, native_dir)
    project_root = os.path.dirname(os.path.dirname(os.path.dirname(project_registry))) if project_registry else cwd
    active_project = canonical(project_root)
    overrides: dict[str, bool] = {}
    if rules == "18":
        canonical_cwd = canonical(cwd)
        dirs: list[str] = []
        for d in (active_project, canonical_cwd):
            if d and d not in dirs:
                dirs.append(d)
        overrides = claude_enabled_overrides(claude_cfg, dirs, diags)

    roots: list[PluginRoot] = []
    canon_cache: dict[str, str | None] = {}

    def entries_of(registry_path: str, label: str) -> list[tuple[str, str, str, list[object]]] | None:
        plugins, present = _registry_plugins(registry_path)
        if not present:
            return []
        if plugins is None:
            warnings.append(f"Failed to parse {label}: {registry_path}")
            diags.append(Diagnostic("error", "omp-plugin-registry-invalid", registry_path,
                                    f"Failed to parse {label}: omp loads no plugin from it"))
            return None
        out: list[tuple[str, str, str, list[object]]] = []
        for plugin_id, entries in plugins.items():
            if not isinstance(entries, list) or not entries:
                continue
            split = _split_id(plugin_id)
            if split is None:
                warnings.append(f"Invalid plugin ID format (missing @marketplace): {plugin_id}")
                continue
            out.append((plugin_id, split[0], split[1], entries))
        return out

    def root_for(plugin_id: str, name: str, market: str, entry: _Install, scope: str,
                 registry_path: str) -> PluginRoot:
        version = entry.version
        return PluginRoot(plugin_id, market, name, version if isinstance(version, str) and version else "unknown",
                          entry.install_path, scope, registry_path)

    claude_registry = os.path.join(claude_cfg, "plugins", "installed_plugins.json")
    for plugin_id, name, market, entries in entries_of(claude_registry, "Claude Code plugin registry") or []:
        for entry in _installs(plugin_id, entries, warnings):
            if entry.enabled is False:
                skipped.append(SkippedInstall(plugin_id, entry.install_path, "install record has enabled: false"))
                continue
            scope = entry.scope
            override = overrides.get(plugin_id)
            if override is False:
                skipped.append(SkippedInstall(plugin_id, entry.install_path, "enabledPlugins sets it to false"))
                continue
            bound = ("local", "project") if rules == "18" else ("local",)
            if scope in bound and override is not True:
                recorded = entry.project_path
                ok = False
                if isinstance(recorded, str) and recorded and active_project:
                    if recorded not in canon_cache:
                        canon_cache[recorded] = canonical(absolute(recorded, cwd))
                    ok = canon_cache[recorded] == active_project
                if not ok:
                    skipped.append(SkippedInstall(plugin_id, entry.install_path,
                                                  f"installed for another project ({recorded})"))
                    continue
            level = "project" if scope == "local" else (scope if isinstance(scope, str) and scope else "user")
            roots.append(root_for(plugin_id, name, market, entry, level, claude_registry))

    if rules == "18":
        omp_registry = os.path.join(omp_plugins_dir, "installed_plugins.json")
        for plugin_id, name, market, entries in entries_of(omp_registry, "OMP plugin registry") or []:
            roots = [r for r in roots if r.id != plugin_id]
            for entry in _installs(plugin_id, entries, warnings):
                if entry.enabled is False:
                    continue
                if any(r.id == plugin_id and r.path == entry.install_path for r in roots):
                    continue
                scope = entry.scope
                level = "project" if scope == "local" else (scope if isinstance(scope, str) and scope else "user")
                roots.append(root_for(plugin_id, name, market, entry, level, omp_registry))
        project_roots: list[PluginRoot] = []
        if project_registry:
            for plugin_id, name, market, entries in entries_of(project_registry, "project plugin registry") or []:
                for entry in _installs(plugin_id, entries, warnings):
                    if entry.enabled is False:
                        continue
                    project_roots.append(root_for(plugin_id, name, market, entry, "project", project_registry))
        if project_roots:
            ids = {r.id for r in project_roots}
            roots = project_roots + [r for r in roots if r.id not in ids]
    return roots, skipped


def _within(root: str, target: str) -> bool:
    rel = os.path.relpath(target, root)
    return rel == "." or (not rel.startswith("..") and not os.path.isabs(rel))


def plugin_skill_dirs(rules: str, root: PluginRoot, cwd: str, warnings: list[str]) -> list[str]:
    """The skills folders omp scans for one plugin: `skills/` plus manifest `skills` entries (v14: instead of it)."""
    root_abs = absolute(root.path, cwd)
    fallback = os.path.normpath(os.path.join(root.path, "skills"))
    manifest, _ = _read_json_file(os.path.join(root_abs, ".claude-plugin", "plugin.json"))
    configured: list[str] = []
    if isinstance(manifest, dict):
        value = manifest.get("skills")
        if isinstance(value, str):
            if value.strip():
                configured = [value.strip()]
        elif isinstance(value, list):
            configured = [v.strip() for v in value if isinstance(v, str) and v.strip()]
    if not configured:
        return [fallback]
    include_fallback = rules == "18" and not _marketplace_replaces_fallback(root, root_abs)
    dirs: list[str] = []
    seen: set[str] = set()
    if include_fallback:
        dirs.append(fallback)
        seen.add(os.path.normpath(absolute(fallback, cwd)))
    for entry in configured:
        resolved = os.path.normpath(os.path.join(root_abs, entry))
        if not _within(root_abs, resolved):
            warnings.append(f"[claude-plugins] Ignoring skills path outside plugin root for {root.id}: {entry}")
            continue
        if resolved in seen:
            continue
        seen.add(resolved)
        dirs.append(resolved)
    return dirs


def _marketplace_replaces_fallback(root: PluginRoot, root_abs: str) -> bool:
    data, _ = _read_json_file(os.path.join(root_abs, "marketplace.json"))
    if not isinstance(data, dict) or not isinstance(data.get("plugins"), list):
        return False
    return any(isinstance(e, dict) and e.get("name") == root.plugin and e.get("source") == "./"
               for e in data["plugins"])


# ---------------------------------------------------------------- omp extension packages (`omp-plugins`, v18)
def _yaml_extensions(scope_dir: str, filenames: tuple[str, ...]) -> tuple[bool, list[str] | None]:
    for filename in filenames:
        path = os.path.join(scope_dir, filename)
        try:
            if not os.path.isfile(path):
                continue
            text = read_text(path, READ_CAP).text
        except OSError:
            continue
        try:
            parsed = load_yaml12(text)
        except YamlError:
            return True, None
        if not isinstance(parsed, dict):
            return True, None
        raw = parsed.get("extensions")
        if not isinstance(raw, list):
            return True, None
        return True, [e for e in raw if isinstance(e, str) and e]
    return False, None


def _json_extensions(path: str) -> list[str] | None:
    data, _ = _read_json_file(path)
    if not isinstance(data, dict) or not isinstance(data.get("extensions"), list):
        return None
    return [e for e in data["extensions"] if isinstance(e, str) and e]


def list_extension_roots(cwd: str, home: str, agent_dir: str, native_dir: str) -> list[ExtensionRoot]:
    """Configured `extensions:` package folders (project YAML, project settings.json, user YAML, user settings.json;
    the first that sets the array wins). Installed npm plugins are not modelled."""
    project = os.path.join(cwd, native_dir)
    entries: list[str] | None = None
    level = "user"
    p_exists, p_entries = _yaml_extensions(project, ("config.yml",))
    if p_entries is not None:
        entries, level = p_entries, "project"
    else:
        p_json = _json_extensions(os.path.join(project, "settings.json"))
        if p_json is not None:
            entries, level = p_json, "project"
        else:
            u_exists, u_entries = _yaml_extensions(agent_dir, ("config.yml", "config.yaml"))
            if u_entries is not None:
                entries = u_entries
            elif not u_exists:
                entries = _json_extensions(os.path.join(agent_dir, "settings.json"))
    roots: list[ExtensionRoot] = []
    seen: set[str] = set()
    for raw in entries or []:
        expanded = expand_tilde(raw, home)
        path = expanded if os.path.isabs(expanded) else os.path.normpath(os.path.join(cwd, expanded))
        if path in seen:
            continue
        seen.add(path)
        if os.path.isdir(path):
            roots.append(ExtensionRoot(path, level))
    return roots


def extension_skill_dirs(root: ExtensionRoot, warnings: list[str]) -> tuple[list[str], bool]:
    """(dirs, manifest_declared). `package.json` `omp.skills`/`pi.skills` entries, each contained in the package."""
    fallback = ([os.path.join(root.path, "skills")], False)
    real_root = canonical(root.path)
    if real_root is None:
        return fallback
    pkg_path = os.path.join(real_root, "package.json")
    real_pkg = canonical(pkg_path)
    if real_pkg is None or not _within(real_root, real_pkg):
        return fallback
    data, _ = _read_json_file(real_pkg)
    manifest = None
    if isinstance(data, dict):
        manifest = data.get("omp") if data.get("omp") is not None else data.get("pi")
    if not isinstance(manifest, dict) or "skills" not in manifest:
        return fallback
    skills = manifest["skills"]
    entries = [e for e in skills if isinstance(e, str) and e.strip()] if isinstance(skills, list) else []
    dirs: list[str] = []
    for entry in entries:
        target = os.path.normpath(os.path.join(real_root, entry))
        real = canonical(target)
        if real is None:
            continue
        if _within(real_root, real):
            dirs.append(real)
        else:
            warnings.append(f"[omp-plugins] Skipping manifest skills directory outside plugin root: {entry}")
    return dirs, True


# ---------------------------------------------------------------- skillshare registry skills (`skillshare`, v18)
SKILL_ID_RE = re.compile(r"@[a-z0-9][a-z0-9_]{2,31}/[a-z0-9]+(?:-[a-z0-9]+)*")
SEMVER_RE = re.compile(r"\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?")
STORE_INTEGRITY_FILE = ".skillshare-integrity"


@dataclass(repr=False)
class LockedSkill(Record):
    id: str
    name: str  # the package name: the skill's fallback name
    version: str
    store_dir: str
    level: str


@dataclass(frozen=True, repr=False)
class _Locked(Record):
    """One `skills` entry of a skills.lock.json that matches omp's schema."""

    version: str
    integrity: str


def _lock_entries(lock_path: str, warnings: list[str]) -> list[tuple[str, _Locked]]:
    try:
        if not os.path.exists(lock_path):
            return []
        if not os.path.isfile(lock_path):
            warnings.append("Failed to read skills lock: EISDIR: illegal operation on a directory, read")
            return []
        with fsio.open_binary(lock_path) as fh:
            raw = fh.read(READ_CAP + 1)
        text = raw.decode("utf-8", errors="replace")
    except OSError as exc:
        warnings.append(f"Failed to read skills lock: {exc.strerror or exc}")
        return []
    try:
        data = fsio.json_loads(text)
    except (ValueError, RecursionError) as exc:
        warnings.append(f"Failed to read skills lock: {lock_path}: invalid JSON ({exc})")
        return []
    skills = data.get("skills", {}) if isinstance(data, dict) else None
    locked: dict[str, _Locked] = {}
    for skill_id, e in skills.items() if isinstance(skills, dict) else ():
        version, integrity = (e.get("version"), e.get("integrity")) if isinstance(e, dict) else (None, None)
        if not (isinstance(version, str) and version and isinstance(integrity, str) and integrity
                and isinstance(e.get("resolved"), str)):
            break
        locked[skill_id] = _Locked(version, integrity)
    entries_ok = isinstance(skills, dict) and len(locked) == len(skills)
    version_ok = isinstance(data, dict) and data.get("version") == 1 and not isinstance(data.get("version"), bool)
    if not version_ok or not entries_ok:
        warnings.append(f"Failed to read skills lock: {lock_path}: does not match the skills.lock.json schema")
        return []
    for skill_id, entry in locked.items():
        if not SKILL_ID_RE.fullmatch(skill_id):
            warnings.append(f'Failed to read skills lock: {lock_path}: invalid skill id "{skill_id}" '
                            f"(expected @scope/name)")
            return []
        if not SEMVER_RE.fullmatch(entry.version):
            warnings.append(f'Failed to read skills lock: {lock_path}: "{skill_id}" has invalid version '
                            f'"{entry.version}"')
            return []
    return sorted(locked.items(), key=lambda kv: kv[0].encode("utf-16-be", "surrogatepass"))


def list_locked_skills(walk: list[str], agent_dir: str, native_dir: str, warnings: list[str]) -> list[LockedSkill]:
    """Skills pinned by `<walk dir>/<native>/skills.lock.json` (closest first) and `<agentDir>/skills.lock.json`
    whose unpacked store folder carries the locked integrity."""
    store_root = os.path.join(os.path.dirname(agent_dir), "skillshare")
    locks = [(os.path.join(d, native_dir, "skills.lock.json"), "project") for d in walk]
    locks.append((os.path.join(agent_dir, "skills.lock.json"), "user"))
    out: list[LockedSkill] = []
    for lock_path, level in locks:
        for skill_id, entry in _lock_entries(lock_path, warnings):
            scope, name = skill_id[1:].split("/", 1)
            version = entry.version
            if ".." in version:
                continue
            store_dir = os.path.join(store_root, f"@{scope}", name, version)
            marker = os.path.join(store_dir, STORE_INTEGRITY_FILE)
            if not os.path.isfile(marker):  # never open a FIFO or a device
                continue
            try:
                with fsio.open_binary(marker) as fh:
                    stored = fh.read(READ_CAP).decode("utf-8", errors="replace").strip()
            except OSError:
                continue
            if stored != entry.integrity:
                continue
            out.append(LockedSkill(skill_id, name, version, store_dir, level))
    return out
