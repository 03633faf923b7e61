"""Doctor: every diagnostic, grouped by severity then code; Enter opens the skill's preview or the file."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Static, Tree

from skilltui.model import SEVERITIES, Diagnostic
from skilltui.text import safe
from skilltui.tui import data, messages
from skilltui.tui.screens.base import BaseScreen, palette

EAGER = 300  # up to this many diagnostics, every small group opens at once


class Group:
    """The diagnostics under one code; their leaves are made when the node is first opened."""

    def __init__(self, items: list[Diagnostic]) -> None:
        self.items = items
        self.filled = False


class DoctorScreen(BaseScreen):
    MODE = "doctor"
    AUTO_FOCUS = "#diagnostics"
    WATCH = ("state", "diagnostics")
    HELP = ("Every problem found while discovering: errors, warnings and notes, grouped by kind. Enter on a "
            "diagnostic opens the skill it is about, or its file at the line.")
    BINDINGS = [
        Binding("enter", "open", "Open", id="doctor.open", tooltip="Open the skill or file of this diagnostic"),
        Binding("e", "expand_all", "Expand all", id="doctor.expand"),
        Binding("c", "collapse_all", "Collapse all", id="doctor.collapse"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self._places: dict[str | None, str] = {}

    def compose_body(self) -> ComposeResult:
        yield Static(id="doctor-summary")
        tree: Tree[Diagnostic | None] = Tree(Text("diagnostics"), id="diagnostics")
        tree.show_root = False
        tree.loading = True
        yield tree
        yield Static(id="diag-detail")

    def refresh_view(self) -> None:
        tree = self.query_one("#diagnostics", Tree)
        diags = self.app.diagnostics
        state = self.app.state
        if diags is None or state is None:
            tree.loading = True
            return
        tree.loading = False
        colours = palette(self.app)
        colour = {"error": colours["error"], "warning": colours["warning"], "info": colours["accent"]}
        catalog = state.catalog
        tree.clear()
        self._places = {}
        by_severity: dict[str, dict[str, list[Diagnostic]]] = {}
        for d in diags:
            by_severity.setdefault(d.severity, {}).setdefault(d.code, []).append(d)
        order = list(SEVERITIES) + sorted(k for k in by_severity if k not in SEVERITIES)
        small = len(diags) <= EAGER
        for severity in order:
            codes = by_severity.get(severity)
            if not codes:
                continue
            count = sum(len(v) for v in codes.values())
            label = Text(f"{severity} ({count})", style=f"bold {colour.get(severity, '')}")
            branch = tree.root.add(label, expand=severity != "info" or small)
            for code in sorted(codes):
                items = codes[code]
                node = branch.add(Text.assemble((safe(code), "bold"), (f"  {len(items)}", "dim")),
                                  data=Group(items))
                if small and len(items) <= 8:  # the leaves of a big group are added when it is opened
                    self._populate(node)
                    node.expand()
        counts = {s: sum(len(v) for v in by_severity.get(s, {}).values()) for s in SEVERITIES}
        summary = Text(no_wrap=True)
        if not diags:
            summary.append("No problems found.", style="bold")
        else:
            def n(count: int, word: str) -> str:
                return f"{count} {word}{'' if count == 1 else 's'}"

            summary.append(n(counts["error"], "error"), style=f"bold {colours['error']}" if counts["error"] else "")
            summary.append(f" · {n(counts['warning'], 'warning')} · {n(counts['info'], 'note')}")
        summary.append(f"   {data.runtime_label(catalog)} (simulated)", style="dim")
        self.query_one("#doctor-summary", Static).update(summary)
        self._detail(None)

    def _populate(self, node) -> None:
        group = node.data
        if not isinstance(group, Group) or group.filled:
            return
        group.filled = True
        catalog = self.app.catalog
        for d in group.items:
            if d.path not in self._places:
                self._places[d.path] = safe(data.short_path(d.path, catalog)) if d.path else "–"
            where = self._places[d.path] + (f":{d.line}" if d.line else "")
            leaf = Text(no_wrap=True, overflow="ellipsis")
            leaf.append(where + "  ", style="dim")  # the file first: a long message is what gets cut
            leaf.append(safe(data.short_paths_in(d.summary, catalog)))
            node.add_leaf(leaf, data=d)

    @on(Tree.NodeExpanded, "#diagnostics")
    def _expanded(self, event: Tree.NodeExpanded) -> None:
        self._populate(event.node)

    def _detail(self, d: Diagnostic | None) -> None:
        detail = self.query_one("#diag-detail", Static)
        if d is None:
            detail.update(Text("Enter on a diagnostic opens its skill or file.", style="dim italic"))
            return
        t = Text()
        t.append(f"{d.severity} {safe(d.code)}", style="bold")
        if d.path:
            t.append("  " + safe(data.short_path(d.path, self.app.catalog)) + (f":{d.line}" if d.line else ""),
                     style="dim")
        t.append("\n" + safe(data.short_paths_in(d.summary, self.app.catalog)))
        if len(d.lenses) > 1:  # one finding for a cause several checks state (the doctor merged them)
            t.append(f"  (found by {', '.join(d.lenses)})", style="dim")
        if d.fix:
            t.append("\nfix: ", style="bold")
            t.append(safe(d.fix))
        detail.update(t)

    @on(Tree.NodeHighlighted, "#diagnostics")
    def _highlighted(self, event: Tree.NodeHighlighted) -> None:
        self._detail(event.node.data if isinstance(event.node.data, Diagnostic) else None)

    @on(Tree.NodeSelected, "#diagnostics")
    def _selected(self, event: Tree.NodeSelected) -> None:
        if isinstance(event.node.data, Diagnostic):
            self.post_message(messages.OpenDiagnostic(event.node.data))

    def action_open(self) -> None:
        node = self.query_one("#diagnostics", Tree).cursor_node
        if node is not None and isinstance(node.data, Diagnostic):
            self.post_message(messages.OpenDiagnostic(node.data))
        elif node is not None:
            node.toggle()

    def action_expand_all(self) -> None:
        tree = self.query_one("#diagnostics", Tree)
        for branch in tree.root.children:
            branch.expand()
            for node in branch.children:
                self._populate(node)
                node.expand()

    def action_collapse_all(self) -> None:
        tree = self.query_one("#diagnostics", Tree)
        for child in tree.root.children:
            child.collapse_all()
