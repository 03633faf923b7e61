"""Issue #17 (hardening, round two): nothing outside the target, nothing lost, nothing hangs; and issue #14's private
demo folder. One section per numbered item; each test failed before the fix it names.

Commands that could hang or eat memory run in a child process with a timeout and a 1 GiB address-space limit, so a
regression fails the test instead of hanging or killing the suite. Special files (devices) are private copies made with
mknod in tmp_path; the real /dev is never touched.
"""

from __future__ import annotations

import json
import os
import re
import resource
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from treelib import TRACEBACK, Link, World, md

from skilltui import settings_writer
from skilltui.frontmatter import YamlError, load_yaml12, parse_claude
from skilltui.settings_writer import SettingsWriteError, set_member
from skilltui.text import safe

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"
U = "home/.claude/skills"
USER_SETTINGS = "home/.claude/settings.json"
LOCAL_SETTINGS = "home/proj/.claude/settings.local.json"
PLUGINS = "home/.claude/plugins"
ONE_GIB = 1 << 30
ESC = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


@pytest.fixture
def w(tmp_path, monkeypatch, capsys) -> World:
    return World(tmp_path, monkeypatch, capsys).write({f"{U}/good/SKILL.md": md("good one")})


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ONE_GIB, ONE_GIB))


def child(args: list[str], *, timeout: float = 120, env: dict | None = None, w: World | None = None,
          cli: bool = True) -> subprocess.CompletedProcess:
    """`python -m skilltui ARGS` (or `python -c ARGS[0]` when not cli) in a child limited to 1 GiB; fails the test
    when it does not finish within `timeout` seconds (it is killed)."""
    argv = [sys.executable, "-m", "skilltui", *args] if cli else [sys.executable, "-c", *args]
    if cli and w is not None:
        argv += ["--cwd", str(w.cwd), "--home", str(w.home), "--managed-dir", str(w.managed)]
    base = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": str(ROOT),
            "HOME": str(w.home) if w else os.environ.get("HOME", "/")}
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, cwd=ROOT, env={**base, **(env or {})},
                              preexec_fn=_limit_memory)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{' '.join(args)[:200]} did not finish within {timeout} s (hang?)")
    assert not TRACEBACK.search(done.stderr), done.stderr[-2000:]
    assert "MemoryError" not in done.stderr
    return done


def _device(path: Path, major: int, minor: int) -> None:
    """A private character-device node (a copy of /dev/null or /dev/zero) in tmp_path; skip where mknod is refused."""
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(major, minor))
    except (PermissionError, OSError) as exc:
        pytest.skip(f"cannot make a device node here: {exc}")
    try:
        os.close(os.open(path, os.O_RDONLY | os.O_NONBLOCK))
    except OSError as exc:  # a nodev mount: the node exists but cannot be opened
        pytest.skip(f"device nodes cannot be opened here: {exc}")


def _kind(path: Path) -> str:
    mode = os.lstat(path).st_mode
    return next(k for k, f in (("chr", stat.S_ISCHR), ("fifo", stat.S_ISFIFO), ("sock", stat.S_ISSOCK),
                               ("dir", stat.S_ISDIR), ("reg", stat.S_ISREG)) if f(mode))


# ================================================================ 1. a file outside the target is replaced
def _special(tmp_path: Path, kind: str) -> tuple[Path, socket.socket | None]:
    node, sock = tmp_path / f"node-{kind}", None
    if kind == "chr":
        _device(node, 1, 3)  # a /dev/null copy
    elif kind == "fifo":
        os.mkfifo(node)
    elif kind == "sock":
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(str(node))
    else:
        node.mkdir()
    return node, sock


@pytest.mark.parametrize("kind", ["chr", "fifo", "sock", "dir"])
def test_writer_only_replaces_a_regular_file(tmp_path, kind):
    """settings.json → a device, FIFO, socket or folder: refused by fstat on what was opened; the node stays."""
    node, sock = _special(tmp_path, kind)
    link = tmp_path / "claude" / "settings.json"
    link.parent.mkdir()
    link.symlink_to(node)
    code = ("import sys; from skilltui import settings_writer as s\n"
            "for f in (s.preview, s.set_member):\n"
            "    try:\n        f(sys.argv[1], ('enabledPlugins', 'a@m'), True); print('WROTE')\n"
            "    except s.SettingsWriteError as e:\n        print('REFUSED', e)\n")
    done = child([code, str(link)], cli=False, timeout=60)
    if sock:
        sock.close()
    assert done.stdout.count("REFUSED") == 2 and "WROTE" not in done.stdout, done.stdout
    assert _kind(node) == kind
    assert os.path.islink(link)


