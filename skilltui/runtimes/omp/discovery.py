"""oh-my-pi (omp, and the xcsh fork): skill discovery as omp 18.3.4 does it, and the 14.x rule set (spec/omp.md).

Public API:
    NAME, VERSION, VERSIONS
    discover(opts) -> Catalog                 every SKILL.md found, its fate, omp's own JSON in catalog.facts
    skill_list_json(catalog) -> SkillListJson exactly what `omp skill list --json` prints (§9)
    skill_list_text(catalog) -> (stdout, stderr)
    prompt_entries(catalog) -> [(name, description as the model sees it)]
    system_prompt(catalog, ...) -> str        the skills section of the system prompt (§7)
    render_system_prompt(entries, rules, ...) -> str   the same, from plain (name, description) pairs
    resolve_url(catalog, url) -> str         `skill://name/relpath` → a path, or SkillUrlError with omp's text (§8)
    resolve_url_info(catalog, url) -> UrlTarget   path, kind (file|directory), content_type

Discovery never writes and never raises on bad input: unreadable folders, loops, dangling links, binary files and
broken settings become diagnostics and dimmed rows.
"""

from __future__ import annotations

import errno
import os
import posixpath
import re
import stat as stat_mod
from dataclasses import dataclass, field
from typing import Literal, TypedDict
from urllib.parse import unquote_to_bytes

from skilltui import refs
from skilltui.frontmatter import key_line, read_text
from skilltui.model import (
    DISABLED,
    FILTERED,
    HIDDEN,
    INVALID,
    LISTED,
    SHADOWED,
    Catalog,
    CatalogFacts,
    Diagnostic,
    Frontmatter,
    Options,
    Severity,
    Skill,
    SkillFacts,
    StatusValue,
)
from skilltui.record import Record
from skilltui.runtimes.omp import plugins as plug
from skilltui.runtimes.omp.settings import load_settings
from skilltui.runtimes.omp.text import (
    glob_match,
    is_valid_managed_name,
    js_sort_key,
    js_trim,
    js_truthy,
    parse_omp_frontmatter,
    preview_description,
    sanitize_managed_description,
)

NAME = "omp"
VERSION = "18.3.4"
VERSIONS = {"18": "18.3.4", "14": "14.x"}
READ_CAP = 1_000_000
NESTED_SCAN_BUDGET = 20_000  # directories looked at (per discovery) for SKILL.md files omp will not find

# (id, priority, display name) in registration order; insertion keeps equal priorities in this order.
PROVIDERS_18 = [
    ("native", 100, "OMP"),
    ("skillshare", 95, "Skillshare"),
    ("omp-plugins", 90, "OMP Extension Packages"),
    ("claude", 80, "Claude Code"),
    ("agent-plugins", 75, "Agent Plugins"),
    ("claude-plugins", 70, "Claude Code Marketplace"),
    ("agents", 70, "Agent Dirs (.agent/.agents)"),
    ("codex", 70, "OpenAI Codex"),
    ("opencode", 55, "OpenCode"),
    ("github", 30, "GitHub Copilot"),
    ("omp-managed", 5, "Managed Skills (auto-learn)"),
]
PROVIDERS_14 = [p for p in PROVIDERS_18 if p[0] in ("native", "claude", "claude-plugins", "agents", "codex")]
NOT_MODELLED = ("agent-plugins",)  # agent-plugins.org packages: not read by skilltui
REQUIRES_DESCRIPTION = {"native", "github", "omp-plugins", "omp-managed", "custom"}


# ---------------------------------------------------------------- omp's own JSON (`omp skill list --json`, §9)
class OmpSkill(TypedDict):
    name: str
    description: str
    filePath: str
    baseDir: str
    source: str
    hide: bool


class OmpWarning(TypedDict):
    skillPath: str
    message: str


class SkillListJson(TypedDict):
    skills: list[OmpSkill]
    warnings: list[OmpWarning]


# ---------------------------------------------------------------- candidates
@dataclass(repr=False)
class _Cand(Record):
    name: str
    path: str  # SKILL.md as omp spells it
    io_path: str  # absolute, for file access
    root: str  # the skills folder it was found in
    provider: str
    level: str
    seq: int
    fm: Frontmatter | None = None
    loadable: bool = False  # reached omp's result list (read, enabled, description where required)
    status: StatusValue = LISTED
    reason: str | None = None
    winner: _Cand | None = None
    plugin: str | None = None
    plugin_root: str | None = None
    realpath: str | None = None
    description: str = ""
    hide: bool = False
    package: str | None = None  # a skillshare skill's `@scope/name@version`
    # why a shadowed candidate lost, when it is not the plain first-name-wins rule
    duplicate_file: bool = False  # its real file was already loaded under another path
    replaced_by_custom: bool = False  # omp 18: a custom-directory skill of the same name replaced it
    collision: bool = False  # a custom-directory skill whose name was taken (omp warns)

    @property
    def source(self) -> str:
        return f"{self.provider}:{self.level}"

    @property
    def base_dir(self) -> str:
        return re.sub(r"[\\/]SKILL\.md$", "", self.path)


def _js_join(*parts: str) -> str:
    """Node's `path.join`: join and normalise (a leading `//` collapses too)."""
    joined = posixpath.normpath(posixpath.join(*parts)) if parts else "."
    if joined.startswith("//"):
        joined = "/" + joined.lstrip("/")
    return joined


_ERRNO_TEXT = {
    errno.EACCES: "permission denied",
    errno.EPERM: "operation not permitted",
    errno.ENOTDIR: "not a directory",
    errno.ELOOP: "too many symbolic links encountered",
    errno.EIO: "i/o error",
    errno.ENAMETOOLONG: "name too long",
    errno.EMFILE: "too many open files",
    errno.ENOENT: "no such file or directory",
}


