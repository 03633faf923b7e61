"""Claude Code plugins (spec/claude-code.md §10): install records, marketplaces, manifests, enablement, components."""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field
from typing import Any

from skilltui.model import Diagnostic, InstallRecord, Plugin, PluginBlock
from skilltui.record import Record
from skilltui.runtimes.claude.settings import (
    Settings,
    find_git_root,
    has_managed_settings,
    read_json_file,
)
from skilltui.text import collate

PLUGIN_ID = re.compile(r"^[A-Za-z0-9][-A-Za-z0-9._]*@[A-Za-z0-9][-A-Za-z0-9._]*$")
BUILTIN_PLUGINS = ("cc-plugin-agents-md", "cc-plugin-plugin-authoring", "cc-plugin-privacy")
MAX_COMMAND_FILES = 10_000  # per plugin or commands root: a bound on hostile trees
MAX_WALK_DIRS = 10_000  # folders one commands walk may visit: a link to / must not walk the file system (issue #17.10)
RECORDS_CAP = 5_000_000  # bytes read of installed_plugins.json / known_marketplaces.json


@dataclass(eq=False, repr=False)  # compared nowhere: no __eq__ to generate at every start
class Item(Record):
    """One skill or command file a plugin (or a legacy commands root) contributes, before parsing."""

    kind: str  # skill | command
    name: str
    path: str
    root: str  # the folder it was found under
    skill_dir: str
    named_by_frontmatter: bool = False  # a root-level SKILL.md (`skills: ["./"]`) is named by its frontmatter
    st: os.stat_result | None = None  # the file's stat when finding it took one (spares the reader a second)


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _records(installed: object) -> dict[str, list[InstallRecord]]:
    """installed_plugins.json, version 2 or 1 (converted), keys not matching the id pattern set aside."""
    if not isinstance(installed, dict) or not isinstance(installed.get("plugins"), dict):
        return {}
    out: dict[str, list[InstallRecord]] = {}
    for key, value in installed["plugins"].items():
        if not PLUGIN_ID.match(key):
            continue
        if installed.get("version") == 1 and isinstance(value, dict):
            value = [dict(value, scope=value.get("scope", "user"))]
        if isinstance(value, list):
            out[key] = [InstallRecord(scope=_text(r.get("scope")) or "user", install_path=_text(r.get("installPath")),
                                      version=_text(r.get("version")), project_path=_text(r.get("projectPath")),
                                      installed_at=_text(r.get("installedAt")), last_updated=_text(r.get("lastUpdated")))
                        for r in value if isinstance(r, dict)]
    return out


def project_key(path: str, home: str) -> str:
    """The project a folder belongs to: its git root, else the folder itself.

    A project/local install record applies when its projectPath is in the same project as the cwd (observed:
    records for the git root, a sub-folder of it or a missing folder below it all apply from anywhere in the
    work tree; outside git only the exact folder does).
    """
    p = os.path.abspath(path)
    return find_git_root(p, home) or p


def _applies(record: InstallRecord, settings: Settings) -> bool:
    if record.scope in ("project", "local"):
        paths = settings.paths
        here = paths.git_root or paths.cwd
        return record.project_path is not None and project_key(record.project_path, paths.home) == here
    return True


def _known_marketplaces(settings: Settings, diags: list[Diagnostic]) -> dict[str, dict[str, Any]]:
    path = os.path.join(settings.paths.plugins_dir, "known_marketplaces.json")
    data, error, exists = read_json_file(path, RECORDS_CAP)
    if error:
        diags.append(Diagnostic("error", "plugin-file-unreadable", path, f"known_marketplaces.json {error}"))
    known = {k: v for k, v in data.items() if isinstance(v, dict)} if isinstance(data, dict) else {}
    for src in settings.sources:  # directory/file marketplaces declared in settings are known too
        extra = src.data.get("extraKnownMarketplaces")
        if isinstance(extra, dict):
            for name, entry in extra.items():
                source = entry.get("source") if isinstance(entry, dict) else None
                if isinstance(source, dict) and source.get("source") in ("directory", "file") and name not in known:
                    known[name] = {"source": source, "fromSettings": src.path}
    return known


@dataclass(eq=False, repr=False)  # compared nowhere: no __eq__ to generate at every start
class Marketplace(Record):
    """A known marketplace as Claude Code reads it: which plugins its marketplace.json lists."""

    name: str
    folder: str | None  # a `directory` marketplace's folder: its plugins are read from there
    entries: dict[str, dict[str, Any]] | None  # plugin name -> its entry; None when marketplace.json cannot be read


def _marketplace(name: str, entry: dict[str, Any]) -> Marketplace:
    raw = entry.get("source")
    source: dict[str, Any] = raw if isinstance(raw, dict) else {}
    folder = None
    if source.get("source") == "directory" and isinstance(source.get("path"), str):
        folder = source["path"]
        manifest = os.path.join(folder, ".claude-plugin", "marketplace.json")
    elif source.get("source") == "file" and isinstance(source.get("path"), str):
        manifest = source["path"]
    elif isinstance(entry.get("installLocation"), str):
        manifest = os.path.join(entry["installLocation"], ".claude-plugin", "marketplace.json")
    else:
        return Marketplace(name, None, None)
    data, _, _ = read_json_file(manifest)
    plugins = data.get("plugins") if isinstance(data, dict) else None
    if not isinstance(plugins, list):
        return Marketplace(name, folder, None)
    entries = {e["name"]: e for e in plugins if isinstance(e, dict) and isinstance(e.get("name"), str)}
    return Marketplace(name, folder, entries)


def _plugin_root_in_marketplace(market: Marketplace, name: str) -> str | None:
    """For a `directory` marketplace the plugin is read from the marketplace folder (its entry's `source`)."""
    entry = (market.entries or {}).get(name)
    if market.folder is None or entry is None or not isinstance(entry.get("source"), str):
        return None
    base = os.path.normpath(market.folder)
    root = os.path.normpath(os.path.join(base, entry["source"]))
    return root if os.path.commonpath([root, base]) == base else None


