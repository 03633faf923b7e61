"""Gemini CLI 0.61.0: discovery, settings and trust, the <available_skills> prompt, skills.disabled toggling."""

from __future__ import annotations

from skilltui.model import Catalog, Options


class _Gemini:
    key = "gemini"
    label = "Gemini CLI"
    version = "0.61.0"
    has_budget = False  # every enabled skill is sent in full

    def discover(self, opts: Options) -> Catalog:
        from skilltui.runtimes.gemini.discovery import discover

        return discover(opts)

    def prompt(self, catalog: Catalog, context_window: int | None = None):
        from skilltui.runtimes.gemini.prompt import GeminiPrompt

        return GeminiPrompt(catalog)

    def resolve_url(self, catalog: Catalog, url: str) -> str:
        from skilltui import preview, refs

        return refs.resolve_skill_url(url, preview.skill_urls(catalog))


RUNTIME = _Gemini()
