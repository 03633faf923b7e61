"""`doctor`: every finding for the chosen runtimes, from the catalogs plus the conformance, link, budget, delivery and
plugin-consistency checks. Reads only; each check that fails becomes a finding rather than a traceback."""

from __future__ import annotations

import copy
import os
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from skilltui import frontmatter, refs
from skilltui.checks import conformance, delivery, invisible
from skilltui.frontmatter import FileFrontmatter, claude_body
from skilltui.model import HIDDEN, LISTED, Catalog, Diagnostic, Frontmatter, Options, Severity, Skill
from skilltui.record import Record
from skilltui.runtimes import discover, get
from skilltui.text import invisible_chars

SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}


def _guard(out: list[Diagnostic], what: str, path: str | None, fn: Callable[..., list[Diagnostic]], *args: object) -> None:
    try:
        out.extend(fn(*args))
    except Exception as exc:  # a check must never take the doctor down with it
        out.append(Diagnostic("warning", "doctor-check-failed", path, f"{what} could not run: {exc.__class__.__name__}: {exc}"))


def link_findings(catalog: Catalog) -> list[Diagnostic]:
    """Relative links in the bodies of loaded skills that are broken or leave the skill folder."""
    out: list[Diagnostic] = []
    for s in catalog.skills:
        if _wants_links(s):
            assert s.frontmatter is not None and s.skill_dir is not None
            out += skill_link_findings(catalog, s, s.frontmatter.body)
    return out


def _wants_links(s: Skill) -> bool:
    return s.status in (LISTED, HIDDEN) and bool(s.frontmatter) and bool(s.skill_dir)


def _wants_conformance(s: Skill) -> bool:
    # shipped entries (Codex's system skills before Codex writes them) have no file to check
    return s.kind == "skill" and bool(s.skill_dir) and bool(s.path) and s.status in (LISTED, HIDDEN) \
        and not s.shipped


def skill_link_findings(catalog: Catalog, s: Skill, body: str) -> list[Diagnostic]:
    assert s.frontmatter is not None and s.skill_dir is not None
    return _link_findings(s.path, s.skill_dir, body, s.frontmatter.body_line, catalog.runtime)


def _link_findings(path: str | None, skill_dir: str, body: str, body_line: int, runtime: str | None) -> list[Diagnostic]:
    out = []
    for ref in refs.broken_references(body, skill_dir, body_line):
        if not ref.inside_skill_dir:
            out.append(Diagnostic("warning", "skill-link-escapes", path, f"link {ref.link!r} {ref.problem}", ref.line,
                                  fix="Copy the file into the skill folder and link it relatively", runtime=runtime))
        else:
            out.append(Diagnostic("warning", "skill-link-broken", path, f"link {ref.link!r}: {ref.problem}", ref.line,
                                  fix="Fix the path or add the missing file", runtime=runtime))
    return out


@dataclass(repr=False)
class _Lens(Record):
    """One per-skill lens of `skill_pass`: its findings, and the first failure (a check never takes the doctor down)."""

    what: str
    found: list[Diagnostic] = field(default_factory=list)
    failed: Diagnostic | None = None
    failures: int = 0

    def run(self, path: str | None, fn: Callable[..., list[Diagnostic]], *args: object) -> None:
        try:
            self.found += fn(*args)
        except Exception as exc:
            self.failures += 1
            if self.failed is None:
                self.failed = Diagnostic("warning", "doctor-check-failed", path,
                                         f"{self.what} could not run: {exc.__class__.__name__}: {exc}")

    def absorb(self, later: _Lens) -> None:
        """Add the findings of a lens that ran on the skills after this one's."""
        self.found += later.found
        self.failures += later.failures
        if self.failed is None:
            self.failed = later.failed

    def results(self) -> list[Diagnostic]:
        if self.failed is not None and self.failures > 1:
            self.failed.message += f" (and on {self.failures - 1} other skills)"
        return self.found + ([self.failed] if self.failed is not None else [])


_Item = tuple[Skill, bool, bool, bool]  # a skill and which lenses want it: links, body, conformance