def _manifest(root: str | None, diags: list[Diagnostic]) -> tuple[dict[str, Any], str | None]:
    """(plugin.json, Claude Code's error for it or None). A rejected manifest loads nothing (§10.2)."""
    if not root:
        return {}, None
    path = os.path.join(root, ".claude-plugin", "plugin.json")
    data, error, exists = read_json_file(path, cap=1_000_000)
    if error:
        diags.append(Diagnostic("error", "plugin-manifest-invalid", path, f"plugin.json {error}",
                                fix="Fix the JSON of this plugin.json"))
        return {}, f"Manifest parse error: {error} (in {path})"
    if not exists:
        return {}, None
    if isinstance(data, dict):
        problem, fix = manifest_problem(data), "Fix this field of plugin.json"
    else:
        data, problem, fix = {}, "manifest must be an object", "Make plugin.json one JSON object ({ ... })"
    if problem:
        diags.append(Diagnostic("error", "plugin-manifest-invalid", path, f"plugin.json: {problem}; Claude Code loads nothing of this plugin",
                                fix=fix))
        return data, f"Manifest validation failed: {problem} (in {path})"
    return data, None


_CONTROL_OR_BIDI = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_JS_TYPES = {type(None): "null", bool: "boolean", int: "number", float: "number", list: "array", dict: "object"}


def manifest_problem(data: dict[str, Any]) -> str | None:
    """The first plugin.json field Claude Code rejects, in its words (observed: a missing, empty, spaced or
    control-character name, a userConfig entry without a description, an agents path not ending in .md). Other fields
    are not validated here."""
    name = data.get("name")
    if not isinstance(name, str):
        kind = "undefined" if "name" not in data else _JS_TYPES.get(type(name), "object")
        return f"name: Invalid input: expected string, received {kind}"
    if not name:
        return "name: Plugin name cannot be empty"
    if " " in name:
        return "name: Plugin name cannot contain spaces. Use kebab-case (e.g., \u201dmy-plugin\u201d)"
    if _CONTROL_OR_BIDI.search(name):
        return "name: Plugin name cannot contain control or bidirectional-formatting characters"
    config = data.get("userConfig")
    for key, entry in (config.items() if isinstance(config, dict) else []):
        if isinstance(entry, dict) and not isinstance(entry.get("description"), str):
            kind = "undefined" if "description" not in entry else _JS_TYPES.get(type(entry["description"]), "object")
            return f"userConfig.{key}.description: Invalid input: expected string, received {kind}"
    agents = data.get("agents")
    for i, rel in enumerate(agents if isinstance(agents, list) else [agents] if isinstance(agents, str) else []):
        if isinstance(rel, str) and not rel.endswith(".md"):
            where = f"agents.{i}" if isinstance(agents, list) else "agents"
            return f"{where}: Invalid string: must end with \u201d.md\u201d"
    return None


_VERSION_LIST_NOTE = "Not enabled because its enabledPlugins entry is a version list"
_BEFORE_ENABLEMENT = (PluginBlock.MARKETPLACE_UNKNOWN, PluginBlock.MARKETPLACE_FAILED, PluginBlock.NOT_IN_MARKETPLACE)


def apply_enablement(plugin: Plugin, settings: Settings) -> None:
    """§10.5: the first source that mentions the id decides; only a literal true turns a marketplace plugin on."""
    decision = settings.decide(plugin.id)
    value, src = decision.value, decision.source
    plugin.decided_by = decision.scope
    plugin.decided_in = src.path if src else None
    if plugin.kind == "builtin":
        plugin.enabled = True
    elif plugin.kind in ("skills-dir", "inline"):
        plugin.enabled = value is not False
    else:
        plugin.enabled = value is True
    if isinstance(value, list):
        plugin.notes.append(_VERSION_LIST_NOTE + ". Only the value true turns on a marketplace plugin")
    plugin.project_enabled = _project_enabled(plugin.id, settings)


def _project_enabled(pid: str, settings: Settings) -> bool:
    """`plugin list`'s projectEnabled: the project settings' entry for the id, else the first entry whose id differs
    from it only in case (observed: project-enabled-case); only a literal true counts."""
    decision = settings.decide(pid, ("project",))
    if decision.source is not None:
        return decision.value is True
    src = settings.source("project")
    entries = src.data.get("enabledPlugins") if src else None
    low = pid.lower()
    return isinstance(entries, dict) and next((v for k, v in entries.items() if k.lower() == low), None) is True


_INEFFECTIVE = "Disabled in ~/.claude/settings.json but still loads"


def _ineffective_disable(plugin: Plugin, settings: Settings) -> None:
    """The note for a user `false` that a higher scope overrides; only for a plugin that does load (observed: a
    plugin that fails for another cause gets no note)."""
    src = settings.decide(plugin.id).source
    user = settings.decide(plugin.id, ("user",)).value
    if user is False and (plugin.loads or plugin.list_root) and src is not None and src.scope != "user":
        plugin.notes.append(
            f"{_INEFFECTIVE} — {_SCOPE_WORDS.get(src.scope, src.scope)} settings enable it, which overrides your user "
            "setting"
        )


# How Claude Code names a settings scope in its notes (its own table; observed for local: seed 4, tree 19).
_SCOPE_WORDS = {"local": "project, gitignored", "flag": "cli flag"}


def _installed_here(path: str | None) -> bool:
    if path is not None and "\0" in path:  # a NUL in the path: the record is taken, and the caller reports it
        return True
    return path is not None and os.path.isdir(path)


_CACHE_NAME = re.compile(r"^[A-Za-z0-9_-]+$")


