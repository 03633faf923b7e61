#!/usr/bin/env python3
"""Differential harness: random skill trees, the real runtime (../shared/oracle) against skilltui, byte for byte.

    /work/venv/bin/python tools/differential.py --runtime codex --count 100 --seed 1 [--jobs 3] [--record DIR]

Each tree is built from a seeded generator (corpus skills with their folders, synthetic oddities: encodings, BOM, CRLF,
YAML edge cases, names, wide characters, links, settings), so `--seed S` repeats a run exactly. For every tree the
oracle's output and skilltui's are normalised to the same shape and compared; a difference is minimised (skill
folders, settings files, options dropped while the difference stays) and printed. `--record DIR` writes each
minimised difference as a fixture (tree + the real tool's output), the shape tests/test_fixtures_replay.py replays.

Not part of the test suite: it needs the oracle (root, unshare, the installed tools). Dev-only.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

import fixturelib  # noqa: E402  (tests/fixturelib.py: one tree format, one comparison, shared with the replay test)

SHARED = Path(os.environ.get("SKILLTUI_SHARED", REPO.parent / "shared"))
ORACLE = SHARED / "oracle" / "oracle.py"
CORPUS = SHARED / "corpus"


# ---------------------------------------------------------------- oracle
def run_oracle(tree: fixturelib.Tree, root: Path, timeout: int = 240) -> dict:
    """The real tool's answer; a tree that needs several runs (claude-plugins) gets them under their keys."""
    out: dict = {}
    for key, args in fixturelib.oracle_runs(tree, root).items():
        got = _run_oracle(args, timeout)
        if "oracle_error" in got or not key:
            return got
        out[key] = got
    return out


def _run_oracle(args: list[str], timeout: int) -> dict:
    cmd = ["python3", str(ORACLE), *args]
    err = ""
    for _attempt in range(3):  # the machine is loaded: a timed-out tool run is retried, not reported as a difference
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            err = f"oracle timed out after {timeout}s"
            continue
        if proc.returncode == 0:
            return json.loads(proc.stdout)
        err = proc.stderr.strip()
        if "timed out" not in err and "no answer" not in err:
            break
    return {"oracle_error": err[-800:]}


_SYSTEM_CACHE: dict[str, dict[str, bytes]] = {}


def codex_system_files(work: Path) -> dict[str, bytes]:
    """The files Codex 0.171.0 writes into `$CODEX_HOME/skills/.system` at start, taken from one real run, so that
    skilltui (which never writes) sees the same shipped skills as Codex."""
    if "files" in _SYSTEM_CACHE:
        return _SYSTEM_CACHE["files"]
    root = Path(tempfile.mkdtemp(prefix="sysrun-", dir=work))
    (root / "home").mkdir()
    (root / "cwd").mkdir()
    subprocess.run(["python3", str(ORACLE), "codex-list", "--home", str(root / "home"), "--cwd", str(root / "cwd")],
                   capture_output=True, timeout=300, check=True)
    system = root / "home/.codex/skills/.system"
    files = {}
    for p in sorted(system.rglob("*")):
        rel = p.relative_to(system).as_posix()
        if p.is_file() and (p.name in ("SKILL.md", "openai.yaml") or rel == ".codex-system-skills.marker"):
            files[rel] = p.read_bytes()
    _SYSTEM_CACHE["files"] = files
    return files


# ---------------------------------------------------------------- corpus
def _flat_link(p: Path) -> bool:
    """shared/ stores some symbolic links as one-line files holding the target: not skill text."""
    head = p.read_bytes()[:600]
    return head.startswith(b"../") and b"\n" not in head


class Corpus:
    def __init__(self) -> None:
        self.skills = sorted(p.parent for p in CORPUS.rglob("SKILL.md") if p.is_file() and not _flat_link(p))
        self.commands = sorted(p for p in CORPUS.rglob("commands/*.md") if p.is_file())

    def skill_files(self, rng: random.Random) -> tuple[str, dict[str, bytes]]:
        folder = rng.choice(self.skills)
        files = {"SKILL.md": (folder / "SKILL.md").read_bytes()[:200_000]}
        meta = folder / "agents" / "openai.yaml"
        if meta.is_file():
            files["agents/openai.yaml"] = meta.read_bytes()
        return folder.name, files


# ---------------------------------------------------------------- synthetic oddities
WIDE = ["日本語のスキル", "技能", "😀 smile", "👍🏽 thumbs", "한국어 ᄀᄀ", "naïve café", "ﬁ ligature", "e\u0301 combining",
        "zero\u200bwidth", "tab\there", "नमस्ते"]
NAMES = ["a", "Bad_Name", "UPPER", "dash-name", "dot.name", "under_score", "x" * 64, "y" * 65, "日本" * 32, "日本" * 33,
         "😀" * 64, "name with space", "-lead", "trail-", "a--b", "1numeric", "ünïcode"]


def _fm(lines: list[str], body: str = "body\n", eol: str = "\n", bom: bool = False) -> bytes:
    text = eol.join(["---", *lines, "---"]) + eol + body.replace("\n", eol)
    data = text.encode("utf-8")
    return (b"\xef\xbb\xbf" + data) if bom else data


