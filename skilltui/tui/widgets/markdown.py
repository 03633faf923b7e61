"""Textual's Markdown widget, made safe and fast for strangers' files.

- Code fences without a language are not guessed (Pygments' guesser costs ~0.2 s a fence); unknown names fall back
  to plain text.
- Links are never opened by the widget (`open_links=False`); the preview decides what a click may do.
- `ProgressiveMarkdown` mounts about a screenful first and appends the rest in small pieces when asked (the preview
  asks as the reader scrolls near the end). Textual mounts a Markdown block in about 5-10 ms, so a large document
  mounted whole blocks the app for seconds, and a piece is kept to a few blocks so keys are answered between pieces.
"""

from __future__ import annotations

import asyncio

from textual.events import Mount
from textual.message import Message
from textual.widgets import Markdown

from skilltui.text import safe
from skilltui.tui.data import first_chunk
from skilltui.tui.textual_private import MarkdownFence

WARM_SAMPLE = """# Title

## Section

A paragraph with *emphasis*, **strong**, `code` and a [link](x.md).

> A quote.

- item
- item

1. first
2. second

| a | b |
|---|---|
| 1 | 2 |

```python
x = 1
```

---
"""
CHUNK_LINES = 16
CHUNK_CHARS = 800


class PlainFence(MarkdownFence):
    @classmethod
    def highlight(cls, code: str, language: str, ansi: bool = False, dark: bool = False):
        words = (language or "").split()
        return super().highlight(code, words[0] if words else "text", ansi, dark)


class SafeMarkdown(Markdown):
    BLOCKS = {**Markdown.BLOCKS, "fence": PlainFence, "code_block": PlainFence}

    def __init__(self, markdown: str | None = None, **kwargs) -> None:
        super().__init__(markdown, open_links=False, **kwargs)


class ProgressiveMarkdown(SafeMarkdown):
    """A Markdown document shown a piece at a time: `lines_shown` of `lines_total`.

    The text comes from a stranger's file: each piece is made safe (`text.safe`) as it is shown, so a large body
    costs nothing before it is read."""

    class PieceMounted(Message):
        """A piece of the document is on screen."""

    def __init__(self, text: str, **kwargs) -> None:
        text = text.replace("\r\n", "\n")
        self._lines = text.split("\n")
        self.lines_shown = 0
        self._first = first_chunk(text)
        self.first_piece = asyncio.Event()  # set once the first piece is mounted
        super().__init__(None, **kwargs)

    async def on_mount(self, event: Mount) -> None:
        # `append` parses on this thread: for a screenful that is a few milliseconds, where `update` (which
        # Markdown's own mount handler calls) hands the parse to a thread that then waits for the interpreter lock
        # while the screen draws. prevent_default() skips that handler, which would also empty the document.
        event.prevent_default()
        self.lines_shown = self._first
        await self.append(self._piece(0, self._first))
        self.first_piece.set()
        self.post_message(self.PieceMounted())

    def _piece(self, start: int, end: int) -> str:
        return safe("\n".join(self._lines[start:end]), keep_newlines=True)

    @property
    def lines_total(self) -> int:
        return len(self._lines)

    @property
    def complete(self) -> bool:
        return self.lines_shown >= len(self._lines)

    async def load_more(self, lines: int = CHUNK_LINES, chars: int = CHUNK_CHARS) -> bool:
        """Append the next piece (up to `lines` lines or about `chars` characters); False when all is shown."""
        if self.complete:
            return False
        start = self.lines_shown
        end, used = start, 0
        while end < len(self._lines) and end - start < lines and (used < chars or end == start):
            used += len(self._lines[end]) + 1
            end += 1
        self.lines_shown = end
        await self.append("\n" + self._piece(start, end))
        self.post_message(self.PieceMounted())
        return True
