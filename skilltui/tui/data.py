"""The TUI's thin adapters over the engine. No Textual here: everything below is plain Python the tests can call.

Nothing in this module decides what a runtime does; it only gathers what the engine computes into the shape the
screens read (one `Loaded` per discovery run), watches files for changes, and asks the engine "what if".
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import importlib
import logging
import os
import time
from array import array
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import partial
from typing import TYPE_CHECKING

from skilltui.model import Catalog, Diagnostic, Options, Skill
from skilltui.record import Record
from skilltui.runtimes import REGISTRY, ModelTexts, get, plugin_host

if TYPE_CHECKING:  # imported where used: the first paint does not wait for the listing and what-if engines
    from skilltui import whatif
    from skilltui.runtimes.claude import listing

RUNTIME_LABELS = {key: get(key).label for key in REGISTRY}
_log = logging.getLogger("skilltui.tui")


def logged(exc: BaseException, what: str) -> str:
    """A failure a screen shows as one line (returned: `Type: message`); its traceback goes to the log (under the
    TUI, Textual's console), so a bug caught to keep the app up is never reduced to that line."""
    _log.error("%s", what, exc_info=exc)
    return f"{exc.__class__.__name__}: {exc}"


def available_runtimes() -> list[tuple[str, str]]:
    """(key, "Label VERSION") for every registered runtime."""
    return [(key, f"{get(key).label} {get(key).version}") for key in REGISTRY]


def runtime_label(catalog: Catalog) -> str:
    return f"{get(catalog.runtime).label} {catalog.runtime_version}"


def with_runtime(opts: Options, runtime: str) -> Options:
    other = copy.copy(opts)
    other.runtime = runtime
    return other


@dataclass(repr=False)
class Loaded(Record):
    """One discovery run, and what every screen reads from it."""

    opts: Options
    catalog: Catalog
    # The catalog of the runtime whose plugins the Plugins view toggles (runtimes.plugin_host: Claude Code), which
    # also holds the listing budget; the same object when it is the chosen runtime.
    claude: Catalog | None
    prepared: listing.Prepared | None  # its listing rows, computed once (budget screen, descriptions)
    seconds: float
    signature: bytes | None = None  # set by `watch` (None until then: no poll compares against it)
    model_text: dict[int, str] = field(default_factory=dict)  # id(skill) -> its listing text as the model sees it
    error: str | None = None  # a Claude catalog that could not be prepared, said once
    cached: bool = False  # read from the cache (an unchanged tree), not discovered again
    store: Callable[[], None] | None = None  # stores this result in the cache (called after it is shown)
    started_ns: int = 0  # when discovery started (file times at or after it mean a change during the scan)

    def text_for(self, skill: Skill) -> str:
        return self.model_text.get(id(skill), "")


def discover(opts: Options) -> Catalog:
    from skilltui.runtimes import get

    return get(opts.runtime).discover(opts)


def _discover_all(opts: Options) -> tuple[Catalog, Catalog | None, listing.Prepared | None, str | None]:
    from skilltui import budget

    catalog = discover(opts)
    claude, prepared, error = catalog, None, None
    host = plugin_host()
    if opts.runtime != host.key:
        try:
            claude = discover(with_runtime(opts, host.key))
        except Exception as exc:  # plugins and the budget need it; the chosen runtime's rows do not: said there
            claude, error = None, f"{host.label}'s catalog could not be read: {logged(exc, 'plugin host discovery')}"
    if claude is not None:
        try:
            prepared = budget.prepared_for(claude)
        except Exception as exc:  # a version without listing data: say so on the budget screen
            error = logged(exc, "listing rows")
    return catalog, claude, prepared, error


def load(opts: Options, *, cached: bool = False, rows_first: bool = False) -> Loaded:
    """Everything a screen shows, computed off the UI thread: the catalog of the chosen runtime, Claude Code's
    catalog for plugins and the budget, and the listing rows. With `cached`, the result stored by an earlier run
    stands in for discovery when every path that discovery looked at is unchanged (skilltui/cache.py); else what
    is discovered can be stored by `Loaded.store`, once it is shown. With `rows_first`, the watched files'
    signature and the Markdown warm-up are left to the caller (`watch`, `warm_markdown`), to run once the rows
    are on their way: on a 6,000-skill tree they are a third of the time to the first rows."""
    from skilltui import __version__, budget, cache

    start = time.perf_counter()
    started_ns = time.time_ns()
    parts = [__version__, "tui", repr(replace(opts, env={}))]
    found = cache.load_object(parts, opts.env) if cached else None
    if not (isinstance(found, tuple) and len(found) == 4 and isinstance(found[0], Catalog)):
        found = None
    store = None
    if found is None and cached and cache.enabled(opts.env):
        with cache.recording(opts.env) as rec:
            recorded = _discover_all(replace(opts, env=rec.env if rec.env is not None else opts.env))
        store = partial(cache.store_object, parts, opts.env, rec, recorded)
        catalog, claude, prepared, error = recorded
    else:
        catalog, claude, prepared, error = found if found is not None else _discover_all(opts)
    loaded = Loaded(opts, catalog, claude, prepared, time.perf_counter() - start, error=error,
                    cached=found is not None, store=store, started_ns=started_ns)
    # This catalog's listing rows, when they were prepared for it, say what the runtime's builder would (and failed
    # rows are not tried again: the plain descriptions are shown); else the runtime's builder is asked.
    rows = None if claude is not catalog else budget.model_texts(prepared) if prepared is not None else ModelTexts()
    loaded.model_text = model_texts(catalog, rows)
    if not rows_first:
        watch(loaded)
        warm_markdown()
    return loaded


def watch(loaded: Loaded) -> None:
    """Take the signature the poll compares against. Taken after discovery (even after the rows are shown), it is
    still safe: a file changed since discovery started has a time at or after `started_ns`, and a file added or
    removed changes its folder's time; either makes the signature STALE, so the next poll discovers again."""
    stats = file_stats(watch_paths(loaded.catalog, loaded.claude))
    loaded.signature = STALE if changed_since(stats, loaded.started_ns) else _digest(stats)


_WARM = False


def warm_markdown() -> None:
    """Build and run the Markdown parser once, off the UI thread, so the first preview does not pay for it
    (markdown-it compiles its rules on first use: about 0.2 s)."""
    global _WARM
    if _WARM:
        return
    _WARM = True
    try:
        from markdown_it import MarkdownIt

        MarkdownIt("gfm-like").parse(
            "# a\n\nb *c* `d` [e](f) https://g.example/h?i=j, www.example.org, example.com, mail a@b.io, "
            "see docs/README.md and quality/EXPLORATION.md.\n\n> k\n\n| h |\n|---|\n| i |\n\n- j\n1. l\n\n"
            "```\nk\n```\n\n---\n")
        # the Markdown warm-up on the UI thread highlights a Python fence: Pygments compiles that lexer's patterns
        # on first use (~0.1 s), here instead
        from textual.highlight import highlight

        highlight("x = 1\n", language="python")
    except ImportError:  # only a warm-up: the preview says what is missing when it is opened
        pass


def model_texts(catalog: Catalog, texts: ModelTexts | None = None) -> dict[int, str]:
    """The description each skill contributes, as the model receives it, from the runtime's own prompt builder
    (`Runtime.model_texts`) unless `texts` are given. A skill no builder covers (not listed, or a builder that fails
    on this catalog) shows its description as discovered."""
    from skilltui.text import safe

    shipped = f"(text shipped inside {RUNTIME_LABELS.get(catalog.runtime, catalog.runtime)})"
    if texts is None:
        try:
            texts = get(catalog.runtime).model_texts(catalog)
        except (AttributeError, KeyError, TypeError, ValueError):  # a prompt builder that fails on this catalog:
            texts = ModelTexts()  # the plain descriptions are shown
    by_name, by_path = texts.by_name, texts.by_path
    out: dict[int, str] = {}
    for s in catalog.skills:
        listed = s.status == "listed"
        if listed and s.name in by_name:
            text = by_name[s.name]
            out[id(s)] = shipped if text is None else safe(text)
        elif listed and s.path in by_path:
            text = by_path[s.path]
            out[id(s)] = shipped if text is None else safe(text)
        elif s.shipped and not s.description:
            out[id(s)] = shipped
        else:
            text = s.description or ""
            if s.when_to_use:
                text += " - " + s.when_to_use
            out[id(s)] = safe(text)
    return out


def diagnostics(opts: Options, catalog: Catalog) -> list[Diagnostic]:
    """`skilltui.doctor.run` when the engine has it, else the catalog's own diagnostics."""
    try:
        doctor = importlib.import_module("skilltui.doctor")
    except ImportError:
        return list(catalog.diagnostics)
    try:
        # In a process of its own: thousands of parses in a thread would hold the lock the event loop needs, and
        # keys would wait (bench/bench_doctor.py measures it). A worker cancelled meanwhile stops the child.
        from textual.worker import NoActiveWorker, WorkerError, get_current_worker

        try:
            worker = get_current_worker()
        except (WorkerError, RuntimeError, NoActiveWorker):  # not in a worker: nothing can cancel it
            worker = None
        found = doctor.run_isolated(opts, (opts.runtime,),
                                    cancelled=(lambda: worker.is_cancelled) if worker is not None else None)
        return list(catalog.diagnostics) if found is None else list(found)
    except Exception as exc:  # the doctor's own failure is a finding on the Doctor screen, never a silent gap
        return [*catalog.diagnostics, Diagnostic("warning", "doctor-failed", None,
                                                 f"The doctor's checks failed: {logged(exc, 'doctor')}")]


# ---------------------------------------------------------------- watching files (Textual timers poll these)


def watch_paths(*catalogs: Catalog | None) -> list[str]:
    """Files and folders whose change means the catalog may be stale: settings files of every scope, plugin records,
    every skill root, skill folder and entry file, and the project folders where a skills root could appear."""
    seen: dict[str, None] = {}

    def add(p: str | None) -> None:
        if p:
            seen.setdefault(p, None)

    for catalog in catalogs:
        if catalog is None:
            continue
        settings = catalog.settings
        for src in getattr(settings, "sources", None) or ():
            add(getattr(src, "path", None))
        paths = getattr(settings, "paths", None)
        if paths is not None:
            plugins_dir = getattr(paths, "plugins_dir", None)
            if plugins_dir:
                add(os.path.join(plugins_dir, "installed_plugins.json"))
                add(os.path.join(plugins_dir, "known_marketplaces.json"))
                markets = os.path.join(plugins_dir, "marketplaces")
                add(markets)
                with contextlib.suppress(OSError):
                    for name in sorted(os.listdir(markets)):
                        add(os.path.join(markets, name, ".claude-plugin", "marketplace.json"))
            add(getattr(paths, "config_dir", None))
            config = getattr(paths, "config_dir", None)
            if config:
                add(os.path.join(config, "skills"))
                add(os.path.join(config, "commands"))
            add(getattr(paths, "global_config", None))  # ~/.claude.json
            managed = getattr(paths, "managed_dir", None)
            if managed:
                add(os.path.join(managed, "managed-settings.json"))
                dropins = os.path.join(managed, "managed-settings.d")
                add(dropins)
                with contextlib.suppress(OSError):
                    for name in sorted(os.listdir(dropins)):
                        add(os.path.join(dropins, name))
        for d in catalog.facts.watch:
            add(d)
        for s in catalog.skills:
            add(s.path)
            add(s.root)
            add(s.skill_dir)
        for p in catalog.plugins:
            for root in dict.fromkeys(r for r in (p.install_path, p.root) if r):
                add(root)
                add(os.path.join(root, ".claude-plugin", "plugin.json"))
                # a directory marketplace holds its plugins: its marketplace.json is a few levels up
                up = root
                for _ in range(3):
                    up = os.path.dirname(up)
                    market = os.path.join(up, ".claude-plugin", "marketplace.json")
                    if os.path.isfile(market):
                        add(market)
                        break
    return list(seen)


STALE = b"stale"  # a signature no poll ever matches (a digest is 16 bytes)
MTIME_SLACK_NS = 20_000_000  # file times come from a coarse clock that lags time.time_ns() by up to a tick


def file_stats(paths: list[str]) -> array:
    """(mtime, size) of each path, flat, (-1, -1) when it is missing: cheap stat calls."""
    out = array("q")
    for p in paths:
        try:
            st = os.stat(p)
            out.append(st.st_mtime_ns)
            out.append(st.st_size)
        except (OSError, ValueError):
            out.append(-1)
            out.append(-1)
    return out


def changed_since(stats: array, started_ns: int) -> bool:
    """True when a watched file was modified after `started_ns` (less the clock's slack): during a scan."""
    return max(stats[::2], default=-1) >= started_ns - MTIME_SLACK_NS


def signature(paths: list[str]) -> bytes:
    """A digest of every path's (mtime, size), compared between polls: 16 bytes kept, not a tuple per file (12,000
    files on a 6,000-skill tree were 1.5 MB)."""
    return _digest(file_stats(paths))


def _digest(stats: array) -> bytes:
    return hashlib.blake2b(stats.tobytes(), digest_size=16).digest()


# ---------------------------------------------------------------- lookups


def skill_key(skill: Skill) -> tuple:
    return (skill.path, skill.name, skill.source, skill.plugin)


def find_skill(catalog: Catalog, key: tuple | None) -> Skill | None:
    if key is None:
        return None
    for s in catalog.skills:
        if skill_key(s) == key:
            return s
    path = key[0]
    return next((s for s in catalog.skills if path and s.path == path), None)


def skill_at_path(catalog: Catalog, path: str | None) -> Skill | None:
    """The skill whose entry file is `path` (the listed copy first)."""
    if not path:
        return None
    norm = os.path.normpath(path)
    matches = [s for s in catalog.skills if s.path and os.path.normpath(s.path) == norm]
    listed = [s for s in matches if s.status == "listed"]
    return (listed or matches or [None])[0]


def _bases(catalog: Catalog, from_cwd: bool = True) -> list[tuple[str, str]]:
    """(folder, how it is shown) in the order a path is matched: the git root by its name (so every project path
    reads the same way, `project/.claude/settings.local.json` beside `project/services/web/.claude/settings.json`),
    else the project folder (`.`), else home (`~`)."""
    git_root = catalog.facts.project_root
    bases = []
    if git_root:
        bases.append((git_root, os.path.basename(git_root.rstrip(os.sep)) or git_root))
    elif from_cwd:
        bases.append((catalog.cwd, "."))
    bases.append((catalog.home, "~"))
    return [(b, label) for b, label in bases if b]


def short_path(path: str | None, catalog: Catalog | None, *, from_cwd: bool = True) -> str:
    """A path shown from the git root (by its name), the project folder (`.`) or home (`~`) when it is under one
    of them; display only."""
    if not path:
        return ""
    if catalog is None:
        return path
    for base, label in _bases(catalog, from_cwd):
        try:
            if os.path.commonpath([path, base]) == base:
                rel = os.path.relpath(path, base)
                return label if rel == "." else os.path.join(label, rel)
        except ValueError:
            pass
    return path


def short_paths_in(text: str, catalog: Catalog | None) -> str:
    """Free text from the engine (a reason, a diagnostic) with the absolute paths in it shortened as `short_path`
    does, so a line keeps its meaning at 80 columns; display only."""
    if catalog is None or not text:
        return text
    for base, label in sorted(_bases(catalog), key=lambda b: -len(b[0])):
        text = text.replace(base.rstrip(os.sep) + os.sep, label + os.sep)
    return text


def cwd_label(catalog: Catalog) -> str:
    """The project folder as a person names it: from the git root's name, else from home, else in full."""
    return short_path(catalog.cwd, catalog, from_cwd=False)


# ---------------------------------------------------------------- the preview body, a screenful at a time


def first_chunk(body: str, max_lines: int = 16, max_chars: int = 1000) -> int:
    """How many lines of `body` to render first: about a screenful, cut at a blank line outside a code fence when
    one is near, so the first paint is fast whatever the file's size. Returns a line count (at least 1)."""
    lines = body.split("\n")
    if len(lines) <= max_lines and len(body) <= max_chars:
        return len(lines)
    fence: str | None = None
    used = 0
    best = 0
    for i, line in enumerate(lines):
        stripped = line.lstrip()
        if fence is None and (stripped.startswith("```") or stripped.startswith("~~~")):
            fence = stripped[:3]
        elif fence is not None and stripped.startswith(fence):
            fence = None
        used += len(line) + 1
        if fence is None and not line.strip():
            best = i + 1
        if i + 1 >= max_lines or used >= max_chars:
            return best or i + 1
    return len(lines)


# ---------------------------------------------------------------- "what if": the engine's (skilltui/whatif.py)


def what_if(loaded: Loaded, change: whatif.PlannedChange, budget_chars: int) -> whatif.Effect | None:
    """The listing's change if `change` were written, from the engine; None without a Claude catalog."""
    from skilltui import whatif

    if loaded.claude is None or loaded.prepared is None:
        return None
    return whatif.effect(loaded.claude, loaded.opts, change, budget_chars, loaded.prepared)


def effect_text(effect: whatif.Effect | None) -> str:
    if effect is None:
        return "shown after the write (Claude Code's catalog could not be read to simulate it)."
    return effect.text()
