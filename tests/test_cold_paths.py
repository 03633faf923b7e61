"""The cold `list --json` run's fast paths (issue #15) against the plain code they stand in for, on real files in tmp
dirs: the JSON written in batches of skills is byte for byte the JSON of the whole answer (`cli._json_bytes`)."""

from __future__ import annotations

import argparse
import dataclasses
import io
import json
import os
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from treelib import build, md

from skilltui import cli, parallel
from skilltui.model import Catalog, Diagnostic, Options, Skill
from skilltui.runtimes import discover

TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cn",)), max_size=12)  # lone surrogates included


def _whole(data: dict[str, object], pretty: bool = False) -> bytes:
    """The plain path: the whole answer's dicts, one json.dumps (cli._json_bytes), in UTF-8."""
    return cli._json_bytes(data, argparse.Namespace(pretty=pretty))


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


# ---------------------------------------------------------------- the two-process parse of a cold scan
# Run in a fresh interpreter: a fork needs a process with one thread, which a test session does not promise.
TWO_PROCESS = r'''
import json, os, sys, time
from dataclasses import fields, replace
from skilltui import cache, parallel
from skilltui.model import Options
from skilltui.runtimes.claude import discovery as d

opts = Options(**json.loads(sys.argv[1]))
mode = sys.argv[2]
calls, forks, slow = [], [], []
parse_file, fork, parent = d._parse_file, os.fork, os.getpid()

def counted_parse(path, st):  # this process's parses are counted (and slowed, so that the child surely takes a share)
    if os.getpid() == parent:
        calls.append(path)
        time.sleep(0.01 if slow else 0)
    return parse_file(path, st)

d._parse_file = counted_parse

def counted_fork():
    forks.append(1)
    return fork()

def failed_fork():
    raise OSError("no fork here")

os.fork = counted_fork if mode != "fork-fails" else failed_fork
if mode == "child-dies":
    parallel._send = lambda fd, *_: os._exit(3)
elif mode == "child-garbles":
    parallel._send = lambda fd, *_: (os.write(fd, b"\x00garbage"), os.close(fd))

def answer(min_files):
    d._PARSED.clear()
    d.PARALLEL_MIN_FILES = min_files
    del calls[:]
    with cache.recording(opts.env) as rec:
        catalog = d.discover(replace(opts, env=rec.env))
    entries = [{f.name: getattr(s, f.name) for f in fields(s)} | {"frontmatter": vars(s.frontmatter) if s.frontmatter else None}
               for s in catalog.skills]
    text = json.dumps([catalog.to_json(), [p.to_json() for p in catalog.plugins], entries], default=repr)
    kinds = [p.id for p in catalog.plugins if p.kind == "skills-dir"]
    return text, sorted(rec.paths.items()), len(calls), kinds

one, one_paths, one_calls, one_kinds = answer(10**9)
slow.append(mode == "fork")
two, two_paths, two_calls, two_kinds = answer(0)
print(json.dumps({"same": one == two, "same_paths": one_paths == two_paths, "files": one_calls,
                  "parent_parsed": two_calls, "forks": len(forks), "skills_dir_plugins": two_kinds}))
'''