def synthetic(rng: random.Random, folder: str) -> dict[str, bytes]:
    name = rng.choice([folder, folder, rng.choice(NAMES)])
    desc = rng.choice([
        "plain description", "Use this skill when: the user asks about PDFs", "[unclosed", "{not: closed",
        "'single quoted'", '"double \\" quoted"', "yes", "no", "on", "1:30", "0x1F", "~", "null", "", "   ",
        "multi  space\ttab", "ends with colon:", "# hash start", "value # comment", "&anchor value", "*alias",
        "> folded", "| literal", "- dash start", "@at start", "`backtick`", "%percent", "!tag value",
        rng.choice(WIDE), "d" * rng.choice([100, 250, 1024, 1025, 1500]), "emoji 😀👍🏽🇯🇵 mix",
    ])
    kind = rng.randrange(14)
    eol = "\r\n" if rng.random() < 0.2 else "\n"
    bom = rng.random() < 0.08
    lines = [f"name: {name}"] if rng.random() < 0.85 else []
    if kind == 0:
        lines.append("description: |")
        lines += ["  line one", "  line   two", ""]
    elif kind == 1:
        lines.append("description: >-")
        lines += ["  folded one", "  folded two"]
    elif kind == 2:
        pass  # no description
    elif kind == 3:
        return {"SKILL.md": f"# no frontmatter\n{desc}\n".encode()}
    elif kind == 4:
        lines.append(f"description: {json.dumps(desc, ensure_ascii=False)}")
    elif kind == 5:
        lines += [f"description: {desc}", "metadata:", "  short-description: short one", "  other: {unclosed"]
    elif kind == 6:
        lines += [f"description: {desc}", "disable-model-invocation: true"]
    elif kind == 7:
        lines += [f"description: {desc}", f"hide: {rng.choice(['true', 'false', 'yes'])}"]
    elif kind == 8:
        lines += [f"description: {desc}", f"enabled: {rng.choice(['false', 'true', 'no', '0'])}"]
    elif kind == 9:
        lines += [f"description: {desc}", "allowed-tools: [Read, Write]", "user-invocable: false"]
    elif kind == 10:
        lines += ["description:", "  - a list", "  - value"]
    elif kind == 11:
        lines += [f"description: {desc}", "paths: src/**"]
    elif kind == 12:
        lines += [f"description: {desc}", "name: duplicate-key"]
    else:
        lines.append(f"description: {desc}")
    files = {"SKILL.md": _fm(lines, eol=eol, bom=bom)}
    if rng.random() < 0.03:
        files["SKILL.md"] = files["SKILL.md"].replace(b"body", b"bad \xff\xfe bytes")
    if rng.random() < 0.1:
        allow = rng.choice(["false", "true", "'no'"])
        files["agents/openai.yaml"] = (f"interface:\n  display_name: \"Shown {name}\"\n  short_description: short\n"
                                       f"policy:\n  allow_implicit_invocation: {allow}\n").encode()
    return files


# ---------------------------------------------------------------- tree generators
def _add_skill(tree: fixturelib.Tree, rng: random.Random, corpus: Corpus, root: str, i: int) -> str:
    if rng.random() < 0.55:
        folder, files = corpus.skill_files(rng)
    else:
        folder = rng.choice(["s", "skill", "tool", "x"]) + f"-{i}"
        files = synthetic(rng, folder)
    if rng.random() < 0.1:
        folder = rng.choice(["nested/deeper", "d1/d2/d3/d4/d5", "d1/d2/d3/d4/d5/d6", ".hidden", "node_modules"]) \
            + f"/{folder}"
    prefix = f"{root}/{folder}"
    if any(k.startswith(prefix + "/") for k in tree.files):
        prefix += f"-{i}"
    for rel, data in files.items():
        tree.files[f"{prefix}/{rel}"] = data
    tree.units.append(prefix)
    return prefix


