"""Gemini CLI 0.61.0 discovery (spec/gemini.md §1, §3, §5, §9): six roots, one level deep, the later root wins in
place, `skills.disabled` after that. Workspace roots of an untrusted folder are scanned for display only."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field

from skilltui.frontmatter import read_text
from skilltui.model import (
    DISABLED,
    FILTERED,
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
)
from skilltui.record import Record
from skilltui.runtimes.gemini import builtin
from skilltui.runtimes.gemini import frontmatter as gfm
from skilltui.runtimes.gemini import settings as gsettings
from skilltui.runtimes.gemini.facts import GeminiSkillFacts, Tier

NAME, VERSION = "gemini", "0.61.0"
READ_CAP = 8 * 1024 * 1024  # Gemini reads whole files; we stop here and say so
SKILL_FILE = "SKILL.md"
IGNORED_DIRS = ("node_modules",)


@dataclass(repr=False)
class Root(Record):
    tier: Tier
    path: str
    alias: bool = False  # the `.agents` spelling, read second within its tier
    extension: str | None = None
    read: bool = True  # Gemini CLI scans it (False: an untrusted workspace; shown, not loaded)
    why_not: str | None = None


def _diag(severity: Severity, code: str, path: str | None, message: str, fix: str | None = None) -> Diagnostic:
    return Diagnostic(severity, code, path, message, fix=fix, runtime=NAME)


def roots(st: gsettings.GeminiSettings, exts: list[gsettings.Extension]) -> list[Root]:
    p = st.paths
    out = [Root("extension", e.skills_root, extension=e.name) for e in exts if e.active]
    out += [Root("user", os.path.join(p.user_dir, "skills")),
            Root("user", os.path.join(p.gemini_home, ".agents", "skills"), alias=True)]
    why = None if st.trust.trusted else f"workspace not trusted: {st.trust.detail}"
    out += [Root("workspace", os.path.join(p.cwd, ".gemini", "skills"), read=why is None, why_not=why),
            Root("workspace", os.path.join(p.cwd, ".agents", "skills"), alias=True, read=why is None, why_not=why)]
    return out


def _is_file(path: str) -> os.stat_result | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st if not stat.S_ISDIR(st.st_mode) else None


def scan_root(path: str, diags: list[Diagnostic] | None = None) -> list[str]:
    """loadSkillsFromDir's glob ["SKILL.md", "*/SKILL.md"]: the root file first, then sub-folders in descending byte
    order; dot-folders and node_modules skipped; links followed; paths as walked (never canonicalised)."""
    root = os.path.abspath(path)
    if not os.path.isdir(root):
        return []
    found = []
    if _is_file(os.path.join(root, SKILL_FILE)):
        found.append(os.path.join(root, SKILL_FILE))
    try:
        names = os.listdir(root)
    except OSError:
        return found
    for name in sorted(names, key=os.fsencode, reverse=True):
        entry = os.path.join(root, name, SKILL_FILE)
        hidden = name.startswith(".") or name in IGNORED_DIRS
        if _is_file(entry):
            if not hidden:
                found.append(entry)
            elif diags is not None:
                diags.append(_diag("info", "gemini-hidden-dir", entry,
                                   f"not found by Gemini CLI: {name!r} is a dot-folder or node_modules",
                                   fix="Move the skill folder to a name that does not start with '.'"))
        elif diags is not None and not hidden and os.path.isdir(os.path.join(root, name)):
            _too_deep(os.path.join(root, name), diags)
    return found


def _too_deep(folder: str, diags: list[Diagnostic]) -> None:
    try:
        subs = sorted(os.listdir(folder))
    except OSError:
        return
    for sub in subs[:200]:
        deep = os.path.join(folder, sub, SKILL_FILE)
        if _is_file(deep):
            diags.append(_diag("error", "gemini-too-deep", deep,
                               "not found by Gemini CLI: it reads SKILL.md only one folder below a skills root",
                               fix=f"Move {sub!r} up one level, directly under the skills root"))


def load_skill(path: str, root: Root, workspace: str = "") -> tuple[Skill, gfm.GeminiFrontmatter | None]:
    skill = Skill(name=os.path.basename(os.path.dirname(path)), source=root.tier, path=path, root=root.path,
                  skill_dir=os.path.dirname(path))
    facts = skill.facts = GeminiSkillFacts(root.tier, root.alias)
    if root.extension:
        skill.plugin = facts.extension = root.extension
    try:
        ft = read_text(path, READ_CAP)
    except OSError as exc:
        skill.status, skill.reason = INVALID, f"cannot be read: {exc.strerror or exc}"
        skill.frontmatter = Frontmatter(data={}, body="", status="invalid", error=skill.reason)
        return skill, None
    parsed = gfm.parse(ft.text)
    skill.frontmatter = Frontmatter(data={"name": parsed.raw_name, "description": parsed.description}
                                    if parsed.name is not None else {}, body=parsed.body,
                                    present=parsed.problem != "gemini-frontmatter-missing",
                                    status="invalid" if parsed.problem else "retried" if parsed.via == "lines" else "ok",
                                    error=parsed.problem, raw=parsed.block)
    if parsed.problem:
        skill.status, skill.reason = INVALID, PROBLEMS[parsed.problem]
        return skill, parsed
    assert parsed.name is not None and parsed.description is not None
    skill.name = skill.label = parsed.name
    skill.description = parsed.description
    if root.extension is not None:
        skill.description = substitute(parsed.description, root, workspace)
    facts.via = parsed.via
    facts.truncated = ft.truncated
    return skill, parsed


PROBLEMS = {
    "gemini-frontmatter-missing": "no frontmatter: the file must start with a line `---` (no BOM, no blank line) and "
                                  "have a closing `---` line; Gemini CLI skips it silently",
    "gemini-name-missing": "no `name:` in the frontmatter (YAML or line by line); Gemini CLI skips it silently",
    "gemini-description-missing": "no `description:` in the frontmatter (YAML or line by line); Gemini CLI skips it "
                                  "silently",
}


@dataclass(repr=False)
class GeminiFacts(CatalogFacts):
    """Gemini CLI's facts about one discovery."""

    trust: gsettings.Trust | None = None  # whether the workspace is trusted, and what decided it
    roots: list[Root] = field(default_factory=list)  # every skills root, in scan order
    extensions: list[gsettings.Extension] = field(default_factory=list)
    settings_notes: list[str] = field(default_factory=list)


