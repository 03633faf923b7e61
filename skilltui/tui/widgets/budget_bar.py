"""The budget bar: how the listing's columns split into shipped entries, full descriptions and bare names."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from skilltui.runtimes.claude.listing import Listing


def split(result: Listing) -> tuple[int, int, int]:
    """(shipped, full, name-only) columns of the listing as sent: the engine's one figure, as the CLI prints it."""
    c = result.columns
    return c.shipped, c.full, c.name_only


class BudgetBar(Static):
    _shown: tuple[Listing, dict[str, str]] | None = None

    def on_resize(self) -> None:
        if self._shown is not None:  # the bar is drawn to the width: draw it again at the new one
            self.show(*self._shown)

    def show(self, result: Listing, colours: dict[str, str]) -> None:
        self._shown = (result, colours)
        shipped, full, bare = split(result)
        used = shipped + full + bare
        budget = result.budget
        width = max(10, (self.size.width or 80) - 2)
        scale = max(budget, used, 1)

        def cells(n: int) -> int:
            return round(n * width / scale)

        bar = Text(no_wrap=True)
        parts = [(shipped, colours["primary"]), (full, colours["ok"]), (bare, colours["warning"])]
        drawn = 0
        for n, colour in parts:
            c = cells(n) if n else 0
            if n and not c:
                c = 1
            bar.append("█" * c, style=colour)
            drawn += c
        limit = cells(budget)
        if drawn < limit:
            bar.append("░" * (limit - drawn), style="dim")
            drawn = limit
        if used > budget:
            # mark where the budget ends inside an overfull bar
            plain = bar.plain
            at = min(limit, len(plain) - 1)
            bar = bar[:at] + Text("▏", style="bold reverse") + bar[at + 1:]
        legend = Text(no_wrap=True, overflow="ellipsis")
        legend.append("█ ", style=colours["primary"])
        legend.append(f"shipped {shipped:,}   ")
        legend.append("█ ", style=colours["ok"])
        legend.append(f"full {full:,}   ")
        legend.append("█ ", style=colours["warning"])
        legend.append(f"name-only {bare:,}   ")
        legend.append("░ ", style="dim")
        free = budget - used
        legend.append(f"free {free:,}" if free >= 0 else f"over by {-free:,}")
        legend.append(f"   of {budget:,} columns", style="bold")
        self.update(Text("\n").join([bar, legend]))
