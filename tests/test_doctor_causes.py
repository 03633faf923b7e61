"""One finding per fact (issue #13): where several lenses (runtimes, the Agent Skills spec, the plugin check) state the
same cause about one file, the doctor reports it once and lists the lenses that agree. Checked on a tree of our own
with one file per shared cause, on the demo, on every recorded fixture tree and on the corpus."""

from __future__ import annotations

import json
import os
from pathlib import Path

import fixturelib
import pytest

from skilltui import cli, doctor
from skilltui.model import Diagnostic, Options
from skilltui.runtimes import REGISTRY

ALL = tuple(REGISTRY)


def shared_causes(diags: list[Diagnostic]) -> list[str]:
    """Every pair of findings that name one file (by its real path) and one cause: what must never be shown."""
    seen: dict[tuple[str, str], Diagnostic] = {}
    twice = []
    for d in diags:
        cause = doctor.cause_of(d)
        if cause is None or d.path is None:
            continue
        key = (cause, os.path.realpath(d.path))
        if key in seen:
            twice.append(f"{seen[key].code} and {d.code} both say {cause} of {d.path}")
        seen[key] = d
    return twice


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


# file under the home -> (the cause, the code kept (the most severe), every lens that states it)
EXPECTED = {
    ".claude/skills/retry/SKILL.md": ("frontmatter-invalid", "claude-frontmatter-retried", {"Claude Code", "Agent Skills spec"}),
    ".agents/skills/colon/SKILL.md": ("frontmatter-invalid", "gemini-yaml-fallback", {"Gemini CLI", "Agent Skills spec"}),
    ".agents/skills/bare/SKILL.md": ("frontmatter-missing", "codex-frontmatter-missing",
                                     {"Codex", "Gemini CLI", "Agent Skills spec"}),
    ".agents/skills/nodesc/SKILL.md": ("description-missing", "codex-description-missing",
                                       {"Codex", "Gemini CLI", "Agent Skills spec"}),
    ".agents/skills/noname/SKILL.md": ("name-missing", "gemini-invalid-frontmatter", {"Gemini CLI", "Agent Skills spec"}),
    ".agents/skills/long/SKILL.md": ("description-too-long", "codex-description-long", {"Codex", "Agent Skills spec"}),
    ".claude/skills/capped/SKILL.md": ("description-too-long", "claude-description-capped",
                                       {"Claude Code", "Agent Skills spec"}),
    f".agents/skills/{'n' * 70}/SKILL.md": ("name-too-long", "codex-name-too-long", {"Codex", "Agent Skills spec"}),
    ".agents/skills/group/deep/SKILL.md": ("too-deep", "gemini-too-deep", {"Gemini CLI", "oh-my-pi"}),
    ".claude/skills/group/deep/SKILL.md": ("too-deep", "claude-nested-skill-ignored", {"Claude Code", "oh-my-pi"}),
}


def _tree(tmp_path: Path) -> Options:
    home, repo = tmp_path / "home", tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    skills, agents = home / ".claude/skills", home / ".agents/skills"
    write(skills / "retry/SKILL.md", "---\nname: retry\ndescription: Deploy checklist: build, tag\n---\nBody\n")
    write(skills / "capped/SKILL.md", "---\nname: capped\ndescription: " + "y" * 2000 + "\n---\nBody\n")
    write(skills / "group/deep/SKILL.md", "---\nname: deep\ndescription: Deep.\n---\nBody\n")
    write(agents / "colon/SKILL.md", "---\nname: colon\ndescription: Deploy: build, tag\n---\nBody\n")
    write(agents / "bare/SKILL.md", "Just text, no frontmatter.\n")
    write(agents / "nodesc/SKILL.md", "---\nname: nodesc\n---\nBody\n")
    write(agents / "noname/SKILL.md", "---\ndescription: Has no name.\n---\nBody\n")
    write(agents / "long/SKILL.md", "---\nname: long\ndescription: " + "x" * 1100 + "\n---\nBody\n")
    write(agents / f"{'n' * 70}/SKILL.md", f"---\nname: {'n' * 70}\ndescription: Long name.\n---\nBody\n")
    write(agents / "group/deep/SKILL.md", "---\nname: deep\ndescription: Deep.\n---\nBody\n")
    write(agents / "folder/SKILL.md", "---\nname: other-name\ndescription: Named otherwise.\n---\nBody\n")
    return Options(cwd=str(repo), home=str(home), managed_dir=str(tmp_path / "managed"), env={"HOME": str(home)})


