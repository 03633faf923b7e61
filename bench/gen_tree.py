"""Generate a big, realistic Claude Code tree for the benchmarks (deterministic for a given seed).

    <root>/home/.claude/skills/<name>/SKILL.md            user skills, 2–8 KB each (+ references/ files for some)
    <root>/home/.claude/settings.json                     enabledPlugins: every plugin true
    <root>/home/.claude/plugins/installed_plugins.json    version 2, absolute installPath
    <root>/home/.claude/plugins/known_marketplaces.json
    <root>/home/.claude/plugins/cache/<market>/<plugin>/<version>/{.claude-plugin/plugin.json,skills/<d>/SKILL.md}
    <root>/home/.claude/plugins/marketplaces/<market>/.claude-plugin/marketplace.json
    <root>/project/.git/                                  the folder to run in (cwd)

Run: python bench/gen_tree.py DIR [--skills 5000 --plugins 50 --per-plugin 20 --seed 1]
"""

from __future__ import annotations

import argparse
import json
import os
import random
from dataclasses import dataclass

VERBS = ["review", "deploy", "generate", "refactor", "debug", "document", "migrate", "test", "audit", "profile",
         "format", "lint", "release", "scaffold", "triage", "analyze", "optimize", "translate", "summarize", "plan"]
NOUNS = ["api", "schema", "changelog", "docker", "terraform", "react", "django", "postgres", "kafka", "pdf", "excel",
         "slides", "k8s", "graphql", "rust-crate", "go-module", "ci", "security", "accessibility", "i18n", "logs",
         "metrics", "pull-request", "commit", "dependency", "monorepo", "notebook", "dataset", "prompt", "webhook"]
WORDS = ["the", "a", "of", "to", "and", "in", "for", "with", "when", "user", "code", "files", "project", "changes", "tests", "build", "run", "check", "output", "report", "repository", "function", "module", "service", "config", "error", "warning", "issue", "branch", "review", "team", "data", "model", "version", "command", "script", "step", "example", "template", "pattern", "result", "value", "field", "request", "response", "before", "after", "each", "all", "only", "new", "existing", "current"]
TOOLS = ["Read", "Write", "Edit", "Grep", "Glob", "Bash(git:*)", "Bash(npm test:*)", "Bash(pytest:*)", "WebFetch",
         "WebSearch", "TodoWrite", "Task"]
LICENSES = ["MIT", "Apache-2.0", "Complete terms in LICENSE.txt", "BSD-3-Clause", "Proprietary"]
LANGS = ["bash", "python", "json", "yaml", "typescript", ""]
STAMP = "2025-06-01T12:00:00.000Z"


@dataclass
class Tree:
    root: str
    home: str
    project: str
    managed: str  # an empty folder: keeps the machine's /etc/claude-code out of the figures


def _sentence(rnd: random.Random, lo: int = 6, hi: int = 16) -> str:
    words = [rnd.choice(WORDS) for _ in range(rnd.randint(lo, hi))]
    return " ".join(words).capitalize() + "."


def _text(rnd: random.Random, lo: int, hi: int) -> str:
    """Prose between lo and hi characters."""
    target, out = rnd.randint(lo, hi), ""
    while len(out) < target:
        out += (" " if out else "") + _sentence(rnd)
    cut = out.rfind(" ", 0, target)
    return out[: cut if cut > 0 else target].rstrip(" .") + "."


