"""The `budget` view: a catalog's listing under a chosen window, with the settings and usage the runtime would use."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from skilltui.model import Catalog, Options
from skilltui.record import Record
from skilltui.runtimes import ModelTexts, PromptText
from skilltui.runtimes.claude import listing

# re-exported: the model choice has its own module, so that `list` need not import this one
from skilltui.runtimes.claude.models import DEFAULT_MODEL as DEFAULT_MODEL
from skilltui.runtimes.claude.models import ModelChoice as ModelChoice
from skilltui.runtimes.claude.models import ModelSource as ModelSource
from skilltui.runtimes.claude.models import default_model as default_model
from skilltui.runtimes.claude.settings import of as settings_of
from skilltui.text import safe


@dataclass(repr=False)
class BudgetView(Record):
    catalog: Catalog
    params: listing.BudgetParams
    result: listing.Listing
    model: ModelChoice | None = None  # None: a context window was chosen instead of a model

    @property
    def text(self) -> str:
        return self.result.text

    def to_json(self) -> dict[str, object]:
        out = self.result.to_json(self.params)
        out["runtime"] = self.catalog.runtime
        out["simulation"] = f"simulated listing of Claude Code {self.result.prepared.version}"
        choice = self.model or ModelChoice(None, "context-window", "a context window was given instead of a model")
        out.update(choice.to_json())
        return out

    def human(self) -> str:
        r, p = self.result, self.params
        c = r.columns
        lines = [
            f"Simulated skill listing of Claude Code {r.prepared.version}: budget {r.budget} columns "
            f"({p.source}: window {p.context_window} tokens × {p.chars_per_token:g} chars/token × {p.fraction:g})",
            *([f"model: {safe(self.model.why)}"] if self.model else []),
            *([f"assumed: {self.model.assumed}"] if self.model and self.model.assumed else []),
            f"listing uses {c.used:,} of {r.budget:,} columns: shipped {c.shipped:,}, full {c.full:,}, "
            f"name-only {c.name_only:,}; at full width {r.total_full:,}; "
            + ("over budget: some descriptions collapse to the bare name" if r.over_budget else "everything fits"),
            "",
        ]
        for e in r.entries:
            width = e.full_width if e.shown == "full" else e.name_only_width
            row = e.row if e.row is not None else f"- {e.label}: (text shipped inside Claude Code)"
            lines.append(f"{e.state:<9} {width:>5}  {safe(row)[:160]}")
        return "\n".join(lines)


def _now_ms(now: str | None) -> float | None:
    if not now:
        return None
    try:
        return datetime.fromisoformat(now.replace("Z", "+00:00")).timestamp() * 1000
    except ValueError:
        raise ValueError(f"--now {now!r}: not an ISO date and time") from None


def prepared_for(catalog: Catalog, usage_path: str | None = None, now: str | None = None,
                 like: listing.Prepared | None = None) -> listing.Prepared:
    """Everything but the budget, computed once per catalog: the TUI recomputes only `simulate_prepared`. `like`: the
    rows of the same tree before a planned change, whose usage and time are used again (nothing is read)."""
    settings = settings_of(catalog)
    if like is not None:
        return listing.prepare(catalog.listed(), usage=like.usage, now_ms=like.now_ms, version=catalog.runtime_version,
                               max_desc_chars=settings.description_cap())
    usage = listing.load_usage(usage_path or settings.paths.global_config)
    return listing.prepare(catalog.listed(), usage=usage, now_ms=_now_ms(now), version=catalog.runtime_version,
                           max_desc_chars=settings.description_cap())


def params_for(catalog: Catalog, opts: Options, *, model: str | None = None, context_window: int | None = None,
               chars_per_token: float | None = None, fraction: float | None = None,
               budget: int | None = None) -> listing.BudgetParams:
    """The budget for a choice of model, window, chars per token, fraction or budget. With neither a model nor a
    window, the model is the one Claude Code would run for this user (`default_model`): every view agrees."""
    if model is None and context_window is None:
        model = default_model(catalog, opts).model
    fraction_setting = settings_of(catalog).value("skillListingBudgetFraction")
    return listing.resolve_budget(env=opts.env, settings_fraction=fraction_setting, model=model,
                                  context_window=context_window, chars_per_token=chars_per_token, fraction=fraction,
                                  budget=budget)


def run(opts: Options, *, context_window: int | None = None, model: str | None = None,
        chars_per_token: float | None = None, fraction: float | None = None, budget: int | None = None,
        usage_path: str | None = None, now: str | None = None,
        catalog: Catalog | None = None) -> BudgetView | PromptView:
    from skilltui.runtimes import discover, get

    catalog = catalog or discover(opts)
    if not get(catalog.runtime).listing_budget:
        return other_runtime(catalog, context_window=context_window, model=model)
    from skilltui.whatif import listing_under

    choice = None if context_window is not None else default_model(catalog, opts, model)
    params, result = listing_under(catalog, opts, prepared_for(catalog, usage_path, now),
                                   model=choice.model if choice else None, context_window=context_window,
                                   chars_per_token=chars_per_token, fraction=fraction, budget=budget)
    return BudgetView(catalog, params, result, choice)


def model_texts(prepared: listing.Prepared) -> ModelTexts:
    """Each listed entry's text after its `- label: ` prefix, as the listing rows hold it; None: shipped text."""
    by_name: dict[str, str | None] = {}
    for e in prepared.entries:
        prefix = f"- {e.label}: "
        if e.full_row is None:
            by_name[e.name] = None
        else:
            by_name[e.name] = e.full_row[len(prefix):] if e.full_row.startswith(prefix) else e.full_row
    return ModelTexts(by_name=by_name)


@dataclass(repr=False)
class PromptView(Record):
    """Another runtime's own prompt rendering (Codex, oh-my-pi): its text and limits, as that runtime computes them."""

    catalog: Catalog
    prompt: PromptText  # the runtime's prompt object

    @property
    def text(self) -> str:
        return self.prompt.text

    def to_json(self) -> dict[str, object]:
        out = self.prompt.to_json()
        out["runtime"] = self.catalog.runtime
        out["simulation"] = f"simulated prompt of {self.catalog.runtime} {self.catalog.runtime_version}"
        return out

    def human(self) -> str:
        head = f"Simulated prompt of {self.catalog.runtime} {self.catalog.runtime_version}"
        summary = getattr(self.prompt, "summary", None)  # a runtime's own one-line account (size, no budget)
        if summary is not None:
            head += "\n" + summary()
        return head + "\n\n" + safe(self.text, keep_newlines=True)


def other_runtime(catalog: Catalog, *, context_window: int | None = None, model: str | None = None) -> PromptView:
    from skilltui.runtimes import get

    if model and not context_window:
        raise ValueError(f"--model is a Claude model id; give {get(catalog.runtime).label} a --context-window")
    return PromptView(catalog, get(catalog.runtime).prompt(catalog, context_window))


def claude_prompt(catalog: Catalog, context_window: int | None = None) -> BudgetView:
    """Claude Code's listing for a window (default: the model's), as the runtime interface's prompt."""
    params = params_for(catalog, Options(cwd=catalog.cwd, home=catalog.home), context_window=context_window)
    return BudgetView(catalog, params, listing.simulate_prepared(prepared_for(catalog), params.budget))

