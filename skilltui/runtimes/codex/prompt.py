"""What the model sees from Codex CLI 0.171.0's skills (spec/codex.md §7): a pure function over a catalog.

The developer message is

    <skills_instructions>
    ## Skills
    <intro paragraph>
    ### Skill roots
    - `r0` = `<absolute root>`
    ### Available skills
    - <name>: <description> (file: r0/<path below that root>)
    </skills_instructions>

Budget (as Codex computes it): with a known context window, 2% of it in tokens, a text costing ceil(UTF-8 bytes / 4)
tokens (about 4 characters a token); with no window, 8000 characters. The alias table is paid for out of it: what the
body with the roots table costs over the source-locator body (its longer intro leaves one root ~5 tokens, each further
root ~38 at a 120-character tree path; oracle, 2026-12-03). When the full
lines do not fit, descriptions are shortened one character at a time, round-robin over the skills in prompt order; when
even the bare lines (no description) do not fit, the bare lines are taken in prompt order while they fit and the rest
are dropped.

Shipped system skills whose SKILL.md is not on disk yet (Codex writes `.system` at start) are entries without text:
their line is not printed (their text is Codex's, not ours) and they are costed as bare lines.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from skilltui.model import Catalog, JSONValue, Skill, SkillFacts
from skilltui.record import Record
from skilltui.runtimes.codex.models import ModelChoice


@dataclass(slots=True, repr=False)
class CodexSkillFacts(SkillFacts):
    """What Codex's discovery keeps about one skill beyond its row."""

    scope: str  # repo | user | system | admin
    enabled: bool = True  # [[skills.config]] can turn it off
    decided_by: tuple[str | None, int | None, str] | None = None  # (file, line, selector) of the rule that did
    found_path: str | None = None  # the path through the links the scan walked, when it is not the real path
    error: str | None = None  # why Codex rejects the file; None when it loads
    error_code: str | None = None
    error_line: int | None = None
    name_line: int | None = None
    description_line: int | None = None
    namespace: str | None = None  # the plugin namespace that prefixes its name
    yaml_repaired: bool = False
    short_description: str | None = None
    metadata_path: str | None = None  # agents/openai.yaml, when it was read
    interface: dict[str, str] | None = None
    dependencies: dict[str, JSONValue] | None = None
    policy: dict[str, JSONValue] | None = None
    allow_implicit_invocation: bool | None = None  # policy.allow_implicit_invocation, when set
    implicit_line: int | None = None


def skill_facts(s: Skill) -> CodexSkillFacts | None:
    """A Codex skill's facts; None for a skill of another runtime."""
    return s.facts if isinstance(s.facts, CodexSkillFacts) else None


