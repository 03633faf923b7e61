"""Claude Code's listing under a chosen window, and "what if": how it changes with a settings change not yet written.

One pipeline for every view: `budget.run` (the CLI), the TUI's Budget screen (`listing_under`), the toggle dialog
and the report after a write (`effect`). Nothing here writes a file.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from skilltui.model import Catalog, Options
from skilltui.record import Record
from skilltui.runtimes.claude import listing
from skilltui.runtimes.claude.settings import of as settings_of


@dataclass(frozen=True, repr=False)
class PlannedChange(Record):
    """`value` at `keys` in the settings file `path` (what the toggle would write)."""

    path: str
    keys: tuple[str, ...]
    value: object


@dataclass(repr=False)
class Effect(Record):
    """How the listing changes with a planned change (same window, same usage)."""

    added: list[str]
    removed: list[str]
    changed: list[tuple[str, str, str]]  # (label, state before, state after), in words
    used_before: int
    used_after: int
    budget: int
    scanned: bool = False  # the change could alter discovery, so the tree was discovered again (in memory)

    @property
    def empty(self) -> bool:
        return not (self.added or self.removed or self.changed)

    def text(self) -> str:
        if self.empty:
            return f"No change to the listing ({self.used_after:,} of {self.budget:,} columns)."
        parts = [f"+ {n}" for n in self.added] + [f"- {n}" for n in self.removed]
        parts += [f"{n}: {a} → {b}" for n, a, b in self.changed]
        return f"{', '.join(parts)}; listing {self.used_before:,} → {self.used_after:,} of {self.budget:,} columns."


def listing_under(catalog: Catalog, opts: Options, prepared: listing.Prepared | None = None,
                  **choice: Any) -> tuple[listing.BudgetParams, listing.Listing]:
    """The budget for `choice` (model, context_window, chars_per_token, fraction, budget) and the listing under it.
    `prepared` is the catalog's prepared rows when the caller keeps them (the TUI prepares once per catalog)."""
    from skilltui import budget

    params = budget.params_for(catalog, opts, **choice)
    return params, listing.simulate_prepared(prepared or budget.prepared_for(catalog), params.budget)


def state_words(entry: listing.ListingEntry) -> str:
    """An entry's state as a person reads it: a forced row (a name-only override) is "name-only (override)"."""
    if entry.state == "fixed":
        return "shipped (fixed)" if entry.shipped else f"{entry.shown} (override)"
    return entry.state


def compare(before: listing.Listing, after: listing.Listing, *, scanned: bool = False) -> Effect:
    old = {e.label: e for e in before.entries}
    new = {e.label: e for e in after.entries}
    changed = [(k, state_words(old[k]), state_words(new[k])) for k in new
               if k in old and (old[k].state, old[k].shown) != (new[k].state, new[k].shown)]
    return Effect([k for k in new if k not in old], [k for k in old if k not in new], changed,
                  before.columns.used, after.columns.used, after.budget, scanned)


def _in_effect(catalog: Catalog, change: PlannedChange) -> bool:
    """Whether the file already holds this value at these keys (then writing it cannot change anything)."""
    for src in settings_of(catalog).sources:
        if src.path != change.path or src.error:
            continue
        node: object = src.data
        for key in change.keys:
            if not isinstance(node, dict) or key not in node:
                return False
            node = node[key]
        return node == change.value and type(node) is type(change.value)
    return False


def planned(catalog: Catalog, opts: Options, changes: list[PlannedChange]) -> tuple[Catalog, bool]:
    """(Claude Code's catalog once `changes` were written, whether the tree was discovered again). A change of
    `enabledPlugins` or `skillOverrides` cannot alter what is found, only how it resolves: it is answered from what
    `catalog`'s discovery read, reading nothing (`resolve_again`). Any other is discovered again with the changes
    applied in memory (`Options.pending`). Nothing is written."""
    from skilltui.runtimes import get
    from skilltui.runtimes.claude import discovery
    from skilltui.runtimes.claude.settings import with_changes

    pending: list[tuple[str, tuple[str, ...], object]] = [(c.path, tuple(c.keys), c.value) for c in changes]
    if all(len(c.keys) == 2 and c.keys[0] in discovery.RESOLVED_KEYS for c in changes):
        settings = with_changes(settings_of(catalog), pending)
        again = discovery.resolve_again(catalog, settings) if settings is not None else None
        if again is not None:
            return again, False
    return get("claude").discover(dataclasses.replace(opts, runtime="claude", pending=pending)), True


def effect(catalog: Catalog, opts: Options, change: PlannedChange, budget_chars: int,
           prepared: listing.Prepared | None = None) -> Effect:
    """The listing's change if `change` were written (same window, same usage). A change the file already holds is
    answered at once; a plugin toggle or a skill override is resolved again from the catalog without a scan; any
    other change is discovered again in memory (see `planned`). Nothing is written."""
    from skilltui import budget

    prepared = prepared or budget.prepared_for(catalog)
    before = listing.simulate_prepared(prepared, budget_chars)
    if _in_effect(catalog, change):
        return compare(before, before)
    after, scanned = planned(catalog, opts, [change])
    rows = budget.prepared_for(after, like=prepared)
    return compare(before, listing.simulate_prepared(rows, budget_chars), scanned=scanned)
