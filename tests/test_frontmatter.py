"""Frontmatter reading: YAML 1.2 scalars, the fast path agreeing with the full parser, Claude's split and retry."""

from __future__ import annotations

import math

from hypothesis import given, settings, strategies as st

from skilltui.frontmatter import YamlError, _simple_mapping, load_yaml12, load_yaml12_full, parse_claude

SCALARS = ["yes", "no", "on", "off", "true", "False", "NULL", "~", "3.10", "1:30", "2024-01-01", "0x1F", "0o17", "017",
           "-1", "+2", ".inf", "-.Inf", ".NaN", "1e3", "1_000", "a b", "café", "x-y", "a:b", "a #b", "a: b", "'q'", '"q"',
           "[a]", "{a: 1}", "- a", "*x", "&x a", "!tag a", "|", ">", "@a", "`a`", "%a", "a:", "?a", ",a", "a\tb"]


def test_yaml12_core_schema_scalars():
    data = load_yaml12("a: yes\nb: on\nc: 2024-01-01\nd: 1:30\ne: 3.10\nf: 0o17\ng: 0x1F\nh: ~\ni: true\nj: .inf")
    assert data == {"a": "yes", "b": "on", "c": "2024-01-01", "d": "1:30", "e": 3.1, "f": 15, "g": 31, "h": None,
                    "i": True, "j": math.inf}


@settings(max_examples=400)
@given(st.lists(st.tuples(st.from_regex(r"[A-Za-z_][A-Za-z0-9_-]{0,8}", fullmatch=True),
                          st.one_of(st.sampled_from(SCALARS), st.text(min_size=0, max_size=12))), min_size=1, max_size=5),
       st.sampled_from(["", " ", "  "]))
def test_fast_path_agrees_with_full_parser(pairs, pad):
    text = "\n".join(f"{k}:{pad}{v}" if v else f"{k}:" for k, v in pairs)
    fast = _simple_mapping(text)
    if fast is None:
        return
    full = load_yaml12_full(text)
    assert fast.keys() == full.keys()
    for key in fast:
        a, b = fast[key], full[key]
        assert type(a) is type(b) and (a == b or (a != a and b != b)), (text, key, a, b)


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
