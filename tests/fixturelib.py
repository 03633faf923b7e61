"""Recorded real-runtime fixtures (tests/fixtures/<runtime>/<case>/): one tree format and one comparison, used by the
replay test and by tools/differential.py, so a difference the harness finds is replayed exactly as it was found.

A case folder holds `case.json` (runtime, home, cwd, empty folders, symbolic links, env), `tree/` (the files, `$TREE`
standing for the tree's absolute path) and `expected.json` (the real tool's output, `$TREE` for the path).
The tree is rebuilt at a path of exactly TREE_LEN characters: Codex pays for its skill roots table out of the same
budget as the lines, so a prompt near its budget depends on the length of the absolute path. `oracle.py --copy` runs
the tool on a copy at `<tmp>/oracle-XXXXXXXX/<basename>`, so a tree recorded from the oracle is built in
`oracle_base()`, a folder just as long: the copy then has the same TREE_LEN-long path as the replay.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path

from skilltui.model import INVALID, Options

TREE_LEN = 120


@dataclass
class Tree:
    runtime: str  # codex | omp | claude | claude-plugins (the listing and `claude plugin list`, one tree)
    home: str = "home"
    cwd: str = "."
    files: dict[str, bytes] = field(default_factory=dict)  # relative path -> bytes ($TREE filled in when built)
    links: dict[str, str] = field(default_factory=dict)  # relative path -> relative target
    dirs: list[str] = field(default_factory=list)  # folders that must exist (git markers, an empty cwd)
    env: dict[str, str] = field(default_factory=dict)
    args: list[str] = field(default_factory=list)  # extra oracle options (claude: --budget N, -- --add-dir ...)
    units: list[str] = field(default_factory=list)  # what the minimiser may drop: skill folders, settings files


def root_in(base: Path) -> Path:
    """A folder under `base` whose absolute path is TREE_LEN characters long (or `base/t` when base is too long)."""
    base = base.resolve()
    pad = TREE_LEN - len(str(base)) - 1
    return base / ("t" * max(1, pad))


ORACLE_TMP_PREFIX = "oracle-"  # oracle.py --copy: tempfile.TemporaryDirectory(prefix="oracle-") / <tree basename>
RECORD_TMP_PREFIX = "skdiff-"  # as long as ORACLE_TMP_PREFIX


def oracle_base() -> Path:
    """A new temporary folder exactly as long as the oracle's own, to build a tree for the oracle in (root_in): the
    oracle's copy of it then sits at a path of TREE_LEN characters too, the length the replay uses (Codex's budget
    depends on it). The caller removes it."""
    assert len(RECORD_TMP_PREFIX) == len(ORACLE_TMP_PREFIX)
    return Path(tempfile.mkdtemp(prefix=RECORD_TMP_PREFIX))


def materialise(tree: Tree, base: Path) -> Path:
    root = root_in(base)
    root.mkdir(parents=True, exist_ok=True)
    for rel in [tree.home, tree.cwd, *tree.dirs]:
        (root / rel).mkdir(parents=True, exist_ok=True)
    for rel, data in tree.files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data.replace(b"$TREE", str(root).encode()))
    for rel, target in tree.links.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if not p.exists() and not p.is_symlink():
            p.symlink_to(target)
    return root


def oracle_args(tree: Tree, root: Path, cmd: str | None = None) -> list[str]:
    cmd = cmd or {"codex": "codex-list", "omp": "omp-list", "claude": "claude-listing"}[tree.runtime]
    out = [cmd, "--home", str(root / tree.home), "--cwd", str(root / tree.cwd), "--copy"]
    for k, v in tree.env.items():
        out += ["--env", f"{k}={v}"]
    args = [a.replace("$TREE", str(root)) if a.startswith("$TREE") else a for a in tree.args]
    if cmd == "claude-plugin-list":  # `claude plugin list` takes no session flags (--add-dir, --settings)
        args = args[:args.index("--")] if "--" in args else args
    return out + args


def oracle_runs(tree: Tree, root: Path) -> dict[str, list[str]]:
    """The oracle runs one tree needs, by the key its answer goes under ("" = the answer itself)."""
    if tree.runtime == "claude-plugins":
        return {"listing": oracle_args(tree, root, "claude-listing"),
                "plugin_list": oracle_args(tree, root, "claude-plugin-list")}
    return {"": oracle_args(tree, root)}


def _env(tree: Tree, root: Path) -> dict[str, str]:
    env = {"HOME": str(root / tree.home), "PATH": os.environ.get("PATH", "")}
    env.update({k: v.replace("$TREE", str(root)) for k, v in tree.env.items()})
    return env


# ---------------------------------------------------------------- normalised outputs
def _codex_row(s) -> dict:
    row = {"name": s.name, "description": s.description, "path": s.path, "scope": s.source,
           "enabled": s.facts.enabled}
    if s.facts.short_description is not None:
        row["shortDescription"] = s.facts.short_description
    return row


def _want_codex_row(r: dict) -> dict:
    row = {k: r.get(k) for k in ("name", "description", "path", "scope", "enabled")}
    if r.get("shortDescription") is not None:
        row["shortDescription"] = r["shortDescription"]
    return row


def _claude_options(tree: Tree, root: Path, session: bool = True) -> Options:
    """Options as the oracle's claude run sees them: --managed-dir (else none: its host has no /etc/claude-code), and
    with `session` the claude flags after `--` (--add-dir, --settings)."""
    oracle, claude = _claude_words(tree, root)
    opts = Options(cwd=str(root / tree.cwd), home=str(root / tree.home), runtime="claude", env=_env(tree, root))
    managed = _values(oracle, "--managed-dir")
    opts.managed_dir = managed[0] if managed else str(root / "no-managed-dir")
    if session:
        opts.add_dirs = _values(claude, "--add-dir")
        flags = _values(claude, "--settings")
        opts.settings_flag = flags[-1] if flags else None
    return opts


def _claude_words(tree: Tree, root: Path) -> tuple[list[str], list[str]]:
    """The tree's arguments for the oracle (before `--`) and for claude itself (after it), with $TREE filled in."""
    words = [w.replace("$TREE", str(root)) for w in tree.args]
    cut = words.index("--") if "--" in words else len(words)
    return words[:cut], words[cut + 1:]


