"""oh-my-pi 18.3.4 (and the 14.x rules): discovery, settings, plugins, the system prompt."""

from __future__ import annotations

from skilltui.model import Catalog, Options


class _Omp:
    key = "omp"
    label = "oh-my-pi"
    version = "18.3.4"
    presets = ()  # every listed skill is in the prompt in full: no window changes it

    def discover(self, opts: Options) -> Catalog:
        from skilltui.runtimes.omp.discovery import discover

        return discover(opts)

    def prompt(self, catalog: Catalog, context_window: int | None = None):
        from skilltui import budget
        from skilltui.runtimes.omp.discovery import system_prompt

        return budget.OmpPrompt(catalog, system_prompt(catalog))

    def resolve_url(self, catalog: Catalog, url: str) -> str:
        from skilltui.runtimes.omp.discovery import resolve_url

        return resolve_url(catalog, url)


RUNTIME = _Omp()
