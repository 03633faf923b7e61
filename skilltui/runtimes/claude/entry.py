"""One entry's text in Claude Code's skill listing (spec/claude-code.md §7.2). Discovery's "the listing cuts this
description" check and the listing's rows (listing.py, which re-exports these) both call it; its own small module,
so that a `list` run does not import the budget simulation."""

from __future__ import annotations

from skilltui.model import Skill
from skilltui.text import cap_utf16, sanitize, utf16_len

DEFAULT_CAP = 1536  # settings.skillListingMaxDescChars default (§7.2)


def entry_text(skill: Skill, cap: int = DEFAULT_CAP) -> tuple[str, bool]:
    """(the entry's listing text, whether the cap cut it). Description and when_to_use are sanitised separately;
    a scoped extra's suffix (§6.3, generated text) follows the description, before ` - when_to_use`."""
    text = sanitize(skill.description or "")
    if skill.scoped_suffix is not None:
        text += skill.scoped_suffix
    if skill.when_to_use:  # JavaScript truthiness: an empty when_to_use adds nothing
        text += " - " + sanitize(skill.when_to_use)
    capped = utf16_len(text) > cap
    return (cap_utf16(text, cap) if capped else text), capped
