"""Replays every recorded real-runtime case under tests/fixtures/<runtime>/ (tree + the real tool's output, recorded by
tools/differential.py --record or tools/rerecord_fixtures.py): skilltui must give the same answer, byte for byte."""

from __future__ import annotations

import fixturelib
import pytest

CASES = fixturelib.cases()


@pytest.mark.parametrize("case_dir", CASES, ids=[f"{c.parent.name}/{c.name}" for c in CASES])
def test_recorded_case(case_dir, tmp_path, monkeypatch):
    from skilltui.runtimes.codex import discovery as codex

    monkeypatch.setattr(codex, "SYSTEM_CONFIG_DIR", str(tmp_path / "no-etc-codex"))  # the oracle has no /etc/codex
    tree, want = fixturelib.load(case_dir)
    root = fixturelib.materialise(tree, tmp_path)
    assert len(str(root)) == fixturelib.TREE_LEN or len(str(tmp_path.resolve())) >= fixturelib.TREE_LEN - 1
    diffs = fixturelib.compare(tree, root, fixturelib.expected_at(want, root))
    assert diffs == []


def test_a_changed_answer_is_a_difference(tmp_path):
    """The comparison itself can fail: a recorded case with one description changed shows a difference."""
    case_dir = next(c for c in CASES if c.parent.name == "codex")
    tree, want = fixturelib.load(case_dir)
    root = fixturelib.materialise(tree, tmp_path)
    want = fixturelib.expected_at(want, root)
    want["skills"][0]["description"] += " (changed)"
    diffs = fixturelib.compare(tree, root, want)
    assert diffs and diffs[0].startswith("skills[0]")
