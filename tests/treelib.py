"""Small self-made trees for the rule and hostile-input tests: files, folders and symbolic links from a dict, and a
driver that runs `skilltui.cli.main` in-process against them with a minimal, controlled environment.

    w = World(tmp_path, monkeypatch, capsys)
    w.write({"home/.claude/skills/a/SKILL.md": "---\\ndescription: A\\n---\\n",
             "home/.claude/skills/b": Link("../../elsewhere/b")})
    assert w.names() == ["a", "b"]
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, NamedTuple

from skilltui import cli


class Link(NamedTuple):
    """A symbolic link whose text is `target` (relative to the link's folder, or absolute)."""

    target: str


class _Dir:
    def __repr__(self) -> str:
        return "DIR"


DIR = _Dir()  # an empty folder


def build(root: Path, files: dict[str, Any]) -> Path:
    """Create `files` under `root`: str → UTF-8 text written byte for byte (no newline translation), bytes → raw,
    dict/list → JSON (2-space indent), Link → symbolic link, DIR → folder. Folders are created as needed."""
    root = Path(root)
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, Link):
            path.symlink_to(content.target)
        elif content is DIR:
            path.mkdir(parents=True, exist_ok=True)
        elif isinstance(content, bytes):
            path.write_bytes(content)
        elif isinstance(content, (dict, list)):
            path.write_text(json.dumps(content, indent=2) + "\n", encoding="utf-8")
        else:
            path.write_bytes(str(content).encode("utf-8", "surrogateescape"))
    return root


def md(description: str | None = None, body: str = "Body.\n", **fields: str) -> str:
    """A SKILL.md text; `fields` are raw YAML values (`disable_model_invocation` → `disable-model-invocation`)."""
    lines = []
    if description is not None:
        lines.append(f"description: {description}")
    for key, value in fields.items():
        if key != "when_to_use":
            key = key.replace("_", "-")
        lines.append(f"{key}: {value}")
    if not lines:
        return body
    return "---\n" + "\n".join(lines) + "\n---\n" + body


def _no_constant(name: str):
    raise ValueError(f"{name} is not JSON")


def strict_json(text: str) -> Any:
    return json.loads(text, parse_constant=_no_constant)


TRACEBACK = re.compile(r"Traceback|internal error", re.I)


class World:
    """A temporary home, project and managed folder, and the CLI run against them.

    Layout under tmp_path: `home/` ($HOME), `home/proj/` (default cwd), `managed/` (the managed dir).
    os.environ is reduced to HOME and PATH (plus whatever `env` sets) for the whole test.
    """

    def __init__(self, tmp_path: Path, monkeypatch, capsys, env: dict[str, str] | None = None):
        self.root = Path(tmp_path)
        self.home = self.root / "home"
        self.cwd = self.home / "proj"
        self.managed = self.root / "managed"
        for p in (self.home, self.cwd, self.managed):
            p.mkdir(parents=True, exist_ok=True)
        self.monkeypatch = monkeypatch
        self.capsys = capsys
        path = os.environ.get("PATH", "/usr/bin:/bin")
        for key in list(os.environ):
            monkeypatch.delenv(key, raising=False)
        monkeypatch.setenv("HOME", str(self.home))
        monkeypatch.setenv("PATH", path)
        for key, value in (env or {}).items():
            monkeypatch.setenv(key, value)

    # ---- paths
    @property
    def user_skills(self) -> Path:
        return self.home / ".claude" / "skills"

    @property
    def proj_skills(self) -> Path:
        return self.cwd / ".claude" / "skills"

    def p(self, rel: str) -> Path:
        return self.root / rel

    def setenv(self, key: str, value: str) -> None:
        self.monkeypatch.setenv(key, value)

    def write(self, files: dict[str, Any]) -> World:
        build(self.root, files)
        return self

    # ---- the CLI
    def run(self, *args: str, cwd: Path | str | None = None, home: Path | str | None = None,
            add_dirs: tuple[str | Path, ...] = (), settings: str | None = None, check: bool = True) -> tuple[int, str, str]:
        argv = [str(a) for a in args]
        argv += ["--cwd", str(cwd or self.cwd), "--home", str(home or self.home), "--managed-dir", str(self.managed)]
        for d in add_dirs:
            argv += ["--add-dir", str(d)]
        if settings is not None:
            argv += ["--settings", settings]
        self.capsys.readouterr()
        code = cli.main(argv)
        out, err = self.capsys.readouterr()
        assert isinstance(code, int), (argv, code)
        assert not TRACEBACK.search(err), err
        if check:
            assert code == 0, err
        return code, out, err

    def json(self, *args: str, **kw) -> Any:
        """Run and parse stdout as strict JSON (NaN and Infinity, which Python would accept, are refused)."""
        code, out, err = self.run(*args, **kw)
        return strict_json(out)

    def catalog(self, **kw) -> dict:
        return self.json("list", "--all", "--json", **kw)

    def entries(self, **kw) -> list[dict]:
        return self.catalog(**kw)["skills"]

    def entry(self, name: str, *, path_part: str | None = None, **kw) -> dict:
        rows = [s for s in self.entries(**kw) if s["name"] == name and (path_part is None or path_part in (s["path"] or ""))]
        assert len(rows) == 1, (name, rows)
        return rows[0]

    def names(self, *, shipped: bool = False, **kw) -> list[str]:
        """Listed names in listing order (shipped entries left out unless asked for)."""
        rows = self.json("list", "--json", **kw)["skills"]
        rows = [r for r in rows if shipped or not r.get("shipped")]
        return [r["name"] for r in sorted(rows, key=lambda r: r["order"])]

    def labels(self, **kw) -> list[str]:
        rows = self.json("list", "--json", **kw)["skills"]
        return [r["label"] for r in sorted(rows, key=lambda r: r["order"]) if not r.get("shipped")]

    def rows(self, *extra: str, **kw) -> list[str]:
        """`budget --text` lines (a large budget unless `extra` says otherwise)."""
        args = list(extra) or ["--budget", "10000000"]
        code, out, err = self.run("budget", "--text", *args, **kw)
        return out.split("\n")[:-1] if out else []

    def diags(self, code: str | None = None, **kw) -> list[dict]:
        found = self.catalog(**kw)["diagnostics"]
        return [d for d in found if code is None or d["code"] == code]


def run_loading(tmp_path: Path, module: str, *args: str) -> tuple[bool, int, str]:
    """`skilltui --cwd H --home H ... ARGS` as a process over the tree built in tmp_path (H = tmp_path/home): whether
    it imported `module`, its exit status and its stdout."""
    import subprocess
    import sys

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    probe = ("import sys, json\nfrom skilltui import cli\ncode = cli.main(sys.argv[1:])\n"
             f"print(json.dumps([{module!r} in sys.modules, code]), file=sys.stderr)\n")
    home = str(tmp_path / "home")
    run = subprocess.run([sys.executable, "-c", probe, "--cwd", home, "--home", home, "--managed-dir",
                          str(tmp_path / "managed"), *args], capture_output=True, text=True,
                         timeout=120, cwd=root, env=dict(os.environ, PYTHONPATH=root, HOME=home))
    loaded, code = json.loads(run.stderr.strip().splitlines()[-1])
    return loaded, code, run.stdout
