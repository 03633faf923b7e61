"""Shortcuts the doctor takes must give the long way's answer: the plugin check's link resolver that remembers folders
(checks/delivery.RealPaths) and conformance without listing a folder whose SKILL.md was proved by name."""

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
    resolve = delivery.RealPaths()  # one resolver for every path: what it remembers must never change an answer
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


def test_listing_check_builds_the_prompt_only_when_a_description_hides_something(tmp_path, monkeypatch):
    """The invisible-character check of the listing reports only characters of a description that the prompt keeps:
    with none in any description, no prompt is built (it was the listing's whole cost); with one, it is."""
    from skilltui.checks import invisible
    from skilltui.model import Options
    from skilltui.runtimes import discover, get

    home = tmp_path / "home"
    skill = home / ".codex/skills/plain/SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: plain\ndescription: Nothing hidden here.\n---\nBody\n")
    (tmp_path / "repo").mkdir()
    opts = Options(cwd=str(tmp_path / "repo"), home=str(home), runtime="codex", env={"HOME": str(home)})
    built: list[str] = []
    runtime = type(get("codex"))
    real = runtime.prompt

    def counted(self, catalog, *args, **kwargs):
        built.append(catalog.runtime)
        return real(self, catalog, *args, **kwargs)

    monkeypatch.setattr(runtime, "prompt", counted)
    assert invisible.findings(discover(opts), False) == [] and built == []
    skill.write_text("---\nname: plain\ndescription: Hidden\u200b here.\n---\nBody\n")
    found = invisible.findings(discover(opts), False)
    assert built == ["codex"] and [d.code for d in found] == ["invisible-characters"]  # Codex keeps it


# SKILL.md shapes that decode differently: CRLF, a BOM, bad UTF-8, a file over the cap, invisible characters
SHAPES = {
    "crlf": b"---\r\nname: Crlf\r\ndescription: C.\r\nlicense: [a]\r\n---\r\nSee [x](missing.md).\r\n",
    "bom": "\ufeff---\nname: bom\ndescription: B.\n---\n[y](nope.md)\n".encode(),
    "bad-utf8": b"---\nname: bad-utf8\ndescription: Bad \xff byte.\n---\n[z](gone.md)\n",
    "huge": b"---\nname: huge\ndescription: Big.\n---\n[w](lost.md)\n" + b"x" * 1_000_100 + b"\n",
    "hidden": "---\nname: hidden\ndescription: H.\n---\nZero\u200bwidth [v](away.md)\n".encode(),
    "plain": b"---\nname: plain\ndescription: P.\n---\n[u](here.md)\n",
}


def test_one_decode_for_both_lenses_gives_the_findings_of_two(tmp_path, monkeypatch):
    """The pass decodes a SKILL.md once for the link/body lenses and conformance (doctor._decoded) when the file is
    within both caps and valid UTF-8; CRLF, a BOM, bad UTF-8, a file over the cap and invisible characters give the
    same findings as each lens decoding on its own."""
    from skilltui import doctor
    from skilltui.model import Options

    skills = tmp_path / "home/.claude/skills"
    for name, data in SHAPES.items():
        (skills / name).mkdir(parents=True)
        (skills / name / "SKILL.md").write_bytes(data)
    (tmp_path / "repo").mkdir()
    opts = Options(cwd=str(tmp_path / "repo"), home=str(tmp_path / "home"), managed_dir=str(tmp_path / "m"),
                   env={"HOME": str(tmp_path / "home")})
    once = [d.to_json() for d in doctor.run(opts, ("claude",))]
    monkeypatch.setattr(doctor, "_decoded", lambda raw, cap: None)
    twice = [d.to_json() for d in doctor.run(opts, ("claude",))]
    assert once == twice
    codes = {d["code"] for d in once}
    assert {"skill-link-broken", "invisible-characters", "spec-skill-md-unreadable"} <= codes, codes
    # every file's link but the one over 1,000,000 bytes, which Claude Code does not load (so no lens reads it)
    assert sum(d["code"] == "skill-link-broken" for d in once) == 5
    assert "claude-skill-too-large" in codes


def test_the_shared_text_is_what_conformance_would_have_read(tmp_path):
    from skilltui import doctor
    from skilltui.checks import conformance

    for i, data in enumerate((b"---\r\nname: a\r\n---\r\nx\r\n", b"---\rname: a\r---\rx\r", "\ufeff---\nn: \u00e9\n".encode(),
                              b"plain\n")):
        path = tmp_path / f"{i}.md"
        path.write_bytes(data)
        raw = conformance.read_raw(path)
        text = doctor._decoded(raw, 2_000_000)
        assert text == data.decode()
        assert doctor._ReadOnce(str(path), raw, text)(str(path)) == conformance.skill_md_text(raw, path.name)
    assert doctor._decoded(conformance.RawFile(b"\xff"), 10) is None  # not UTF-8: each lens decodes its own way
    assert doctor._decoded(conformance.RawFile(b"x" * 11), 10) is None  # over the cap
