"""oh-my-pi 18.3.4 (and the 14.x rules): discovery, settings, plugins, the system prompt."""

from __future__ import annotations

from typing import TYPE_CHECKING

from skilltui.model import Catalog, Options

if TYPE_CHECKING:
    from skilltui.budget import OmpPrompt
    from skilltui.runtimes import ModelPreset


class _Omp:
    key = "omp"
    label = "oh-my-pi"
    version = "18.3.4"
    presets: tuple[ModelPreset, ...] = ()  # every listed skill is in the prompt in full: no window changes it

    def discover(self, opts: Options) -> Catalog:
        from skilltui.runtimes.omp.discovery import discover

        return discover(opts)

    def prompt(self, catalog: Catalog, context_window: int | None = None) -> OmpPrompt:
        from skilltui import budget
        from skilltui.runtimes.omp.discovery import system_prompt

        return budget.OmpPrompt(catalog, system_prompt(catalog))

    def resolve_url(self, catalog: Catalog, url: str) -> str:
        from skilltui.runtimes.omp.discovery import resolve_url

        return resolve_url(catalog, url)


RUNTIME = _Omp()
