"""Referenced files come from the Markdown structure (markdown-it-py): code spans, fenced and indented code never
hold a link, so code such as `handlers[key](payload)` is not a broken link (issue #13)."""

from __future__ import annotations

import os

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
]


def test_shortened_parse_on_tricky_structure():
    for text in TRICKY:
        assert refs.find_links(text, 3) == refs.find_links(text, 3, reduce=False), text