def _js_error(exc: OSError, syscall: str, path: str) -> str:
    code = errno.errorcode.get(exc.errno or 0, "EIO")
    text = _ERRNO_TEXT.get(exc.errno or 0, (exc.strerror or "unknown error").lower())
    return f"Error: {code}: {text}, {syscall} '{path}'"


class _Ctx:
    def __init__(self, opts: Options):
        self.opts = opts
        self.rules = "14" if str(opts.omp_rules) == "14" else "18"
        self.native = opts.native_dir or ".omp"
        self.env = opts.env if opts.env is not None else {}  # not a copy: the answer cache notes each read
        self.diags: list[Diagnostic] = []
        self.rows: list[_Cand] = []
        self.seq = 0
        self.provider_warnings: dict[str, list[str]] = {}
        self.plugin_roots: list[plug.PluginRoot] = []
        self.nested_budget = NESTED_SCAN_BUDGET
        self.home = os.path.abspath(opts.home) if opts.home else os.path.abspath(os.path.expanduser("~"))
        cwd = os.path.abspath(opts.cwd or ".")
        try:  # the process's working directory is physical (getcwd), as omp sees it
            cwd = os.path.realpath(cwd, strict=True)
        except (OSError, RuntimeError, ValueError):
            pass
        self.cwd = cwd
        self.cfg_name = self.env.get("PI_CONFIG_DIR") or self.native
        self.app = self.native.lstrip(".") or "omp"
        self.agent_dir = self._agent_dir()
        self.claude_cfg = self._claude_cfg()
        self.repo_root = self._find_repo_root()
        stop = self.repo_root or self.home
        self.walk = []
        d = self.cwd
        while True:
            self.walk.append(d)
            if d == stop:
                break
            parent = os.path.dirname(d)
            if parent == d:
                break
            d = parent

    def _agent_dir(self) -> str:
        override = self.env.get("PI_CODING_AGENT_DIR")
        if override:
            return os.path.normpath(os.path.join(self.cwd, override))
        profile_raw = self.env["OMP_PROFILE"] if "OMP_PROFILE" in self.env else self.env.get("PI_PROFILE")
        profile = (profile_raw or "").strip()
        if profile == "default":
            profile = ""
        if profile and (not re.fullmatch(r"[a-z0-9][a-z0-9._-]{0,63}", profile) or profile.endswith(".")
                        or re.fullmatch(r"(?i)(?:CON|PRN|AUX|NUL|COM[0-9]|LPT[0-9])(?:\..*)?", profile)):
            self.diags.append(Diagnostic("error", "omp-profile-invalid", None,
                                         f'Invalid OMP profile "{profile_raw}": omp stops with this error and '
                                         f"loads no skill"))
            profile = ""
        root = os.path.join(self.home, self.cfg_name)
        if profile:
            return os.path.join(root, "profiles", profile, "agent")
        return os.path.join(root, "agent")

    def _claude_cfg(self) -> str:
        if self.rules == "18":
            value = (self.env.get("CLAUDE_CONFIG_DIR") or "").strip()
            if value:
                return os.path.normpath(os.path.join(self.cwd, plug.expand_tilde(value, self.home)))
        return os.path.join(self.home, ".claude")

    def _find_repo_root(self) -> str | None:
        d = self.cwd
        while True:
            try:
                if ".git" in os.listdir(d):
                    return d
            except OSError:
                pass
            parent = os.path.dirname(d)
            if parent == d:
                return None
            d = parent

    def io(self, p: str) -> str:
        return p if os.path.isabs(p) else os.path.normpath(os.path.join(self.cwd, p))

    def warn(self, provider: str, message: str) -> None:
        self.provider_warnings.setdefault(provider, []).append(message)

    def new_row(self, name: str, path: str, io_path: str, root: str, provider: str, level: str, *,
                fm: Frontmatter | None = None, plugin: str | None = None, plugin_root: str | None = None) -> _Cand:
        self.seq += 1
        cand = _Cand(name, path, io_path, root, provider, level, self.seq, fm, plugin=plugin, plugin_root=plugin_root)
        self.rows.append(cand)
        return cand


# ---------------------------------------------------------------- scanning one skills folder (§3)
def _scan(ctx: _Ctx, dir_path: str, provider: str, level: str, *, include_self: bool = False,
          plugin: plug.PluginRoot | None = None, warn_to: list[str] | None = None,
          name_prefix: str = "") -> list[_Cand]:
    require_desc = provider in REQUIRES_DESCRIPTION
    io_dir = ctx.io(dir_path)
    warnings = warn_to if warn_to is not None else ctx.provider_warnings.setdefault(provider, [])
    try:
        with os.scandir(io_dir) as it:
            entries = list(it)
    except FileNotFoundError:
        return []
    except OSError as exc:
        if exc.errno == errno.ENOENT:
            return []
        msg = f"Failed to read skills directory: {dir_path} ({_js_error(exc, 'scandir', io_dir)})"
        warnings.append(msg)
        ctx.diags.append(Diagnostic("error", "omp-read-failed", dir_path, msg))
        return []
    entries.sort(key=lambda e: e.name.encode("utf-16-be", "surrogatepass"))
    candidates: list[tuple[str, str]] = []  # (SKILL.md as omp spells it, folder name used as fallback name)
    if include_self:
        candidates.append((_js_join(dir_path, "SKILL.md"), os.path.basename(os.path.normpath(dir_path))))
    for entry in entries:
        name = entry.name
        try:
            is_link = entry.is_symlink()
            is_dir = entry.is_dir(follow_symlinks=False)
        except OSError:
            continue
        if re.search("[\udc80-\udcff]", name):
            # Node decodes folder names as UTF-8 (lossily): omp then asks for a path that does not exist.
            ctx.diags.append(Diagnostic("error", "omp-undecodable-name", os.path.join(io_dir, name),
                                        "folder name is not valid UTF-8: omp cannot open it and finds no skill here"))
            continue
        if name.startswith("."):
            if (is_dir or is_link) and os.path.lexists(os.path.join(io_dir, name, "SKILL.md")):
                ctx.diags.append(Diagnostic("info", "omp-hidden-ignored", os.path.join(io_dir, name, "SKILL.md"),
                                            f"folder `{name}` starts with a dot: omp skips it"))
            continue
        if not (is_dir or is_link):
            if name == "SKILL.md" and not include_self:
                ctx.diags.append(Diagnostic("error", "omp-loose-skill-file", os.path.join(io_dir, name),
                                            "a SKILL.md directly in a skills folder is not a skill for omp "
                                            "(it wants <folder>/<skill>/SKILL.md)"))
            continue
        candidates.append((_js_join(dir_path, name, "SKILL.md"), name))
        if is_dir and not is_link:
            _nested(ctx, os.path.join(io_dir, name), depth=1)
        elif is_link and not os.path.exists(os.path.join(io_dir, name)):
            ctx.diags.append(Diagnostic("error", "omp-dangling-link", os.path.join(io_dir, name),
                                        "symbolic link to a missing target: omp finds no skill here"))
    items: list[_Cand] = []
    for skill_path, folder in candidates:
        cand = _load(ctx, skill_path, folder, dir_path, provider, level, require_desc, plugin, name_prefix)
        if cand is not None and cand.loadable:
            items.append(cand)
    items.sort(key=lambda c: js_sort_key(c.name, c.path))
    return items