OPEN_TAG = "<skills_instructions>"
CLOSE_TAG = "</skills_instructions>"
INTRO_WITH_ALIASES = (
    "A skill is a set of local instructions to follow that is stored in a `SKILL.md` file. Below is the list of "
    "skills that can be used. Each entry includes a name, description, and a short path that can be expanded into an "
    "absolute path using the skill roots table."
)
INTRO_WITH_ABSOLUTE_PATHS = (
    "A skill is a set of local instructions to follow that is stored in a `SKILL.md` file. Below is the list of "
    "skills that can be used. Each entry includes a name, description, and file path so you can open the source for "
    "full instructions when using a specific skill."
)
# Models whose entry in the bundled models.json has include_skills_usage_instructions (gpt-5.5 in 0.171.0) get this
# section after the list (the text as 0.171.0 prints it; the binary holds only the alias-table variant).
HOW_TO_USE_HEADING = "### How to use skills"
HOW_TO_USE = (
    "- Discovery: The list above is the skills available in this session (name + description + short path). Skill bodies live on disk at the listed paths after expanding the matching alias from `### Skill roots`.\n"
    "- Trigger rules: If the user names a skill (with `$SkillName` or plain text) OR the task clearly matches a skill's description shown above, you must use that skill for that turn. Multiple mentions mean use them all. Do not carry skills across turns unless re-mentioned.\n"
    "- Missing/blocked: If a named skill isn't in the list or the path can't be read, say so briefly and continue with the best fallback.\n"
    "- How to use a skill (progressive disclosure):\n"
    "  1) After deciding to use a skill, the main agent must expand the listed short `path` with the matching alias from `### Skill roots`, then open and read its `SKILL.md` completely before taking task actions. If a read is truncated or paginated, continue until EOF.\n"
    "  2) When `SKILL.md` references relative paths (e.g., `scripts/foo.py`), resolve them relative to the directory containing that expanded `SKILL.md` first, and only consider other paths if needed.\n"
    "  3) If `SKILL.md` points to extra folders such as `references/`, use its routing instructions to identify the files required for the task. The main agent must read each required instruction or reference file itself before acting on it. Do not delegate reading, summarizing, or interpreting skill instructions to a subagent. Subagents may still perform task work when the selected skill allows it.\n"
    "  4) If `scripts/` exist, prefer running or patching them instead of retyping large code blocks.\n"
    "  5) If `assets/` or templates exist, reuse them instead of recreating from scratch.\n"
    "- Coordination and sequencing:\n"
    "  - If multiple skills apply, choose the minimal set that covers the request and state the order you'll use them.\n"
    "  - Announce which skill(s) you're using and why (one short line). If you skip an obvious skill, say why.\n"
    "- Context hygiene:\n"
    "  - Progressive disclosure applies to selecting relevant files, not partially reading a selected instruction file. Do not load unrelated references, scripts, or assets.\n"
    "  - Avoid deep reference-chasing: prefer opening only files directly linked from `SKILL.md` unless you're blocked.\n"
    "  - When variants exist (frameworks, providers, domains), pick only the relevant reference file(s) and note that choice.\n"
    "- Safety and fallback: If a skill can't be applied cleanly (missing files, unclear instructions), state the issue, pick the next-best approach, and continue."
)
# The source-locator variant (0.171.0 renders it for executor/cloud skills; for file skills it is only the yardstick
# the roots table is priced against, see _locator_body).
INTRO_WITH_LOCATORS = (
    "A skill is a set of instructions provided through a `SKILL.md` source. Below is the list of skills "
    "that can be used. Each entry includes a name, description, and source locator. `file` locators are "
    "on the host filesystem, `executor package` locators are owned by their execution environment, "
    "`cloud package` locators are opaque package identifiers, and `custom resource` locators use their "
    "provider's access mechanism."
)
DEFAULT_CHAR_BUDGET = 8000
WINDOW_PERCENT = 2
BYTES_PER_TOKEN = 4
MAX_DESCRIPTION_CHARS = 1024  # longer descriptions are cut to 1021 characters + "..."
CUT_SUFFIX = "..."
PROMPT_SCOPE_RANK = {"system": 0, "admin": 1, "repo": 2, "user": 3}

FULL = "full"
SHORTENED = "shortened"
DROPPED = "dropped"


# ---------------------------------------------------------------- small pure helpers
def cut_description(description: str) -> str:
    """Codex's model-visible cut: over 1024 characters -> the first 1021 + '...'."""
    if len(description) <= MAX_DESCRIPTION_CHARS:
        return description
    return description[: MAX_DESCRIPTION_CHARS - len(CUT_SUFFIX)] + CUT_SUFFIX


def path_key(path: str) -> tuple[str, ...]:
    """Rust `Path` ordering: component by component (so `a/b/c` < `a/b-c`)."""
    return tuple(part for part in path.split("/") if part not in ("", "."))


def prompt_sort_key(scope: str, name: str, path: str) -> tuple[int, str, str]:
    """Scope, name, then the canonical path as a plain string (`foo-60/SKILL.md` before `foo/SKILL.md`, unlike
    skills/list's component order; oracle, 2026-12-03)."""
    return (PROMPT_SCOPE_RANK.get(scope, 9), name, path)


