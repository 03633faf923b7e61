"""The ASCII collation key (skilltui.text: a `list` run over ASCII names never loads ICU) against ICU itself."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st
from treelib import build, md, run_loading

from skilltui import text

ASCII = st.text(alphabet=st.characters(max_codepoint=127), max_size=8)
NEAR = st.text(alphabet="aAbB-_ .:19\x00\x01\t~Zz", max_size=6)  # few letters: many ties and near ties


def _sign(a: object, b: object) -> int:
    return (a > b) - (a < b)  # type: ignore[operator]


def test_the_ascii_order_is_icus():
    """ASCII_ORDER again from ICU: the characters by their single-character sort key, ignorable ones left out."""
    keys = {chr(i): text.collation_key(chr(i)) for i in range(128)}
    ignorable = {c for c, k in keys.items() if k.split(b"\x01")[0] in (b"", b"\x00")}
    primary = {c: k.split(b"\x01")[0] for c, k in keys.items()}
    derived = sorted((c for c in keys if c not in ignorable), key=lambda c: (primary[c], c.isupper()))
    assert "".join(derived) == text.ASCII_ORDER
    assert ignorable == {chr(i) for i in [*range(0, 9), *range(14, 32), 127]}


@settings(max_examples=3000, deadline=None)
@given(a=ASCII | NEAR, b=ASCII | NEAR)
def test_ascii_key_orders_and_ties_as_icu(a, b):
    assert _sign(text.ascii_collation_key(a), text.ascii_collation_key(b)) == _sign(text.collation_key(a), text.collation_key(b))


@settings(max_examples=300, deadline=None)
@given(names=st.lists(ASCII | NEAR | st.text(max_size=4), max_size=12))
def test_collate_is_a_stable_sort_by_icus_key(names):
    items = list(enumerate(names))
    text.collate(items, lambda x: x[1])
    assert items == sorted(enumerate(names), key=lambda x: text.collation_key(x[1]))


def test_a_list_run_over_ascii_names_does_not_load_icu(tmp_path):
    build(tmp_path, {f"home/.claude/skills/{n}/SKILL.md": md(f"Skill {n}") for n in ("b-x", "A_y", "a.z", "B")})
    loaded, code, out = run_loading(tmp_path, "icu", "list", "--json", "--no-cache")
    assert (loaded, code) == (False, 0)
    names = [s["name"] for s in json.loads(out)["skills"] if s["source"] == "user"]
    assert names == sorted(names, key=text.collation_key) == ["A_y", "a.z", "B", "b-x"]  # '_' sorts before '.'