def _missing_paths(plugin: Plugin, root: str | None) -> list[str]:
    """`Path not found` errors for manifest `commands`/`skills` paths that do not exist (observed: the plugin still
    loads the rest)."""
    out = []
    for field_name in ("commands", "skills"):
        for rel in _rel_paths(plugin.manifest.get(field_name)):
            path = _inside(root, rel) if root else None
            if path is not None and not os.path.exists(path):
                out.append(f"Path not found: {path} ({field_name})")
    return out


def _marketplace_plugin(pid: str, records: list[InstallRecord], settings: Settings, known: dict[str, dict[str, Any]],
                        markets: dict[str, Marketplace], diags: list[Diagnostic]) -> Plugin:
    """One installed marketplace plugin: the record that applies here, then each §10.4 condition in turn."""
    for r in records:
        r.applies = _applies(r, settings)
    # The first record that applies here and whose folder exists (observed: a record whose installPath is gone is
    # passed over for the next one that applies).
    applying = [r for r in records if r.applies]
    rec = next((r for r in applying if _installed_here(r.install_path)), None)
    # Every record that applies here lost its folder: the session loads nothing, while `plugin list` looks in the
    # versioned cache folder and reads the plugin from there, or reports a failed download (observed).
    fallback = None
    if rec is None and applying and applying[0].version:
        # the folder's name: the plugin's with other characters than [A-Za-z0-9_-] changed (observed: for a dotted
        # name it is never found; the replacement is assumed)
        fallback = os.path.join(settings.paths.plugins_dir, "cache", pid.split("@", 1)[1],
                                item_suffix(pid.split("@", 1)[0]), applying[0].version)
        fallback = fallback if _installed_here(fallback) else None
    shown = rec or records[0]
    name, market = pid.split("@", 1)
    plugin = Plugin(pid, name, market, version=shown.version, scope=shown.scope, install_path=shown.install_path,
                    records=records)
    plugin.root = rec.install_path if rec else None
    plugin.marketplace_known = market in known
    if plugin.marketplace_known and market not in markets:
        markets[market] = _marketplace(market, known[market])
    mk = markets.get(market)
    if mk is not None:  # a directory marketplace's plugin is read from its folder, whatever the records say (observed)
        folder = _plugin_root_in_marketplace(mk, name)
        if folder:
            plugin.root = plugin.read_from_folder = folder
            plugin.notes.append(f"Read from the marketplace folder {folder}")
    if rec is not None and rec.install_path is not None and "\0" in rec.install_path:
        # Observed (oracle): Claude Code lists the plugin as enabled, with no error, and loads nothing from it.
        plugin.root = None
        diags.append(Diagnostic("error", "plugin-install-path-invalid",
                                os.path.join(settings.paths.plugins_dir, "installed_plugins.json"),
                                f'the installPath of "{pid}" holds a NUL character; Claude Code loads nothing from '
                                "this plugin and says nothing", fix="Reinstall the plugin"))
    plugin.manifest, plugin.manifest_error = _manifest(plugin.root, diags)
    # The causes no setting changes, first that applies; whether one counts depends on the settings (decide).
    # The marketplace causes come before the install records' (observed).
    if mk is None:
        plugin.fixed_block, plugin.fixed_error = PluginBlock.MARKETPLACE_UNKNOWN, f"Marketplace {market} not found"
    elif mk.entries is None:
        plugin.fixed_block = PluginBlock.MARKETPLACE_FAILED
        plugin.fixed_error = f"Marketplace {market} failed to load: cache-miss"
    elif name not in mk.entries:
        plugin.fixed_block = PluginBlock.NOT_IN_MARKETPLACE
        plugin.fixed_error = f"Plugin {name} not found in marketplace {market}"
    elif rec is None and not plugin.read_from_folder and not applying:
        plugin.fixed_block = PluginBlock.OTHER_PROJECT  # its error depends on the settings (_not_installed_error)
    elif plugin.manifest_error:
        plugin.fixed_block, plugin.fixed_error = PluginBlock.MANIFEST_INVALID, plugin.manifest_error
    elif not plugin.root:
        plugin.fixed_block = PluginBlock.NO_FILES
        if applying and fallback is None:
            plugin.fixed_error = (f"Failed to download/cache plugin {name}: no folder at its installPath "
                                  f"{applying[0].install_path}")
        elif fallback is not None:
            plugin.list_root = fallback
            # no items come of it (no root): plugin list reads it, and reports a broken one (observed)
            plugin.manifest, plugin.list_manifest_error = _manifest(fallback, [])
            error = plugin.list_manifest_error
            plugin.load_errors = [error] if error else _missing_paths(plugin, fallback)
    if plugin.fixed_block is None:
        if not plugin.read_from_folder and not _CACHE_NAME.match(name):
            # Observed: a plugin whose name holds other characters (a dot) loads from its installPath, and `plugin
            # list` still reports a failed download/cache of it, reading nothing of it (no `Path not found` errors).
            plugin.load_errors = [f"Failed to download/cache plugin {name}: its cache folder name differs from the name"]
        else:
            plugin.load_errors = _missing_paths(plugin, plugin.root)
    where = plugin.list_root or plugin.root
    plugin.commands_note = where is not None and _shadows_default(plugin.manifest.get("commands"), where, "commands")
    decide(plugin, settings)
    return plugin


def _shadows_default(declared: object, root: str, folder: str) -> bool:
    """Whether the manifest's value hides the default folder (Claude Code's note): it is set (JavaScript-true), the
    folder exists, and none of the paths it names lies inside that folder (`"commands": ["./commands/b.md"]` gives no
    note; seed 5, tree 5)."""
    default = os.path.join(root, folder)
    if declared in (None, False, 0, "") or not os.path.isdir(default):
        return False
    if isinstance(declared, dict):
        paths = [v["source"] for v in declared.values() if isinstance(v, dict) and isinstance(v.get("source"), str)]
    else:
        paths = _rel_paths(declared)
    inside = default + os.sep
    return not any((os.path.normpath(os.path.join(root, rel)) + os.sep).startswith(inside) for rel in paths)


