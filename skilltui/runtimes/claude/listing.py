"""Claude Code's skill listing under a character budget (spec/claude-code.md §7.2, §8). Pure functions.

Two steps so a UI can recompute on every keystroke: `prepare` builds every entry's rows, widths and usage order once;
`simulate_prepared` only runs the budget arithmetic (§8.4) for one budget. `simulate` does both.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Final, Literal, NamedTuple

from skilltui import fsio
from skilltui.model import Skill
from skilltui.record import Record
from skilltui.runtimes.claude.entry import DEFAULT_CAP as DEFAULT_CAP  # re-exported: views import them from here
from skilltui.runtimes.claude.entry import entry_text as entry_text
from skilltui.runtimes.claude.models import runs_as
from skilltui.runtimes.claude.settings import env_truthy
from skilltui.runtimes.claude.shipped import SHIPPED, shipped_entry
from skilltui.text import width

DEFAULT_VERSION = "2.1.332"
DEFAULT_FRACTION = 0.01  # settings.skillListingBudgetFraction default (§8.1)
DEFAULT_WINDOW = 200_000
LISTING_INTRO = "The following skills are available for use with the Skill tool:\n\n"  # also heads later blocks
PROMPT_HEAD = "<system-reminder>\n" + LISTING_INTRO
PROMPT_TAIL = "\n</system-reminder>"
DAY_MS = 86_400_000

# --- §8.2 model data -------------------------------------------------------------------------------------------------


class ModelInfo(NamedTuple):
    window: int  # context window W, tokens
    chars_per_token: int  # C


# Ids at 4 chars per token, 200K window; with a `[1m]` suffix any of them gets a 1M window (C unchanged; observed on
# haiku-4-5, 3-7-sonnet, opus-4, opus-4-5 and sonnet-4-6: tests/fixtures/claude/model-windows).
_FOUR_CHARS = frozenset({
    "claude-3-opus", "claude-3-sonnet", "claude-3-haiku", "claude-3-5-sonnet", "claude-3-5-haiku", "claude-3-7-sonnet",
    "claude-opus-4-0", "claude-opus-4-1", "claude-opus-4-5", "claude-opus-4-6",
    "claude-sonnet-4-0", "claude-sonnet-4-5", "claude-sonnet-4-6", "claude-haiku-4-5",
})  # fmt: skip
ALIASES = ("sonnet", "opus", "haiku")  # resolve to the -5-5 models: 1M window, 3 chars per token

# (label, model id) for a picker, newest first.
PRESETS: list[tuple[str, str]] = [
    ("Claude Opus 5.5 (default)", "claude-opus-5-5"),  # budget.DEFAULT_MODEL: what runs with nothing set
    ("Claude Opus 4.7", "claude-opus-4-7"),
    ("Claude Sonnet 4.6", "claude-sonnet-4-6"),
    ("Claude Sonnet 4.6 [1m]", "claude-sonnet-4-6[1m]"),
    ("Claude Opus 4.6", "claude-opus-4-6"),
    ("Claude Opus 4.6 [1m]", "claude-opus-4-6[1m]"),
    ("Claude Sonnet 4.5", "claude-sonnet-4-5"),
    ("Claude Haiku 4.5", "claude-haiku-4-5"),
    ("Claude Opus 4.1", "claude-opus-4-1"),
    ("sonnet (alias)", "sonnet"),
    ("opus (alias)", "opus"),
    ("haiku (alias)", "haiku"),
]

_SUFFIX_1M = re.compile(r"\[1m\]$", re.IGNORECASE)
_DATE = re.compile(r"(?:-|@)\d{8}$")  # dated ids: claude-sonnet-4-5-20250929, Vertex claude-sonnet-4-5@20250929


def _canonical(model_id: str) -> tuple[str, bool]:
    """(id without `[1m]` and date, asked for 1M). The Claude 4.0 dated ids (`claude-sonnet-4-20250514`) are 4-0."""
    mid = model_id.strip().lower()
    one_m = bool(_SUFFIX_1M.search(mid))
    mid = _DATE.sub("", _SUFFIX_1M.sub("", mid))
    if mid in ("claude-opus-4", "claude-sonnet-4"):
        mid += "-0"
    return mid, one_m


Placement = Literal["user-message", "system-message"]


def placement(model_id: str | None, env: Mapping[str, str]) -> Placement:
    """Where Claude Code puts the listing for a model (observed, tests/fixtures/claude/model-windows): a
    `<system-reminder>` block of the first user message for the models it knew before Opus 4.8 (the four-chars-per-token
    ones and Opus 4.7), else the system message, after the agents list (the -5-5 models, the aliases, unknown ids and
    the legacy ids it remaps). No model known: the first."""
    if model_id is None or not model_id.strip():
        return "user-message"
    mid = _canonical(runs_as(model_id, env))[0]
    return "user-message" if mid in _FOUR_CHARS or mid == "claude-opus-4-7" else "system-message"


def model_info(model_id: str | None, env: Mapping[str, str]) -> ModelInfo:
    """§8.2: context window and chars per token of a model id (None: no model known → 200000, 4)."""
    if model_id is None or not model_id.strip():
        window, cpt = DEFAULT_WINDOW, 4
    else:
        mid, one_m = _canonical(runs_as(model_id, env))
        if mid in _FOUR_CHARS:
            window, cpt = (1_000_000 if one_m else DEFAULT_WINDOW), 4
        else:  # opus-4-7 and later, every *-5*, the aliases and unknown ids
            window, cpt = 1_000_000, 3
    if window > DEFAULT_WINDOW and env_truthy(env.get("CLAUDE_CODE_DISABLE_1M_CONTEXT")):
        window = DEFAULT_WINDOW
    if env_truthy(env.get("DISABLE_COMPACT")):
        forced = _positive_int(env.get("CLAUDE_CODE_MAX_CONTEXT_TOKENS"))
        if forced is not None:
            window = forced
    return ModelInfo(window, cpt)


# --- §8.1 budget -----------------------------------------------------------------------------------------------------

_GROUPED_INT = re.compile(r"\d+(?:[,_]\d+)*")


def _positive_int(value: str | None) -> int | None:
    """A plain or thousands-grouped (`10,000`, `10_000`) positive integer, else None."""
    if value is None or not _GROUPED_INT.fullmatch(value.strip()):
        return None
    number = int(re.sub(r"[,_]", "", value.strip()))
    return number or None


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return value


BudgetSource = Literal["flag", "env", "formula"]


@dataclass(frozen=True, repr=False)
class BudgetParams(Record):
    budget: int
    context_window: int
    chars_per_token: float
    fraction: float
    source: BudgetSource  # what decided `budget`
    placement: Placement = "user-message"  # where the listing goes in the request (the model's)


def resolve_budget(
    *,
    env: Mapping[str, str],
    model: str | None = None,
    context_window: int | None = None,
    chars_per_token: float | None = None,
    fraction: float | None = None,
    budget: int | None = None,
    settings_fraction: object = None,  # the raw setting: anything but a finite number is ignored
) -> BudgetParams:
    """cli.md `budget` precedence: `--budget`, then SLASH_COMMAND_TOOL_CHAR_BUDGET, then `max(1, floor(W × C × F))`.
    W, C and F are reported whichever way the budget was decided."""
    info = model_info(model, env)
    where = placement(model, env)
    w = context_window if context_window is not None else info.window
    c = chars_per_token if chars_per_token is not None else info.chars_per_token
    f = _number(fraction)
    if f is None:
        f = _number(settings_fraction)
    if f is None:
        f = DEFAULT_FRACTION
    if budget is not None:
        return BudgetParams(budget, w, c, f, "flag", where)
    from_env = _positive_int(env.get("SLASH_COMMAND_TOOL_CHAR_BUDGET"))
    if from_env is not None:
        return BudgetParams(from_env, w, c, f, "env", where)
    # Same evaluation order as JavaScript `Math.floor(W * C * F)`, so float rounding matches.
    return BudgetParams(max(1, math.floor(w * c * f)), w, c, f, "formula", where)


# --- §8.4 step 7 usage -----------------------------------------------------------------------------------------------


def usage_score(count: float, last_used_ms: float, now_ms: float) -> float:
    """`usageCount × max(0.5^(days/7), 0.1)`, days fractional."""
    days = (now_ms - last_used_ms) / DAY_MS
    decay: float = 0.5 ** (days / 7)
    return count * max(decay, 0.1)


USAGE_CAP = 64 * 1024 * 1024  # bytes of ~/.claude.json read for skillUsage (it grows with project history)


# `skillUsage` of ~/.claude.json as read: {skill name: {"usageCount": n, "lastUsedAt": ms}}; each record is checked
# where it is scored, so a malformed one scores 0 instead of failing the listing.
Usage = Mapping[str, object]


def load_usage(path: str) -> dict[str, dict[str, object]]:
    """`skillUsage` of a global config (`~/.claude.json`); a missing or broken file gives {} and never raises."""
    try:  # through fsio: a FIFO or /dev/zero in its place neither blocks nor reads without end
        got = fsio.read_capped_bytes(path, USAGE_CAP)
        if got.truncated:
            return {}
        data = fsio.json_loads(got.data.decode("utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}
    usage = data.get("skillUsage") if isinstance(data, dict) else None
    if not isinstance(usage, dict):
        return {}
    return {k: v for k, v in usage.items() if isinstance(v, dict)}


def _score_of(name: str, usage: Usage | None, now_ms: float) -> float:
    record = usage.get(name) if usage else None
    if not isinstance(record, Mapping):
        return 0.0
    count, last = _number(record.get("usageCount")), _number(record.get("lastUsedAt"))
    if count is None or last is None:
        return 0.0
    try:
        return usage_score(count, last, now_ms)
    except OverflowError:  # a far-future lastUsedAt
        return math.inf if count > 0 else 0.0


# --- §7.2 rows -------------------------------------------------------------------------------------------------------


@dataclass(slots=True, repr=False)
class PreparedEntry(Record):
    name: str
    label: str  # as written in the row (the bare name for a forced row)
    source: str
    shipped: bool
    fixed: bool  # never shortened: forced (`name-only` override) or exempt shipped
    forced: bool
    full_row: str | None  # None for a shipped entry's full row (its text is Claude Code's)
    name_row: str
    full_width: int
    name_only_width: int
    score: float
    capped: bool = False


@dataclass(repr=False)
class Prepared(Record):
    entries: tuple[PreparedEntry, ...]
    version: str
    total_full: int  # Σ width(full) + (n − 1)
    base: int  # Σ width(full) over fixed + Σ width(nameOnly) over flexible + (n − 1)   (§8.4 step 6)
    flexible_order: tuple[int, ...]  # indices of flexible entries, by usage score, stable
    usage: Usage | None = None  # what the scores came from: a "what if" prepares again with the same
    now_ms: float = 0.0


def _prepare_entry(skill: Skill, version: str, cap: int, usage: Usage | None, now_ms: float) -> PreparedEntry:
    name = skill.name
    score = _score_of(name, usage, now_ms)
    shipped = skill.shipped
    if skill.override == "name-only":  # forced row `- <name>`, both forms, fixed
        row = f"- {name}"
        w = width(row)
        return PreparedEntry(name, name, skill.source, shipped, True, True, row, row, w, w, score)
    label = skill.label or name
    name_row = f"- {label}"
    if shipped:
        data = shipped_entry(name, version)
        if data is None:
            raise ValueError(f"no data for shipped entry {name!r} of Claude Code {version}")
        return PreparedEntry(name, label, skill.source or data.source, True, data.exempt, False, None, name_row,
                             data.width_under_cap(cap), data.name_only_width, score)  # fmt: skip
    text, capped = entry_text(skill, cap)
    full_row = f"- {label}: {text}"
    return PreparedEntry(name, label, skill.source, False, False, False, full_row, name_row,
                         width(full_row), width(name_row), score, capped)  # fmt: skip


def prepare(
    skills: Sequence[Skill],
    *,
    usage: Usage | None = None,
    now_ms: float | None = None,
    version: str = DEFAULT_VERSION,
    max_desc_chars: int | None = None,
) -> Prepared:
    """Rows, widths and usage order of the listed entries (in listing order); everything but the budget."""
    if version not in SHIPPED:
        raise ValueError(f"no listing rules for Claude Code {version}")
    now = time.time() * 1000 if now_ms is None else now_ms
    cap = DEFAULT_CAP if max_desc_chars is None else max_desc_chars
    entries = tuple(_prepare_entry(s, version, cap, usage, now) for s in skills)
    newlines = max(len(entries) - 1, 0)
    total = sum(e.full_width for e in entries) + newlines
    base = sum(e.full_width if e.fixed else e.name_only_width for e in entries) + newlines
    flexible = [i for i, e in enumerate(entries) if not e.fixed]
    flexible.sort(key=lambda i: -entries[i].score)  # Python's sort is stable: ties keep listing order
    return Prepared(entries, version, total, base, tuple(flexible), usage, now)


# --- the listing -----------------------------------------------------------------------------------------------------

EntryState = Literal["full", "name-only", "fixed"]  # cli.md
Shown = Literal["full", "name-only"]
FULL: Final = "full"
NAME_ONLY: Final = "name-only"
FIXED: Final = "fixed"


@dataclass(slots=True, repr=False)
class ListingEntry(Record):
    name: str
    label: str
    source: str
    state: EntryState
    shown: Shown  # what the row is (a forced row is name-only)
    full_width: int
    name_only_width: int
    score: float
    row: str | None  # the row as output; None for a shipped full row (text not carried)
    shipped: bool

    def to_json(self) -> dict[str, object]:
        return {
            "name": self.name, "label": self.label, "source": self.source, "state": self.state, "shown": self.shown,
            "full_width": self.full_width, "name_only_width": self.name_only_width,
            "score": self.score if math.isfinite(self.score) else None,  # JSON has no Infinity
            "shipped": self.shipped, "row": self.row,
        }  # fmt: skip


@dataclass(frozen=True, slots=True, repr=False)
class Columns(Record):
    """How the listing as sent splits its columns: the one figure the CLI, the JSON and the TUI bar all show.
    Each row counts its shown width plus the newline before it (none before the first)."""

    shipped: int  # entries shipped inside Claude Code, full or bare
    full: int  # other entries with their description
    name_only: int  # other entries cut to the bare name

    @property
    def used(self) -> int:
        return self.shipped + self.full + self.name_only

    def to_json(self) -> dict[str, int]:
        return {"shipped": self.shipped, "full": self.full, "name_only": self.name_only, "used": self.used}


def _shown_full(e: PreparedEntry, full: bool) -> bool:
    """Whether the entry's full row is shown: it was kept, and it is not a forced name-only row."""
    return full and not e.forced


