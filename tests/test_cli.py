"""The command line as a newcomer meets it (issue #14, CLI part): usage errors in one line, exit codes, lookups
with suggestions, JSON compact for pipes and indented for people, the same figures as the TUI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from skilltui import cli
from skilltui.demo import demo_options

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def demo(tmp_path, monkeypatch):
    monkeypatch.setenv("SKILLTUI_DEMO_DIR", str(tmp_path / "demo"))
    return demo_options("claude", dict(os.environ), reset=True)


def run(capsys, *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = cli.main(list(argv))
    out = capsys.readouterr()
    assert "Traceback" not in out.err and "internal error" not in out.err, out.err
    return code, out.out, out.err


# ---------------------------------------------------------------- no terminal
def test_no_command_without_a_terminal_says_so_and_exits_2(tmp_path):
    """`skilltui > out.txt < /dev/null` must not start the TUI: one line on stderr, nothing on stdout, exit 2."""
    out = tmp_path / "out.txt"
    with open(os.devnull) as devnull, open(out, "w") as fh:
        run_ = subprocess.run([sys.executable, "-m", "skilltui", "--home", str(tmp_path), "--cwd", str(tmp_path)],
                              stdin=devnull, stdout=fh, stderr=subprocess.PIPE, text=True, cwd=ROOT, timeout=120)
    assert run_.returncode == 2
    assert out.read_text() == ""
    lines = run_.stderr.splitlines()
    assert len(lines) == 1 and "terminal" in lines[0] and "skilltui list" in lines[0]
    assert "\x1b" not in run_.stderr


# ---------------------------------------------------------------- option values: one parser, one line, exit 2
@pytest.mark.parametrize("args", [
    ["--context-window", "0"], ["--context-window", "-5"], ["--context-window", "abc"], ["--context-window", "1.5m"],
    ["--context-window", "99999999999"], ["--fraction", "-1"], ["--fraction", "2"], ["--fraction", "inf"],
    ["--fraction", "nan"], ["--chars-per-token", "0"], ["--chars-per-token", "nan"], ["--budget", "-3"],
    ["--budget", "0"],
])
def test_bad_option_values_are_one_line_and_exit_2(demo, capsys, args):
    code, out, err = run(capsys, "--demo", "budget", *args)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1, err
    assert args[0] in err and err.startswith("skilltui budget: ")
    assert "invalid" not in err.lower() or "type" not in err  # not argparse's raw "invalid _type value"


@pytest.mark.parametrize("window,expected", [("200k", 200_000), ("1m", 1_000_000), ("1_000_000", 1_000_000),
                                             ("200000", 200_000)])
def test_windows_in_the_tuis_spellings(demo, capsys, window, expected):
    code, out, _ = run(capsys, "--demo", "budget", "--context-window", window, "--json")
    assert code == 0 and json.loads(out)["context_window"] == expected


def test_budget_accepts_a_suffix(demo, capsys):
    code, out, _ = run(capsys, "--demo", "budget", "--budget", "3k", "--json")
    assert code == 0 and json.loads(out)["budget"] == 3000


def test_usage_file_missing_or_broken_is_said(demo, capsys, tmp_path):
    code, _, err = run(capsys, "--demo", "budget", "--usage", str(tmp_path / "missing.json"))
    assert code == 1 and "--usage" in err and "no such file" in err
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    code, _, err = run(capsys, "--demo", "budget", "--usage", str(bad))
    assert code == 1 and "not valid JSON" in err and len(err.splitlines()) == 1
    bad.write_text("[1, 2]")
    code, _, err = run(capsys, "--demo", "budget", "--usage", str(bad))
    assert code == 1 and "not a JSON object" in err


def test_settings_flag_missing_or_broken_is_said(capsys, tmp_path):
    # Claude Code 2.1.332 (oracle): both stop with "Error: Settings file not found: <path>"
    base = ["--home", str(tmp_path), "--cwd", str(tmp_path)]
    code, out, err = run(capsys, *base, "--settings", str(tmp_path / "missing.json"), "list")
    assert code == 1 and out == "" and "settings file not found" in err
    code, out, err = run(capsys, *base, "--settings", "{bad json", "list")
    assert code == 1 and out == "" and "not valid JSON" in err and len(err.splitlines()) == 1
    code, out, _ = run(capsys, *base, "--settings", '{"skillOverrides": {}}', "list")
    assert code == 0


def test_demo_applies_the_flags_it_can_and_refuses_the_others(demo, capsys):
    """--demo brings its own home, project and managed folder: --settings must still apply (it was silently dropped),
    a broken one is said, and --home/--cwd/--managed-dir are refused rather than ignored."""
    code, out, _ = run(capsys, "--demo", "--settings", '{"skillOverrides": {"commit-helper": "off"}}', "list", "--json")
    assert code == 0 and "commit-helper" not in {s["name"] for s in json.loads(out)["skills"]}
    code, out, _ = run(capsys, "--demo", "list", "--json")
    assert code == 0 and "commit-helper" in {s["name"] for s in json.loads(out)["skills"]}
    code, out, err = run(capsys, "--demo", "--settings", "{bad json", "list")
    assert code == 1 and out == "" and "not valid JSON" in err
    for flag in ("--home", "--cwd", "--managed-dir"):
        code, out, err = run(capsys, "--demo", flag, str(demo.home), "list")
        assert code == 1 and out == "" and f"{flag} cannot be used with --demo" in err


# ---------------------------------------------------------------- help
def test_help_says_the_command_is_optional_and_opens_the_tui(capsys):
    code, out, _ = run(capsys, "--help")
    assert code == 0
    assert "[COMMAND" in out.splitlines()[0]
    assert "With no COMMAND, skilltui opens the TUI" in " ".join(out.split())


def test_version(capsys):
    code, out, _ = run(capsys, "--version")
    assert code == 0 and out.startswith("skilltui ")


def test_unknown_command_is_usage(capsys):
    code, _, err = run(capsys, "frobnicate")
    assert code == 2 and len(err.strip().splitlines()) == 1


# ---------------------------------------------------------------- show / plugin lookups
def test_show_by_display_name_and_label(demo, capsys):
    for wanted in ("pdf", "pdf-tools (pdf)", "pdf-tools"):
        code, out, _ = run(capsys, "--demo", "show", wanted, "--json")
        assert code == 0 and json.loads(out)["name"] == "pdf-tools", wanted


def test_show_a_shipped_entry(demo, capsys):
    code, out, _ = run(capsys, "--demo", "list", "--json")
    shipped = [s["name"] for s in json.loads(out)["skills"] if s["shipped"]]
    assert shipped
    code, out, _ = run(capsys, "--demo", "show", shipped[0])
    assert code == 0 and "shipped inside the runtime" in out
    code, out, _ = run(capsys, "--demo", "show", shipped[0], "--json")
    assert code == 0 and json.loads(out)["shipped"] is True and json.loads(out)["path"] == ""


def test_show_suggests_the_closest_names(demo, capsys):
    code, out, err = run(capsys, "--demo", "show", "pdf-tool")
    assert code == 1 and out == ""
    assert "did you mean" in err and "pdf-tools" in err and len(err.splitlines()) == 1


def test_plugin_by_bare_name_suggests_the_id(demo, capsys):
    code, _, err = run(capsys, "--demo", "plugin", "enable", "linter")
    assert code == 1 and "did you mean linter@demo-market?" in err


def test_skill_set_unknown_suggests(demo, capsys):
    code, _, err = run(capsys, "--demo", "skill", "set", "comit-helper", "off")
    assert code == 1 and "did you mean commit-helper" in err


def test_skill_set_json_has_no_plugin_keys(demo, capsys):
    code, out, _ = run(capsys, "--demo", "skill", "set", "commit-helper", "off", "--json")
    data = json.loads(out)
    assert code == 0 and data["skill"] == "commit-helper"
    assert "plugin" not in data and "pluginId" not in data


def test_plugins_wording_of_a_default(demo, capsys):
    code, out, _ = run(capsys, "--demo", "plugins")
    assert code == 0 and "decided by default: default" not in out and "(by default)" in out


# ---------------------------------------------------------------- JSON: compact for pipes, --pretty to indent
def test_json_is_compact_unless_pretty(demo, capsys):
    _, compact, _ = run(capsys, "--demo", "list", "--json")
    _, pretty, _ = run(capsys, "--demo", "list", "--json", "--pretty")
    assert compact.count("\n") == 1 and ", " not in compact.split('"description"')[0]
    assert pretty.count("\n") > 10 and pretty.startswith("{\n  ")
    assert json.loads(compact) == json.loads(pretty)


def test_list_json_has_no_internal_keys(demo, capsys):
    """Skill.facts (e.g. the machine-specific file_id) never reaches the JSON: exactly the documented keys."""
    _, out, _ = run(capsys, "--demo", "list", "--all", "--json")
    documented = {"name", "label", "description", "when_to_use", "source", "root", "path", "plugin", "status",
                  "reason", "shadowed_by", "order", "shipped"}
    optional = {"display_name", "override", "paths"}
    for s in json.loads(out)["skills"]:
        assert documented <= set(s) <= documented | optional, set(s) ^ documented
        assert "file_id" not in s


# ---------------------------------------------------------------- one shipped figure for the CLI and the TUI bar
def test_cli_prints_the_bars_figures(demo, capsys):
    from skilltui import budget
    from skilltui.tui.widgets.budget_bar import split

    for extra in ([], ["--budget", "3000"]):
        code, out, _ = run(capsys, "--demo", "budget", *extra)
        view = budget.run(demo, budget=int(extra[1]) if extra else None)
        shipped, full, bare = split(view.result)
        assert f"shipped {shipped:,}," in out and f"full {full:,}," in out and f"name-only {bare:,};" in out
        code, out, _ = run(capsys, "--demo", "budget", *extra, "--json")
        cols = json.loads(out)["columns"]
        assert (cols["shipped"], cols["full"], cols["name_only"]) == (shipped, full, bare)
        assert cols["used"] == shipped + full + bare


# ---------------------------------------------------------------- repository
def test_license_is_mit_and_declared():
    import tomllib

    assert (ROOT / "LICENSE").read_text().startswith("MIT License")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert project["project"]["license"] == "MIT" and project["project"]["license-files"] == ["LICENSE"]
    requires = project["build-system"]["requires"]
    assert any(r.replace(" ", "").startswith("setuptools>=") and int(r.split(">=")[1].split(".")[0]) >= 77
               for r in requires)  # license expressions need setuptools 77


# ---------------------------------------------------------------- import diet (issue 15)
def test_a_plain_list_run_loads_neither_pyyaml_nor_the_icu_tables(tmp_path):
    """Simple frontmatter is decided by the fast path and ASCII text needs no ICU-derived class: a `list --json` run
    on such a tree never imports PyYAML nor builds the tables (both cost tens of milliseconds per process)."""
    skills = tmp_path / "home" / ".claude" / "skills"
    for name in ("alpha", "beta"):
        (skills / name).mkdir(parents=True)
        (skills / name / "SKILL.md").write_text(f"---\nname: {name}\ndescription: Does {name} things.\n---\nBody\n")
    (tmp_path / "repo").mkdir()
    probe = ("import sys, io, contextlib, json\nfrom skilltui import cli\nimport skilltui.text as text\n"
             "buf = io.StringIO()\nwith contextlib.redirect_stdout(buf):\n"
             f"    code = cli.main(['--home', {str(tmp_path / 'home')!r}, '--cwd', {str(tmp_path / 'repo')!r}, "
             f"'--managed-dir', {str(tmp_path / 'managed')!r}, 'list', '--json'])\n"
             "print(code, 'yaml' in sys.modules, text._t.cache_info().currsize, json.loads(buf.getvalue())['skills'][0]['name'])\n")
    run_ = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, timeout=120,
                          env=dict(os.environ, HOME=str(tmp_path / "home")))
    assert run_.stdout.split() == ["0", "False", "0", "alpha"], run_.stdout + run_.stderr


def test_the_full_yaml_parser_still_loads_when_needed():
    from skilltui.frontmatter import load_yaml12

    assert load_yaml12("a: [1, 2]\nb: yes\nc: 0x10\nd: .inf\n") == {"a": [1, 2], "b": "yes", "c": 16, "d": float("inf")}


@pytest.mark.skipif(not hasattr(__import__("fcntl"), "F_GETPIPE_SZ"), reason="pipe capacity is Linux's")
def test_a_big_answer_widens_a_pipe_and_nothing_else(tmp_path):
    """`list --json` of thousands of skills (12 MB at 20,000) into a pipe: its capacity is raised to 1 MiB, so the
    reader is woken a few times rather than every 64 KiB. A file, or a pipe the system will not widen, is left as
    it is, without a word."""
    import fcntl

    try:
        if int(Path("/proc/sys/fs/pipe-max-size").read_text()) < 1 << 20:
            pytest.skip("this system caps pipes below 1 MiB")
    except (OSError, ValueError):
        pass
    r, w = os.pipe()
    try:
        with os.fdopen(w, "w", closefd=False) as out:
            before = fcntl.fcntl(w, fcntl.F_GETPIPE_SZ)
            cli._widen_pipe(out)
            assert before < 1 << 20 <= fcntl.fcntl(w, fcntl.F_GETPIPE_SZ)
    finally:
        os.close(r)
        os.close(w)
    with open(tmp_path / "out.json", "w") as f:
        cli._widen_pipe(f)  # a regular file: nothing to do, nothing raised
        f.write("{}")
    assert (tmp_path / "out.json").read_text() == "{}"


def test_a_leaving_process_keeps_what_it_would_free_and_no_other_does(monkeypatch, tmp_path):
    """`cli.run()` ends the process right after the command: what the command would free object by object just
    before (the catalog, discovery's look-ahead records) is kept instead. Until then (the TUI, a library caller)
    nothing is kept and everything is freed as usual."""
    import gc
    import weakref

    from skilltui import leaving
    from skilltui.model import Options
    from skilltui.runtimes import discover

    monkeypatch.setattr(leaving, "_kept", None)  # restored after the test: this process goes on

    class Box:
        pass

    early, late, freed = Box(), Box(), []
    weakref.finalize(early, freed.append, "early")
    weakref.finalize(late, freed.append, "late")
    leaving.keep(early)
    del early
    assert freed == ["early"] and not leaving.active()
    skill = tmp_path / "home" / ".claude" / "skills" / "pdf"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: pdf\ndescription: PDFs\n---\n")
    opts = Options(cwd=str(tmp_path), home=str(tmp_path / "home"), managed_dir=str(tmp_path / "managed"),
                   env={"HOME": str(tmp_path / "home")})
    discover(opts)
    args = ["--cwd", str(tmp_path), "--home", str(tmp_path / "home"), "--managed-dir", str(tmp_path / "managed"),
            "list", "--json", "--no-cache"]
    assert cli.main(args) == 0 and leaving._kept is None  # main() called in a process that goes on

    try:
        assert cli.main(args, ends_after=True) == 0 and leaving.active()  # as run() calls it
    finally:
        gc.enable()  # the program leaves the collector paused too (it ends): this process goes on
    leaving._kept = []
    leaving.keep(late)
    del late
    assert freed == ["early"] and leaving.active()
    discover(opts)  # its temporaries are handed over, not freed
    assert len(leaving._kept or []) == 2