def _nested(ctx: _Ctx, folder: str, depth: int) -> None:
    """Report SKILL.md files two or more levels down: omp never looks there."""
    if depth > 6 or ctx.nested_budget <= 0:
        return
    ctx.nested_budget -= 1
    try:
        with os.scandir(folder) as it:
            entries = list(it)
    except OSError:
        return
    for entry in entries:
        try:
            if not entry.is_dir(follow_symlinks=False) or entry.name in (".git", "node_modules"):
                continue
        except OSError:
            continue
        sub = os.path.join(folder, entry.name)
        skill = os.path.join(sub, "SKILL.md")
        if os.path.lexists(skill):
            ctx.diags.append(Diagnostic("info", "omp-nested-ignored", skill,
                                        "SKILL.md deeper than one level in a skills folder: omp does not find it"))
        _nested(ctx, sub, depth + 1)


def _load(ctx: _Ctx, skill_path: str, folder: str, root: str, provider: str, level: str, require_desc: bool,
          plugin: plug.PluginRoot | None, name_prefix: str, contain_root: str | None = None) -> _Cand | None:
    io_path = ctx.io(skill_path)

    def new_row(name: str, fm: Frontmatter | None = None) -> _Cand:
        return ctx.new_row(name, skill_path, io_path, root, provider, level, fm=fm,
                           plugin=plugin.id if plugin else None, plugin_root=plugin.path if plugin else contain_root)

    def invalid(reason: str, code: str, severity: Severity = "error", status: StatusValue = INVALID) -> _Cand:
        cand = new_row(name_prefix + folder)
        cand.status, cand.reason = status, reason
        ctx.diags.append(Diagnostic(severity, code, skill_path, reason))
        return cand

    try:
        st = os.stat(io_path)
    except OSError as exc:
        if os.path.lexists(io_path):
            what = "a dangling symbolic link" if exc.errno == errno.ENOENT else _js_error(exc, "stat", io_path)
            return invalid(f"SKILL.md cannot be read ({what}); omp skips it silently", "omp-unreadable-skill")
        return None  # no SKILL.md: not a skill folder
    if not stat_mod.S_ISREG(st.st_mode):
        return invalid("SKILL.md is not a regular file; omp skips it silently", "omp-unreadable-skill")
    try:
        ft = read_text(io_path, READ_CAP)
    except OSError as exc:
        return invalid(f"SKILL.md cannot be read ({_js_error(exc, 'open', io_path)}); omp skips it silently",
                       "omp-unreadable-skill")
    text = ft.text
    if ft.truncated:
        ctx.diags.append(Diagnostic("info", "omp-file-truncated", skill_path,
                                    f"SKILL.md is {ft.size} bytes; skilltui read the first {READ_CAP}"))
    if ft.invalid_utf8:
        ctx.diags.append(Diagnostic("warning", "omp-invalid-utf8", skill_path,
                                    "SKILL.md is not valid UTF-8: invalid bytes read as U+FFFD, as omp (Bun) does"))
    if (text[1:] if text.startswith("\ufeff") else text) == "":
        return invalid("SKILL.md is empty; omp skips it silently", "omp-empty-skill")
    try:
        fm = parse_omp_frontmatter(text)
    except Exception as exc:  # never raise on a stranger's file
        fm = Frontmatter(data={}, body=text, status="invalid", error=f"{exc.__class__.__name__}")
    if fm.status == "invalid":
        ctx.diags.append(Diagnostic("warning", "omp-frontmatter-fallback", skill_path,
                                    f"frontmatter is not valid YAML ({fm.error}); omp falls back to reading "
                                    f"`key: value` lines", line=fm.error_line))
    data = fm.data
    raw_name = data.get("name")
    name = (js_trim(raw_name) or folder) if isinstance(raw_name, str) else folder
    name = name_prefix + name
    cand = new_row(name, fm)
    description = data.get("description")
    cand.description = description if isinstance(description, str) else ""
    if data.get("enabled") is False:
        cand.status, cand.reason = DISABLED, "enabled: false in the frontmatter"
        ctx.diags.append(Diagnostic("info", "omp-skill-disabled", skill_path, f"`{name}` has enabled: false",
                                    line=key_line(fm, "enabled")))
        return cand
    if require_desc and not js_truthy(data.get("description")):
        where = {"native": "the OMP folders", "github": ".github/skills", "custom": "custom directories",
                 "omp-plugins": "extension packages", "omp-managed": "managed skills"}[provider]
        cand.status = INVALID
        cand.reason = f"no description: omp skips a SKILL.md without one in {where}, silently"
        ctx.diags.append(Diagnostic("error", "omp-description-missing", skill_path, cand.reason))
        return cand
    if ctx.rules == "18":
        cand.hide = data.get("hide") is True or data.get("disableModelInvocation") is True
    cand.loadable = True
    return cand


