"""The command palette (ctrl+p): every action, plus what makes sense here: each skill to preview, each plugin to
toggle, each runtime and model preset. Names from files are shown as plain `Content`, never parsed as markup; help
lines hold only skilltui's own words (escaped anyway)."""

from __future__ import annotations

from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content
from textual.markup import escape

from skilltui.runtimes.claude import listing
from skilltui.text import safe
from skilltui.tui.widgets.topbar import SCREENS


class SkilltuiCommands(Provider):
    def _commands(self) -> list[tuple[str, object, str]]:
        """(text, callback, help) for everything the palette offers right now."""
        app = self.app
        out: list[tuple[str, object, str]] = []
        for i, (mode, title) in enumerate(SCREENS, 1):
            out.append((f"Go to {title}", partial(app.action_screen, mode), f"Show the {title} screen (key {i})"))
        out.append(("Reload: discover again", app.action_reload, "Scan every skill folder and settings file again"))
        out.append(("Help", app.action_help, "Keys and what each screen shows (?)"))
        for key, label in getattr(app, "runtimes", []):
            out.append((f"Runtime: {label}", partial(app.action_runtime, key), "Apply this runtime's discovery rules"))
        state = getattr(app, "state", None)
        if state is not None:
            for s in state.catalog.skills:
                if s.path:
                    out.append((f"Preview skill {safe(s.label or s.name)} ({s.source})", partial(app.open_preview, s),
                                f"{s.status}, {s.source}"))
            if state.claude is not None:
                from skilltui.tui.screens.toggle import ToggleRequest

                for p in state.claude.plugins:
                    if p.kind == "builtin":
                        continue
                    verb = "Disable" if p.enabled else "Enable"
                    out.append((f"{verb} plugin {safe(p.id)}",
                                partial(app.request_toggle, ToggleRequest("plugin", p.id, not p.enabled)),
                                f"decided by {p.decided_by}"))
        for label, model in listing.PRESETS:
            out.append((f"Budget: simulate {label}", partial(self._preset, model), f"model id {model}"))
        return out

    def _preset(self, model: str) -> None:
        app = self.app
        app.action_screen("budget")

        def apply() -> None:
            from textual.widgets import Input

            try:
                app.screen.query_one("#model", Input).value = model
                app.screen.query_one("#window", Input).value = ""
            except Exception:
                pass

        app.call_after_refresh(apply)

    async def discover(self) -> Hits:
        for text, callback, help_text in self._commands():
            if text.startswith(("Go to", "Reload", "Help", "Runtime", "Disable", "Enable")):
                yield DiscoveryHit(Content(text), callback, text=text, help=escape(help_text))

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for text, callback, help_text in self._commands():
            score = matcher.match(text)
            if score > 0:
                yield Hit(score, highlight(matcher, text), callback, text=text, help=escape(help_text))


def highlight(matcher, text: str) -> Content:
    """The matched letters highlighted, the text taken as plain text (Matcher.highlight would parse it as markup)."""
    content = Content(text)
    score, offsets = matcher.fuzzy_search.match(matcher.query, text)
    if score:
        for offset in offsets:
            if not text[offset].isspace():
                content = content.stylize(matcher.match_style or "bold", offset, offset + 1)
    return content
