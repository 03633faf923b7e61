"""The fast paths of discovery against the slow code they stand in for, on real files in tmp dirs (no mocks).

Each fast path must give exactly what the general code gives: sanitising printable ASCII, typing plain scalars, the
one-regex frontmatter reader, the capped-description check, the first body line; and the catalog, which no longer
keeps SKILL.md bodies in memory, must still hand every reader the whole body.
"""

from __future__ import annotations

import os
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_frontmatter import KEYS, VALUE, _same
from treelib import Link, build, md

from skilltui import doctor, preview, yaml_fast
from skilltui.frontmatter import (
    FileFrontmatter,
    YamlError,
    _claude_retry_block,
    _claude_split,
    _plain_scalar,
    _plain_scalar_full,
    claude_body,
    load_yaml12_full,
    parse_claude,
    read_capped,
    read_text,
)
from skilltui.model import Frontmatter, Options, Skill
from skilltui.runtimes import discover
from skilltui.runtimes.claude import discovery as claude
from skilltui.runtimes.claude.listing import entry_text
from skilltui.text import _sanitize_full, sanitize


def _opts(root) -> Options:
    home = root / "home"
    return Options(cwd=str(root / "proj"), home=str(home), managed_dir=str(root / "managed"), env={"HOME": str(home)})


# ---------------------------------------------------------------- text.sanitize
ASCII = "".join(map(chr, range(128)))


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=ASCII + "é\u200b\u2028👩\u200d💻", max_size=40))
def test_sanitize_fast_path_equals_full(s):
    assert sanitize(s) == _sanitize_full(s)


def test_sanitize_fast_path_is_exactly_the_printable_ascii():
    # The fast path is taken for printable ASCII: no character of it may be one the full rules change (but < and >).
    for ch in ASCII:
        if ch.isprintable():
            assert _sanitize_full(ch) == {"<": "&lt;", ">": "&gt;"}.get(ch, ch)
        else:
            assert _sanitize_full("a" + ch + "b") == "a b"


# ---------------------------------------------------------------- YAML: plain scalars, double-quoted escapes
@settings(max_examples=800, deadline=None)
@given(st.one_of(st.sampled_from(["", "~", "null", "Null", "NULL", "nul", "true", "True", "TRUE", "tRUE", "false",
                                  "FALSE", "n", "t", "f", "0x1F", "0o17", "-1", "+2", ".inf", "-.Inf", ".nan", "1e3",
                                  "3.10", "1_000", "~x", "Nope"]),
                 st.text(alphabet="~nNtTfF-+.0123456789xoeaE_ ", max_size=8)))
def test_plain_scalar_shortcut_equals_the_resolvers(v):
    assert _same(_plain_scalar(v), _plain_scalar_full(v))


DQ_PIECES = st.sampled_from(["a", " ", "é", ":", ": ", " #", "'", '\\"', "\\\\", "\\n", "\\t", "\\/", "\\x41", "\\",
                             '"', "\t"])


@settings(max_examples=1000, deadline=None)
@given(st.lists(DQ_PIECES, max_size=8), st.sampled_from(["", " ", "  "]))
def test_double_quoted_escapes_agree_with_the_full_parser(pieces, trail):
    text = 'name: x\ndescription: "' + "".join(pieces) + '"' + trail + "\n"
    fast = yaml_fast.simple_mapping(text, _plain_scalar)
    if fast is not None:
        assert _same(fast, load_yaml12_full(text)), text
    if all(p not in ("\\n", "\\t", "\\/", "\\x41", "\\", '"', "\t") for p in pieces):
        assert fast is not None, text  # only \" and \\ escapes: read without the parser


def test_every_mapping_holds_one_copy_of_each_key():
    """Thousands of files repeat the same few keys: each parsed mapping holds the first copy read, not its own."""
    one = yaml_fast.simple_mapping("name: a\ndescription: b\nmetadata:\n  version: 1\n", _plain_scalar)
    two = yaml_fast.simple_mapping("".join(["descr", "iption: c\n", "na", "me: d\nmetadata:\n  ver", "sion: 2\n"]), _plain_scalar)
    assert one is not None and two is not None
    keys = {k: k for k in one} | {k: k for k in one["metadata"]}
    assert all(keys[k] is k for k in [*two, *two["metadata"]]), "a key string not shared"


