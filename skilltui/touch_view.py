"""`skilltui touch` and the TUI's Touch screen: the listing blocks Claude Code adds as files are read or edited."""

from __future__ import annotations

from dataclasses import dataclass, field

from skilltui.budget import ModelChoice
from skilltui.model import Catalog, Options
from skilltui.record import Record
from skilltui.runtimes.claude.settings import of as settings_of
from skilltui.runtimes.claude.touch import Session, simulate_session
from skilltui.text import safe
from skilltui.touched import expand, git_changed


@dataclass(frozen=True, repr=False)
class TouchRequest(Record):
    paths: list[str] = field(default_factory=list)
    git_range: str | None = None  # None: no git; "": staged, unstaged and untracked; else a revision range
    budget: int | None = None
    model: str | None = None  # None: the model Claude Code would run for this user


@dataclass(repr=False)
class TouchView(Record):
    catalog: Catalog
    files: list[str]
    notes: list[str]
    session: Session
    model: ModelChoice | None  # None when the budget was given

    def to_json(self) -> dict[str, object]:
        return {"runtime": self.catalog.runtime, "runtime_version": self.catalog.runtime_version,
                "cwd": self.catalog.cwd, "files": self.files, "notes": self.notes,
                **(self.model.to_json() if self.model else {}), **self.session.to_json()}

    def text(self) -> str:
        """The blocks the model receives, in order, each as Claude Code wraps it."""
        return "".join(f"<system-reminder>\n{b}\n</system-reminder>\n" for st in self.session.steps for b in st.blocks)

    def human(self) -> str:
        s = self.session
        lines = [f"Touching {len(self.files)} file(s) in {safe(self.catalog.cwd)} "
                 f"(Claude Code {self.catalog.runtime_version}, budget {s.budget:,} columns per added block)"]
        if self.model is not None:
            lines.append(f"  model: {safe(self.model.why)}" + (f" (assumed: {safe(self.model.assumed)})" if self.model.assumed else ""))
        lines += [f"  note: {safe(n)}" for n in self.notes]
        for st in s.steps:
            lines.append(f"\n{safe(st.path)}: {safe(st.note)}")
            lines += [f"  + {safe(m.skill)}  (paths pattern {safe(repr(m.pattern))} matches {safe(m.path)})" for m in st.matches]
            for f in st.folders:
                names = ", ".join(safe(x.label or x.name) for x in f.skills)
                lines.append(f"  {'+' if f.loaded else '-'} {safe(f.rel)}/.claude/skills: {safe(f.reason)}" + (f" [{names}]" if names else ""))
            if st.listing is not None:
                lines.append("  added to the listing:")
                lines += [f"    {e.state:<9} {safe(e.row or e.label)[:150]}" for e in st.listing.entries]
        if s.unmatched:
            lines.append("\nConditional skills still not listed:")
            lines += [f"  {safe(u.skill.name)}  paths {safe(', '.join(map(repr, u.patterns)))}: {safe(u.why)}" for u in s.unmatched]
        lines.append("\nAssumed: " + "; ".join(s.assumed))
        return "\n".join(lines)


def run_touch(opts: Options, request: TouchRequest, catalog: Catalog | None = None) -> TouchView:
    from skilltui.budget import default_model, params_for
    from skilltui.runtimes import discover

    catalog = catalog or discover(opts)
    files, notes = expand(request.paths, catalog.cwd)
    if request.git_range is not None:
        seen = set(files)
        changed = git_changed(catalog.cwd, request.git_range or None)
        files += [f for f in changed if f not in seen]
        if not changed:
            notes.append("git reports no changed file")
    choice: ModelChoice | None = None
    if request.budget is not None:
        budget = request.budget
    else:
        choice = default_model(catalog, opts, request.model)
        budget = params_for(catalog, opts, model=choice.model).budget
    git_root = settings_of(catalog).paths.git_root
    return TouchView(catalog, files, notes, simulate_session(catalog, files, budget, git_root), choice)
