"""The one `__repr__` of skilltui's dataclasses.

`@dataclass` compiles a `__repr__` for each class as its module is imported (an exec each: 13 M of the 251 M
instructions a `list` run spends importing, 21 M of the TUI's). skilltui's dataclasses say `repr=False` and inherit
this one instead, which prints what dataclass's own would (tests/test_lint.py holds every dataclass to it).
"""

from __future__ import annotations

import reprlib
from dataclasses import fields
from typing import Any


class Record:
    __slots__ = ()

    @reprlib.recursive_repr()  # a value that holds itself shows as "...", as dataclass's repr does
    def __repr__(self) -> str:
        me: Any = self
        shown = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in fields(me) if f.repr)
        return f"{type(self).__qualname__}({shown})"
