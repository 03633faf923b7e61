"""Plain data shared by the engine, the CLI and the TUI. No behaviour beyond JSON shaping."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from enum import StrEnum
from json.encoder import encode_basestring, encode_basestring_ascii
from typing import Any, Final, Literal, TypeAlias

from skilltui.findings import SEVERITIES as SEVERITIES  # re-exported: views import them from the model
from skilltui.findings import Severity as Severity
from skilltui.findings import severity_of, stops
from skilltui.record import Record

# A value as JSON holds it (a settings file's members): what json.loads returns and json.dumps takes.
JSONValue: TypeAlias = "str | int | float | bool | list[JSONValue] | dict[str, JSONValue] | None"


class Status(StrEnum):
    """The fate of a found skill file in a runtime's listing (docs/json.md `list`). A StrEnum: it compares and
    serialises as its plain string, so `s.status == "listed"` and JSON output keep working."""

    LISTED = "listed"
    SHADOWED = "shadowed"
    INVALID = "invalid"
    DISABLED = "disabled"
    CONDITIONAL = "conditional"
    HIDDEN = "hidden"
    FILTERED = "filtered"


StatusValue = Status | Literal["listed", "shadowed", "invalid", "disabled", "conditional", "hidden", "filtered"]

LISTED: Final = Status.LISTED
SHADOWED: Final = Status.SHADOWED
INVALID: Final = Status.INVALID
DISABLED: Final = Status.DISABLED
CONDITIONAL: Final = Status.CONDITIONAL
HIDDEN: Final = Status.HIDDEN
FILTERED: Final = Status.FILTERED

FrontmatterStatus = Literal["none", "ok", "retried", "invalid", "not-mapping"]


class Source(StrEnum):
    """Where a runtime found a skill. Claude Code's and Codex's sources are this closed set; oh-my-pi names a
    provider and level (`native:project`), so `Skill.source` also accepts such an id."""

    MANAGED = "managed"
    USER = "user"
    PROJECT = "project"
    ADD_DIR = "add-dir"
    LEGACY_COMMAND = "legacy-command"
    PLUGIN = "plugin"
    PLUGIN_COMMAND = "plugin-command"
    BUNDLED = "bundled"
    BUILTIN = "builtin"
    REPO = "repo"  # Codex scopes
    SYSTEM = "system"
    ADMIN = "admin"


# PyYAML's mark: `\n  in "<unicode string>", line 2, column 30:` then, when it has the source, that line and a caret
# (compiled by `re` on first use: a list run never needs it)
_YAML_MARK = r'\n\s*in "<[^>\n]*>", line (\d+), column (\d+):?(?:\n {4}[^\n]*\n *\^[^\n]*)?'


@dataclass(repr=False)
class Diagnostic(Record):
    """One finding about the files found: what, where, how bad, and what to do about it."""

    severity: Severity
    code: str  # stable kebab-case code from the specs
    path: str | None
    message: str
    line: int | None = None
    fix: str | None = None  # what the user can do about it, when there is something
    runtime: str | None = None
    lenses: tuple[str, ...] = ()  # every check that found this same cause (the doctor reports it once)

    def __post_init__(self) -> None:
        # The code decides the severity (skilltui/findings.py): one code, one severity, in every view.
        self.severity = severity_of(self.code, self.severity)

    @property
    def summary(self) -> str:
        """The message for people, on one line: a YAML parser's position block (`in "<unicode string>", line L,
        column C:`, the source line and a caret) becomes "(line L, column C)". JSON keeps the exact message."""
        text = re.sub(_YAML_MARK, r" (line \1, column \2)", self.message)
        return "; ".join(part.strip() for part in text.split("\n") if part.strip())

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "severity": self.severity,
            "code": self.code,
            "path": self.path,
            "line": self.line,
            "message": self.message,
        }
        if self.fix:
            out["fix"] = self.fix
        if self.runtime:
            out["runtime"] = self.runtime
        if self.lenses:
            out["lenses"] = list(self.lenses)
        return out


@dataclass(repr=False)
class Frontmatter(Record):
    """A SKILL.md (or command file) split into its frontmatter and body, as one runtime reads it."""

    data: dict[str, Any]  # the parsed mapping; {} when absent, invalid, or not a mapping
    body: str
    present: bool = False  # a frontmatter block was found
    status: FrontmatterStatus = "none"
    error: str | None = None  # parser message when status is invalid
    error_line: int | None = None  # 1-based line in the file
    body_line: int = 1  # 1-based line of the file where the body starts
    early_close: bool = False  # the block was closed by a `---` inside a line
    raw: str = ""  # the block's text as written

    def read_body(self) -> str:
        """The body. A FileFrontmatter reads it from its file: call this off a UI thread, and say so by calling it."""
        return self.body


class SkillFacts(Record):
    """A runtime's own facts about one skill (parser state, file identity, policy). Each runtime subclasses it
    (runtimes/<name>/) and reads its own back through a typed accessor; views and `list --json` never read them."""

    __slots__ = ()


@dataclass(slots=True, repr=False)  # fields in the object itself: passes over 20,000 entries read one block each
class Skill(Record):
    """One entry file found by a runtime, with its fate in that runtime's listing."""

    name: str
    source: Source | str  # a Source, or an oh-my-pi `<provider>:<level>` id
    path: str  # SKILL.md or command file
    root: str  # the skills/commands root it was found under
    label: str = ""
    description: str | None = None  # after the runtime's fallbacks, before sanitising
    when_to_use: str | None = None
    plugin: str | None = None  # name@marketplace
    status: StatusValue = LISTED
    reason: str | None = None
    shadowed_by: str | None = None
    order: int | None = None
    display_name: str | None = None
    kind: str = "skill"  # skill | command
    skill_dir: str | None = None  # the folder its relative links resolve in
    frontmatter: Frontmatter | None = None
    override: str | None = None  # skillOverrides value that applies, if any
    scoped_suffix: str | None = None  # Claude add-dir scoped extra: text appended to the description
    shipped: bool = False  # its text ships inside the runtime: no file on disk holds it
    paths: list[str] | None = None  # the `paths` patterns that make it conditional, as the runtime reads them
    facts: SkillFacts | None = None  # the runtime's subclass, when it keeps facts about this skill

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "label": self.label or self.name,
            "description": self.description,
            "when_to_use": self.when_to_use,
            "source": self.source,
            "root": self.root,
            "path": self.path,
            "plugin": self.plugin,
            "status": self.status,
            "reason": self.reason,
            "shadowed_by": self.shadowed_by,
            "order": self.order,
        }
        # Exactly the keys docs/json.md documents; runtime facts (file ids, parser state) stay internal.
        out["shipped"] = self.shipped
        if self.display_name is not None:
            out["display_name"] = self.display_name
        if self.override is not None:
            out["override"] = self.override
        if self.paths:
            out["paths"] = list(self.paths)
        return out


def skill_json_text(s: Skill, enc: json.JSONEncoder) -> str:
    """`enc.encode(s.to_json())` for a compact encoder (separators "," and ":"), without building the dict: the
    command line writes thousands of these (tests/test_cold_paths.py checks it against the encoder on random
    skills). A value of a type the fields do not declare takes the encoder's own path."""
    q = encode_basestring_ascii if enc.ensure_ascii else encode_basestring  # the encoder's own string functions
    d, w, p, r, b, o, shipped = s.description, s.when_to_use, s.plugin, s.reason, s.shadowed_by, s.order, s.shipped
    try:
        if (o is not None and type(o) is not int) or type(shipped) is not bool:
            raise TypeError(o)
        name = q(s.name)
        text = (f'{{"name":{name},"label":{name if not s.label or s.label == s.name else q(s.label)},"description":{"null" if d is None else q(d)},'
                f'"when_to_use":{"null" if w is None else q(w)},"source":{q(s.source)},"root":{q(s.root)},'
                f'"path":{q(s.path)},"plugin":{"null" if p is None else q(p)},"status":{q(s.status)},'
                f'"reason":{"null" if r is None else q(r)},"shadowed_by":{"null" if b is None else q(b)},'
                f'"order":{"null" if o is None else int.__repr__(o)},"shipped":{"true" if shipped else "false"}')
        if s.display_name is not None:
            text += f',"display_name":{q(s.display_name)}'
        if s.override is not None:
            text += f',"override":{q(s.override)}'
    except TypeError:  # q() takes only strings
        return enc.encode(s.to_json())
    if s.paths:
        text += f',"paths":{enc.encode(list(s.paths))}'
    return text + "}"


class PluginBlock(StrEnum):
    """Why an installed Claude Code plugin does not load (spec/claude-code.md §10.4), first cause only."""

    NOT_ENABLED = "not-enabled"
    MANAGED_OFF = "managed-off"
    OTHER_PROJECT = "other-project"  # only install records for other projects
    MARKETPLACE_UNKNOWN = "marketplace-unknown"
    MARKETPLACE_FAILED = "marketplace-failed"  # known, but its marketplace.json is missing or unreadable
    NOT_IN_MARKETPLACE = "not-in-marketplace"  # its marketplace no longer lists it
    MANIFEST_INVALID = "manifest-invalid"
    NO_FILES = "no-files"  # no folder to read it from


@dataclass(repr=False)
class InstallRecord(Record):
    """One entry of installed_plugins.json for an id (a plugin may have one per scope and project)."""

    scope: str  # managed | user | project | local
    install_path: str | None
    version: str | None
    project_path: str | None = None
    installed_at: str | None = None
    last_updated: str | None = None
    applies: bool = False  # user/managed records always; project/local ones for this project only

    def to_json(self) -> dict[str, Any]:
        return {"scope": self.scope, "install_path": self.install_path, "version": self.version,
                "project_path": self.project_path, "applies": self.applies}


@dataclass(repr=False)
class Plugin(Record):
    """One installed (or skills-dir, or built-in) Claude Code plugin and whether it loads."""

    id: str  # name@marketplace
    name: str
    marketplace: str
    version: str | None = None
    scope: str | None = None  # install scope
    install_path: str | None = None
    root: str | None = None  # where its files are read from (install path, or the marketplace folder)
    enabled: bool = False
    decided_by: str = "default"  # managed | flag | local | project | user | add-dir | default
    decided_in: str | None = None
    marketplace_known: bool = False
    loads: bool = False
    skills: list[str] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    project_enabled: bool = False
    manifest: dict[str, Any] = field(default_factory=dict)
    kind: str = "marketplace"  # marketplace | skills-dir | builtin
    records: list[InstallRecord] = field(default_factory=list)  # in installed_plugins.json order
    blocked: PluginBlock | None = None  # why it does not load; None when it loads
    manifest_error: str | None = None  # Claude Code's error for a plugin.json it rejects
    read_from_folder: str | None = None  # a directory marketplace's folder it is read from instead of its install path
    list_root: str | None = None  # the versioned cache folder `plugin list` reads when the session has no folder
    list_manifest_error: str | None = None  # that folder's plugin.json is broken: `plugin list` reads no further
    # The first cause not to load that no setting changes (read once with its files), and its error text: with the
    # settings, it decides `blocked` (runtimes/claude/plugins.decide), so a "what if" needs no second read.
    fixed_block: PluginBlock | None = None
    fixed_error: str | None = None
    load_errors: list[str] = field(default_factory=list)  # plugin list's errors of a load (Path not found, …)
    commands_note: bool = False  # the manifest sets "commands" beside a commands/ folder (a note when it is read)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "marketplace": self.marketplace,
            "version": self.version,
            "scope": self.scope,
            "install_path": self.install_path,
            "enabled": self.enabled,
            "decided_by": self.decided_by,
            "decided_in": self.decided_in,
            "marketplace_known": self.marketplace_known,
            "loads": self.loads,
            "skills": list(self.skills),
            "commands": list(self.commands),
            "notes": list(self.notes),
            "errors": list(self.errors),
            "blocked": str(self.blocked) if self.blocked else None,
            "records": [r.to_json() for r in self.records],
        }


@dataclass(repr=False)
class CatalogFacts(Record):
    """What a discovery found beyond its rows, typed. The fields here are the ones views read; each runtime subclasses
    it with its own facts (runtimes/<name>/) and reads them back through its own typed accessor."""

    notice: str | None = None  # the runtime's word on what it did not read (Gemini CLI: an untrusted workspace)
    project_root: str | None = None  # the project's root as the runtime finds it: paths are shown relative to it
    git_root: str | None = None  # the git work tree's root, when the runtime looks for one (the doctor's project)
    watch: list[str] = field(default_factory=list)  # folders where a new skills root would change the catalog
    refused: str | None = None  # the runtime exits on its settings (the finding's message): it lists nothing


@dataclass(repr=False)
class Catalog(Record):
    """Everything one discovery run found: the single source every view reads."""

    runtime: str
    runtime_version: str
    cwd: str
    home: str
    skills: list[Skill] = field(default_factory=list)
    plugins: list[Plugin] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    settings: object = None  # the runtime's merged settings; runtimes narrow it (claude.settings.of(catalog))
    facts: CatalogFacts = field(default_factory=CatalogFacts)  # a runtime's subclass; views read only the base fields

    def stop_if_refused(self, who: str) -> None:
        """Where a finding says the runtime exits (findings.CODES' `stops`), it starts no session: nothing is listed.
        The rows stay, to be browsed, each saying why; `facts.refused` and `facts.notice` carry the runtime's error."""
        stop = next((d for d in self.diagnostics if stops(d.code)), None)
        if stop is None:
            return
        self.facts.refused = stop.message
        self.facts.notice = f"{who} does not start: {stop.message}"
        for s in self.skills:
            if s.status in (LISTED, HIDDEN, CONDITIONAL, FILTERED):  # what it would offer, were it running
                s.status, s.reason, s.order = DISABLED, f"{who} does not start ({stop.code}): nothing is listed", None

    def listed(self) -> list[Skill]:
        return sorted((s for s in self.skills if s.status == LISTED), key=lambda s: s.order or 0)

    def to_json(self, include_all: bool = True, lazy_skills: bool = False) -> dict[str, Any]:
        """`lazy_skills`: "skills" holds the Skill objects themselves, for a writer that encodes them a batch at a
        time (the command line: a big catalog's JSON is then never held whole in memory)."""
        skills = self.skills if include_all else self.listed()
        return {
            "runtime": self.runtime,
            "runtime_version": self.runtime_version,
            "cwd": self.cwd,
            "home": self.home,
            "skills": list(skills) if lazy_skills else [s.to_json() for s in skills],
            "diagnostics": [d.to_json() for d in self.diagnostics],
        }


@dataclass(repr=False)
class Options(Record):
    """Where and how to discover: the global options of spec/cli.md, resolved."""

    cwd: str
    home: str
    runtime: str = "claude"
    managed_dir: str = "/etc/claude-code"
    add_dirs: list[str] = field(default_factory=list)
    settings_flag: str | None = None  # --settings: JSON text (starts with "{") or a file path
    env: dict[str, str] = field(default_factory=dict)  # the environment the runtime would see
    omp_rules: str = "18"  # oh-my-pi rule set: "14" or "18"
    native_dir: str = ".omp"  # oh-my-pi native folder name (".xcsh" for the fork)
    # Settings changes not yet written, as (file, key path, value): "what if" views apply them in memory only.
    pending: list[tuple[str, tuple[str, ...], object]] = field(default_factory=list)
