"""oh-my-pi 18.3.4 (and the 14.x rules): discovery, settings, plugins, the system prompt."""

from __future__ import annotations

from typing import TYPE_CHECKING

from skilltui.model import Catalog, Options
from skilltui.runtimes import ModelTexts

if TYPE_CHECKING:
    from skilltui.budget import ModelChoice
    from skilltui.runtimes import ModelPreset
    from skilltui.runtimes.omp.discovery import OmpPrompt


class _Omp:
    key = "omp"
    label = "oh-my-pi"
    version = "18.3.4"
    presets: tuple[ModelPreset, ...] = ()  # every listed skill is in the prompt in full: no window changes it
    listing_budget = False
    toggles_plugins = False
    lists_on_touch = False
    display_names_find = True

    def discover(self, opts: Options) -> Catalog:
        from skilltui.runtimes.omp.discovery import discover

        return discover(opts)

    def prompt(self, catalog: Catalog, context_window: int | None = None) -> OmpPrompt:
        from skilltui.runtimes.omp.discovery import OmpPrompt, system_prompt

        return OmpPrompt(catalog, system_prompt(catalog))

    def resolve_url(self, catalog: Catalog, url: str) -> str:
        from skilltui.runtimes.omp.discovery import resolve_url

        return resolve_url(catalog, url)


    def listing_model(self, catalog: Catalog, opts: Options) -> ModelChoice | None:
        return None

    def model_texts(self, catalog: Catalog) -> ModelTexts:
        from skilltui.runtimes.omp.discovery import prompt_entries

        return ModelTexts(by_name=dict(prompt_entries(catalog)))


RUNTIME = _Omp()
