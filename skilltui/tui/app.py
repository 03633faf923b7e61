"""The skilltui app: five screens over one catalog, discovery in a worker, and a poll that refreshes on disk changes.

State flows down: the app holds the `Loaded` discovery result (`state`), the diagnostics, and the selected skill;
each screen watches what it shows. Actions flow up: screens call the app's actions (open a preview, open a file,
toggle a plugin), so every action exists once and the footer, the command palette and the help screen name it.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import gc
import importlib
import os
import sys
import threading
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from textual import events, work
from textual.app import App
from textual.binding import Binding
from textual.reactive import reactive
from textual.screen import Screen
from textual.worker import get_current_worker

from skilltui.model import Diagnostic, Options, Skill
from skilltui.tui import data, messages
from skilltui.tui import textual_private as private
from skilltui.tui.commands import SkilltuiCommands
from skilltui.tui.messages import ToggleRequest
from skilltui.tui.screens.skills import SkillsScreen
from skilltui.tui.widgets.footer import StableFooter
from skilltui.tui.widgets.topbar import SCREENS

# The screens not shown first, imported when they are first built (in idle time or on a first visit), so that the
# first paint does not wait for their modules (Markdown, TextArea, the budget engine: a few hundred milliseconds).
LATER_SCREENS = ("skilltui.tui.screens.preview", "skilltui.tui.screens.budget", "skilltui.tui.screens.plugins",
                 "skilltui.tui.screens.doctor", "skilltui.tui.screens.help", "skilltui.tui.screens.fileview",
                 "skilltui.tui.screens.toggle")


def _later(module: str, name: str) -> Callable[[], Screen]:
    """A mode's screen, its module imported when the mode is first built."""

    def build() -> Screen:
        screen: Screen = getattr(importlib.import_module(f"skilltui.tui.screens.{module}"), name)()
        return screen

    build.__name__ = name
    return build


def import_later_screens() -> None:
    """Import the screens' modules ahead of their first use; called off the UI thread once discovery is done."""
    for module in LATER_SCREENS:
        importlib.import_module(module)


POLL_SECONDS = 2.0
IDLE_SECONDS = 5.0
# Work done ahead on the UI thread (screens prepared, Markdown warmed) waits until no key has come for this long and
# the screen is drawn, and runs one piece (a few tens of milliseconds) per turn: a key waits for one piece at most.
QUIET_SECONDS = 0.3
QUIET_CHECK_SECONDS = 0.05
BUSY_LATENESS = 0.02  # a check that runs this much later than asked: the event loop was busy (a screen being built)
MAX_POSTPONED = 20  # a screen that never stops repainting (an animation) does not hold the work back for ever
MAX_QUIET_WAIT_SECONDS = 2.0  # a worker step waits at most this long for a quiet moment
PREVIEW_WAIT_SECONDS = 0.3
FIRST_FRAME_WAIT_SECONDS = 1.0  # discovery waits for the first frame at most this long
_GO = Binding.Group("Screens", compact=True)