# ---------------------------------------------------------------- providers (§1, §2)
def _wsl_home(ctx: _Ctx) -> str | None:
    if not (ctx.env.get("WSL_DISTRO_NAME") or ctx.env.get("WSL_INTEROP")):
        return None
    profile = (ctx.env.get("USERPROFILE") or "").strip()
    if not profile:
        return None
    if profile.startswith("/"):
        return posixpath.normpath(profile)
    m = re.fullmatch(r"([A-Za-z]):[\\/](.*)", profile)
    if not m:
        return None
    segments = [s for s in m.group(2).replace("\\", "/").split("/") if s]
    return posixpath.join("/mnt", m.group(1).lower(), *segments)


def _provider_items(ctx: _Ctx, provider: str) -> list[_Cand]:
    rules18 = ctx.rules == "18"
    items: list[_Cand] = []
    if provider == "native":
        for d in ctx.walk:
            items += _scan(ctx, _js_join(d, ctx.native, "skills"), "native", "project")
        items += _scan(ctx, _js_join(ctx.agent_dir, "skills"), "native", "user")
    elif provider == "skillshare":
        warnings = ctx.provider_warnings.setdefault(provider, [])
        for locked in plug.list_locked_skills(ctx.walk, ctx.agent_dir, ctx.native, warnings):
            skill_path = _js_join(locked.store_dir, "SKILL.md")
            try:
                os.stat(ctx.io(skill_path))
            except OSError as exc:
                if exc.errno != errno.ENOENT:
                    warnings.append(f"Failed to read skill file: {skill_path} "
                                    f"({_js_error(exc, 'open', ctx.io(skill_path))})")
                continue
            contain = plug.canonical(ctx.io(locked.store_dir)) or locked.store_dir
            cand = _load(ctx, skill_path, locked.name, locked.store_dir, "skillshare", locked.level, False, None, "",
                         contain_root=contain)
            if cand is not None:
                cand.package = f"{locked.id}@{locked.version}"
                if cand.loadable:
                    items.append(cand)
    elif provider == "omp-plugins":
        for root in plug.list_extension_roots(ctx.cwd, ctx.home, ctx.agent_dir, ctx.native):
            warnings = ctx.provider_warnings.setdefault(provider, [])
            dirs, declared = plug.extension_skill_dirs(root, warnings)
            for d in dirs:
                items += _scan(ctx, d, "omp-plugins", root.level, include_self=declared)
    elif provider == "claude":
        items += _scan(ctx, _js_join(ctx.claude_cfg, "skills"), "claude", "user")
        for d in ctx.walk:
            if rules18 and d == ctx.home:
                continue
            items += _scan(ctx, _js_join(d, ".claude", "skills"), "claude", "project")
    elif provider == "claude-plugins":
        warnings = ctx.provider_warnings.setdefault(provider, [])
        omp_plugins_dir = os.path.join(ctx.home, ctx.cfg_name, "plugins")
        roots, skipped = plug.list_claude_plugin_roots(ctx.rules, ctx.home, ctx.cwd, ctx.claude_cfg,
                                                       omp_plugins_dir, ctx.native, warnings, ctx.diags)
        ctx.plugin_roots = roots
        for s in skipped:
            ctx.diags.append(Diagnostic("info", "omp-plugin-skipped", s.path, f"{s.id}: {s.reason}"))
        for plugin_root in roots:
            prefix = f"{plugin_root.plugin}:" if not rules18 else ""
            for d in plug.plugin_skill_dirs(ctx.rules, plugin_root, ctx.cwd, warnings):
                items += _scan(ctx, d, "claude-plugins", plugin_root.scope, include_self=True, plugin=plugin_root,
                               name_prefix=prefix)
    elif provider == "agents":
        for d in ctx.walk:
            if rules18 and d == ctx.home:
                continue
            for base in (".agent", ".agents"):
                items += _scan(ctx, _js_join(d, base, "skills"), "agents", "project")
        homes = [ctx.home]
        wsl = _wsl_home(ctx)
        if wsl and wsl not in homes:
            homes.append(wsl)
        for h in homes:
            for base in (".agent", ".agents"):
                items += _scan(ctx, _js_join(h, base, "skills"), "agents", "user")
    elif provider == "codex":
        items += _scan(ctx, _js_join(ctx.home, ".codex", "skills"), "codex", "user")
        items += _scan(ctx, _js_join(ctx.cwd, ".codex", "skills"), "codex", "project")
    elif provider == "opencode":
        items += _scan(ctx, _js_join(ctx.home, ".config", "opencode", "skills"), "opencode", "user")
        items += _scan(ctx, _js_join(ctx.cwd, ".opencode", "skills"), "opencode", "project")
    elif provider == "github":
        items += _scan(ctx, _js_join(ctx.cwd, ".github", "skills"), "github", "project")
    elif provider == "omp-managed":
        items += _scan(ctx, _js_join(ctx.agent_dir, "managed-skills"), "omp-managed", "user")
    return items


def _realpath(ctx: _Ctx, cand: _Cand) -> str:
    if cand.realpath is None:
        try:
            cand.realpath = os.path.realpath(cand.io_path, strict=True)
        except (OSError, RuntimeError, ValueError):
            cand.realpath = cand.path
    return cand.realpath