def test_escaped_double_quotes_need_no_full_parse():
    block = 'name: x\ndescription: "Say \\"deploy\\" to ship \\\\ now."\n'
    want = {"name": "x", "description": 'Say "deploy" to ship \\ now.'}
    assert yaml_fast.simple_mapping(block, _plain_scalar) == want
    fm = parse_claude("---\n" + block + "---\nBody\n")
    assert fm.status == "ok" and fm.data["description"] == 'Say "deploy" to ship \\ now.'


# ---------------------------------------------------------------- YAML: an unquoted `: ` read without PyYAML
def _check_known_error(text: str) -> bool:
    """What the fast path says of `text` with known_errors is what the full parser says; True when it raised."""
    try:
        fast = yaml_fast.simple_mapping(text, _plain_scalar, known_errors=True)
    except yaml_fast.KnownError as known:
        try:
            load_yaml12_full(text, True, True)
        except YamlError as err:
            assert (str(err), err.line) == (str(known), known.line), text
            return True
        raise AssertionError(f"the fast path found an error the parser does not: {text!r}") from None
    if fast is not None:
        assert _same(fast, load_yaml12_full(text, True, True)), text
    return False


COLON_VALUE = st.tuples(st.text(alphabet="ab :#-'\"[]{},&*!|>%@`?é\u00a0", max_size=8),
                        st.sampled_from([": ", " : ", ":: ", ": #", " #: ", "#: "]),
                        st.text(alphabet="ab :#-'\"[]é", max_size=8)).map(lambda t: " " + "".join(t))


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.tuples(KEYS, st.one_of(VALUE, COLON_VALUE)), min_size=1, max_size=5), st.booleans())
def test_known_errors_are_the_full_parsers(pairs, final_newline):
    _check_known_error("\n".join(f"{k}:{v}" for k, v in pairs) + ("\n" if final_newline else ""))


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.tuples(KEYS, VALUE), max_size=3), st.sampled_from(["name", "description", "x_y"]), COLON_VALUE,
       st.lists(st.tuples(KEYS, st.one_of(VALUE, COLON_VALUE)), max_size=2))
def test_an_unquoted_colon_after_any_lines(before, key, value, after):
    """The line with the `: ` comes after other lines, read or not, and before anything."""
    _check_known_error("\n".join(f"{k}:{v}" for k, v in [*before, (key, value), *after]) + "\n")


def test_an_unquoted_colon_needs_no_pyyaml():
    block = "name: a\ndescription: Deploys things: use it for releases.\nlicense: MIT\n"
    with pytest.raises(yaml_fast.KnownError) as known:
        yaml_fast.simple_mapping(block, _plain_scalar, known_errors=True)
    assert known.value.line == 1 and _check_known_error(block)
    assert yaml_fast.simple_mapping(block, _plain_scalar) is None  # without known_errors: the caller decides
    fm = parse_claude("---\n" + block + "---\nBody\n")
    assert (fm.status, fm.error, fm.error_line) == ("retried", yaml_fast.MAPPING_VALUE_ERROR, 3)
    assert fm.data == {"name": "a", "description": "Deploys things: use it for releases.", "license": "MIT"}


def test_known_errors_agree_on_every_corpus_frontmatter(corpus_tree):
    raised = 0
    for path in sorted(corpus_tree.rglob("*.md")):
        if path.is_symlink() or not path.is_file():
            continue
        text = path.read_text(encoding="utf-8", errors="replace").removeprefix("\ufeff")
        split = _claude_split(text)
        if split is None:
            continue
        block = text[split[0] : split[1]]
        if _check_known_error(block):
            raised += 1
            _check_known_error(_claude_retry_block(block))
    assert raised >= 20  # the corpus holds 29 SKILL.md files with an unquoted `: ` (STATS.md)


