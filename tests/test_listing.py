"""skilltui.listing against spec/claude-code.md §7.2, §8, §9, §12 and the claude-budget golden cases."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skilltui.model import Skill
from skilltui.runtimes.claude.listing import (
    PRESETS,
    BudgetParams,
    load_usage,
    model_info,
    prepare,
    resolve_budget,
    simulate,
    simulate_prepared,
    usage_score,
)
from skilltui.runtimes.claude.shipped import SHIPPED
from skilltui.text import width

DAY = 86_400_000
NOW = 1_796_205_169_817


def sk(name: str, description: str | None = None, **kw) -> Skill:
    return Skill(name=name, source=kw.pop("source", "user"), path="", root="", description=description, **kw)


def shipped(name: str) -> Skill:
    source = next(e.source for e in SHIPPED["2.1.332"] if e.name == name)
    return Skill(name=name, source=source, path="", root="", shipped=True)


def all_shipped(*, without: tuple[str, ...] = ()) -> list[Skill]:
    return [shipped(e.name) for e in SHIPPED["2.1.332"] if e.name not in without]


# --- §8.1 / §8.2 budget --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "env", "expected"),
    [
        ("claude-sonnet-4-6", {}, 8000),
        ("claude-sonnet-4-6[1m]", {}, 40000),
        ("claude-opus-4-7", {}, 30000),
        ("claude-opus-4-7[1m]", {}, 30000),
        ("claude-opus-4-6[1m]", {}, 40000),
        ("claude-sonnet-4-5[1m]", {}, 40000),
        ("claude-haiku-4-5", {}, 8000),
        ("claude-haiku-4-5[1m]", {}, 40000),  # any [1m] gets the 1M window (observed: model-windows)
        ("claude-opus-4[1m]", {}, 40000),
        ("claude-opus-4-1", {}, 30000),  # runs as claude-opus-5-5 (observed: the legacy remap)
        ("claude-opus-4-1", {"CLAUDE_CODE_DISABLE_LEGACY_MODEL_REMAP": "1"}, 8000),
        ("CLAUDE-OPUS-4-0[1m]", {}, 30000),
        ("claude-opus-4-20250514", {}, 30000),
        ("claude-opus-4-1-20250805", {"CLAUDE_CODE_DISABLE_1M_CONTEXT": "1"}, 6000),
        ("claude-opus-4", {}, 8000),  # not remapped
        ("claude-opus-4-0-20250514", {}, 8000),
        ("claude-opus-4-1@20250805", {}, 8000),
        ("claude-3-7-sonnet", {}, 8000),
        ("claude-sonnet-5", {}, 30000),
        ("claude-haiku-5-5", {}, 30000),
        ("claude-fable-5-1", {}, 30000),
        ("sonnet", {}, 30000),
        ("opus", {}, 30000),
        ("haiku", {}, 30000),
        ("claude-foo-9", {}, 30000),
        (None, {}, 8000),
        ("claude-sonnet-4-6", {"SLASH_COMMAND_TOOL_CHAR_BUDGET": "10,000"}, 10000),
        ("claude-sonnet-4-6", {"SLASH_COMMAND_TOOL_CHAR_BUDGET": "10_000"}, 10000),
        ("claude-sonnet-4-6", {"SLASH_COMMAND_TOOL_CHAR_BUDGET": "123"}, 123),
        ("claude-sonnet-4-6", {"SLASH_COMMAND_TOOL_CHAR_BUDGET": "0"}, 8000),
        ("claude-sonnet-4-6", {"SLASH_COMMAND_TOOL_CHAR_BUDGET": "lots"}, 8000),
        ("claude-sonnet-4-6", {"SLASH_COMMAND_TOOL_CHAR_BUDGET": ""}, 8000),
        ("claude-sonnet-4-6[1m]", {"CLAUDE_CODE_DISABLE_1M_CONTEXT": "1"}, 8000),
        ("claude-opus-4-7", {"CLAUDE_CODE_DISABLE_1M_CONTEXT": "1"}, 6000),
        ("claude-opus-4-7", {"DISABLE_COMPACT": "1", "CLAUDE_CODE_MAX_CONTEXT_TOKENS": "500000"}, 15000),
        ("claude-sonnet-4-6", {"DISABLE_COMPACT": "1", "CLAUDE_CODE_MAX_CONTEXT_TOKENS": "500000"}, 20000),
        ("claude-sonnet-4-6", {"CLAUDE_CODE_MAX_CONTEXT_TOKENS": "500000"}, 8000),  # needs DISABLE_COMPACT
    ],
)
def test_budget_vectors(model, env, expected) -> None:
    assert resolve_budget(env=env, model=model).budget == expected


@pytest.mark.parametrize(("model", "env", "where"), [
    ("claude-sonnet-4-6", {}, "user-message"), ("claude-sonnet-4-6[1m]", {}, "user-message"),
    ("claude-opus-4-7", {}, "user-message"), ("claude-opus-4-7-20260101", {}, "user-message"),
    ("claude-3-7-sonnet", {}, "user-message"), ("claude-haiku-4-5", {}, "user-message"), (None, {}, "user-message"),
    ("claude-opus-4-8", {}, "system-message"), ("claude-opus-5-5", {}, "system-message"),
    ("opus", {}, "system-message"), ("claude-foo-9", {}, "system-message"), ("claude-haiku-4", {}, "system-message"),
    ("claude-opus-4-1", {}, "system-message"),  # remapped to Opus 5.5
    ("claude-opus-4-1", {"CLAUDE_CODE_DISABLE_LEGACY_MODEL_REMAP": "1"}, "user-message"),
])
def test_listing_placement(model, env, where) -> None:
    """Observed with oracle.py (which reads only the `<system-reminder>` form) and tools/oracle_any_placement.py."""
    assert resolve_budget(env=env, model=model).placement == where


def test_budget_fraction_from_settings_and_flag() -> None:
    assert resolve_budget(env={}, model="claude-sonnet-4-6", settings_fraction=0.02).budget == 16000
    p = resolve_budget(env={}, model="claude-sonnet-4-6", settings_fraction=0.02, fraction=0.005)
    assert (p.budget, p.fraction, p.source) == (4000, 0.005, "formula")


def test_budget_precedence() -> None:
    env = {"SLASH_COMMAND_TOOL_CHAR_BUDGET": "1234"}
    assert resolve_budget(env=env, budget=99) == BudgetParams(99, 200000, 4, 0.01, "flag")
    assert resolve_budget(env=env, context_window=1_000_000) == BudgetParams(1234, 1_000_000, 4, 0.01, "env")
    p = resolve_budget(env={}, context_window=100_000, chars_per_token=3.5)
    assert (p.budget, p.source) == (3500, "formula")
    assert resolve_budget(env={}, context_window=10, fraction=0.0001).budget == 1  # max(1, …)


def test_model_info_and_presets() -> None:
    assert model_info("claude-sonnet-4-6", {}) == (200000, 4)
    assert model_info("claude-sonnet-4-5-20250929", {}) == (200000, 4)  # dated id
    assert model_info("claude-sonnet-4-20250514", {}) == (200000, 4)  # 4.0 dated id
    assert model_info("claude-opus-4-7", {}) == (1_000_000, 3)
    assert model_info(None, {"DISABLE_COMPACT": "true", "CLAUDE_CODE_MAX_CONTEXT_TOKENS": "300000"}) == (300000, 4)
    assert all(isinstance(label, str) and model_info(mid, {}).window > 0 for label, mid in PRESETS)
    assert len({mid for _, mid in PRESETS}) == len(PRESETS)
    from skilltui.budget import DEFAULT_MODEL

    assert DEFAULT_MODEL in {mid for _, mid in PRESETS}  # the picker can show the model that runs with nothing set


# --- §8.4 step 7 usage -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("count", "days", "expected"),
    [(50, 0, 50.0), (2, 7, 1.0), (3, 14, 0.75), (1, 100, 0.1), (4, 3.5, 4 * 0.5**0.5)],
)
def test_usage_score_vectors(count, days, expected) -> None:
    assert usage_score(count, NOW - days * DAY, NOW) == pytest.approx(expected, rel=1e-12)


def test_load_usage(tmp_path: Path) -> None:
    assert load_usage(str(tmp_path / "missing.json")) == {}
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert load_usage(str(bad)) == {}
    bad.write_bytes(b"\xff\xfe\x00")
    assert load_usage(str(bad)) == {}
    bad.write_text('["a list"]')
    assert load_usage(str(bad)) == {}
    bad.write_text('{"skillUsage": 3}')
    assert load_usage(str(bad)) == {}
    assert load_usage(str(tmp_path)) == {}  # a directory
    good = tmp_path / ".claude.json"
    good.write_text(json.dumps({"skillUsage": {"a": {"usageCount": 2, "lastUsedAt": 5}, "b": "junk"}, "x": 1}))
    assert load_usage(str(good)) == {"a": {"usageCount": 2, "lastUsedAt": 5}}


def test_broken_usage_records_score_zero() -> None:
    usage = {"a": {"usageCount": "2", "lastUsedAt": NOW}, "b": {"usageCount": True, "lastUsedAt": NOW}, "c": {}}
    listing = simulate([sk("a", "x"), sk("b", "y"), sk("c", "z")], 1, usage=usage, now_ms=NOW)
    assert [e.score for e in listing.entries] == [0.0, 0.0, 0.0]


# --- §7.2 rows ---------------------------------------------------------------------------------------------------------


def test_rows() -> None:
    skills = [
        sk("multi", 'line one <tag> & "q"\nline\ttwo'),
        sk("proj-skill", "A project level skill.", when_to_use="Use when testing project skills."),
        sk("wtu-only", "First body line", when_to_use="only when to use"),
        sk("num-desc", "42"),
        sk("zz-disp", "display differs", label="zz-disp (shown-name)"),
        sk("x", "a\u2800b k\ufe0fl g\u200dh 🧑\u200d🚀"),
        sk("long", "L" * 1600 + "END"),
        sk("xdir:coll", "ADDDIR", source="add-dir",
           scoped_suffix=' (scoped to xdir/ — use this instead of the unscoped "coll" skill when the files being changed are under xdir/)'),
        sk("forced", "ignored text", label="forced (Display)", override="name-only"),
    ]
    assert simulate(skills, 100_000).text.split("\n") == [
        '- multi: line one &lt;tag&gt; & "q" line two',
        "- proj-skill: A project level skill. - Use when testing project skills.",
        "- wtu-only: First body line - only when to use",
        "- num-desc: 42",
        "- zz-disp (shown-name): display differs",
        "- x: a b k l g h 🧑\u200d🚀",
        "- long: " + "L" * 1535 + "…",
        '- xdir:coll: ADDDIR (scoped to xdir/ — use this instead of the unscoped "coll" skill when the files being changed are under xdir/)',
        "- forced",
    ]


def test_max_desc_chars() -> None:
    listing = simulate([sk("long", "L" * 1600 + "END")], 100_000, max_desc_chars=100)
    assert listing.text == "- long: " + "L" * 99 + "…"
    # when_to_use counts toward the cap; sanitising happens before it
    listing = simulate([sk("c", "<" * 4, when_to_use="w" * 10)], 100_000, max_desc_chars=10)
    assert listing.text == "- c: &lt;&lt;&…"


def test_empty_when_to_use_adds_nothing() -> None:
    assert simulate([sk("a", "d", when_to_use="")], 100).text == "- a: d"


def test_prompt_block_and_json() -> None:
    skills = [sk("a", "alpha"), shipped("dataviz"), shipped("init")]
    listing = simulate(skills, 100_000)
    assert listing.prompt().startswith(
        "<system-reminder>\nThe following skills are available for use with the Skill tool:\n\n- a: alpha\n- dataviz: "
    )
    assert listing.prompt().endswith("\n- init: [text shipped inside Claude Code 2.1.332, 67 columns]\n</system-reminder>")
    assert listing.text == "- a: alpha"
    # for the -5-5 models the same rows are a paragraph of the system message (observed: model-windows)
    assert listing.prompt("system-message") == listing.prompt()[len("<system-reminder>\n"):-len("\n</system-reminder>")]
    params = resolve_budget(env={}, budget=100_000)
    data = listing.to_json(params)
    assert {"budget", "context_window", "chars_per_token", "fraction", "total_full", "over_budget", "shipped_width",
            "entries", "text"} <= data.keys()  # fmt: skip
    assert data["shipped_width"] == 1447 + 67
    assert data["total_full"] == 10 + 1447 + 67 + 2
    assert [e["state"] for e in data["entries"]] == ["full", "fixed", "full"]
    assert {"name", "label", "source", "state", "full_width", "name_only_width", "score"} <= data["entries"][0].keys()
    json.dumps(data)


def test_empty_listing() -> None:
    listing = simulate([], 10)
    assert (listing.entries, listing.text, listing.prompt(), listing.total_full, listing.over_budget) == ([], "", "", 0, False)


def test_unknown_shipped_entry_or_version_is_an_error() -> None:
    with pytest.raises(ValueError):
        simulate([shipped("dataviz")], 10, version="9.9.9")
    with pytest.raises(ValueError):
        simulate([Skill("nope", "bundled", "", "", shipped=True)], 10)


# --- §9 shipped table ----------------------------------------------------------------------------------------------------


def test_shipped_table() -> None:
    rows = SHIPPED["2.1.332"]
    assert len(rows) == 13
    assert all(e.name_only_width == width(f"- {e.name}") for e in rows)
    assert sum(e.full_width for e in rows if e.exempt) == 6039
    assert sum(e.full_width for e in rows if e.exempt) + 11 == 6050  # with one newline each
    assert sum(e.full_width for e in rows) == 6196
    assert sum(e.name_only_width for e in rows if not e.exempt) == 23
    assert [e.name for e in rows if not e.exempt] == ["init", "security-review"]
    assert {e.source for e in rows if e.exempt} == {"bundled"}
    assert {e.source for e in rows if not e.exempt} == {"builtin"}


# --- §12 greedy, abstract widths ---------------------------------------------------------------------------------------


def _abstract() -> list[Skill]:
    def sized(label: str, full: int) -> Skill:  # a row `- LLL: ddd` of the given width; name-only `- LLL` = 5
        return sk(label, "d" * (full - len(f"- {label}: ")))

    return [sized("AAA", 30), sized("BBB", 55), sized("CCC", 20), sk("X" * 48, "ignored", override="name-only")]


def _shown(listing) -> list[str]:
    return [e.shown for e in listing.entries]


def test_abstract_widths() -> None:
    listing = simulate(_abstract(), 120)
    assert [(e.full_width, e.name_only_width) for e in listing.entries] == [(30, 5), (55, 5), (20, 5), (50, 50)]
    assert listing.total_full == 158 and listing.over_budget


def test_greedy_no_usage() -> None:
    listing = simulate(_abstract(), 120)
    assert _shown(listing) == ["full", "name-only", "full", "name-only"]  # X is the forced row `- XXX…`
    assert [e.state for e in listing.entries] == ["full", "name-only", "full", "fixed"]
    assert listing.remaining == 52 - 25 - 15


def test_greedy_usage_puts_bb_first() -> None:
    usage = {"BBB": {"usageCount": 1, "lastUsedAt": NOW}}
    listing = simulate(_abstract(), 120, usage=usage, now_ms=NOW)
    assert [e.state for e in listing.entries] == ["name-only", "full", "name-only", "fixed"]
    assert listing.remaining == 2
    # output stays in listing order
    assert [e.label for e in listing.entries] == ["AAA", "BBB", "CCC", "X" * 48]


def test_within_budget_everything_full() -> None:
    listing = simulate(_abstract(), 158)
    assert not listing.over_budget and [e.state for e in listing.entries] == ["full", "full", "full", "fixed"]
    assert simulate(_abstract(), 157).over_budget


def test_only_fixed_entries_stay_full_over_budget() -> None:
    listing = simulate(all_shipped(without=("init", "security-review")), 10)
    assert listing.over_budget and all(e.shown == "full" for e in listing.entries)


# --- §12 fx3 arithmetic ---------------------------------------------------------------------------------------------

_FX3_REPEATS = {"s01": 3, "s02": 29, "s03": 7, "s04": 89, "s05": 1, "s06": 14, "s07": 5, "s08": 49, "s09": 0,
                "s10": 19, "s12": 11}  # fmt: skip


def fx3_user_skills() -> list[Skill]:
    skills = [sk(n, f"desc {n} " + "abcdefghij" * k + "a") for n, k in _FX3_REPEATS.items()]
    skills.insert(10, sk("s11", "desc s11 abcdefghijabcdefghijabcdef"))
    skills += [
        sk("zz-cjk", "日本語の説明文です。テスト用。"),
        sk("zz-disp", "display differs", when_to_use="when testing display", label="zz-disp (shown-name)"),
        sk("p-one", "project one", when_to_use="use it for p", source="project"),
    ]
    return skills


def fx3_skills() -> list[Skill]:
    return fx3_user_skills() + all_shipped()


FX3_FULL = {"s01": 47, "s02": 307, "s03": 87, "s04": 907, "s05": 27, "s06": 157, "s07": 67, "s08": 507, "s09": 17,
            "s10": 207, "s11": 42, "s12": 127, "zz-cjk": 40, "zz-disp": 62, "p-one": 35}  # fmt: skip


def _name_only(listing) -> list[str]:
    return [e.name for e in listing.entries if e.shown == "name-only"]


def test_fx3_arithmetic() -> None:
    prepared = prepare(fx3_skills())
    widths = {e.name: e.full_width for e in prepared.entries}
    assert {k: widths[k] for k in FX3_FULL} == FX3_FULL
    assert prepared.total_full == 8859
    assert sum(e.full_width for e in prepared.entries if e.fixed) == 6039
    assert sum(e.name_only_width for e in prepared.entries if not e.fixed) == 120
    assert prepared.base == 6186


def test_fx3_budgets() -> None:
    prepared = prepare(fx3_skills())
    b8000 = simulate_prepared(prepared, 8000)
    assert b8000.budget - prepared.base == 1814
    assert _name_only(b8000) == ["s08", "s11", "s12", "zz-disp", "p-one", "init", "security-review"]
    b8850 = simulate_prepared(prepared, 8850)
    assert _name_only(b8850) == ["security-review"] and b8850.remaining == 64
    flexible = [e.name for e in prepared.entries if not e.fixed]
    for budget in (6000, 4500, 3000):
        assert _name_only(simulate_prepared(prepared, budget)) == flexible
    for budget in (8859, 9000, 50000):
        listing = simulate_prepared(prepared, budget)
        assert not listing.over_budget and _name_only(listing) == []
    assert simulate_prepared(prepared, 8858).over_budget
    assert b8000.shipped_width == 6196  # the 13 shipped full widths


FX3_USAGE = {
    "s12": {"usageCount": 50, "lastUsedAt": NOW},
    "s04": {"usageCount": 2, "lastUsedAt": NOW},
    "s10": {"usageCount": 3, "lastUsedAt": NOW - 14 * DAY},
    "s08": {"usageCount": 1, "lastUsedAt": NOW - 100 * DAY},
}


@pytest.mark.parametrize(
    ("budget", "full"),
    [
        (6600, ["s01", "s05", "s09", "s10", "s12"]),
        (7300, ["s01", "s04", "s05", "s09", "s12"]),
        (8000, ["s01", "s04", "s05", "s08", "s09", "s10", "s12"]),
    ],
)
def test_fx3_usage(budget: int, full: list[str]) -> None:
    prepared = prepare(fx3_skills(), usage=FX3_USAGE, now_ms=NOW)
    listing = simulate_prepared(prepared, budget)
    user_full = [e.name for e in listing.entries if not e.shipped and e.shown == "full"]
    assert user_full == full
    assert [e.shown for e in listing.entries if e.name in ("init", "security-review")] == ["name-only"] * 2


def test_shadowed_shipped_names_are_ordinary() -> None:
    # a user `init` is flexible; the shipped rows it replaced are absent
    skills = [sk("init", "USER init"), *all_shipped(without=("init",))]
    listing = simulate(skills, 6080)  # base 6039 + 6 + 17 + 12 newlines = 6074: 6 left, `init` needs 11
    assert listing.entries[0].state == "name-only" and not listing.entries[0].shipped
    assert listing.text == "- init"
    assert "init" not in [e.name for e in listing.entries if e.shipped]


def test_forced_shipped_entry() -> None:
    skills = [Skill("dataviz", "bundled", "", "", override="name-only", shipped=True)]
    listing = simulate(skills, 1)
    assert listing.entries[0].row == "- dataviz" and listing.entries[0].full_width == 9
    assert listing.text == ""  # shipped rows are never printed by --text


# --- golden cases -------------------------------------------------------------------------------------------------------


def _expected(shared_dir: Path, case: str, run: str) -> dict:
    return json.loads((shared_dir / "golden" / case / f"expected-{run}.json").read_text(encoding="utf-8"))


def _check(listing, exp: dict) -> None:
    assert listing.budget == exp["budget"]
    assert listing.over_budget == exp["over_budget"]
    if "reported_total_width" in exp:
        assert listing.total_full == exp["reported_total_width"]
        assert len(listing.entries) == exp["reported_entries"]
    got = [{"label": e.label, "shipped": e.shipped, "state": e.shown} for e in listing.entries]
    assert got == exp["entries"]
    assert listing.text == "\n".join(exp["lines"])


@pytest.mark.parametrize("run", ["full", "b8850", "default-8000", "b6000", "b4500", "b3000"])
def test_golden_fx3(shared_dir: Path, run: str) -> None:
    exp = _expected(shared_dir, "claude-budget-fx3", run)
    _check(simulate(fx3_skills(), exp["budget"]), exp)


@pytest.mark.parametrize("run", ["u6600", "u7300", "u8000"])
def test_golden_usage(shared_dir: Path, run: str) -> None:
    case = shared_dir / "golden" / "claude-budget-usage"
    spec = json.loads((case / "case.json").read_text())
    now = next(r["now"] for r in spec["runs"] if r["id"] == run)
    now_ms = datetime.fromisoformat(now.replace("Z", "+00:00")).timestamp() * 1000
    usage = load_usage(str(case / "tree" / "home" / ".claude.json"))
    exp = _expected(shared_dir, "claude-budget-usage", run)
    _check(simulate(fx3_skills(), exp["budget"], usage=usage, now_ms=now_ms), exp)


@pytest.mark.parametrize("run", ["default-8000", "b3000"])
def test_golden_overrides(shared_dir: Path, run: str) -> None:
    skills = [s for s in fx3_user_skills() if s.name not in ("s02", "s03")]
    skills[0].override = "name-only"
    exp = _expected(shared_dir, "claude-skill-overrides", run)
    _check(simulate(skills + all_shipped(without=("dataviz",)), exp["budget"]), exp)


@pytest.mark.parametrize("run", ["full", "b2650"])
def test_golden_shadow_shipped(shared_dir: Path, run: str) -> None:
    names = ["code-review", "dataviz", "init", "loop", "simplify", "update-config"]
    skills = [sk(n, f"USER {n}") for n in names] + all_shipped(without=tuple(names))
    exp = _expected(shared_dir, "claude-shadow-shipped", run)
    _check(simulate(skills, exp["budget"]), exp)


# --- properties ----------------------------------------------------------------------------------------------------------

_skill = st.builds(
    lambda name, desc, wtu, forced, is_shipped: (
        shipped(is_shipped)
        if is_shipped
        else sk(name, desc, when_to_use=wtu, override="name-only" if forced else None)
    ),
    name=st.text(alphabet="abc-:", min_size=1, max_size=6),
    desc=st.one_of(st.none(), st.text(max_size=80)),
    wtu=st.one_of(st.none(), st.text(max_size=20)),
    forced=st.booleans(),
    is_shipped=st.one_of(st.none(), st.sampled_from([e.name for e in SHIPPED["2.1.332"]])),
)
_usage = st.dictionaries(
    st.text(alphabet="abc-:", min_size=1, max_size=6),
    st.fixed_dictionaries({"usageCount": st.integers(0, 100), "lastUsedAt": st.integers(NOW - 400 * DAY, NOW)}),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_skill, max_size=12), st.integers(-100, 9000), _usage)
def test_listing_properties(skills: list[Skill], budget: int, usage: dict) -> None:
    listing = simulate(skills, budget, usage=usage, now_ms=NOW)
    entries = listing.entries
    # every entry once, in input order
    assert [e.name for e in entries] == [s.name for s in skills]
    n = len(entries)
    assert listing.total_full == sum(e.full_width for e in entries) + max(n - 1, 0)
    assert all(e.full_width >= e.name_only_width >= 0 for e in entries)
    out_width = sum(e.full_width if e.shown == "full" or e.state == "fixed" else e.name_only_width for e in entries)
    out_width += max(n - 1, 0)
    fixed = [e for e in entries if e.state == "fixed"]
    if not listing.over_budget:
        assert all(e.state in ("full", "fixed") for e in entries)
    elif len(fixed) < n:
        base = sum(e.full_width for e in fixed) + sum(e.name_only_width for e in entries if e.state != "fixed")
        base += n - 1
        if base <= budget:
            assert out_width <= budget
        # greedy leaves out only entries that no longer fit
        assert all(e.full_width - e.name_only_width > listing.remaining for e in entries if e.state == "name-only")
    text_rows = [e.row for e in entries if not e.shipped]
    assert listing.text == "\n".join(text_rows)


def test_budget_change_only_reuses_prepared() -> None:
    prepared = prepare(fx3_skills())
    a = simulate_prepared(prepared, 8000)
    b = simulate_prepared(prepared, 8850)
    assert a.prepared is b.prepared and _name_only(a) != _name_only(b)


@settings(max_examples=300, deadline=None)
@given(st.lists(_skill, max_size=12), st.integers(-100, 9000), _usage)
def test_name_only_is_the_entries_shown_by_name(skills, budget, usage) -> None:
    """`Listing.name_only` (the doctor's budget check) names what `entries` shows by name only, shipped ones aside."""
    listing = simulate(skills + all_shipped()[:3], budget, usage=usage, now_ms=NOW)
    assert listing.name_only() == [e.name for e in listing.entries if e.shown == "name-only" and not e.shipped]
