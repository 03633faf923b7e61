"""Runtime rule sets, one package per runtime, each pinned to one version behind one small interface.

A runtime package's ``__init__`` exposes ``RUNTIME``, an object satisfying :class:`Runtime`. Views (CLI, TUI, doctor,
budget, preview) reach a runtime only through this interface and never branch on its name. Adding a runtime (or a new
version of one) means a new package registered in ``REGISTRY`` and nothing else.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from skilltui.model import Catalog, Options
from skilltui.record import Record

if TYPE_CHECKING:
    from skilltui.budget import ModelChoice


@dataclass(frozen=True, repr=False)
class ModelPreset(Record):
    """A model the runtime knows, as the Budget view offers it."""

    label: str  # "Claude Opus 4.7", "GPT-5.5"
    model: str  # the id the runtime is given
    context_window: int | None = None  # tokens; None when the runtime itself derives it from the model id

    def describe(self) -> str:
        window = f", {self.context_window:,}-token window" if self.context_window else ""
        return f"model id {self.model}{window}"


@dataclass(frozen=True, repr=False)
class ModelTexts(Record):
    """Each listed skill's description as the model receives it, from the runtime's own prompt builder. A listed
    skill in neither mapping shows its description as discovered."""

    by_name: Mapping[str, str | None] = field(default_factory=dict)
    by_path: Mapping[str, str | None] = field(default_factory=dict)  # for runtimes that list two copies of a name
    # A value None: the text is shipped inside the runtime (no file on disk holds it).


class PromptText(Protocol):
    """What a runtime sends the model about skills, as that runtime computes it."""

    @property
    def text(self) -> str: ...

    def to_json(self) -> dict[str, object]: ...


class Runtime(Protocol):
    key: str  # the --runtime value: "claude"
    label: str  # what people call it: "Claude Code"
    version: str  # the pinned version whose rules this package models
    presets: tuple[ModelPreset, ...]  # the models whose window the prompt depends on; () when it has no budget
    # The listing is cut to a budget in columns (window × chars/token × fraction) that the Budget view simulates row
    # by row, with the what-if engine and a model choice; False: the runtime renders its own prompt (`prompt`).
    listing_budget: bool
    toggles_plugins: bool  # its plugins are the ones the Plugins view toggles and the plugin check reads
    lists_on_touch: bool  # skills with `paths` join the listing once a matching file is read (the touch view)
    display_names_find: bool  # a skill's display name finds it, like its name (Claude Code: a label only)

    def discover(self, opts: Options) -> Catalog:
        """Every file found, its status and reason, diagnostics. Never writes, never raises on bad input."""
        ...

    def prompt(self, catalog: Catalog, context_window: int | None = None) -> PromptText:
        """The skills text the model receives, with the runtime's own limits."""
        ...

    def resolve_url(self, catalog: Catalog, url: str) -> str:
        """A skill:// URL resolved by the runtime's rules; raises refs.SkillUrlError with the runtime's message."""
        ...

    def listing_model(self, catalog: Catalog, opts: Options) -> ModelChoice | None:
        """The model the listing is simulated for and why (`list --json` reports it); None when no model does."""
        ...

    def model_texts(self, catalog: Catalog) -> ModelTexts:
        """Each listed skill's description as the model receives it (the Skills view's description column)."""
        ...


# Optional members a runtime may add; views look for them with getattr and never name the runtime:
#   has_budget: bool                       False: the prompt is sent whole (the Budget screen says so)
#   findings(catalog) -> [Diagnostic]      doctor findings from skilltui/checks/ that explain the catalog
#   plan_skill_toggle(catalog, action, name, scope) / apply_skill_toggle(plan)   per-skill enable/disable


# key -> package exposing RUNTIME; order is the order the TUI's runtime switcher and `--runtime all` use.
REGISTRY: dict[str, str] = {
    "claude": "skilltui.runtimes.claude",
    "codex": "skilltui.runtimes.codex",
    "omp": "skilltui.runtimes.omp",
    "gemini": "skilltui.runtimes.gemini",
}
RUNTIMES = REGISTRY  # older name, kept for callers that only iterate the keys


def get(key: str) -> Runtime:
    runtime: Runtime = importlib.import_module(REGISTRY[key]).RUNTIME
    return runtime


def discover(opts: Options) -> Catalog:
    return get(opts.runtime).discover(opts)


def plugin_host() -> Runtime:
    """The runtime whose plugins the Plugins view toggles: the TUI reads its catalog beside the chosen runtime's."""
    return next(rt for rt in map(get, REGISTRY) if rt.toggles_plugins)
