"""What Gemini CLI 0.61.0 tells the model about skills (spec/gemini.md §8): one `<available_skills>` section, every
enabled skill in discovery order, values inserted raw, no budget."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from skilltui.model import Catalog, Skill
from skilltui.record import Record
from skilltui.runtimes.gemini.frontmatter import prompt_collapse

Wording = Literal["default", "gemini-2.5"]
SENTENCES: dict[str, str] = {
    # renderAgentSkills (the default `auto` model, routed to 3.x) and renderAgentSkills2 (gemini-2.5 models)
    "default": "You have access to the following specialized skills. To activate a skill and receive its detailed "
               "instructions, call the `activate_skill` tool with the skill's name.",
    "gemini-2.5": "You have access to the following specialized skills. To activate a skill and receive its detailed "
                  "instructions, you can call the `activate_skill` tool with the skill's name.",
}


def wording_for(model: str | None) -> Wording:
    return "gemini-2.5" if model and model.startswith("gemini-2") else "default"


def entry(skill: Skill) -> str:
    return (f"  <skill>\n    <name>{skill.name}</name>\n    <description>{skill.description or ''}</description>\n"
            f"    <location>{skill.path}</location>\n  </skill>")


def render(skills: list[Skill], wording: Wording = "default") -> str | None:
    """The section as the model receives it (after the whole prompt's 3+ newline collapse), or None when absent."""
    if not skills:
        return None
    body = "\n".join(entry(s) for s in skills)
    text = f"# Available Agent Skills\n\n{SENTENCES[wording]}\n\n<available_skills>\n{body}\n</available_skills>"
    return prompt_collapse(text)


@dataclass(repr=False)
class GeminiPrompt(Record):
    """The `<available_skills>` section: no budget, so its size is the whole story."""

    catalog: Catalog
    wording: Wording = "default"
    skills: list[Skill] = field(default_factory=list)
    section: str | None = None

    def __post_init__(self) -> None:
        self.skills = self.catalog.listed()
        self.section = render(self.skills, self.wording)

    @property
    def text(self) -> str:
        return self.section or ""

    @property
    def chars(self) -> int:
        return len(self.text)  # characters as Python counts them (code points)

    @property
    def utf16_units(self) -> int:
        return len(self.text.encode("utf-16-le")) // 2  # what JavaScript's .length reports

    def entries(self) -> dict[str, str]:
        """{name: the description exactly as the model receives it} (blank-line runs shortened)."""
        return {s.name: prompt_collapse(s.description or "") for s in self.skills}

    def to_json(self) -> dict[str, object]:
        return {"budget": None, "over_budget": False, "wording": self.wording, "text": self.section,
                "chars": self.chars, "utf16_units": self.utf16_units,
                "entries": [{"name": s.name, "source": s.source, "path": s.path, "state": "full"} for s in self.skills],
                "note": "Gemini CLI has no skill budget: every enabled skill is sent in full"}

    def summary(self) -> str:
        if self.section is None:
            return "No enabled skill: Gemini CLI sends no skills section."
        return f"{len(self.skills)} skills, {self.chars} characters, no budget (Gemini CLI sends every enabled skill)"
