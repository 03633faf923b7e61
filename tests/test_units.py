"""skilltui.units: the one parser of windows, budgets and fractions shared by the CLI and the TUI."""

import pytest

from skilltui.units import parse_count, parse_fraction, parse_positive


@pytest.mark.parametrize("text,value", [("200000", 200_000), ("200k", 200_000), ("1m", 1_000_000), ("1M", 1_000_000),
                                        ("1_000_000", 1_000_000), ("200,000", 200_000), (" 8000 ", 8000)])
def test_counts(text, value):
    assert parse_count(text) == value


@pytest.mark.parametrize("text", ["abc", "0", "-5", "1.5m", "", "99999999999", "1e6", "k", "inf", "nan"])
def test_bad_counts_say_why(text):
    with pytest.raises(ValueError) as err:
        parse_count(text, "--context-window")
    assert "--context-window" in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize("text", ["0", "-1", "inf", "nan", "x"])
def test_bad_positive(text):
    with pytest.raises(ValueError):
        parse_positive(text, "--chars-per-token")


@pytest.mark.parametrize("text", ["-1", "2", "inf", "nan", "0"])
def test_bad_fraction(text):
    with pytest.raises(ValueError):
        parse_fraction(text)


def test_good_fraction():
    assert parse_fraction("0.02") == 0.02 and parse_fraction("1") == 1.0
