"""Claude Code plugins (spec/claude-code.md §10): install records, marketplaces, manifests, enablement, components."""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass

from skilltui.model import Diagnostic, Plugin
from skilltui.runtimes.claude.settings import (
    Settings,
    has_managed_settings,
    read_json_file,
)
from skilltui.text import collation_key

PLUGIN_ID = re.compile(r"^[A-Za-z0-9][-A-Za-z0-9._]*@[A-Za-z0-9][-A-Za-z0-9._]*$")
BUILTIN_PLUGINS = ("cc-plugin-agents-md", "cc-plugin-plugin-authoring", "cc-plugin-privacy")
MAX_COMMAND_FILES = 10_000  # per plugin or commands root: a bound on hostile trees


@dataclass
class Item:
    """One skill or command file a plugin (or a legacy commands root) contributes, before parsing."""

    kind: str  # skill | command
    name: str
    path: str
    root: str  # the folder it was found under
    skill_dir: str
    named_by_frontmatter: bool = False  # a root-level SKILL.md (`skills: ["./"]`) is named by its frontmatter
    st: os.stat_result | None = None  # the file's stat when finding it took one (spares the reader a second)


def _records(installed) -> dict[str, list[dict]]:
    """installed_plugins.json, version 2 or 1 (converted), keys not matching the id pattern set aside."""
    if not isinstance(installed, dict) or not isinstance(installed.get("plugins"), dict):
        return {}
    out: dict[str, list[dict]] = {}
    for key, value in installed["plugins"].items():
        if not PLUGIN_ID.match(key):
            continue
        if installed.get("version") == 1 and isinstance(value, dict):
            value = [dict(value, scope=value.get("scope", "user"))]
        if isinstance(value, list):
            out[key] = [r for r in value if isinstance(r, dict)]
    return out


def _applies(record: dict, settings: Settings) -> bool:
    if record.get("scope") in ("project", "local"):
        project = record.get("projectPath")
        here = {settings.paths.cwd, settings.paths.local_root}
        return isinstance(project, str) and os.path.abspath(project) in here
    return True


def _known_marketplaces(settings: Settings, diags: list[Diagnostic]) -> dict[str, dict]:
    path = os.path.join(settings.paths.plugins_dir, "known_marketplaces.json")
    data, error, exists = read_json_file(path)
    if error:
        diags.append(Diagnostic("warning", "plugin-file-unreadable", path, f"known_marketplaces.json {error}"))
    known = {k: v for k, v in data.items() if isinstance(v, dict)} if isinstance(data, dict) else {}
    for src in settings.sources:  # directory/file marketplaces declared in settings are known too
        extra = src.data.get("extraKnownMarketplaces")
        if isinstance(extra, dict):
            for name, entry in extra.items():
                source = entry.get("source") if isinstance(entry, dict) else None
                if isinstance(source, dict) and source.get("source") in ("directory", "file") and name not in known:
                    known[name] = {"source": source, "fromSettings": src.path}
    return known


def _marketplace_root(entry: dict) -> str | None:
    source = entry.get("source") if isinstance(entry.get("source"), dict) else {}
    if source.get("source") == "directory" and isinstance(source.get("path"), str):
        return source["path"]
    return None


def _plugin_root_in_marketplace(market_dir: str, name: str) -> str | None:
    """For a `directory` marketplace the plugin is read from the marketplace folder (its entry's `source`)."""
    data, _, _ = read_json_file(os.path.join(market_dir, ".claude-plugin", "marketplace.json"))
    plugins = data.get("plugins") if isinstance(data, dict) else None
    for entry in plugins if isinstance(plugins, list) else []:
        if isinstance(entry, dict) and entry.get("name") == name and isinstance(entry.get("source"), str):
            root = os.path.normpath(os.path.join(market_dir, entry["source"]))
            if os.path.commonpath([root, os.path.normpath(market_dir)]) == os.path.normpath(market_dir):
                return root
    return None


def _manifest(root: str | None, diags: list[Diagnostic]) -> dict:
    if not root:
        return {}
    path = os.path.join(root, ".claude-plugin", "plugin.json")
    data, error, exists = read_json_file(path, cap=1_000_000)
    if error:
        diags.append(Diagnostic("warning", "plugin-manifest-invalid", path, f"plugin.json {error}",
                                fix="Fix the JSON of this plugin.json"))
    return data if isinstance(data, dict) else {}


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
        plugin.notes.append("Not enabled because its enabledPlugins entry is a version list. Only the value true turns on a marketplace plugin")
    user = settings.decide(plugin.id, ("user",)).value
    if user is False and plugin.enabled and src is not None and src.scope != "user":
        plugin.notes.append(
            f"Disabled in ~/.claude/settings.json but still loads — {src.scope} settings enable it, which overrides your user setting"
        )
    plugin.project_enabled = settings.decide(plugin.id, ("project",)).value is True