PARALLEL_MIN = 300  # skills per process before another process pays for its fork and the findings' trip back
# What this process does after the pass (the listing check, the merge, the JSON), in pass items: measured on the bench
# tree (about a tenth of the pass), so the parts end together.
REST_PER_ITEM = 0.1
# What this process does beside the child that runs `Then` when discovery did the lenses' work (the pass over the
# entries it checked, the listing and delivery checks), in pass items per entry: 31.6 ms for 6,013 entries on the bench
# tree, a pass item being 71 us (the pass over files discovery did not check: 426 ms for 6,000).
EARLY_PER_ITEM = 0.075


@dataclass(repr=False)
class Then(Record):
    """Work that needs the catalog but not the pass (the budget and plugin checks): done by a forked child beside the
    pass's last part (or beside this process's own work when the pass has no parts), else by this process. `weight`
    is its cost in pass items."""

    run: Callable[[], list[Diagnostic]]
    weight: int = 0
    # The same work in pieces, whose findings come in this order: beside a short pass, a child of its own takes the
    # first pieces and this process the rest, so that both end together (`_halves`).
    pieces: tuple[Then, ...] = ()


def skill_pass(catalog: Catalog, conformed: dict[str, None], links: _Lens, bodies: _Lens, conformance_: _Lens,
               workers: int = 1, then: Then | None = None,
               early: dict[str, object] | None = None) -> Callable[[], list[Diagnostic]]:
    """The lenses that read a skill's file (links, invisible characters in the body, Agent Skills conformance), skill
    by skill: each SKILL.md is read once and its bytes shared (each lens used to read it again). `conformed` holds the
    folders already checked for conformance (one check per folder, whichever runtime found it first). `early`: what
    `_early` found where discovery read the files (frontmatter.READ_EXTRAS): an entry it covers takes those findings,
    and only the others are read here. With `workers` > 1 (the command line, where fork exists) a big pass is cut in
    parts, all but the first run by forked children that share the catalog copy-on-write; the findings are the same,
    in the same order. `then` runs in a forked child too: beside this whole pass when discovery did the lenses' work
    (the pass is then short), else with the pass's last part. Returns the call that gives the findings of `then`
    (waiting for its child, if one runs it)."""
    forks = workers > 1 and hasattr(os, "fork")
    away, stay = _halves(then, int(len(catalog.skills) * EARLY_PER_ITEM)) if forks and early and then is not None \
        else (then, None)
    beside = _fork_pass(catalog, [], away) if forks and early and away is not None \
        and away.weight >= PARALLEL_MIN // 2 else None
    try:
        extra = _pass(catalog, conformed, links, bodies, conformance_, workers if forks else 1,
                      then if beside is None else None, early)
        kept = stay.run() if beside is not None and stay is not None else []
    except BaseException:
        if beside is not None:
            beside()  # the child is reaped whatever happened here
        raise
    if beside is None:
        return lambda: extra
    assert away is not None
    return lambda: _then_from(beside, away) + kept