def test_each_shared_cause_is_one_finding_with_the_lenses_that_agree(tmp_path):
    opts = _tree(tmp_path)
    diags = doctor.run(opts, ALL)
    assert shared_causes(diags) == []
    for rel, (cause, code, lenses) in EXPECTED.items():
        path = os.path.join(opts.home, rel)
        mine = [d for d in diags if d.path == path and doctor.cause_of(d) == cause]
        assert [(d.code, set(d.lenses)) for d in mine] == [(code, lenses)], (rel, [(d.code, d.lenses) for d in diags
                                                                                  if d.path == path])
        assert mine[0].to_json()["lenses"] == list(mine[0].lenses)
    # one lens alone lists none: the code already says who found it
    alone = [d for d in diags if d.path and d.path.endswith("folder/SKILL.md")]
    assert [(d.code, d.lenses) for d in alone] == [("spec-name-dir-mismatch", ())]


def test_the_merged_finding_keeps_the_most_severe_code(tmp_path):
    """Gemini CLI skips the file (error), Codex refuses it (error): one error, in the words of the runtime asked
    first, with both lenses listed on it."""
    opts = _tree(tmp_path)
    diags = [d for d in doctor.run(opts, ("gemini", "codex")) if d.path and d.path.endswith("nodesc/SKILL.md")]
    assert [(d.severity, d.code, set(d.lenses)) for d in diags] == [
        ("error", "gemini-invalid-frontmatter", {"Gemini CLI", "Codex"})]
    spec = [d for d in doctor.run(opts, ALL) if d.path and d.path.endswith("nodesc/SKILL.md")]
    assert [(d.severity, d.code, set(d.lenses)) for d in spec] == [  # a warning's lens joins the error it agrees with
        ("error", "codex-description-missing", {"Codex", "Gemini CLI", "Agent Skills spec"})]


def test_each_lens_is_who_found_it_not_the_codes_prefix(tmp_path):
    """Claude Code's own `plugin-manifest-invalid` and the plugin check's `plugin-manifest-name-invalid` are one
    cause (the manifest's name) seen by two lenses, though both codes start with `plugin-`."""
    case = next(c for c in fixturelib.cases() if c.name == "manifest-name-rules")
    tree, _ = fixturelib.load(case)
    root = fixturelib.materialise(tree, tmp_path)
    diags = doctor.run(fixturelib._claude_options(tree, root), ("claude",))
    named = [d for d in diags if doctor.cause_of(d) == "manifest-name-invalid"]
    assert named and shared_causes(diags) == []
    assert all(set(d.lenses) == {"Claude Code", "plugin consistency"} for d in named), [(d.code, d.lenses) for d in named]
    other = [d for d in diags if d.code == "plugin-manifest-invalid" and doctor.cause_of(d) is None]
    assert all("plugin.json: name: " not in d.message for d in other)


@pytest.mark.parametrize("manifest", ["[1]\n", "{not json\n"])
def test_a_plugin_json_that_does_not_parse_is_one_finding(tmp_path, manifest):
    """Claude Code rejects a plugin.json that is not a JSON object, or not JSON (oracle: "manifest must be an
    object"), and the plugin check reads the same file: one finding, both lenses."""
    case = next(c for c in fixturelib.cases() if c.name == "list-reads-broken-cached-manifest")
    tree, _ = fixturelib.load(case)
    root = fixturelib.materialise(tree, tmp_path)
    path = root / tree.home / ".claude/plugins/cache/mkt/e/1.0.0/.claude-plugin/plugin.json"
    path.write_text(manifest)
    diags = [d for d in doctor.run(fixturelib._claude_options(tree, root), ("claude",)) if d.path == str(path)]
    assert [(d.code, set(d.lenses)) for d in diags] == [("plugin-manifest-invalid", {"Claude Code", "plugin consistency"})]