def test_plugin_enable_does_not_replace_a_device(w):
    _demo_plugin(w)
    _device(w.p("null"), 1, 3)
    w.write({USER_SETTINGS: Link(str(w.p("null")))})
    done = child(["plugin", "enable", "demo@m"], w=w)
    assert done.returncode == 1 and "is a device, not a regular file" in done.stderr
    assert _kind(w.p("null")) == "chr"


# ================================================================ 2. parallel writers lose updates
STRESS_WORKER = """
import sys, json
from skilltui import settings_writer as s
path, me, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
for i in range(n):
    key = f"{me}-{i}@m"
    try:
        s.set_member(path, ("enabledPlugins", key), i % 2 == 0)
        print("OK", key, i % 2 == 0, flush=True)
    except s.SettingsWriteError as e:
        print("REFUSED", key, e, flush=True)
"""

OUTSIDE_WORKER = """
import sys, json, os, fcntl, time
path, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    # Another program that honours the lock (a flock on the settings folder) rewrites the whole file in its own style.
    fd = os.open(os.path.dirname(path), os.O_RDONLY | os.O_DIRECTORY)
    fcntl.flock(fd, fcntl.LOCK_EX)
    with open(path) as fh:
        data = json.load(fh)
    data[f"outside-{i}"] = i
    tmp = path + ".outside"
    with open(tmp, "w") as fh:
        json.dump(data, fh, indent=4)
    os.replace(tmp, path)
    os.close(fd)
    print("OK", i, flush=True)
    time.sleep(0.01)
"""


