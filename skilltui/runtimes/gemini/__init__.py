"""Gemini CLI 0.61.0: discovery, settings and trust, the <available_skills> prompt, skills.disabled toggling."""

from __future__ import annotations

from typing import TYPE_CHECKING

from skilltui.model import Catalog, Diagnostic, Options
from skilltui.runtimes import ModelTexts

if TYPE_CHECKING:
    from skilltui.budget import ModelChoice
    from skilltui.runtimes import ModelPreset
    from skilltui.runtimes.gemini.prompt import GeminiPrompt
    from skilltui.runtimes.gemini.toggle import GeminiToggle


class _Gemini:
    key = "gemini"
    label = "Gemini CLI"
    version = "0.61.0"
    has_budget = False  # every enabled skill is sent in full
    presets: tuple[ModelPreset, ...] = ()  # no budget: no model changes the prompt's skills
    listing_budget = False
    toggles_plugins = False
    lists_on_touch = False
    display_names_find = True

    def discover(self, opts: Options) -> Catalog:
        from skilltui.runtimes.gemini.discovery import discover

        return discover(opts)

    def prompt(self, catalog: Catalog, context_window: int | None = None) -> GeminiPrompt:
        from skilltui.runtimes.gemini.prompt import GeminiPrompt

        return GeminiPrompt(catalog)

    def findings(self, catalog: Catalog) -> list[Diagnostic]:
        """Doctor findings beyond the catalog's own diagnostics (skilltui/checks/gemini.py)."""
        from skilltui.checks.gemini import findings

        return findings(catalog)

    def listing_model(self, catalog: Catalog, opts: Options) -> ModelChoice | None:
        return None

    def model_texts(self, catalog: Catalog) -> ModelTexts:
        """{name: description as the model receives it} for the listed skills."""
        from skilltui.runtimes.gemini.prompt import GeminiPrompt

        return ModelTexts(by_name=GeminiPrompt(catalog).entries())

    def plan_skill_toggle(self, catalog: Catalog, action: str, name: str, scope: str | None = None) -> GeminiToggle:
        """Enable or disable one skill as Gemini CLI writes `skills.disabled`; nothing is written until applied."""
        from skilltui.runtimes.gemini import toggle

        return toggle.plan(catalog, "enable" if action == "enable" else "disable", name,
                           "user" if scope == "user" else "workspace" if scope == "workspace" else None)

    def apply_skill_toggle(self, planned: GeminiToggle) -> GeminiToggle:
        from skilltui.runtimes.gemini import toggle

        return toggle.apply(planned)

    def resolve_url(self, catalog: Catalog, url: str) -> str:
        from skilltui import preview, refs

        return refs.resolve_skill_url(url, preview.skill_urls(catalog))


RUNTIME = _Gemini()