# ---------------------------------------------------------------- claude: first body line, the cap check
def _first_body_line_by_split(body: str) -> str | None:
    """The former implementation (split every line), the reference for the one that stops at the first line."""
    for line in body.split("\n"):
        line = line.strip()
        if line:
            if line.startswith("#"):
                stripped = line.lstrip("#")
                line = stripped[1:] if stripped.startswith(" ") else stripped
            if claude.utf16_len(line) > 100:
                line = claude._utf16_prefix(line, 97) + "..."
            return line
    return None


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="\n \t#ab\u00a0\u2028\x1c😀", max_size=30) | st.text(alphabet="\na#", max_size=400).map(
    lambda s: s + "x" * 120))
def test_first_body_line_equals_the_split_version(body):
    assert claude.first_body_line(body) == _first_body_line_by_split(body)


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="a<>\x1b[m\u200b😀 ", max_size=60), st.none() | st.text(alphabet="b<>\u2028 ", max_size=30),
       st.none() | st.just(" (scoped to x/)"), st.integers(0, 120))
def test_capped_check_equals_entry_text(desc, wtu, suffix, cap):
    s = Skill(name="n", source="user", path="p", root="r", description=desc, when_to_use=wtu)
    s.scoped_suffix = suffix
    assert bool(claude._capped(s, cap)) == entry_text(s, cap)[1]


# ---------------------------------------------------------------- reading files
def test_read_capped_regular_files_only(tmp_path):
    good = tmp_path / "good.md"
    good.write_bytes(b"---\ndescription: ok\n---\n" + b"x" * 100)
    text, size, truncated, bad = read_capped(str(good), 1_000, os.stat(good))
    assert text.startswith("---\ndescription: ok") and size == good.stat().st_size and not truncated and not bad
    text, size, truncated, bad = read_capped(str(good), 10, os.stat(good))
    assert text == "---\ndescri" and truncated
    latin = tmp_path / "latin.md"
    latin.write_bytes(b"caf\xe9")
    assert read_capped(str(latin), 100, os.stat(latin))[0] == "caf\ufffd" and read_text(str(latin), 100).invalid_utf8
    folder = tmp_path / "dir.md"
    folder.mkdir()
    with pytest.raises(OSError):
        read_capped(str(folder), 100, os.stat(folder))


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_named_skill_md_is_invalid_and_never_blocks(tmp_path):
    build(tmp_path, {"proj/.git": {}, "home/.claude/skills/ok/SKILL.md": md("fine"),
                     "home/.claude/skills/linked/SKILL.md": Link("../../../../pipe")})
    os.mkdir(tmp_path / "home/.claude/skills/fifo")
    os.mkfifo(tmp_path / "home/.claude/skills/fifo/SKILL.md")
    os.mkfifo(tmp_path / "pipe")
    t0 = time.monotonic()
    catalog = discover(_opts(tmp_path))
    assert time.monotonic() - t0 < 10
    by_name = {s.name: s for s in catalog.skills}
    assert by_name["ok"].status == "listed"
    for name in ("fifo", "linked"):
        assert by_name[name].status == "invalid" and "cannot be read" in by_name[name].reason


# ---------------------------------------------------------------- bodies are not kept, yet every reader sees them whole
def test_file_frontmatter_has_every_field_but_the_body_and_block(tmp_path):
    from dataclasses import fields

    path = tmp_path / "SKILL.md"
    text = "\ufeff---\ndescription: d\n---\n\n# Title\nbody\n"
    path.write_text(text, encoding="utf-8")
    whole = parse_claude(text)
    lean = parse_claude(text, (str(path), 1_000_000))
    assert isinstance(lean, FileFrontmatter) and "body" not in vars(lean) and "raw" not in vars(lean)
    for f in fields(Frontmatter):
        assert getattr(lean, f.name) == getattr(whole, f.name), f.name
    assert lean.body == whole.body == claude_body(text) == "# Title\nbody\n"
    assert lean.raw == whole.raw == "description: d\n"
    for name in ("body", "raw"):
        with pytest.raises(AttributeError):
            setattr(lean, name, "x")
    no_block = parse_claude("just a body\n", (str(path), 1_000_000))
    assert no_block.present is False and no_block.status == "none" and no_block.data == {}


