"""Entries shipped inside Claude Code, per version (spec/claude-code.md §9). Data only.

Their text is Claude Code's and is not carried; the listing arithmetic needs only each row's width. A later version is
a new table beside this one, never an edit of it.
"""

from __future__ import annotations

from typing import NamedTuple


class ShippedEntry(NamedTuple):
    name: str
    kind: str  # bundled | builtin-plugin | builtin
    full_width: int  # width (§8.3) of the full row `- <name>: <text>`
    name_only_width: int  # width of `- <name>`
    exempt: bool  # never shortened by the budget (§8.4 "fixed")
    source: str  # cli.md source: bundled | builtin
    # The description's length in UTF-16 units and where its zero-width units (newlines) are: every other unit is one
    # column (ASCII, `—`, `…`), so this gives its width under a skillListingMaxDescChars cap without its text.
    desc_units: int
    zero_width_at: tuple[int, ...] = ()

    def width_under_cap(self, cap: int) -> int:
        """The full row's width once the description is cut to `cap` units (§7.2: cap − 1 units and `…`; observed:
        Claude Code cuts its own entries' descriptions too, tests/fixtures/claude/settings-numbers)."""
        if self.desc_units <= cap:
            return self.full_width
        kept = cap - 1
        return self.name_only_width + len(": ") + kept - sum(1 for i in self.zero_width_at if i < kept) + 1


_B, _P, _C = "bundled", "builtin-plugin", "builtin"

SHIPPED: dict[str, tuple[ShippedEntry, ...]] = {
    # §9, in listing order (after plugin skills; scoped extras §6.3 go between plugin-authoring and init).
    "2.1.332": (
        ShippedEntry("dataviz", _B, 1447, 9, True, "bundled", 1436),
        ShippedEntry("update-config", _B, 707, 15, True, "bundled", 690),
        ShippedEntry("keybindings-help", _B, 248, 18, True, "bundled", 228),
        ShippedEntry("code-review", _B, 850, 13, True, "bundled", 835),
        ShippedEntry("simplify", _B, 188, 10, True, "bundled", 176),
        ShippedEntry("fewer-permission-prompts", _B, 191, 26, True, "bundled", 163),
        ShippedEntry("loop", _B, 344, 6, True, "bundled", 336),
        ShippedEntry("claude-api", _B, 1169, 12, True, "bundled", 1157, (150, 802)),  # 3 lines; 2 newlines add 0; 1171 UTF-16 units
        ShippedEntry("workflow-authoring", _B, 252, 20, True, "bundled", 230),
        ShippedEntry("run", _B, 368, 5, True, "bundled", 361),
        ShippedEntry("plugin-authoring", _P, 275, 18, True, "bundled", 255),
        ShippedEntry("init", _C, 67, 6, False, "builtin", 59),
        ShippedEntry("security-review", _C, 90, 17, False, "builtin", 71),
    ),
}


def shipped_entry(name: str, version: str) -> ShippedEntry | None:
    for entry in SHIPPED.get(version, ()):
        if entry.name == name:
            return entry
    return None


# Names Claude Code answers to without listing them (its own commands): a display name equal to one of these is not
# shown in a label (§4.3). Observed with the real tool (tests/fixtures/claude/display-lookup), over the command names
# found in the 2.1.332 binary; the listed shipped entries (SHIPPED) take their names as well.
UNLISTED_NAMES: dict[str, frozenset[str]] = {
    "2.1.332": frozenset(["add-dir", "agents", "auto-mode-setup", "autocompact", "batch", "branch", "btw", "bug", "cd", "clear", "color", "compact", "config", "context", "copy", "debug", "doctor", "effort", "exit", "export", "feedback", "focus", "fork", "goal", "heapdump", "help", "hooks", "ide", "insights", "keybindings", "login", "logout", "mcp", "memory", "mobile", "model", "output-style", "passes", "permissions", "plan", "plugin", "powerup", "pro-trial-expired", "radio", "recap", "release-notes", "reload-plugins", "reload-skills", "rename", "resume", "rewind", "sandbox", "scroll-speed", "setup-bedrock", "setup-vertex", "skills", "status", "statusline", "stickers", "subtask", "tasks", "team-onboarding", "terminal-setup", "theme", "tui", "usage", "verify", "workflow-launch-exec"]),
}
