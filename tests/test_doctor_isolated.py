"""The TUI's background checks: `doctor.run_isolated` runs the doctor in a child process and hands back exactly what
`doctor.run` finds, in chunks (each a short hold of the caller's interpreter lock), or None once cancelled."""

from __future__ import annotations

from skilltui import doctor
from skilltui.model import Options


def _home(tmp_path, skills: int) -> Options:
    root = tmp_path / "home/.claude/skills"
    for i in range(skills):
        folder = root / f"tool-{i:04d}"
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(f"---\nname: tool-{i:04d}\ndescription: Tool {i}.\n---\nSee [ref](refs/{i}.md).\n")
    (tmp_path / "proj").mkdir()
    return Options(cwd=str(tmp_path / "proj"), home=str(tmp_path / "home"), managed_dir=str(tmp_path / "managed"),
                   env={"HOME": str(tmp_path / "home")})


def test_isolated_findings_equal_the_in_process_ones_across_chunks(tmp_path):
    opts = _home(tmp_path, doctor.CHUNK + 20)
    here = doctor.run(opts, ("claude",))
    assert sum(d.code == "skill-link-broken" for d in here) == doctor.CHUNK + 20  # more than one chunk
    there = doctor.run_isolated(opts, ("claude",), timeout=300)
    assert there is not None
    assert [d.to_json() for d in there] == [d.to_json() for d in here]


def test_isolated_run_stops_when_cancelled(tmp_path):
    opts = _home(tmp_path, 3)
    assert doctor.run_isolated(opts, ("claude",), cancelled=lambda: True, timeout=300) is None