def _frontmatter(rnd: random.Random, name: str) -> str:
    """Shapes in the proportions of the ~1,000 real SKILL.md files of /work/shared/corpus: description plain 57%,
    double-quoted 24%, single-quoted 10%, block scalar 9%; license 16%, metadata map 14%, allowed-tools 7%."""
    desc = _text(rnd, 60, 300)
    style = rnd.random()
    if style < 0.55:
        lines = [f"description: {desc}"]
    elif style < 0.57:  # unquoted ': ' - invalid YAML that Claude Code's quoting retry repairs
        lines = [f"description: {desc[:-1]}: use it for {rnd.choice(NOUNS)}."]
    elif style < 0.81:
        lines = [f'description: "{desc[:-1]} (say \\"{rnd.choice(VERBS)}\\")."' if rnd.random() < 0.1
                 else f'description: "{desc}"']
    elif style < 0.91:
        lines = ["description: '" + desc.replace(" the ", " the user''s ", 1) + "'"]
    else:  # block scalar over two lines
        cut = desc.rfind(" ", 0, len(desc) // 2)
        lines = [f"description: {rnd.choice(['>', '>', '>-', '|'])}", f"  {desc[:cut].strip()}", f"  {desc[cut:].strip()}"]
    lines.insert(0, f"name: {name}")
    if rnd.random() < 0.05:
        lines.append(f"when_to_use: When the user asks to {rnd.choice(VERBS)} {rnd.choice(NOUNS)} files")
    if rnd.random() < 0.07:
        tools = rnd.sample(TOOLS, rnd.randint(1, 5))
        lines += (["allowed-tools:"] + [f"  - {t}" for t in tools]) if rnd.random() < 0.2 else \
            ["allowed-tools: " + ", ".join(tools)]
    if rnd.random() < 0.14:
        lines += ["metadata:", f"  version: {rnd.randint(0, 3)}.{rnd.randint(0, 12)}.{rnd.randint(0, 9)}",
                  f"  author: {rnd.choice(['Ada', 'Linus', 'Grace', 'Ken'])} {rnd.choice(['L.', 'T.', 'H.', 'R.'])}"]
        if rnd.random() < 0.15:
            lines.append(f"  tags: [{rnd.choice(NOUNS)}, {rnd.choice(VERBS)}]")
    if rnd.random() < 0.16:
        lines.append(f"license: {rnd.choice(LICENSES)}")
    return "---\n" + "\n".join(lines) + "\n---\n"


def _block(rnd: random.Random, refs: list[str]) -> str:
    kind = rnd.random()
    if kind < 0.25:
        return f"## {_sentence(rnd, 2, 5)[:-1]}\n"
    if kind < 0.5:
        return "\n".join(f"{i}. {_sentence(rnd)}" if rnd.random() < 0.5 else f"- {_sentence(rnd)}"
                         for i in range(1, rnd.randint(3, 7))) + "\n"
    if kind < 0.65:
        code = "\n".join(f"{rnd.choice(VERBS)}_{rnd.choice(NOUNS).replace('-', '_')}({rnd.randint(0, 99)})"
                         for _ in range(rnd.randint(2, 8)))
        return f"```{rnd.choice(LANGS)}\n{code}\n```\n"
    if kind < 0.75 and refs:
        ref = rnd.choice(refs)
        return f"See [{os.path.basename(ref)}]({ref}) for {_sentence(rnd, 3, 8).lower()}\n"
    return _text(rnd, 200, 700) + "\n"


def _body(rnd: random.Random, name: str, size: int, refs: list[str]) -> str:
    """Markdown of about `size` characters: headings, lists, code fences, links to references/, prose."""
    text = f"# {name.replace('-', ' ').title()}\n\n" + _text(rnd, 150, 400) + "\n"
    while True:
        block = _block(rnd, refs)
        if len(text) + 1 + len(block) > size:
            room = size - len(text) - 2
            return text + ("\n" + _text(rnd, room, room) + "\n" if room > 40 else "")
        text += "\n" + block


def _write(path: str, text: str) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(text)


def _skill(rnd: random.Random, folder: str, name: str) -> None:
    refs = [f"references/{rnd.choice(NOUNS)}-{k}.md" for k in range(rnd.randint(1, 3))]
    head = _frontmatter(rnd, name) + "\n"
    _write(os.path.join(folder, "SKILL.md"), head + _body(rnd, name, rnd.randint(2048, 8192) - len(head), refs))
    if rnd.random() < 0.25:  # the other links stay broken, as in real trees
        for ref in refs:
            _write(os.path.join(folder, ref), f"# {ref}\n\n{_text(rnd, 200, 1500)}\n")


def generate(root: str, skills: int = 5000, plugins: int = 50, per_plugin: int = 20, seed: int = 1) -> Tree:
    rnd = random.Random(seed)
    root = os.path.abspath(root)
    home, project, managed = (os.path.join(root, d) for d in ("home", "project", "managed"))
    claude = os.path.join(home, ".claude")
    pdir = os.path.join(claude, "plugins")
    os.makedirs(os.path.join(project, ".git"), exist_ok=True)
    os.makedirs(managed, exist_ok=True)
    _write(os.path.join(project, ".git", "HEAD"), "ref: refs/heads/main\n")

    for i in range(skills):
        name = f"{rnd.choice(VERBS)}-{rnd.choice(NOUNS)}-{i:05d}"
        _skill(rnd, os.path.join(claude, "skills", name), name)

    markets = [f"market-{m}" for m in range(max(1, (plugins + 9) // 10))]
    installed: dict[str, list[dict]] = {}
    catalogs: dict[str, list[dict]] = {m: [] for m in markets}
    for p in range(plugins):
        market, name, version = markets[p % len(markets)], f"plugin-{p:03d}", f"1.{p % 7}.0"
        install = os.path.join(pdir, "cache", market, name, version)
        _write(os.path.join(install, ".claude-plugin", "plugin.json"), json.dumps(
            {"name": name, "version": version, "description": _text(rnd, 40, 120),
             "author": {"name": "Bench"}, "license": "MIT", "keywords": rnd.sample(NOUNS, 3)}, indent=2))
        for k in range(per_plugin):
            skill = f"{rnd.choice(VERBS)}-{rnd.choice(NOUNS)}-{k:02d}"
            _skill(rnd, os.path.join(install, "skills", skill), skill)
        installed[f"{name}@{market}"] = [{"scope": "user", "installPath": install, "version": version,
                                          "installedAt": STAMP, "lastUpdated": STAMP}]
        catalogs[market].append({"name": name, "source": f"./plugins/{name}", "version": version})

    known = {}
    for m in markets:
        location = os.path.join(pdir, "marketplaces", m)
        _write(os.path.join(location, ".claude-plugin", "marketplace.json"),
               json.dumps({"name": m, "owner": {"name": "Bench"}, "plugins": catalogs[m]}, indent=2))
        known[m] = {"source": {"source": "github", "repo": f"bench/{m}"}, "installLocation": location,
                    "lastUpdated": STAMP}
    _write(os.path.join(pdir, "installed_plugins.json"), json.dumps({"version": 2, "plugins": installed}, indent=2))
    _write(os.path.join(pdir, "known_marketplaces.json"), json.dumps(known, indent=2))
    _write(os.path.join(claude, "settings.json"), json.dumps({"enabledPlugins": {pid: True for pid in installed}}, indent=2))
    return Tree(root, home, project, managed)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--skills", type=int, default=5000)
    ap.add_argument("--plugins", type=int, default=50)
    ap.add_argument("--per-plugin", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    tree = generate(a.dir, a.skills, a.plugins, a.per_plugin, a.seed)
    print(f"home={tree.home}\nproject={tree.project}\nmanaged={tree.managed}")


if __name__ == "__main__":
    main()