def gen_codex(rng: random.Random, corpus: Corpus, work: Path) -> fixturelib.Tree:
    tree = fixturelib.Tree(runtime="codex", home="home", cwd=rng.choice(["ws/repo", "ws/repo/sub", "ws/repo/sub",
                                                                          "ws"]))
    tree.dirs += ["ws/repo/.git", "ws/repo/sub"]
    for rel, data in codex_system_files(work).items():
        tree.files[f"home/.codex/skills/.system/{rel}"] = data
    roots = ["ws/repo/.agents/skills", "ws/repo/sub/.agents/skills", "ws/repo/.codex/skills",
             "ws/repo/sub/.codex/skills", "home/.codex/skills", "home/.agents/skills", "ws/.agents/skills",
             "ws/repo/sub/.agents/skills"]
    made = []
    for i in range(rng.choice([1, 2, 4, 6, 10, 20, 40, 80])):
        made.append(_add_skill(tree, rng, corpus, rng.choice(roots), i))
    if rng.random() < 0.15 and made:  # a symlink to a skill folder already found elsewhere
        target = rng.choice(made)
        link = f"{rng.choice(roots)}/link-{rng.randrange(100)}"
        tree.links[link] = os.path.relpath(target, os.path.dirname(link))
        tree.units.append(link)
    cfg = []
    model = rng.choice([None, None, "gpt-5", "gpt-5.5", "gpt-6.2-sol", "gpt-6.2-astra", "gpt-daybreak-red-latest",
                        "o3", "unknown-model"])
    if model:
        cfg.append(f'model = "{model}"')
    if rng.random() < 0.1:
        cfg.append(f"model_context_window = {rng.choice([20000, 100000, 1000000])}")
    for _ in range(rng.choice([0, 0, 1, 2])):
        if not made:
            break
        pick = rng.choice(made)
        sel = rng.choice(["name", "path", "both", "none"])
        name = pick.rsplit("/", 1)[-1]
        entry = ["[[skills.config]]"]
        if sel in ("name", "both"):
            entry.append(f'name = "{name}"')
        if sel in ("path", "both"):
            entry.append(f'path = "$TREE/{pick}/SKILL.md"')
        entry.append(f"enabled = {rng.choice(['false', 'false', 'true'])}")
        cfg.append("\n".join(entry))
    if cfg:
        # top-level keys first: a TOML table header would otherwise swallow them
        top = [c for c in cfg if not c.startswith("[[")]
        tables = [c for c in cfg if c.startswith("[[")]
        tree.files["home/.codex/config.toml"] = ("\n".join(top + tables) + "\n").encode()
        tree.units.append("home/.codex/config.toml")
    return tree


def gen_omp(rng: random.Random, corpus: Corpus, work: Path) -> fixturelib.Tree:
    tree = fixturelib.Tree(runtime="omp", home="home", cwd=rng.choice(["ws/repo", "ws/repo/sub", "ws/repo/sub"]))
    tree.dirs += ["ws/repo/.git", "ws/repo/sub"]
    roots = ["home/.omp/agent/skills", "ws/repo/.omp/skills", "ws/repo/sub/.omp/skills", "home/.claude/skills",
             "ws/repo/.claude/skills", "ws/repo/.agents/skills", "ws/repo/sub/.agents/skills", "ws/repo/.agent/skills",
             "home/.agents/skills", "home/.agent/skills", "home/.codex/skills", "ws/repo/sub/.codex/skills",
             "ws/repo/.codex/skills", "ws/repo/sub/.github/skills", "ws/repo/.github/skills", "ws/.agents/skills",
             "custom1", "ws/repo/sub/.opencode/skills"]
    made = []
    for i in range(rng.choice([1, 2, 4, 6, 10, 20, 40])):
        made.append(_add_skill(tree, rng, corpus, rng.choice(roots), i))
    if rng.random() < 0.15 and made:
        target = rng.choice(made)
        link = f"{rng.choice(roots)}/link-{rng.randrange(100)}"
        tree.links[link] = os.path.relpath(target, os.path.dirname(link))
        tree.units.append(link)
    cfg = []
    if rng.random() < 0.3:
        provs = rng.sample(["claude", "codex", "agents", "native", "github", "opencode"], rng.randint(1, 3))
        cfg.append("enabledProviders:\n" + "".join(f"  - {p}\n" for p in provs))
    skills = []
    for key, values in (("enableClaudeUser", ["true", "false"]), ("enableCodexUser", ["true", "false"]),
                        ("enablePiProject", ["false"]), ("enableAgentsUser", ["false"])):
        if rng.random() < 0.15:
            skills.append(f"  {key}: {rng.choice(values)}\n")
    if rng.random() < 0.15 and made:
        pat = rng.choice(["*", "?", ""]) + made[0].rsplit("/", 1)[-1][:3] + rng.choice(["*", ""])
        skills.append(f"  {rng.choice(['ignoredSkills', 'includeSkills'])}:\n    - \"{pat}\"\n")
    if rng.random() < 0.15:
        skills.append("  customDirectories:\n    - $TREE/custom1\n")
    if skills:
        cfg.append("skills:\n" + "".join(skills))
    if rng.random() < 0.1 and made:
        cfg.append(f"disabledExtensions:\n  - skill:{made[-1].rsplit('/', 1)[-1]}\n")
    if cfg:
        tree.files["home/.omp/agent/config.yml"] = "".join(cfg).encode()
        tree.units.append("home/.omp/agent/config.yml")
    return tree


def _command(rng: random.Random, corpus: Corpus, i: int) -> tuple[str, bytes]:
    if corpus.commands and rng.random() < 0.6:
        p = rng.choice(corpus.commands)
        return p.name, p.read_bytes()[:100_000]
    name = rng.choice(["cmd", "do", "x"]) + f"-{i}.md"
    body = synthetic(rng, name[:-3])["SKILL.md"]
    return name, body