def budget_for(context_window: int | None) -> tuple[int, str]:
    """(limit, unit): 2% of a known window in tokens (at least 1), else 8000 characters."""
    if context_window is not None and context_window > 0:
        return max(1, context_window * WINDOW_PERCENT // 100), "tokens"
    return DEFAULT_CHAR_BUDGET, "chars"


def text_cost(text: str, unit: str) -> int:
    if unit == "tokens":
        return math.ceil(len(text.encode("utf-8", "surrogatepass")) / BYTES_PER_TOKEN)
    return len(text)


def _line(name: str, description: str, file: str) -> str:
    return f"- {name}: {description} (file: {file})" if description else f"- {name}: (file: {file})"


def _locator_body() -> str:
    """The body without a roots table that 0.171.0 prices the aliased body against: intro and list header only (no
    `### Skill roots` header, no how-to-use section even for a model that gets one; oracle, 2026-12-03)."""
    return "\n" + "\n".join(["## Skills", INTRO_WITH_LOCATORS, "### Available skills"]) + "\n"


def _body(root_lines: Sequence[str], skill_lines: Sequence[str], how_to_use: bool = False) -> str:
    lines = ["## Skills"]
    if root_lines:
        lines += [INTRO_WITH_ALIASES, "### Skill roots", *root_lines]
    else:
        lines.append(INTRO_WITH_ABSOLUTE_PATHS)
    lines += ["### Available skills", *skill_lines]
    if how_to_use:
        lines += [HOW_TO_USE_HEADING, HOW_TO_USE]
    return "\n" + "\n".join(lines) + "\n"


# ---------------------------------------------------------------- result
@dataclass(repr=False)
class PromptEntry(Record):
    name: str
    scope: str
    path: str  # the SKILL.md, canonical
    file: str  # as written after "(file: ": rN/<relative> or the absolute path
    description: str | None  # as the prompt would carry it in full (after the 1024 cut); None = text not known
    state: str = FULL  # full | shortened | dropped
    shown_chars: int = 0  # description characters that made it into the line
    cut_1024: bool = False
    shipped: bool = False  # a system skill Codex writes at start; its text is not reproduced
    line: str | None = None  # the exact line; None when dropped or when the text is not known
    full_cost: int = 0
    bare_cost: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "scope": self.scope,
            "path": self.path,
            "file": self.file,
            "state": self.state,
            "description_chars": None if self.description is None else len(self.description),
            "shown_chars": self.shown_chars,
            "cut_1024": self.cut_1024,
            "shipped": self.shipped,
            "line": self.line,
            "full_cost": self.full_cost,
            "bare_cost": self.bare_cost,
        }


@dataclass(repr=False)
class CodexPrompt(Record):
    text: str  # the developer message; "" when no skill reaches the prompt (Codex then sends none)
    budget: int  # the limit, in `unit`
    unit: str  # tokens | chars
    context_window: int | None
    roots: list[tuple[str, str]] = field(default_factory=list)  # (alias, absolute root), r0 first
    entries: list[PromptEntry] = field(default_factory=list)  # prompt order, dropped ones included
    table_cost: int = 0  # what the alias table costs (paid before any line)
    total_full: int = 0  # what every line in full would cost
    used: int = 0  # what the chosen lines cost (the table is not counted against the budget)
    over_budget: bool = False
    warning: str | None = None
    shipped_not_shown: list[str] = field(default_factory=list)  # names whose line text is Codex's own
    model: ModelChoice | None = None  # the model the window came from, when it came from the catalog

    @property
    def budget_chars(self) -> int:
        """The budget in characters (tokens x 4 for a known window)."""
        return self.budget * BYTES_PER_TOKEN if self.unit == "tokens" else self.budget

    def included(self) -> list[PromptEntry]:
        return [e for e in self.entries if e.state != DROPPED]

    def to_json(self) -> dict[str, Any]:
        return {
            "runtime": "codex",
            "runtime_version": "0.171.0",
            "simulation": True,
            "context_window": self.context_window,
            "model": None if self.model is None else self.model.to_json(),
            "budget": self.budget,
            "unit": self.unit,
            "budget_chars": self.budget_chars,
            "table_cost": self.table_cost,
            "total_full": self.total_full,
            "used": self.used,
            "over_budget": self.over_budget,
            "warning": self.warning,
            "roots": [{"alias": a, "path": p} for a, p in self.roots],
            "entries": [e.to_json() for e in self.entries],
            "shipped_not_shown": list(self.shipped_not_shown),
            "text": self.text,
        }


