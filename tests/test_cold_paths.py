"""The cold `list --json` run's fast paths (issue #15) against the plain code they stand in for, on real files in tmp
dirs: the JSON written in batches of skills is byte for byte the JSON of the whole answer (`cli._json_text`)."""

from __future__ import annotations

import argparse
import io
import json
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from treelib import build, md

from skilltui import cli
from skilltui.model import Catalog, Diagnostic, Options, Skill
from skilltui.runtimes import discover

TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cn",)), max_size=12)  # lone surrogates included


def _whole(data: dict[str, object], pretty: bool = False) -> bytes:
    """The plain path: the whole answer's dicts, one json.dumps (cli._json_text), then UTF-8."""
    return cli._json_text(data, argparse.Namespace(pretty=pretty)).encode("utf-8")


def _chunked(data: dict[str, object], skills: list[Skill]) -> bytes:
    try:
        return b"".join(cli._compact_chunks(data, skills, ensure_ascii=False))
    except UnicodeEncodeError:
        return b"".join(cli._compact_chunks(data, skills, ensure_ascii=True))


@settings(max_examples=300, deadline=None)
@given(names=st.lists(TEXT, max_size=9), descriptions=st.lists(st.none() | TEXT, min_size=9, max_size=9),
       tail=st.dictionaries(st.sampled_from(["model", "model_source", "assumed"]), st.none() | TEXT | st.integers()),
       batch=st.integers(1, 4), cwd=TEXT)
def test_batched_json_is_the_whole_answers_json(names, descriptions, tail, batch, cwd):
    skills = [Skill(name=n, source="user", path=f"/s/{n}/SKILL.md", root="/s", description=d, order=i)
              for i, (n, d) in enumerate(zip(names, descriptions))]
    catalog = Catalog("claude", "2.1.332", cwd, "/home", skills=skills,
                      diagnostics=[Diagnostic("info", "code", None, n) for n in names[:2]])
    whole = {**catalog.to_json(), **tail}
    lazy = {**catalog.to_json(lazy_skills=True), **tail}
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(cli, "SKILLS_PER_BATCH", batch)
        assert _chunked(lazy, lazy["skills"]) == _whole(whole)  # type: ignore[arg-type]


def _run_list(capsys, root, *extra: str) -> bytes:
    capsys.readouterr()
    code = cli.main(["--cwd", str(root / "proj"), "--home", str(root / "home"), "--managed-dir", str(root / "managed"),
                     "list", "--json", *extra])
    out = capsys.readouterr()
    assert code == 0, out.err
    return out.out.encode("utf-8")


def _plain_answer(root, include_all: bool, pretty: bool = False) -> bytes:
    home = str(root / "home")
    opts = Options(cwd=str(root / "proj"), home=home, managed_dir=str(root / "managed"), env=dict(os.environ, HOME=home))
    return _whole(cli._list_json(discover(opts), opts, include_all), pretty)


@pytest.mark.parametrize("flags", [(), ("--all",), ("--no-cache",), ("--all", "--no-cache"), ("--pretty", "--no-cache")])
def test_list_json_is_the_plain_answer(tmp_path, capsys, monkeypatch, flags):
    """Batches of 2 over a tree with a non-UTF-8 folder name (lone surrogates: the whole answer is escaped), a shadowed
    copy, an invalid entry and a plugin-less tree: cold, then warm (the stored answer), equal to the plain path."""
    monkeypatch.setattr(cli, "SKILLS_PER_BATCH", 2)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    files: dict[str, object] = {f"home/.claude/skills/s{i}/SKILL.md": md(f"Skill {i} ✓ does things") for i in range(5)}
    files["proj/.claude/skills/s1/SKILL.md"] = md("A project copy")
    files["proj/.claude/skills/bad name/SKILL.md"] = md("Bad name")
    files["proj/.git/HEAD"] = "ref: refs/heads/main\n"
    build(tmp_path, files)
    os.makedirs(os.fsencode(tmp_path / "home/.claude/skills") + b"/caf\xe9")
    (tmp_path / "home/.claude/skills").joinpath(os.fsdecode(b"caf\xe9"), "SKILL.md").write_text(md("Latin-1 name"))
    want = _plain_answer(tmp_path, "--all" in flags, "--pretty" in flags)
    assert b"\\udce9" in want  # the escaped path: the ensure_ascii fallback is exercised
    assert _run_list(capsys, tmp_path, *flags) == want
    assert _run_list(capsys, tmp_path, *flags) == want  # again: from the cache unless --no-cache


def test_list_json_without_a_byte_buffer_on_stdout(tmp_path, monkeypatch):
    """A caller's StringIO as stdout (no .buffer): the same text goes through the text layer."""
    build(tmp_path, {"home/.claude/skills/a/SKILL.md": md("Alpha"), "proj/x": ""})
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    buf = io.StringIO()
    monkeypatch.setattr("sys.stdout", buf)
    code = cli.main(["--cwd", str(tmp_path / "proj"), "--home", str(tmp_path / "home"), "--managed-dir",
                     str(tmp_path / "managed"), "list", "--json", "--no-cache"])
    assert code == 0
    assert json.loads(buf.getvalue())["skills"][0]["name"] == "a"
    assert buf.getvalue().encode("utf-8") == _plain_answer(tmp_path, include_all=False)
