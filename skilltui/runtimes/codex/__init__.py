"""Codex 0.171.0: discovery and the <skills_instructions> prompt."""

from __future__ import annotations

from skilltui.model import Catalog, Options
from skilltui.runtimes import ModelPreset

# Codex 0.171.0's built-in model catalog (the models it lists; read from the binary): the skills budget is 2% of the
# model's context_window.
MODELS = (
    ModelPreset("GPT-6.2-Sol", "gpt-6.2-sol", 500_000),
    ModelPreset("GPT-6.2-Astra", "gpt-6.2-astra", 272_000),
    ModelPreset("GPT-6-Astra", "gpt-6-astra", 272_000),
    ModelPreset("GPT-6.1-Sol", "gpt-6.1-sol", 500_000),
    ModelPreset("GPT-6.1 Terra", "gpt-6.1-terra", 500_000),
    ModelPreset("GPT-6-Sol", "gpt-6-sol", 272_000),
    ModelPreset("GPT-6-Luna", "gpt-6-luna", 272_000),
    ModelPreset("GPT-5.6-Sol", "gpt-5.6-sol", 272_000),
    ModelPreset("GPT-5.6-Terra", "gpt-5.6-terra", 272_000),
    ModelPreset("GPT-5.6-Luna", "gpt-5.6-luna", 272_000),
    ModelPreset("GPT-5.5", "gpt-5.5", 272_000),
)


class _Codex:
    key = "codex"
    label = "Codex CLI"
    version = "0.171.0"
    presets = MODELS

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