def _claim_file(ctx: _Ctx, cand: _Cand, real_set: dict[str, _Cand]) -> str | None:
    """The candidate's real path, or None when that file is already loaded (the candidate is then a duplicate)."""
    rp = _realpath(ctx, cand)
    if rp in real_set:
        cand.status, cand.winner = SHADOWED, real_set[rp]
        cand.duplicate_file = True
        return None
    return rp


# ---------------------------------------------------------------- discovery (§4, §5)
def discover(opts: Options) -> Catalog:
    ctx = _Ctx(opts)
    settings = load_settings(ctx.rules, ctx.agent_dir, ctx.cwd, ctx.home, ctx.native, ctx.env, ctx.diags)
    providers = PROVIDERS_18 if ctx.rules == "18" else PROVIDERS_14
    display = {pid: disp for pid, _prio, disp in providers}
    disabled_providers = settings.disabled_providers()
    skills_on = js_truthy(settings.get("skills.enabled"))

    ignored = settings.string_list("skills.ignoredSkills")
    included = settings.string_list("skills.includeSkills")
    disabled_names = {e[6:] for e in settings.string_list("disabledExtensions") if e.startswith("skill:")}

    def is_ignored(name: str) -> bool:
        return any(glob_match(p, name) for p in ignored)

    def is_included(name: str) -> bool:
        return not included or any(glob_match(p, name) for p in included)

    def filter_reason(name: str) -> str | None:
        if name in disabled_names:
            return f"disabledExtensions lists skill:{name}"
        if is_ignored(name):
            return "matches skills.ignoredSkills " + ", ".join(repr(p) for p in ignored if glob_match(p, name))
        if not is_included(name):
            return "matches none of skills.includeSkills " + ", ".join(repr(p) for p in included)
        return None

    # 1. every provider's items, in priority then registration order (omp's pre-dedupe `result.all`)
    all_items: list[_Cand] = []
    for pid, _prio, _disp in providers:
        if pid in NOT_MODELLED:
            continue
        items = _provider_items(ctx, pid)
        if pid in disabled_providers:
            ctx.provider_warnings.pop(pid, None)  # omp does not even load it
            for c in items:
                c.status, c.reason = DISABLED, f"provider `{pid}` is listed in disabledProviders"
            continue
        for c in items:
            if c.name in disabled_names:  # dropped inside loadCapability: claims nothing
                c.status, c.reason = FILTERED, f"disabledExtensions lists skill:{c.name}"
                continue
            all_items.append(c)

    skill_map: dict[str, _Cand] = {}
    real_set: dict[str, _Cand] = {}
    collisions: list[OmpWarning] = []

    def excluded(c: _Cand) -> bool:
        """Marks a candidate its source's settings disable or its name filters out."""
        ok, why = settings.source_enabled(c.provider, c.level)
        if not ok:
            c.status, c.reason = DISABLED, why
            return True
        why = filter_reason(c.name)
        if why:
            c.status, c.reason = FILTERED, why
            return True
        return False

    def first_of_each_name(cands: list[_Cand]) -> list[_Cand]:
        seen: dict[str, _Cand] = {}
        for c in cands:
            if c.name in seen:
                c.status, c.winner = SHADOWED, seen[c.name]
            else:
                seen[c.name] = c
        return list(seen.values())

    # v18 drops disabled and filtered items before the first-name-wins pass; v14 after it
    if ctx.rules == "18":
        selected = first_of_each_name([c for c in all_items if c.provider != "omp-managed" and not excluded(c)])
    else:
        selected = [c for c in first_of_each_name(all_items) if not excluded(c)]
    for c in selected:
        rp = _claim_file(ctx, c, real_set)
        if rp is None:
            continue
        skill_map[c.name] = c
        real_set[rp] = c

    # 2. custom directories (§4.5)
    custom_dirs = settings.get("skills.customDirectories")
    custom_scan_warnings: list[OmpWarning] = []
    custom_items: list[_Cand] = []
    for entry in custom_dirs if isinstance(custom_dirs, list) else []:
        if not isinstance(entry, str):
            continue
        expanded = plug.expand_tilde(entry, ctx.home)
        local: list[str] = []
        for c in _scan(ctx, expanded, "custom", "user", warn_to=local):
            why = filter_reason(c.name)
            if why:
                c.status, c.reason = FILTERED, why
                continue
            custom_items.append(c)
        custom_scan_warnings += [{"skillPath": expanded, "message": m} for m in local]
    for c in custom_items:
        rp = _claim_file(ctx, c, real_set)
        if rp is None:
            continue
        existing = skill_map.get(c.name)
        if existing is not None:
            if ctx.rules == "18" and existing.provider != "custom":
                existing.status, existing.winner = SHADOWED, c
                existing.replaced_by_custom = True
                skill_map[c.name] = c
                real_set[rp] = c
                continue
            message = f'name collision: "{c.name}" already loaded from {existing.path}, skipping this one'
            collisions.append({"skillPath": c.path, "message": message})
            c.status, c.winner, c.reason = SHADOWED, existing, message
            c.collision = True
            ctx.diags.append(Diagnostic("warning", "omp-name-collision", c.path, message))
            continue
        skill_map[c.name] = c
        real_set[rp] = c

    # 3. managed (auto-learn) skills come last and yield to any enabled authored skill (§4.6)
    if ctx.rules == "18":
        enabled_authored: dict[str, _Cand] = {}
        for c in all_items:
            if c.provider != "omp-managed" and settings.source_enabled(c.provider, c.level)[0]:
                enabled_authored.setdefault(c.name, c)
        for c in all_items:
            if c.provider != "omp-managed":
                continue
            if not is_valid_managed_name(c.name):
                c.status = INVALID
                c.reason = "managed skill name must match ^[a-z0-9][a-z0-9-]{0,63}$; omp drops it"
                continue
            why = filter_reason(c.name)
            if why:
                c.status, c.reason = FILTERED, why
                continue
            rp = _claim_file(ctx, c, real_set)
            if rp is None:
                continue
            owner = enabled_authored.get(c.name) or skill_map.get(c.name)
            if owner is not None:
                c.status, c.winner = SHADOWED, skill_map.get(c.name) or owner
                continue
            c.description = sanitize_managed_description(c.description)
            skill_map[c.name] = c
            real_set[rp] = c

    if not skills_on:
        for c in ctx.rows:
            if c.loadable:
                c.status, c.reason, c.winner = DISABLED, "skills.enabled is false: omp loads no skills", None
        skill_map = {}
        collisions, custom_scan_warnings = [], []
        ctx.provider_warnings = {}

    loaded = sorted(skill_map.values(), key=lambda c: js_sort_key(c.name, c.path))
    for c in loaded:
        c.status = HIDDEN if c.hide else LISTED
        c.winner = None
        if c.hide:
            fm = c.fm.data if c.fm else {}
            c.reason = "hide: true" if fm.get("hide") is True else "disable-model-invocation: true"
            c.reason += " (out of the prompt list; still loadable via skill:// and /skill:)"

    # omp's own output
    omp_skills: list[OmpSkill] = [{"name": c.name, "description": c.description, "filePath": c.path, "baseDir": c.base_dir,
                   "source": c.source, "hide": c.hide} for c in loaded]
    omp_warnings: list[OmpWarning] = []
    for pid, _prio, disp in providers:
        for m in ctx.provider_warnings.get(pid, []):
            omp_warnings.append({"skillPath": "", "message": f"[{disp}] {m}"})
    omp_warnings += custom_scan_warnings + collisions

    # skilltui rows, statuses and diagnostics
    order = 0
    loaded_ids = {id(c) for c in loaded}
    rest = sorted((c for c in ctx.rows if id(c) not in loaded_ids), key=lambda c: c.seq)
    skills: list[Skill] = []
    for c in loaded + rest:
        if id(c) not in loaded_ids and c.status in (LISTED, HIDDEN):  # defensive: only loaded skills are listed
            c.status, c.reason = INVALID, "not loaded by omp"
        if c.status == SHADOWED and c.winner is not None:
            w = c.winner
            if c.duplicate_file:
                c.reason = f"the same file was already loaded as `{w.name}` from {w.path}"
                ctx.diags.append(Diagnostic("info", "omp-duplicate-file", c.path, c.reason))
            elif c.replaced_by_custom:
                c.reason = f"replaced by the custom-directory skill {w.path} (omp 18: custom beats providers)"
                ctx.diags.append(Diagnostic("info", "omp-shadowed", c.path, c.reason))
            elif c.collision:
                pass  # omp's own warning, already a diagnostic
            elif _realpath(ctx, c) == _realpath(ctx, w):
                c.reason = f"the same file as {w.path} ({w.source}), which already took the name `{c.name}`"
                ctx.diags.append(Diagnostic("info", "omp-duplicate-file", c.path, c.reason))
            else:
                c.reason = f"`{c.name}` is already taken by {w.path} ({w.source})"
                ctx.diags.append(Diagnostic("info", "omp-shadowed", c.path, c.reason))
        elif c.status == DISABLED and c.reason and "enabled: false" not in c.reason:
            ctx.diags.append(Diagnostic("info", "omp-source-disabled", c.path, c.reason))
        elif c.status == FILTERED and c.reason:  # a filtered candidate always has its reason
            ctx.diags.append(Diagnostic("info", "omp-filtered", c.path, c.reason))
        skill = Skill(
            name=c.name, source=c.source, path=c.path, root=c.root, label=c.name,
            description=c.description if (c.loadable or c.fm is not None) else None,
            plugin=c.plugin, status=c.status, reason=c.reason,
            shadowed_by=c.winner.path if (c.status == SHADOWED and c.winner is not None) else None,
            skill_dir=c.base_dir, frontmatter=c.fm,
        )
        if c.status == LISTED:
            skill.order = order
            order += 1
        skill.facts = OmpSkillFacts(c.provider, c.level, c.hide, c.base_dir, c.plugin_root)
        skills.append(skill)

    if not skills_on:
        ctx.diags.append(Diagnostic("info", "omp-skills-disabled", settings.files[-1] if settings.files else None,
                                    "skills.enabled is false: omp loads no skills at all"))

    unique: dict[tuple[str, str | None, str, int | None], Diagnostic] = {}
    for d in ctx.diags:
        unique.setdefault((d.code, d.path, d.message, d.line), d)
    for d in unique.values():
        d.runtime = NAME
    catalog = Catalog(runtime=NAME, runtime_version=VERSIONS[ctx.rules], cwd=ctx.cwd, home=ctx.home, skills=skills,
                      diagnostics=list(unique.values()), settings=settings)
    facts = catalog.facts = OmpFacts(
        project_root=ctx.repo_root, rules=ctx.rules, native_dir=ctx.native, agent_dir=ctx.agent_dir,
        claude_config_dir=ctx.claude_cfg, repo_root=ctx.repo_root, walk=list(ctx.walk),
        providers=[pid for pid, _p, _d in providers], providers_not_modelled=[p for p in NOT_MODELLED if p in display],
        omp_skills=omp_skills, omp_warnings=omp_warnings, settings_files=list(settings.files),
        compress_descriptions=ctx.rules == "18" and settings.raw("skills.compressDescriptions") is not False,
        plugin_roots=list(ctx.plugin_roots))
    catalog.stop_if_refused("omp")
    if facts.refused:  # `omp skill list` exits 1: no rows, no warnings
        facts.omp_skills, facts.omp_warnings = [], []
    return catalog


