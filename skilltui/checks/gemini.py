"""Doctor findings Gemini CLI users meet (spec/gemini.md §10), read from a Gemini catalog: the runtime decided every
skill's fate; these checks only explain it, with a fix. They never re-scan and never copy a rule."""

from __future__ import annotations

import os

from skilltui.model import FILTERED, INVALID, SHADOWED, Catalog, Diagnostic, Severity, Skill
from skilltui.runtimes.gemini import discovery
from skilltui.runtimes.gemini.facts import skill_facts


def _alias(s: Skill) -> bool:
    facts = skill_facts(s)
    return facts is not None and facts.alias


def _d(severity: Severity, code: str, path: str | None, message: str, fix: str | None = None) -> Diagnostic:
    return Diagnostic(severity, code, path, message, fix=fix, runtime="gemini")


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def findings(catalog: Catalog) -> list[Diagnostic]:
    by_path = {s.path: s for s in catalog.skills}
    out: list[Diagnostic] = []
    for s in catalog.skills:
        if s.status == SHADOWED and s.shadowed_by:
            winner = by_path.get(s.shadowed_by)
            if _same_file(s.path, s.shadowed_by):
                out.append(_d("warning", "gemini-loaded-twice", s.path,
                              f"{s.name!r} is loaded twice through a link: {s.shadowed_by} is the same file, and Gemini "
                              f"CLI keeps the later path and prints a conflict line ({s.reason})",
                              fix="Remove the link, or the second root that reaches the same folder"))
            elif winner is not None and winner.source == s.source and _alias(winner) and not _alias(s):
                out.append(_d("warning", "gemini-alias-shadows", s.path,
                              f"{s.name!r} is shadowed by the .agents alias: {winner.path} is read after this "
                              f"{s.source} skill and replaces it",
                              fix="Keep one copy, in .gemini/skills or .agents/skills, or rename one of them"))
        elif s.status == FILTERED and s.source == "workspace":
            trust = discovery.facts_of(catalog).trust
            decided = trust.detail if trust is not None else "the workspace is not trusted"
            out.append(_d("info", "gemini-workspace-ignored", s.path,
                          f"{s.name!r} is not read: Gemini CLI reads workspace skills only in a trusted folder "
                          f"({decided})",
                          fix="Trust the folder in Gemini CLI (/permissions), or set GEMINI_CLI_TRUST_WORKSPACE=true"))
        elif s.status == INVALID and s.frontmatter is not None and s.frontmatter.error:
            code = s.frontmatter.error
            out.append(_d("error", "gemini-invalid-frontmatter", s.path,
                          f"Gemini CLI skips this file without a word: {discovery.PROBLEMS.get(code, code)} [{code}]",
                          fix="Start the file with `---`, give `name:` and `description:`, close with `---`"))
    return out