def load_plugins(settings: Settings, diags: list[Diagnostic]) -> list[Plugin]:
    """Every plugin Claude Code knows of here, in `claude plugin list` order, with enablement resolved."""
    pdir = settings.paths.plugins_dir
    installed_path = os.path.join(pdir, "installed_plugins.json")
    installed, error, _ = read_json_file(installed_path)
    if error:
        diags.append(Diagnostic("error", "plugin-file-unreadable", installed_path, f"installed_plugins.json {error}",
                                fix="Reinstall the plugins or repair this file"))
    if installed is not None and not (isinstance(installed, dict) and isinstance(installed.get("plugins"), dict)):
        diags.append(Diagnostic("error", "plugin-file-unreadable", installed_path,
                                'installed_plugins.json is not an object with a "plugins" map; no plugin can load',
                                fix="Reinstall the plugins or repair this file"))
    records = _records(installed)
    known = _known_marketplaces(settings, diags)
    managed_off = {
        k for k, v in ((k, settings.decide(k, ("managed",)).value) for k in records) if v is False
    }

    plugins: list[Plugin] = []
    for pid in sorted(records):
        applicable = [r for r in records[pid] if _applies(r, settings)]
        if not applicable:
            continue
        rec = applicable[0]
        name, market = pid.split("@", 1)
        install_path = rec.get("installPath") if isinstance(rec.get("installPath"), str) else None
        plugin = Plugin(pid, name, market, version=rec.get("version") if isinstance(rec.get("version"), str) else None,
                        scope=rec.get("scope"), install_path=install_path, root=install_path)
        plugin.marketplace_known = market in known
        market_dir = _marketplace_root(known.get(market, {}))
        if market_dir:
            plugin.root = _plugin_root_in_marketplace(market_dir, name) or install_path
            plugin.notes.append(f"Read from the marketplace folder {plugin.root}")
        apply_enablement(plugin, settings)
        if not plugin.marketplace_known:
            plugin.errors.append(f"Marketplace {market} not found")
        plugin.manifest = _manifest(plugin.root, diags)
        plugin.loads = plugin.enabled and plugin.marketplace_known and pid not in managed_off and bool(plugin.root)
        plugins.append(plugin)

    # `@skills-dir` plugins: a skill folder of the user's that holds .claude-plugin/plugin.json (§3 step 7).
    skills_dir = os.path.join(settings.paths.config_dir, "skills")
    try:
        entries = os.listdir(skills_dir)
    except OSError:
        entries = []
    # One check per user skill folder, most of which are not plugins: os.access answers "no" without raising, for
    # half the cost of the stat behind isfile; string joins spare os.path.join's cost on thousands of names.
    prefix, manifest = os.path.join(skills_dir, ""), os.sep + os.path.join(".claude-plugin", "plugin.json")
    found = [n for n in entries if not n.startswith(".") and n != "synced"
             and os.access(prefix + n + manifest, os.F_OK) and os.path.isfile(prefix + n + manifest)]
    for n in sorted(found, key=collation_key):
        root = os.path.join(skills_dir, n)
        plugin = Plugin(f"{n}@skills-dir", n, "skills-dir", scope="user", install_path=root, root=root,
                        marketplace_known=True, kind="skills-dir")
        plugin.manifest = _manifest(root, diags)
        version = plugin.manifest.get("version")
        plugin.version = version if isinstance(version, str) else None
        apply_enablement(plugin, settings)
        plugin.loads = plugin.enabled
        plugins.append(plugin)

    builtins = list(BUILTIN_PLUGINS) + (["cc-plugin-sec-default"] if has_managed_settings(settings) else [])
    for n in builtins:
        plugin = Plugin(f"{n}@builtin", n, "builtin", version="unknown", kind="builtin", marketplace_known=True,
                        scope="managed" if n == "cc-plugin-sec-default" else "user")
        apply_enablement(plugin, settings)
        plugin.loads = plugin.enabled
        plugins.append(plugin)

    for plugin in plugins:
        _plugin_diagnostics(plugin, settings, records, diags)
    for pid in settings.plugin_order():
        if pid not in records and not pid.endswith(("@skills-dir", "@builtin", "@inline")) and settings.decide(pid).value is True:
            src = settings.decide(pid).source
            diags.append(Diagnostic("warning", "plugin-not-installed", src.path if src else None,
                                    f'enabledPlugins names "{pid}", which has no install record',
                                    fix=f"Install it (claude plugin install {pid}) or remove the entry"))
    return plugins