class SkilltuiApp(private.BatchWakingApp[int]):
    """Which skills your coding agent sees, from where, and why."""

    TITLE = "skilltui"
    CSS_PATH = "app.tcss"
    MODES = {"skills": SkillsScreen, "preview": _later("preview", "PreviewScreen"),
             "budget": _later("budget", "BudgetScreen"), "plugins": _later("plugins", "PluginsScreen"),
             "doctor": _later("doctor", "DoctorScreen")}
    DEFAULT_MODE = "skills"
    COMMANDS = App.COMMANDS | {SkilltuiCommands}
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-wide")]
    BINDINGS = [
        *(Binding(str(i), f"screen('{mode}')", title, group=_GO, id=f"screen.{mode}", tooltip=f"Show the {title} screen")
          for i, (mode, title) in enumerate(SCREENS, 1)),
        Binding("r", "cycle_runtime", "Runtime", id="runtime.next", tooltip="Discover again with the next runtime"),
        Binding("ctrl+r", "reload", "Reload", show=False, id="reload", tooltip="Discover again now"),
        Binding("question_mark", "help", "Help", key_display="?", id="help"),
        Binding("q", "quit", "Quit", id="quit"),
        # ctrl+c quits from anywhere, even from a text field (Textual would copy there and only hint at ctrl+q)
        Binding("ctrl+c", "quit", "Quit", show=False, priority=True, id="quit.ctrl-c"),
    ]

    state: reactive[data.Loaded | None] = reactive(None, always_update=True, init=False)
    diagnostics: reactive[list[Diagnostic] | None] = reactive(None, always_update=True, init=False)
    selected: reactive[Skill | None] = reactive(None, always_update=True, init=False)
    busy: reactive[str] = reactive("")  # what the app is doing, shown in the top bar; "" when idle
    budget_chars: reactive[int | None] = reactive(None, init=False)  # the budget screen's current budget

    def __init__(self, opts: Options, *, poll: bool = True, cache: bool = False) -> None:
        super().__init__()
        self.opts = opts
        self.poll = poll
        self.use_cache = cache  # first rows from the answer cache on an unchanged tree (skilltui/cache.py)
        self.runtimes = data.available_runtimes()
        self._previous_mode = "skills"
        self._selected_key: tuple | None = None
        self._before_write: tuple[data.Loaded, int] | None = None  # to report a toggle's effect once rediscovered
        self.load_error: str | None = None
        self._frozen = False
        self._warm_started = False
        self._markdown_warm = False
        self._to_draw: Screen | None = None  # a screen prepared ahead, to be drawn off screen at the next quiet turn
        self._postponed = 0
        self._warm_due = 0.0
        self._last_input = time.monotonic()
        self._painted = threading.Event()  # set once the first frame is drawn

    # ------------------------------------------------------------ lifecycle
    def on_mount(self) -> None:
        self.call_after_refresh(self._painted.set)
        self.load()
        if self.poll:
            self.set_interval(POLL_SECONDS, self.check_files, name="watch-files")
        self.set_interval(IDLE_SECONDS, self._collect_when_idle, name="collect-when-idle")

    @work(thread=True, exclusive=True, group="discover", name="discover", description="discover")
    def load(self) -> None:
        """Discovery off the UI thread; the screens show a loading state until it posts its result."""
        opts = self.opts
        # The first frame first: this thread would hold the interpreter lock for most of its work (the cache's
        # unpickling never lets go of it), and the frame needs only the screen's empty layout.
        self._painted.wait(FIRST_FRAME_WAIT_SECONDS)
        self.call_from_thread(setattr, self, "busy", f"scanning for {data.RUNTIME_LABELS.get(opts.runtime, opts.runtime)}…")
        try:
            loaded = data.load(opts, cached=self.use_cache, rows_first=True)
        except Exception as exc:  # never a traceback on screen: say what failed (and log it), keep the last good state
            self.call_from_thread(self._load_failed, data.logged(exc, "discovery"))
            return
        if get_current_worker().is_cancelled:
            return
        self.call_from_thread(self._loaded, loaded)
        # once the rows are on their way: what the first rows do not need, each step after a quiet moment (this
        # thread holds the interpreter lock while it works, so a key's screen would be built at half speed)
        worker = get_current_worker()
        steps = [partial(data.watch, loaded), *([loaded.store] if loaded.store is not None else []),
                 data.warm_markdown, import_later_screens]
        for step in steps:
            self._wait_for_quiet(worker)
            step()
        # the UI thread's own work ahead starts once this thread's imports are done: it would otherwise wait on their
        # import locks (and fight this thread for the interpreter lock) while the user may already be typing
        self.call_from_thread(self._start_warm_up)
        diags = data.diagnostics(opts, loaded.catalog)
        if not get_current_worker().is_cancelled:
            self.call_from_thread(self._diagnosed, loaded, diags)

    def _wait_for_quiet(self, worker) -> None:
        """In a worker thread: wait (boundedly) until no key has come for QUIET_SECONDS."""
        deadline = time.monotonic() + MAX_QUIET_WAIT_SECONDS
        while not worker.is_cancelled and (now := time.monotonic()) < deadline:
            wait = QUIET_SECONDS - (now - self._last_input)
            if wait < 0.001:  # (not <= 0: a rounding remainder would be slept in ever smaller steps)
                return
            time.sleep(min(wait, QUIET_CHECK_SECONDS))

    def _load_failed(self, message: str) -> None:
        self.load_error = message
        self.busy = ""
        self.notify(message, title="Discovery failed", severity="error", markup=False)
        if self.state is None:
            self.diagnostics = []

    def _loaded(self, loaded: data.Loaded) -> None:
        self.busy = ""
        self.load_error = None
        self.state = loaded
        if self._selected_key is not None:
            self.selected = data.find_skill(loaded.catalog, self._selected_key)
        if self.diagnostics is None:
            self.diagnostics = list(loaded.catalog.diagnostics)
        if self._before_write is not None:
            before, chars = self._before_write
            self._before_write = None
            self._report_effect(before, loaded, chars)
        self.freeze_long_lived()

    def _exiting(self) -> bool:
        """True once the app is closing: timers still queued then must not touch screens (ScreenStackError)."""
        return not self.is_running or self.return_code is not None or not self.screen_stack

    def _start_warm_up(self) -> None:
        if not self._warm_started and not self._exiting():
            self._warm_started = True
            self._next_warm_step(QUIET_CHECK_SECONDS)

    def _next_warm_step(self, delay: float) -> None:
        self._warm_due = time.monotonic() + delay
        self.set_timer(delay, self._warm_step)

    def _warm_wait(self, now: float | None = None) -> float:
        """0 when work ahead may run now, else how long to wait: a key came within QUIET_SECONDS, or the event loop
        is busy (this check ran late: a screen is being built) or a frame is pending (postponed a bounded number
        of times). `now`: the monotonic clock's reading (a test passes its own)."""
        now = time.monotonic() if now is None else now
        wait = QUIET_SECONDS - (now - self._last_input)
        if wait > 0:
            return max(wait, QUIET_CHECK_SECONDS)
        if (now - self._warm_due > BUSY_LATENESS or private.drawing_pending(self)) and self._postponed < MAX_POSTPONED:
            self._postponed += 1
            return QUIET_CHECK_SECONDS
        self._postponed = 0
        return 0.0

    async def _warm_step(self) -> None:
        """One piece of work ahead per quiet turn: warm the Markdown widgets, then build each other screen and draw
        it off screen, so that a first visit only shows it. Postponed while the user types, a screen is being built
        or drawn (this check itself ran late), or a frame is pending."""
        if self._exiting():
            return
        wait = self._warm_wait()
        if wait:
            self._next_warm_step(wait)
            return
        if self._to_draw is not None:
            screen, self._to_draw = self._to_draw, None
            self._draw_unseen(screen)
        elif not self._markdown_warm:
            self._markdown_warm = True
            await self._warm_markdown()
        elif not await self._prepare_modes():
            return  # every screen is built: nothing left to do ahead
        if not self._exiting():
            self._next_warm_step(QUIET_CHECK_SECONDS)

    async def _prepare_modes(self) -> bool:
        """Build the next screen not yet built (preview first), to be drawn off screen at the next quiet turn, so
        that a first visit does not compose, mount, style, lay out and draw it (0.1-0.3 s each); False if none."""
        if self._exiting():
            return False
        pending = [mode for mode in ("preview", *self.MODES) if private.mode_screen(self, mode) is None]
        if not pending:
            return False
        screen = await private.prepare_mode(self, pending[0])
        if self._exiting():
            return False
        for footer in screen.query(StableFooter):
            footer.bindings_changed(screen)  # its keys, which Textual composes only once the screen is shown
        self._to_draw = screen
        return True

    def _draw_unseen(self, screen) -> None:
        """A layout and a frame that is not displayed: each widget's lines are then cached for the first visit."""
        if self._exiting():
            return
        if screen is not self.screen:
            draw_ahead = getattr(screen, "draw_ahead", None)
            # its data too, once its widgets have their sizes (text is wrapped once), so the frame caches the lines
            # a first visit shows
            private.draw_offscreen(screen, self.size, draw_ahead if callable(draw_ahead) else None)

    async def _warm_markdown(self) -> None:
        """Mount (hidden) and drop one small Markdown document, so the first preview does not pay for loading the
        Markdown widgets' styles (a few hundred milliseconds, once per process)."""
        from textual.widget import MountError

        from skilltui.tui.widgets.markdown import WARM_SAMPLE, SafeMarkdown

        if self._exiting():
            return
        warm = SafeMarkdown(WARM_SAMPLE, classes="warm-up")
        try:
            await self.screen.mount(warm)
            if not self._exiting() and warm.is_attached:
                await warm.update(WARM_SAMPLE)
        except MountError:  # the app is closing (its screen or the document is gone): nothing left to warm
            return
        finally:
            if warm.is_attached:
                await warm.remove()

    # ------------------------------------------------------------ garbage collection off the hot path
    # A catalog and five screens are many thousands of long-lived objects; a full collection walks them all (0.1 s
    # on the demo, about a second on the corpus), and when it lands on a keystroke or on opening a preview, the app
    # stalls. So long-lived objects are frozen (never walked) after a discovery and before a preview opens, and
    # garbage is collected for real only once the user has been idle for a few seconds.
    def freeze_long_lived(self) -> None:
        """Called when many objects were just made to last: a catalog, its diagnostics, a full table, a screen."""
        gc.freeze()
        self._frozen = True

    def _collect_when_idle(self) -> None:
        if self._frozen and time.monotonic() - self._last_input > IDLE_SECONDS and not self.busy:
            gc.unfreeze()
            gc.collect()
            gc.freeze()  # what survived is long-lived
            self._frozen = False

    async def on_event(self, event) -> None:
        if isinstance(event, (events.Key, events.MouseDown)):
            self._last_input = time.monotonic()
        await super().on_event(event)

    def _report_effect(self, before: data.Loaded, after: data.Loaded, chars: int) -> None:
        from skilltui import whatif
        from skilltui.runtimes.claude import listing

        if before.prepared is None or after.prepared is None:
            return
        effect = whatif.compare(listing.simulate_prepared(before.prepared, chars),
                                listing.simulate_prepared(after.prepared, chars))
        self.notify("Listing: " + data.effect_text(effect), title="After the write", timeout=8, markup=False)

    def _diagnosed(self, loaded: data.Loaded, diags: list[Diagnostic]) -> None:
        if self.state is loaded:
            self.diagnostics = diags
            self.freeze_long_lived()

    def check_files(self) -> None:
        if self.state is not None and self.state.signature is not None and not self.busy:
            self._poll(self.state)

    @work(thread=True, exclusive=True, group="poll", name="poll", description="stat watched files")
    def _poll(self, loaded: data.Loaded) -> None:
        paths = data.watch_paths(loaded.catalog, loaded.claude)
        if data.signature(paths) != loaded.signature:
            self.call_from_thread(self._changed_on_disk, loaded)

    def _changed_on_disk(self, loaded: data.Loaded) -> None:
        if self.state is loaded and not self.busy:
            self.notify("Files changed on disk; discovering again.", timeout=2)
            self.load()

    # ------------------------------------------------------------ shared state
    def select(self, skill: Skill | None) -> None:
        self._selected_key = data.skill_key(skill) if skill else None
        self.selected = skill

    @property
    def catalog(self):
        return self.state.catalog if self.state else None

    def current_budget(self) -> int | None:
        if self.budget_chars is not None:
            return self.budget_chars
        state = self.state
        if state is None or state.claude is None:
            return None
        from skilltui import budget

        try:
            return budget.params_for(state.claude, state.opts).budget
        except (ValueError, TypeError, ArithmeticError) as exc:  # a budget setting it cannot use: no simulation
            self.notify(f"No budget to simulate: {exc}", severity="warning", markup=False)
            return None

    # ------------------------------------------------------------ actions
    def action_screen(self, mode: str) -> None:
        self.workers.cancel_group(self, "switch")  # a key pressed while a preview was being drawn wins
        if mode == self.current_mode:
            return
        if mode == "preview" and self.selected is None:
            screen = self.screen
            pick = getattr(screen, "highlighted_skill", None)
            skill = pick() if callable(pick) else None
            if skill is not None:
                self.select(skill)
        self._previous_mode = self.current_mode
        self.freeze_long_lived()
        if mode == "preview":
            self._show_preview()
        else:
            self.switch_mode(mode)

    def action_back(self) -> None:
        self.workers.cancel_group(self, "switch")
        if len(self.screen_stack) > 1:
            self.pop_screen()
        else:
            self.switch_mode(self._previous_mode if self._previous_mode != self.current_mode else "skills")

    def open_preview(self, skill: Skill) -> None:
        self._last_input = time.monotonic()  # however it was asked for (key, palette, test), no collection now
        self.freeze_long_lived()
        self.select(skill)  # a built preview screen starts drawing it now
        if self.current_mode != "preview":
            self._previous_mode = self.current_mode
            self._show_preview()

    @work(exclusive=True, group="switch")
    async def _show_preview(self) -> None:
        """Switch once the body's first piece is mounted (briefly), so the first paint of the screen shows it."""
        from skilltui.tui.screens.preview import PreviewScreen

        screen = private.mode_screen(self, "preview")
        if isinstance(screen, PreviewScreen):
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(screen.first_piece(), PREVIEW_WAIT_SECONDS)
        self.switch_mode("preview")

    def open_screen(self, screen: Screen, callback: Callable[[Any], object] | None = None) -> None:
        """Push `screen`, unless the app is closing: a key that follows `q` in one burst (`q` then `t` or `?`) would
        mount its screen on an app whose screens are being taken down (its on_mount found nothing: a traceback)."""
        if not self._exiting():
            self.push_screen(screen, callback)

    def open_file(self, path: str, *, line: int | None = None, title: str | None = None) -> None:
        from skilltui.tui.screens.fileview import FileScreen

        self.open_screen(FileScreen(path, line=line, title=title))

    def open_diagnostic(self, diag: Diagnostic) -> None:
        """A diagnostic opens its skill's preview when it names one, else the file itself."""
        catalog = self.catalog
        skill = data.skill_at_path(catalog, diag.path) if catalog else None
        if skill is not None:
            self.open_preview(skill)
        elif diag.path and os.path.isfile(diag.path):
            self.open_file(diag.path, line=diag.line)
        else:
            self.notify("This diagnostic names no file that can be opened.", severity="warning", markup=False)

    # ------------------------------------------------------------ what screens ask (tui/messages.py)
    def on_open_preview(self, message: messages.OpenPreview) -> None:
        self.open_preview(message.skill)

    def on_open_file(self, message: messages.OpenFile) -> None:
        self.open_file(message.path, line=message.line, title=message.title)

    def on_open_diagnostic(self, message: messages.OpenDiagnostic) -> None:
        self.open_diagnostic(message.diagnostic)

    def on_request_toggle(self, message: messages.RequestToggle) -> None:
        self.request_toggle(message.request)

    def on_select_runtime(self, message: messages.SelectRuntime) -> None:
        self.action_runtime(message.runtime)

    def on_budget_changed(self, message: messages.BudgetChanged) -> None:
        self.budget_chars = message.chars

    def on_use_preset(self, message: messages.UsePreset) -> None:
        from skilltui.tui.screens.budget import BudgetScreen

        self.action_screen("budget")
        screen = private.mode_screen(self, "budget")
        if isinstance(screen, BudgetScreen):
            screen.use_preset(message.preset)

    def action_reload(self) -> None:
        self.load()

    def action_runtime(self, runtime: str) -> None:
        if runtime == self.opts.runtime or runtime not in {k for k, _ in self.runtimes}:
            return
        self.opts = data.with_runtime(self.opts, runtime)
        self.state = None
        self.diagnostics = None
        self.load()

    def action_cycle_runtime(self) -> None:
        keys = [k for k, _ in self.runtimes]
        if len(keys) < 2:
            self.notify("Only Claude Code's rules are available in this version.", markup=False)
            return
        i = keys.index(self.opts.runtime) if self.opts.runtime in keys else -1
        self.action_runtime(keys[(i + 1) % len(keys)])

    def action_help(self) -> None:
        from skilltui.tui.screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.open_screen(HelpScreen(self.screen))

    def request_toggle(self, request: ToggleRequest) -> None:
        """Ask for the scope, show the change, write it on confirmation, then discover again."""
        if self.state is None or self.state.claude is None:
            self.notify("Still discovering; try again in a moment.", markup=False)
            return
        from skilltui.tui.screens.toggle import ToggleScreen

        self.open_screen(ToggleScreen(request, self.state, self.current_budget()), self._toggled)

    def _toggled(self, outcome) -> None:
        if outcome is None:
            return
        if outcome.ok:
            self.notify(outcome.message, title="Written", markup=False)
        else:
            self.notify(outcome.message, title="Not written", severity="error", markup=False)
        for warning in outcome.warnings:
            self.notify(warning, title="Still decided elsewhere", severity="warning", timeout=10, markup=False)
        chars = self.current_budget()
        if outcome.ok and self.state is not None and chars is not None:
            self._before_write = (self.state, chars)
        self.load()


def run_app(opts: Options, *, cache: bool = False) -> int:
    """The entry point the CLI calls when no command is given."""
    return run_and_leave(SkilltuiApp(copy.copy(opts), cache=cache))


def run_and_leave(app: App, **run_options) -> int:
    """Run `app` on a loop of our own, so that quitting never waits for a worker thread: one blocked in a read (a
    FIFO, a hung network mount) would otherwise hold the process at exit, after the terminal is restored, forever."""
    loop = asyncio.new_event_loop()
    try:
        app.run(loop=loop, **run_options)
    finally:
        loop.close()  # does not wait for the executor's threads
    code = app.return_code or 0
    if any(t.is_alive() and not t.daemon for t in threading.enumerate() if t is not threading.main_thread()):
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)  # a worker is still blocked: leave without joining it
    return code