def facts_of(catalog: Catalog) -> GeminiFacts:
    """A Gemini CLI catalog's own facts; a catalog of another runtime is a caller's bug."""
    if not isinstance(catalog.facts, GeminiFacts):
        raise TypeError(f"a {catalog.runtime} catalog has no Gemini CLI facts")
    return catalog.facts


def substitute(text: str, root: Root, workspace: str) -> str:
    """${extensionPath}, ${workspacePath}, ${/} and ${pathSeparator} in an extension skill's description."""
    ext_path = os.path.dirname(root.path)
    for key, value in (("${extensionPath}", ext_path), ("${workspacePath}", workspace), ("${/}", os.sep),
                       ("${pathSeparator}", os.sep)):
        text = text.replace(key, value)
    return text


def discover(opts: Options) -> Catalog:
    env = opts.env or {}
    st = gsettings.load(opts.cwd, opts.home, env)
    catalog = Catalog(runtime=NAME, runtime_version=VERSION, cwd=opts.cwd, home=opts.home, settings=st)
    diags = catalog.diagnostics
    exts = gsettings.extensions(st.paths)
    for e in exts:
        if e.problem:
            diags.append(_diag("error", "gemini-extension-skipped", e.folder,
                               f"Warning: Skipping extension in {e.folder}: {e.problem}",
                               fix="Give gemini-extension.json a \"name\" (letters, digits, -) and a \"version\""))
    all_roots = roots(st, exts)
    facts = catalog.facts = GeminiFacts(trust=st.trust, roots=all_roots, extensions=exts,
                                        settings_notes=list(st.notes))
    for note in st.notes:
        diags.append(_diag("error", "gemini-system-settings-skipped", None, note))
    if st.fatal:
        diags.append(_diag("error", "gemini-settings-invalid", None, st.fatal,
                           fix="Fix the file: Gemini CLI exits with status 52 and does not start"))
        catalog.stop_if_refused("Gemini CLI")  # nothing else is read
        return catalog
    if not st.trust.trusted:
        facts.notice = f"workspace not trusted, its skills and settings are not read: {st.trust.detail}"
        diags.append(_diag("info", "gemini-workspace-untrusted", st.trust.decided_by,
                           f"workspace skills and {st.paths.workspace_settings} are not read: {st.trust.detail}",
                           fix="Trust the folder (`/permissions` in Gemini CLI, or ~/.gemini/trustedFolders.json)"))

    winners: dict[str, Skill] = {}  # insertion order = prompt order; a replacement keeps the old key's place
    for skill in builtin.skills(env):
        winners[skill.name] = skill
        catalog.skills.append(skill)
    for root in all_roots:
        for path in scan_root(root.path, diags):
            skill, parsed = load_skill(path, root, opts.cwd)
            catalog.skills.append(skill)
            if skill.status == INVALID:  # explained by checks/gemini.py (doctor), which reads the catalog
                continue
            _frontmatter_notes(skill, parsed, diags)
            if not root.read:
                skill.status, skill.reason = FILTERED, root.why_not
                continue
            old = winners.get(skill.name)
            if old is not None:
                if old.root == skill.root and old.path != skill.path:
                    diags.append(_diag("warning", "gemini-order-race", skill.path, (
                        f"{skill.name!r} is defined twice in {root.path}: Gemini CLI's glob usually returns sub-folders "
                        f"in descending name order, so {skill.path} wins, but the order follows which file system "
                        "call completes first and can differ between runs"), fix="Give each skill its own name"))
                if old.path == skill.path:  # the same root reached twice (cwd = home): one skill, no message
                    catalog.skills.remove(old)
                else:
                    _replace(old, skill, diags)
            winners[skill.name] = skill
    _enable(catalog, st, winners, diags)
    return catalog


