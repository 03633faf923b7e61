"""The checks that keep the code in shape run with the suite: ruff, and the engine free of Textual and Rich."""

import ast
import subprocess
import sys
from pathlib import Path

import background
import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_ruff_is_clean():
    run = subprocess.run([sys.executable, "-m", "ruff", "check", "skilltui", "tests", "bench", "scripts"],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr


def test_engine_never_imports_textual_or_rich():
    for path in (ROOT / "skilltui").rglob("*.py"):
        if "tui" in path.relative_to(ROOT / "skilltui").parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            for name in names:
                assert name.split(".")[0] not in ("textual", "rich"), f"{path}: imports {name}"


def test_every_dataclass_shares_records_repr():
    """Each dataclass of skilltui says repr=False and inherits record.Record's __repr__ (a compiled __repr__ per class
    cost 5% of a start's imports), which prints what dataclass's own would, a value holding itself included."""
    import dataclasses
    import importlib

    from skilltui.record import Record

    found = 0
    for path in sorted((ROOT / "skilltui").rglob("*.py")):
        if path.name == "__main__.py":
            continue
        module = importlib.import_module(".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__"))
        for value in vars(module).values():
            if isinstance(value, type) and dataclasses.is_dataclass(value) and value.__module__ == module.__name__:
                found += 1
                assert not value.__dataclass_params__.repr and issubclass(value, Record), value
    assert found > 90

    @dataclasses.dataclass
    class Plain:
        name: str
        items: list[object]
        hidden: int = dataclasses.field(default=0, repr=False)

    @dataclasses.dataclass(repr=False)
    class Plain2(Record):  # the same fields, the shared repr
        name: str
        items: list[object]
        hidden: int = dataclasses.field(default=0, repr=False)

    one, two = Plain("a'b", [1, None]), Plain2("a'b", [1, None])
    one.items.append(one)
    two.items.append(two)
    assert repr(two) == repr(one).replace("Plain(", "Plain2(") and "..." in repr(two) and "hidden" not in repr(two)


# mypy --strict covers the whole engine: every module outside skilltui/tui/ (issue 19).
def engine_modules() -> list[str]:
    return sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "skilltui").rglob("*.py")
                  if "tui" not in p.relative_to(ROOT / "skilltui").parts)


def _mypy(*args: str) -> list[str]:
    # --follow-imports=silent: a module listed here answers for its own lines, not for the modules it imports
    return [sys.executable, "-m", "mypy", "--follow-imports=silent", *args]


MYPY_STRICT = _mypy("--strict", *engine_modules())


@pytest.mark.background(MYPY_STRICT, ROOT)  # started when collection ends: it runs beside the other tests
def test_mypy_strict_on_the_engine():
    run = background.run(MYPY_STRICT, ROOT, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr



def runtime_name_comparisons(source: str, keys: set[str]) -> list[str]:
    """Comparisons of a value to a runtime key written as a literal (`x == "claude"`, `x in ("codex", "omp")`, `case
    "gemini":`): a view that branches on a runtime's name instead of asking the runtime interface."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            for side in (node.left, *node.comparators):
                items = side.elts if isinstance(side, (ast.Tuple, ast.List, ast.Set)) else [side]
                if any(isinstance(c, ast.Constant) and c.value in keys for c in items):
                    found.append(f"line {node.lineno}: {ast.unparse(node)}")
                    break
        elif isinstance(node, ast.match_case):
            for pat in ast.walk(node.pattern):
                if isinstance(pat, ast.MatchValue) and isinstance(pat.value, ast.Constant) and pat.value.value in keys:
                    found.append(f"line {pat.lineno}: case {ast.unparse(pat)}")
    return found


def test_the_lint_finds_a_runtime_name_comparison():
    keys = {"claude", "codex"}
    code = ('if rt == "claude":\n    pass\nok = "x" != rt\nb = rt not in ("codex", "y")\n'
            'match rt:\n    case "codex":\n        pass\n')
    assert runtime_name_comparisons(code, keys) == ["line 1: rt == 'claude'", "line 4: rt not in ('codex', 'y')",
                                                    "line 6: case 'codex'"]


def test_views_never_compare_a_runtime_key_to_a_literal():
    """Views dispatch through skilltui/runtimes (the Runtime interface), never on a runtime's name (issue 19): adding
    a runtime touches runtimes/ and nothing else."""
    from skilltui.runtimes import REGISTRY

    keys = set(REGISTRY)
    found = []
    for path in sorted((ROOT / "skilltui").rglob("*.py")):
        if "runtimes" in path.relative_to(ROOT / "skilltui").parts:
            continue
        found += [f"{path.relative_to(ROOT)} {hit}"
                  for hit in runtime_name_comparisons(path.read_text(encoding="utf-8"), keys)]
    assert not found, "\n".join(found)


def test_skill_and_catalog_hold_typed_values():
    """No catch-all field a reader has to narrow (`dict[str, Any]`, `dict[str, object]`, `Any`) on the model's Skill
    and Catalog (issue 19): a runtime's own facts are its typed SkillFacts / CatalogFacts subclass."""
    import dataclasses
    import typing

    from skilltui import model

    untyped = []
    for cls in (model.Skill, model.Catalog, model.CatalogFacts):
        hints = typing.get_type_hints(cls)
        for f in dataclasses.fields(cls):
            hint = hints[f.name]
            args = typing.get_args(hint)
            if hint is typing.Any or typing.Any in args or (typing.get_origin(hint) is dict and args[1] in (typing.Any, object)):
                untyped.append(f"{cls.__name__}.{f.name}: {hint}")
    assert not untyped, untyped


def test_ci_runs_the_readmes_test_command():
    """CI (`.ci/run`) runs exactly the README's test command: the pytest line of the README's Tests block."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("## Tests", 1)[1].split("```sh", 1)[1].split("```", 1)[0].strip()
    readme_pytest = block.rsplit("&& ", 1)[1]
    ci_lines = [ln.strip() for ln in (ROOT / ".ci/run").read_text(encoding="utf-8").splitlines()]
    assert readme_pytest.startswith(".venv/bin/python -m pytest"), block
    assert ci_lines[-1] == readme_pytest, (ci_lines[-1], readme_pytest)
    assert any(".venv/bin/python -m pip install" in ln and "-e '.[test]'" in ln for ln in ci_lines)
