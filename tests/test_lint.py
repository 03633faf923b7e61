"""The checks that keep the code in shape run with the suite: ruff, and the engine free of Textual and Rich."""

import ast
import subprocess
import sys
from pathlib import Path

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


# mypy: the engine modules below type-check clean (non-strict) and must stay so (issue 19).
MYPY_CLEAN = [
    "skilltui/model.py", "skilltui/units.py", "skilltui/cli.py",
    "skilltui/__init__.py", "skilltui/__main__.py", "skilltui/budget.py", "skilltui/checks/__init__.py",
    "skilltui/demo/__init__.py", "skilltui/preview.py", "skilltui/refs.py", "skilltui/runtimes/__init__.py",
    "skilltui/runtimes/claude/__init__.py", "skilltui/runtimes/claude/shipped.py", "skilltui/runtimes/claude/touch.py",
    "skilltui/runtimes/codex/__init__.py", "skilltui/runtimes/omp/__init__.py", "skilltui/runtimes/omp/settings.py",
    "skilltui/runtimes/omp/text.py", "skilltui/text.py", "skilltui/touch_view.py", "skilltui/touched.py",
    "skilltui/yaml_fast.py", "skilltui/runtimes/codex/prompt.py", "skilltui/runtimes/claude/listing.py",
    "skilltui/runtimes/claude/settings.py", "skilltui/frontmatter.py",
]

# mypy --strict covers the whole engine (every module outside skilltui/tui/) except the modules still pending below,
# grouped by who is typing them. Type a module, then delete its line: the list only shrinks, until it is empty.
MYPY_STRICT_PENDING: set[str] = set()  # every engine module is typed: keep it empty


def engine_modules() -> list[str]:
    return sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "skilltui").rglob("*.py")
                  if "tui" not in p.relative_to(ROOT / "skilltui").parts)


def _mypy(*args: str) -> subprocess.CompletedProcess[str]:
    # --follow-imports=silent: a module listed here answers for its own lines, not for the modules it imports
    return subprocess.run([sys.executable, "-m", "mypy", "--follow-imports=silent", *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_mypy_is_clean_on_the_typed_engine_modules():
    present = [p for p in MYPY_CLEAN if (ROOT / p).is_file()]
    run = _mypy(*present)
    assert run.returncode == 0, run.stdout + run.stderr


def test_mypy_strict_on_the_engine():
    run = _mypy("--strict", *[p for p in engine_modules() if p not in MYPY_STRICT_PENDING])
    assert run.returncode == 0, run.stdout + run.stderr


def test_pending_list_names_only_existing_modules():
    assert not MYPY_STRICT_PENDING - set(engine_modules())
