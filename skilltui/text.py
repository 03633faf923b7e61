"""Text measures as the runtimes compute them: UTF-16 length, ICU collation, display width, sanitising."""

from __future__ import annotations

import functools

import icu

_COLLATOR = icu.Collator.createInstance(icu.Locale.getRoot())


@functools.lru_cache(maxsize=65536)
def collation_key(s: str) -> bytes:
    """Sort key for Unicode root collation (JavaScript `a.localeCompare(b)`)."""
    return _COLLATOR.getSortKey(s)


def utf16_len(s: str) -> int:
    """JavaScript `String.length`: UTF-16 code units."""
    return len(s) + sum(1 for ch in s if ord(ch) > 0xFFFF)
