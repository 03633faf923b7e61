"""A fifth runtime, written here in a few lines, works in every view without touching anything outside its own
package and the registry: the proof that views reach runtimes only through skilltui/runtimes (issue #19)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from skilltui import runtimes
from skilltui.cli import main

TOY = '''
from dataclasses import dataclass
import os
from skilltui.model import Catalog, Skill

@dataclass
class Prompt:
    text: str
    def to_json(self):
        return {"text": self.text, "budget": None, "chars": len(self.text)}

class Toy:
    key, label, version, presets = "toy", "Toy Agent", "0.1.0", ()
    has_budget = False

    def discover(self, opts):
        root = os.path.join(opts.home, ".toy", "skills")
        skills = []
        for i, name in enumerate(sorted(os.listdir(root)) if os.path.isdir(root) else []):
            path = os.path.join(root, name, "SKILL.md")
            skills.append(Skill(name=name, source="user", path=path, root=root, label=name, order=i,
                                description=open(path, encoding="utf-8").read().strip(), skill_dir=os.path.dirname(path)))
        return Catalog("toy", self.version, opts.cwd, opts.home, skills=skills)

    def prompt(self, catalog, context_window=None):
        return Prompt("\\n".join(f"- {s.name}: {s.description}" for s in catalog.listed()))

    def resolve_url(self, catalog, url):
        raise ValueError("no skill:// URLs in Toy")

RUNTIME = Toy()
'''


@pytest.fixture
def toy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    package = tmp_path / "pkgs" / "toyrt"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(TOY)
    monkeypatch.syspath_prepend(str(tmp_path / "pkgs"))
    monkeypatch.setitem(runtimes.REGISTRY, "toy", "toyrt")
    home, cwd = tmp_path / "home", tmp_path / "work"
    (home / ".toy" / "skills" / "greet").mkdir(parents=True)
    (home / ".toy" / "skills" / "greet" / "SKILL.md").write_text("Say hello.\n")
    cwd.mkdir()
    yield home, cwd
    sys.modules.pop("toyrt", None)


def test_every_command_works_with_a_new_runtime(toy, capsys: pytest.CaptureFixture[str]) -> None:
    home, cwd = toy
    base = ["--cwd", str(cwd), "--home", str(home), "--runtime", "toy", "--no-cache"]
    assert main([*base, "list", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert listed["runtime"] == "toy" and [s["name"] for s in listed["skills"]] == ["greet"]
    assert main([*base, "budget", "--text"]) == 0
    assert capsys.readouterr().out == "- greet: Say hello.\n"
    assert main([*base, "show", "greet", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["name"] == "greet"
    assert main([*base, "doctor", "--json"]) == 0
    assert "diagnostics" in json.loads(capsys.readouterr().out)


def test_the_tui_lists_a_new_runtime(toy) -> None:
    from skilltui.model import Options
    from skilltui.tui import data

    home, cwd = toy
    assert ("toy", "Toy Agent 0.1.0") in data.available_runtimes()
    loaded = data.load(Options(cwd=str(cwd), home=str(home), runtime="toy", env={}))
    assert [s.name for s in loaded.catalog.listed()] == ["greet"]