# ---------------------------------------------------------------- the rendering
def _share_evenly(descs: list[str], bare_bytes: list[int] | None, remaining: int) -> list[int]:
    """Characters of each description kept when `remaining` is handed out one character at a time, round-robin
    over the entries in prompt order (Codex's loop). `bare_bytes` (token budgets only): UTF-8 bytes of each bare
    line plus its newline; None for a character budget, where the first character costs 2 (it brings the space
    before it) and each further one 1."""
    n = len(descs)
    alloc = [0] * n
    if bare_bytes is None:

        def extra(i: int, k: int) -> int:
            return 0 if k == 0 else k + 1

        lengths = [len(d) for d in descs]

        def spent(level: int) -> int:
            return sum(extra(i, min(L, level)) for i, L in enumerate(lengths))

        lo, hi = 0, max(lengths, default=0)
        while lo < hi:  # whole rounds first (every line reaching `lo` costs spent(lo)), found by bisection
            mid = (lo + hi + 1) // 2
            if spent(mid) <= remaining:
                lo = mid
            else:
                hi = mid - 1
        alloc = [min(L, lo) for L in lengths]
        remaining -= spent(lo)
    else:
        prefix = []
        for d in descs:
            acc, row = 0, [0]
            for ch in d:
                acc += len(ch.encode("utf-8", "surrogatepass"))
                row.append(acc)
            prefix.append(row)

        def extra(i: int, k: int) -> int:
            return _token_extra(bare_bytes[i], prefix[i][k])

    current = [extra(i, alloc[i]) for i in range(n)]
    active = [i for i in range(n) if alloc[i] < len(descs[i])]
    while active:  # the remaining rounds, exactly as Codex runs them
        changed = False
        for i in active:
            nxt = extra(i, alloc[i] + 1)
            delta = max(0, nxt - current[i])
            if delta <= remaining:
                alloc[i] += 1
                current[i] = nxt
                remaining -= delta
                changed = True
        active = [i for i in active if alloc[i] < len(descs[i])]
        if not changed:
            break
    return alloc


def _token_extra(bare_line_bytes: int, desc_bytes: int) -> int:
    """Extra tokens of a line carrying `desc_bytes` of description over its bare form (Codex's DescriptionBudgetLine)."""
    if desc_bytes == 0:
        return 0
    minimum = math.ceil(bare_line_bytes / BYTES_PER_TOKEN)
    return max(0, math.ceil((bare_line_bytes + desc_bytes + 1) / BYTES_PER_TOKEN) - minimum)