@dataclass(slots=True, repr=False)
class OmpSkillFacts(SkillFacts):
    """What oh-my-pi's discovery keeps about one skill beyond its row."""

    provider: str  # the provider that found it (native, claude, agents, ...)
    level: str  # user | project | ...
    hide: bool  # hidden from the prompt
    base_dir: str  # the folder its skill:// paths resolve in
    plugin_root: str | None = None  # a plugin's root, which skill:// paths may not leave (18.x)


@dataclass(repr=False)
class OmpFacts(CatalogFacts):
    """oh-my-pi's facts about one discovery."""

    rules: str = "18"  # the rule set: "14" or "18"
    native_dir: str = ".omp"
    agent_dir: str = ""
    claude_config_dir: str = ""
    repo_root: str | None = None
    walk: list[str] = field(default_factory=list)  # the folders from the cwd up, where project skills are looked for
    providers: list[str] = field(default_factory=list)
    providers_not_modelled: list[str] = field(default_factory=list)
    omp_skills: list[OmpSkill] = field(default_factory=list)  # `omp skill list --json`'s rows
    omp_warnings: list[OmpWarning] = field(default_factory=list)
    settings_files: list[str] = field(default_factory=list)
    compress_descriptions: bool = True
    plugin_roots: list[plug.PluginRoot] = field(default_factory=list)


