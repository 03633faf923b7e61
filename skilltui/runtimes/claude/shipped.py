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


_B, _P, _C = "bundled", "builtin-plugin", "builtin"

SHIPPED: dict[str, tuple[ShippedEntry, ...]] = {
    # §9, in listing order (after plugin skills; scoped extras §6.3 go between plugin-authoring and init).
    "2.1.332": (
        ShippedEntry("dataviz", _B, 1447, 9, True, "bundled"),
        ShippedEntry("update-config", _B, 707, 15, True, "bundled"),
        ShippedEntry("keybindings-help", _B, 248, 18, True, "bundled"),
        ShippedEntry("code-review", _B, 850, 13, True, "bundled"),
        ShippedEntry("simplify", _B, 188, 10, True, "bundled"),
        ShippedEntry("fewer-permission-prompts", _B, 191, 26, True, "bundled"),
        ShippedEntry("loop", _B, 344, 6, True, "bundled"),
        ShippedEntry("claude-api", _B, 1169, 12, True, "bundled"),  # 3 lines; 2 newlines add 0; 1171 UTF-16 units
        ShippedEntry("workflow-authoring", _B, 252, 20, True, "bundled"),
        ShippedEntry("run", _B, 368, 5, True, "bundled"),
        ShippedEntry("plugin-authoring", _P, 275, 18, True, "bundled"),
        ShippedEntry("init", _C, 67, 6, False, "builtin"),
        ShippedEntry("security-review", _C, 90, 17, False, "builtin"),
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
