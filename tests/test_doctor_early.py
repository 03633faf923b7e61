"""The doctor's link and conformance lenses run where discovery reads each SKILL.md (doctor._early through
frontmatter.reading_with), in whichever process parses the file: the findings must be exactly those of the pass that
reads every file again, and nothing is kept when no doctor asks (list, the TUI)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import asdict

import pytest
from test_doctor_parallel import _home, _json
from test_doctor_shortcuts import SHAPES

from skilltui import doctor, frontmatter, parallel
from skilltui.checks import conformance
from skilltui.model import Options
from skilltui.runtimes import discover
from skilltui.runtimes.claude import discovery as claude

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Every shape `_early` must leave to the pass or answer alike: CRLF, a BOM, bad UTF-8, a file over the cap, invisible
# characters in the body, a lower-case skill.md, a link out of the folder, bad YAML, no frontmatter, a link in code.
FILES = {
    **SHAPES,
    "plain": b"---\nname: plain\ndescription: P.\n---\n[u](here.md) and [t](../../out.md)\n",
    "yaml": b"---\nname: yaml\ndescription: Do: this: now\n---\n[s](s.md)\n",
    "none": b"no frontmatter [r](r.md)\n",
    "code": b"---\nname: code\ndescription: C.\n---\n```\nhandlers[key](payload)\n```\n`[q](q.md)`\n",
}


def _tree(tmp_path) -> Options:
    skills = tmp_path / "home/.claude/skills"
    for name, data in FILES.items():
        (skills / name).mkdir(parents=True)
        (skills / name / "SKILL.md").write_bytes(data)
    lower = skills / "lower"
    lower.mkdir()
    (lower / "skill.md").write_bytes(b"---\nname: lower\ndescription: L.\n---\n[p](p.md)\n")
    (tmp_path / "repo").mkdir()
    return Options(cwd=str(tmp_path / "repo"), home=str(tmp_path / "home"), managed_dir=str(tmp_path / "m"),
                   env={"HOME": str(tmp_path / "home")})


@pytest.fixture
def no_early(monkeypatch):
    """The pass as it was: every file read again by the doctor."""
    monkeypatch.setattr(doctor, "_early", lambda path, text, fm: None)


def _reads(monkeypatch) -> list[str]:
    """The SKILL.md files the pass reads itself."""
    calls: list[str] = []
    real = conformance.read_raw

    def counted(path, cap=conformance.MAX_BYTES):
        calls.append(os.fspath(path))
        return real(path, cap)

    monkeypatch.setattr(conformance, "read_raw", counted)
    return calls


@pytest.mark.parametrize("make", [_tree, lambda p: _home(p, 41)], ids=["shapes", "home"])
def test_findings_where_discovery_reads_equal_the_pass_that_reads_again(tmp_path, monkeypatch, make):
    opts = make(tmp_path)
    claude._PARSED.clear()  # a parse kept from an earlier test would give no early answer
    reads = _reads(monkeypatch)
    early = _json(doctor.run(opts, ("claude",)))
    read_early = len(reads)
    monkeypatch.setattr(doctor, "_early", lambda path, text, fm: None)
    claude._PARSED.clear()
    reads.clear()
    again = _json(doctor.run(opts, ("claude",)))
    assert early == again
    assert read_early < len(reads) // 2, (read_early, len(reads))  # most files were not read again
    codes = {d["code"] for d in early}
    assert {"skill-link-broken", "skill-link-escapes", "spec-yaml-invalid", "spec-no-frontmatter"} <= codes, codes


def test_the_pass_reads_what_early_left_out(tmp_path, monkeypatch):
    """Bad UTF-8 and invisible characters in the body are left to the pass (a file over the cap is not loaded, so
    no lens reads it)."""
    opts = _tree(tmp_path)
    claude._PARSED.clear()
    reads = _reads(monkeypatch)
    doctor.run(opts, ("claude",))
    left = {os.path.basename(os.path.dirname(p)) for p in reads}
    assert {"bad-utf8", "hidden"} <= left, left
    assert not left & {"plain", "crlf", "bom", "yaml", "none", "code", "huge"}, left


def test_a_parse_kept_from_before_is_checked_by_the_pass(tmp_path, monkeypatch):
    """A file discovery did not parse this time (kept in _PARSED) has no early answer: the pass reads it."""
    opts = _tree(tmp_path)
    claude._PARSED.clear()
    first = _json(doctor.run(opts, ("claude",)))
    reads = _reads(monkeypatch)
    assert _json(doctor.run(opts, ("claude",))) == first
    assert {os.path.basename(os.path.dirname(p)) for p in reads} >= set(FILES) - {"huge"}


def test_nothing_is_kept_when_no_doctor_asks(tmp_path):
    opts = _tree(tmp_path)
    claude._PARSED.clear()
    discover(opts)
    assert frontmatter.READ_EXTRAS == {} and not frontmatter.ON_READ
    claude._PARSED.clear()
    with frontmatter.reading_with(doctor._early) as extras:
        discover(opts)
        assert len(extras) >= 6
    assert frontmatter.READ_EXTRAS == {} and not frontmatter.ON_READ  # emptied on leaving


def test_a_failing_early_check_is_left_to_the_pass(tmp_path, monkeypatch):
    opts = _tree(tmp_path)
    claude._PARSED.clear()
    want = _json(doctor.run(opts, ("claude",)))

    def boom(*args):
        raise RuntimeError("boom")

    claude._PARSED.clear()
    monkeypatch.setattr(doctor, "_link_findings", boom)
    got = _json(doctor.run(opts, ("claude",)))  # every lens fails in the pass too: reported once, never raised
    assert [d for d in got if d["code"] == "doctor-check-failed"]
    assert [d for d in want if d["code"] != "skill-link-broken" and d["code"] != "skill-link-escapes"] == \
        [d for d in got if d["code"] != "doctor-check-failed"]


# Discovery forks only in a process with one thread (parallel.can_fork): a fresh interpreter, as on the command line.
FORKED = r'''
import json, os, sys, time
from skilltui import doctor, frontmatter, parallel
from skilltui.model import Options
from skilltui.runtimes.claude import discovery as d
opts = Options(**json.loads(sys.argv[1]))
d.PARALLEL_MIN_FILES = 0
parse_file, parent = d._parse_file, os.getpid()
def slowed_parse(path, st):  # this process's parses are slowed, so that the child surely takes a share on a busy machine
    if os.getpid() == parent:
        time.sleep(0.01)
    return parse_file(path, st)
d._parse_file = slowed_parse
sent = []
real = d._store_compact
def counted(path, st, compact, *rest):
    sent.append(compact[-1] is not None)
    return real(path, st, compact, *rest)
d._store_compact = counted
early = [x.to_json() for x in doctor.run(opts, ("claude",), workers=2)]
from_child = sum(sent)
d._PARSED.clear()
doctor._early = lambda path, text, fm: None
again = [x.to_json() for x in doctor.run(opts, ("claude",), workers=2)]
print(json.dumps({"same": early == again, "from_child": from_child, "findings": len(early)}))
'''


@pytest.mark.skipif(not hasattr(os, "fork"), reason="discovery's second process needs os.fork")
def test_early_answers_come_back_from_discoverys_child(tmp_path):
    opts = _home(tmp_path, 60)
    run = subprocess.run([sys.executable, "-c", FORKED, json.dumps(asdict(opts))], capture_output=True, text=True,
                         timeout=300, cwd=REPO, env=dict(os.environ, PYTHONPATH=REPO))
    assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr[-2000:]
    got = json.loads(run.stdout.strip().splitlines()[-1])
    assert got["same"] and got["findings"] > 40
    if parallel.cpus() > 1:
        assert got["from_child"] > 5  # the child parsed from the back, and its answers came back with its parses
