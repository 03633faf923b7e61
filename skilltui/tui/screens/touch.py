"""Touch files (`t` on the Skills screen): what Claude Code adds to the listing as the agent reads or edits them.

Type paths or globs, pick files from the project tree, or take git's changed files; each touched file shows the
conditional skills it activates (with the pattern that matched) and the nested skill folders it loads, and the
bottom pane holds the exact blocks the model receives.
"""

from __future__ import annotations

import os
import shlex

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import DataTable, DirectoryTree, Footer, Input, Static
from textual.worker import get_current_worker

from skilltui.model import Catalog, Options
from skilltui.text import safe
from skilltui.touch_view import TouchRequest, TouchView, run_touch


class ProjectTree(DirectoryTree):
    """The project's files, without .git; a file picked here is added to the paths."""

    def filter_paths(self, paths):
        return [p for p in paths if p.name != ".git"]


class TouchScreen(ModalScreen):
    HELP = ("Touch files: type paths or globs (space-separated, in the order the agent touches them) and press "
            "Enter, pick files in the tree (ctrl+f, Enter adds one), or press ctrl+g for git's changed files. Each row is one "
            "skill added to the listing, with the pattern or folder that brought it; the pane below holds the "
            "exact blocks the model receives.")
    BINDINGS = [
        Binding("escape", "close", "Close", key_display="esc"),
        Binding("ctrl+g", "git", "Git changes", tooltip="Touch the files git sees as changed (staged, unstaged, untracked)"),
        Binding("ctrl+f", "tree", "Files", tooltip="Pick files from the project tree"),
        Binding("ctrl+l", "clear", "Clear", tooltip="Start again with no file touched"),
    ]

    def __init__(self, opts: Options, catalog: Catalog, budget: int | None = None) -> None:
        super().__init__()
        self.opts, self.catalog, self.budget = opts, catalog, budget
        self.view: TouchView | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="touch-box"):
            yield Static(Text("Touch files: what Claude Code adds to the listing as the agent works", style="bold"),
                         id="touch-title")
            yield Input(placeholder="paths or globs, e.g. src/api/x.ts 'apps/**/*.tsx' — Enter to simulate",
                        id="touch-input")
            with Horizontal(id="touch-main"):
                yield ProjectTree(self.catalog.cwd, id="touch-tree")
                table: DataTable = DataTable(id="touch-table", cursor_type="row", zebra_stripes=True)
                table.add_columns("File", "Added", "Because", "Row")
                yield table
            with VerticalScroll(id="touch-blocks-box"):
                yield Static(Text("Nothing touched yet.", style="dim italic"), id="touch-blocks")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#touch-tree").display = False
        self.query_one("#touch-input").focus()

    def action_close(self) -> None:
        self.app.pop_screen()

    def action_tree(self) -> None:
        tree = self.query_one("#touch-tree", ProjectTree)
        tree.display = not tree.display
        (tree if tree.display else self.query_one("#touch-input")).focus()

    def action_clear(self) -> None:
        self.query_one("#touch-input", Input).value = ""
        self._simulate(TouchRequest([], None, self.budget))

    def action_git(self) -> None:
        self._simulate(TouchRequest(self._paths(), "", self.budget))

    @on(DirectoryTree.FileSelected)
    def _picked(self, event: DirectoryTree.FileSelected) -> None:
        rel = os.path.relpath(event.path, self.catalog.cwd)
        box = self.query_one("#touch-input", Input)
        box.value = (box.value + " " + shlex.quote(rel)).strip()
        self._simulate(TouchRequest(self._paths(), None, self.budget))

    @on(Input.Submitted, "#touch-input")
    def _submitted(self) -> None:
        try:
            paths = self._paths()
        except ValueError as exc:
            self.notify(f"cannot read the paths: {exc}", severity="error", markup=False)
            return
        self._simulate(TouchRequest(paths, None, self.budget))

    def _paths(self) -> list[str]:
        return shlex.split(self.query_one("#touch-input", Input).value)

    @work(thread=True, exclusive=True, group="touch", description="simulate touched files")
    def _simulate(self, request: TouchRequest) -> None:
        try:
            view, error = run_touch(self.opts, request, self.catalog), None
        except ValueError as exc:  # git missing, not a work tree, a bad range: say it in one line
            view, error = None, str(exc)
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._show, view, error)

    def _show(self, view: TouchView | None, error: str | None) -> None:
        if error is not None or view is None:
            self.notify(error or "nothing to show", severity="error", markup=False)
            return
        self.view = view
        table = self.query_one("#touch-table", DataTable)
        table.clear()
        for st in view.session.steps:
            why_by_skill = {m.skill: f"paths {m.pattern!r}" for m in st.matches}
            folder_of = {s.name: f.rel for f in st.folders if f.loaded for s in f.skills}
            if st.listing is None:
                table.add_row(Text(safe(st.path)), Text("—", style="dim"), Text(safe(st.note), style="dim"), Text(""))
                continue
            for e in st.listing.entries:
                because = why_by_skill.get(e.name) or (f"{folder_of[e.name]}/.claude/skills" if e.name in folder_of
                                                       else "relabelled")
                table.add_row(Text(safe(st.path)), Text(safe(e.label), style="bold"), Text(safe(because)),
                              Text(e.state, style="" if e.state == "full" else "italic"))
        for st in view.session.steps:
            for f in st.folders:
                if not f.loaded:
                    table.add_row(Text(safe(st.path)), Text(safe(f.rel) + "/.claude/skills", style="dim"),
                                  Text(safe(f.reason), style="dim"), Text(""))
        for u in view.session.unmatched:
            table.add_row(Text("(none)", style="dim"), Text(safe(u.skill.name), style="dim"),
                          Text(safe(u.why), style="dim"), Text("not listed", style="dim"))
        blocks = Text()
        for note in view.notes:
            blocks.append(f"note: {safe(note)}\n", style="yellow")
        text = view.text()
        blocks.append(safe(text, keep_newlines=True) if text else "No block is added for these files.\n")
        blocks.append("\nAssumed: " + "; ".join(view.session.assumed), style="dim")
        self.query_one("#touch-blocks", Static).update(blocks)