def gen_claude(rng: random.Random, corpus: Corpus, work: Path) -> fixturelib.Tree:
    tree = fixturelib.Tree(runtime="claude", home="home", cwd=rng.choice(["ws/repo", "ws/repo/sub", "ws/repo"]))
    tree.dirs += ["ws/repo/.git", "ws/repo/sub"]
    skill_roots = ["home/.claude/skills", "ws/repo/.claude/skills", "ws/repo/sub/.claude/skills", "ws/.claude/skills"]
    made = []
    for i in range(rng.choice([1, 2, 4, 6, 10, 20, 40])):
        made.append(_add_skill(tree, rng, corpus, rng.choice(skill_roots), i))
    for i in range(rng.choice([0, 0, 1, 3, 6])):
        root = rng.choice(["home/.claude/commands", "ws/repo/.claude/commands", "ws/repo/.claude/commands/ns"])
        name, data = _command(rng, corpus, i)
        rel = f"{root}/{name}"
        tree.files[rel] = data
        tree.units.append(rel)
    if rng.random() < 0.2:  # an --add-dir folder with its own skills
        _add_skill(tree, rng, corpus, "other/.claude/skills", 99)
        tree.args += ["--", "--add-dir", "$TREE/other"]
    if rng.random() < 0.3:
        tree.env["SLASH_COMMAND_TOOL_CHAR_BUDGET"] = str(rng.choice([500, 1500, 3000, 6000, 20000]))
    if made and rng.random() < 0.25:
        target = rng.choice(made).rsplit("/", 1)[-1]
        value = rng.choice(['"off"', '"name-only"', '"user-invocable-only"', '"on"', '"bogus"'])
        where = rng.choice(["home/.claude/settings.json", "ws/repo/.claude/settings.json",
                            "ws/repo/.claude/settings.local.json"])
        tree.files[where] = ('{\n  "skillOverrides": {"' + target + '": ' + value + '}\n}\n').encode()
        tree.units.append(where)
    _claude_extras(rng, corpus, tree, made)
    return tree


# Models whose listing oracle.py reads (a <system-reminder> block): not the -5-5 ones, the aliases, unknown ids or the
# legacy Opus ids Claude Code remaps to Opus 5.5 (their listing sits in a system message).
CLAUDE_MODELS = ["claude-opus-4-7", "claude-sonnet-4-6[1m]", "claude-haiku-4-5", "claude-haiku-4-5[1m]",
                 "claude-sonnet-4-5", "claude-opus-4-6[1m]", "claude-3-7-sonnet", "claude-opus-4", "claude-opus-4-1@20250805"]


def _claude_extras(rng: random.Random, corpus: Corpus, tree: fixturelib.Tree, made: list[str]) -> None:
    """Managed skills and settings, the model and what else sets the listing budget (spec §1, §8). Drawn after
    everything else, so a seed's earlier draws (and trees without extras) stay as they were."""
    oracle: list[str] = []
    if rng.random() < 0.2:
        oracle += ["--managed-dir", "$TREE/managed"]
        for i in range(rng.choice([1, 2, 4])):
            made.append(_add_skill(tree, rng, corpus, "managed/.claude/skills", 200 + i))
        if rng.random() < 0.25:
            tree.env["CLAUDE_CODE_DISABLE_POLICY_SKILLS"] = rng.choice(["1", "true", "0", ""])
        if made and rng.random() < 0.4:
            target = rng.choice(made).rsplit("/", 1)[-1]
            value = rng.choice(['"off"', '"name-only"', '"on"'])
            tree.files["managed/managed-settings.json"] = ('{"skillOverrides": {"' + target + '": ' + value
                                                            + '}}\n').encode()
            tree.units.append("managed/managed-settings.json")
    if rng.random() < 0.35:
        oracle += ["--model", rng.choice(CLAUDE_MODELS)]
    if rng.random() < 0.15:
        tree.env.update(rng.choice([{"CLAUDE_CODE_DISABLE_1M_CONTEXT": "1"},
                                    {"DISABLE_COMPACT": "1", "CLAUDE_CODE_MAX_CONTEXT_TOKENS": rng.choice(
                                        ["500000", "20000", "abc", "0"])},
                                    {"CLAUDE_CODE_MAX_CONTEXT_TOKENS": "30000"}]))
    if rng.random() < 0.25:
        where = rng.choice(["home/.claude/settings.json", "ws/repo/.claude/settings.json"])
        settings = json.loads(tree.files[where]) if where in tree.files else {}
        settings["skillListingBudgetFraction"] = rng.choice([0.001, 0.0004, 0.002, 0.05, "0.002", 0, -0.5, 1.5, None])
        tree.files[where] = (json.dumps(settings, indent=2) + "\n").encode()
        if where not in tree.units:
            tree.units.append(where)
    tree.args = oracle + tree.args


