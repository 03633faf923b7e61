"""A fifth runtime, written here in a few lines, works in every view without touching anything outside its own
package and the registry: the proof that views reach runtimes only through skilltui/runtimes (issue #19). The toy
answers every member of the Runtime interface, and each test below sees a view use one of them."""

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
from skilltui.budget import ModelChoice
from skilltui.model import Catalog, Skill
from skilltui.runtimes import ModelPreset, ModelTexts

@dataclass
class Prompt:
    text: str
    def to_json(self):
        return {"text": self.text, "budget": None, "chars": len(self.text)}

class Toy:
    key, label, version = "toy", "Toy Agent", "0.1.0"
    presets = (ModelPreset("Toy Large", "toy-large", 64_000),)
    has_budget = False
    listing_budget = False  # it renders its own prompt
    toggles_plugins = False  # the Plugins view stays Claude Code's
    lists_on_touch = False
    display_names_find = True

    def discover(self, opts):
        root = os.path.join(opts.home, ".toy", "skills")
        skills = []
        for i, name in enumerate(sorted(os.listdir(root)) if os.path.isdir(root) else []):
            path = os.path.join(root, name, "SKILL.md")
            skills.append(Skill(name=name, source="user", path=path, root=root, label=name, order=i,
                                description=open(path, encoding="utf-8").read().strip(), skill_dir=os.path.dirname(path),
                                display_name=name.title() + "er"))
        return Catalog("toy", self.version, opts.cwd, opts.home, skills=skills)

    def prompt(self, catalog, context_window=None):
        return Prompt("\\n".join(f"- {s.name}: {s.description}" for s in catalog.listed()))

    def resolve_url(self, catalog, url):
        raise ValueError("no skill:// URLs in Toy")

    def listing_model(self, catalog, opts):
        return ModelChoice("toy-large", "default", "toy-large — Toy Agent's default")

    def model_texts(self, catalog):
        return ModelTexts(by_name={s.name: "as sent: " + s.description for s in catalog.listed()})

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
    assert (listed["model"], listed["model_source"]) == ("toy-large", "default")  # Runtime.listing_model
    assert main([*base, "budget", "--text"]) == 0
    assert capsys.readouterr().out == "- greet: Say hello.\n"
    assert main([*base, "show", "greet", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["name"] == "greet"
    assert main([*base, "doctor", "--json"]) == 0
    assert "diagnostics" in json.loads(capsys.readouterr().out)


def test_the_cli_asks_the_runtime_what_it_can_do(toy, capsys: pytest.CaptureFixture[str]) -> None:
    home, cwd = toy
    base = ["--cwd", str(cwd), "--home", str(home), "--no-cache"]
    assert main([*base, "--runtime", "toy", "touch", "x.py"]) == 1  # lists_on_touch: False
    assert "Toy Agent lists every skill up front" in capsys.readouterr().err
    assert main([*base, "--runtime", "all", "show", "Greeter", "--json"]) == 0  # display_names_find: True
    rows = {r["runtime"]: r for r in json.loads(capsys.readouterr().out)}
    assert [c["path"] for c in rows["toy"]["copies"]] == [str(home / ".toy/skills/greet/SKILL.md")]
    assert rows["toy"]["picked"] == str(home / ".toy/skills/greet/SKILL.md")


def test_the_tui_lists_a_new_runtime(toy) -> None:
    from skilltui.model import Options
    from skilltui.runtimes import plugin_host
    from skilltui.tui import data

    home, cwd = toy
    assert ("toy", "Toy Agent 0.1.0") in data.available_runtimes()
    loaded = data.load(Options(cwd=str(cwd), home=str(home), runtime="toy", env={}))
    assert [s.name for s in loaded.catalog.listed()] == ["greet"]
    assert loaded.text_for(loaded.catalog.listed()[0]) == "as sent: Say hello."  # Runtime.model_texts
    # toggles_plugins: the Plugins view reads the catalog of the runtime that toggles them, beside the toy's
    assert plugin_host().key != "toy" and loaded.claude is not None and loaded.claude.runtime == plugin_host().key
