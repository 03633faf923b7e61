"""Referenced files come from the Markdown structure (markdown-it-py): code spans, fenced and indented code never
hold a link, so code such as `handlers[key](payload)` is not a broken link (issue #13)."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skilltui import doctor, refs
from skilltui.model import Options

BODY = """# Tool
See [guide](refs/guide.md) and ![chart](img/chart.png "Chart").
Inline code `[not](a-link.md)` is code.

```python
handlers[key](payload)
result = table[name](args)
```

~~~
[fenced](fenced.md)
~~~

    [indented](indented.md)

A [reference][r] and skill://other/file.md in the text, `skill://code/x.md` in code.

[r]: refs/ref.md
[missing]: refs/missing.md
"""


def test_links_from_structure_not_from_code():
    found = refs.find_links(BODY, 5)
    assert [link for link, _ in found] == ["refs/guide.md", "img/chart.png", "refs/ref.md", "skill://other/file.md",
                                           "refs/missing.md"]
    lines = dict(found)
    assert lines["refs/guide.md"] == 6 and lines["refs/ref.md"] == 20 and lines["refs/missing.md"] == 23


def test_link_syntax_free_body_has_no_links():
    assert refs.find_links("plain words, handlers and payloads\n" * 50) == []


def test_doctor_reports_only_real_broken_links(tmp_path):
    skill = tmp_path / "home/.claude/skills/tool"
    (skill / "refs").mkdir(parents=True)
    (skill / "img").mkdir()
    (tmp_path / "proj").mkdir()
    for rel in ("refs/guide.md", "img/chart.png", "refs/ref.md"):
        (skill / rel).write_text("x")
    (skill / "SKILL.md").write_text("---\nname: tool\ndescription: A tool.\n---\n" + BODY)
    opts = Options(cwd=str(tmp_path / "proj"), home=str(tmp_path / "home"), managed_dir=str(tmp_path / "m"),
                   env={"HOME": str(tmp_path / "home")})
    broken = [d for d in doctor.run(opts, ("claude",)) if d.code.startswith("skill-link")]
    assert [(d.code, d.line) for d in broken] == [("skill-link-broken", 23)]
    assert "refs/missing.md" in broken[0].message and os.path.samefile(broken[0].path, skill / "SKILL.md")


def _bodies(shared_dir):
    for path in sorted((shared_dir / "corpus").rglob("*.md")):
        try:
            yield path, path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue


@pytest.mark.slow  # sweeps the whole corpus; TRICKY covers the rules
def test_shortened_parse_finds_what_the_whole_parse_finds(shared_dir):
    """find_links parses a shortened body (lines that cannot matter cut down); on every Markdown file of the corpus
    it finds the same links on the same lines as a parse of the whole body."""
    compared = 0
    for path, text in _bodies(shared_dir):
        if refs._might_link(text):
            assert refs.find_links(text) == refs.find_links(text, reduce=False), path
            compared += 1
    assert compared > 1000


TRICKY = [
    "para\n    indented continuation [a](a.md)\n",
    "\n    code\ntext\n    [a](a.md)\n",
    "\n    code\n    more\n    [a](a.md)\n",
    "```\nx\ny\n```\n[a](a.md)\n",
    "``\ncode `span\n[a](a.md)\n``\n",
    "[multi\nline\ntext](t.md)\n",
    "\t\tcode\n\n\tx\n\t[a](a.md)\n",
    "x\n~~~\n[in](fence.md)\n~~~\n[out](out.md)\n",
    "text\n\u2003\n    [a](a.md)\n",  # a line of em spaces is not blank: the paragraph goes on, no indented code
]


def test_shortened_parse_on_tricky_structure():
    for text in TRICKY:
        assert refs.find_links(text, 3) == refs.find_links(text, 3, reduce=False), text


# --------------------------------------------------------------------------------------------------------------------
# The fast path: `simple_links` proves links without markdown-it where a paragraph is plain, and gives up (None) where
# it cannot be sure. Wherever it answers, it must answer what the parse answers.

FAST = [
    "intro\n\nSee [a](a.md) and ![b](img/b.png).\n",
    "```py\n[in](fence.md)\n```\n[out](out.md)\n",
    "``` x`y\n[not a fence](nf.md)\n",  # a backtick in the info string: an ordinary line
    "~~~\n[in](t.md)\n```\n[still in](t2.md)\n~~~\n[out](o.md)\n",
    "````\n```\n[in](i.md)\n````\n[out](o.md)\n",
    "```\n[unclosed](u.md)\n",
    "para\n    [continuation](c.md)\n",
    "\n    [code](code.md)\n\n[text](text.md)\n",
    "\t[tab code](tc.md)\n\n  \t[tab code too](tc2.md)\n\n   [three spaces](t3.md)\n",
    "a\n   \n[after spaces](s.md)\n",  # a whitespace-only line is blank
    "\u2003\n[first line of spaces](u.md)\n",  # markdown-it trims it off the paragraph
    "[a](a.md) [a](a.md)\n\n[a](a.md)\n",
    "[t](dir/x.md#part) [q](x.md?y=1) [e]() [s](https://example.com/x) [m](mailto:a@b.c)\n",
    "[title](t.md \"T\") [sp]( t.md ) [esc](a\\_b.md)\n",  # not simple: the parse decides
    "[x] [y](y.md) [[z]](z.md)\n",
    "[ä](%C3%A4.md) [ü](ü.md) [amp](a&amp;b.md)\n",
    "text `code [c](c.md)` [real](r.md)\n",
    "<a href=\"h.md\">[inline](in.md)</a>\n",
    "x\n```\ncode\n```\ny [after](after.md)\n",
    "   ```\n   [in](i.md)\n  ```\n[out](o.md)\n",
    "    ```\n[after indented fence-like](a.md)\n",
]


def test_simple_links_equal_the_parse_on_tricky_bodies():
    answered = 0
    for text in FAST + TRICKY + [BODY]:
        fast = refs.simple_links(text, 3)
        if fast is not None:
            answered += 1
            assert fast == refs.find_links(text, 3), text
        for only in ({t} for t in refs._candidates(text) if t):
            fast = refs.simple_links(text, 3, only)
            if fast is not None:
                assert [f for f in fast if f[0] in only] == [f for f in refs.find_links(text, 3, only=only) if f[0] in only], text
    assert answered >= 12  # the fast path does answer on plain bodies


def test_fast_and_parsed_broken_links_agree_on_tricky_bodies(tmp_path):
    (tmp_path / "dir").mkdir()
    (tmp_path / "dir" / "x.md").write_text("x")
    (tmp_path / "out.md").write_text("x")
    for text in FAST + TRICKY + [BODY]:
        assert refs.broken_references(text, str(tmp_path), 2) == refs.broken_references(text, str(tmp_path), 2, fast=False), text


@pytest.mark.slow  # sweeps the whole corpus
def test_fast_and_parsed_broken_links_agree_on_the_corpus(shared_dir):
    """Every Markdown file of the corpus, in its own folder: the same broken links, on the same lines, with and without
    the fast path; and wherever simple_links answers for a whole body, it equals the parse."""
    with_broken = answered = 0
    for path, text in _bodies(shared_dir):
        folder = str(path.parent)
        fast = refs.broken_references(text, folder, 4)
        assert fast == refs.broken_references(text, folder, 4, fast=False), path
        with_broken += bool(fast)
        simple = refs.simple_links(text, 4)
        if simple is not None and refs._might_link(text):
            answered += 1
            assert simple == refs.find_links(text, 4), path
    assert with_broken > 100 and answered > 100


_PIECES = st.sampled_from([
    "[a](a.md)", "![i](img/i.png)", "[x](missing.md)", "[d](dir/x.md)", "[u](../up.md)", "`", "``", "```", "~~~",
    "    ", "\t", "   ", " ", "\n", "\n\n", "[", "]", "(", ")", "\\", "<", ">", "<http://a.b>", "text", "- item",
    "# head", "]:", "[r]: r.md", "\u2003", "é", "skill://s/x.md", "&amp;", "x.md", "missing.md",
])


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(_PIECES, max_size=40))
def test_fast_and_parsed_broken_links_agree_on_generated_bodies(tmp_path, pieces):
    (tmp_path / "dir").mkdir(exist_ok=True)
    (tmp_path / "dir" / "x.md").write_text("x")
    (tmp_path / "a.md").write_text("x")
    text = "".join(pieces)
    assert refs.broken_references(text, str(tmp_path), 2) == refs.broken_references(text, str(tmp_path), 2, fast=False)
    simple = refs.simple_links(text, 2)
    if simple is not None and refs._might_link(text):
        assert simple == refs.find_links(text, 2)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(["/", "//", ".", "..", "...", "a", "b.md", ".h", "~", " "]), max_size=8),
       st.lists(st.sampled_from(["/", ".", "..", "a", "x.md", ".h", ""]), max_size=5))
def test_path_shapes_told_by_string_methods_equal_os_path(parts, rel_parts):
    path, rel = "".join(parts), "".join(rel_parts)
    if refs.is_normal(path):
        assert os.path.normpath(path) == path
    assert refs.under(path, rel) == os.path.join(path, rel)