def _two_process(opts: Options, mode: str = "fork") -> dict[str, object]:
    import subprocess
    import sys
    from dataclasses import asdict

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    run = subprocess.run([sys.executable, "-c", TWO_PROCESS, json.dumps(asdict(opts)), mode], capture_output=True,
                         text=True, timeout=300, cwd=root, env=dict(os.environ, PYTHONPATH=root))
    assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr[-2000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


def _varied_tree(root, skills_dir_plugin: bool = False) -> Options:
    """Every kind of file the parse meets: plain, quoted, block scalars, lists, the quoting retry, invalid YAML, not a
    mapping, an early close, no frontmatter, invalid UTF-8, a YAML timestamp (a value marshal cannot send: the
    parent parses that one itself), aliases, CRLF, a big number; plus plugin skills. Near-misses of the skills-dir
    plugin check (a folder named like the manifest, a hidden folder with one, a loose file), and with
    `skills_dir_plugin` one user skill folder that is such a plugin."""
    kinds = [md("Plain"), md('"Quoted: yes"'), "---\ndescription: >\n  folded\n  text\n---\nBody\n",
             "---\ndescription: [a, b]\nname: listy\n---\n", md("Has: colon"), "---\ndescription: [unclosed\n---\n",
             "---\n- a list\n---\nBody\n", "---\ndescription: x---\n---\nBody", "No frontmatter\n# Title\n",
             b"---\ndescription: caf\xe9\n---\n", "---\ndescription: !!timestamp 2001-12-14\n---\n",
             "---\na: &x [1, 2]\nb: *x\ndescription: aliased\n---\n", "---\r\ndescription: crlf\r\n---\r\nBody\r\n",
             "---\ndescription: 123456789012345678901234567890\n---\n", "---\ndisable-model-invocation: true\n---\nHidden\n",
             "---\npaths: src/**\ndescription: conditional\n---\n"]
    files: dict[str, object] = {}
    for i in range(120):
        files[f"home/.claude/skills/k{i:03d}/SKILL.md"] = kinds[i % len(kinds)]
    files["proj/.claude/skills/k001/SKILL.md"] = md("Project copy")
    files["proj/.git/HEAD"] = "ref: refs/heads/main\n"
    files["home/.claude/skills/k007/.claude-plugin/plugin.json/x"] = ""  # a folder where the manifest would be
    files["home/.claude/skills/.hidden/SKILL.md"] = md("Hidden folder")
    files["home/.claude/skills/.hidden/.claude-plugin/plugin.json"] = '{"name": "hidden"}'  # never a plugin
    files["home/.claude/skills/loose.md"] = md("Loose file")
    if skills_dir_plugin:
        files["home/.claude/skills/k011/.claude-plugin/plugin.json"] = '{"name": "k011", "version": "1.0.0"}'
    build(root, files)
    home = str(root / "home")
    return Options(cwd=str(root / "proj"), home=home, managed_dir=str(root / "managed"), env={"HOME": home})


@pytest.mark.parametrize("skills_dir_plugin", [False, True], ids=["no-skills-dir-plugin", "a-skills-dir-plugin"])
def test_two_processes_give_the_one_process_answer_on_a_varied_tree(tmp_path, skills_dir_plugin):
    """With or without a user skill folder that is a skills-dir plugin (its check is made with the folder's file, in
    either process, and the plugins loaded again when one is found): the same catalog, plugins and observations."""
    got = _two_process(_varied_tree(tmp_path, skills_dir_plugin))
    assert got["forks"] >= 1, got  # the child was made (a second one parses what the first could not send back)...
    assert got["files"] == 122 and got["parent_parsed"] < 70, got  # ... and parsed a share (the timestamp files: here)
    assert got["same"] and got["same_paths"], got  # the same catalog, and the answer cache saw the same paths
    assert got["skills_dir_plugins"] == (["k011@skills-dir"] if skills_dir_plugin else []), got


@pytest.mark.parametrize("mode", ["child-dies", "child-garbles", "fork-fails"])
def test_a_failed_child_changes_nothing(tmp_path, mode):
    got = _two_process(_varied_tree(tmp_path), mode)
    assert got["same"] and got["same_paths"], got
    assert got["parent_parsed"] == got["files"] == 122, got  # everything parsed here instead, no traceback


def test_two_processes_give_the_one_process_answer_on_the_corpus(corpus_tree, tmp_path):
    from test_corpus_claude import _mount

    got = _two_process(_mount(corpus_tree, tmp_path))
    assert got["forks"] >= 1 and got["files"] > 1000 and got["parent_parsed"] < got["files"] * 0.6, got
    assert got["same"] and got["same_paths"], got


# ---------------------------------------------------------------- parallel.from_both_ends itself
BOTH_ENDS = r'''
import json, marshal, os, sys, time
from skilltui import parallel

mode = sys.argv[1]
n = 600
items = list(range(n))
mine, firsts = [], []
parent = os.getpid()

def first():
    firsts.append(1)
    time.sleep(0.5)  # this side's own work: the child takes more than half meanwhile

def here(i):
    mine.append(i)

def there(i):
    if i % 97 == 0:
        raise ValueError("this item fails in the child")
    if i % 89 == 0:
        return [i * 2, object()]  # a value marshal refuses: this item is left to the parent
    return [i * 2, "x" * (i % 5)]

if mode == "child-dies":
    parallel._send = lambda fd, *_: os._exit(3)
elif mode == "child-garbles":
    parallel._send = lambda fd, *_: (os.write(fd, b"\x00garbage"), os.close(fd))
elif mode in ("frame-garbled", "frame-out-of-place"):
    real = marshal.dumps
    def bad(value):  # the child's frames only: [top, results]
        if isinstance(value, list) and len(value) == 2 and isinstance(value[1], list) and len(value[1]) == parallel.BATCH:
            if mode == "frame-garbled":
                return b"\x00garbage"
            if value[0] != 600:  # the second frame on: one place off
                return real([value[0] - 1, *value[1:]])
        return real(value)
    parallel.marshal = type("M", (), {"dumps": staticmethod(bad), "loads": staticmethod(marshal.loads)})
elif mode == "small-shared":
    parallel.SHARED_BYTES = 4000  # one batch of these results fits, the next does not
elif mode == "fork-fails":
    def no_fork():
        raise OSError("no fork here")
    os.fork = no_fork
elif mode == "race":  # both sides on cheap items at once; `here` notes each item it does once the child has gone
    n, items, child_pid, late = 100_000, list(range(100_000)), [], []
    real_fork = os.fork
    def fork():
        pid = real_fork()
        child_pid.append(pid)
        return pid
    os.fork = fork
    def first():
        firsts.append(1)
    def here(i):
        mine.append(i)
        if i % 64 == 0:
            try:
                with open(f"/proc/{child_pid[0]}/stat") as f:
                    gone = f.read().rsplit(")", 1)[1].split()[0] in "ZX"
            except OSError:
                gone = True
            if gone:
                late.append(i)
    def there(i):
        return [i * 2, "x" * (i % 5)]
taken = {}
got = parallel.from_both_ends(items, first, here, there, lambda i, r: taken.setdefault(i, []).append(r))
child = {} if got is None else got
print(json.dumps({
    "taken": sorted(taken), "once": all(len(rs) == 1 for rs in taken.values()),
    "firsts": len(firsts), "forked": got is not None, "mine": mine, "child": sorted(child),
    "right": all(rs[0] == [i * 2, "x" * (i % 5)] for i, rs in taken.items()),
    "failed": sorted(i for i, came in child.items() if not came),
    "late": late if mode == "race" else [],
}))
'''


def _both_ends(mode: str) -> dict[str, object]:
    import subprocess
    import sys

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    run = subprocess.run([sys.executable, "-c", BOTH_ENDS, mode], capture_output=True, text=True, timeout=300,
                         cwd=root, env=dict(os.environ, PYTHONPATH=root))
    assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr[-2000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


CHILD_RECORDS_NOTHING = r'''
import json, os
from skilltui import cache

with cache.recording({}) as rec:
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: its looks are not noted, in its copy or anywhere, and the plain functions are back
        os.stat("/")
        os.access("/no-such-path", os.F_OK)
        plain = os.stat is cache._REAL["stat"] and os.access is cache._REAL["access"] and open is cache._REAL_OPEN
        os.write(w, json.dumps([plain, cache.observing() is None, sorted(p for p, _ in rec.paths)]).encode())
        os._exit(0)
    os.close(w)
    child = json.loads(os.read(r, 1 << 16))
    os.waitpid(pid, 0)
    os.stat("/")
    wrapped = os.stat is not cache._REAL["stat"]
print(json.dumps({"child": child, "parent": sorted(p for p, _ in rec.paths), "wrapped": wrapped,
                  "restored": os.stat is cache._REAL["stat"]}))
'''


def test_a_forked_child_records_nothing():
    """A child forked during a recording records nothing (its looks would end with it; its parent notes what it
    reports, cache.note_stat) and runs the plain functions; the parent goes on recording, and stops as usual."""
    import subprocess
    import sys

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    run = subprocess.run([sys.executable, "-c", CHILD_RECORDS_NOTHING], capture_output=True, text=True, timeout=60,
                         cwd=root, env=dict(os.environ, PYTHONPATH=root))
    assert run.returncode == 0, run.stderr[-2000:]
    got = json.loads(run.stdout)
    assert got["child"] == [True, True, []], got
    assert got["parent"] == ["/"] and got["wrapped"] and got["restored"], got


@pytest.mark.parametrize("mode", ["fork", "small-shared"])
def test_both_ends_cover_every_item_once_each_side(mode):
    """The child takes items from the back while this process does its own work, then this process from the front:
    together every item, the child's results right and in place, an item that failed there or whose result cannot
    be sent None (left to this process). With room in shared memory for one batch only (`small-shared`), the rest
    comes with the child's last message."""
    got = _both_ends(mode)
    assert got["forked"] and got["firsts"] == 1, got
    mine, child = got["mine"], got["child"]
    assert mine == list(range(len(mine))), "this process goes from the front, in order"
    assert child == list(range(600 - len(child), 600)), "the child takes a run from the back"
    assert set(mine) | set(child) == set(range(600)) and len(set(mine) & set(child)) <= 1, got
    assert len(child) > 300, "the child worked while this process ran `first`"
    assert got["right"] and got["failed"] == [i for i in child if i % 97 == 0 or i % 89 == 0], got
    assert got["taken"] == [i for i in child if i % 97 and i % 89] and got["once"], "each result sent, handed over once"


@pytest.mark.skipif(not os.path.exists(f"/proc/{os.getpid()}/stat"), reason="tells a finished child by /proc")
def test_both_ends_racing_never_take_back_a_working_childs_items():
    """Both sides on 100,000 cheap items at once, each reading the other's counter at every item: this process stops
    only where the child is, never after the child has gone. The counters were written with struct.pack_into, which
    zeroes a field before writing it: this process sometimes read 0, stopped early, and did the child's remaining
    items itself once it had gone (about one cold 20,000-skill scan in two)."""
    got = _both_ends("race")
    mine, child = got["mine"], got["child"]
    assert got["forked"] and mine == list(range(len(mine))), got["late"][:20]
    assert set(mine) | set(child) == set(range(100_000)) and len(set(mine) & set(child)) <= 1
    # the item where the two meet may be done here just after the child has seen it claimed and left
    late = [i for i in got["late"] if i < len(mine) - 1]
    assert late == [], f"items done here after the child had gone: {late[:20]} ..."


@pytest.mark.parametrize("mode", ["child-dies", "child-garbles", "fork-fails"])
def test_both_ends_without_a_usable_child_do_everything_here(mode):
    got = _both_ends(mode)
    assert got["firsts"] == 1 and got["mine"] == list(range(600)), got
    assert got["child"] == [], got
    assert got["taken"] == [], got


@pytest.mark.parametrize("mode", ["frame-garbled", "frame-out-of-place"])
def test_both_ends_with_a_bad_frame_do_the_rest_here(mode):
    """A published batch that does not decode (the first), or does not continue where the last one ended (the
    second): nothing more is taken from the child, and this process does every item it did not do itself, those
    already handed over included."""
    got = _both_ends(mode)
    assert got["firsts"] == 1 and got["mine"] == list(range(600)), got
    assert got["child"] == [], got
    first_batch = [] if mode == "frame-garbled" else list(range(600 - parallel.BATCH, 600))
    assert got["taken"] == [i for i in first_batch if i % 97 and i % 89], got


# ---------------------------------------------------------------- the warm run's stat check in two processes
WARM_CHECK = r'''
import json, os, sys
from skilltui import cache, parallel

root, mode = sys.argv[1], sys.argv[2]
forks, fork = [], os.fork

def counted_fork():
    forks.append(1)
    return fork()

os.fork = counted_fork
if mode == "child-dies":
    parallel._send = lambda fd, *_: os._exit(3)
def record():
    paths, kinds, sigs = [], [], []
    for i in range(3000):  # files, folders (listed and stat-ed) and missing paths, mixed through both halves
        path, kind = os.path.join(root, f"f{i}"), ("stat", "list", "lstat")[i % 3]
        sig = cache._signature(path, kind)
        paths.append(path)
        kinds.append(cache._KIND_LETTER[kind].upper() if sig is None else cache._KIND_LETTER[kind])
        sigs += sig or ()
    return paths, "".join(kinds), sigs

paths, kinds, sigs = record()
out = {"same": cache._unchanged_in_two(paths, kinds, sigs), "plain": cache._unchanged(paths, kinds, sigs)}
for name, edited, created in (("first", 3, 10), ("second", 2903, 2910)):  # 3: a file; 10: missing
    with open(paths[edited], "a") as fh:
        fh.write("more")
    out[f"{name}-edit"] = [cache._unchanged_in_two(paths, kinds, sigs), cache._unchanged(paths, kinds, sigs)]
    paths, kinds, sigs = record()
    os.mkdir(paths[created])
    out[f"{name}-create"] = [cache._unchanged_in_two(paths, kinds, sigs), cache._unchanged(paths, kinds, sigs)]
    paths, kinds, sigs = record()
    out[f"{name}-again"] = cache._unchanged_in_two(paths, kinds, sigs)
out["forks"] = len(forks)
print(json.dumps(out))
'''


@pytest.mark.parametrize("mode", ["fork", "child-dies"])
def test_the_warm_check_in_two_processes_is_the_plain_check(tmp_path, mode):
    """3,000 observed paths (over PARALLEL_MIN_PATHS): unchanged is unchanged; an edit or a new path in either half is
    seen, as the one-process check sees it; a child that dies leaves its half to this process."""
    import subprocess
    import sys

    for i in range(3000):
        if i % 5 == 0:
            continue  # missing: observed as missing
        if i % 3 == 1:
            os.mkdir(tmp_path / f"f{i}")
        else:
            (tmp_path / f"f{i}").write_text(str(i))
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    run = subprocess.run([sys.executable, "-c", WARM_CHECK, str(tmp_path), mode], capture_output=True, text=True,
                         timeout=300, cwd=root, env=dict(os.environ, PYTHONPATH=root))
    assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr[-2000:]
    got = json.loads(run.stdout.strip().splitlines()[-1])
    assert got.pop("forks") >= 5, got  # each check forked
    assert got.pop("same") is True and got.pop("plain") is True
    assert got == {**{f"{half}-{change}": [False, False] for half in ("first", "second") for change in ("edit", "create")},
                   "first-again": True, "second-again": True}, got


# ---------------------------------------------------------------- the program leaves without the interpreter's teardown
def _program(root, *args: str, code: str | None = None, stdout: int | None = None):
    import subprocess
    import sys

    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    head = [sys.executable, "-c", code] if code else [sys.executable, "-m", "skilltui"]
    env = dict(os.environ, PYTHONPATH=repo, HOME=str(root / "home"), XDG_CACHE_HOME=str(root / "cache"))
    return subprocess.Popen([*head, *args], stdout=stdout if stdout is not None else subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=str(root), env=env)


def test_the_program_answers_and_exits_as_main_returns(tmp_path):
    """`python -m skilltui` (cli.run): the whole answer on stdout, main's exit codes, exit handlers run."""
    build(tmp_path, {**{f"home/.claude/skills/s{i}/SKILL.md": md(f"Skill {i}") for i in range(30)}, "proj/x": ""})
    where = ["--cwd", str(tmp_path / "proj"), "--home", str(tmp_path / "home"), "--managed-dir", str(tmp_path / "managed")]
    for flags in ((), ("--no-cache",), ()):  # cold, uncached, warm
        proc = _program(tmp_path, *where, "list", "--json", *flags)
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0 and err == b"", err
        assert out == _plain_answer(tmp_path, include_all=False)
    proc = _program(tmp_path, *where, "show", "no-such-skill")
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 1 and b"no skill named 'no-such-skill'" in err
    proc = _program(tmp_path, *where, "list", "--no-such-flag")
    assert proc.wait(timeout=120) == 2
    handler = ("import atexit, sys\nfrom skilltui import cli\n"
               "atexit.register(lambda: print('handler ran', file=sys.stderr))\ncli.run()\n")
    proc = _program(tmp_path, *where, "list", "--json", code=handler)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0 and err == b"handler ran\n" and out == _plain_answer(tmp_path, include_all=False)


def test_the_program_on_a_closed_pipe_says_nothing(tmp_path):
    import subprocess

    build(tmp_path, {**{f"home/.claude/skills/s{i}/SKILL.md": md("x" * 200) for i in range(400)}, "proj/x": ""})
    read_end, write_end = os.pipe()
    proc = _program(tmp_path, "--cwd", str(tmp_path / "proj"), "--home", str(tmp_path / "home"), "--managed-dir",
                    str(tmp_path / "managed"), "list", "--json", "--no-cache", stdout=write_end)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as reader:
        assert reader.read(10) == b'{"runtime"'
    try:
        err = proc.communicate(timeout=120)[1]
    except subprocess.TimeoutExpired:
        proc.kill()
        raise
    assert b"Traceback" not in err and proc.returncode in (0, 120), err


# ---------------------------------------------------------------- one command's parser alone
ARGVS = [["list", "--json"], ["--cwd", "X", "list", "--json", "--all"], ["--cwd=X", "--home=H", "list"],
         ["--no-cache", "doctor", "--strict", "--json"], ["--runtime", "codex", "show", "pdf"], ["list", "--cwd", "X"],
         ["plugin", "enable", "x@y", "--scope", "user"], ["budget", "--context-window", "200k", "--json"],
         ["touch", "a", "b", "--git"], ["skill", "set", "n", "off"], ["resolve", "skill://x/y"], ["plugins"],
         ["--cwd", "list", "list"], ["--add-dir", "a", "--add-dir", "b", "list", "--pretty"], ["list", "--bogus"],
         ["list", "extra"], ["budget", "--model", "m", "--context-window", "1"], ["skill", "set", "n", "sideways"],
         ["--demo", "list", "--json"], ["--cw", "X", "list"], ["list", "--help"], ["nothing"], [], ["--version"]]


@pytest.mark.parametrize("argv", ARGVS, ids=lambda a: " ".join(a) or "none")
def test_the_one_command_parser_reads_as_the_whole_parser(argv):
    """Where `_named_command` names a command, its parser alone gives the whole parser's namespace; what it cannot
    read (an error) is left to the whole parser, which then fails too."""
    import contextlib

    whole: argparse.Namespace | None = None
    with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
        try:
            whole = cli.build_parser().parse_args(argv)
        except SystemExit:
            pass
    command = cli._named_command(argv)
    if command is None:
        return
    try:
        alone = cli.build_parser(only=command, parser_class=cli._QuietParser).parse_args(argv)
    except cli._Unsure:
        assert whole is None, argv  # refused alone only where the whole parser refuses too
        return
    assert whole is not None and vars(alone) == vars(whole), argv


def _whole_parse(argv: list[str]) -> argparse.Namespace | None:
    """The whole parser's namespace, None where it refuses (or prints help)."""
    import contextlib

    with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
        try:
            return cli.build_parser().parse_args(argv)
        except SystemExit:
            return None


PLAIN_LIST = [["list"], ["list", "--json"], ["--cwd", "X", "list", "--json", "--all", "--pretty"],
              ["--add-dir", "a", "list", "--add-dir", "b"], ["--add-dir", "a", "--add-dir", "b", "list"],
              ["--cwd", "X", "list", "--cwd", "Y"], ["--cwd=X", "list", "--home=", "--runtime=codex"],
              ["list", "--runtime", "nope"], ["list", "--omp-rules", "15"], ["list", "--omp-rules", "14", "--demo"],
              ["--json", "list"], ["list", "--cwd"], ["list", "--cwd", "-x"], ["list", "--cwd", "--json"],
              ["list", "list"], ["list", "--js"], ["list", "--json=1"], ["--no-cache", "list", "--no-cache"],
              ["--settings", "{}", "list", "--native-dir", ".x", "--managed-dir", "m"], ["list", "--", "x"],
              ["--cwd", "list", "list", "--all"], ["list", "--cwd", "a=b", "--home=c=d"], ["list", "-h"]]


@pytest.mark.parametrize("argv", PLAIN_LIST + ARGVS, ids=lambda a: " ".join(a) or "none")
def test_a_plain_list_command_line_is_read_as_the_whole_parser_reads_it(argv):
    """`_plain_list_args` (no parser built) gives the whole parser's namespace, or None; never a namespace where the
    whole parser refuses."""
    plain = cli._plain_list_args(argv)
    if plain is not None:
        whole = _whole_parse(argv)
        assert whole is not None and vars(plain) == vars(whole), argv
    elif argv in PLAIN_LIST[:7]:
        pytest.fail(f"{argv}: plain enough to be read without a parser")


WORDS = ["list", "show", "--cwd", "--home", "--runtime", "--add-dir", "--omp-rules", "--settings", "--demo",
         "--no-cache", "--all", "--json", "--pretty", "--js", "--cwd=", "--runtime=omp", "--add-dir=z", "claude",
         "codex", "14", "X", "-x", "", "=", "--"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(WORDS), max_size=8))
def test_any_command_line_is_read_as_the_whole_parser_reads_it_or_left_to_it(argv):
    plain = cli._plain_list_args(argv)
    if plain is not None:
        whole = _whole_parse(argv)
        assert whole is not None and vars(plain) == vars(whole), argv


def test_a_plain_list_run_builds_no_parser(monkeypatch, tmp_path, capsys):
    built: list[object] = []
    monkeypatch.setattr(cli, "build_parser", lambda *a, **k: built.append(a) or pytest.fail("a parser was built"))
    build(tmp_path, {"home/.claude/skills/a/SKILL.md": md("A"), "proj/x": ""})
    assert cli.main(["--cwd", str(tmp_path / "proj"), "--home", str(tmp_path / "home"), "--managed-dir",
                     str(tmp_path / "managed"), "list", "--json", "--no-cache"]) == 0
    assert '"a"' in capsys.readouterr().out and built == []


def test_an_error_is_said_by_the_whole_parser(capsys):
    assert cli.main(["list", "--bogus"]) == 2
    assert capsys.readouterr().err == "skilltui: unrecognized arguments: --bogus (see `skilltui --help`)\n"


# ---------------------------------------------------------------- the cache is stored after the answer is out
def _entries(folder) -> dict[str, int]:
    """{name: inode} of the cache folder's entries (a pending store included)."""
    return {p.name: p.stat().st_ino for p in folder.iterdir()} if folder.exists() else {}


def _settled(folder, timeout: float = 60.0) -> dict[str, int]:
    """The cache folder's entries once no store is under way (a detached writer may still be at work)."""
    import time

    from skilltui import cache

    store = cache.Store(str(folder))
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        pending = [p.name for p in folder.iterdir() if p.name.startswith(".pending-")] if folder.exists() else []
        if not pending:
            return _entries(folder)
        store.wait_for_writer(pending[0][len(".pending-"):], timeout=1.0)
        time.sleep(0.01)
    raise AssertionError(f"a store was still under way after {timeout} s: {_entries(folder)}")


def test_the_program_stores_its_answer_after_answering_and_the_next_run_uses_it(tmp_path):
    """`python -m skilltui list --json` (cli.run) writes a new answer to the cache in a detached process once the
    answer is out; the same command run right after waits for that store if need be, and is answered from it (a
    run that computed again would have replaced the entry: another inode)."""
    build(tmp_path, {**{f"home/.claude/skills/s{i}/SKILL.md": md(f"Skill {i}") for i in range(30)}, "proj/x": ""})
    where = ["--cwd", str(tmp_path / "proj"), "--home", str(tmp_path / "home"), "--managed-dir", str(tmp_path / "managed")]
    folder = tmp_path / "cache" / "skilltui"
    answers, settled = [], []
    for _ in range(2):
        proc = _program(tmp_path, *where, "list", "--json")
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0 and err == b"", err
        answers.append(out)
        settled.append(_settled(folder))
    assert answers[0] == answers[1] == _plain_answer(tmp_path, include_all=False)
    assert len(settled[0]) == 1 and not next(iter(settled[0])).startswith(".")  # one entry, no pending file left
    assert settled[1] == settled[0]  # the second run was answered from the first's entry


def test_a_run_that_misses_waits_for_the_store_under_way(tmp_path):
    """A store reserved and not yet written (a detached writer at work): a run that misses waits for it, then uses
    what it wrote, without computing. Deterministic: the reader cannot get past the lock before it is released."""
    import threading

    from skilltui import cache

    env = {"HOME": str(tmp_path), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    (tmp_path / "f").write_text("content")
    calls = []

    def compute(e) -> list[bytes]:
        calls.append(1)
        os.stat(tmp_path / "f")
        return [b"the answer"]

    store, key = cache.Store(cache.cache_dir(env)), cache.key_of("k")
    with cache.recording(env) as rec:
        compute(env)
    fd = store.reserve(key)
    assert fd is not None and store.reserve(key) is None  # one writer at a time
    got: list[object] = []
    reader = threading.Thread(target=lambda: got.append(cache.cached_chunks("k", env, compute)))
    reader.start()
    reader.join(timeout=0.2)  # it waits on the lock (or has not looked yet): either way it cannot have computed
    assert calls == [1]
    store.put_bytes(key, rec, [b"the answer"], fd)
    reader.join(timeout=60)
    assert not reader.is_alive() and got == [[b"the answer"]] and calls == [1]


def test_an_abandoned_store_neither_blocks_nor_stays(tmp_path):
    """A pending file no process holds (its writer was killed): a reader does not wait for it, and the next store
    replaces it."""
    from skilltui import cache

    env = {"HOME": str(tmp_path), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    store, key = cache.Store(cache.cache_dir(env)), cache.key_of("k")
    fd = store.reserve(key)
    assert fd is not None
    os.close(fd)  # what a killed writer leaves: the file, unlocked
    assert store.wait_for_writer(key, timeout=30) is True  # no wait: nobody holds it
    assert cache.cached_chunks("k", env, lambda e: [b"fresh"]) == [b"fresh"]
    assert cache.cached_chunks("k", env, lambda e: [b"not used"]) == [b"fresh"]
    assert sorted(_entries(tmp_path / "cache" / "skilltui")) == [key]


def test_main_in_a_process_leaves_cyclic_gc_on(tmp_path, capsys):
    """Only the program, which ends after the command, leaves the collector paused after `list --json`."""
    import gc

    build(tmp_path, {"home/.claude/skills/a/SKILL.md": md("A"), "proj/x": ""})
    assert gc.isenabled()
    assert cli.main(["--cwd", str(tmp_path / "proj"), "--home", str(tmp_path / "home"), "--managed-dir",
                     str(tmp_path / "managed"), "list", "--json", "--no-cache"]) == 0
    assert gc.isenabled() and '"a"' in capsys.readouterr().out


# ---------------------------------------------------------------- one skill's JSON text without its dict
OPTIONAL = st.none() | TEXT


@settings(max_examples=500, deadline=None)
@given(name=TEXT, label=TEXT, strings=st.lists(OPTIONAL, min_size=7, max_size=7), order=st.none() | st.integers(),
       shipped=st.booleans(), paths=st.none() | st.lists(TEXT, max_size=3), ascii_only=st.booleans(),
       status=st.sampled_from(["listed", "shadowed", "hidden"]))
def test_skill_json_text_is_the_encoders_text(name, label, strings, order, shipped, paths, ascii_only, status):
    from skilltui.model import Source, skill_json_text

    description, when_to_use, plugin, reason, shadowed_by, display_name, override = strings
    skill = Skill(name=name, label=label, source=Source.USER if shipped else "omp:user", path=f"/p/{name}", root="/p",
                  description=description, when_to_use=when_to_use, plugin=plugin, status=status, reason=reason,
                  shadowed_by=shadowed_by, order=order, shipped=shipped, display_name=display_name, override=override,
                  paths=paths)
    enc = json.JSONEncoder(ensure_ascii=ascii_only, separators=(",", ":"))
    assert skill_json_text(skill, enc) == enc.encode(skill.to_json())
    for odd in ({"order": True}, {"order": 2.5}, {"description": 7}, {"plugin": ["a"]}, {"shipped": 1}, {"source": 3}):
        weird = dataclasses.replace(skill, **odd)  # a value of a type the field does not declare
        assert skill_json_text(weird, enc) == enc.encode(weird.to_json()), odd


# ---------------------------------------------------------------- no garbage left in cycles
def _cyclic_garbage(run: Callable[[], object]) -> list[object]:
    """What `run()` leaves in reference cycles, run with the collector off as a command-line run is."""
    import gc

    gc.collect()
    was = gc.isenabled()
    gc.disable()
    try:
        run()
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        return list(gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if was:
            gc.enable()


@pytest.mark.parametrize("runtime", ["claude", "codex", "omp", "gemini"])
def test_discovery_leaves_no_reference_cycles(tmp_path, runtime):
    """A command-line run keeps the cyclic collector off (its passes cost more than they free), so whatever a
    discovery leaves in a reference cycle stays until the process ends. An exception kept as a value (a folder that
    is missing, a YAML error) with its traceback held the frames that made it, and with them every local of the
    discovery: 13 MB at 20,000 skills. Missing folders, broken YAML and good skills, in every runtime's places."""
    from skilltui import runtimes

    good, bad = md("Fine"), "---\ndescription: [unclosed\nname: x: y\n---\nBody\n"
    files: dict[str, object] = {}
    for base in ("home/.claude/skills", "home/.codex/skills", "home/.agents/skills", "home/.gemini/skills",
                 "home/.omp/agent/skills", "proj/.claude/skills", "proj/.agents/skills"):
        files[f"{base}/good/SKILL.md"] = good
        files[f"{base}/bad/SKILL.md"] = bad
    files["proj/.git/HEAD"] = "ref: refs/heads/main\n"
    build(tmp_path, files)
    home = str(tmp_path / "home")
    opts = Options(cwd=str(tmp_path / "proj"), home=home, managed_dir=str(tmp_path / "managed"), env={"HOME": home},
                   runtime=runtime)
    runtimes.discover(opts)  # imports and module caches first: what stays for the process is not a discovery's
    catalogs: list[Catalog] = []
    left = [type(o).__name__ for o in _cyclic_garbage(lambda: catalogs.append(runtimes.discover(opts)))]
    assert catalogs[0].skills and left == [], left[:20]


def test_doctor_leaves_no_frames_in_cycles(tmp_path, capsys):
    """The doctor's conformance lens raised the refusal its fast path found (here an unquoted `: ` in a description)
    from a local: each such file left the frames of the whole check (and the catalog they held) in a cycle, 42,000
    objects on the bench tree. Only the argument parser's own cycles may be left."""
    import types

    build(tmp_path, {"home/.claude/skills/colon/SKILL.md": "---\nname: colon\ndescription: After: use it.\n---\nBody\n",
                     "home/.claude/skills/good/SKILL.md": md("Fine")})
    home = str(tmp_path / "home")
    argv = ["--cwd", str(tmp_path), "--home", home, "--managed-dir", str(tmp_path / "managed"), "doctor", "--json"]
    cli.main(argv)  # imports and module caches first
    left = [o for o in _cyclic_garbage(lambda: cli.main(argv)) if isinstance(o, (types.FrameType, BaseException, Skill))]
    assert "mapping values are not allowed" in capsys.readouterr().out and left == [], left[:5]
