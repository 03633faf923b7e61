"""Which model Codex 0.171.0 runs and its context window (spec/codex.md §7), which sets the skills budget (2%).

The table is the `models.json` bundled in the 0.171.0 binary (slug → `context_window`). Observed with the oracle
(2026-12-03): with no `model` in config.toml Codex runs `gpt-6.2-sol` (500,000 tokens); a slug it does not know
(`gpt-5`, `o3`, `foo`) gets 272,000 tokens; `model_context_window` in config.toml replaces the table's value.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from skilltui.record import Record

DEFAULT_MODEL = "gpt-6.2-sol"
UNKNOWN_MODEL_WINDOW = 272_000
MODEL_WINDOWS: dict[str, int] = {
    "gpt-6.2-sol": 500_000,
    "gpt-6.2-astra": 272_000,
    "gpt-6.1-sol": 500_000,
    "gpt-6.1-terra": 500_000,
    "gpt-6-astra": 272_000,
    "gpt-6-sol": 272_000,
    "gpt-6-luna": 272_000,
    "gpt-5.6-sol": 272_000,
    "gpt-5.6-terra": 272_000,
    "gpt-5.6-luna": 272_000,
    "gpt-daybreak-blue-latest": 272_000,
    "gpt-daybreak-red-latest": 372_000,
    "gpt-5.5": 272_000,
    "codex-auto-review": 272_000,
}

# models.json entries with include_skills_usage_instructions: true (the prompt then ends with "How to use skills")
USAGE_INSTRUCTIONS = frozenset({"gpt-5.5"})


@dataclass(frozen=True, repr=False)
class ModelChoice(Record):
    model: str
    context_window: int
    why: str  # where the model and window come from, for the UI and the JSON
    assumed: str | None = None  # what could not be observed, said rather than hidden
    usage_instructions: bool = False  # the prompt carries the "How to use skills" section

    def to_json(self) -> dict[str, Any]:
        return {"model": self.model, "context_window": self.context_window, "why": self.why, "assumed": self.assumed,
                "usage_instructions": self.usage_instructions}


def _positive_int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def resolve(config: Mapping[str, Any], config_path: str, model: str | None = None) -> ModelChoice:
    """The model Codex would run for this user: `model` given here, else config.toml `model`, else Codex's default."""
    if model:
        why = f"{model} (chosen here)"
    elif isinstance(config.get("model"), str) and config["model"].strip():
        model = config["model"]
        why = f"{model} — `model` in {config_path}"
    else:
        model = DEFAULT_MODEL
        why = f"{model} — Codex's default; set `model` in {config_path} to change"
    assumed = None
    window = MODEL_WINDOWS.get(model)
    override = _positive_int(config.get("model_context_window"))
    if override is not None:
        window = override
        why += f"; window {override:,} from `model_context_window` in {config_path}"
    elif window is None:
        window = UNKNOWN_MODEL_WINDOW
        assumed = (f"{model} is not in Codex 0.171.0's bundled model list; Codex then uses a "
                   f"{UNKNOWN_MODEL_WINDOW:,}-token window (observed), unless a remote model list says otherwise")
    return ModelChoice(model=model, context_window=window, why=why, assumed=assumed,
                       usage_instructions=model in USAGE_INSTRUCTIONS)