_ENABLEMENT_NOTES = ("Not enabled because its enabledPlugins entry is a version list",
                     "Disabled in ~/.claude/settings.json but still loads",
                     'Default commands/ folder is ignored because the manifest sets "commands"')


def decide(plugin: Plugin, settings: Settings) -> None:
    """Whether a plugin is enabled and loads under `settings`, from the facts read once (§10.4, §10.5). Reads no
    file: a "what if" asks again with other settings (runtimes/claude/discovery.resolve_again)."""
    plugin.notes = [n for n in plugin.notes if not n.startswith(_ENABLEMENT_NOTES)]
    plugin.errors = []
    apply_enablement(plugin, settings)
    if plugin.kind == "builtin":
        plugin.loads = plugin.enabled
        return
    if plugin.kind != "marketplace":  # a skills-dir plugin loads when enabled
        plugin.loads = plugin.enabled
        plugin.blocked = None if plugin.enabled else PluginBlock.NOT_ENABLED
        _ineffective_disable(plugin, settings)
        return
    # Claude Code reports a cause only for a plugin that is enabled; the first cause that applies wins.
    if settings.decide(plugin.id, ("managed",)).value is False:  # a hard off, whatever the lower scopes say
        plugin.blocked = PluginBlock.MANAGED_OFF
    elif not plugin.enabled and not isinstance(settings.decide(plugin.id).value, list):
        plugin.blocked = PluginBlock.NOT_ENABLED
    # A version list goes through the marketplace and install checks as if enabled, then does not load (observed:
    # a failed marketplace's error, not the version-list note).
    elif plugin.fixed_block is not None:
        plugin.blocked = plugin.fixed_block
        if plugin.fixed_block == PluginBlock.OTHER_PROJECT:
            plugin.errors.append(_not_installed_error(plugin.id, plugin.name, plugin.records, settings))
        elif plugin.fixed_error:
            plugin.errors.append(plugin.fixed_error)
    elif not plugin.enabled:
        plugin.blocked = PluginBlock.NOT_ENABLED
    else:
        plugin.blocked = None
    # A version list's note comes after these checks, and after "not installed"; a download tried and failed keeps
    # it (observed: version-list-other-project).
    if plugin.blocked in _BEFORE_ENABLEMENT or (plugin.blocked == PluginBlock.OTHER_PROJECT
                                                and not _download_tried(plugin.id, settings)):
        plugin.notes = [n for n in plugin.notes if not n.startswith(_VERSION_LIST_NOTE)]
    plugin.loads = plugin.blocked is None
    if plugin.loads or (plugin.blocked == PluginBlock.NO_FILES and plugin.list_root):
        plugin.errors += plugin.load_errors
    if plugin.commands_note and list_loaded(plugin):  # a note of the load (observed), before the ineffective one
        plugin.notes.append(_COMMANDS_NOTE)
    _ineffective_disable(plugin, settings)


def _download_tried(pid: str, settings: Settings) -> bool:
    """A plugin with no install record here that user or managed settings turn on is downloaded (and fails offline)."""
    return settings.decide(pid, ("user",)).value is True or settings.decide(pid, ("managed",)).value is True


def _not_installed_error(pid: str, name: str, records: list[InstallRecord], settings: Settings) -> str:
    """No install record here. Enabled only by this project's settings (not by user or managed ones), Claude Code
    says it is not installed; otherwise it tries to download it, which fails offline (observed)."""
    if not _download_tried(pid, settings):
        return (f'Plugin "{name}" is enabled in project settings but isn\'t installed — run '
                f"`claude plugin install {pid} --scope project`")
    where = ", ".join(r.project_path or r.install_path or "?" for r in records)
    return (f"Not installed for this project (its install records are for {where}); "
            f"Claude Code tries to download/cache plugin {name} and fails without it")


def has_manifest(path: str) -> bool:
    """Whether a user skill folder's `.claude-plugin/plugin.json` is a file: the folder is then a `@skills-dir` plugin
    (§3 step 7). Most folders are not: os.access answers "no" without raising, for half the cost of isfile's stat."""
    return os.access(path, os.F_OK) and os.path.isfile(path)


def skills_dir_manifest(folder: str, name: str) -> str | None:
    """The manifest whose presence makes the user skill folder `name` (in `folder`, given with a trailing separator)
    a `@skills-dir` plugin (§3 step 7); None for a name never checked: hidden, or the reserved `synced`."""
    return None if name.startswith(".") or name == "synced" else folder + name + MANIFEST