def render_prompt(skills: Iterable[Skill], roots: Sequence[str], context_window: int | None = None,
                  how_to_use: bool = False) -> CodexPrompt:
    """Render the `<skills_instructions>` message for the skills that reach the prompt.

    `skills`: the prompt-eligible skills (enabled, implicit invocation allowed), any order; each needs name, source
    (the Codex scope), path, root (the canonical root that first found it) and description (None = text unknown,
    for shipped system skills). `roots`: every scanned root in scan order (canonical), for the r0, r1, … aliases.
    """
    limit, unit = budget_for(context_window)
    ordered = sorted(skills, key=lambda s: prompt_sort_key(s.source, s.name, s.path))
    prompt = CodexPrompt(text="", budget=limit, unit=unit, context_window=context_window)
    if not ordered:
        return prompt

    # alias table: the roots that hold a prompt skill, in scan order
    used = {s.root for s in ordered}
    alias_roots = []
    for root in roots:
        if root in used and root not in alias_roots:
            alias_roots.append(root)
    for s in ordered:  # a root missing from `roots` still gets an alias, after the others
        if s.root not in alias_roots:
            alias_roots.append(s.root)
    root_lines = [f"- `r{i}` = `{root}`" for i, root in enumerate(alias_roots)]
    # What the table costs = the aliased body's cost over the source-locator body's (whose longer intro often makes
    # the difference negative: then nothing is taken), as 0.171.0 prices it (oracle, 2026-12-03).
    table_cost = max(0, text_cost(_body(root_lines, []), unit) - text_cost(_locator_body(), unit))
    if table_cost >= limit:  # the table alone does not fit: absolute paths, as Codex falls back
        alias_roots, root_lines, table_cost = [], [], 0
    alias = {root: f"r{i}" for i, root in enumerate(alias_roots)}
    remaining_limit = limit - table_cost

    entries: list[PromptEntry] = []
    for s in ordered:
        a = alias.get(s.root)
        prefix = s.root.rstrip("/") + "/"
        facts = skill_facts(s)
        where = (facts.found_path if facts else None) or s.path  # through the link names the scan walked
        if a is not None and where.startswith(prefix):
            file = f"{a}/{where[len(prefix):]}"
        else:
            file = s.path
        shipped = s.shipped and s.description is None
        desc = None if s.description is None else cut_description(s.description)
        e = PromptEntry(name=s.name, scope=s.source, path=s.path, file=file, description=desc, shipped=shipped,
                        cut_1024=desc is not None and desc != s.description)
        text_desc = desc or ""
        e.full_cost = text_cost(_line(s.name, text_desc, file) + "\n", unit)
        e.bare_cost = text_cost(_line(s.name, "", file) + "\n", unit)
        entries.append(e)

    prompt.table_cost = table_cost
    prompt.roots = [(alias[r], r) for r in alias_roots]
    prompt.entries = entries
    prompt.total_full = table_cost + sum(e.full_cost for e in entries)
    full = sum(e.full_cost for e in entries)
    bare = sum(e.bare_cost for e in entries)
    descs = [e.description or "" for e in entries]

    if full <= remaining_limit:
        for e, d in zip(entries, descs):
            e.state, e.shown_chars = FULL, len(d)
        prompt.used = full
    elif bare <= remaining_limit:
        prompt.over_budget = True
        bare_bytes = None
        if unit == "tokens":
            bare_bytes = [len((_line(e.name, "", e.file) + "\n").encode("utf-8", "surrogatepass")) for e in entries]
        alloc = _share_evenly(descs, bare_bytes, remaining_limit - bare)
        spent = 0
        for e, d, k in zip(entries, descs, alloc):
            e.shown_chars = k
            e.state = FULL if k >= len(d) else SHORTENED
            spent += text_cost(_line(e.name, d[:k], e.file) + "\n", unit)
        prompt.used = spent
        cut = sum(len(d) - k for d, k in zip(descs, alloc))
        if cut and -(-cut // len(entries)) > 100:
            prompt.warning = (
                "Skill descriptions were shortened to fit the "
                + ("2% " if unit == "tokens" else "")
                + "skills context budget. Codex can still see every skill, but some descriptions are shorter. "
                "Disable unused skills or plugins to leave more room for the rest."
            )
    else:
        prompt.over_budget = True
        spent, dropped = 0, 0
        for e, d in zip(entries, descs):
            if spent + e.bare_cost <= remaining_limit:
                spent += e.bare_cost
                e.shown_chars = 0
                e.state = FULL if not d else SHORTENED
            else:
                e.state = DROPPED
                dropped += 1
        prompt.used = spent
        if dropped:
            prompt.warning = (
                "Exceeded skills context budget"
                + (" of 2%" if unit == "tokens" else "")
                + f". All skill descriptions were removed and {dropped} additional "
                + ("skill was" if dropped == 1 else "skills were")
                + " not included in the model-visible skills list."
            )

    skill_lines = []
    for e in entries:
        if e.state == DROPPED:
            continue
        if e.shipped:
            prompt.shipped_not_shown.append(e.name)
            continue
        e.line = _line(e.name, (e.description or "")[: e.shown_chars], e.file)
        skill_lines.append(e.line)
    prompt.text = OPEN_TAG + _body(root_lines, skill_lines, how_to_use) + CLOSE_TAG
    return prompt


def prompt_eligible(skill: Skill) -> bool:
    """Enabled, valid, and not opted out of implicit invocation (`policy.allow_implicit_invocation: false`)."""
    facts = skill_facts(skill)
    if facts is None or facts.error:
        return False
    return facts.enabled and facts.allow_implicit_invocation is not False


def build_prompt(catalog: Catalog, context_window: int | None = None) -> CodexPrompt:
    """The prompt for a Codex catalog under a context window (None: the window of the model Codex would run for this
    user, from discovery; 8000 characters when the catalog does not say). Pure; never re-scans."""
    from skilltui.runtimes.codex.discovery import facts_of  # discovery builds on this module

    facts = facts_of(catalog)
    choice = facts.model
    if context_window is None and choice is not None:
        context_window = choice.context_window
    roots = [r.canonical for r in facts.roots]
    eligible = [] if facts.refused else [s for s in catalog.skills if prompt_eligible(s)]  # refused: no session
    prompt = render_prompt(eligible, roots, context_window,
                           how_to_use=choice is not None and choice.usage_instructions)
    prompt.model = choice
    return prompt