def facts_of(catalog: Catalog) -> OmpFacts:
    """An oh-my-pi catalog's own facts; a catalog of another runtime is a caller's bug."""
    if not isinstance(catalog.facts, OmpFacts):
        raise TypeError(f"a {catalog.runtime} catalog has no oh-my-pi facts")
    return catalog.facts


# ---------------------------------------------------------------- `omp skill list` (§9)
def skill_list_json(catalog: Catalog) -> SkillListJson:
    """What `omp skill list --json` prints for this catalog."""
    return {"skills": [OmpSkill(**s) for s in _omp_skills(catalog)],
            "warnings": [OmpWarning(**w) for w in _omp_warnings(catalog)]}


def _omp_skills(catalog: Catalog) -> list[OmpSkill]:
    """omp's own skill rows, kept in the catalog's facts by discover()."""
    return facts_of(catalog).omp_skills


def _omp_warnings(catalog: Catalog) -> list[OmpWarning]:
    """omp's own warnings, kept in the catalog's facts by discover()."""
    return facts_of(catalog).omp_warnings


def _escape_controls(s: str) -> str:
    return re.sub(r"[\x00-\x1f\x7f]", lambda m: f"\\x{ord(m.group(0)):02x}", s)


def skill_list_text(catalog: Catalog) -> tuple[str, str]:
    """(stdout, stderr) of `omp skill list`: `name<TAB>description` lines, warnings on stderr."""
    skills = _omp_skills(catalog)
    if skills:
        out = "".join(f"{_escape_controls(s['name'])}\t{_escape_controls(s['description'])}\n" for s in skills)
    else:
        out = "No skills discovered.\n"
    err = "".join(f"warning: {_escape_controls(w['message'])}\n" for w in _omp_warnings(catalog))
    return out, err


# ---------------------------------------------------------------- the system prompt (§7)
def prompt_entries(catalog: Catalog, *, compress: bool | None = None) -> list[tuple[str, str]]:
    """(name, description) of each skill the prompt lists, in order, with 18.3.4's description preview applied.

    omp 18.3.4 replaces a description with a cached model-written one-liner once one exists; that cache is not read
    here, so this is the text of a session whose cache is still cold.
    """
    facts = facts_of(catalog)
    if compress is None:
        compress = facts.compress_descriptions
    out = []
    for s in catalog.listed():
        desc = s.description or ""
        out.append((s.name, preview_description(desc) if compress else desc))
    return out


@dataclass(repr=False)
class OmpPrompt(Record):
    """oh-my-pi lists every skill in full and has no budget: the text is the whole story."""

    catalog: Catalog
    text: str

    def to_json(self) -> dict[str, object]:
        return {"rules": facts_of(self.catalog).rules, "budget": None, "over_budget": False, "text": self.text,
                "entries": [{"name": s.name, "source": s.source, "state": "full"} for s in self.catalog.listed()]}


def render_system_prompt(entries: list[tuple[str, str]], rules: str = "18", *, template: str = "default",
                         has_read_tool: bool = True) -> str:
    """The skills section as omp renders it. Empty when there is nothing to list or no tool reads skill URLs."""
    if not has_read_tool or not entries:
        return ""
    if str(rules) == "14":
        return "# Skills\n" + "".join(f"- {name}: {desc}\n" for name, desc in entries)
    lines = ["# Skills & Rules", "Matching skill → MUST read `skill://<name>` first.", "<skills>"]
    if template == "custom":
        for name, desc in entries:
            lines += [f'<skill name="{name}">', desc, "</skill>"]
    else:
        lines += [f"- {name}: {desc}" for name, desc in entries]
    lines.append("</skills>")
    return "\n".join(lines) + "\n"


def system_prompt(catalog: Catalog, *, template: str = "default", compress: bool | None = None,
                  has_read_tool: bool = True) -> str:
    rules = facts_of(catalog).rules
    return render_system_prompt(prompt_entries(catalog, compress=compress), rules, template=template,
                                has_read_tool=has_read_tool)


# ---------------------------------------------------------------- skill:// URLs (§8)
class SkillUrlError(refs.SkillUrlError):
    """An error `read skill://…` would report; `str(err)` is omp's exact text where omp reports one.

    A subclass of `skilltui.refs.SkillUrlError` (a ValueError), so the CLI and preview handle both alike."""

    def __init__(self, message: str, kind: str, runtime_follows: bool = False):
        super().__init__(message)
        self.message = message
        # unknown-skill | absolute | dotdot | escape | plugin-escape | symlink-escape | not-found | malformed | ...
        self.kind = kind
        self.runtime_follows = runtime_follows  # omp itself would read the target (skilltui refuses)