def load_plugins(settings: Settings, diags: list[Diagnostic], skills_dir: bool = True) -> list[Plugin]:
    """Every plugin Claude Code knows of here, in `claude plugin list` order, with enablement resolved.
    `skills_dir`: False leaves out the `@skills-dir` plugins, for a caller that checks the user's skill folders
    itself (a big cold scan checks each with its SKILL.md, in two processes) and asks again when one is a plugin."""
    pdir = settings.paths.plugins_dir
    installed_path = os.path.join(pdir, "installed_plugins.json")
    installed, error, _ = read_json_file(installed_path, RECORDS_CAP)
    if error:
        diags.append(Diagnostic("error", "plugin-file-unreadable", installed_path, f"installed_plugins.json {error}",
                                fix="Reinstall the plugins or repair this file"))
    if installed is not None and not (isinstance(installed, dict) and isinstance(installed.get("plugins"), dict)):
        diags.append(Diagnostic("error", "plugin-file-unreadable", installed_path,
                                'installed_plugins.json is not an object with a "plugins" map; no plugin can load',
                                fix="Reinstall the plugins or repair this file"))
    records = _records(installed)
    known = _known_marketplaces(settings, diags)
    markets: dict[str, Marketplace] = {}

    plugins: list[Plugin] = []
    for pid in sorted(records):
        if not records[pid]:
            continue
        plugins.append(_marketplace_plugin(pid, records[pid], settings, known, markets, diags))

    # `@skills-dir` plugins: a skill folder of the user's that holds .claude-plugin/plugin.json (§3 step 7), in the
    # order the folder lists them (observed: Claude Code does not sort them).
    folder = os.path.join(settings.paths.config_dir, "skills")
    try:
        entries = os.listdir(folder) if skills_dir else []
    except OSError:
        entries = []
    # One check per user skill folder (string joins spare os.path.join's cost on thousands of names).
    prefix = os.path.join(folder, "")
    found = [n for n in entries if (m := skills_dir_manifest(prefix, n)) is not None and has_manifest(m)]
    for n in found:
        root = os.path.join(folder, n)
        plugin = Plugin(f"{n}@skills-dir", n, "skills-dir", scope="user", install_path=root, root=root,
                        marketplace_known=True, kind="skills-dir")
        plugin.manifest, plugin.manifest_error = _manifest(root, diags)
        version = plugin.manifest.get("version")
        plugin.version = version if isinstance(version, str) else None
        decide(plugin, settings)
        plugins.append(plugin)

    builtins = list(BUILTIN_PLUGINS) + (["cc-plugin-sec-default"] if has_managed_settings(settings) else [])
    for n in builtins:
        plugin = Plugin(f"{n}@builtin", n, "builtin", version="unknown", kind="builtin", marketplace_known=True,
                        scope="managed" if n == "cc-plugin-sec-default" else "user")
        decide(plugin, settings)
        plugins.append(plugin)

    for plugin in plugins:
        _plugin_diagnostics(plugin, settings, diags)
    for pid in settings.plugin_order():
        if pid not in records and not pid.endswith(("@skills-dir", "@builtin", "@inline")) and settings.decide(pid).value is True:
            src = settings.decide(pid).source
            diags.append(Diagnostic("error", "plugin-not-installed", src.path if src else None,
                                    f'enabledPlugins names "{pid}", which has no install record',
                                    fix=f"Install it (claude plugin install {pid}) or remove the entry"))
    return plugins


MANIFEST = os.sep + os.path.join(".claude-plugin", "plugin.json")  # after a user skill folder's path: `has_manifest`'s


def load_order(plugins: list[Plugin], settings: Settings) -> list[Plugin]:
    """The order plugin items reach the listing (§10.3): marketplace plugins in merged enabledPlugins key order
    (add-dir folders, user, project, local, flag, managed), then `@skills-dir` plugins as their folder lists them."""
    order = {pid: i for i, pid in enumerate(settings.plugin_order())}
    marketplace = sorted((p for p in plugins if p.kind == "marketplace"), key=lambda p: order.get(p.id, len(order)))
    return marketplace + [p for p in plugins if p.kind == "skills-dir"]


@dataclass(eq=False, repr=False)  # compared nowhere: no __eq__ to generate at every start
class ListRow(Record):
    """One row of `claude plugin list --json` (§10.7): one per install record, then skills-dir plugins, builtins."""

    id: str
    version: str | None
    scope: str | None
    enabled: bool
    install_path: str | None = None
    read_from_folder: str | None = None
    project_path: str | None = None
    notes: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    project_enabled: bool | None = None  # marketplace plugins only
    has_user_config: bool = False

    def to_json(self) -> dict[str, Any]:
        """Claude Code's keys (less installedAt/lastUpdated and the *Details objects)."""
        out: dict[str, Any] = {"id": self.id, "version": self.version, "scope": self.scope, "enabled": self.enabled}
        for key, value in (("installPath", self.install_path), ("readFromFolder", self.read_from_folder),
                           ("projectPath", self.project_path)):
            if value is not None:
                out[key] = value
        if self.notes:
            out["notes"] = list(self.notes)
        if self.errors:
            out["errors"] = list(self.errors)
        if self.project_enabled is not None:
            out["projectEnabled"] = self.project_enabled
        if self.has_user_config:
            out["hasUserConfig"] = True
        return out


_OWN_NOTE = "Read from the marketplace folder "  # skilltui's note; Claude Code says it with `readFromFolder`


def list_rows(plugins: list[Plugin], settings: Settings) -> list[ListRow]:
    """What `claude plugin list --json` prints for these plugins (after discovery filled in their notes).

    The list knows nothing of --add-dir, and a managed `false` does not make it print "enabled": false (observed);
    causes (errors) are given for the plugins it calls enabled.
    """
    rows: list[ListRow] = []
    scopes = ("flag", "local", "project", "user")
    for p in plugins:
        if p.kind == "builtin":
            rows.append(ListRow(p.id, "unknown", p.scope, True))
            continue
        # Observed: the list's "enabled" ranks managed settings last (a lower scope's true or false wins over them),
        # while its causes are those of the session, where managed settings rank first.
        if p.kind == "skills-dir":
            value = settings.decide(p.id, scopes).value
            if value is None:
                value = settings.decide(p.id, ("managed",)).value
            enabled = value is not False
        else:
            # Claude Code's editable-scopes map: only a true or a false counts, so a version list or an odd value
            # passes the word to the next scope down (local ["1.0.0"] over user true: enabled; seed 5, tree 3).
            values = (settings.decide(p.id, (scope,)).value for scope in (*scopes, "managed"))
            enabled = next((v for v in values if isinstance(v, bool)), None) is True
        # The ineffective-disable note is one of the load's notes: the list shows it only for a plugin it read (not
        # for a dotted name, whose download/cache it reports as failed; observed: seed 9, trees 3 and 14). The
        # plugin still loads, and the doctor still says so.
        notes = [n for n in p.notes if not n.startswith(_OWN_NOTE) and (list_loaded(p) or not n.startswith(_INEFFECTIVE))]
        errors = list(p.errors)
        user_config = "userConfig" in p.manifest and (list_loaded(p) or _list_reads_unloaded(p, settings))
        if p.kind == "skills-dir":
            rows.append(ListRow(p.id, p.version, p.scope, enabled, p.install_path, notes=notes, errors=errors,
                                has_user_config=user_config))
            continue
        for r in p.records:
            rows.append(ListRow(p.id, r.version, r.scope, enabled, r.install_path,
                                read_from_folder=p.read_from_folder, project_path=r.project_path,
                                notes=notes, errors=errors, project_enabled=p.project_enabled, has_user_config=user_config))
    return rows