# ---------------------------------------------------------------- Claude Code plugins
def _plugin_kit():
    """tests/fixtures/claude-plugins/_build.py: the plugin kit's tree builders (plugin folders, install records,
    marketplaces), reused here so the harness builds plugins the way the hand-recorded cases do."""
    import importlib.util

    path = REPO / "tests/fixtures/claude-plugins/_build.py"
    spec = importlib.util.spec_from_file_location("claude_plugin_kit", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


KIT = _plugin_kit()
PLUGIN_NAMES = ["demo", "p1", "tool-kit", "Weird.Name", "x_y", "a", "b2", "zed", "Demo", "dup"]
MARKETS = ["mkt", "alpha", "beta-m", "gone", "nomf", "badmf", "dmkt"]
PROJECTS = ["$TREE/ws/repo", "$TREE/ws/repo/sub", "$TREE/ws/other", "$TREE/ws/plain", "$TREE/ws/repo/sub/deep", "$TREE"]
ODD_VALUES = [["1.0.0"], "yes", 1, {}, None, "true"]


def _slurp(top: Path) -> dict[str, bytes]:
    return {p.relative_to(top).as_posix(): p.read_bytes() for p in sorted(top.rglob("*")) if p.is_file()}


def _plugin_skill(rng: random.Random, corpus: Corpus, name: str, i: int) -> dict[str, bytes]:
    """One skill folder's files for a plugin: a corpus skill, a synthetic one, or one named by its frontmatter."""
    r = rng.random()
    if r < 0.3:
        _folder, files = corpus.skill_files(rng)
        return files
    if r < 0.45:
        other = rng.choice(["other-name", f"{name}:inner", name, "Shown Name"])
        return {"SKILL.md": _fm([f"name: {other}", f"description: skill {i} named {other}"])}
    if r < 0.55:
        return {"SKILL.md": _fm(["when_to_use: only when asked"], body="first body line\\nsecond\\n")}
    return synthetic(rng, f"s{i}")


def gen_claude_plugins(rng: random.Random, corpus: Corpus, work: Path) -> fixturelib.Tree:
    """Claude Code plugin setups: marketplaces (known or not, listing a plugin or no longer, failing), install records
    (one or several per id, scopes, projectPath, missing installPath), enabledPlugins in every scope with odd values,
    manifests with custom skills/commands paths or broken, plugin skills and commands, user skills beside them."""
    tree = fixturelib.Tree(runtime="claude-plugins", home="home",
                           cwd=rng.choice(["ws/repo", "ws/repo", "ws/repo/sub", "ws/plain"]))
    tree.dirs += ["ws/repo/.git", "ws/repo/sub/deep", "ws/plain", "ws/other"]
    scratch = Path(tempfile.mkdtemp(prefix="plugins-", dir=work))
    home = scratch / "home"
    home.mkdir()
    mkts = rng.sample(MARKETS, rng.randint(1, 4))
    known_now = [m for m in mkts if m != "gone" and m != "dmkt"]
    records: dict[str, list[dict]] = {}
    listed: dict[str, list[str]] = {m: [] for m in mkts}
    units: list[str] = []
    for i in range(rng.choice([1, 2, 3, 4, 6, 8])):
        name, mkt = rng.choice(PLUGIN_NAMES), rng.choice(mkts)
        pid = f"{name}@{mkt}"
        if pid in records:
            continue
        recs = []
        versions = rng.sample(["1.0.0", "1.1.0", "2.0.0", "0.0.1-beta"], rng.choice([1, 1, 1, 2, 3]))
        for v in versions:
            manifest = _manifest(rng, name, v)
            skills = [f"{name.lower()}-{j}" for j in range(rng.choice([0, 1, 1, 2, 3]))]
            path = KIT.plugin(home, mkt, name, v, skills, manifest if isinstance(manifest, dict) else None)
            root = scratch / path.removeprefix("$TREE/")
            if isinstance(manifest, str):
                (root / ".claude-plugin/plugin.json").write_text(manifest)
            _plugin_extras(rng, corpus, root, name, i)
            scope = rng.choice(["user", "user", "project", "local"])
            project = rng.choice(PROJECTS) if scope != "user" else None
            if rng.random() < 0.08:
                path = path + "-missing"
            recs.append(KIT.record(scope, path, v, project))
        records[pid] = recs
        units.append(f"home/.claude/plugins/cache/{mkt}/{name}")
        if rng.random() < 0.8:
            listed[mkt].append(name)
    KIT.installed(home, records)
    KIT.known(home, known_now)
    for m in known_now:
        if m == "nomf":
            (home / ".claude/plugins/marketplaces/nomf").mkdir(parents=True, exist_ok=True)
        elif m == "badmf":
            KIT.write(home / ".claude/plugins/marketplaces/badmf/.claude-plugin/marketplace.json", "{not json\n")
        else:
            KIT.marketplace(home, m, listed[m])
    if "dmkt" in mkts:  # a directory marketplace: its plugins are read from its folder
        kn = json.loads((home / ".claude/plugins/known_marketplaces.json").read_text())
        kn["dmkt"] = {"source": {"source": "directory", "path": "$TREE/dmkt"}, "installLocation": "$TREE/dmkt",
                      "lastUpdated": KIT.TS}
        KIT.wjson(home / ".claude/plugins/known_marketplaces.json", kn)
        entries = [{"name": n, "source": f"./plugins/{n}", "description": f"{n} plugin"} for n in listed["dmkt"]]
        KIT.wjson(scratch / "dmkt/.claude-plugin/marketplace.json", {"name": "dmkt", "owner": {"name": "T"},
                                                                     "plugins": entries})
        for n in listed["dmkt"]:
            KIT.wjson(scratch / f"dmkt/plugins/{n}/.claude-plugin/plugin.json", {"name": n, "version": "0.9.0"})
            KIT.write(scratch / f"dmkt/plugins/{n}/skills/fromfolder/SKILL.md",
                      f"---\ndescription: {n} read from the marketplace folder\n---\nbody\n")
    tree.files.update(_slurp(scratch))
    shutil.rmtree(scratch, ignore_errors=True)
    for i in range(rng.choice([0, 0, 1, 3])):  # user and project skills beside the plugins' (names may clash)
        _add_skill(tree, rng, corpus, rng.choice(["home/.claude/skills", "ws/repo/.claude/skills"]), 200 + i)
    # enabledPlugins, in every scope
    ids = list(records) + rng.sample(["ghost@mkt", "ghost@nowhere"], rng.randint(0, 1))
    settings_files = {"user": "home/.claude/settings.json", "project": f"{tree.cwd}/.claude/settings.json",
                      "local": f"{'ws/repo' if tree.cwd.startswith('ws/repo') else tree.cwd}/.claude/settings.local.json",
                      "managed": "managed/managed-settings.json", "adddir": "other/.claude/settings.json",
                      "adddir2": "other2/.claude/settings.local.json"}
    blocks: dict[str, dict] = {}
    for scope in ["user", "user", "project", "local", "managed", "flag", "adddir", "adddir2"]:
        if rng.random() < (0.85 if scope == "user" else 0.3):
            block = blocks.setdefault(scope, {})
            for pid in rng.sample(ids, rng.randint(1, len(ids))):
                r = rng.random()
                block[pid] = True if r < 0.65 else False if r < 0.93 else rng.choice(ODD_VALUES)
    claude_args: list[str] = []
    for scope, block in blocks.items():
        data = {"enabledPlugins": block}
        if scope == "flag":
            claude_args += ["--settings", json.dumps(data, separators=(",", ":"))]
            continue
        rel = settings_files[scope]
        tree.files[rel] = (json.dumps(data, indent=2) + "\n").encode()
        units.append(rel)
    if "managed" in blocks:
        tree.args += ["--managed-dir", "$TREE/managed"]
    for scope, folder in (("adddir", "other"), ("adddir2", "other2")):
        if scope in blocks or rng.random() < 0.1:
            tree.dirs.append(folder)
            claude_args += ["--add-dir", f"$TREE/{folder}"]
    if claude_args:
        tree.args += ["--", *claude_args]
    if rng.random() < 0.35:
        tree.env["SLASH_COMMAND_TOOL_CHAR_BUDGET"] = str(rng.choice([300, 800, 1500, 3000, 8000]))
    tree.units = units + [u for u in tree.units if u not in units]
    # Drawn last, from a generator of its own, so that everything above stays as the earlier seeds made it
    # (--no-layouts leaves them out: the trees of runs before 2026-12-03, whose oracle answers are cached).
    if LAYOUTS:
        _command_layouts(random.Random(rng.random()), tree)
    return tree


# Command files whose order differs between the name, the path and the folder (`_a` < `A/x` < `b-c` < `b` < `b/y`),
# a SKILL.md folder inside commands/ (its sub-folder unread), `.MD`, a hidden folder; as real plugins have them
# (corpus: nested commands folders, manifests listing several command files out of order, secondsky nuxt-seo).
LAYOUTS = True
LAYOUT_FILES = ["_a.md", "Zz.md", "b-c.md", "b.md", "A/x.md", "b/y.md", "deep/er/z.md", "deep/w.md", "Up.MD",
                "skilled/SKILL.md", "skilled/note.md", "skilled/more/deeper.md", ".hidden/h.md", "zz-last.md"]


def _command_layouts(rng: random.Random, tree: fixturelib.Tree) -> None:
    """Plugin command layouts the generator above never made (added 2026-12-03, so earlier seeds now make other
    trees): command files across sub-folders, links inside commands/, a manifest `commands` list of several files in
    no sorted order."""
    roots = sorted(rel[:-len("/.claude-plugin/plugin.json")] for rel in tree.files
                   if rel.startswith("home/.claude/plugins/cache/") and rel.endswith("/.claude-plugin/plugin.json"))
    for root in roots:
        if rng.random() >= 0.4:
            continue
        for rel in rng.sample(LAYOUT_FILES, rng.randint(2, 6)):
            tree.files[f"{root}/commands/{rel}"] = f"---\ndescription: layout {rel}\n---\nbody\n".encode()
        if rng.random() < 0.2:
            tree.files[f"{root}/shared/linked.md"] = b"---\ndescription: reached through a link\n---\nbody\n"
            link = rng.choice([("commands/lnk", "../shared"), ("commands/lf.md", "../shared/linked.md")])
            tree.links[f"{root}/{link[0]}"] = link[1]
        if rng.random() < 0.25:
            try:
                manifest = json.loads(tree.files[f"{root}/.claude-plugin/plugin.json"])
            except ValueError:
                continue
            if not isinstance(manifest, dict):
                continue
            listed = [f"./cmds/{n}.md" for n in ("one", "two", "Three")] + ["./commands/b.md"]
            for rel in listed:
                tree.files.setdefault(f"{root}/{rel[2:]}", f"---\ndescription: listed {rel}\n---\nbody\n".encode())
            manifest["commands"] = rng.sample(listed, rng.randint(2, 4))
            tree.files[f"{root}/.claude-plugin/plugin.json"] = (json.dumps(manifest, indent=2) + "\n").encode()


def _manifest(rng: random.Random, name: str, version: str) -> dict | str:
    r = rng.random()
    m: dict = {"name": name, "version": version, "description": f"{name} plugin"}
    if r < 0.05:
        return "{not json\n"
    if r < 0.08:
        return {"version": version}  # no name
    if r < 0.11:
        m["agents"] = ["./agents"]  # a folder where .md files are required: the manifest is rejected
    elif r < 0.2:
        m["skills"] = rng.choice(["./extra-skills", ["./extra-skills"], "./", ["./extra-skills", "./skills"]])
    elif r < 0.3:
        m["commands"] = rng.choice(["./cmds", ["./cmds/one.md"], "./cmds/one.md"])
    elif r < 0.35:
        m["name"] = rng.choice(["other-name", name.upper()])
    elif r < 0.4:
        m["displayName"] = f"Shown {name}"
    elif r < 0.43:
        m["userConfig"] = {"token": {"type": "string", "title": "Token", "description": "a token"}}
    return m


def _put(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def _plugin_extras(rng: random.Random, corpus: Corpus, root: Path, name: str, i: int) -> None:
    """Skills and commands beyond the kit's plain ones: corpus/synthetic skills, commands (nested, prefixed names),
    the folders a manifest may point at."""
    for j in range(rng.choice([0, 0, 1, 2])):
        folder = rng.choice([f"sk{i}{j}", f"{name}-sk{j}", f"Odd.Name{j}", f"{name}:pref{j}"])
        for rel, data in _plugin_skill(rng, corpus, name, j).items():
            _put(root / "skills" / folder / rel, data)
    for j in range(rng.choice([0, 0, 1, 2, 3])):
        cname, data = _command(rng, corpus, j)
        where = rng.choice(["commands", "commands", "commands/sub", "cmds"])
        if rng.random() < 0.15:
            cname = f"{name}:{cname}"
        _put(root / where / cname, data)
    if rng.random() < 0.3:
        KIT.write(root / "cmds/one.md", "---\ndescription: the declared command\n---\nbody\n")
    if rng.random() < 0.25:
        KIT.write(root / "extra-skills/xs/SKILL.md", f"---\ndescription: extra skill of {name}\n---\nbody\n")
    if rng.random() < 0.1:
        KIT.write(root / "SKILL.md", f"---\nname: {name}-root\ndescription: a root-level skill\n---\nbody\n")
    if rng.random() < 0.05:
        KIT.write(root / "agents/helper.md", "---\nname: helper\ndescription: an agent\n---\nbody\n")


GENERATORS = {"codex": gen_codex, "omp": gen_omp, "claude": gen_claude, "claude-plugins": gen_claude_plugins}


# ---------------------------------------------------------------- minimising
CACHE: Path | None = None  # --cache DIR: the real tool's answer per tree, so a rerun after a fix costs no tool runs


def _tree_key(tree: fixturelib.Tree) -> str:
    h = hashlib.sha256()
    for rel in sorted(tree.files):
        h.update(rel.encode() + b"\0" + hashlib.sha256(tree.files[rel]).digest())
    h.update(json.dumps([tree.runtime, tree.home, tree.cwd, sorted(tree.links.items()), sorted(tree.dirs),
                         sorted(tree.env.items()), tree.args, fixturelib.TREE_LEN]).encode())
    if tree.runtime == "codex":  # answers recorded before the oracle's copy kept TREE_LEN (its budget depends on it)
        h.update(b"oracle-copy-keeps-tree-len")
    return h.hexdigest()[:32]


def shows(tree: fixturelib.Tree, work: Path) -> tuple[bool, list[str], dict, Path]:
    """(differs, differences, the real answer with $TREE, the tree's root: the caller removes root.parent)."""
    root = fixturelib.materialise(tree, fixturelib.oracle_base())  # the oracle's copy keeps the path's length
    cached = CACHE / f"{_tree_key(tree)}.json" if CACHE else None
    if cached is not None and cached.is_file():
        want = fixturelib.expected_at(json.loads(cached.read_text()), root)
    else:
        want = run_oracle(tree, root)
        if "oracle_error" in want:
            return False, [f"oracle failed: {want['oracle_error']}"], want, root
        if cached is not None:
            cached.write_text(json.dumps(fixturelib.placeholder(want, str(root)), ensure_ascii=False))
    diffs = fixturelib.compare(tree, root, want)
    return bool(diffs), diffs, fixturelib.placeholder(want, str(root)), root


def without(tree: fixturelib.Tree, units: list[str]) -> fixturelib.Tree:
    drop = set(units)

    def kept(path: str) -> bool:
        return not any(path == u or path.startswith(u + "/") for u in drop)

    return replace(tree, files={k: v for k, v in tree.files.items() if kept(k)},
                   links={k: v for k, v in tree.links.items() if kept(k)},
                   units=[u for u in tree.units if u not in drop])


def minimise(tree: fixturelib.Tree, work: Path, budget: int = 16) -> tuple[fixturelib.Tree, list[str], dict]:
    """Drop units (halves first, then one at a time) while a difference remains; at most `budget` oracle runs."""
    _ok, diffs, want, first_root = shows(tree, work)
    shutil.rmtree(first_root.parent, ignore_errors=True)
    best = tree
    runs = 0
    chunk = max(1, len(best.units) // 2)
    while chunk >= 1 and runs < budget:
        i, progressed = 0, False
        while i < len(best.units) and runs < budget:
            trial = without(best, best.units[i:i + chunk])
            runs += 1
            ok, d, w, trial_root = shows(trial, work)
            shutil.rmtree(trial_root.parent, ignore_errors=True)
            if ok:
                best, diffs, want, progressed = trial, d, w, True
            else:
                i += chunk
        if chunk == 1 and not progressed:
            break
        chunk = max(1, chunk // 2) if chunk > 1 else (1 if progressed else 0)
    return best, diffs, want


# ---------------------------------------------------------------- main
@dataclass
class Outcome:
    index: int
    diffs: list[str] = field(default_factory=list)
    tree: fixturelib.Tree | None = None
    want: dict | None = None
    error: str | None = None


def one(runtime: str, seed: int, index: int, corpus: Corpus, work: Path) -> Outcome:
    rng = random.Random(f"{runtime}:{seed}:{index}")
    tree = GENERATORS[runtime](rng, corpus, work)
    ok, diffs, want, root = shows(tree, work)
    shutil.rmtree(root.parent, ignore_errors=True)
    if "oracle_error" in want:
        return Outcome(index, error=want["oracle_error"])
    return Outcome(index, diffs, tree if ok else None, want)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runtime", choices=sorted(GENERATORS), required=True)
    ap.add_argument("--count", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--start", type=int, default=0, help="first tree index (to resume or split a run)")
    ap.add_argument("--jobs", type=int, default=3)
    ap.add_argument("--no-minimise", action="store_true")
    ap.add_argument("--minimise-max", type=int, default=6, help="minimise at most this many differing trees")
    ap.add_argument("--record", metavar="DIR", help="write each minimised difference as a fixture under DIR")
    ap.add_argument("--cache", metavar="DIR", help="keep the real tool's answers here (by tree content) for reruns")
    ap.add_argument("--no-layouts", action="store_true",
                    help="claude-plugins: without the command layouts added 2026-12-03 (the trees earlier runs made)")
    args = ap.parse_args(argv)
    global CACHE, LAYOUTS
    LAYOUTS = not args.no_layouts
    if args.cache:
        CACHE = Path(args.cache)
        CACHE.mkdir(parents=True, exist_ok=True)
    if not ORACLE.is_file():
        print(f"differential: no oracle at {ORACLE}", file=sys.stderr)
        return 2
    corpus = Corpus()
    work = Path(tempfile.mkdtemp(prefix="skdiff-"))
    if args.runtime == "codex":
        codex_system_files(work)
    found: list[Outcome] = []
    errors = 0
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = [pool.submit(one, args.runtime, args.seed, i, corpus, work)
                   for i in range(args.start, args.start + args.count)]
        for fut in concurrent.futures.as_completed(futures):
            out = fut.result()
            if out.error:
                errors += 1
                print(f"tree {out.index}: oracle error: {out.error[:300]}", flush=True)
            elif out.diffs:
                found.append(out)
                print(f"tree {out.index}: {len(out.diffs)} difference(s): {out.diffs[0][:300]}", flush=True)
    found.sort(key=lambda o: o.index)
    for n, out in enumerate(found):
        tree, diffs, want = out.tree, out.diffs, out.want
        if not args.no_minimise and n < args.minimise_max:
            tree, diffs, want = minimise(tree, work)
        print(f"\n=== tree {out.index} (seed {args.seed}), minimised to {len(tree.files)} files, units {tree.units}")
        for d in diffs[:12]:
            print("  " + d[:400])
        for rel in sorted(tree.files):
            if not rel.startswith("home/.codex/skills/.system/"):
                print(f"  file {rel}: {tree.files[rel][:300]!r}")
        if args.record and diffs and not diffs[0].startswith("oracle failed"):
            dest = Path(args.record) / f"diff-{args.runtime}-s{args.seed}-t{out.index}"
            fixturelib.record(tree, want, dest)
            print(f"  recorded {dest}")
    total = args.count - errors
    print(f"\n{args.runtime}: {total} trees compared, {len(found)} with differences, {errors} oracle errors "
          f"(seed {args.seed}, trees {args.start}..{args.start + args.count - 1})")
    shutil.rmtree(work, ignore_errors=True)
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
