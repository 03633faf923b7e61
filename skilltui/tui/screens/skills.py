"""Skills: every file the runtime found, grouped by source in priority order, with its fate and what the model sees."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Input, Select, Static

from skilltui.model import Skill
from skilltui.runtimes import get
from skilltui.text import safe
from skilltui.tui import data, messages
from skilltui.tui.screens.base import BaseScreen, palette
from skilltui.tui.widgets.table import Cell, Column, LazyRows, LineTable, Row

STATUS_COLOUR = {"listed": "ok", "invalid": "error", "conditional": "warning", "filtered": "warning"}
STATUSES = ("listed", "shadowed", "invalid", "disabled", "conditional", "hidden", "filtered")
FIXED = {"#": 3, "Name": 24, "Status": 11, "From": 20}
DEBOUNCE_ABOVE = 400  # skills: above this, filtering waits for a pause in the typing


def source_title(source: str) -> str:
    return {"legacy-command": "commands", "plugin-command": "plugin commands", "plugin": "plugin skills",
            "add-dir": "--add-dir", "bundled": "bundled", "builtin": "built in"}.get(source, source)


def where_from(skill: Skill, catalog) -> str:
    if skill.plugin:
        return skill.plugin
    if skill.shipped or not skill.root:
        return "inside the runtime"
    return data.short_path(skill.root, catalog)


def tail(text: str, width: int) -> str:
    """A path cut at the start, so its informative end stays: "…/.agents/skills"."""
    return text if len(text) <= width else "…" + text[-(width - 1):]


def matches(skill: Skill, text: str, needle: str) -> bool:
    hay = " ".join(filter(None, (skill.name, skill.label, skill.display_name, skill.source, skill.status,
                                 skill.plugin, skill.reason, text)))
    return needle in hay.casefold()


class SkillCells:
    """Makes the cells of a skills row, for one catalog, width and theme; the table asks for a row's cells only when
    it draws that row, so a 6,000-row catalog costs a screenful of rows."""

    def __init__(self, state: data.Loaded, colours: dict[str, str], with_from: bool) -> None:
        self.state = state
        self.colours = colours
        self.columns = ("order", "name", "status", "where", "desc") if with_from else ("order", "name", "status", "desc")
        self._places: dict[str | None, str] = {}

    def where(self, s: Skill) -> str:
        if s.plugin:
            return s.plugin
        place = self._places.get(s.root)
        if place is None:
            place = self._places[s.root] = where_from(s, self.state.catalog)
        return place

    def group(self, source: str, skills: list[Skill]) -> list[Cell]:
        listed = sum(s.status == "listed" for s in skills)
        counts = [f"{listed} listed"] + [f"{c} {st}" for st in STATUSES[1:] if (c := sum(s.status == st for s in skills))]
        roots = sorted({self.where(s) for s in skills if not s.plugin})
        cells = [
            Cell(""),
            Cell(source_title(source).upper(), f"bold {self.colours['accent']}", ellipsis=True),
            Cell(f"{len(skills)} found", "bold"),
            Cell(tail(safe(roots[0]), FIXED["From"]) if len(roots) == 1 else "", "dim"),
            Cell(" · ".join(counts), "dim", ellipsis=True),
        ]
        if "where" not in self.columns:
            del cells[3]
        return cells

    def row(self, s: Skill) -> Row:
        return tuple(self.cell(s, column) for column in range(len(self.columns)))

    def cell(self, s: Skill, column: int) -> Cell:
        kind = self.columns[column]
        listed = s.status == "listed"
        dim = "" if listed else "dim"
        if kind == "order":
            return Cell(str(s.order + 1) if s.order is not None else "–", dim, right=True)
        if kind == "name":
            return Cell(safe(s.label or s.name), dim or "bold", ellipsis=True)
        if kind == "status":
            colour = self.colours.get(STATUS_COLOUR.get(s.status, ""), "")
            return Cell(str(s.status), f"{colour} {dim}".strip())  # the text, not the enum member
        if kind == "where":
            place = self.where(s) if not s.shipped else "inside the runtime"
            return Cell(tail(safe(place), FIXED["From"]), "dim")
        catalog = self.state.catalog
        if listed:
            text = self.state.text_for(s)
            return Cell(safe(text) or "(no description)", "" if text else "dim italic", ellipsis=True)
        why = safe(data.short_paths_in(s.reason or s.status, catalog))
        if s.shadowed_by and s.status == "shadowed":
            why += f" — winner: {safe(data.short_path(s.shadowed_by, catalog))}"
        return Cell(why, "dim italic", ellipsis=True)


class SkillsTable(LineTable):
    """The skills table; Enter (shown in the footer) opens the highlighted skill's preview."""

    BINDINGS = [Binding("enter", "select_cursor", "Preview", id="skills.open", tooltip="Open the highlighted skill")]


