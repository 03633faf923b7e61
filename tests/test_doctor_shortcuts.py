"""Shortcuts the doctor takes must give the long way's answer: the plugin check's link resolver that remembers folders
(checks/delivery._RealPaths) and conformance without listing a folder whose SKILL.md was proved by name."""

from __future__ import annotations

import itertools
import os

from skilltui.checks import delivery


def test_remembered_folders_give_realpaths_answer(tmp_path):
    root = tmp_path / "plug"
    (root / "skills/a").mkdir(parents=True)
    (root / "skills/a/SKILL.md").write_text("x")
    (root / "real/deep").mkdir(parents=True)
    (root / "real/deep/f.md").write_text("y")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside/SKILL.md").write_text("z")
    links = {
        "skills/dirlink": "../real/deep",  # a folder link, relative, with ..
        "skills/abs": str(root / "real"),  # absolute
        "skills/out": "../../outside",  # leaves the plugin
        "skills/dangling": "nowhere/at/all",
        "skills/loop1": "loop2",
        "skills/loop2": "loop1",
        "skills/a/file-link.md": "../../real/deep/f.md",
        "chain": "skills/dirlink",  # a link to a link
        "self": ".",
    }
    for rel, target in links.items():
        os.symlink(target, root / rel)
    parts = ["skills", "a", "dirlink", "abs", "out", "dangling", "loop1", "chain", "self", "deep", "real", "SKILL.md",
             "f.md", "file-link.md", "missing", "..", "."]
    resolve = delivery._RealPaths()  # one resolver for every path: what it remembers must never change an answer
    checked = 0
    for n in (1, 2, 3):
        for combo in itertools.product(parts, repeat=n):
            for path in (os.path.join(str(root), *combo), os.path.join(str(root), *combo) + "/"):
                assert resolve(path) == os.path.realpath(path), path
                checked += 1
    assert checked > 10_000
    assert resolve("relative/x") == os.path.realpath("relative/x")
    assert resolve(str(root / "skills/dirlink/f.md")) == str(root / "real/deep/f.md")  # the folders it remembered
    assert str(root / "skills/dirlink") in resolve.folders or str(root / "skills") in resolve.folders


def test_conformance_without_listing_the_folder_says_the_same(tmp_path):
    """The doctor skips conformance's listing of a folder when it proved SKILL.md is the file's exact name
    (conformance.named_exactly): every folder shape gives the findings of the full check."""
    from skilltui.checks import conformance

    good = "---\nname: {n}\ndescription: Fine.\n---\nBody\n"
    shapes = {
        "upper": {"SKILL.md": good},
        "lower-only": {"skill.md": good},
        "both": {"SKILL.md": good, "skill.md": "---\nname: other\n---\n"},
        "mixed": {"Skill.md": good},
        "link": {"SKILL.md": "->../upper/SKILL.md"},
        "dangling": {"SKILL.md": "->nowhere.md"},
        "folder": {"SKILL.md/": ""},
    }
    for name, files in shapes.items():
        folder = tmp_path / name
        folder.mkdir()
        for fname, text in files.items():
            if text.startswith("->"):
                os.symlink(text[2:], folder / fname)
            elif fname.endswith("/"):
                (folder / fname).mkdir()
            else:
                (folder / fname).write_text(text.format(n=name))
    for folder in sorted(tmp_path.iterdir()):
        md = os.path.join(folder, "SKILL.md")
        proved = os.path.isfile(md) and conformance.named_exactly(str(folder))
        full = [d.to_json() for d in conformance.check(str(folder))]
        assert [d.to_json() for d in conformance.check(str(folder), None, conformance.read_skill_md, proved)] == full
        assert proved == (folder.name in ("upper", "link")), folder.name