def test_parallel_writers_lose_nothing(tmp_path):
    """N processes × M toggles plus an outside rewriter: every reported success is in the final file, and no
    outside edit is undone."""
    path = tmp_path / "settings.json"
    path.write_text('{\n  "enabledPlugins": {\n    "seed@m": true\n  }\n}\n')
    procs, m = 5, 12
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": str(ROOT)}
    workers = [subprocess.Popen([sys.executable, "-c", STRESS_WORKER, str(path), f"p{k}", str(m)], cwd=ROOT, env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for k in range(procs)]
    outside = subprocess.Popen([sys.executable, "-c", OUTSIDE_WORKER, str(path), "10"], cwd=ROOT, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    results = []
    for p in [*workers, outside]:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
        results.append(out)
    final = json.loads(path.read_text())
    successes = [line.split() for out in results[:-1] for line in out.splitlines() if line.startswith("OK")]
    assert len(successes) >= procs * m * 0.9, results  # refusals are allowed, but rare (a 20 s lock wait)
    for _, key, value in successes:
        assert final["enabledPlugins"].get(key) == (value == "True"), f"{key} lost"
    assert final["enabledPlugins"]["seed@m"] is True
    assert all(final.get(f"outside-{i}") == i for i in range(10)), "an outside edit was undone"
    assert not list(tmp_path.glob(".settings.json.*.tmp"))


# ================================================================ 3. hangs: FIFOs everywhere skilltui reads
FIFO_CASES = {
    "user-settings/enable": (USER_SETTINGS, ["plugin", "enable", "demo@m"]),
    "user-settings/list": (USER_SETTINGS, ["list", "--json"]),
    "local-settings/skill-set": (LOCAL_SETTINGS, ["skill", "set", "good", "off"]),
    "global-config/budget": ("home/.claude.json", ["budget", "--json"]),
    "usage-file": ("usage-fifo", ["budget", "--json", "--usage", "{usage}"]),
    "plugin-json/doctor": (f"{PLUGINS}/cache/m/demo/1.0.0/.claude-plugin/plugin.json", ["doctor", "--json"]),
    "referenced-file/show": (f"{U}/good/notes.md", ["show", "good", "--json"]),
}


def _demo_plugin(w: World) -> Path:
    root = w.p(f"{PLUGINS}/cache/m/demo/1.0.0")
    w.write({
        f"{PLUGINS}/cache/m/demo/1.0.0/skills/s/SKILL.md": md("plugin skill"),
        f"{PLUGINS}/installed_plugins.json": {"version": 2, "plugins": {"demo@m": [{
            "scope": "user", "installPath": str(root), "version": "1.0.0",
            "installedAt": "2025-01-01T00:00:00.000Z", "lastUpdated": "2025-01-01T00:00:00.000Z"}]}},
        f"{PLUGINS}/known_marketplaces.json": {"m": {"source": {"source": "github", "repo": "o/r"}, "installLocation": "/x"}},
    })
    return root


@pytest.mark.parametrize("case", list(FIFO_CASES))
def test_fifo_never_hangs(w, case):
    place, args = FIFO_CASES[case]
    _demo_plugin(w)
    w.write({f"{U}/good/SKILL.md": md("good one", body="See [notes](notes.md).\n")})
    fifo = w.p(place)
    fifo.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(fifo)
    done = child([a.replace("{usage}", str(fifo)) for a in args], w=w, timeout=120)
    assert done.returncode in (0, 1), done.stderr
    if "settings" in case and args[0] in ("plugin", "skill"):
        assert done.returncode == 1 and "named pipe" in done.stderr
    assert _kind(fifo) == "fifo"


# ================================================================ 4. unbounded reads and the settings cap
@pytest.mark.parametrize("place,args", [
    (USER_SETTINGS, ["list", "--json"]),
    (USER_SETTINGS, ["plugin", "enable", "demo@m"]),
    ("home/.claude.json", ["budget", "--json"]),
    ("zero-usage", ["budget", "--json", "--usage", "{zero}"]),
])
def test_zero_device_is_not_read_without_end(w, place, args):
    _demo_plugin(w)
    zero = w.p("zero")
    _device(zero, 1, 5)  # a /dev/zero copy
    if place != "zero-usage":
        w.write({place: Link(str(zero))})
    done = child([a.replace("{zero}", str(zero)) for a in args], w=w)
    assert done.returncode in (0, 1)
    if args[0] == "plugin":
        assert done.returncode == 1 and "device" in done.stderr
    assert _kind(zero) == "chr"


def _padded(size: int, overrides: dict) -> str:
    head = '{"skillOverrides": ' + json.dumps(overrides) + ', "pad": "'
    return head + "x" * (size - len(head) - 2) + '"}'


CAP = 2 * 1024 * 1024  # observed with the oracle: Claude Code reads 2,097,152 bytes of settings, not one more


def test_settings_cap_matches_claude_code(w):
    """Replays tests/fixtures/settings-cap/oracle.json: at exactly the cap the file is read (the override applies);
    one byte more, or 2.2 MB of 2-byte characters (fewer characters than the cap), and it is ignored, with a note."""
    recorded = json.loads((FIXTURES / "settings-cap" / "oracle.json").read_text())
    w.write({f"{U}/foo/SKILL.md": md("foo skill")})
    for name, case in recorded.items():
        ch = "é" if name.startswith("2-byte") else "x"
        head = '{"skillOverrides": {"foo": "off"}, "pad": "'
        text = head + ch * ((case["bytes"] - len(head) - 2) // len(ch.encode())) + '"}'
        assert len(text.encode()) == case["bytes"]
        w.write({USER_SETTINGS: text})
        assert ("foo" not in w.names()) is case["settings_read"], name
        noted = any("larger than 2,097,152 bytes" in d["message"] for d in w.diags())
        assert noted is not case["settings_read"], name


def test_oversized_settings_treated_alike_reading_and_writing(w):
    _demo_plugin(w)
    text = _padded(CAP + 1, {})
    w.write({USER_SETTINGS: text})
    for action in ("enable", "disable"):
        code, out, err = w.run("plugin", action, "demo@m", check=False)
        assert code == 1 and "larger than 2,097,152 bytes" in err, (action, err)
    assert w.p(USER_SETTINGS).read_text() == text
    with pytest.raises(SettingsWriteError, match="larger than"):
        set_member(w.p(USER_SETTINGS), ("enabledPlugins", "demo@m"), True)


# ================================================================ 5. a wide YAML alias bomb
def _wide_bomb(items: int = 19_000, refs: int = 2_000, extra: str = "") -> str:
    lines = ["description: wide bomb", "a: &a [" + ",".join("x" for _ in range(items)) + "]"]
    lines += [f"k{i}: *a" for i in range(refs)]
    return "---\n" + "\n".join(lines) + extra + "\n---\nbody\n"


def test_wide_alias_bomb_budget_counts_per_file():
    fm = parse_claude(_wide_bomb())
    assert fm.status == "ok" and fm.data["description"] == "wide bomb"
    assert len(json.dumps(fm.data)) < 1_000_000  # was 190 MB: 2,000 values each under the budget
    assert fm.data["a"] == ["x"] * 19_000  # the first use fits the file's budget
    with pytest.raises(YamlError, match="more than"):  # the strict path (retry, delivery, omp) refuses it whole
        load_yaml12(_wide_bomb().split("---\n")[1])


def test_wide_alias_bomb_through_the_quoting_retry():
    """A block that needs the quoting retry: the retry parses without defusing and must refuse, not expand."""
    fm = parse_claude(_wide_bomb(extra="\nnote: a: b"))
    assert fm.status in ("invalid", "retried")
    assert len(json.dumps(fm.data)) < 1_000_000


def test_wide_alias_bomb_every_command(w):
    w.write({f"{U}/bomb/SKILL.md": _wide_bomb()})
    for args in (["show", "bomb", "--json"], ["list", "--all", "--json"], ["doctor", "--json"]):
        done = child(args, w=w, timeout=180)
        assert done.returncode in (0, 1)
        assert len(done.stdout) < 2_000_000, (args, len(done.stdout))


# ================================================================ 6. writes through links a cloned repository ships
def test_project_link_out_of_the_project_is_refused_unless_confirmed(w):
    outside = w.p("elsewhere")
    outside.mkdir()
    w.write({"home/proj/.claude": Link(str(outside))})
    code, out, err = w.run("skill", "set", "good", "off", check=False)
    assert code == 1 and "outside the project" in err and str(outside) in err
    assert list(outside.iterdir()) == []
    code, out, err = w.run("skill", "set", "good", "off", "--json", check=False)
    assert json.loads(out)["failureCode"] == "target_outside_project"
    assert json.loads(out)["realFile"] == str(outside / "settings.local.json")
    w.run("skill", "set", "good", "off", "--follow-links")
    assert json.loads((outside / "settings.local.json").read_text()) == {"skillOverrides": {"good": "off"}}


def test_project_file_link_out_of_the_project_is_refused(w):
    _demo_plugin(w)
    target = w.p("dotfiles/project.json")
    w.write({"dotfiles/project.json": "{}\n", "home/proj/.claude/settings.json": Link(str(target))})
    code, out, err = w.run("plugin", "enable", "demo@m", "--scope", "project", check=False)
    assert code == 1 and "outside the project" in err
    assert target.read_text() == "{}\n"


def test_user_scope_link_keeps_working(w):
    target = w.p("dotfiles/settings.json")
    w.write({"dotfiles/settings.json": "{}\n", USER_SETTINGS: Link(str(target))})
    w.run("skill", "set", "good", "off", "--scope", "user")
    assert json.loads(target.read_text()) == {"skillOverrides": {"good": "off"}}
    assert os.path.islink(w.p(USER_SETTINGS))


def test_preview_exposes_the_real_target(tmp_path):
    outside, proj = tmp_path / "out", tmp_path / "proj"
    outside.mkdir()
    proj.mkdir()
    (proj / ".claude").symlink_to(outside)
    change = settings_writer.preview(proj / ".claude" / "settings.json", ("a", "b"), True, within=proj)
    assert change.outside and change.target == str(outside / "settings.json")
    assert not settings_writer.preview(proj / "x.json", ("a", "b"), True, within=proj).outside


# ================================================================ 7. crashes on valid input: big numbers, NUL
def _numbers(w: World) -> dict:
    sys.path.insert(0, str(FIXTURES / "numbers"))
    try:
        from tree import build
    finally:
        sys.path.pop(0)
    build(w.root)
    return json.loads((FIXTURES / "numbers" / "oracle.json").read_text())


def test_big_numbers_and_nul_install_path_match_the_oracle(w):
    shutil.rmtree(w.user_skills)
    recorded = _numbers(w)
    cwd = w.root / "repo"
    code, out, err = w.run("budget", "--text", "--budget", "10000000", cwd=cwd)
    mine = [line for line in out.split("\n") if line.startswith("- ")][: len(recorded["entries"])]
    assert mine == recorded["entries"]
    plugins = {p["id"]: p for p in w.json("plugins", "--json", cwd=cwd)}
    assert plugins["nul@m"]["enabled"] is recorded["plugins"]["nul@m"]["enabled"] is True
    assert plugins["nul@m"]["loads"] is False  # the oracle loads no skill from it ("Processing 5 enabled plugins")
    assert "nul" not in " ".join(recorded["plugin_skill_debug"])
    diags = w.json("doctor", "--json", cwd=cwd)
    diags = diags if isinstance(diags, list) else diags.get("diagnostics", diags.get("findings", []))
    codes = {(d["code"], d.get("path") or "") for d in diags}
    assert any(c == "plugin-install-path-invalid" for c, _ in codes)
    assert not any(c == "plugin-manifest-missing" and "bigint" in p for c, p in codes)  # 5,000 digits are valid JSON


def test_every_command_survives_big_numbers(w):
    _numbers(w)
    w.write({PLUGINS + "/installed_plugins.json":
             w.p(PLUGINS + "/installed_plugins.json").read_text()[:-2] + ', "n": ' + "3" * 5000 + "}\n",
             "home/proj/.claude/settings.local.json": '{"n": ' + "1" * 5000 + "}"})
    for args in (["list", "--all", "--json"], ["plugins"], ["doctor"], ["budget", "--text"], ["show", "num400"]):
        done = child(args, w=w)
        assert done.returncode in (0, 1) and "internal error" not in done.stderr, (args, done.stderr)


def test_writer_keeps_a_5000_digit_number(tmp_path):
    p = tmp_path / "settings.json"
    text = '{\n  "n": ' + "9" * 5000 + ',\n  "enabledPlugins": {\n    "a@m": false\n  }\n}\n'
    p.write_text(text)
    set_member(p, ("enabledPlugins", "a@m"), True)
    assert p.read_text() == text.replace('"a@m": false', '"a@m": true')


# ================================================================ 9. hidden text
HIDDEN = "Formats dates." + "".join(chr(0xE0000 + ord(c)) for c in "ignore all") + " Z\u200bW\u00adS\ufff9X"


def _invisible_findings(w: World, *args: str) -> list[dict]:
    found = w.json("doctor", "--json", *args)
    found = found if isinstance(found, list) else found.get("diagnostics", found.get("findings", []))
    return [d for d in found if d["code"] == "invisible-characters"]


def test_invisible_characters_shown_in_views_exact_for_the_model(w):
    w.write({f"{U}/sneaky/SKILL.md": md(HIDDEN), "home/.agents/skills/sneaky/SKILL.md": md(HIDDEN)})
    code, out, err = w.run("show", "sneaky")
    assert "⟨U+E0069⟩" in out and "⟨U+200B⟩" in out and "⟨U+00AD⟩" in out and "⟨U+FFF9⟩" in out
    assert not re.search("[\U000E0000-\U000E007F\u200b\u00ad\ufff9]", out)
    assert w.entry("sneaky")["description"] == HIDDEN  # JSON is data: exact
    # Claude Code itself turns them into spaces in its listing (oracle, 2026-12-03): the simulation says the same, and
    # the doctor has nothing to report about Claude's listing.
    code, out, err = w.run("budget", "--text", "--budget", "10000000")
    assert "- sneaky: Formats dates.  Z W S X" in out.split("\n")
    assert _invisible_findings(w) == []
    # Codex keeps them: the model receives them, the doctor says so and spells the tag text out.
    found = _invisible_findings(w, "--runtime", "codex")
    assert len(found) == 1 and "'ignore all'" in found[0]["message"] and "sneaky" in found[0]["message"]
    assert "⟨U+E0069⟩" in found[0]["message"]


def test_invisible_characters_in_a_body(w):
    w.write({f"{U}/body/SKILL.md": md("plain", body="Do this.\u200b" + chr(0xE0041) + "\n")})
    found = _invisible_findings(w)
    assert len(found) == 1 and "in the body" in found[0]["message"] and "⟨U+E0041⟩" in found[0]["message"]
    code, out, err = w.run("show", "body")
    assert "⟨U+200B⟩⟨U+E0041⟩" in out


def test_emoji_joiners_and_flags_are_not_hidden_text():
    text = "👩\u200d💻 🏴\U000E0067\U000E0062\U000E0065\U000E006E\U000E0067\U000E007F"
    assert safe(text) == text
    assert safe("a\u200db") == "a⟨U+200D⟩b"


# ================================================================ 10. small ones
def test_skill_set_never_echoes_control_codes(w):
    evil = "x\x1b]52;c;aGVsbG8=\x07y"
    w.write({f"{U}/{evil}/SKILL.md": md("evil")})
    for args in (["skill", "set", evil, "off"], ["skill", "set", evil, "on", "--scope", "user"]):
        code, out, err = w.run(*args, check=False)
        assert not ESC.search(out.replace("\n", "")) and not ESC.search(err.replace("\n", "")), (out, err)


def test_stale_temp_files_of_our_pattern_are_removed(tmp_path):
    p = tmp_path / "settings.json"
    p.write_text("{}\n")
    stale = [tmp_path / ".settings.json.0123abcd.tmp", tmp_path / ".settings.json.deadbeef.tmp"]
    kept = [tmp_path / ".settings.json.backup", tmp_path / ".other.json.0123abcd.tmp", tmp_path / ".settings.json.XYZ.tmp"]
    for f in stale + kept:
        f.write_text("x" * 1000)
    set_member(p, ("enabledPlugins", "a@m"), True)
    assert [f.exists() for f in stale] == [False, False]
    assert all(f.exists() for f in kept)


@pytest.mark.skipif(not shutil.which("strace"), reason="needs strace for fault injection")
def test_failed_folder_fsync_is_an_error(tmp_path):
    p = tmp_path / "settings.json"
    p.write_text("{}\n")
    code = ("import sys; from skilltui import settings_writer as s\n"
            "try:\n    s.set_member(sys.argv[1], ('enabledPlugins', 'a@m'), True); print('SUCCESS')\n"
            "except s.SettingsWriteError as e:\n    print('ERROR', e)\n")
    argv = ["strace", "-f", "-qq", "-o", os.devnull, "-e", "trace=fsync", "-e", "inject=fsync:error=EIO:when=2",
            sys.executable, "-c", code, str(p)]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=120, cwd=ROOT,
                              env={"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(ROOT)})
    except subprocess.TimeoutExpired:
        pytest.fail("strace run did not finish")
    if "PTRACE" in done.stderr or "Operation not permitted" in done.stderr:
        pytest.skip("ptrace not permitted here")
    assert "ERROR" in done.stdout and "could not be synced" in done.stdout, done.stdout + done.stderr
    assert "SUCCESS" not in done.stdout


def test_commands_walk_is_capped_and_says_so(w, monkeypatch):
    from skilltui.runtimes.claude import plugins

    monkeypatch.setattr(plugins, "MAX_WALK_DIRS", 40)
    for i in range(60):
        (w.p(f"big/d{i:02}")).mkdir(parents=True)
    w.write({"home/.claude/commands/x": Link(str(w.p("big")))})
    capped = w.diags("claude-walk-capped")
    assert len(capped) == 1 and "stopped after 40 folders" in capped[0]["message"]


def test_commands_link_to_root_does_not_walk_the_file_system(w):
    w.write({"home/.claude/commands/x": Link("/")})
    done = child(["list", "--all", "--json"], w=w, timeout=300)
    data = json.loads(done.stdout)
    assert any(d["code"] == "claude-walk-capped" for d in data["diagnostics"])
    assert "good" in [s["name"] for s in data["skills"]]


# ================================================================ issue #14: the private demo folder
def _demo_base(tmp_path, monkeypatch) -> Path:
    monkeypatch.delenv("SKILLTUI_DEMO_DIR", raising=False)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    return tmp_path / f"skilltui-demo-{os.getuid()}"


def test_demo_folder_is_private(tmp_path, monkeypatch):
    from skilltui.demo import demo_dir

    base = _demo_base(tmp_path, monkeypatch)
    dest = demo_dir({})
    assert dest == str(base / "tree")
    assert stat.S_IMODE(os.lstat(base).st_mode) == 0o700 and os.lstat(base).st_uid == os.getuid()


@pytest.mark.parametrize("trap", ["link", "open-mode", "other-owner"])
def test_demo_folder_planted_by_another_user_is_not_used(tmp_path, monkeypatch, capsys, trap):
    from skilltui.demo import demo_options

    base = _demo_base(tmp_path, monkeypatch)
    attacker = tmp_path / "attacker"
    attacker.mkdir()
    if trap == "link":
        base.symlink_to(attacker)
    else:
        base.mkdir(mode=0o700)
        if trap == "open-mode":
            os.chmod(base, 0o777)
        else:
            if os.getuid() != 0:
                pytest.skip("chown to another user needs root")
            os.chown(base, 65534, 65534)
    opts = demo_options("claude", {})
    assert not opts.home.startswith(str(base) + os.sep) and not opts.home.startswith(str(attacker))
    assert list(attacker.iterdir()) == []
    assert "using a fresh demo copy" in capsys.readouterr().err


def test_the_fresh_demo_copy_is_removed_when_the_process_ends(tmp_path):
    base = tmp_path / f"skilltui-demo-{os.getuid()}"
    base.mkdir(mode=0o700)
    os.chmod(base, 0o755)  # open to others: not used
    env = {k: v for k, v in os.environ.items() if k != "SKILLTUI_DEMO_DIR"} | {"TMPDIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "skilltui", "--demo", "list", "--json"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and "using a fresh demo copy" in done.stderr
    assert json.loads(done.stdout)["skills"]
    assert sorted(p.name for p in tmp_path.iterdir()) == [base.name]


def test_demo_reset_starts_again(tmp_path, monkeypatch, capsys):
    from skilltui import cli

    _demo_base(tmp_path, monkeypatch)
    assert cli.main(["--demo", "plugin", "disable", "linter@demo-market", "--scope", "project"]) == 0
    capsys.readouterr()
    cli.main(["--demo", "plugins", "--json"])
    assert next(p for p in json.loads(capsys.readouterr().out) if p["id"] == "linter@demo-market")["enabled"] is False
    cli.main(["--demo-reset", "plugins", "--json"])
    assert next(p for p in json.loads(capsys.readouterr().out) if p["id"] == "linter@demo-market")["enabled"] is True


# ================================================================ 6 (TUI): the toggle dialog shows the real target
@pytest.mark.slow  # drives the app
def test_toggle_dialog_shows_a_real_target_outside_the_project(tmp_path):
    import asyncio

    from skilltui.demo import demo_options
    from skilltui.tui.app import SkilltuiApp
    from skilltui.tui.screens.toggle import ToggleRequest, ToggleScreen

    opts = demo_options("claude", {"SKILLTUI_DEMO_DIR": str(tmp_path / "demo")}, reset=True)
    outside = tmp_path / "outside.json"
    outside.write_text("{}\n")
    local = Path(opts.home).parent / "project" / ".claude" / "settings.local.json"
    if local.exists():
        local.unlink()
    local.symlink_to(outside)

    async def settle(app, pilot):
        for _ in range(3):
            await app.workers.wait_for_complete()
            await pilot.pause()

    async def scenario():
        app = SkilltuiApp(opts, poll=False)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(app, pilot)
            app.request_toggle(ToggleRequest("override", "commit-helper", "off"))
            await settle(app, pilot)
            dialog = app.screen
            assert isinstance(dialog, ToggleScreen)
            await pilot.press("l")
            await settle(app, pilot)
            assert dialog.outcome.ok and dialog.outcome.change.outside
            shown = str(dialog.query_one("#toggle-change").render())
            assert "outside the project" in shown and str(outside) in shown
            assert outside.read_text() == "{}\n"  # nothing written before Write
            await pilot.press("w")
            await settle(app, pilot)
            assert not isinstance(app.screen, ToggleScreen)

    asyncio.run(asyncio.wait_for(scenario(), 240))
    assert json.loads(outside.read_text()) == {"skillOverrides": {"commit-helper": "off"}}
    assert local.is_symlink()


# ================================================================ 3/4: one reader, everywhere
READS = re.compile(r"(?<![\w.])open\(|\bjson\.load\(|\.read_text\(|\.read_bytes\(")
# Files that may open files themselves: the reader itself, the writer (its own temp and lock files), the demo copier
# (package data it writes), the help page (package data).
OWN_FILES = {"fsio.py", "settings_writer.py", "demo/__init__.py", "tui/screens/help.py"}


def test_every_read_goes_through_fsio():
    """A plain open() of a user's file blocks on a FIFO and reads /dev/zero without end (issue #17.3/4): skilltui reads
    through skilltui.fsio (or frontmatter.read_text, which opens O_NONBLOCK after a regular-file stat)."""
    pkg = ROOT / "skilltui"
    offenders = []
    for path in sorted(pkg.rglob("*.py")):
        rel = path.relative_to(pkg).as_posix()
        if rel in OWN_FILES:
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#", 1)[0]
            if READS.search(code) and '"""' not in code and "resources.files" not in code:
                offenders.append(f"skilltui/{rel}:{n}: {line.strip()}")
    assert offenders == []


# ---------------------------------------------------------------- a folder over skilltui's bound says so
@pytest.mark.parametrize("skills", [3, 4])
def test_a_folder_over_the_entry_bound_is_reported_not_silently_cut(tmp_path, monkeypatch, capsys, skills):
    """skilltui lists at most MAX_ENTRIES_PER_DIR entries of a folder (a bound on hostile folders; 20,000). Claude
    Code has no such bound, so a folder over it used to lose skills without a word: now a warning names the folder.
    A folder exactly at the bound is read whole, with no warning (one entry more is read to tell the two apart).
    The bound is lowered to 3 here."""
    from skilltui.runtimes.claude import discovery

    monkeypatch.setattr(discovery, "MAX_ENTRIES_PER_DIR", 3)
    w = World(tmp_path, monkeypatch, capsys).write({f"{U}/s{i}/SKILL.md": md(f"skill {i}") for i in range(skills)})
    capped = w.diags("claude-dir-capped")
    users = [e for e in w.entries() if e["source"] == "user"]
    assert len(users) == 3
    if skills == 3:
        assert capped == []
    else:
        assert len(capped) == 1 and capped[0]["path"].endswith(".claude/skills") and "20,000" not in capped[0]["message"]
        assert capped[0]["severity"] == "warning" and "more than 3 entries" in capped[0]["message"]


def test_a_skills_dir_plugin_past_the_entry_bound_is_still_found(tmp_path, monkeypatch, capsys):
    """A big cold scan checks each listed user folder for a plugin manifest with its SKILL.md (§3 step 7), not in a
    listing of its own. A folder past skilltui's bound is not listed, so the plugins are then loaded again by the
    plugin loader, which lists the whole folder as Claude Code does: a `@skills-dir` plugin there still loads."""
    from skilltui.runtimes.claude import discovery

    monkeypatch.setattr(discovery, "MAX_ENTRIES_PER_DIR", 3)
    monkeypatch.setattr(discovery, "PARALLEL_MIN_FILES", 0)  # the look-ahead, as on a big tree
    w = World(tmp_path, monkeypatch, capsys).write({f"{U}/s{i}/SKILL.md": md(f"skill {i}") for i in range(5)})
    last = [e.name for e in os.scandir(w.user_skills)][-1]  # the system lists it after the bound
    w.write({f"{U}/{last}/.claude-plugin/plugin.json": {"name": last, "version": "1.0.0"},
             f"{U}/{last}/skills/inner/SKILL.md": md("plugin skill")})
    assert [e.name for e in os.scandir(w.user_skills)][-1] == last
    assert len(w.diags("claude-dir-capped")) == 1
    assert w.entry(f"{last}:inner")["plugin"] == f"{last}@skills-dir"