def why_not_loaded(plugin: Plugin) -> str:
    """A plugin's first reason not to load, in the user's words."""
    reasons = {
        PluginBlock.NOT_ENABLED: "the plugin is not enabled",
        PluginBlock.MANAGED_OFF: "managed settings turn it off",
        PluginBlock.OTHER_PROJECT: "it is installed only for other projects",
        PluginBlock.MARKETPLACE_UNKNOWN: "its marketplace is not known",
        PluginBlock.MARKETPLACE_FAILED: "its marketplace's marketplace.json cannot be read",
        PluginBlock.NOT_IN_MARKETPLACE: "its marketplace no longer lists it",
        PluginBlock.MANIFEST_INVALID: "Claude Code rejects its plugin.json",
        PluginBlock.NO_FILES: "it has no folder to read",
    }
    return reasons.get(plugin.blocked, "the plugin is not enabled") if plugin.blocked else "it loads"


def _plugin_diagnostics(plugin: Plugin, settings: Settings, diags: list[Diagnostic]) -> None:
    where = plugin.decided_in
    if plugin.kind != "marketplace":
        return
    if plugin.blocked == PluginBlock.MARKETPLACE_UNKNOWN:
        diags.append(Diagnostic(
            "error", "plugin-marketplace-unknown", where,
            f'plugin "{plugin.id}" not loaded (hooks module, commands, skills, servers: none of it): its marketplace "{plugin.marketplace}" is not known here',
            fix=f"Add the marketplace: claude plugin marketplace add <source of {plugin.marketplace}>"))
    elif plugin.blocked in (PluginBlock.MARKETPLACE_FAILED, PluginBlock.NOT_IN_MARKETPLACE, PluginBlock.OTHER_PROJECT):
        fix = {PluginBlock.OTHER_PROJECT: f"Install it here: claude plugin install {plugin.id}",
               PluginBlock.MARKETPLACE_FAILED: f"Update the marketplace: claude plugin marketplace update {plugin.marketplace}"}
        diags.append(Diagnostic("warning", f"plugin-{plugin.blocked}", where,
                                f'plugin "{plugin.id}" does not load: {why_not_loaded(plugin)}',
                                fix=fix.get(plugin.blocked, f"Uninstall it (claude plugin uninstall {plugin.id}) or pick the plugin that replaced it")))
    if any("version list" in n for n in plugin.notes):
        diags.append(Diagnostic("error", "plugin-version-list", where,
                                f'enabledPlugins["{plugin.id}"] is a version list; the plugin is off',
                                fix=f"skilltui plugin enable {plugin.id}"))
    if any(n.startswith("Disabled in ~/.claude/settings.json") for n in plugin.notes):
        diags.append(Diagnostic("warning", "plugin-ineffective-disable", settings.paths.scope_file("user"),
                                f'"{plugin.id}" is disabled in user settings but {plugin.decided_by} settings enable it ({where})',
                                fix=f"skilltui plugin disable {plugin.id} --scope {plugin.decided_by}"))
    if not plugin.enabled and plugin.decided_by != "managed" and not any("version list" in n for n in plugin.notes):
        diags.append(Diagnostic("info", "plugin-disabled", where,
                                f'"{plugin.id}" is installed but not enabled'
                                + (f" ({plugin.decided_by} settings say false)" if where else " (no settings file mentions it)"),
                                fix=f"skilltui plugin enable {plugin.id}"))
    if plugin.decided_by == "managed" and settings.decide(plugin.id).value is False:
        diags.append(Diagnostic("info", "plugin-managed-off", where,
                                f'managed settings turn "{plugin.id}" off; no lower scope can enable it'))


