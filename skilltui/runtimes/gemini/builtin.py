"""The two skills Gemini CLI 0.61.0 ships in `<package>/bundle/builtin` (spec/gemini.md §1): names and descriptions as
the tool reads them. Their files live inside the installed package, so their paths use `$GEMINI_PACKAGE` unless
`GEMINI_PACKAGE` names the package folder."""

from __future__ import annotations

import os

from skilltui.model import Skill
from skilltui.runtimes.gemini.facts import GeminiSkillFacts

# In the order Gemini CLI's scan reads them (descending folder name).
BUILTINS: tuple[tuple[str, str], ...] = (
    ("skill-creator",
     "Guide for creating effective skills. This skill should be used when users want to create a new skill (or update "
     "an existing skill) that extends Gemini CLI's capabilities with specialized knowledge, workflows, or tool "
     "integrations."),
    ("antigravity-support",
     "Use when the user asks questions, seeks help, or requests instructions related to installing, setting up, or "
     "migrating to Antigravity CLI. This skill provides the latest up to date details, requirements, and commands "
     "sourced from the official Antigravity CLI documentation."),
)
PLACEHOLDER = "$GEMINI_PACKAGE"


def package_dir(env: dict[str, str]) -> str:
    return env.get("GEMINI_PACKAGE") or PLACEHOLDER


def skills(env: dict[str, str]) -> list[Skill]:
    root = os.path.join(package_dir(env), "bundle", "builtin")
    out = []
    for name, description in BUILTINS:
        path = os.path.join(root, name, "SKILL.md")
        out.append(Skill(name=name, label=name, source="builtin", path=path, root=root, description=description,
                         skill_dir=None, shipped=True, facts=GeminiSkillFacts("builtin")))
    return out