def _pass(catalog: Catalog, conformed: dict[str, None], links: _Lens, bodies: _Lens, conformance_: _Lens,
          workers: int, then: Then | None, early: dict[str, object] | None) -> list[Diagnostic]:
    """`skill_pass` once `then` has a child of its own or not: the findings of `then` when it ran here."""
    items: list[_Item] = []
    for s in catalog.skills:
        want_links, want_body = _wants_links(s), s.status == LISTED
        want_conf = _wants_conformance(s) and s.skill_dir not in conformed
        if want_conf:
            assert s.skill_dir is not None
            conformed[s.skill_dir] = None
        if not (want_links or want_body or want_conf):
            continue
        done = _early_of(s, early) if early else None
        if done is None:
            items.append((s, want_links, want_body, want_conf))
            continue
        # Found in order, like the pass below; the lenses' order within a file is the same, and the findings are
        # sorted by file and line in the end (sort_unique).
        if want_links:
            links.found += [Diagnostic(*row[:6], runtime=catalog.runtime) for row in done[0]]
        if want_conf:
            conformance_.found += [Diagnostic(*row) for row in done[1]]
    parts = min(workers, len(items) // PARALLEL_MIN)
    if parts <= 1:
        _pass_items(catalog, items, links, bodies, conformance_)
        return then.run() if then is not None else []
    chunks = _cut(len(items), parts, then.weight if then is not None else 0)
    waits = []
    for n, (a, b) in enumerate(chunks[1:], 1):  # the last child takes `then` as well
        last = then if n == len(chunks) - 1 else None
        waits.append((_fork_pass(catalog, items[a:b], last), items[a:b], last))
    try:
        _pass_items(catalog, items[: chunks[0][1]], links, bodies, conformance_)
    finally:  # each child is waited for, whatever happened here
        theirs = [(wait() if wait is not None else None, chunk, last) for wait, chunk, last in waits]
    extra: list[Diagnostic] = []
    for answer, chunk, last in theirs:
        if answer is None:  # that child could not start or failed: its part is done here
            _pass_items(catalog, chunk, links, bodies, conformance_)
            if last is not None:
                extra = last.run()
        else:
            for mine, other in zip((links, bodies, conformance_), answer[:3], strict=True):
                mine.absorb(other)
            if last is not None:
                extra = answer[3] or []
    return extra


def _halves(then: Then, here: int) -> tuple[Then, Then | None]:
    """`then` cut in two at a piece: the first pieces for a child, the rest for this process, which has `here` (in
    pass items) of its own work meanwhile (the pass over entries `_early` covered, the listing check): the cut where
    the busier of the two has the least to do. (then, None) when the child had best take it all."""
    pieces = then.pieces
    total = sum(p.weight for p in pieces)
    cut, best, taken = len(pieces), max(total, here), 0  # by default, all of it in the child
    for k, piece in enumerate(pieces[:-1], 1):
        taken += piece.weight
        load = max(taken, here + total - taken)
        if load < best:
            cut, best = k, load
    if cut >= len(pieces):
        return then, None
    return _joined(pieces[:cut]), _joined(pieces[cut:])


def _joined(pieces: tuple[Then, ...]) -> Then:
    if len(pieces) == 1:
        return pieces[0]
    return Then(lambda: [d for p in pieces for d in p.run()], sum(p.weight for p in pieces), pieces)


def _then_from(wait: Callable[[], _Answer | None], then: Then) -> list[Diagnostic]:
    """The findings of `then` from the child that ran it; done here when the child failed."""
    answer = wait()
    return then.run() if answer is None else answer[3] or []


def _cut(items: int, parts: int, weight: int) -> list[tuple[int, int]]:
    """[start, end) of each part's items: equal loads, counting this process's work after the pass (the first part's)
    and `weight` (the last part's)."""
    rest = int(items * REST_PER_ITEM)
    share = (items + weight + rest) / parts
    first = max(0, min(items, round(share - rest)))
    bounds = [0, first]
    for n in range(1, parts):
        load = share - (weight if n == parts - 1 else 0)
        bounds.append(items if n == parts - 1 else max(bounds[-1], min(items, round(bounds[-1] + load))))
    # the first part is this process's and the last carries `weight`: both kept even when they have no items
    return [(bounds[i], bounds[i + 1]) for i in range(parts) if bounds[i] < bounds[i + 1] or i in (0, parts - 1)]


# A finding as plain values (the fields of Diagnostic, lenses aside): what `_early` sends across a process boundary.
_Row = tuple[Severity, str, str | None, str, int | None, str | None, str | None]
_Early = tuple[list[_Row], list[_Row]]  # a SKILL.md's link findings (runtime left out) and its folder's conformance


def _row(d: Diagnostic) -> _Row:
    return d.severity, d.code, d.path, d.message, d.line, d.fix, d.runtime


_SKILL_MD = os.sep + "SKILL.md"


def _early(path: str, text: str, fm: Frontmatter) -> _Early | None:
    """The link and conformance lenses on a skill folder's SKILL.md, run where discovery has just read and parsed it
    (frontmatter.reading_with), on that text: the pass then neither reads the file again nor waits for the catalog to
    check it. The same calls as `_pass_items` on the same text (valid UTF-8 within both caps: see `_decoded`), so the
    same findings; the pass uses them only for an entry whose file, folder and parse are these. None where the pass
    must look itself: not `<folder>/SKILL.md`, invisible characters in the body (that lens needs the catalog's entry),
    or a lens that failed (the pass reports the failure)."""
    # <folder>/SKILL.md as os.path.join writes it, the folder being the path's head (no trailing separator): what
    # `_early_of` asks of an entry, told by string methods (os.path's calls were ~2% of this work)
    skill_dir = path[: -len(_SKILL_MD)] if path.endswith(_SKILL_MD) else ""
    if not skill_dir or skill_dir.endswith(os.sep) or not isinstance(fm, FileFrontmatter):
        return None
    body = claude_body(text)
    if invisible_chars(body):
        return None
    try:
        found = _link_findings(path, skill_dir, body, fm.body_line, None)
        named = conformance.named_exactly(skill_dir)
        conf = conformance.check(skill_dir, None, _ReadOnce(path, None, text), named)
    except Exception:
        return None
    return [_row(d) for d in found], [_row(d) for d in conf]


def _early_of(s: Skill, extras: dict[str, object]) -> _Early | None:
    """`_early`'s answer for this entry, when discovery computed one for exactly its file, folder and parse."""
    fm = s.frontmatter
    # `_early` answers only for <folder>/SKILL.md, as os.path.join writes it: that folder is the path's head
    if s.path is None or not isinstance(fm, FileFrontmatter) or fm.path != s.path or s.skill_dir is None \
            or not s.path.endswith(_SKILL_MD) or s.path[: -len(_SKILL_MD)] != s.skill_dir:
        return None
    got = extras.get(s.path)
    return got if isinstance(got, tuple) and len(got) == 2 else None


def _pass_items(catalog: Catalog, items: list[_Item], links: _Lens, bodies: _Lens, conformance_: _Lens) -> None:
    for s, want_links, want_body, want_conf in items:
        fm = s.frontmatter
        raw: conformance.RawFile | None = None
        if isinstance(fm, FileFrontmatter) or (want_conf and s.path):
            where = fm.path if isinstance(fm, FileFrontmatter) else s.path
            assert where is not None
            raw = conformance.read_raw(where, max(conformance.MAX_BYTES, fm.cap if isinstance(fm, FileFrontmatter) else 0))
        text = _decoded(raw, fm.cap if isinstance(fm, FileFrontmatter) else conformance.MAX_BYTES)
        if not (want_links or want_body):
            body = ""
        elif isinstance(fm, FileFrontmatter):
            assert raw is not None
            body = claude_body(text) if text is not None else fm.body_from(raw.data)
        else:
            body = fm.body if fm is not None else ""
        if want_links:
            links.run(s.path, skill_link_findings, catalog, s, body)
        if want_body and fm is not None:
            bodies.run(s.path, invisible.body_findings, catalog, s, body)
        if want_conf:
            assert s.skill_dir is not None
            where = fm.path if isinstance(fm, FileFrontmatter) else s.path
            read = _ReadOnce(where, raw, text)
            # this pass opened skill_dir/SKILL.md: when that is its exact name, conformance need not list the folder
            named = raw is not None and raw.data is not None and where == os.path.join(s.skill_dir, "SKILL.md") \
                and conformance.named_exactly(s.skill_dir)
            conformance_.run(s.skill_dir, conformance.check, s.skill_dir, None, read, named)


_Answer = tuple[_Lens, _Lens, _Lens, list[Diagnostic] | None]


def _fork_pass(catalog: Catalog, items: list[_Item], then: Then | None = None) -> Callable[[], _Answer | None] | None:
    """Start `_pass_items` on `items` (and `then`) in a forked child. Returns the call that waits for its three lenses
    and the findings of `then` (None if the child failed: the caller then does the work itself), or None when no
    child could be started."""
    import gc
    import pickle

    try:
        r, w = os.pipe()
    except OSError:
        return None
    gc.freeze()  # the collector would otherwise touch (and so copy) every page of the shared heap in the child
    try:
        pid = os.fork()
    except OSError:
        os.close(r)
        os.close(w)
        gc.unfreeze()
        return None
    if pid == 0:  # the child: its findings down the pipe, then out without running the parent's exit handlers
        code = 1
        try:
            os.close(r)
            lenses = (_Lens("the link check"), _Lens("the invisible-character check"),
                      _Lens("the Agent Skills conformance check"))
            _pass_items(catalog, items, *lenses)
            answer = (*lenses, then.run() if then is not None else None)
            with os.fdopen(w, "wb") as out:
                pickle.dump(answer, out, protocol=pickle.HIGHEST_PROTOCOL)
            code = 0
        finally:
            os._exit(code)
    os.close(w)
    gc.unfreeze()

    def wait() -> _Answer | None:
        try:
            with os.fdopen(r, "rb") as inp:
                data = inp.read()
            _, status = os.waitpid(pid, 0)
            if status != 0 or not data:
                return None
            answer = pickle.loads(data)
        except (OSError, EOFError, pickle.UnpicklingError, ValueError):
            return None
        return answer if isinstance(answer, tuple) and len(answer) == 4 else None

    return wait


def _decoded(raw: conformance.RawFile | None, cap: int) -> str | None:
    """The file's text decoded once for both lenses: when it is within both lenses' caps and valid UTF-8, Claude Code's
    lenient decode and the conformance lens's strict one give this same text (None: each decodes its own way)."""
    data = raw.data if raw is not None else None
    if data is None or len(data) > cap or len(data) > conformance.MAX_BYTES:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


@dataclass(repr=False)
class _ReadOnce(Record):
    """The conformance lens's reader for one folder: the doctor's read of `path` when it asks for that file (`text`:
    that read already decoded, see `_decoded`)."""

    path: str | None
    raw: conformance.RawFile | None
    text: str | None = None

    def __call__(self, path: str) -> tuple[str | None, str | None, bool]:
        if path == self.path and self.text is not None:  # what skill_md_text gives for a file within the cap
            return conformance.newlines_as_lf(self.text), None, False
        if path == self.path and self.raw is not None:
            return conformance.skill_md_text(self.raw, os.path.basename(path))
        return conformance.read_skill_md(path)


def _check_plugin(root: str, guide: str | None, parsed: dict[str, Frontmatter]) -> list[Diagnostic]:
    return delivery.check_plugin(root, capability_guide=guide, known=parsed)


def _plugin_checks(catalog: Catalog, guide: str | None, checked: dict[str, None]) -> Then:
    """The plugin consistency check of each plugin folder not yet `checked` (one check per folder, not per record).
    It reads plugin files as Claude Code does: the catalog has already parsed them."""
    parsed = {s.path: s.frontmatter for s in catalog.skills if s.path and s.frontmatter is not None}
    roots = []
    for p in catalog.plugins:
        if p.root and p.kind != "builtin" and p.root not in checked:
            checked[p.root] = None
            roots.append(p.root)

    def check(root: str) -> Callable[[], list[Diagnostic]]:
        def run() -> list[Diagnostic]:
            out: list[Diagnostic] = []
            _guard(out, "the plugin consistency check", root, _check_plugin, root, guide, parsed)
            return out
        return run

    # a root's weight: its items in the catalog (what its check reads), each about half a pass item (measured on the
    # bench tree: 1,000 plugin files, 37 ms; a pass item 71 us)
    items = Counter(s.plugin for s in catalog.skills if s.plugin)
    files: Counter[str] = Counter()
    for p in catalog.plugins:
        if p.root:
            files[p.root] += items[p.id]
    return _joined(tuple(Then(check(root), files[root] // 2) for root in roots)) if roots else Then(list)


def _beside(catalog: Catalog, opts: Options, plugins: Then | None) -> Then | None:
    """The budget check (when the runtime has a listing budget) and the plugin checks, in this order, as one `Then`."""
    if not get(catalog.runtime).listing_budget:
        return plugins

    def run() -> list[Diagnostic]:
        out: list[Diagnostic] = []
        _guard(out, "the budget check", None, budget_findings, catalog, opts)
        return out

    # measured on the bench tree: the budget check of 6,000 entries costs about 500 pass items in a child (35.5 ms, its
    # imports, the ICU tables and the pages it copies included)
    budget_ = Then(run, len(catalog.skills) // 12)
    return budget_ if plugins is None else _joined((budget_, *(plugins.pieces or (plugins,))))


def budget_findings(catalog: Catalog, opts: Options) -> list[Diagnostic]:
    """Which entries lose their description at the runtime's default window."""
    from skilltui import budget  # imported by the child that runs this check (`_beside`), not before discovery

    view = budget.run(opts, catalog=catalog)
    if not isinstance(view, budget.BudgetView) or not view.result.over_budget:
        return []
    lost = view.result.name_only()
    if not lost:
        return []
    r = view.result
    return [Diagnostic(
        "warning", f"{catalog.runtime}-listing-over-budget", None,
        f"the listing is {r.total_full} columns, over the {r.budget}-column budget of "
        f"{view.model.why if view.model else 'the default window'}; "
        f"{len(lost)} entries are listed by name only: {', '.join(lost[:20])}{' …' if len(lost) > 20 else ''}",
        fix="Turn skills off with `skilltui skill set NAME off`, disable unused plugins, or raise skillListingBudgetFraction",
        runtime=catalog.runtime)]


def run(opts: Options, runtimes: tuple[str, ...] | list[str], known: Catalog | None = None,
        workers: int = 1) -> list[Diagnostic]:
    """Every finding for these runtimes. `known` is a catalog already discovered with `opts` (the TUI has one): it is
    used for its runtime instead of discovering again. `workers` > 1 spreads the skill pass over that many processes
    (forked; for a caller with no other threads, such as the command line)."""
    waiting: list[tuple[int, Callable[[], list[Diagnostic]]]] = []
    try:
        return _run(opts, runtimes, known, workers, waiting)
    except BaseException:
        for _, join in waiting:  # a child running the budget or plugin checks is waited for, whatever happened
            join()
        raise


def _run(opts: Options, runtimes: tuple[str, ...] | list[str], known: Catalog | None, workers: int,
         waiting: list[tuple[int, Callable[[], list[Diagnostic]]]]) -> list[Diagnostic]:
    found: list[Diagnostic] = []
    conformed: dict[str, None] = {}
    conformance_ = _Lens("the Agent Skills conformance check")
    catalogs: list[Catalog] = []
    by_runtime: dict[str, Catalog] = {}
    plugin_roots: dict[str, None] = {}
    guide = opts.env.get(delivery.GUIDE_ENV) or None
    for runtime in runtimes:
        o = copy.copy(opts)
        o.runtime = runtime
        with frontmatter.reading_with(_early) as extras:  # the lenses on each file while discovery has it read
            catalog = known if known is not None and runtime == opts.runtime else discover(o)
            early = dict(extras)
        catalogs.append(catalog)
        by_runtime[runtime] = catalog
        for d in catalog.diagnostics:
            d.runtime = d.runtime or runtime
            # the runtime's own finding, whatever its code says (Claude Code's plugin-* codes are not the plugin check)
            d.lenses = d.lenses[:1] or (LENS_NAMES.get(runtime, runtime),)
        found.extend(catalog.diagnostics)
        rt = get(runtime)
        plugins = _plugin_checks(catalog, guide, plugin_roots) if rt.toggles_plugins else None
        links, bodies = _Lens("the link check"), _Lens("the invisible-character check")
        joined = skill_pass(catalog, conformed, links, bodies, conformance_, workers, _beside(catalog, o, plugins),
                            early)
        del early
        found += links.results()
        _guard(found, "the invisible-character check", None, invisible.findings, catalog, False)
        found += bodies.results()
        explain = getattr(rt, "findings", None)  # a runtime's own checks (skilltui/checks/<runtime>.py)
        if explain is not None:
            _guard(found, f"the {runtime} checks", None, explain, catalog)
        waiting.append((len(found), joined))  # the budget and plugin findings go here, once their child is done
    found += conformance_.results()
    if catalogs:
        project = catalogs[0].facts.git_root or opts.cwd
        env = opts.env
        _guard(found, "the delivery check", project,
               lambda: delivery.check_delivery(project, opts.home, managed_dir=opts.managed_dir, env=env,
                                               agy_skills_dir=env.get(delivery.AGY_SKILLS_ENV) or None,
                                               agy_adapters_dir=env.get(delivery.AGY_ADAPTERS_ENV) or None,
                                               catalogs=by_runtime))
    while waiting:
        at, join = waiting.pop()
        found[at:at] = join()
    return sort_unique(found)


# Codes that state the same fact about a file, whichever check found it: the doctor reports each cause once, keeps
# the most severe wording, and lists on it the lenses that agree (issue #13: one finding per fact). A cause is a fact
# every lens sees in the file itself; what a runtime then does with it differs, which is why each has its own code.
# Two facts where one follows from the other (no description because the YAML does not parse) stay two findings:
# each says something the other does not. Runtime resolution (which copy wins) is per runtime: lenses may disagree.
CAUSES: dict[str, str] = {
    # the frontmatter cannot be read as YAML (or its fields not as text): each runtime refuses, retries or falls back
    **dict.fromkeys(("claude-frontmatter-invalid", "claude-frontmatter-retried", "spec-yaml-invalid",
                     "plugin-frontmatter-invalid", "codex-yaml-invalid", "spec-frontmatter-not-mapping",
                     "omp-frontmatter-fallback", "gemini-yaml-fallback"), "frontmatter-invalid"),
    **dict.fromkeys(("spec-no-frontmatter", "codex-frontmatter-missing"), "frontmatter-missing"),
    **dict.fromkeys(("claude-plugin-item-unlisted", "plugin-description-missing", "spec-description-missing",
                     "codex-description-missing", "claude-description-missing", "claude-plugin-command-unlisted",
                     "plugin-command-description-missing", "omp-description-missing"), "description-missing"),
    **dict.fromkeys(("spec-name-dir-mismatch", "plugin-skill-dir-name-mismatch", "claude-display-name-unused"),
                    "name-not-folder"),
    **dict.fromkeys(("spec-name-too-long", "codex-name-too-long"), "name-too-long"),
    **dict.fromkeys(("spec-description-too-long", "codex-description-long", "claude-description-capped"),
                    "description-too-long"),
    # a SKILL.md below the depth a runtime scans: every runtime that says so agrees it is not found
    **dict.fromkeys(("claude-nested-skill-ignored", "omp-nested-ignored", "gemini-too-deep", "codex-too-deep"),
                    "too-deep"),
    # Gemini CLI's own conflict line and the check that explains it (checks/gemini.py): one conflict
    **dict.fromkeys(("gemini-overridden", "gemini-loaded-twice", "gemini-alias-shadows", "gemini-order-race"),
                    "name-conflict"),
    "spec-name-missing": "name-missing",
    "plugin-manifest-name-invalid": "manifest-name-invalid",
}
# Codes whose one code covers several causes: the cause is told by words the finding's own message always has.
CAUSE_BY_WORDS: dict[str, tuple[tuple[str, str], ...]] = {
    # checks/gemini.py ends the message with the discovery's problem code
    "gemini-invalid-frontmatter": (("[gemini-frontmatter-missing]", "frontmatter-missing"),
                                   ("[gemini-description-missing]", "description-missing"),
                                   ("[gemini-name-missing]", "name-missing")),
    # runtimes/claude/plugins.py: Claude Code's own words name the field it rejected first
    "plugin-manifest-invalid": (("plugin.json: name: ", "manifest-name-invalid"),
                                ("plugin.json is not valid JSON", "manifest-unparsable"),
                                ("plugin.json: manifest must be an object", "manifest-unparsable")),
    # checks/delivery.py: the plugin check reads the same plugin.json
    "plugin-manifest-missing": ((" is not valid JSON", "manifest-unparsable"),
                                (" is not a JSON object", "manifest-unparsable")),
}
LENS_NAMES = {"claude": "Claude Code", "codex": "Codex", "omp": "oh-my-pi", "gemini": "Gemini CLI",
              "spec": "Agent Skills spec", "plugin": "plugin consistency", "skill": "links", "agy": "AGY delivery"}


def cause_of(d: Diagnostic) -> str | None:
    """The fact a finding states, shared by every code that states it (None: a fact of its own code)."""
    for words, cause in CAUSE_BY_WORDS.get(d.code, ()):
        if words in d.message:
            return cause
    return CAUSES.get(d.code)


def lens_of(d: Diagnostic) -> str:
    """Who found it: the runtime a catalog finding came from (`run` names it), else the check its code names."""
    if d.lenses:
        return d.lenses[0]
    prefix = d.code.split("-", 1)[0]
    return LENS_NAMES.get(prefix, LENS_NAMES.get(d.runtime or "", prefix))


def sort_unique(diags: list[Diagnostic]) -> list[Diagnostic]:
    """Each finding once; findings of one cause on one file merged into the most severe, with the lenses listed."""
    seen: set[tuple[str, str | None, int | None, str]] = set()
    by_cause: dict[tuple[str, str | None], Diagnostic] = {}
    real = delivery.RealPaths()  # a skill's files share their folders: one lstat per new part, not per part
    out: list[Diagnostic] = []
    for d in sorted(diags, key=lambda d: SEVERITY_ORDER.get(d.severity, 3)):
        key = (d.code, d.path, d.line, d.message)
        if key in seen:
            continue
        seen.add(key)
        cause = cause_of(d)
        if cause is None or d.path is None:
            out.append(d)
            continue
        where = real(d.path)  # one file reached by two paths is still one file
        first = by_cause.get((cause, where))
        if first is None:
            by_cause[(cause, where)] = d
            d.lenses = (lens_of(d),)
            out.append(d)
        elif lens_of(d) not in first.lenses:
            first.lenses = (*first.lenses, lens_of(d))
            first.line = first.line or d.line
    for d in out:
        if len(d.lenses) == 1:
            d.lenses = ()  # a lens of its own: the code already says which
    out.sort(key=lambda d: (SEVERITY_ORDER.get(d.severity, 3), d.code, d.path or "", d.line or 0))
    return out


def counts(diags: list[Diagnostic]) -> dict[str, int]:
    out: dict[str, int] = {}
    for d in diags:
        out[d.code] = out.get(d.code, 0) + 1
    return out


CHUNK = 250  # findings per pickle: the parent unpickles one chunk at a time, each a short hold of its interpreter lock


def serve() -> None:
    """The child side of `run_isolated`: a pickled (Options, runtimes) on stdin; on stdout the status, then the
    findings in pickled chunks of CHUNK, then None."""
    import pickle
    import sys

    try:
        os.nice(19)  # the app the findings are for comes first: the checks take only the CPU it leaves
    except OSError:
        pass
    opts, runtimes = pickle.load(sys.stdin.buffer)
    out = sys.stdout.buffer
    try:
        found = run(opts, runtimes)
    except Exception as exc:  # reported to the parent, which turns it into a finding
        pickle.dump(("failed", f"{exc.__class__.__name__}: {exc}"), out)
    else:
        pickle.dump(("ok", len(found)), out)
        for i in range(0, len(found), CHUNK):
            pickle.dump(found[i : i + CHUNK], out)
        pickle.dump(None, out)
    sys.stdout.flush()


def run_isolated(opts: Options, runtimes: tuple[str, ...] | list[str], cancelled: Callable[[], bool] | None = None,
                 timeout: float = 600.0) -> list[Diagnostic] | None:
    """`run` in a child Python process, for a caller that must stay responsive: the checks parse thousands of files,
    and in a thread they would hold the interpreter lock the caller's event loop needs. Returns None when
    `cancelled()` turned true (the child is then stopped), and a single finding when the child failed or took longer
    than `timeout` seconds. The child writes nothing to the terminal (its stderr is discarded)."""
    import pickle
    import subprocess
    import sys
    import tempfile

    package_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ)
    env["PYTHONPATH"] = package_root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    with tempfile.TemporaryFile() as out:  # a file, not a pipe: a big answer never blocks the child
        proc = subprocess.Popen([sys.executable, "-c", "from skilltui.doctor import serve; serve()"],
                                stdin=subprocess.PIPE, stdout=out, stderr=subprocess.DEVNULL, env=env, cwd=package_root)
        try:
            assert proc.stdin is not None
            proc.stdin.write(pickle.dumps((opts, tuple(runtimes))))
            proc.stdin.close()
            deadline = time.monotonic() + timeout
            while proc.poll() is None:
                if cancelled is not None and cancelled():
                    return None
                if time.monotonic() > deadline:
                    return [Diagnostic("warning", "doctor-check-failed", None,
                                       f"the checks took longer than {timeout:.0f} s and were stopped")]
                time.sleep(0.05)
            out.seek(0)
            status, payload = pickle.load(out)
            found: list[Diagnostic] = []
            while status == "ok":
                chunk = pickle.load(out)  # one chunk at a time: a caller's event loop runs in between
                if chunk is None:
                    break
                found += chunk
                time.sleep(0)
        except (OSError, EOFError, pickle.UnpicklingError, ValueError) as exc:
            return [Diagnostic("warning", "doctor-check-failed", None,
                               f"the checks stopped without an answer (exit code {proc.returncode}; {exc.__class__.__name__})")]
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.wait(timeout=5)
    if status != "ok" or payload != len(found):
        return [Diagnostic("warning", "doctor-check-failed", None, f"the checks could not run: {payload}")]
    return found