def _values(words: list[str], flag: str) -> list[str]:
    return [words[i + 1] for i, w in enumerate(words) if w == flag and i + 1 < len(words)]


def claude_model(tree: Tree, root: Path) -> str:
    """The model the oracle's claude run uses: its --model, else the oracle's default."""
    models = _values(_claude_words(tree, root)[0], "--model")
    return models[-1] if models else "claude-sonnet-4-6"


def comparable_plugin_row(row: dict) -> dict:
    """A `claude plugin list --json` row less what skilltui does not model: timestamps, the *Details objects (their
    words are the tool's), builtins' internals."""
    out = {k: v for k, v in row.items() if k not in ("installedAt", "lastUpdated", "noteDetails", "errorDetails",
                                                     "folderVersion")}
    if row["id"].endswith("@builtin"):
        out.pop("hasUserConfig", None)
    return out


def loose_errors(row: dict) -> bool:
    """A failed download's text names a random temp folder; a JSON parser's words are Bun's: such rows compare by the
    number of errors (same cause, same row)."""
    kinds = [d.get("type") for d in row.get("errorDetails", [])]
    return bool(kinds) and set(kinds) <= {"generic-error", "manifest-parse-error"}


def _plugin_rows(tree: Tree, root: Path) -> list[dict]:
    from skilltui.runtimes import discover
    from skilltui.runtimes.claude import plugins

    catalog = discover(_claude_options(tree, root, session=False))
    return [r.to_json() for r in plugins.list_rows(catalog.plugins, catalog.settings)]


