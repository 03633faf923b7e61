"""The persistent answer cache never shows a stale answer: random file changes, cached and uncached compared."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skilltui import cache
from skilltui.model import Options
from skilltui.runtimes import discover


def _tree(root: Path) -> tuple[Path, Path]:
    """A small home and project under root/tree (the cache goes to root/cache, beside it)."""
    home, project = root / "tree" / "home", root / "tree" / "project"
    for base, names in ((home / ".claude" / "skills", ("alpha", "beta")), (project / ".claude" / "skills", ("gamma",))):
        for name in names:
            (base / name).mkdir(parents=True)
            (base / name / "SKILL.md").write_text(f"---\ndescription: {name} one\n---\nbody\n")
    (project / ".git").mkdir()
    (project / ".claude" / "settings.json").write_text('{"skillOverrides": {}}\n')
    return home, project


def _compute_for(home: Path, project: Path):
    def compute(env) -> str:
        opts = Options(cwd=str(project), home=str(home), managed_dir=str(home.parent / "managed"), env=env)
        catalog = discover(opts)
        return json.dumps({"catalog": catalog.to_json(include_all=True), "plugins": [p.to_json() for p in catalog.plugins]},
                          sort_keys=True)

    return compute


OPS = ("add", "edit-same-size", "edit", "rename", "delete", "link", "settings", "create-missing", "env", "manifest",
       "nothing")


def _apply(op: str, n: int, home: Path, project: Path, env: dict[str, str]) -> None:
    user = home / ".claude" / "skills"
    folders = sorted(p for p in user.iterdir() if p.is_dir() and not p.is_symlink())
    target = folders[n % len(folders)] if folders else None
    if op == "add":
        (user / f"new{n}").mkdir(exist_ok=True)
        (user / f"new{n}" / "SKILL.md").write_text(f"---\ndescription: added {n}\n---\n")
    elif op == "edit-same-size" and target and (target / "SKILL.md").exists():
        text = (target / "SKILL.md").read_text()
        (target / "SKILL.md").write_text(text.replace("one", "two") if "one" in text else text.replace("two", "one"))
    elif op == "edit" and target and (target / "SKILL.md").exists():
        (target / "SKILL.md").write_text(f"---\ndescription: edited {n}\nname: renamed-{n}\n---\n")
    elif op == "rename" and target and not (user / f"moved{n}").exists():
        target.rename(user / f"moved{n}")
    elif op == "delete" and target and (target / "SKILL.md").exists():
        (target / "SKILL.md").unlink()
    elif op == "link" and target:
        link = user / f"link{n}"
        if not link.exists() and not link.is_symlink():
            link.symlink_to(project / ".claude" / "skills" / "gamma")
    elif op == "settings":
        (project / ".claude" / "settings.json").write_text(json.dumps({"skillOverrides": {"gamma": ["off", "on"][n % 2]}}))
    elif op == "create-missing" and target and not (target / "SKILL.md").exists():
        (target / "SKILL.md").write_text("---\ndescription: back\n---\n")
    elif op == "manifest" and target:  # the folder becomes a skills-dir plugin (found by os.access), or stops being one
        manifest = target / ".claude-plugin" / "plugin.json"
        if manifest.exists():
            manifest.unlink()
        else:
            manifest.parent.mkdir(exist_ok=True)
            manifest.write_text(json.dumps({"name": target.name}))
    elif op == "env":
        env["SLASH_COMMAND_TOOL_CHAR_BUDGET"] = str(100 + n)
        env["CLAUDE_CODE_DISABLE_POLICY_SKILLS"] = "1" if n % 2 else ""


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from(OPS), st.integers(0, 5)), min_size=1, max_size=8))
def test_cached_and_uncached_answers_are_always_the_same(tmp_path_factory, steps) -> None:
    root = tmp_path_factory.mktemp("cache")
    home, project = _tree(root)
    env = {"HOME": str(home), "XDG_CACHE_HOME": str(root / "cache")}
    compute = _compute_for(home, project)
    calls: list[int] = []

    def counted(e) -> str:
        calls.append(1)
        return compute(e)

    assert cache.cached_answer("t", env, counted) == compute(env)
    for op, n in steps:
        _apply(op, n, home, project, env)
        assert cache.cached_answer("t", env, counted) == compute(env), (op, n)
        before = len(calls)
        assert cache.cached_answer("t", env, counted) == compute(env), (op, n)  # the stored answer, used at once
        assert len(calls) == before, "an unchanged tree must be answered from the cache"


def test_an_unchanged_tree_is_answered_from_the_cache(tmp_path: Path) -> None:
    home, project = _tree(tmp_path)
    env = {"HOME": str(home), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    calls = []
    compute = _compute_for(home, project)

    def counted(e) -> str:
        calls.append(1)
        return compute(e)

    first = cache.cached_answer("k", env, counted)
    assert cache.cached_answer("k", env, counted) == first
    assert len(calls) == 1
    folder = tmp_path / "cache" / "skilltui"
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in folder.iterdir())
    # a new SKILL.md in a folder discovery found empty must appear
    (home / ".claude" / "skills" / "late").mkdir()
    cache.cached_answer("k", env, counted)
    (home / ".claude" / "skills" / "late" / "SKILL.md").write_text("---\ndescription: late\n---\n")
    assert "late" in cache.cached_answer("k", env, counted)


def test_off_switch_and_an_unusable_cache(tmp_path: Path) -> None:
    home, project = _tree(tmp_path)
    compute = _compute_for(home, project)
    env = {"HOME": str(home), "XDG_CACHE_HOME": str(tmp_path / "cache"), "SKILLTUI_NO_CACHE": "1"}
    assert cache.cached_answer("k", env, compute) == compute(env)
    assert not (tmp_path / "cache").exists()
    (tmp_path / "blocked").write_text("a file where the cache folder should be")
    env = {"HOME": str(home), "XDG_CACHE_HOME": str(tmp_path / "blocked")}
    assert cache.cached_answer("k", env, compute) == compute(env)  # ignored without an error
    loose = tmp_path / "loose"
    (loose / "skilltui").mkdir(parents=True)
    os.chmod(loose / "skilltui", 0o777)  # others could plant answers: not used
    env = {"HOME": str(home), "XDG_CACHE_HOME": str(loose)}
    cache.cached_answer("k", env, compute)
    assert list((loose / "skilltui").iterdir()) == []


def test_recording_restores_os(tmp_path: Path) -> None:
    before = (os.stat, os.lstat, os.scandir, os.open, open)
    with cache.recording({"A": "1"}) as rec:
        os.path.exists(tmp_path / "missing")
        assert rec.env is not None and rec.env.get("A") == "1" and "B" not in rec.env
    assert (os.stat, os.lstat, os.scandir, os.open, open) == before
    assert rec.paths[(str(tmp_path / "missing"), "stat")] is None
    assert rec.env.seen == {"A": "1", "B": None}


def test_a_manifest_that_appears_is_seen(tmp_path: Path) -> None:
    """A path found missing through os.access (the skills-dir plugin check) is noted missing, so a manifest that
    appears later changes the answer."""
    home, project = _tree(tmp_path)
    env = {"HOME": str(home), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    compute = _compute_for(home, project)
    first = cache.cached_answer("k", env, compute)
    manifest = home / ".claude" / "skills" / "alpha" / ".claude-plugin" / "plugin.json"
    with cache.recording(env) as rec:
        compute(env)
    assert rec.paths[(str(manifest), "stat")] is None
    manifest.parent.mkdir()
    manifest.write_text('{"name": "alpha"}')
    again = cache.cached_answer("k", env, compute)
    assert again == compute(env) and again != first and "alpha@skills-dir" in again


def test_a_damaged_or_older_entry_is_recomputed(tmp_path: Path) -> None:
    home, project = _tree(tmp_path)
    env = {"HOME": str(home), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    compute = _compute_for(home, project)
    want = cache.cached_answer("k", env, compute)
    (entry,) = (tmp_path / "cache" / "skilltui").iterdir()
    head, answer = entry.read_bytes().split(b"\n", 1)
    fields = json.loads(head)
    assert fields["format"] == cache.FORMAT and len(fields["kinds"]) == len(fields["paths"])
    assert len(fields["sigs"]) == 6 * sum(k.islower() for k in fields["kinds"])
    damaged = [dict(fields, format=1), dict(fields, kinds=fields["kinds"][:-1]), dict(fields, sigs=fields["sigs"][:-1]),
               dict(fields, kinds=fields["kinds"].swapcase()), dict(fields, digests=[])]
    for bad in damaged:
        entry.write_bytes(json.dumps(bad).encode() + b"\n" + b"stale answer")
        assert cache.cached_answer("k", env, compute) == want, bad


def test_list_json_through_the_command_line(tmp_path: Path, capsys, monkeypatch) -> None:
    from skilltui.cli import main

    home, project = _tree(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    args = ["--cwd", str(project), "--home", str(home), "--managed-dir", str(tmp_path / "managed"), "list", "--json"]
    assert main(args) == 0
    first = capsys.readouterr().out
    assert len(list((tmp_path / "cache" / "skilltui").iterdir())) == 1
    assert main(args) == 0 and capsys.readouterr().out == first
    (home / ".claude" / "skills" / "delta").mkdir()
    (home / ".claude" / "skills" / "delta" / "SKILL.md").write_text("---\ndescription: new\n---\n")
    assert main(args) == 0
    fresh = capsys.readouterr().out
    assert '"delta"' in fresh and fresh != first
    assert main([*args, "--no-cache"]) == 0 and capsys.readouterr().out == fresh


def test_recording_notes_only_its_own_thread(tmp_path):
    import threading

    mine, other = tmp_path / "mine", tmp_path / "other"
    mine.write_text("a")
    other.write_text("b")
    with cache.recording() as rec:
        os.stat(mine)
        worker = threading.Thread(target=lambda: (os.stat(other), open(other).close()))
        worker.start()
        worker.join(timeout=60)
    noted = {path for path, _ in rec.paths}
    assert str(mine) in noted and str(other) not in noted


def test_cli_list_json_notices_a_changed_variable(tmp_path, monkeypatch, capsys):
    """`list --json` reports the model from ANTHROPIC_MODEL: a changed value must not get the stored answer."""
    from skilltui.cli import main

    home, project = _tree(tmp_path)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("SKILLTUI_NO_CACHE", raising=False)
    argv = ["--cwd", str(project), "--managed-dir", str(tmp_path / "managed"), "list", "--json"]
    models = []
    for model in ("claude-opus-4-1", "claude-sonnet-4-5", "claude-opus-4-1"):
        monkeypatch.setenv("ANTHROPIC_MODEL", model)
        assert main(argv) == 0
        models.append(json.loads(capsys.readouterr().out)["model"])
    assert models == ["claude-opus-4-1", "claude-sonnet-4-5", "claude-opus-4-1"]
    assert any((tmp_path / "cache" / "skilltui").iterdir())  # the answers were stored


def test_every_runtime_reads_variables_through_the_recorded_environment(tmp_path):
    from skilltui.runtimes import REGISTRY, get

    home, project = _tree(tmp_path)
    for key in REGISTRY:
        with cache.recording({"HOME": str(home)}) as rec:
            assert rec.env is not None
            get(key).discover(Options(cwd=str(project), home=str(home), runtime=key,
                                      managed_dir=str(tmp_path / "managed"), env=rec.env))
        assert set(rec.env.seen) - {"HOME"}, f"{key}: no variable read was noted"
