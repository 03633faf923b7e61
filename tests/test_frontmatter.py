"""Frontmatter reading: YAML 1.2 scalars, the fast path agreeing with the full parser, Claude's split and retry."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from skilltui import yaml_fast
from skilltui.frontmatter import (
    YamlError,
    _plain_scalar,
    load_yaml12,
    load_yaml12_full,
    parse_claude,
)

SCALARS = ["yes", "no", "on", "off", "true", "False", "NULL", "~", "3.10", "1:30", "2024-01-01", "0x1F", "0o17", "017",
           "-1", "+2", ".inf", "-.Inf", ".NaN", "1e3", "1_000", "a b", "café", "x-y", "a:b", "a #b", "a: b", "'q'", '"q"',
           "[a]", "{a: 1}", "- a", "*x", "&x a", "!tag a", "|", ">", "@a", "`a`", "%a", "a:", "?a", ",a", "a\tb"]


def test_yaml12_core_schema_scalars():
    data = load_yaml12("a: yes\nb: on\nc: 2024-01-01\nd: 1:30\ne: 3.10\nf: 0o17\ng: 0x1F\nh: ~\ni: true\nj: .inf")
    assert data == {"a": "yes", "b": "on", "c": "2024-01-01", "d": "1:30", "e": 3.1, "f": 15, "g": 31, "h": None,
                    "i": True, "j": math.inf}


KEYS = st.sampled_from(["name", "description", "when_to_use", "allowed-tools", "metadata", "true", "null", "x_y", "on"])
WORDS = st.one_of(st.sampled_from(SCALARS), st.text(alphabet="ab :#-'\"\\[],{}&*!|>é日\u00a0\x07", max_size=10))
VALUE = st.one_of(
    WORDS.map(lambda w: " " + w),
    WORDS.map(lambda w: f" '{w}'"),
    WORDS.map(lambda w: f' "{w}"'),
    st.lists(WORDS, max_size=4).map(lambda ws: " [" + ", ".join(ws) + "]"),
    st.tuples(st.sampled_from([" |", " >", " |-", " >-", " |+", " >+"]), st.lists(WORDS, min_size=0, max_size=4),
              st.sampled_from(["  ", "    ", "   "])).map(
        lambda t: t[0] + "".join("\n" + (t[2] + w if w.strip() else w) for w in t[1])),
    st.tuples(st.lists(WORDS, min_size=1, max_size=3), st.sampled_from(["  - ", "- ", "    - "])).map(
        lambda t: "".join("\n" + t[1] + w for w in t[0])),
    st.lists(st.tuples(st.from_regex(r"[a-z][a-z_-]{0,5}", fullmatch=True), WORDS), min_size=1, max_size=3).map(
        lambda kv: "".join(f"\n  {k}: {v}" for k, v in kv)),
    st.just(""),
)


def _same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float) and a != a and b != b:
        return True
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.tuples(KEYS, VALUE), min_size=1, max_size=5), st.booleans())
def test_fast_path_agrees_with_full_parser(pairs, final_newline):
    text = "\n".join(f"{k}:{v}" for k, v in pairs) + ("\n" if final_newline else "")
    fast = yaml_fast.simple_mapping(text, _plain_scalar)
    if fast is None:
        return
    try:
        full = load_yaml12_full(text)
    except YamlError as err:
        raise AssertionError(f"fast path accepted what the parser rejects: {text!r}") from err
    assert _same(fast, full), (text, fast, full)


def test_fast_path_covers_most_real_frontmatter():
    docs = ["name: a\ndescription: \"Use when: x\"\nallowed-tools: [Read, Write]\n",
            "name: a\ndescription: >\n  folded\n  text\nmetadata:\n  version: 1.0.0\n  author: me\n",
            "name: a\ndescription: |\n  line one\n  line two\nallowed-tools:\n  - Read\n  - Bash(git *)\n"]
    for doc in docs:
        fast = yaml_fast.simple_mapping(doc, _plain_scalar)
        assert fast is not None and _same(fast, load_yaml12_full(doc)), doc


def test_alias_bomb_is_refused_with_a_line():
    bomb = "a: &a [x,x,x,x,x,x,x,x,x]\n" + "".join(
        f"{c}: &{c} [{', '.join(['*' + p] * 9)}]\n" for p, c in zip("abcdefg", "bcdefgh"))
    try:
        load_yaml12(bomb)
    except YamlError as exc:
        assert "alias" in str(exc) and exc.line is not None
    else:  # pragma: no cover
        raise AssertionError("an alias bomb must not load")


def test_claude_split_rules():
    fm = parse_claude("\ufeff---  \r\n\ndescription: x\n---\n\nbody\n")
    assert fm.status == "ok" and fm.data == {"description": "x"} and fm.body == "body\n"
    early = parse_claude("---\ndescription: a --- b\n---\nrest")
    assert early.early_close and early.data == {"description": "a"}
    assert parse_claude("---\nno close\n").present is False
    assert parse_claude("--- x\ndescription: y\n---\n").present is False
    listy = parse_claude("---\n- a\n- b\n---\nbody")
    assert listy.status == "not-mapping" and listy.data == {}


def test_claude_retry_quotes_risky_values():
    fm = parse_claude('---\nname: x\ndescription: has: a colon and "quotes" \\ back\n---\n')
    assert fm.status == "retried"
    assert fm.data["description"] == 'has: a colon and "quotes" \\ back'
    assert fm.error_line == 3


def test_claude_crlf_block_is_invalid():
    fm = parse_claude("---\r\ndescription: [x] y\r\n---\r\nBody line\r\n")
    assert fm.status == "invalid" and fm.data == {} and fm.body.startswith("Body line")