def skilltui_output(tree: Tree, root: Path) -> dict:
    """skilltui's answer in the oracle's shape (the parts skilltui models)."""
    opts = Options(cwd=str(root / tree.cwd), home=str(root / tree.home), runtime=tree.runtime, env=_env(tree, root))
    if tree.runtime == "codex":
        from skilltui.runtimes.codex import discovery

        cat = discovery.discover(opts)
        return {"skills": [_codex_row(s) for s in cat.skills if s.status != INVALID],
                "errors": [{"path": s.path, "message": s.reason} for s in cat.skills if s.status == INVALID],
                "prompt_text": cat.facts.prompt.text or None}
    if tree.runtime == "omp":
        from skilltui.runtimes.omp import discovery

        return discovery.skill_list_json(discovery.discover(opts))
    if tree.runtime in ("claude", "claude-plugins"):
        from skilltui import budget

        view = budget.run(_claude_options(tree, root), model=claude_model(tree, root))
        out = {"entries": [{"label": e.label, "state": e.shown, "shipped": e.shipped} for e in view.result.entries],
               "rows": [e.row for e in view.result.entries if not e.shipped],
               "all_rows": [e.row for e in view.result.entries]}
        if tree.runtime == "claude-plugins":
            out["plugin_rows"] = _plugin_rows(tree, root)
        return out
    raise ValueError(f"no comparison for {tree.runtime}")


def _claude_user_copies(got: dict, want: dict) -> dict:
    """The oracle marks an entry `shipped` by its name and the start of its description, so a user skill that is a
    copy of a shipped one (the corpus holds Claude Code's own `claude-api`) is marked shipped too. Where skilltui lists
    a user skill at that place with exactly the text Claude Code printed, the real entry is taken as the user's."""
    entries = [dict(e) for e in want["entries"]]
    ours = got.get("entries", [])
    all_rows = got.get("all_rows", [])
    for i, e in enumerate(entries):
        if (e["shipped"] and i < len(ours) and not ours[i]["shipped"] and ours[i]["label"] == e["label"]
                and i < len(all_rows) and all_rows[i] == e["text"]):
            e["shipped"] = False
    return {**want, "entries": entries}


def expected_shape(tree: Tree, want: dict) -> dict:
    if tree.runtime == "codex":
        return {"skills": [_want_codex_row(r) for r in want["skills"]], "errors": want["errors"],
                "prompt_text": want.get("prompt_text") or None}
    if tree.runtime == "omp":
        return {"skills": want["skills"], "warnings": want["warnings"]}
    if tree.runtime == "claude":  # Claude Code's own entries carry its text, not the tree's: compared by label only
        return {"entries": [{"label": e["label"], "state": e["state"], "shipped": e["shipped"]} for e in want["entries"]],
                "rows": [e["text"] for e in want["entries"] if not e["shipped"]]}
    if tree.runtime == "claude-plugins":
        out = expected_shape(replace(tree, runtime="claude"), want["listing"])
        out["plugin_rows"] = [comparable_plugin_row(r) for r in want["plugin_list"]]
        return out
    raise ValueError(tree.runtime)


def _diff_lists(label: str, got: list, want: list) -> list[str]:
    out = []
    for i in range(max(len(got), len(want))):
        g = got[i] if i < len(got) else "<missing>"
        w = want[i] if i < len(want) else "<missing>"
        if g != w and isinstance(g, dict) and isinstance(w, dict):  # rows: only the keys that differ
            keys = [k for k in {**w, **g} if g.get(k) != w.get(k)]
            out.append(f"{label}[{i}] {w.get('id', g.get('id', ''))}: " + "; ".join(
                f"{k}: skilltui {json.dumps(g.get(k), ensure_ascii=False)} != real "
                f"{json.dumps(w.get(k), ensure_ascii=False)}" for k in keys))
        elif g != w:
            out.append(f"{label}[{i}]: skilltui {json.dumps(g, ensure_ascii=False)} != real "
                       f"{json.dumps(w, ensure_ascii=False)}")
    return out


