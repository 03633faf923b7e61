"""Differential harness: random skill trees, Gemini CLI 0.61.0 (through ../shared/oracle) against skilltui's gemini
runtime. Dev-only, never part of the test suite.

    python tools/differential_gemini.py --trees 120 --seed 1 [--jobs 3] [--keep DIR]

For each tree it compares, with paths written as `$TREE/...`:
- `gemini-list`: every skill Gemini keeps (name, description, path, enabled), as a set;
- the conflict lines on stderr, as a multiset;
- `gemini-prompt` (trusted trees): the skills section text byte for byte, and its entry order.
Prints one line per difference and the counts at the end; exit status 1 when anything differs.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from skilltui.model import DISABLED, LISTED, SHADOWED, Options
from skilltui.runtimes import get

ORACLE = Path(__file__).resolve().parents[2] / "shared" / "oracle" / "oracle.py"

# Frontmatter blocks: valid ones, fallback triggers, and ones Gemini skips. {n} is the name, {d} a description word.
FRONTMATTERS = [
    "---\nname: {n}\ndescription: {d} plain\n---\nbody\n",
    "---\nname: {n}\ndescription: {d} plain\n---\nbody\n",
    "---\nname: {n}\ndescription: {d} plain\n---\nbody\n",
    "---\nname: \"{n}\"\ndescription: '{d} quoted'\n---\n",
    "---\nname: {n}\ndescription: |\n  {d} one\n  two\n\n\n\n  six\n---\n",
    "---\nname: {n}\ndescription: >\n  {d} folded\n  more\n---\n",
    "---\nname: {n}\ndescription: {d} text # a comment\n---\n",
    "---\nname: {n}\ndescription: {d} x\nmetadata: {{unclosed\n---\n",
    "---\nname: {n}\ndescription: \"{d} quoted in fallback\"\nbad: [\n---\n",
    "---\nname: {n}\ndescription: {d} first\n  continued part\n---\n",
    "---\nname: {n}\ndescription:\n  {d} on the next line\n  and more\n---\n",
    "---\r\nname: {n}\r\ndescription: {d} crlf\r\n---\r\nbody\r\n",
    "---\nname: {n}\ndescription: {d} no final newline\n---",
    "---\nname: {n}\nname: {n}\ndescription: {d} dup key\n---\n",
    "---\nname: {n}\ndescription: 2024-01-01\n---\n",
    "---\nname: {n}\ndescription: 42\n---\n",
    "---\nname: {n}\ndescription: yes # c\n---\n",
    "---\nname: {n}\ndescription: 0x1F # hex\n---\n",
    "---\nname: {n}\ndescription: null\n---\n",
    "---\nname: {n}\ndescription: [a, b]\n---\n",
    "---\n  name: {n}\n  description: {d} nested\n---\n",
    "---\nmetadata:\n  name: {n}\ndescription: {d} inner name\n---\n",
    "---\nname: {n}\ndescription: \"{d} <b>bold</b> & </description>\"\n---\n",
    "---\nname: {n}\ndescription: \"\"\n---\n",
    "---\nname: {n}:x/y*z\ndescription: {d} sanitized\n---\n",
    "---\nname:\t{n}\ndescription:\t{d} tabs\n---\n",
    "---\nname: {n}\ndescription: {d} ${{extensionPath}} ${{/}} ${{nope}}\n---\n",
    "---\nname: {n}\ndescription: {d} closes early\n---x\nbody\n",
    "\ufeff---\nname: {n}\ndescription: bom\n---\n",
    "\n---\nname: {n}\ndescription: blank first\n---\n",
    "---\nname: {n}\ndescription: unclosed\n",
    "no frontmatter at all\n",
    "---\ndescription: no name\n---\n",
    "---\nname: {n}\n---\n",
    "---\nName: {n}\nDescription: upper\n---\n",
    "---\nname: {n}\ndescription: \"a\\u00e9 escaped\"\n---\n",
    "---\nname: {n}\ndescription: {d} ends   \n---\n",
    "---\nname: {n}\ndescription: &a {d} anchored\nother: *a\n---\n",
]
NAMES = ["alpha", "beta", "Beta", "gamma", "dup", "dup", "dup", "tool", "éclair", "x.y", "_under", "10-x", "9-x",
         "has space", "ALPHA", "skill-creator", "antigravity-support", "z3"]
FOLDERS = ["alpha", "beta", "Beta", "b2", "z3", "a4", "m1", "éclair", "x.y", "_under", "10-x", "9-x", "Zed", "dup",
           "tool", "node_modules", ".hidden", "with space", "ｚ", "d1"]


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))


def _skill(rng: random.Random, folder: Path, tag: str) -> None:
    fm = rng.choice(FRONTMATTERS)
    _write(folder / "SKILL.md", fm.format(n=rng.choice(NAMES), d=f"from {tag}"))


def build_tree(tree: Path, rng: random.Random) -> dict:
    """A random home/repo pair; returns {"trust": ..., "env": {...}} for the oracle run."""
    home, repo = tree / "home", tree / "repo"
    home.mkdir(parents=True)
    repo.mkdir()
    roots = {"ug": home / ".gemini" / "skills", "ua": home / ".agents" / "skills",
             "wg": repo / ".gemini" / "skills", "wa": repo / ".agents" / "skills"}
    for key, root in roots.items():
        if rng.random() < 0.75:
            for folder in rng.sample(FOLDERS, rng.randint(0, 5)):
                _skill(rng, root / folder, key)
            if rng.random() < 0.15:
                _skill(rng, root, key + "-rootfile")
            if rng.random() < 0.1:
                _skill(rng, root / "deep" / "inner", key + "-deep")
    # links: an alias root pointing at another root, a linked skill folder, a linked file
    if rng.random() < 0.15 and roots["ug"].is_dir() and not roots["ua"].exists():
        roots["ua"].parent.mkdir(parents=True, exist_ok=True)
        os.symlink("../.gemini/skills", roots["ua"])
    if rng.random() < 0.2:
        shared = tree / "shared" / "tool"
        _skill(rng, shared, "shared")
        for key in rng.sample(list(roots), 2):
            roots[key].mkdir(parents=True, exist_ok=True)
            target = os.path.relpath(shared, roots[key])
            if not (roots[key] / "linked").exists():
                os.symlink(target, roots[key] / "linked")
    if rng.random() < 0.1:
        root = roots[rng.choice(list(roots))]
        root.mkdir(parents=True, exist_ok=True)
        os.symlink("nowhere", root / "dangling")
    # extensions
    if rng.random() < 0.3:
        ext_dir = home / ".gemini" / "extensions"
        for i, name in enumerate(rng.sample(["ext1", "ext2", "zext", "bad name!", "noversion"], rng.randint(1, 3))):
            d = ext_dir / f"d{i}-{name.replace(' ', '_').replace('!', '')}"
            config = {"name": name, "version": "1.0.0"}
            if name == "noversion":
                del config["version"]
            _write(d / "gemini-extension.json", json.dumps(config))
            for folder in rng.sample(FOLDERS[:8], rng.randint(1, 3)):
                _skill(rng, d / "skills" / folder, f"ext {name}")
        if rng.random() < 0.3:
            _write(ext_dir / "extension-enablement.json", json.dumps({"ext1": {"overrides": ["!/*"]}}))
    # settings
    for path in (home / ".gemini" / "settings.json", repo / ".gemini" / "settings.json"):
        r = rng.random()
        if r < 0.25:
            names = rng.sample(["alpha", "ALPHA", "beta", "dup", "skill-creator", "tool", "nosuch"], rng.randint(1, 3))
            _write(path, "{\n  // comment\n  \"skills\": {\"disabled\": " + json.dumps(names) + "}\n}\n")
        elif r < 0.28:
            _write(path, json.dumps({"skills": {"enabled": False}}))
        elif r < 0.31:
            _write(path, json.dumps({"skills": {"disabled": "alpha"}}))
    trust = "yes" if rng.random() < 0.8 else rng.choice(["no", "file"])
    if trust == "file" and rng.random() < 0.5:
        _write(home / ".gemini" / "trustedFolders.json", json.dumps({str(repo): rng.choice(["TRUST_FOLDER", "DO_NOT_TRUST"])}))
    return {"trust": trust}


def oracle(cmd: str, tree: Path, trust: str) -> dict | None:
    args = [sys.executable, str(ORACLE), cmd, "--home", str(tree / "home"), "--cwd", str(tree / "repo"), "--copy",
            "--placeholder", "--trust", trust, "--timeout", "180"]
    for _attempt in range(3):
        proc = subprocess.run(args, capture_output=True, text=True, timeout=400)
        if proc.returncode == 0:
            return json.loads(proc.stdout)
        if "exited 52" in proc.stderr or "exited 55" in proc.stderr:
            return {"fatal": proc.stderr.strip()}
    raise RuntimeError(f"oracle {cmd} failed on {tree}: {proc.stderr.strip()[-300:]}")


def _env(trust: str) -> dict[str, str]:
    env = {"PATH": os.environ.get("PATH", "")}
    if trust in ("yes", "no"):
        env["GEMINI_CLI_TRUST_WORKSPACE"] = "true" if trust == "yes" else "false"
    return env


def ours(tree: Path, trust: str) -> dict:
    opts = Options(cwd=str(tree / "repo"), home=str(tree / "home"), runtime="gemini", env=_env(trust))
    runtime = get("gemini")
    catalog = runtime.discover(opts)
    t = str(tree)

    def ph(p: str) -> str:
        return "$TREE" + p[len(t):] if p.startswith(t) else p

    if catalog.facts.refused:
        return {"fatal": catalog.facts.refused}
    on = catalog.settings.skills_enabled()[0]  # skills.enabled false: Gemini discovers nothing at all
    kept = sorted((s.name, ph_line(s.description or "", t), ph(s.path), s.status == LISTED) for s in catalog.skills
                  if on and s.status in (LISTED, DISABLED))
    conflicts = sorted(ph_line(s.reason or "", t) for s in catalog.skills if on and s.status == SHADOWED)
    prompt = runtime.prompt(catalog)
    text = prompt.text.replace(t, "$TREE") if prompt.text else None
    return {"kept": kept, "conflicts": conflicts, "prompt": text, "order": [ph(s.path) for s in catalog.listed()]}


def ph_line(line: str, t: str) -> str:
    return line.replace(t, "$TREE")


def theirs(tree: Path, trust: str) -> dict:
    listing = oracle("gemini-list", tree, trust)
    assert listing is not None
    if "fatal" in listing:
        return {"fatal": listing["fatal"]}
    kept = sorted((s["name"], s["description"], s["path"], s["enabled"]) for s in listing["skills"])
    conflicts = sorted(w for w in listing["warnings"] if w.startswith("Skill conflict") or "overriding the built-in" in w)
    out = {"kept": kept, "conflicts": conflicts}
    if trust == "yes":
        p = oracle("gemini-prompt", tree, trust)
        assert p is not None
        out["prompt"] = p.get("prompt_text")
        out["order"] = [s["path"] for s in p.get("skills") or []]
    return out


def _same_items(a: dict, b: dict) -> bool:
    return sorted(a.get("order") or []) == sorted(b.get("order") or []) and a["kept"] == b["kept"]


def compare(tree: Path, meta: dict) -> list[str]:
    trust = meta["trust"]
    a, b = ours(tree, trust), theirs(tree, trust)
    races = 0
    while "order" in b and a["order"] != b["order"] and _same_items(a, b) and races < 2:
        # Gemini's glob returns a root's entries in the order its fs calls complete: usually descending, not always.
        # Ask again; agreeing on a rerun marks an order race in Gemini CLI, not a rule difference.
        races += 1
        again = oracle("gemini-prompt", tree, trust) or {}
        b["prompt"], b["order"] = again.get("prompt_text"), [x["path"] for x in again.get("skills") or []]
    if races and a.get("order") == b.get("order"):
        meta["race"] = True
    if "fatal" in a or "fatal" in b:
        return [] if ("fatal" in a) == ("fatal" in b) else [f"fatal: ours {a.get('fatal')!r} theirs {b.get('fatal')!r}"]
    diffs = []
    for key in ("kept", "conflicts", "prompt", "order"):
        if key in b and a[key] != b[key]:
            if isinstance(a[key], list):
                extra = [x for x in a[key] if x not in b[key]]
                missing = [x for x in b[key] if x not in a[key]]
                diffs.append(f"{key}: ours only {extra!r}; gemini only {missing!r}" if extra or missing
                             else f"{key}: same items, other order: ours {a[key]!r} gemini {b[key]!r}")
            else:
                diffs.append(f"{key}: ours {a[key]!r}\n   gemini {b[key]!r}")
    return diffs


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--trees", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=3)
    ap.add_argument("--keep", help="keep the trees (and write differing ones' names) under this folder")
    args = ap.parse_args()
    base = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="skilltui-diff-gemini-"))
    base.mkdir(parents=True, exist_ok=True)
    trees = []
    for i in range(args.trees):
        tree = base / f"t{args.seed}-{i:04d}"
        if tree.exists():
            shutil.rmtree(tree)
        meta = build_tree(tree, random.Random(f"{args.seed}-{i}"))
        trees.append((tree, meta))

    def run(item):
        tree, meta = item
        try:
            return tree, meta, compare(tree, meta)
        except Exception as exc:  # a harness failure is reported, not counted as agreement
            return tree, meta, [f"harness error: {exc.__class__.__name__}: {exc}"]

    same = differ = raced = 0
    skills = 0
    with ThreadPoolExecutor(args.jobs) as pool:
        for tree, meta, diffs in pool.map(run, trees):
            skills += sum(1 for _ in tree.rglob("SKILL.md"))
            if diffs:
                differ += 1
                print(f"DIFF {tree} (trust {meta['trust']}):")
                for d in diffs:
                    print("   ", d)
            else:
                same += 1
                raced += bool(meta.get("race"))
    print(f"trees {len(trees)}, identical {same} (of which {raced} only after re-asking Gemini: an order race in its "
          f"glob), differing {differ}, SKILL.md files {skills}")
    if not args.keep:
        shutil.rmtree(base, ignore_errors=True)
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