@dataclass(repr=False)
class Listing(Record):
    budget: int
    total_full: int
    over_budget: bool
    shipped_width: int
    remaining: int | None  # §8.4 step 6 after the greedy pass; None when not over budget
    prepared: Prepared = field(repr=False)
    kept: tuple[bool, ...] = field(repr=False)  # per entry: full row output

    @cached_property
    def entries(self) -> list[ListingEntry]:
        out = []
        for e, full in zip(self.prepared.entries, self.kept):
            state: EntryState = FIXED if e.fixed else (FULL if full else NAME_ONLY)
            shown: Shown = FULL if _shown_full(e, full) else NAME_ONLY
            row = e.full_row if full else e.name_row
            out.append(ListingEntry(e.name, e.label, e.source, state, shown, e.full_width, e.name_only_width,
                                    e.score, row, e.shipped))  # fmt: skip
        return out

    def name_only(self) -> list[str]:
        """The names of the entries shown by name only (`entries`' `shown`), those shipped inside Claude Code left out;
        without building `entries` (the doctor's budget check wants only these, of 6,000 entries)."""
        return [e.name for e, full in zip(self.prepared.entries, self.kept) if not _shown_full(e, full) and not e.shipped]

    @cached_property
    def columns(self) -> Columns:
        shipped = full = bare = 0
        for i, (e, kept) in enumerate(zip(self.prepared.entries, self.kept)):
            shown_full = _shown_full(e, kept)
            width = (e.full_width if shown_full else e.name_only_width) + (1 if i else 0)
            if e.shipped:
                shipped += width
            elif shown_full:
                full += width
            else:
                bare += width
        return Columns(shipped, full, bare)

    @cached_property
    def text(self) -> str:
        """The rows of the entries not shipped inside Claude Code, in order: `budget --text`."""
        return "\n".join(
            (e.full_row or e.name_row) if full else e.name_row  # full_row is None only for a shipped entry
            for e, full in zip(self.prepared.entries, self.kept) if not e.shipped
        )

    def prompt(self, where: Placement = "user-message") -> str:
        """The text the model receives (§7.2), as placed for its model (`BudgetParams.placement`): a
        `<system-reminder>` block, or the paragraph of the system message (which goes on with the date). A shipped
        full row, whose text is not carried, is a placeholder."""
        if not self.kept:
            return ""
        rows = []
        for e, full in zip(self.prepared.entries, self.kept):
            row = e.full_row if full else e.name_row
            if row is None:
                row = f"- {e.label}: [text shipped inside Claude Code {self.prepared.version}, {e.full_width} columns]"
            rows.append(row)
        rows_text = "\n".join(rows)
        return PROMPT_HEAD + rows_text + PROMPT_TAIL if where == "user-message" else LISTING_INTRO + rows_text

    def to_json(self, params: BudgetParams | None = None) -> dict[str, object]:
        """cli.md `budget --json`; W, C and F come from the caller's `BudgetParams` (null without one)."""
        return {
            "budget": self.budget,
            "context_window": params.context_window if params else None,
            "chars_per_token": params.chars_per_token if params else None,
            "fraction": params.fraction if params else None,
            "budget_source": params.source if params else None,
            "runtime_version": self.prepared.version,
            "total_full": self.total_full,
            "over_budget": self.over_budget,
            "shipped_width": self.shipped_width,
            "columns": self.columns.to_json(),
            "entries": [e.to_json() for e in self.entries],
            "text": self.text,
        }