def compare(tree: Tree, root: Path, want: dict) -> list[str]:
    """Every difference between skilltui and the real tool's output `want`, as readable lines ([] = identical)."""
    try:
        got = skilltui_output(tree, root)
    except Exception as exc:  # a crash is a difference too, reported rather than raised
        return [f"skilltui raised {exc.__class__.__name__}: {exc}"]
    if tree.runtime == "claude":
        want = _claude_user_copies(got, want)
    if tree.runtime == "claude-plugins":
        want = dict(want, listing=_claude_user_copies(got, want["listing"]))
    exp = expected_shape(tree, want)
    if tree.runtime == "claude-plugins":  # rows whose errors are the tool's own words compare by their number
        loose = {i for i, r in enumerate(want["plugin_list"]) if loose_errors(r)}
        rows = got.get("plugin_rows") or []
        for i in loose:
            if i < len(rows) and "errors" in exp["plugin_rows"][i]:
                exp["plugin_rows"][i] = dict(exp["plugin_rows"][i], errors=len(exp["plugin_rows"][i]["errors"]))
                rows[i] = dict(rows[i], errors=len(rows[i].get("errors", [])))
    diffs = []
    for key in exp:
        g, w = got.get(key), exp[key]
        if g == w:
            continue
        if isinstance(g, str) and isinstance(w, str):
            diffs += _diff_lists(f"{key} line", g.split("\n"), w.split("\n")) or [f"{key}: differs"]
        elif isinstance(g, list) and isinstance(w, list):
            diffs += _diff_lists(key, g, w)
        else:
            diffs.append(f"{key}: skilltui {json.dumps(g, ensure_ascii=False)[:300]} != real "
                         f"{json.dumps(w, ensure_ascii=False)[:300]}")
    return [d.replace(str(root), "$TREE") for d in diffs]


# ---------------------------------------------------------------- recording and loading
def placeholder(value, root: str):
    if isinstance(value, str):
        return value.replace(root, "$TREE")
    if isinstance(value, list):
        return [placeholder(v, root) for v in value]
    if isinstance(value, dict):
        return {k: placeholder(v, root) for k, v in value.items()}
    return value


def _fill(value, root: str):
    if isinstance(value, str):
        return value.replace("$TREE", root)
    if isinstance(value, list):
        return [_fill(v, root) for v in value]
    if isinstance(value, dict):
        return {k: _fill(v, root) for k, v in value.items()}
    return value


def record(tree: Tree, want_at_root: dict, dest: Path, root: Path | None = None, note: str = "") -> None:
    """Write a case: the tree and the real output (paths of `root` written as $TREE)."""
    dest.mkdir(parents=True, exist_ok=True)
    for rel, data in tree.files.items():
        p = dest / "tree" / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    case = {"runtime": tree.runtime, "home": tree.home, "cwd": tree.cwd, "dirs": tree.dirs, "links": tree.links,
            "env": tree.env, "args": tree.args, "tree_len": TREE_LEN, "note": note}
    (dest / "case.json").write_text(json.dumps(case, indent=1, ensure_ascii=False) + "\n")
    want = want_at_root if root is None else placeholder(want_at_root, str(root))
    (dest / "expected.json").write_text(json.dumps(want, indent=1, ensure_ascii=False) + "\n")


def load(case_dir: Path) -> tuple[Tree, dict]:
    """(tree, expected with $TREE still in it)."""
    case = json.loads((case_dir / "case.json").read_text())
    files = {}
    tree_dir = case_dir / "tree"
    if tree_dir.is_dir():
        for p in sorted(tree_dir.rglob("*")):
            if p.is_file() and not p.is_symlink():
                files[p.relative_to(tree_dir).as_posix()] = p.read_bytes()
    tree = Tree(runtime=case["runtime"], home=case["home"], cwd=case["cwd"], files=files, links=case.get("links", {}),
                dirs=case.get("dirs", []), env=case.get("env", {}), args=case.get("args", []))
    return tree, json.loads((case_dir / "expected.json").read_text())


def expected_at(want: dict, root: Path) -> dict:
    return _fill(want, str(root))


def cases(runtime: str | None = None) -> list[Path]:
    base = Path(__file__).resolve().parent / "fixtures"
    found = sorted(p.parent for p in base.glob("*/*/case.json") if (p.parent / "expected.json").is_file()
                   and p.parent.parent.name in ("codex", "omp", "claude", "claude-plugin-trees"))
    return [p for p in found if runtime is None or p.parent.name == runtime]