def test_file_frontmatter_reads_the_file_as_it_is_now(tmp_path):
    path = tmp_path / "SKILL.md"
    path.write_text("---\ndescription: d\n---\nfirst\n", encoding="utf-8")
    fm = parse_claude(path.read_text(), (str(path), 1_000_000))
    path.write_text("---\ndescription: e\n---\nsecond\n", encoding="utf-8")
    assert fm.body == "second\n" and fm.raw == "description: e\n"
    path.unlink()
    assert fm.body == fm.raw == ""  # gone: nothing to show, and no exception in a preview


def test_a_body_far_longer_than_any_prefix_is_read_whole_by_its_readers(tmp_path):
    filler = "".join(f"Line {i} of a long body, to push the link far down.\n" for i in range(6000))  # ~300 KB
    text = md("big one", body="# Big\n\n" + filler + "\nSee [the end](references/missing.md).\n")
    build(tmp_path, {"proj/.git": {}, "home/.claude/skills/big/SKILL.md": text,
                     "home/.claude/skills/small/SKILL.md": md(None, body="\n\n## First line here\nmore\n")})
    catalog = discover(_opts(tmp_path))
    big = next(s for s in catalog.skills if s.name == "big")
    assert "body" not in vars(big.frontmatter)  # the catalog does not hold it
    body = claude_body(text)
    assert big.frontmatter.body == body
    line = text.split("\n").index("See [the end](references/missing.md).") + 1
    broken = [d for d in doctor.link_findings(catalog) if d.code == "skill-link-broken" and d.path == big.path]
    assert [(d.line, "references/missing.md" in d.message) for d in broken] == [(line, True)]
    details = preview.skill_details(catalog, big)
    assert details["body"] == body and details["references"][-1]["line"] == line
    small = next(s for s in catalog.skills if s.name == "small")
    assert small.description == "First line here"  # the description fallback, taken while the text was in hand


def test_refresh_reuses_the_parse_and_sees_changes(tmp_path):
    build(tmp_path, {"proj/.git": {}, "home/.claude/skills/a/SKILL.md": md("one")})
    first = discover(_opts(tmp_path))
    again = discover(_opts(tmp_path))
    a1, a2 = (next(s for s in c.skills if s.name == "a") for c in (first, again))
    assert a1.frontmatter is a2.frontmatter  # the parse cache, keyed by the scan's stat
    path = tmp_path / "home/.claude/skills/a/SKILL.md"
    path.write_text(md("two, longer"), encoding="utf-8")
    changed = next(s for s in discover(_opts(tmp_path)).skills if s.name == "a")
    assert changed.description == "two, longer"


def test_skills_dir_plugin_needs_a_plugin_json_file(tmp_path):
    build(tmp_path, {"proj/.git": {},
                     "home/.claude/skills/real/.claude-plugin/plugin.json": {"name": "real"},
                     "home/.claude/skills/real/SKILL.md": md("r"),
                     "home/.claude/skills/fake/SKILL.md": md("f"),
                     "home/.claude/skills/linked": Link("../../elsewhere/p"),
                     "home/elsewhere/p/.claude-plugin/plugin.json": {"name": "p"},
                     "home/elsewhere/p/SKILL.md": md("p")})
    os.makedirs(tmp_path / "home/.claude/skills/fake/.claude-plugin/plugin.json")  # a folder, not a file
    ids = [p.id for p in discover(_opts(tmp_path)).plugins if p.kind == "skills-dir"]
    assert sorted(ids) == ["linked@skills-dir", "real@skills-dir"]  # in the folder's (unsorted) order, as Claude Code
