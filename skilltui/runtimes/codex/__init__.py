"""Codex 0.171.0: discovery and the <skills_instructions> prompt."""

from __future__ import annotations

from typing import TYPE_CHECKING

from skilltui.model import Catalog, Options
from skilltui.runtimes import ModelPreset, ModelTexts

if TYPE_CHECKING:
    from skilltui.budget import ModelChoice
    from skilltui.runtimes.codex.prompt import CodexPrompt

# The models Codex 0.171.0 lists (visibility "list" in its bundled models.json), by display name; their windows are
# the one table in runtimes/codex/models.py.
_LISTED = (("GPT-6.2-Sol", "gpt-6.2-sol"), ("GPT-6.2-Astra", "gpt-6.2-astra"), ("GPT-6-Astra", "gpt-6-astra"),
           ("GPT-6.1-Sol", "gpt-6.1-sol"), ("GPT-6.1 Terra", "gpt-6.1-terra"), ("GPT-6-Sol", "gpt-6-sol"),
           ("GPT-6-Luna", "gpt-6-luna"), ("GPT-5.6-Sol", "gpt-5.6-sol"), ("GPT-5.6-Terra", "gpt-5.6-terra"),
           ("GPT-5.6-Luna", "gpt-5.6-luna"), ("GPT-5.5", "gpt-5.5"))


def _presets() -> tuple[ModelPreset, ...]:
    from skilltui.runtimes.codex.models import MODEL_WINDOWS

    return tuple(ModelPreset(label, slug, MODEL_WINDOWS[slug]) for label, slug in _LISTED)


MODELS = _presets()


class _Codex:
    key = "codex"
    label = "Codex CLI"
    version = "0.171.0"
    presets = MODELS
    listing_budget = False  # its own budget (2% of the window), applied by its own prompt builder
    toggles_plugins = False
    lists_on_touch = False
    display_names_find = True

    def discover(self, opts: Options) -> Catalog:
        from skilltui.runtimes.codex.discovery import discover

        return discover(opts)

    def prompt(self, catalog: Catalog, context_window: int | None = None) -> CodexPrompt:
        from skilltui.runtimes.codex.prompt import build_prompt

        return build_prompt(catalog, context_window)

    def resolve_url(self, catalog: Catalog, url: str) -> str:
        from skilltui import preview, refs

        return refs.resolve_skill_url(url, preview.skill_urls(catalog))


    def listing_model(self, catalog: Catalog, opts: Options) -> ModelChoice | None:
        return None  # the prompt's model is in `budget --json` (`model`), not in `list --json`

    def model_texts(self, catalog: Catalog) -> ModelTexts:
        from skilltui.runtimes.codex.discovery import facts_of

        prompt = facts_of(catalog).prompt
        if prompt is None:
            return ModelTexts()
        return ModelTexts(by_path={e.path: e.description for e in prompt.entries})


RUNTIME = _Codex()
