"""skilltui.text against spec/claude-code.md §5.4, §7.2, §8.3 and §12."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skilltui.text import cap_utf16, safe, sanitize, strip_controls, utf16_len, width

# --- §8.3 / §12 widths ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("- zz-cjk: 日本語の説明文です。テスト用。", 40),
        ("- zz-cjk", 8),
        ("- emoji😀: emoji name", 21),
        ("- café: accented", 16),
        ("- a: b — c…", 11),
        ("a\tb", 2),
        ("\x1b[31mred\x1b[0m", 3),
        ("🇩🇪", 2),
        ("👋🏻", 2),
        ("🧑\u200d🚀", 2),
        ("किताब", 5),
        ("日本語", 6),
        ("😀", 2),
        ("—", 1),
        ("é", 1),
        ("e\u0301", 1),  # combining mark 0
        ("a\u200bb", 2),  # zero width space
        ("a\u00adb", 2),  # soft hyphen: default-ignorable
        ("line\nbreak", 9),  # a newline adds 0
        ("", 0),
    ],
)
def test_width_vectors(text: str, expected: int) -> None:
    assert width(text) == expected


def test_zz_cjk_length_is_25() -> None:
    assert utf16_len("- zz-cjk: 日本語の説明文です。テスト用。") == 25


def test_emoji_sequences_count_two_as_a_whole() -> None:
    assert width("👩\u200d💻") == 2
    assert width("👨\u200d👩\u200d👧\u200d👦") == 2
    assert width("a🇩🇪b") == 4
    assert width("🇩🇪🇫🇷") == 4  # two flags, two clusters
    assert width("👋🏻👋🏿") == 4


def test_fe0f_and_keycap_forms() -> None:
    # *unconfirmed* in the spec, but its rule says an emoji + U+FFE0F / keycap is one sequence of width 2
    assert width("❤\ufe0f") == 2
    assert width("1\ufe0f\u20e3") == 2
    assert width("❤") == 1  # text-presentation emoji alone: East-Asian neutral, 1


def test_joiners_between_letters_are_zero() -> None:
    assert width("g\u200dh") == 2
    assert width("k\ufe0fl") == 2


def test_indic_correction_only_for_vowel_signs() -> None:
    # Devanagari visarga is Mc but not a vowel sign: 0, no correction
    assert width("क\u0903") == 1
    # Thai gets no correction: SARA AA (U+0E32) is Lo (1), MAI EK (U+0E48) Mn (0)
    assert width("\u0e01\u0e32\u0e48") == 2
    # Tamil vowel sign AA (U+0BBE, Mc): +1
    assert width("க\u0bbe") == 2


def test_ansi_and_controls_in_non_ascii_text() -> None:
    assert width("\x1b[1m日本\x1b[0m") == 4
    assert width("日\x07本") == 4
    assert width("\x1b]8;;https://x\x07link\x1b]8;;\x07") == 4  # OSC 8 hyperlink


def test_ascii_fast_path_agrees_with_general_path() -> None:
    # the same ASCII text with one wide char appended must differ by exactly 2
    for s in ("plain", "a\tb\x1b[0m", "\x00\x1f\x7f", "x" * 1000):
        assert width(s + "日") == width(s) + 2


# --- §5.4 sanitising -----------------------------------------------------------------------------------------------


def test_sanitize_spec_vector() -> None:
    assert sanitize("a\u2800b k\ufe0fl g\u200dh 🧑\u200d🚀") == "a b k l g h 🧑\u200d🚀"


def test_sanitize_multiline_and_escaping() -> None:
    assert sanitize('line one <tag> & "q"\nline\ttwo') == 'line one &lt;tag&gt; & "q" line two'


def test_sanitize_runs_become_one_space() -> None:
    assert sanitize("a\r\n\t\u200b\u2028b") == "a b"
    assert sanitize("a\x00b") == "a b"
    assert sanitize("a \n b") == "a   b"  # ordinary spaces stay; only the run of controls collapses


def test_sanitize_removes_ansi_before_replacing() -> None:
    assert sanitize("\x1b[31mred\x1b[0m") == "red"
    assert sanitize("a\x1bb") == "a b"  # a bare ESC is a control: one space


def test_sanitize_keeps_rgi_sequences_only() -> None:
    assert sanitize("👩\u200d💻") == "👩\u200d💻"
    assert sanitize("❤\ufe0f") == "❤\ufe0f"
    england = "🏴\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f"
    assert sanitize(england) == england
    # a joiner after a complete sequence is outside it
    assert sanitize("🧑\u200d🚀\u200d") == "🧑\u200d🚀 "
    # a selector on an emoji that does not take one is not RGI
    assert sanitize("🚀\ufe0f") == "🚀 "


def test_sanitize_emoji_exception_needs_short_text() -> None:
    seq = "👩\u200d💻"
    short = "x" * (4096 - utf16_len(seq)) + seq
    assert utf16_len(short) == 4096
    assert sanitize(short).endswith(seq)
    long = "x" + short
    assert sanitize(long).endswith("👩 💻")


def test_sanitize_categories() -> None:
    for ch in ("\ue000", "\U000f0000", "\u0378", "\ufeff", "\u3164", "\u034f", "\U000e0041"):  # Co, Co, Cn, BOM, DI
        assert sanitize(f"a{ch}b") == "a b", repr(ch)
    assert sanitize("a & 'b'") == "a & 'b'"


# --- §7.2 cap ----------------------------------------------------------------------------------------------------------


def test_cap_default_vector() -> None:
    text = "L" * 1600 + "END"
    assert utf16_len(text) == 1603
    assert cap_utf16(text, 1536) == "L" * 1535 + "…"


def test_cap_100_vector() -> None:
    assert cap_utf16("L" * 1600 + "END", 100) == "L" * 99 + "…"


def test_cap_keeps_text_at_the_limit() -> None:
    assert cap_utf16("L" * 1536, 1536) == "L" * 1536
    assert cap_utf16("L" * 1537, 1536) == "L" * 1535 + "…"
    # UTF-16 units, not code points: 768 emoji are 1536 units
    assert cap_utf16("😀" * 768, 1536) == "😀" * 768
    assert cap_utf16("😀" * 769, 1536) == "😀" * 767 + "\ufffd…"


def test_cap_at_a_surrogate_pair() -> None:
    # 1534 units, then a pair: the cut at 1535 units falls between its halves. JavaScript keeps the lone high
    # surrogate; we write U+FFFD there: same UTF-16 length, encodable.
    text = "L" * 1534 + "😀" + "tail"
    out = cap_utf16(text, 1536)
    assert out == "L" * 1534 + "\ufffd…"
    assert utf16_len(out) == 1536
    out.encode("utf-8")
    # one unit earlier the pair is simply not reached
    assert cap_utf16("L" * 1533 + "😀" + "tail", 1536) == "L" * 1533 + "😀…"


# --- display safety ----------------------------------------------------------------------------------------------------


def test_safe_and_strip_controls() -> None:
    evil = "ok\x1b[2J\x1b]0;title\x07 bell\x07 esc\x1b csi\x9b \u202eevil\r\nnext\tx\ud800"
    assert strip_controls(evil) == "ok bell esc csi evil next x"
    assert safe(evil) == "ok bell␇ esc␛ csi\ufffd evil next x\ufffd"
    assert safe("a\nb", keep_newlines=True) == "a\nb"
    assert strip_controls("a\r\nb\x00", keep_newlines=True) == "a\nb"


# --- properties ----------------------------------------------------------------------------------------------------------

_any_text = st.text(alphabet=st.characters(exclude_categories=()), max_size=60)  # lone surrogates too


def _emoji_heavy() -> st.SearchStrategy[str]:
    parts = st.sampled_from(["👩", "\u200d", "💻", "\ufe0f", "🇩", "🇪", "🏻", "\u20e3", "1", "a", "<", "\x1b[1m", "\n",
                             "\U000e0067", "\U000e007f", "🏴", "क", "\u093f", "日", "\u200c", " "])  # fmt: skip
    return st.lists(parts, max_size=20).map("".join)


_texts = st.one_of(_any_text, _emoji_heavy())


@settings(max_examples=400, deadline=None)
@given(_texts)
def test_width_never_negative_and_bounded(s: str) -> None:
    w = width(s)
    assert 0 <= w <= 2 * len(s)


@settings(max_examples=400, deadline=None)
@given(_texts)
def test_sanitize_outputs_no_controls_or_angle_brackets(s: str) -> None:
    out = sanitize(s)
    assert "<" not in out and ">" not in out
    assert not any(unicodedata.category(ch) == "Cc" for ch in out)
    assert not any(0xD800 <= ord(ch) <= 0xDFFF for ch in out)
    assert sanitize(out.replace("&lt;", "").replace("&gt;", "")) == out.replace("&lt;", "").replace("&gt;", "")


@settings(max_examples=400, deadline=None)
@given(_texts, st.integers(min_value=1, max_value=40))
def test_cap_properties(s: str, cap: int) -> None:
    out = cap_utf16(s, cap)
    if utf16_len(s) <= cap:
        assert out == s
    else:
        assert out.endswith("…") and utf16_len(out) <= cap
        body = out[:-1]
        assert s.startswith(body) or (s.startswith(body[:-1]) and body.endswith("\ufffd"))


@settings(max_examples=400, deadline=None)
@given(_texts)
def test_safe_output_cannot_drive_a_terminal(s: str) -> None:
    for out in (safe(s), strip_controls(s), safe(s, keep_newlines=True)):
        out.encode("utf-8")  # no lone surrogates
        assert "\x1b" not in out and "\x9b" not in out
        assert not any(unicodedata.category(ch) == "Cc" and ch != "\n" for ch in out)


def _width_by_every_cluster(s: str) -> int:
    """Reference for the optimised cluster lookup: walk every ICU cluster boundary."""
    import icu

    from skilltui import text

    s = text.strip_ansi(s)
    bi = icu.BreakIterator.createCharacterInstance(icu.Locale.getRoot())
    bi.setText(s)
    index, u16 = {0: 0}, 0
    for i, ch in enumerate(s):
        u16 += 2 if ord(ch) > 0xFFFF else 1
        index[u16] = i + 1
    total, start = 0, 0
    for boundary in bi:
        end = index[boundary]
        cluster = s[start:end]
        total += 2 if text._is_emoji_sequence(cluster) else text._sum_width(cluster)
        start = end
    return total


@settings(max_examples=400, deadline=None)
@given(_texts)
def test_width_matches_cluster_by_cluster_reference(s: str) -> None:
    if not s.isascii():
        assert width(s) == _width_by_every_cluster(s)


# --- the ASCII path of sanitising (a budget over ASCII descriptions with newlines never loads ICU) ------------------


def test_the_ascii_invisible_class_is_icus() -> None:
    """_ASCII_INVISIBLE_RUN again from ICU: the ASCII code points of the invisible class, one by one."""
    from skilltui import text

    icu_ascii = {chr(i) for i in range(128) if text._t().invisible_run_re.fullmatch(chr(i))}
    assert icu_ascii == {chr(i) for i in range(128) if text._compiled(text._ASCII_INVISIBLE_RUN).fullmatch(chr(i))}
    assert icu_ascii == {chr(i) for i in [*range(32), 127]}


_ASCII_TEXT = st.text(alphabet=st.characters(max_codepoint=127), max_size=40)
_ASCII_NEAR = st.lists(st.sampled_from(["a", " ", "<", ">", "\n", "\t", "\r\n", "\x00", "\x7f", "\x1b", "\x1b[31m",
                                        "\x1b]8;;x\x07", "\x1b\\", "[0m"]), max_size=16).map("".join)


@settings(max_examples=2000, deadline=None)
@given(_ASCII_TEXT | _ASCII_NEAR)
def test_ascii_sanitising_equals_icus(s: str) -> None:
    from skilltui import text

    by_icu = text._t().invisible_run_re.sub(" ", text.strip_ansi(s)).replace("<", "&lt;").replace(">", "&gt;")
    assert sanitize(s) == by_icu
    assert text._replace_invisible(s) == text._t().invisible_run_re.sub(" ", s)


def test_a_budget_over_ascii_descriptions_with_newlines_does_not_load_icu(tmp_path) -> None:
    import json

    from treelib import build, md, run_loading

    build(tmp_path, {f"home/.claude/skills/s{i}/SKILL.md": md(f"|\n  Line one <{i}>\n  line\ttwo\n") for i in range(3)})
    loaded, code, out = run_loading(tmp_path, "icu", "budget", "--json", "--no-cache")
    assert (loaded, code) == (False, 0)
    rows = [e["row"] for e in json.loads(out)["entries"]]
    assert "- s1: Line one &lt;1&gt; line two" in rows, rows
