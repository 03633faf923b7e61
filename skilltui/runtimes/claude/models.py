"""Which model Claude Code 2.1.332 runs for a user, and why (spec/claude-code.md §8.0): what `list --json` reports
beside the listing. Its own module, so that a `list` run does not import the budget simulation (skilltui/budget.py,
which re-exports these names)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from skilltui.model import Catalog, Options
from skilltui.record import Record
from skilltui.runtimes.claude.settings import Settings as ClaudeSettings
from skilltui.runtimes.claude.settings import env_truthy

DEFAULT_MODEL = "claude-opus-5-5"  # what Claude Code 2.1.332 runs for an API-key session with nothing set (§8.0)
ModelSource = Literal["flag", "env", "settings", "default", "context-window"]


@dataclass(frozen=True, repr=False)
class ModelChoice(Record):
    """Which model the simulation runs and why (spec/claude-code.md §8.0)."""

    model: str | None  # None when the caller chose a context window instead of a model
    source: ModelSource
    why: str  # one line for people
    assumed: str | None = None  # what the simulation assumes because no file shows it

    @property
    def short(self) -> str:
        """Where the model comes from, in a few words (a one-line display has no room for `why`)."""
        return {"flag": "given with --model", "env": "from ANTHROPIC_MODEL", "settings": "from settings",
                "default": "Claude Code's default", "context-window": "a window was given"}[self.source]

    def to_json(self) -> dict[str, object]:
        return {"model": self.model, "model_source": self.source, "model_why": self.why, "assumed": self.assumed}


# Legacy Opus ids Claude Code runs as Opus 5.5 ("⚠ claude-opus-4-1 is automatically remapped to Opus 5.5 (the latest
# Opus)") unless CLAUDE_CODE_DISABLE_LEGACY_MODEL_REMAP reads as true. Observed in any case, with spaces or `[1m]`
# around; `claude-opus-4`, `claude-opus-4-0-20250514` and `claude-opus-4-1@20250805` are kept as they are.
_REMAPPED = frozenset({"claude-opus-4-0", "claude-opus-4-1", "claude-opus-4-20250514", "claude-opus-4-1-20250805"})
REMAP_TARGET = "claude-opus-5-5"


def runs_as(model_id: str, env: Mapping[str, str]) -> str:
    """The model Claude Code runs for an id it is given: the id itself, or Opus 5.5 for a remapped legacy one."""
    mid = model_id.strip().lower().removesuffix("[1m]")
    if mid in _REMAPPED and not env_truthy(env.get("CLAUDE_CODE_DISABLE_LEGACY_MODEL_REMAP")):
        return REMAP_TARGET
    return model_id


def default_model(catalog: Catalog, opts: Options, flag: str | None = None) -> ModelChoice:
    """The model Claude Code would run for this user: `--model`, else ANTHROPIC_MODEL, else the merged settings'
    `model`, else Claude Code's default. The default and `[1m]` windows also depend on the account, which no file
    shows: that is said in `assumed`, never silently."""
    choice = _chosen(catalog, opts, flag)
    if choice.model and (target := runs_as(choice.model, opts.env)) != choice.model:
        why = (f"{choice.why}; Claude Code runs it as {target} (a legacy id it remaps; "
               "CLAUDE_CODE_DISABLE_LEGACY_MODEL_REMAP=1 keeps it)")
        return ModelChoice(choice.model, choice.source, why, choice.assumed)
    return choice


def _chosen(catalog: Catalog, opts: Options, flag: str | None) -> ModelChoice:
    """The model as chosen, before a remap."""
    one_m = "a [1m] window depends on the account; it is taken as offered"
    if flag and flag.strip():
        return ModelChoice(flag, "flag", f"{flag} — given with --model", one_m if "[1m]" in flag.lower() else None)
    env = (opts.env.get("ANTHROPIC_MODEL") or "").strip()
    if env:
        return ModelChoice(env, "env", f"{env} — from ANTHROPIC_MODEL", one_m if "[1m]" in env.lower() else None)
    settings = catalog.settings
    for src in settings.sources if isinstance(settings, ClaudeSettings) else ():  # highest precedence first
        value = src.data.get("model")
        if src.scope != "add-dir" and isinstance(value, str) and value.strip():
            return ModelChoice(value, "settings", f"{value} — set as `model` in {src.path or '--settings'}",
                               one_m if "[1m]" in value.lower() else None)
    return ModelChoice(DEFAULT_MODEL, "default",
                       f"{DEFAULT_MODEL} — Claude Code's default; set `model` in settings or pass --model to change",
                       "Claude Code's default model for an API-key session; subscription plans may run another model")
