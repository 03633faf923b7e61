"""Invisible characters the model receives (issue #17.9): Unicode tags, zero-width characters, U+FFF9–FFFB, soft
hyphens in a skill's description that reach the model but that no terminal shows. Hidden instructions in skills are a
known attack; the finding shows them (⟨U+E0041⟩) and spells out tag text, which maps one to one onto ASCII.

It asks the runtime for the exact text the model gets (Runtime.prompt) and reports only what is in it: a character the
runtime strips itself is not a finding (Claude Code 2.1.332 turns them into spaces in its listing, oracle 2026-12-03;
Codex and oh-my-pi keep them). The body of a listed skill is checked too: the model reads it when it uses the skill
(no runtime was seen to clean a body).
"""

from __future__ import annotations

from skilltui.model import LISTED, Catalog, Diagnostic, Skill
from skilltui.text import invisible_chars, show_invisible

SNIPPET = 160  # characters of the description shown around the first hidden one


def _tag_text(s: str) -> str:
    """ASCII spelled by the Unicode tag characters (U+E0020–E007E) in `s`, in order."""
    return "".join(chr(ord(c) - 0xE0000) for c in s if 0xE0020 <= ord(c) <= 0xE007E)


def findings(catalog: Catalog, bodies: bool = True) -> list[Diagnostic]:
    """Every finding of the catalog; `bodies=False` leaves out the bodies (the doctor checks each with
    `body_findings` while it has the file read for its other lenses)."""
    from skilltui.runtimes import get

    try:
        runtime = get(catalog.runtime)
    except KeyError:  # a runtime not in the registry has no prompt to check
        return []
    listed = [s for s in catalog.skills if s.status == LISTED]
    texts = ["\n".join(t for t in (s.description, s.when_to_use) if t) for s in listed]
    received: set[str] = set()
    if any(invisible_chars(text) for text in texts):  # else no description can have a finding: no prompt to build
        try:
            prompt = runtime.prompt(catalog).text
        except KeyError:  # a runtime not in the registry has no prompt to check
            return []
        received = set(invisible_chars(prompt))
    out = []
    for s, text in zip(listed, texts, strict=True):
        hidden = [c for c in invisible_chars(text) if c in received] if received else []
        if hidden:
            out.append(_finding(catalog, s.path, f"{s.name}: in the description (the skill listing)", text, hidden))
        if bodies:
            out += body_findings(catalog, s, s.frontmatter.body if s.frontmatter is not None else "")
    return out


def body_findings(catalog: Catalog, skill: Skill, body: str) -> list[Diagnostic]:
    """The body of a listed skill (the model reads it when it uses the skill)."""
    if skill.status != LISTED:
        return []
    hidden = invisible_chars(body)
    if not hidden:
        return []
    return [_finding(catalog, skill.path, f"{skill.name}: in the body (read when the skill is used)", body, hidden)]


def _finding(catalog: Catalog, path: str, where: str, text: str, hidden: list[str]) -> Diagnostic:
    first = next(i for i, c in enumerate(text) if c in hidden)
    snippet = text[max(0, first - 40) : first + SNIPPET]
    n = len(hidden)
    message = (f"{where}, {n} invisible character{'s' if n != 1 else ''} the model receives but a terminal does not "
               f"show: …{show_invisible(snippet)}…")
    tags = _tag_text(text)
    if tags:
        message += f" (tag characters spell {tags!r})"
    return Diagnostic("warning", "invisible-characters", path, message,
                      fix="Remove the invisible characters, or read them: hidden instructions are a known attack",
                      runtime=catalog.runtime)