def _remove_dot_segments(path: str) -> str:
    """WHATWG URL path parsing for a non-special scheme: `.`/`..` (and `%2e` spellings) collapse."""
    if not path:
        return ""
    segments = path[1:].split("/")
    out: list[str] = []
    for i, seg in enumerate(segments):
        last = i == len(segments) - 1
        low = seg.lower()
        if low in ("..", ".%2e", "%2e.", "%2e%2e"):
            if out:
                out.pop()
            if last:
                out.append("")
        elif low in (".", "%2e"):
            if last:
                out.append("")
        else:
            out.append(seg)
    return "/" + "/".join(out)


def _decode_uri_component(s: str) -> str:
    if re.search(r"%(?![0-9A-Fa-f]{2})", s):
        raise SkillUrlError("URI malformed", "malformed")
    try:
        return unquote_to_bytes(s).decode("utf-8")
    except UnicodeDecodeError:
        raise SkillUrlError("URI malformed", "malformed") from None


def _loaded_skills(catalog: Catalog) -> list[Skill]:
    return [s for s in catalog.skills if s.status in (LISTED, HIDDEN)]


@dataclass(frozen=True, repr=False)
class UrlTarget(Record):
    """What `read skill://…` reads."""

    path: str
    kind: Literal["file", "directory"]
    content_type: str
    href: str  # the URL after WHATWG path parsing


def resolve_url_info(catalog: Catalog, url: str) -> UrlTarget:
    rules = facts_of(catalog).rules
    m = re.match(r"(?i)skill://", url)
    if not m:
        raise SkillUrlError(f"Not a skill:// URL: {url}", "scheme")
    rest = url[m.end():]
    rest = rest.split("#", 1)[0].split("?", 1)[0]
    slash = rest.find("/")
    host, raw_path = (rest, "") if slash < 0 else (rest[:slash], rest[slash:])
    if not host:
        raise SkillUrlError("skill:// URL requires a skill name: skill://<name>", "no-name")
    skills = _loaded_skills(catalog)
    skill = next((s for s in skills if s.name == host), None)
    if skill is None:
        names = ", ".join(s.name for s in skills) or "none"
        raise SkillUrlError(f"Unknown skill: {host}\nAvailable: {names}", "unknown-skill")
    pathname = _remove_dot_segments(raw_path)
    href = f"skill://{host}{pathname}"
    facts = skill.facts if isinstance(skill.facts, OmpSkillFacts) else None
    base_dir = (facts.base_dir if facts else None) or os.path.dirname(skill.path)
    cwd = catalog.cwd

    def io(p: str) -> str:
        return p if os.path.isabs(p) else os.path.normpath(os.path.join(cwd, p))

    if pathname and pathname != "/":
        rel = _decode_uri_component(pathname[1:])
        if rel.startswith("/"):
            raise SkillUrlError("Absolute paths are not allowed in skill:// URLs", "absolute")
        normalized = posixpath.normpath(rel) if rel else "."
        if (".." in re.split(r"[\\/]", rel) or normalized.startswith("..") or "/../" in normalized
                or "/.." in normalized):
            raise SkillUrlError("Path traversal (..) is not allowed in skill:// URLs", "dotdot")
        target = _js_join(base_dir, rel)
        resolved, resolved_base = io(target), io(base_dir)
        if not (resolved.startswith(resolved_base.rstrip("/") + "/") or resolved == resolved_base):
            raise SkillUrlError("Path traversal is not allowed", "escape")
        plugin_root = facts.plugin_root if facts else None
        if plugin_root and rules == "18":
            real_root = plug.canonical(io(plugin_root)) or io(plugin_root)
            try:
                real = os.path.realpath(resolved, strict=True)
            except (OSError, RuntimeError, ValueError):
                raise SkillUrlError(f"File not found: {resolved}", "not-found") from None
            if not (real == real_root or real.startswith(real_root.rstrip("/") + "/")):
                raise SkillUrlError(f"skill:// path resolves outside the plugin root: {href}", "plugin-escape")
            target = real
        elif os.path.lexists(resolved):
            # skilltui's own rule: never follow a link out of the skill folder (omp would read the target).
            real_base = plug.canonical(resolved_base) or resolved_base
            try:
                real = os.path.realpath(resolved, strict=True)
            except (OSError, RuntimeError, ValueError):
                real = None
            if real is not None and not (real == real_base or real.startswith(real_base.rstrip("/") + "/")):
                raise SkillUrlError("Path traversal is not allowed", "symlink-escape", runtime_follows=True)
    else:
        target = skill.path
    try:
        st = os.stat(io(target))
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ENOTDIR) or exc.errno is None:
            raise SkillUrlError(f"File not found: {target}", "not-found") from None
        raise SkillUrlError(_js_error(exc, "stat", target), "io") from None
    if stat_mod.S_ISDIR(st.st_mode):
        if rules == "14":
            raise SkillUrlError(f"File not found: {target}", "not-found")
        return UrlTarget(target, "directory", "text/plain", href)
    if not stat_mod.S_ISREG(st.st_mode):
        raise SkillUrlError(f"skill:// URL must resolve to a file or directory: {href}", "not-file")
    lower = target.lower()
    if lower.endswith((".md", ".markdown", ".mdx")):
        ctype = "text/markdown"
    elif lower.endswith(".json") and rules == "18":
        ctype = "application/json"
    else:
        ctype = "text/plain"
    return UrlTarget(target, "file", ctype, href)


def resolve_url(catalog: Catalog, url: str) -> str:
    """The file (or, in v18, folder) `skill://<name>[/<relpath>]` reads. Raises SkillUrlError with omp's text."""
    return resolve_url_info(catalog, url).path
