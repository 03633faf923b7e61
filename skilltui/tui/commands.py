"""The command palette (ctrl+p): every key binding of the app and of the screen it was opened on (so it follows the
current screen), plus what makes sense there: each skill to preview, each plugin to toggle, each runtime, and the
current runtime's model presets. Names from files are shown as plain `Content`, never parsed as markup; help lines
hold only skilltui's own words (escaped anyway)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial

from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content
from textual.dom import DOMNode
from textual.markup import escape
from textual.screen import Screen

from skilltui.record import Record
from skilltui.runtimes import get
from skilltui.text import safe
from skilltui.tui import messages
from skilltui.tui.widgets.topbar import SCREENS

SCREEN_TITLES = dict(SCREENS)


@dataclass(frozen=True, repr=False)
class Command(Record):
    text: str
    callback: Callable[[], object]
    help: str
    action: str | None = None  # the binding's action, for commands made from a key binding
    discover: bool = False  # shown before anything is typed


def own_bindings(node: DOMNode) -> Iterator[Binding]:
    """The bindings skilltui declares on `node`'s class and its skilltui base classes (not Textual's own)."""
    seen: set[tuple[str, str]] = set()
    for cls in type(node).__mro__:
        if not cls.__module__.startswith("skilltui."):
            continue
        for b in cls.__dict__.get("BINDINGS", []):
            binding = b if isinstance(b, Binding) else Binding(*b)
            if (binding.key, binding.action) not in seen:
                seen.add((binding.key, binding.action))
                yield binding


def binding_owners(screen: Screen) -> list[DOMNode]:
    """Where the palette looks for bindings: the app, the screen, and skilltui's widgets on the screen."""
    widgets = [w for w in screen.query("*") if type(w).__module__.startswith("skilltui.") and any(own_bindings(w))]
    return [screen.app, screen, *widgets]


def screen_title(screen: Screen) -> str:
    mode = getattr(screen, "MODE", "")
    if mode:
        return SCREEN_TITLES.get(mode, mode.capitalize())
    return getattr(screen, "TITLE_IN_PALETTE", "") or type(screen).__name__.removesuffix("Screen")


def key_name(binding: Binding) -> str:
    return binding.key_display or binding.key.replace("question_mark", "?").replace("slash", "/")


class SkilltuiCommands(Provider):
    def _commands(self) -> list[Command]:
        """Everything the palette offers right now, on the screen it was opened on."""
        app, screen = self.app, self.screen
        out: list[Command] = []
        owners = binding_owners(screen)
        for owner in [*owners[1:], owners[0]]:  # the current screen's commands first, then the app's
            where = "Everywhere" if owner is app else screen_title(screen)
            keys: dict[str, list[Binding]] = {}  # one command per action: `q` and `ctrl+c` are one Quit
            for b in own_bindings(owner):
                keys.setdefault(b.action, []).append(b)
            for action, same in keys.items():
                b = same[0]
                title = b.description or action
                text = f"Go to {title}" if action.startswith("screen(") else f"{where}: {title}"
                names = ", ".join(key_name(k) for k in same)
                out.append(Command(text, partial(owner.run_action, action),
                                   f"{b.tooltip or title} ({'keys' if len(same) > 1 else 'key'} {names})",
                                   action=action, discover=True))
        out.append(Command("Everywhere: Command palette", app.action_command_palette, "This list (key ctrl+p)"))
        for key, label in getattr(app, "runtimes", []):
            out.append(Command(f"Runtime: {label}", partial(app.action_runtime, key),
                               "Apply this runtime's discovery rules", discover=True))
        state = getattr(app, "state", None)
        if state is not None:
            for s in state.catalog.skills:
                if s.path:
                    out.append(Command(f"Preview skill {safe(s.label or s.name)} ({s.source})",
                                       partial(app.post_message, messages.OpenPreview(s)), f"{s.status}, {s.source}"))
            if state.claude is not None:
                for p in state.claude.plugins:
                    if p.kind == "builtin":
                        continue
                    verb = "Disable" if p.enabled else "Enable"
                    request = messages.ToggleRequest("plugin", p.id, not p.enabled)
                    out.append(Command(f"{verb} plugin {safe(p.id)}",
                                       partial(app.post_message, messages.RequestToggle(request)),
                                       f"decided by {p.decided_by}", discover=True))
            runtime = get(state.catalog.runtime)
            for preset in runtime.presets:
                out.append(Command(f"Budget: simulate {preset.label}",
                                   partial(app.post_message, messages.UsePreset(preset)), preset.describe()))
        return out

    async def discover(self) -> Hits:
        for c in self._commands():
            if c.discover:
                yield DiscoveryHit(Content(c.text), c.callback, text=c.text, help=escape(c.help))

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for c in self._commands():
            score = matcher.match(c.text)
            if score > 0:
                yield Hit(score, highlight(matcher, c.text), c.callback, text=c.text, help=escape(c.help))


def highlight(matcher, text: str) -> Content:
    """The matched letters highlighted, the text taken as plain text (Matcher.highlight would parse it as markup)."""
    content = Content(text)
    score, offsets = matcher.fuzzy_search.match(matcher.query, text)
    if score:
        for offset in offsets:
            if not text[offset].isspace():
                content = content.stylize(matcher.match_style or "bold", offset, offset + 1)
    return content
