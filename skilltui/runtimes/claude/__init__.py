"""Claude Code 2.1.332: discovery, frontmatter, settings, plugins, the listing and its budget, toggles."""

from __future__ import annotations

from typing import TYPE_CHECKING

from skilltui.model import Catalog, Options
from skilltui.runtimes import ModelPreset, ModelTexts

if TYPE_CHECKING:
    from skilltui.budget import BudgetView, ModelChoice


class _Claude:
    key = "claude"
    label = "Claude Code"
    version = "2.1.332"
    listing_budget = True
    toggles_plugins = True
    lists_on_touch = True
    display_names_find = False  # a display name is the row's label, never a name to invoke (spec/claude-code.md)

    @property
    def presets(self) -> tuple[ModelPreset, ...]:
        from skilltui.runtimes.claude.listing import PRESETS

        return tuple(ModelPreset(label, model) for label, model in PRESETS)  # the window follows from the id

    def discover(self, opts: Options) -> Catalog:
        from skilltui.runtimes.claude.discovery import discover

        return discover(opts)

    def prompt(self, catalog: Catalog, context_window: int | None = None) -> BudgetView:
        from skilltui import budget

        return budget.claude_prompt(catalog, context_window)

    def resolve_url(self, catalog: Catalog, url: str) -> str:
        from skilltui import preview, refs

        return refs.resolve_skill_url(url, preview.skill_urls(catalog))


    def listing_model(self, catalog: Catalog, opts: Options) -> ModelChoice:
        from skilltui.runtimes.claude.models import default_model  # not budget: a `list` run needs only this

        return default_model(catalog, opts)

    def model_texts(self, catalog: Catalog) -> ModelTexts:
        from skilltui import budget

        return budget.model_texts(budget.prepared_for(catalog))


RUNTIME = _Claude()