# ---------------------------------------------------------------- components (§10.2, §10.3)
def _rel_paths(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    return []


def _inside(root: str, rel: str) -> str | None:
    """A manifest path resolved inside the plugin root, or None when it would leave it."""
    path = os.path.normpath(os.path.join(root, rel))
    real_root = os.path.realpath(root)
    if os.path.commonpath([os.path.realpath(path), real_root]) != real_root:
        return None
    return path


_NOT_SUFFIX = re.compile(r"[^A-Za-z0-9_-]")


def item_suffix(d: str) -> str:
    return _NOT_SUFFIX.sub("-", d)


def _item_prefix(plugin: Plugin) -> str:
    """The name a plugin's items carry: its plugin.json `name` when it has one (observed: `"name": "other"` in the
    manifest of demo@mkt labels its skills `other:…`), else the name in its id."""
    name = plugin.manifest.get("name")
    return name if isinstance(name, str) and name else plugin.name


def list_loaded(plugin: Plugin) -> bool:
    """Whether `claude plugin list` read the plugin's files (its load notes, hasUserConfig): it loads, and it is not
    one whose download/cache it reports as failed (a name with a dot, observed)."""
    if plugin.list_root is not None:  # read from the versioned cache when only its folder is missing (observed),
        # unless its plugin.json is broken: then no load notes either (observed: seed 25, tree 21)
        return plugin.blocked == PluginBlock.NO_FILES and plugin.list_manifest_error is None
    return plugin.loads and (plugin.read_from_folder is not None or bool(_CACHE_NAME.match(plugin.name)))


def _list_reads_unloaded(plugin: Plugin, settings: Settings) -> bool:
    """`claude plugin list` also reads the manifest of a plugin that does not load (its hasUserConfig shows; not its
    load notes) when some settings file turns it off with a false, or when its entry is a version list it notes,
    and nothing else stops it; one that other values name (a user version list, a string, null, a number, {}) or
    no settings name is not read (observed: disabled-plugin-read, seed 6 tree 5; list-reads-named-plugin, seed 7
    tree 19)."""
    # nothing stops it but a missing installPath with its versioned cache folder there (observed: seed 14, tree 9)
    cache_only = plugin.fixed_block == PluginBlock.NO_FILES and plugin.list_root is not None
    if plugin.kind != "marketplace" or (plugin.fixed_block is not None and not cache_only):
        return False
    if plugin.read_from_folder is None and not _CACHE_NAME.match(plugin.name):
        return False
    if any(n.startswith(_VERSION_LIST_NOTE) for n in plugin.notes):
        return True
    return any(settings.decide(plugin.id, (scope,)).value is False for scope in ("local", "project", "user", "managed"))


def skill_items(plugin: Plugin, diags: list[Diagnostic]) -> list[Item]:
    """Plugin skills: `skills/` plus every manifest `skills` path; `<plugin>:<dir>` names, in listing order."""
    root = plugin.root
    if not root:
        return []
    dirs = [os.path.join(root, "skills")] if os.path.isdir(os.path.join(root, "skills")) else []
    declared = plugin.manifest.get("skills")
    if not dirs and declared in (None, False, 0, "") and _file_stat(os.path.join(root, "SKILL.md")) is not None:
        # No skills/ folder and no manifest `skills`: Claude Code takes a SKILL.md at the root as the plugin's skill,
        # as if the manifest said "./" (observed: seed 5, tree 14; recorded root-skill-implicit).
        dirs.append(root)
    for rel in _rel_paths(declared):
        path = _inside(root, rel)
        if path is None:
            diags.append(Diagnostic("error", "plugin-path-escapes", os.path.join(root, ".claude-plugin", "plugin.json"),
                                    f'skills path "{rel}" leaves the plugin folder; ignored'))
        elif path not in dirs:
            dirs.append(path)
    items: list[Item] = []
    for d in dirs:  # folder by folder, `skills/` first, then the manifest's paths in order (observed)
        skill_md = os.path.join(d, "SKILL.md")
        st = _file_stat(skill_md)
        if st is not None:  # a path naming a skill folder itself (or the plugin root, `./`)
            is_root = os.path.normpath(d) == os.path.normpath(root)
            name = f"{_item_prefix(plugin)}:{item_suffix(os.path.basename(d))}"
            items.append(Item("skill", name, skill_md, d, d, named_by_frontmatter=is_root, st=st))
            continue
        try:
            entries = sorted(os.listdir(d))
        except OSError:
            continue
        found: list[Item] = []
        for e in entries:
            folder = os.path.join(d, e)
            path = os.path.join(folder, "SKILL.md")
            st = _file_stat(path)
            if st is not None:
                found.append(Item("skill", f"{_item_prefix(plugin)}:{item_suffix(e)}", path, d, folder, st=st))
        collate(found, lambda i: i.name)  # ICU order within a folder
        items += found
    return items


def _file_stat(path: str) -> os.stat_result | None:
    """`os.path.isfile`, keeping the stat it takes."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return st if stat.S_ISREG(st.st_mode) else None


_COMMANDS_NOTE = 'Default commands/ folder is ignored because the manifest sets "commands"'


def command_items(plugin: Plugin, diags: list[Diagnostic]) -> list[Item]:
    """Plugin commands in load order: `commands/` unless the manifest sets `commands`, else the manifest's entries
    (object form, then paths in order); a file reached twice (by its real path) counts once, where first met."""
    root = plugin.root
    if not root:
        return []
    declared = plugin.manifest.get("commands")
    prefix = _item_prefix(plugin) + ":"
    claimed: set[str] = set()
    if declared is None:
        return walk_plugin_commands(os.path.join(root, "commands"), prefix, claimed, diags)
    items: list[Item] = []
    if isinstance(declared, dict):  # name -> {source, description, ...}
        for name, spec in declared.items():
            source = spec.get("source") if isinstance(spec, dict) else None
            path = _inside(root, source) if isinstance(source, str) else None
            if path and os.path.isfile(path) and _claim(os.path.realpath(path), claimed):
                items.append(Item("command", f"{prefix}{name}", path, root, os.path.dirname(path)))
    for rel in _rel_paths(declared):
        path = _inside(root, rel)
        if path and os.path.isdir(path):
            items.extend(walk_plugin_commands(path, prefix, claimed, diags))
        elif path and os.path.isfile(path) and path.endswith(".md") and _claim(os.path.realpath(path), claimed):
            stem = os.path.basename(path)[:-3]
            items.append(Item("command", f"{prefix}{stem}", path, os.path.dirname(path), os.path.dirname(path)))
    return items


def _claim(real: str, claimed: set[str]) -> bool:
    """False when this real path was already taken by an earlier commands path of the plugin. (Claude Code reads its
    manifest paths concurrently, so for overlapping paths the winner is a race; manifest order is the usual one.)"""
    if real in claimed:
        return False
    claimed.add(real)
    return True


_SKILL_FILE = re.compile(r"skill\.md", re.IGNORECASE)
_PLUGIN_WALK_DEPTH = 32  # Claude Code skips a folder this many levels below the commands root (and deeper)
_PLUGIN_WALK_DIRS = 4096  # ... and stops after reading this many folders


def _node_path(path: str) -> str:
    """The path as Node decodes it (bytes that are not UTF-8 become U+FFFD), for sorting as JavaScript does."""
    return path if path.isascii() else path.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _skipped_folder(name: str) -> bool:
    """Claude Code never walks its bundle cache folder (`.mcpb-cache`, any case, trailing dots or spaces; observed)."""
    return name.lower().rstrip(". ") == ".mcpb-cache"



def _unreadable_commands(diags: list[Diagnostic] | None, folder: str, exc: OSError | ValueError) -> None:
    if diags is not None and not isinstance(exc, FileNotFoundError):
        diags.append(Diagnostic("error", "claude-dir-unreadable", folder,
                                f"cannot read this commands folder: {getattr(exc, 'strerror', None) or exc}",
                                fix="Give your user read and execute permission on the folder"))

def walk_plugin_commands(top: str, prefix: str, claimed: set[str], diags: list[Diagnostic] | None = None) -> list[Item]:
    """A plugin's commands folder as Claude Code 2.1.332 reads it (observed, and its loader's walk):

    - only real folders and files: links are skipped, hidden folders are walked, `*.md` matches in any case;
    - a folder holding a file named SKILL.md (any case), the root too, gives its `.md` files only, no sub-folders;
    - all files are sorted by path (ICU), then grouped by folder in the order each folder first appears: the files of
      one folder stay together (`b`, `zz`, then `A:d`, when `_x.md` sorts before `A/d.md`), and a folder's SKILL.md
      files leave one entry, the first in that order (`skill.md` before `SKILL.md`), named by its folder;
    - names: sub-folders joined with `:`, then the file name less a lower-case `.md` (`X.MD` stays `X.MD`); the
      root's own SKILL.md is named by the root folder (`p:commands`).
    """
    found: list[str] = []
    stack: list[tuple[str, int]] = [(top, 0)]
    read = 0
    while stack and len(found) < MAX_COMMAND_FILES:
        d, depth = stack.pop()
        if depth >= _PLUGIN_WALK_DEPTH:
            continue
        read += 1
        if read > _PLUGIN_WALK_DIRS:
            break
        try:
            with os.scandir(d) as it:
                entries = list(it)
        except (OSError, ValueError) as exc:
            _unreadable_commands(diags, d, exc)
            continue
        files = [e for e in entries if _plain_file(e) and e.name.lower().endswith(".md")]
        if any(_SKILL_FILE.fullmatch(e.name) for e in files):
            found.extend(e.path for e in files)
            continue
        found.extend(e.path for e in files)
        stack.extend((e.path, depth + 1) for e in entries if _plain_dir(e) and not _skipped_folder(e.name))
    real_top = os.path.realpath(top)  # no link below top is followed: a file's real path is real_top + the rest
    found = [f for f in found if _claim(real_top + f[len(top):], claimed)]
    collate(found, _node_path)
    groups: dict[str, list[str]] = {}
    for f in found:
        groups.setdefault(os.path.dirname(f), []).append(f)
    items: list[Item] = []
    for d, paths in groups.items():
        skill = next((f for f in paths if _SKILL_FILE.fullmatch(os.path.basename(f))), None)
        if skill is not None:
            parent = os.path.dirname(d)
            parts = _rel_parts(top, parent) if parent.startswith(top) else []
            items.append(Item("command", prefix + ":".join([*parts, os.path.basename(d)]), skill, top, d))
            continue
        parts = _rel_parts(top, d)
        for f in paths:
            base = os.path.basename(f)
            stem = base[:-3] if base.endswith(".md") else base
            items.append(Item("command", prefix + ":".join([*parts, stem]), f, top, d))
    return items


def _rel_parts(top: str, d: str) -> list[str]:
    rel = d[len(top):].lstrip(os.sep)
    return rel.split(os.sep) if rel else []


def _plain_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def _plain_file(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_file(follow_symlinks=False)
    except OSError:
        return False


def walk_commands(top: str, prefix: str = "", diags: list[Diagnostic] | None = None) -> list[Item]:
    """Every `*.md` below a legacy commands root (links followed, hidden folders included, loops skipped, §2.2); a
    plugin's commands folder is read otherwise (walk_plugin_commands).

    Names join sub-folders with `:`; a folder holding SKILL.md (any case) is one entry named by its folder, and the
    other .md files directly in it are not entries.
    Iterative, so a tree thousands of levels deep cannot exhaust the stack.
    """
    items: list[Item] = []
    visited: set[str] = set()
    stack: list[tuple[str, list[str]]] = [(top, [])]
    while stack and len(items) < MAX_COMMAND_FILES:
        if len(visited) >= MAX_WALK_DIRS:
            break
        d, parts = stack.pop()
        try:
            real = os.path.realpath(d)
            if real in visited:
                continue
            visited.add(real)
            with os.scandir(d) as it:
                entries = sorted(it, key=lambda e: e.name)
        except (OSError, ValueError) as exc:
            _unreadable_commands(diags, d, exc)
            continue
        skill_md = next((e for e in entries if e.name.lower() == "skill.md" and parts and _is_file(e)), None)
        if skill_md is not None:  # its sibling .md files are not commands, its sub-folders are walked (observed)
            items.append(Item("command", prefix + ":".join(parts), skill_md.path, top, d))
        subdirs = []
        for e in entries:
            if _is_dir(e):
                subdirs.append((e.path, parts + [e.name]))
            elif skill_md is None and e.name.endswith(".md") and _is_file(e):
                items.append(Item("command", prefix + ":".join(parts + [e.name[:-3]]), e.path, top, d))
        stack.extend(reversed(subdirs))  # depth first, in name order
    if stack and diags is not None:  # stopped by a cap: say so, the rest is not shown
        what = f"{MAX_WALK_DIRS:,} folders" if len(visited) >= MAX_WALK_DIRS else f"{MAX_COMMAND_FILES:,} files"
        diags.append(Diagnostic("warning", "claude-walk-capped", top,
                                f"stopped after {what} below this commands folder (a link to / or a huge tree?); "
                                "what lies beyond is not shown, though Claude Code may read it",
                                fix="Replace links that lead to large folders with the files meant"))
    return items


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def _is_file(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_file()
    except OSError:
        return False
