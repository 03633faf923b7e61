"""Parsing of the numbers people type: windows and budgets ("200k", "1m", "1_000_000"), fractions, ratios.

One parser for the CLI and the TUI. Each function raises ValueError with a one-line message meant for the user.
"""

from __future__ import annotations

import math
import re

_COUNT = re.compile(r"^([0-9][0-9_,]*)([km]?)$")
_SUFFIX = {"": 1, "k": 1_000, "m": 1_000_000}
MAX_COUNT = 10**9  # no context window or budget is anywhere near this; bigger is a typo


def parse_count(text: str, what: str = "window") -> int:
    """A positive whole number of tokens or columns: "200000", "200,000", "200_000", "200k", "1m"."""
    raw = text.strip().lower()
    m = _COUNT.match(raw)
    if not m:
        raise ValueError(f"{what} {text.strip()!r} is not a whole number (examples: 200000, 200k, 1m)")
    digits = m.group(1).replace("_", "").replace(",", "")
    if len(digits) > 12:
        raise ValueError(f"{what} {text.strip()!r} is too large (at most {MAX_COUNT:,})")
    value = int(digits) * _SUFFIX[m.group(2)]
    if value < 1:
        raise ValueError(f"{what} must be at least 1")
    if value > MAX_COUNT:
        raise ValueError(f"{what} {text.strip()!r} is too large (at most {MAX_COUNT:,})")
    return value


def parse_positive(text: str, what: str) -> float:
    """A finite number above zero, e.g. chars per token."""
    try:
        value = float(text.strip().replace("_", ""))
    except ValueError:
        raise ValueError(f"{what} {text.strip()!r} is not a number") from None
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"{what} must be a finite number above 0, not {text.strip()!r}")
    return value


def parse_fraction(text: str, what: str = "fraction") -> float:
    """A share of the window: above 0 and at most 1."""
    value = parse_positive(text, what)
    if value > 1:
        raise ValueError(f"{what} must be above 0 and at most 1, not {text.strip()!r}")
    return value