class SkillsScreen(BaseScreen):
    MODE = "skills"
    AUTO_FOCUS = "#skills"
    WATCH = ("state", "busy")
    HELP = ("Every skill file the runtime found, grouped by where it was found, in priority order. Dimmed rows are "
            "found but not offered to the model; the description column then says why, and which copy won. "
            "Type in the filter to narrow the rows; Enter opens a preview.")
    BINDINGS = [
        Binding("slash", "focus_filter", "Filter", key_display="/", id="skills.filter"),
        Binding("escape", "clear_filter", "Clear filter", show=False, id="skills.clear"),
        Binding("t", "touch", "Touch files", id="skills.touch",
                tooltip="Simulate the agent reading or editing files: which skills Claude Code adds then"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.rows: dict[str, Skill] = {}
        self.row_keys: list[str] = []  # the table's rows in order: "group:<source>" or "s:<n>" (a key of `rows`)
        self._items: list[Skill | str] = []  # what each table row shows: a skill or a group's source
        self.needle = ""
        self._width = 0
        self._with_from = True
        self._keep: Skill | None = None  # the skill the cursor should stay on across rebuilds
        self._cells_for: tuple = ()
        self._maker: SkillCells | None = None
        self._group_cells: dict[str, Row] = {}
        self._debounce = None
        self._resized = False
        self._shown: tuple = ()
        self._groups: dict[str, list[Skill]] = {}

    def compose_body(self) -> ComposeResult:
        with Horizontal(id="skills-bar"):
            yield Input(placeholder="/ filter: name, description, source, status", id="filter", compact=True)
            yield Select([(label, key) for key, label in self.app.runtimes], value=self.app.opts.runtime,
                         allow_blank=False, id="runtime", compact=True, tooltip="Runtime whose rules are applied (r)")
        yield Static(id="counts")
        table = SkillsTable(id="skills")
        table.loading = True
        yield table
        yield Static(id="detail")

    # ------------------------------------------------------------ drawing
    def refresh_view(self) -> None:
        table = self.query_one("#skills", SkillsTable)
        state = self.app.state
        select = self.query_one("#runtime", Select)
        if select.value != self.app.opts.runtime:
            with self.prevent(Select.Changed):
                select.value = self.app.opts.runtime
        if state is None:
            error = self.app.load_error
            table.loading = not error
            self.query_one("#counts", Static).update(
                Text("Discovery failed: " + safe(error), style="bold") if error
                else Text(self.app.busy or "scanning…", style="italic"))
            return
        table.loading = False
        if self._shown != (state, self.app.theme) or self._resized:
            self._resized = False
            self._fill(table, state)
        if self.focused is None:
            table.focus()

    def _fill(self, table: SkillsTable, state: data.Loaded) -> None:
        """Rebuild the table for the current filter. A row's cells are made when the table first draws it (once per
        catalog, width and theme), so a 6,000-row catalog costs the rows on screen, not all of them."""
        keep = self.highlighted_skill() or self._keep
        self._keep = keep
        width = table.size.width or self.app.size.width
        self._width = width
        self._shown = (state, self.app.theme)
        key = (id(state), width, self.app.theme)
        fixed = dict(FIXED) if width >= 100 else {"#": 3, "Name": 20, "Status": 11}
        self._with_from = "From" in fixed
        if key != self._cells_for or self._maker is None:
            self._cells_for = key
            self._maker = SkillCells(state, palette(self.app), self._with_from)
            self._group_cells = {}
        # two columns of padding per column, the focus bar and the vertical scrollbar
        desc_width = max(20, width - sum(fixed.values()) - 2 * (len(fixed) + 1) - 4)
        table.set_columns([*(Column(name, name, w) for name, w in fixed.items()),
                           Column("desc", "Description, as the model sees it", desc_width)])
        rows = list(self._rows(state))
        self.row_keys = [k for k, _ in rows]
        self._items = [s for _, s in rows]
        self.rows = {k: s for k, s in rows if not isinstance(s, str)}
        self._update_counts(state.catalog, len(self.rows))
        table.set_rows(LazyRows(len(rows), self._row_cells))
        self._place_cursor(table)

    def _place_cursor(self, table: SkillsTable) -> None:
        keep = self._keep
        if keep is not None:
            for i, s in enumerate(self._items):
                if s is keep:
                    self._move_cursor(table, i)
                    return
        if table.row_count and table.cursor_row == 0 and len(self.rows):
            self._move_cursor(table, 1)
            return
        self._show_detail()

    def _move_cursor(self, table: SkillsTable, row: int) -> None:
        # scrolled once the new rows are laid out (as a DataTable does): before that, the table's height is not
        # yet the one it will have, and the cursor would be scrolled to the wrong place
        table.move_cursor(row=row, scroll=False)
        table.call_after_refresh(table.scroll_to_cursor)
        self._show_detail()

    def _rows(self, state: data.Loaded):
        """(row key, skill, or the source name for a group header) in table order, for the current filter."""
        groups: dict[str, list[Skill]] = {}
        for s in state.catalog.skills:
            groups.setdefault(s.source, []).append(s)
        self._groups = groups
        needle = self.needle.casefold()
        n = 0
        for source, skills in groups.items():
            visible = [s for s in skills if not needle or matches(s, state.text_for(s), needle)]
            if not visible:
                continue
            yield f"group:{source}", source
            for s in visible:
                yield f"s:{n}", s
                n += 1

    def _row_cells(self, index: int) -> Row:
        """The cells of table row `index`: a skill's, or a group header's (made once per catalog, width and theme)."""
        maker = self._maker
        assert maker is not None, "rows are set only after their maker"
        item = self._items[index]
        if not isinstance(item, str):
            return maker.row(item)
        cells = self._group_cells.get(item)
        if cells is None:
            cells = self._group_cells[item] = tuple(maker.group(item, self._groups[item]))
        return cells

    def _update_counts(self, catalog, shown: int) -> None:
        total = len(catalog.skills)
        counts = {st: sum(s.status == st for s in catalog.skills) for st in STATUSES}
        line = Text(no_wrap=True, overflow="ellipsis")
        line.append(f"{counts['listed']} listed", style="bold")
        line.append(f" of {total} found")
        for st in STATUSES[1:]:
            if counts[st]:
                line.append(f" · {counts[st]} {st}", style="dim")
        if self.needle:
            line.append(f"   filter “{safe(self.needle)}”: {shown} shown", style="italic")
        notice = catalog.facts.notice  # a runtime's word on what it did not read (Gemini: workspace trust)
        if notice:
            line.append(f"   {safe(notice)}", style="italic")
        self.query_one("#counts", Static).update(line)

    def highlighted_skill(self) -> Skill | None:
        table = self.query_one("#skills", SkillsTable)
        if not 0 <= table.cursor_row < min(table.row_count, len(self._items)):
            return None
        item = self._items[table.cursor_row]
        return None if isinstance(item, str) else item

    def _show_detail(self) -> None:
        detail = self.query_one("#detail", Static)
        s = self.highlighted_skill()
        state = self.app.state
        if s is None or state is None:
            detail.update("")
            return
        t = Text(no_wrap=True, overflow="ellipsis")
        t.append(safe(s.name), style="bold")
        t.append(f"  {s.status}")
        if s.reason:
            t.append(f": {safe(data.short_paths_in(s.reason, state.catalog))}", style="italic")
        t.append("\n")
        t.append(safe(data.short_path(s.path, state.catalog)) if s.path else "shipped inside the runtime; no file on disk",
                 style="dim")
        if s.shadowed_by:
            t.append("\nwinner: ", style="bold")
            t.append(safe(data.short_path(s.shadowed_by, state.catalog)), style="dim")
        detail.update(t)

    # ------------------------------------------------------------ events
    def on_resize(self) -> None:
        table = self.query_one("#skills", SkillsTable)
        if self.app.state is not None and table.size.width and table.size.width != self._width:
            self._resized = True
            self.call_after_refresh(self.refresh_view)

    @on(Input.Changed, "#filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.needle = event.value.strip()
        state = self.app.state
        if state is None:
            return
        if self._debounce is not None:
            self._debounce.stop()
            self._debounce = None
        if len(state.catalog.skills) > DEBOUNCE_ABOVE:  # big catalogs: wait for a pause in the typing
            self._debounce = self.set_timer(0.15, self._filter_now)
        else:
            self._filter_now()

    def _filter_now(self) -> None:
        self._debounce = None
        if self.app.state is not None:
            self._fill(self.query_one("#skills", SkillsTable), self.app.state)

    @on(Input.Submitted, "#filter")
    def _filter_done(self) -> None:
        self.set_focus(self.query_one("#skills", SkillsTable))

    @on(Select.Changed, "#runtime")
    def _runtime_changed(self, event: Select.Changed) -> None:
        if isinstance(event.value, str):
            self.post_message(messages.SelectRuntime(event.value))

    @on(LineTable.RowHighlighted, "#skills")
    def _highlighted(self) -> None:
        skill = self.highlighted_skill()
        if skill is not None:
            self._keep = skill
        self._show_detail()

    @on(LineTable.RowSelected, "#skills")
    def _selected(self, event: LineTable.RowSelected) -> None:
        item = self._items[event.cursor_row] if 0 <= event.cursor_row < len(self._items) else None
        if item is not None and not isinstance(item, str):
            self.post_message(messages.OpenPreview(item))

    def on_key(self, event) -> None:
        # Keys typed in one burst ("/pdf" from a fast typist, a paste or tmux send-keys) all go to the table before
        # the "/" binding runs (Textual checks bindings once a key has bubbled up to the app). So "/" moves the focus
        # here, as the key passes, and the keys after it, which come back unused from the table, go to the filter.
        field = self.query_one("#filter", Input)
        if self.focused is not field:
            if event.key == "slash":
                self.action_focus_filter()
                event.stop()
        elif event.key == "down":
            self.set_focus(self.query_one("#skills", SkillsTable))
            event.stop()
        elif event.is_printable and event.character:
            field.insert_text_at_cursor(event.character)
            event.stop()

    # ------------------------------------------------------------ actions
    def action_focus_filter(self) -> None:
        # at once, not deferred like Widget.focus(): the keys typed right after "/" belong to the filter
        self.set_focus(self.query_one("#filter", Input))

    def action_touch(self) -> None:
        from skilltui.tui.screens.touch import TouchScreen

        state = self.app.state
        if state is None:
            self.notify("Still scanning; try again in a moment.", markup=False)
            return
        runtime = get(state.catalog.runtime)
        if not runtime.lists_on_touch:
            self.notify(f"Touch simulates the listings that reading a file adds; {runtime.label} lists every skill up "
                        "front.", markup=False)
            return
        self.app.open_screen(TouchScreen(self.app.opts, state.catalog, self.app.budget_chars))

    def action_clear_filter(self) -> None:
        field = self.query_one("#filter", Input)
        if field.value:
            field.value = ""
        self.set_focus(self.query_one("#skills", SkillsTable))