def _plugin_diagnostics(plugin: Plugin, settings: Settings, records, diags: list[Diagnostic]) -> None:
    where = plugin.decided_in
    if plugin.kind != "marketplace":
        return
    if plugin.enabled and not plugin.marketplace_known:
        diags.append(Diagnostic(
            "error", "plugin-marketplace-unknown", where,
            f'plugin "{plugin.id}" not loaded (hooks module, commands, skills, servers: none of it): its marketplace "{plugin.marketplace}" is not known here',
            fix=f"Add the marketplace: claude plugin marketplace add <source of {plugin.marketplace}>"))
    if any("version list" in n for n in plugin.notes):
        diags.append(Diagnostic("warning", "plugin-version-list", where,
                                f'enabledPlugins["{plugin.id}"] is a version list; the plugin is off',
                                fix=f"skilltui plugin enable {plugin.id}"))
    if any(n.startswith("Disabled in ~/.claude/settings.json") for n in plugin.notes):
        diags.append(Diagnostic("info", "plugin-ineffective-disable", settings.paths.scope_file("user"),
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
def _rel_paths(value) -> list[str]:
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


def skill_items(plugin: Plugin, diags: list[Diagnostic]) -> list[Item]:
    """Plugin skills: `skills/` plus every manifest `skills` path; `<plugin>:<dir>` names, ICU order."""
    root = plugin.root
    if not root:
        return []
    dirs = [os.path.join(root, "skills")] if os.path.isdir(os.path.join(root, "skills")) else []
    for rel in _rel_paths(plugin.manifest.get("skills")):
        path = _inside(root, rel)
        if path is None:
            diags.append(Diagnostic("warning", "plugin-path-escapes", os.path.join(root, ".claude-plugin", "plugin.json"),
                                    f'skills path "{rel}" leaves the plugin folder; ignored'))
        elif path not in dirs:
            dirs.append(path)
    items: list[Item] = []
    for d in dirs:
        skill_md = os.path.join(d, "SKILL.md")
        st = _file_stat(skill_md)
        if st is not None:  # a path naming a skill folder itself (or the plugin root, `./`)
            is_root = os.path.normpath(d) == os.path.normpath(root)
            name = f"{plugin.name}:{item_suffix(os.path.basename(d))}"
            items.append(Item("skill", name, skill_md, d, d, named_by_frontmatter=is_root, st=st))
            continue
        try:
            entries = sorted(os.listdir(d))
        except OSError:
            continue
        for e in entries:
            folder = os.path.join(d, e)
            path = os.path.join(folder, "SKILL.md")
            st = _file_stat(path)
            if st is not None:
                items.append(Item("skill", f"{plugin.name}:{item_suffix(e)}", path, d, folder, st=st))
    return items


def _file_stat(path: str) -> os.stat_result | None:
    """`os.path.isfile`, keeping the stat it takes."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return st if stat.S_ISREG(st.st_mode) else None


def command_items(plugin: Plugin, diags: list[Diagnostic]) -> list[Item]:
    """Plugin commands: `commands/`, unless the manifest sets `commands` (then only those)."""
    root = plugin.root
    if not root:
        return []
    declared = plugin.manifest.get("commands")
    items: list[Item] = []
    if declared is None:
        return walk_commands(os.path.join(root, "commands"), prefix=plugin.name + ":")
    if os.path.isdir(os.path.join(root, "commands")):
        plugin.notes.append('Default commands/ folder is ignored because the manifest sets "commands"')
    rels = _rel_paths(declared)
    if isinstance(declared, dict):  # name -> {source, description, ...}
        for name, spec in declared.items():
            source = spec.get("source") if isinstance(spec, dict) else None
            path = _inside(root, source) if isinstance(source, str) else None
            if path and os.path.isfile(path):
                items.append(Item("command", f"{plugin.name}:{name}", path, root, os.path.dirname(path)))
    for rel in rels:
        path = _inside(root, rel)
        if path and os.path.isdir(path):
            items.extend(walk_commands(path, prefix=plugin.name + ":"))
        elif path and os.path.isfile(path) and path.endswith(".md"):
            stem = os.path.basename(path)[:-3]
            items.append(Item("command", f"{plugin.name}:{stem}", path, os.path.dirname(path), os.path.dirname(path)))
    return items


def walk_commands(top: str, prefix: str = "", diags: list[Diagnostic] | None = None) -> list[Item]:
    """Every `*.md` below a commands root (links followed, hidden folders included, loops skipped, §2.2).

    Names join sub-folders with `:`; a folder holding SKILL.md (any case) is one entry named by its folder, and the
    other .md files directly in it are not entries.
    Iterative, so a tree thousands of levels deep cannot exhaust the stack.
    """
    items: list[Item] = []
    visited: set[str] = set()
    stack: list[tuple[str, list[str]]] = [(top, [])]
    while stack and len(items) < MAX_COMMAND_FILES:
        d, parts = stack.pop()
        try:
            real = os.path.realpath(d)
            if real in visited:
                continue
            visited.add(real)
            with os.scandir(d) as it:
                entries = sorted(it, key=lambda e: e.name)
        except (OSError, ValueError) as exc:
            if diags is not None and not isinstance(exc, FileNotFoundError):
                diags.append(Diagnostic("warning", "claude-dir-unreadable", d,
                                        f"cannot read this commands folder: {getattr(exc, 'strerror', None) or exc}",
                                        fix="Give your user read and execute permission on the folder"))
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
    return items


def _is_dir(entry: os.DirEntry) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def _is_file(entry: os.DirEntry) -> bool:
    try:
        return entry.is_file()
    except OSError:
        return False
