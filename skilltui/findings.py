"""Every finding code, its severity and what the runtime (or check) does about it: the one table the diagnostics use
(issue #13, "severity that means something").

- error: the runtime will not load or offer what the author meant (not read, not found, skipped, refused);
- warning: it loads, but something will drift or surprise (a field ignored, capped, retried, a guess);
- info: worth knowing (a choice someone made, a fact of precedence).

`Diagnostic` takes its severity from here, whatever its caller passed, so a code cannot have two severities and no
view can disagree with another. A new code goes here first (tests/test_findings.py checks every code emitted).
"""

from __future__ import annotations

from typing import Literal, NamedTuple

Severity = Literal["error", "warning", "info"]
SEVERITIES: tuple[Severity, ...] = ("error", "warning", "info")


class Code(NamedTuple):
    severity: Severity
    does: str  # what the runtime does with what was found, in one line
    stops: bool = False  # the runtime exits on it: no session starts, nothing is listed (Catalog.stop_if_refused)


_E: Severity = "error"
_W: Severity = "warning"
_I: Severity = "info"

CODES: dict[str, Code] = {
    # ---- Claude Code 2.1.332: skills and commands (runtimes/claude/discovery.py)
    "claude-unreadable": Code(_E, "Claude Code cannot read the file and does not load the skill"),
    "claude-dir-unreadable": Code(_E, "Claude Code cannot list the skills or commands folder and loads nothing in it"),
    "claude-dir-capped": Code(_W, "skilltui shows the first 20,000 entries of a folder (a bound on hostile folders); "
                                  "Claude Code reads the others too"),
    "claude-link-broken": Code(_E, "the link does not resolve; Claude Code does not load the skill"),
    "claude-skill-too-large": Code(_E, "Claude Code skips a SKILL.md over 1,000,000 bytes"),
    "claude-skill-md-lowercase": Code(_E, "Claude Code reads SKILL.md only (case-sensitive); skill.md is never read"),
    "claude-nested-skill-ignored": Code(_E, "Claude Code reads SKILL.md one folder below a skills folder; a deeper one is never read"),
    "claude-loose-skill-file": Code(_E, "a SKILL.md directly in a skills folder is no skill for Claude Code (it wants <folder>/SKILL.md)"),
    "claude-name-invalid": Code(_E, "Claude Code does not offer an entry whose name it rejects"),
    "claude-plugin-item-unlisted": Code(_E, "Claude Code does not list a plugin skill without description or when_to_use"),
    "claude-plugin-command-unlisted": Code(_W, "a plugin command without description is left out of the model's listing; typed, it works"),
    "claude-frontmatter-invalid": Code(_W, "Claude Code loads the skill but ignores every frontmatter field"),
    "claude-frontmatter-early-close": Code(_W, "a '---' inside a line ends the frontmatter; the rest becomes body"),
    "claude-frontmatter-retried": Code(_W, "the YAML parses only after Claude Code's quoting retry; another runtime may not retry"),
    "claude-description-ignored": Code(_W, "Claude Code ignores a description that is not a string, number or boolean"),
    "claude-description-capped": Code(_W, "the listing cuts description and when_to_use at the cap"),
    "file-invalid-utf8": Code(_W, "invalid bytes are read as U+FFFD"),
    "claude-walk-capped": Code(_W, "skilltui stopped reading a huge commands tree; Claude Code may read more of it"),
    "claude-listing-over-budget": Code(_W, "over the listing budget, entries lose their description"),
    # A loose .md beside the skill folders is, by design, not a skill: READMEs and notes live there (not meant as skills).
    "claude-loose-md-ignored": Code(_I, "Claude Code reads only <folder>/SKILL.md; a loose .md in a skills folder is not a skill"),
    "claude-description-missing": Code(_I, "Claude Code takes the first body line (or a default) as the description"),
    "claude-conditional": Code(_I, "listed once a file matching `paths` is touched, as the author asked"),
    "claude-shadowed": Code(_I, "an entry of higher precedence takes the name (precedence by design)"),
    "claude-duplicate-file": Code(_I, "the same file reached twice is loaded once"),
    "claude-display-name-unused": Code(_I, "the frontmatter name cannot be the label; the folder name is shown"),
    # ---- Claude Code: plugins and settings (runtimes/claude/plugins.py, settings.py)
    "plugin-file-unreadable": Code(_E, "a plugin registry file does not parse; the plugins it records do not load"),
    "plugin-manifest-invalid": Code(_E, "Claude Code rejects the plugin.json and loads nothing of the plugin"),
    "plugin-install-path-invalid": Code(_E, "Claude Code loads nothing from an install path it cannot use"),
    "plugin-not-installed": Code(_E, "an enabled plugin without an install record loads nothing"),
    "plugin-marketplace-unknown": Code(_E, "a plugin of an unknown marketplace does not load"),
    "plugin-marketplace-failed": Code(_E, "its marketplace cannot be read, so the plugin does not load"),
    "plugin-not-in-marketplace": Code(_E, "its marketplace no longer lists it, so the plugin does not load"),
    "plugin-other-project": Code(_E, "installed only for other projects: it does not load here"),
    "plugin-version-list": Code(_E, "an enabledPlugins version list counts as off: the plugin does not load"),
    "plugin-path-escapes": Code(_E, "a skills path that leaves the plugin folder is ignored; its skills are not loaded"),
    "plugin-ineffective-disable": Code(_W, "disabled in user settings, yet a higher scope enables it: it loads"),
    "plugin-disabled": Code(_I, "installed but not enabled, as the settings say"),
    "plugin-managed-off": Code(_I, "managed settings turn it off"),
    "settings-invalid-value": Code(_E, "Claude Code skips the whole settings file"),
    "settings-unparseable": Code(_E, "Claude Code reads the settings file as empty"),
    # ---- Codex 0.171.0 (runtimes/codex/discovery.py)
    "codex-home-missing": Code(_E, "CODEX_HOME names no folder: Codex refuses to start (oracle, 2026-12-03)", stops=True),
    "codex-config-invalid": Code(_E, "config.toml cannot be read or does not parse: Codex refuses to start (oracle, 2026-12-03)", stops=True),
    "codex-config-ignored": Code(_W, "Codex ignores a config value of the wrong shape and uses its default"),
    "codex-config-selector-invalid": Code(_W, "Codex ignores the [[skills.config]] entry"),
    "codex-unreadable-folder": Code(_E, "Codex skips a folder it cannot read; its skills are not found"),
    "codex-scan-truncated": Code(_E, "Codex stops scanning after its folder cap; skills beyond are not found"),
    "codex-too-deep": Code(_E, "Codex scans a fixed depth; a deeper SKILL.md is not found"),
    "codex-read-failed": Code(_E, "Codex cannot read the SKILL.md and rejects the skill"),
    "codex-frontmatter-missing": Code(_E, "Codex rejects a SKILL.md without frontmatter"),
    "codex-yaml-invalid": Code(_E, "Codex rejects a SKILL.md whose frontmatter does not parse"),
    "codex-name-too-long": Code(_E, "Codex rejects a name over its length limit"),
    "codex-description-missing": Code(_E, "Codex rejects a SKILL.md without description"),
    "codex-openai-yaml-invalid": Code(_W, "Codex ignores agents/openai.yaml and loads the skill without it"),
    "codex-description-long": Code(_W, "the prompt cuts the description"),
    "codex-budget-exceeded": Code(_W, "over its prompt budget, Codex drops descriptions"),
    "codex-duplicate-name": Code(_I, "Codex keeps every copy of a name"),
    "codex-implicit-off": Code(_I, "invocable by name only, as allow_implicit_invocation: false asks"),
    # ---- oh-my-pi 18.3.4 / 14 (runtimes/omp/)
    "omp-profile-invalid": Code(_E, "omp refuses the profile name and exits (oracle, 2026-12-03)", stops=True),
    "omp-settings-unreadable": Code(_E, "omp fails to start on a settings file it cannot read"),
    "omp-settings-invalid": Code(_E, "omp ignores (or moves aside) a settings file that does not parse"),
    "omp-settings-entry-type": Code(_E, "a list setting with entries that are not strings: omp exits (oracle, 2026-12-03)", stops=True),
    "omp-settings-type": Code(_W, "a list setting that is not a list: omp starts and does not use it (oracle, 2026-12-03)"),
    "omp-plugin-registry-invalid": Code(_E, "omp loads no plugin from a registry that does not parse"),
    "omp-read-failed": Code(_E, "omp cannot read the skills folder and finds nothing in it"),
    "omp-undecodable-name": Code(_E, "omp cannot open a folder whose name is not UTF-8; no skill found"),
    "omp-dangling-link": Code(_E, "the link points nowhere; omp finds no skill there"),
    "omp-unreadable-skill": Code(_E, "omp skips a SKILL.md it cannot read"),
    "omp-empty-skill": Code(_E, "omp skips an empty SKILL.md"),
    "omp-description-missing": Code(_E, "omp skips a SKILL.md without description in this provider"),
    "omp-loose-skill-file": Code(_E, "a SKILL.md directly in a skills folder is no skill for omp (it wants <folder>/SKILL.md)"),
    "omp-invalid-utf8": Code(_W, "invalid bytes are read as U+FFFD"),
    "omp-frontmatter-fallback": Code(_W, "the YAML does not parse; omp reads `key: value` lines instead"),
    "omp-name-collision": Code(_W, "omp keeps the first of two skills with one name and warns"),
    # Dot-folders are hidden on purpose (Codex's .system, .git); files deeper than a skill's folder are mostly its
    # own examples and assets (1,374 in the corpus), not skills meant for the listing.
    "omp-hidden-ignored": Code(_I, "omp skips dot-folders"),
    "omp-nested-ignored": Code(_I, "omp reads SKILL.md one level down only; deeper ones are not skills for it"),
    "omp-file-truncated": Code(_I, "skilltui read the first part of a very large file"),
    "omp-skill-disabled": Code(_I, "enabled: false in the frontmatter"),
    "omp-plugin-skipped": Code(_I, "omp skips a plugin install record that its settings turn off"),
    "omp-shadowed": Code(_I, "another skill takes the name (precedence by design)"),
    "omp-duplicate-file": Code(_I, "the same file reached twice is loaded once"),
    "omp-source-disabled": Code(_I, "omp's settings (or defaults) leave this source off"),
    "omp-filtered": Code(_I, "omp's settings filter this skill out"),
    "omp-skills-disabled": Code(_I, "skills.enabled is false: omp loads no skills"),
    "omp-settings-legacy": Code(_I, "omp migrates a legacy settings.json on first start"),
    # ---- Gemini CLI 0.61.0 (runtimes/gemini/, checks/gemini.py)
    "gemini-settings-invalid": Code(_E, "Gemini CLI exits with status 52 and does not start", stops=True),
    "gemini-system-settings-skipped": Code(_E, "Gemini CLI skips a system settings file it does not trust"),
    "gemini-extension-skipped": Code(_E, "Gemini CLI skips the extension and its skills"),
    "gemini-too-deep": Code(_E, "Gemini CLI reads SKILL.md one folder below a root only; a deeper one is not found"),
    "gemini-invalid-frontmatter": Code(_E, "Gemini CLI skips the file without a word"),
    "gemini-yaml-fallback": Code(_W, "the YAML does not parse; Gemini CLI reads name and description line by line"),
    "gemini-order-race": Code(_W, "which of two same-named skills wins can differ between runs"),
    "gemini-name-sanitized": Code(_W, "the name is offered with : \\ / < > * ? \" | replaced by -"),
    "gemini-loaded-twice": Code(_W, "one file reached twice: Gemini CLI keeps the later path and prints a conflict"),
    "gemini-alias-shadows": Code(_W, "the .agents alias read later replaces this skill"),
    "gemini-hidden-dir": Code(_I, "Gemini CLI skips dot-folders and node_modules (hidden on purpose)"),
    "gemini-workspace-untrusted": Code(_I, "an untrusted workspace's skills and settings are not read, as the user chose"),
    "gemini-workspace-ignored": Code(_I, "a workspace skill is read only in a trusted folder"),
    "gemini-prompt-blank-lines": Code(_I, "the prompt shortens 3+ line breaks to 2"),
    "gemini-builtin-overridden": Code(_I, "a skill of the same name replaces the built-in one"),
    "gemini-overridden": Code(_I, "a later root's skill of the same name replaces this one (precedence by design)"),
    "gemini-disabled": Code(_I, "skills.disabled turns it off"),
    "gemini-skills-off": Code(_I, "skills.enabled is false: no skills at all"),
    # ---- lenses of the doctor (doctor.py, checks/invisible.py)
    "skill-link-broken": Code(_W, "the skill loads; a file it links to is missing"),
    "skill-link-escapes": Code(_W, "the skill loads; a link leaves its folder and is not followed"),
    "invisible-characters": Code(_W, "the model reads characters a person does not see"),
    # A check that could not run says nothing about the runtime: the finding names the check.
    "doctor-check-failed": Code(_W, "a check could not run; its findings are missing"),
    "doctor-failed": Code(_W, "the checks could not run; findings are missing"),
    "delivery-check-failed": Code(_W, "the delivery checks could not run"),
    "plugin-check-failed": Code(_W, "the plugin checks could not run"),
    # ---- Agent Skills conformance (checks/conformance.py): the spec, not a runtime; runtimes load these files
    "spec-missing-skill-md": Code(_W, "no SKILL.md where a skill folder was named"),
    "spec-skill-md-lowercase": Code(_I, "skills-ref accepts skill.md; runtimes may not"),
    "spec-skill-md-unreadable": Code(_W, "the SKILL.md cannot be read"),
    "spec-no-frontmatter": Code(_W, "the spec requires frontmatter"),
    "spec-yaml-invalid": Code(_W, "skills-ref's strict YAML rejects the frontmatter"),
    "spec-frontmatter-not-mapping": Code(_W, "the frontmatter is not a mapping"),
    "spec-unexpected-field": Code(_I, "a field the spec does not define"),
    "spec-name-missing": Code(_W, "the spec requires name"),
    "spec-name-too-long": Code(_W, "name over the spec's 64 characters"),
    "spec-name-not-lowercase": Code(_W, "the spec wants a lowercase name"),
    "spec-name-hyphen-edge": Code(_W, "the spec forbids a leading or trailing hyphen"),
    "spec-name-double-hyphen": Code(_W, "the spec forbids --"),
    "spec-name-invalid-chars": Code(_W, "the spec allows letters, digits and -"),
    "spec-name-dir-mismatch": Code(_W, "the spec wants name = folder name"),
    "spec-description-missing": Code(_W, "the spec requires description"),
    "spec-description-too-long": Code(_W, "description over the spec's 1024 characters"),
    "spec-compatibility-not-string": Code(_W, "compatibility must be a string"),
    "spec-compatibility-too-long": Code(_W, "compatibility over the spec's 500 characters"),
    "spec-body-too-long": Code(_I, "a long body costs context when loaded"),
    # ---- delivery model (checks/delivery.py; opt-in, spec/delivery.md §1.2)
    "claude-agents-folder-not-read": Code(_I, "Claude Code does not read .agents/skills (Codex does)"),
    "claude-canonical-unreachable": Code(_E, "Claude Code does not get the canonical skill"),
    "claude-canonical-not-offered": Code(_W, "Claude Code finds the canonical skill but something keeps it out of the listing"),
    "claude-canonical-shadowed": Code(_W, "Claude Code lists another copy for the name"),
    "claude-link-missing": Code(_E, "a link of the chain to .agents/skills is missing; Claude Code finds nothing"),
    "claude-link-dangling": Code(_E, "the link of the chain points nowhere; Claude Code finds nothing"),
    "claude-link-wrong-target": Code(_E, "the chain leads elsewhere; Claude Code finds no skills there"),
    "claude-link-not-symlink": Code(_W, "a real folder instead of the link: copies drift"),
    "claude-link-absolute": Code(_I, "an absolute link breaks when the repository moves"),
    "codex-twin-missing": Code(_E, "the registered Codex twin does not exist"),
    "codex-twin-invalid": Code(_E, "Codex rejects the twin"),
    "codex-twin-name-mismatch": Code(_E, "Codex offers the twin under another name"),
    "codex-twin-registry-invalid": Code(_E, "the twin registry cannot be used"),
    "codex-twin-syncs-with-invalid": Code(_E, "the twin's pin cannot be read"),
    "codex-twin-syncs-with-missing": Code(_E, "the twin has no pin to its canonical"),
    "codex-twin-version-mismatch": Code(_E, "the twin is pinned to another version of its canonical"),
    "codex-twin-orphan": Code(_W, "a twin whose canonical does not exist"),
    "codex-twin-registry-missing": Code(_W, "twins without a registry"),
    "codex-twin-registry-stale": Code(_W, "the registry names files that do not exist"),
    "codex-twin-duplicate-listing": Code(_W, "Codex lists the name twice"),
    "codex-canonical-version-missing": Code(_W, "the pin cannot be checked"),
    "agy-hardlink-missing": Code(_E, "AGY does not get the skill"),
    "agy-hardlink-broken": Code(_E, "AGY's copy is not the canonical file"),
    "agy-projection-hash-missing": Code(_E, "the adapter records no projection hash"),
    "agy-projection-stale": Code(_E, "the canonical changed after the adapter was generated"),
    "agy-adapter-missing": Code(_W, "no adapter names the skill"),
    "agy-adapter-orphan": Code(_W, "an adapter whose skill does not exist"),
    "delivery-unreadable": Code(_W, "a delivery file cannot be read"),
    # ---- plugin consistency (checks/delivery.py check_plugin): what Claude Code does with the plugin's files
    "plugin-unreadable": Code(_E, "a file of the plugin cannot be read, so Claude Code cannot load it"),
    "plugin-manifest-missing": Code(_E, "no plugin.json: not a plugin Claude Code loads"),
    "plugin-manifest-name-invalid": Code(_E, "Claude Code refuses a plugin.json without a usable name and loads nothing"),
    "plugin-path-invalid": Code(_E, "a component path that is not a path loads nothing"),
    "plugin-path-missing": Code(_E, "a component path that does not exist loads nothing"),
    "plugin-description-missing": Code(_E, "Claude Code does not list a plugin skill without description or when_to_use"),
    "plugin-command-description-missing": Code(_W, "a command without description is left out of the model's listing; typed, it works"),
    "plugin-hooks-invalid": Code(_E, "Claude Code refuses a hooks.json of another shape and loads none of its hooks"),
    "plugin-hook-command-missing": Code(_E, "a command hook without a command runs nothing"),
    "plugin-hook-root-var-missing": Code(_E, "the hook runs from the session's folder, so the script it names is not found"),
    "plugin-mcp-config-invalid": Code(_E, "Claude Code cannot read the MCP servers of this file"),
    "plugin-mcp-config-missing": Code(_E, "the skill names an MCP tool of a server the plugin does not declare"),
    "plugin-mcp-tool-unknown-server": Code(_E, "the skill names a tool that is not an MCP tool name"),
    "plugin-capability-undefined": Code(_E, "the skill requires a capability the guide never defines"),
    "plugin-command-without-skill": Code(_E, "the command delegates to a skill that does not exist"),
    "plugin-skill-name-mismatch": Code(_E, "the skill's name differs from its slash command"),
    "plugin-frontmatter-invalid": Code(_W, "Claude Code ignores every frontmatter field of the file"),
    "plugin-commands-folder-ignored": Code(_W, "plugin.json sets `commands`, so Claude Code ignores the commands/ folder"),
    "plugin-skill-dir-name-mismatch": Code(_W, "Claude Code invokes the skill by its folder name, not its `name`"),
    "plugin-command-alias-collision": Code(_W, "an alias equals another command's name"),
    "plugin-command-description-mismatch": Code(_W, "command and skill describe themselves differently"),
    "plugin-command-not-delegating": Code(_W, "the command does more than delegate to its skill"),
    "plugin-hook-event-unknown": Code(_W, "not a hook event of Claude Code 2.1.332"),
    "plugin-hook-timeout-invalid": Code(_W, "the hook's timeout is not a positive number"),
    "plugin-mcp-args-invalid": Code(_W, "mcp_args is not a mapping"),
    "plugin-hook-type-unexpected": Code(_I, "a hook type the convention does not use"),
    "plugin-mcp-tool-unverified": Code(_I, "the tool cannot be confirmed offline"),
    "plugin-capability-guide-missing": Code(_I, "no capability guide set: the tokens were not checked"),
    "plugin-capability-section-missing": Code(_I, "the skill lists no capabilities"),
    "plugin-skill-without-command": Code(_I, "a skill without a slash command of its own"),
}


def stops(code: str) -> bool:
    """Whether the runtime exits on this finding (and so lists nothing)."""
    entry = CODES.get(code)
    return entry is not None and entry.stops


def severity_of(code: str, default: Severity) -> Severity:
    """The table's severity for `code`; `default` (the caller's) only for a code the table does not know yet."""
    known = CODES.get(code)
    return known.severity if known is not None else default
