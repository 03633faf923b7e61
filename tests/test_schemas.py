"""The JSON Schemas shipped in skilltui/schemas/ (documented in docs/json.md) hold for the real output of every
command with --json, on the demo and on trees that show the optional keys. A small validator for the subset of
JSON Schema the files use keeps the suite free of another dependency."""

from __future__ import annotations

import json
import os
from importlib import resources
from pathlib import Path

import pytest

from skilltui import cli
from skilltui.demo import demo_options

ROOT = Path(__file__).resolve().parent.parent
KEYWORDS = {"$schema", "$id", "title", "description", "type", "properties", "required", "additionalProperties",
            "items", "enum", "oneOf"}
TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}


def schema(name: str) -> dict:
    return json.loads(resources.files("skilltui.schemas").joinpath(f"{name}.json").read_text(encoding="utf-8"))


def _is(value: object, kind: str) -> bool:
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    return isinstance(value, TYPES[kind])


def errors(value: object, s: dict, where: str = "$") -> list[str]:
    unknown = set(s) - KEYWORDS
    assert not unknown, f"{where}: the validator does not know {unknown}"
    found: list[str] = []
    if "type" in s:
        kinds = s["type"] if isinstance(s["type"], list) else [s["type"]]
        if not any(_is(value, k) for k in kinds):
            return [f"{where}: {type(value).__name__} is not {kinds}"]
    if "enum" in s and value not in s["enum"]:
        found.append(f"{where}: {value!r} not in {s['enum']}")
    if "oneOf" in s and sum(not errors(value, sub, where) for sub in s["oneOf"]) != 1:
        found.append(f"{where}: not exactly one of {s['oneOf']}")
    if isinstance(value, dict):
        props = s.get("properties", {})
        found += [f"{where}: missing {k!r}" for k in s.get("required", []) if k not in value]
        for k, v in value.items():
            if k in props:
                found += errors(v, props[k], f"{where}.{k}")
            elif s.get("additionalProperties") is False:
                found.append(f"{where}: undocumented key {k!r}")
    if isinstance(value, list) and "items" in s:
        for i, v in enumerate(value):
            found += errors(v, s["items"], f"{where}[{i}]")
    return found


@pytest.fixture
def demo(tmp_path, monkeypatch):
    monkeypatch.setenv("SKILLTUI_DEMO_DIR", str(tmp_path / "demo"))
    return demo_options("claude", dict(os.environ), reset=True)


def output(capsys, *argv: str) -> object:
    capsys.readouterr()
    cli.main(["--demo", *argv, "--json"])
    return json.loads(capsys.readouterr().out)


CASES = [
    ("list", ["list"]), ("list", ["list", "--all"]), ("list", ["--runtime", "codex", "list", "--all"]),
    ("list", ["--runtime", "omp", "list", "--all"]),
    ("show", ["show", "pdf-tools"]), ("show", ["show", "dataviz"]), ("show", ["show", "api-conventions"]),
    ("show", ["show", "release  notes"]),
    ("show-all", ["--runtime", "all", "show", "commit-helper"]),
    ("plugins", ["plugins"]),
    ("budget", ["budget"]), ("budget", ["budget", "--budget", "3000"]), ("budget", ["budget", "--model", "claude-opus-4-7"]),
    ("prompt", ["--runtime", "codex", "budget"]), ("prompt", ["--runtime", "omp", "budget"]),
    ("prompt", ["--runtime", "gemini", "budget"]), ("prompt", ["--runtime", "codex", "budget", "--context-window", "5000"]),
    ("doctor", ["doctor"]), ("doctor", ["--runtime", "all", "doctor"]),
    ("touch", ["touch", "project/services/web/src/api/users.py"]),
    ("toggle", ["plugin", "disable", "formatter@demo-market"]), ("toggle", ["plugin", "enable", "linter"]),
    ("toggle", ["skill", "set", "commit-helper", "name-only"]), ("toggle", ["skill", "set", "nope", "off"]),
]


@pytest.mark.parametrize("name,argv", CASES, ids=[" ".join(a) for _, a in CASES])
def test_real_output_matches_its_schema(demo, capsys, name, argv):
    data = output(capsys, *argv)
    assert errors(data, schema(name)) == []


def test_override_keys_are_documented(demo, capsys):
    """After `skill set`, list carries `override`; the schema documents it (no undocumented key slips through)."""
    output(capsys, "skill", "set", "commit-helper", "name-only")
    data = output(capsys, "list", "--all")
    assert any("override" in s for s in data["skills"])
    assert errors(data, schema("list")) == []


def test_the_validator_catches_an_undocumented_key(demo, capsys):
    data = output(capsys, "list")
    data["skills"][0]["file_id"] = [1, 2]
    assert any("file_id" in e for e in errors(data, schema("list")))


@pytest.mark.parametrize("name,argv,where", [
    ("plugins", ["plugins"], lambda d: d[0]), ("plugins", ["plugins"], lambda d: d[0]["records"][0]),
    ("toggle", ["skill", "set", "commit-helper", "name-only"], lambda d: d),
    ("toggle", ["skill", "set", "commit-helper", "name-only"], lambda d: d["gitignore"]),
    ("prompt", ["--runtime", "codex", "budget"], lambda d: d), ("prompt", ["--runtime", "codex", "budget"], lambda d: d["model"]),
    ("prompt", ["--runtime", "gemini", "budget"], lambda d: d["entries"][0]),
], ids=["plugin row", "install record", "toggle", "toggle gitignore", "codex prompt", "codex model", "gemini entry"])
def test_the_loosened_schemas_are_tight_again(demo, capsys, name, argv, where):
    """plugins, toggle and prompt once took any extra key: each object now refuses one it does not document."""
    data = output(capsys, *argv)
    assert errors(data, schema(name)) == []
    where(data)["internal_extra"] = 1
    assert any("internal_extra" in e for e in errors(data, schema(name)))


def test_plugin_rows_document_why_and_records(demo, capsys):
    output(capsys, "plugin", "disable", "formatter@demo-market")
    rows = {r["id"]: r for r in output(capsys, "plugins")}
    assert errors(list(rows.values()), schema("plugins")) == []
    assert (rows["formatter@demo-market"]["loads"], rows["formatter@demo-market"]["blocked"]) == (False, "not-enabled")
    assert (rows["linter@demo-market"]["loads"], rows["linter@demo-market"]["blocked"]) == (True, None)
    assert [r["scope"] for r in rows["linter@demo-market"]["records"]] == ["user"]  # its installed_plugins.json entry


def test_toggle_through_a_link_names_the_real_file(demo, capsys):
    project = Path(os.environ["SKILLTUI_DEMO_DIR"]) / "project" / ".claude"
    real = project / "settings.real.json"
    real.write_text("{}\n")
    local = project / "settings.local.json"
    local.unlink(missing_ok=True)
    local.symlink_to(real.name)
    data = output(capsys, "skill", "set", "commit-helper", "name-only")
    assert data["realFile"] == str(real) and data["file"] == str(local)
    assert errors(data, schema("toggle")) == []


def test_every_schema_is_documented_and_shipped():
    doc = (ROOT / "docs" / "json.md").read_text(encoding="utf-8")
    names = sorted(p.name for p in resources.files("skilltui.schemas").iterdir() if p.name.endswith(".json"))
    assert names
    for n in names:
        assert f"skilltui/schemas/{n}" in doc, n
        assert schema(n[:-5])["$schema"].startswith("https://json-schema.org/")
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert '"schemas/*.json"' in pyproject
