"""Codex 0.171.0: discovery and the <skills_instructions> prompt."""

from __future__ import annotations

from skilltui.model import Catalog, Options


class _Codex:
    key = "codex"
    label = "Codex CLI"
    version = "0.171.0"

    def discover(self, opts: Options) -> Catalog:
        from skilltui.runtimes.codex.discovery import discover

        return discover(opts)

    def prompt(self, catalog: Catalog, context_window: int | None = None):
        from skilltui.runtimes.codex.prompt import build_prompt

        return build_prompt(catalog, context_window)

    def resolve_url(self, catalog: Catalog, url: str) -> str:
        from skilltui import preview, refs

        return refs.resolve_skill_url(url, preview.skill_urls(catalog))


RUNTIME = _Codex()