def simulate_prepared(prepared: Prepared, budget: int) -> Listing:
    """§8.4 steps 3–9 for one budget."""
    entries = prepared.entries
    shipped_width = sum(e.full_width for e in entries if e.shipped)
    total = prepared.total_full
    if not entries or total <= budget or not prepared.flexible_order:
        kept = (True,) * len(entries)
        return Listing(budget, total, bool(entries) and total > budget, shipped_width, None, prepared, kept)
    remaining = budget - prepared.base
    kept_list = [e.fixed for e in entries]
    for i in prepared.flexible_order:  # greedy; a miss does not stop the pass
        e = entries[i]
        extra = e.full_width - e.name_only_width
        if extra <= remaining:
            kept_list[i] = True
            remaining -= extra
    return Listing(budget, total, True, shipped_width, remaining, prepared, tuple(kept_list))


def simulate(
    skills: Sequence[Skill],
    budget: int,
    *,
    usage: Usage | None = None,
    now_ms: float | None = None,
    version: str = DEFAULT_VERSION,
    max_desc_chars: int | None = None,
) -> Listing:
    """The listing Claude Code sends for `skills` (listed entries, in listing order) under budget `budget`."""
    prepared = prepare(skills, usage=usage, now_ms=now_ms, version=version, max_desc_chars=max_desc_chars)
    return simulate_prepared(prepared, budget)
