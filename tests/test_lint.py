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

