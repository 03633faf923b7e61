"""What Gemini CLI's discovery keeps about one skill beyond its row (shared by discovery and the built-in skills)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from skilltui.model import Skill, SkillFacts
from skilltui.runtimes.gemini.frontmatter import Via

Tier = Literal["builtin", "extension", "user", "workspace"]


@dataclass(slots=True, repr=False)
class GeminiSkillFacts(SkillFacts):
    tier: Tier
    alias: bool = False  # found under the `.agents` spelling of its tier's root
    extension: str | None = None  # the extension that provides it
    via: Via | None = None  # how its frontmatter was read: as YAML, or line by line after YAML failed
    truncated: bool = False  # the file was longer than the read cap


def skill_facts(s: Skill) -> GeminiSkillFacts | None:
    """A Gemini CLI skill's facts; None for a skill of another runtime."""
    return s.facts if isinstance(s.facts, GeminiSkillFacts) else None
