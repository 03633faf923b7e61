"""One skill in detail (the Preview screen and `show`): frontmatter, body, referenced files; and every runtime's copy."""

from __future__ import annotations

import copy
import os
from typing import Any, TypedDict

from skilltui import refs
from skilltui.model import Catalog, Options, Skill

BODY_CAP = 1_000_000  # bytes read for a preview; the runtimes read no more

Json = None | bool | int | float | str | list["Json"] | dict[str, "Json"]


class RuntimeCopy(TypedDict):
    path: str
    source: str
    status: str
    reason: str | None
    shadowed_by: str | None


class RuntimePick(TypedDict):
    """`show --runtime all --json` (skilltui/schemas/show-all.json): one runtime's pick for a name."""

    runtime: str
    runtime_version: str
    picked: str | None
    copies: list[RuntimeCopy]


def _jsonable(value: object, depth: int = 0) -> Json:
    """Frontmatter values as JSON: dates and other YAML types become text; depth is bounded."""
    if depth > 20:
        return "…"
    if isinstance(value, dict):
        return {str(k): _jsonable(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [_jsonable(v, depth + 1) for v in value]
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if value == value and value not in (float("inf"), float("-inf")) else str(value)
    return str(value)


def skill_urls(catalog: Catalog) -> dict[str, str]:
    """{name: skill folder} of the skills a runtime has loaded (listed or hidden), for skill:// URLs."""
    out: dict[str, str] = {}
    for s in catalog.skills:
        if s.status in ("listed", "hidden") and s.skill_dir and s.name not in out:
            out[s.name] = s.skill_dir
    return out


def resolve_url(catalog: Catalog, url: str) -> str:
    from skilltui.runtimes import get

    return get(catalog.runtime).resolve_url(catalog, url)


def skill_details(catalog: Catalog, skill: Skill) -> dict[str, Any]:
    fm = skill.frontmatter
    body = fm.read_body() if fm else ""
    if fm is None and skill.path:
        from skilltui.frontmatter import parse_claude, read_text

        try:
            fm = parse_claude(read_text(skill.path, BODY_CAP).text)
            body = fm.body
        except OSError:
            fm = None
    skill_dir = skill.skill_dir or os.path.dirname(skill.path)

    def by_url(url: str) -> str:
        try:
            return resolve_url(catalog, url)
        except refs.SkillUrlError as exc:
            raise ValueError(str(exc)) from None

    found = refs.references(body, skill_dir, fm.body_line if fm else 1, by_url) if skill.path else []
    return {
        **skill.to_json(),
        "runtime": catalog.runtime,
        "frontmatter": {
            "status": fm.status if fm else "none",
            "error": fm.error if fm else None,
            "error_line": fm.error_line if fm else None,
            "fields": _jsonable(fm.data) if fm else {},
        },
        "body": body,
        "body_line": fm.body_line if fm else 1,
        "references": [r.to_json() for r in found],
        "files": refs.skill_files(skill_dir) if skill.kind == "skill" and os.path.isdir(skill_dir) else [],
    }


def every_runtime(opts: Options, name: str) -> list[RuntimePick]:
    """For one skill name: which copy each runtime picks, from where, and which copies it ignores and why."""
    from skilltui.runtimes import RUNTIMES, get

    rows: list[RuntimePick] = []
    for runtime in RUNTIMES:
        o = copy.copy(opts)
        o.runtime = runtime
        rt = get(runtime)
        catalog = rt.discover(o)
        copies = [s for s in catalog.skills if s.name == name or (rt.display_names_find and s.display_name == name)]
        rows.append({
            "runtime": catalog.runtime,
            "runtime_version": catalog.runtime_version,
            "picked": next((s.path for s in copies if s.status == "listed"), None),
            "copies": [{"path": s.path, "source": s.source, "status": s.status, "reason": s.reason,
                        "shadowed_by": s.shadowed_by} for s in copies],
        })
    return rows