def test_demo_yaml_retry_is_one_finding(tmp_path, monkeypatch, capsys):
    """The demo's yaml-retry: Claude Code loads it only after its quoting retry and the spec's strict YAML refuses
    it. One fact, said once, with both lenses; the text output names them."""
    monkeypatch.setenv("SKILLTUI_DEMO_DIR", str(tmp_path / "demo"))
    assert cli.main(["--demo-reset", "doctor", "--json"]) == 0
    diags = json.loads(capsys.readouterr().out)["diagnostics"]
    retry = [d for d in diags if d["path"] and d["path"].endswith("yaml-retry/SKILL.md")
             and not d["code"].startswith("omp-source")]
    assert [(d["code"], d.get("lenses")) for d in retry] == [("claude-frontmatter-retried", ["Claude Code", "Agent Skills spec"])]
    assert cli.main(["--demo", "doctor"]) == 0
    text = capsys.readouterr().out
    assert "spec-yaml-invalid" not in text
    assert "found by: Claude Code, Agent Skills spec" in text
    assert cli.main(["--demo", "--runtime", "all", "doctor", "--json"]) == 0
    everything = [Diagnostic(**d) for d in json.loads(capsys.readouterr().out)["diagnostics"]]
    assert shared_causes(everything) == []


def _fixture_runs(base: Path):
    """(name, options) for every recorded tree: the runtime kits' cases, the Claude kit's, Gemini's."""
    import test_findings as tf
    from test_gemini import materialize, options

    for i, case in enumerate(fixturelib.cases()):
        tree, _ = fixturelib.load(case)
        root = fixturelib.materialise(tree, base / f"f{i}")
        runtime = "claude" if tree.runtime.startswith("claude") else tree.runtime
        if runtime == "claude":
            yield case.name, fixturelib._claude_options(tree, root)
        else:
            yield case.name, Options(cwd=str(root / tree.cwd), home=str(root / tree.home), runtime=runtime,
                                     env=fixturelib._env(tree, root))
    for j, case in enumerate(tf.CLAUDE_CASES):
        data = tf.CLAUDE_KIT.load(case)
        run = data["runs"][0]
        root = tf.CLAUDE_KIT.build(data, base / f"k{j}")
        home = root / data.get("home", "home")
        yield case.name, Options(cwd=str(root / data.get("cwd", "repo")), home=str(home), runtime="claude",
                                 managed_dir=str(root / data.get("managed_dir", "no-managed-dir")),
                                 add_dirs=[str(root / d) for d in run.get("add_dirs", [])],
                                 env={"HOME": str(home), **tf.CLAUDE_KIT.run_env(run, root)})
    for k, name in enumerate(tf.GEMINI_CASES):
        tree, meta, _ = materialize(name, base / f"g{k}")
        yield name, options(tree, meta)


def test_no_two_findings_share_a_file_and_a_cause_on_the_fixture_trees(tmp_path, monkeypatch):
    """Every recorded tree, seen by all four runtimes at once (more lenses on each file than its own runtime)."""
    from skilltui.runtimes.codex import discovery as codex

    monkeypatch.setattr(codex, "SYSTEM_CONFIG_DIR", str(tmp_path / "no-etc-codex"))
    twice, merged, runs = [], 0, 0
    for name, opts in _fixture_runs(tmp_path):
        diags = doctor.run(opts, ALL)
        twice += [f"{name}: {t}" for t in shared_causes(diags)]
        merged += sum(len(d.lenses) > 1 for d in diags)
        runs += 1
    assert runs > 100 and twice == []
    assert merged > 20  # the trees do hold causes several lenses state: the check above is not vacuous


@pytest.mark.slow
def test_no_two_findings_share_a_file_and_a_cause_on_the_corpus(corpus_tree, tmp_path):
    from test_corpus_claude import _mount

    diags = doctor.run(_mount(corpus_tree, tmp_path), ALL)
    assert shared_causes(diags) == []
    merged = [d for d in diags if len(d.lenses) > 1]
    # the 29 secondsky skills whose YAML fails even after Claude Code's retry: one finding each for the bad YAML
    # (Claude Code, the plugin check, oh-my-pi, the spec) and one for the description it therefore lacks
    bad_yaml = [d for d in merged if doctor.cause_of(d) == "frontmatter-invalid"
                and "secondsky" in os.path.realpath(d.path or "")]
    assert len(bad_yaml) >= 29
    assert all({"Claude Code", "Agent Skills spec"} <= set(d.lenses) for d in bad_yaml)