def _frontmatter_notes(skill: Skill, parsed: gfm.GeminiFrontmatter | None, diags: list[Diagnostic]) -> None:
    if parsed is None:
        return
    if parsed.via == "lines":
        diags.append(_diag("warning", "gemini-yaml-fallback", skill.path,
                           f"{parsed.yaml_error}; Gemini CLI read name and description line by line (quotes, `|`, "
                           f"comments kept): name {parsed.name!r}, description {gfm.js_trim(parsed.description or '')[:80]!r}",
                           fix="Make the frontmatter valid YAML with string name and description"))
    if parsed.raw_name != parsed.name:
        diags.append(_diag("warning", "gemini-name-sanitized", skill.path,
                           f"name {parsed.raw_name!r} is offered as {parsed.name!r} (: \\ / < > * ? \" | become -)"))
    if "\n\n\n" in (skill.description or ""):
        diags.append(_diag("info", "gemini-prompt-blank-lines", skill.path,
                           "the description has 3 or more line breaks in a row; the prompt shortens them to 2"))


def _replace(old: Skill, new: Skill, diags: list[Diagnostic]) -> None:
    if old.source == "builtin":
        line = f'Skill "{new.name}" from "{new.path}" is overriding the built-in skill.'
        code = "gemini-builtin-overridden"
    else:
        line = (f'Skill conflict detected: "{new.name}" from "{new.path}" is overriding the same skill from '
                f'"{old.path}".')
        code = "gemini-overridden"
    old.status, old.shadowed_by, old.reason = SHADOWED, new.path, line
    diags.append(_diag("info", code, old.path, line))


def _enable(catalog: Catalog, st: gsettings.GeminiSettings, winners: dict[str, Skill], diags: list[Diagnostic]) -> None:
    enabled, decided = st.skills_enabled()
    disabled = st.disabled_names()
    order = 0
    for skill in winners.values():
        if not enabled:
            skill.status = DISABLED
            skill.reason = f"skills.enabled is false in {decided.path if decided else 'settings'}: no skills at all"
            continue
        hit = disabled.get(skill.name.lower())
        if hit is not None:
            skill.status, skill.reason = DISABLED, f"skills.disabled in {hit.path} ({hit.scope})"
            diags.append(_diag("info", "gemini-disabled", skill.path, f"{skill.name!r} is disabled by {skill.reason}"))
            continue
        skill.status, skill.order = LISTED, order
        order += 1
    if not enabled:
        diags.append(_diag("info", "gemini-skills-off", decided.path if decided else None,
                           "skills.enabled is false: Gemini CLI discovers no skills"))
