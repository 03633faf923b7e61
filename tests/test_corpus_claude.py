"""The corpus through the Claude Code engine: every SKILL.md, command and plugin, no exception, counts pinned."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from skilltui import cli, doctor
from skilltui.model import Options
from skilltui.runtimes import discover
from skilltui.runtimes.claude.discovery import first_body_line

pytestmark = pytest.mark.slow  # sweeps the whole corpus; the quick run relies on the small fixtures


def _mount(corpus: Path, base: Path) -> Options:
    """A home whose plugins are every corpus plugin (installed, enabled), and a project whose skills are every skill."""
    home, proj = base / "home", base / "proj"
    skills = proj / ".claude" / "skills"
    skills.mkdir(parents=True)
    (proj / ".git").mkdir()
    for i, md in enumerate(sorted(corpus.rglob("SKILL.md"))):
        if md.is_file() and not md.is_symlink():
            (skills / f"s{i:04d}-{md.parent.name}").symlink_to(md.parent)
    commands = proj / ".claude" / "commands"
    commands.mkdir()
    for i, cmd_dir in enumerate(sorted(corpus.rglob("commands"))):
        if cmd_dir.is_dir() and not cmd_dir.is_symlink():
            (commands / f"c{i:03d}").symlink_to(cmd_dir)
    records, enabled = {}, {}
    for i, manifest in enumerate(sorted(corpus.rglob(".claude-plugin/plugin.json"))):
        pid = f"p{i:03d}@corpus"
        records[pid] = [{"scope": "user", "installPath": str(manifest.parent.parent), "version": "1.0.0"}]
        enabled[pid] = True
    pdir = home / ".claude" / "plugins"
    pdir.mkdir(parents=True)
    (pdir / "installed_plugins.json").write_text(json.dumps({"version": 2, "plugins": records}))
    # A marketplace that lists every plugin (Claude Code loads none that its marketplace does not list, §10.4).
    market = pdir / "marketplaces" / "corpus"
    (market / ".claude-plugin").mkdir(parents=True)
    (market / ".claude-plugin" / "marketplace.json").write_text(json.dumps({"name": "corpus", "owner": {"name": "o"}, "plugins": [
        {"name": pid.split("@")[0], "source": {"source": "github", "repo": f"o/{pid}"}} for pid in records]}))
    (pdir / "known_marketplaces.json").write_text(json.dumps({"corpus": {
        "source": {"source": "github", "repo": "o/corpus"}, "installLocation": str(market)}}))
    (home / ".claude" / "settings.json").write_text(json.dumps({"enabledPlugins": enabled}))
    return Options(cwd=str(proj), home=str(home), managed_dir=str(base / "managed"), env={"HOME": str(home)})


@pytest.fixture(scope="module")
def corpus_catalog(corpus_tree, tmp_path_factory):
    opts = _mount(corpus_tree, tmp_path_factory.mktemp("mount"))
    return opts, discover(opts)


def test_every_file_goes_through(corpus_catalog):
    opts, catalog = corpus_catalog
    project = [s for s in catalog.skills if s.source == "project"]
    plugins = [p for p in catalog.plugins if p.kind == "marketplace"]
    assert len(project) == 1024  # every regular SKILL.md of the corpus (STATS.md)
    assert len(plugins) == 265  # every .claude-plugin/plugin.json
    # Every plugin loads but the one whose plugin.json Claude Code rejects ("agents": ["./agents"], spec §10.2).
    rejected = [p for p in plugins if not p.loads]
    assert [(p.blocked, p.install_path.rsplit("/", 1)[-1]) for p in rejected] == [("manifest-invalid", "pptx-deck-creation")]
    assert all(s.frontmatter is not None for s in catalog.skills if not s.shipped and s.status != "invalid")
    legacy = [s for s in catalog.skills if s.source == "legacy-command"]
    assert len(legacy) > 150


def test_frontmatter_outcomes(corpus_catalog):
    """PyYAML (1.1) rejects 29 SKILL.md blocks; Claude Code's retry rule recovers some, the rest get a diagnostic."""
    _, catalog = corpus_catalog
    project = [s for s in catalog.skills if s.source == "project"]
    status = Counter(s.frontmatter.status for s in project)
    assert status["retried"] + status["invalid"] >= 29 - 1  # YAML 1.2 accepts what 1.1 chokes on, never less
    invalid = [s for s in project if s.frontmatter.status == "invalid"]
    retried = [s for s in project if s.frontmatter.status == "retried"]
    by_path = {(d.code, d.path) for d in catalog.diagnostics}
    for s in retried:
        assert ("claude-frontmatter-retried", s.path) in by_path
    for s in invalid:
        assert ("claude-frontmatter-invalid", s.path) in by_path
        diag = next(d for d in catalog.diagnostics if d.path == s.path and d.code == "claude-frontmatter-invalid")
        assert diag.line is not None
    assert status == Counter(PINNED_STATUS), dict(status)
    for s in invalid:  # all fields ignored: the description falls back to the first body line (§5.3)
        assert s.description == first_body_line(s.frontmatter.body)
        assert s.description and not s.description.startswith("---")


# Observed on the corpus with the rules of spec/claude-code.md §5.1 (YAML 1.2 core schema, one quoting retry).
# The 28 unquoted ': ' blocks fail again after the retry (the ': ' sits on an indented continuation line, which the
# retry does not touch), as do the '@' key and the stray indentation. The corpus's one CRLF file parses (§5.1, observed).
PINNED_STATUS = {"ok": 994, "retried": 0, "invalid": 29, "none": 1}


def test_cli_json_on_corpus(corpus_catalog, capsys):
    opts, _ = corpus_catalog
    code = cli.main(["--cwd", opts.cwd, "--home", opts.home, "--managed-dir", opts.managed_dir, "list", "--all", "--json"])
    out = capsys.readouterr().out
    assert code == 0
    data = json.loads(out)
    assert len([s for s in data["skills"] if s["source"] == "project"]) == 1024


def test_doctor_on_corpus(corpus_catalog):
    opts, _ = corpus_catalog
    diags = doctor.run(opts, ("claude",))
    counts = doctor.counts(diags)
    assert counts.get("doctor-check-failed", 0) == 0
    assert counts["claude-frontmatter-retried"] + counts.get("claude-frontmatter-invalid", 0) >= 28


def test_doctor_counts_match_stats(corpus_tree, tmp_path):
    """STATS.md: 213 dangling SKILL.md links, all in one folder; mounted as a skills root each is one finding."""
    proj = tmp_path / "proj"
    (proj / ".claude").mkdir(parents=True)
    (proj / ".git").mkdir()
    (proj / ".claude" / "skills").symlink_to(corpus_tree / "alirezarezvani__claude-skills" / ".gemini" / "skills")
    home = tmp_path / "home"
    home.mkdir()
    opts = Options(cwd=str(proj), home=str(home), managed_dir=str(tmp_path / "m"), env={"HOME": str(home)})
    counts = doctor.counts(doctor.run(opts, ("claude",)))
    assert counts["claude-link-broken"] == 213
