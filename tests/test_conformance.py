"""skilltui.conformance: skills-ref 0.1.1 (`agentskills`) reproduced, and the conformance diagnostics.

The golden case (../shared/golden/agentskills-validate) is replayed in full when shared/ is present; the self-made
trees below cover every rule on their own, so the suite still checks them without it. Expected strictyaml texts
that are not in the golden were recorded from strictyaml 1.7.3, the parser skills-ref 0.1.1 uses.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import sys
from pathlib import Path

import pytest

from skilltui.checks import conformance as cf
from skilltui.checks.conformance import (
    check,
    read_properties,
    run_cli,
    to_prompt,
    validate,
    validate_cli_output,
)
from skilltui.model import Diagnostic

ALLOWED = "['allowed-tools', 'compatibility', 'description', 'license', 'metadata', 'name']"


# ---------------------------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------------------------


def skill(root: Path, folder: str, text: str | bytes | None, filename: str = "SKILL.md") -> Path:
    d = root / folder
    d.mkdir(parents=True, exist_ok=True)
    if text is not None:
        data = text.encode("utf-8") if isinstance(text, str) else text
        (d / filename).write_bytes(data)
    return d


def fm(*lines: str, body: str = "b\n") -> str:
    return "---\n" + "".join(line + "\n" for line in lines) + "---\n" + body


def codes(diags: list[Diagnostic]) -> list[str]:
    return [d.code for d in diags]


def only(diags: list[Diagnostic], code: str) -> Diagnostic:
    found = [d for d in diags if d.code == code]
    assert len(found) == 1, (code, diags)
    return found[0]


# ---------------------------------------------------------------------------------------------------------------
# golden: every call of ../shared/golden/agentskills-validate
# ---------------------------------------------------------------------------------------------------------------


def _copy_tree(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst, symlinks=True)
    for dirpath, _dirnames, filenames in os.walk(dst):
        os.chmod(dirpath, os.stat(dirpath).st_mode | stat.S_IWUSR | stat.S_IRUSR | stat.S_IXUSR)
        for name in filenames:
            p = os.path.join(dirpath, name)
            if not os.path.islink(p):
                os.chmod(p, os.stat(p).st_mode | stat.S_IWUSR | stat.S_IRUSR)
    tree = dst.resolve()
    for dirpath, _, filenames in os.walk(tree):  # README: replace $TREE in the copied files
        for name in filenames:
            p = Path(dirpath, name)
            if p.is_symlink():
                continue
            try:
                text = p.read_text("utf-8")
            except (UnicodeDecodeError, OSError):
                continue
            if "$TREE" in text:
                p.write_text(text.replace("$TREE", str(tree)), "utf-8")
    return tree


@pytest.fixture
def golden(shared_dir: Path, tmp_path: Path):
    case = shared_dir / "golden" / "agentskills-validate"
    if not case.is_dir():
        pytest.skip(f"{case} is missing")
    meta = json.loads((case / "case.json").read_text("utf-8"))
    tree = _copy_tree(case / "tree", tmp_path / "tree")
    runs = []
    for run in meta["runs"]:
        entries = json.loads((case / run["expected"]).read_text("utf-8"))
        cwd = tree / run.get("cwd", meta.get("cwd", "."))
        cwd.mkdir(parents=True, exist_ok=True)
        runs.append((run, entries, cwd))
    return meta, tree, runs


def _sub(value: str, tree: Path) -> str:
    return value.replace("$TREE", str(tree))


def test_golden_every_call(golden):
    meta, tree, runs = golden
    assert meta["runtime"] == "skills-ref" and meta["version"] == cf.VERSION
    mismatches = []
    count = 0
    for _run, entries, cwd in runs:
        for entry in entries:
            count += 1
            args = [_sub(a, tree) for a in entry["args"]]
            got = run_cli(args, str(cwd))
            want = (entry["rc"], _sub(entry["stdout"], tree), _sub(entry["stderr"], tree))
            if got != want:
                mismatches.append((args, got, want))
    assert count >= 20
    assert mismatches == []


def test_golden_validate_cli_output_and_messages(golden):
    _, tree, runs = golden
    seen = 0
    for _run, entries, cwd in runs:
        for entry in entries:
            if entry["args"][0] != "validate":
                continue
            seen += 1
            arg = _sub(entry["args"][1], tree)
            got = validate_cli_output(arg, str(cwd))
            assert got == (entry["rc"], _sub(entry["stdout"], tree), _sub(entry["stderr"], tree)), arg
            # validate() returns exactly the `  - ` items of stderr
            messages = validate(cwd / arg)
            if entry["rc"] == 0:
                assert messages == []
            else:
                printed = entry["stderr"].split(":\n", 1)[1]
                assert "".join(f"  - {m}\n" for m in messages) == printed
    assert seen >= 18


def test_golden_check_never_errors_and_flags_failures(golden):
    _, tree, runs = golden
    for _run, entries, cwd in runs:
        for entry in entries:
            if entry["args"][0] != "validate" or entry["args"][1].endswith("SKILL.md"):
                continue
            diags = check(cwd / entry["args"][1])
            assert all(d.severity in ("warning", "info") for d in diags)
            if entry["rc"] == 1:
                assert diags, entry["args"]
            warnings = [d for d in diags if d.severity == "warning"]
            if entry["rc"] == 0:
                assert warnings == [], (entry["args"], diags)


# ---------------------------------------------------------------------------------------------------------------
# the spec's test vectors (§4), self-made
# ---------------------------------------------------------------------------------------------------------------


@pytest.fixture
def vectors(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    skill(
        root,
        "valid-skill",
        fm(
            "name: valid-skill",
            "description: A valid skill. Use when testing.",
            "license: MIT",
            "compatibility: Requires python3",
            "allowed-tools: Bash(git:*) Read",
            "metadata:",
            "  author: me",
            "  version: 1.0",
            body="# Body\n",
        ),
    )
    skill(root, "bool-desc", fm("name: bool-desc", "description: yes"))
    skill(
        root,
        "list-tools",
        fm("name: list-tools", "description: list allowed-tools", "allowed-tools:", "  - Read", "  - Bash"),
    )
    skill(root, "unicode-名前", fm("name: unicode-名前", "description: unicode letters"))
    skill(root, "lower-skill-md", fm("name: lower-skill-md", "description: lowercase skill.md"), "skill.md")
    skill(root, "Bad_Name", fm("name: Bad_Name", "description: bad name"))
    skill(root, "hyphen-edge", fm("name: -edge--case-", "description: hyphens"))
    skill(root, "dir-mismatch", fm("name: other-name", "description: mismatch"))
    long_name = "long-name-" + "a" * 60
    skill(root, long_name, fm(f"name: {long_name}", "description: long"))
    skill(root, "long-desc", fm("name: long-desc", "description: " + "x" * 1025))
    skill(root, "long-compat", fm("name: long-compat", "description: c", "compatibility: " + "c" * 501))
    skill(root, "empty-desc", fm("name: empty-desc", 'description: ""'))
    skill(root, "no-desc", fm("name: no-desc"))
    skill(root, "no-fm", "# no frontmatter\n")
    skill(root, "colon-desc", fm("name: colon-desc", "description: Use this skill when: the user asks about PDFs"))
    skill(
        root,
        "extra-field",
        fm("name: extra-field", "description: has extra", "globs: ['*.py']", "alwaysApply: true",
           "disable-model-invocation: true"),
    )
    skill(
        root,
        "extra-field2",
        fm("name: extra-field2", "description: has extra", "globs:", "  - '*.py'", "alwaysApply: true",
           "disable-model-invocation: true"),
    )
    (root / "empty-dir").mkdir()
    return root


@pytest.mark.parametrize(
    "folder, messages",
    [
        ("valid-skill", []),
        ("valid-skill/SKILL.md", []),
        ("bool-desc", []),
        ("list-tools", []),
        ("unicode-名前", []),
        ("lower-skill-md", []),
        (
            "Bad_Name",
            [
                "Skill name 'Bad_Name' must be lowercase",
                "Skill name 'Bad_Name' contains invalid characters. Only letters, digits, and hyphens are allowed.",
            ],
        ),
        (
            "hyphen-edge",
            [
                "Skill name cannot start or end with a hyphen",
                "Skill name cannot contain consecutive hyphens",
                "Directory name 'hyphen-edge' must match skill name '-edge--case-'",
            ],
        ),
        ("dir-mismatch", ["Directory name 'dir-mismatch' must match skill name 'other-name'"]),
        (
            "long-name-" + "a" * 60,
            ["Skill name 'long-name-" + "a" * 60 + "' exceeds 64 character limit (70 chars)"],
        ),
        ("long-desc", ["Description exceeds 1024 character limit (1025 chars)"]),
        ("long-compat", ["Compatibility exceeds 500 character limit (501 chars)"]),
        ("empty-desc", ["Field 'description' must be a non-empty string"]),
        ("no-desc", ["Missing required field in frontmatter: description"]),
        ("no-fm", ["SKILL.md must start with YAML frontmatter (---)"]),
        (
            "colon-desc",
            [
                "Invalid YAML in frontmatter: mapping values are not allowed here\n"
                '  in "<unicode string>", line 3, column 33:\n'
                "    description: Use this skill when: the user asks about PDFs\n"
                "                                    ^ (line: 3)"
            ],
        ),
        (
            "extra-field",
            [
                "Invalid YAML in frontmatter: While scanning\n"
                '  in "<unicode string>", line 4, column 8:\n'
                "    globs: ['*.py']\n"
                "           ^ (line: 4)\n"
                "Found ugly disallowed JSONesque flow mapping (surround with ' and ' to make text appear literally)\n"
                '  in "<unicode string>", line 4, column 9:\n'
                "    globs: ['*.py']\n"
                "            ^ (line: 4)"
            ],
        ),
        (
            "extra-field2",
            [
                "Unexpected fields in frontmatter: alwaysApply, disable-model-invocation, globs. "
                f"Only {ALLOWED} are allowed."
            ],
        ),
        ("empty-dir", ["Missing required file: SKILL.md"]),
    ],
)
def test_vectors_validate(vectors: Path, folder: str, messages: list[str]):
    assert validate(vectors / folder) == messages
    rc, out, err = validate_cli_output(folder, str(vectors))
    shown = folder[: -len("/SKILL.md")] if folder.endswith("/SKILL.md") else folder
    if messages:
        assert (rc, out) == (1, "")
        assert err == f"Validation failed for {shown}:\n" + "".join(f"  - {m}\n" for m in messages)
    else:
        assert (rc, out, err) == (0, f"Valid skill: {shown}\n", "")


def test_vectors_read_properties_and_to_prompt(vectors: Path):
    cwd = str(vectors)
    assert run_cli(["read-properties", "valid-skill"], cwd) == (
        0,
        json.dumps(
            {
                "name": "valid-skill",
                "description": "A valid skill. Use when testing.",
                "license": "MIT",
                "compatibility": "Requires python3",
                "allowed-tools": "Bash(git:*) Read",
                "metadata": {"author": "me", "version": "1.0"},
            },
            indent=2,
        )
        + "\n",
        "",
    )
    assert run_cli(["read-properties", "bool-desc"], cwd)[1] == '{\n  "name": "bool-desc",\n  "description": "yes"\n}\n'
    assert run_cli(["read-properties", "unicode-名前"], cwd)[1] == (
        '{\n  "name": "unicode-\\u540d\\u524d",\n  "description": "unicode letters"\n}\n'
    )
    assert read_properties(vectors / "dir-mismatch") == {"name": "other-name", "description": "mismatch"}
    assert run_cli(["read-properties", "no-desc"], cwd) == (
        1, "", "Error: Missing required field in frontmatter: description\n"
    )
    root = vectors.resolve()
    out = to_prompt([vectors / "valid-skill", vectors / "dir-mismatch"])
    assert out.split("\n") == [
        "<available_skills>",
        "<skill>", "<name>", "valid-skill", "</name>",
        "<description>", "A valid skill. Use when testing.", "</description>",
        "<location>", f"{root}/valid-skill/SKILL.md", "</location>", "</skill>",
        "<skill>", "<name>", "other-name", "</name>",
        "<description>", "mismatch", "</description>",
        "<location>", f"{root}/dir-mismatch/SKILL.md", "</location>", "</skill>",
        "</available_skills>",
    ]
    assert run_cli(["to-prompt", "no-desc"], cwd) == (
        1, "", "Error: Missing required field in frontmatter: description\n"
    )
    assert run_cli(["--version"], cwd) == (0, "agentskills, version 0.1.1\n", "")


def test_to_prompt_escapes_and_lists(tmp_path: Path):
    skill(tmp_path, "esc", fm("name: esc", "description: 'Use <b> & \"quotes\" it''s'"))
    out = to_prompt([tmp_path / "esc"])
    assert "Use &lt;b&gt; &amp; &quot;quotes&quot; it&#x27;s" in out.split("\n")
    assert to_prompt([]) == "<available_skills>\n</available_skills>"
    # read-properties keeps allowed-tools as written in 0.1.1 (a list stays a list)
    skill(tmp_path, "lt", fm("name: lt", "description: d", "allowed-tools:", "  - Read", "  - Bash"))
    assert read_properties(tmp_path / "lt")["allowed-tools"] == ["Read", "Bash"]


# ---------------------------------------------------------------------------------------------------------------
# each rule, alone
# ---------------------------------------------------------------------------------------------------------------


def test_missing_name_and_blank_name(tmp_path: Path):
    d = skill(tmp_path, "a", fm("description: d"))
    assert validate(d) == ["Missing required field in frontmatter: name"]
    d = skill(tmp_path, "b", fm("name: '  '", "description: d"))
    assert validate(d) == ["Field 'name' must be a non-empty string"]
    d = skill(tmp_path, "c", fm("name:", "description: d"))
    assert validate(d) == ["Field 'name' must be a non-empty string"]
    d = skill(tmp_path, "d", fm("name:", "  - x", "description: d"))
    assert validate(d) == ["Field 'name' must be a non-empty string"]


def test_name_is_trimmed_and_nfkc_normalised(tmp_path: Path):
    d = skill(tmp_path, "ｆｕｌｌ", fm("name: ' ｆｕｌｌ '", "description: d"))  # fullwidth -> ascii by NFKC
    assert validate(d) == []
    d = skill(tmp_path, "cafe", fm("name: café", "description: d"))
    assert validate(d) == ["Directory name 'cafe' must match skill name 'café'"]
    d = skill(tmp_path, "x", fm("name: x.y", "description: d"))
    assert validate(d) == [
        "Skill name 'x.y' contains invalid characters. Only letters, digits, and hyphens are allowed.",
        "Directory name 'x' must match skill name 'x.y'",
    ]


def test_description_rules(tmp_path: Path):
    d = skill(tmp_path, "d1", fm("name: d1", "description: '   '"))
    assert validate(d) == ["Field 'description' must be a non-empty string"]
    d = skill(tmp_path, "d2", fm("name: d2", "description:", "  a: b"))
    assert validate(d) == ["Field 'description' must be a non-empty string"]
    d = skill(tmp_path, "d3", fm("name: d3", "description: " + "é" * 1024))
    assert validate(d) == []  # code points, not bytes
    d = skill(tmp_path, "d4", fm("name: d4", "description: |", "  " + "x" * 1024))
    assert validate(d) == ["Description exceeds 1024 character limit (1025 chars)"]  # block scalar keeps its newline


def test_compatibility_rules(tmp_path: Path):
    d = skill(tmp_path, "c1", fm("name: c1", "description: d", "compatibility:", "  - a"))
    assert validate(d) == ["Field 'compatibility' must be a string"]
    d = skill(tmp_path, "c2", fm("name: c2", "description: d", "compatibility: ''"))
    assert validate(d) == []
    d = skill(tmp_path, "c3", fm("name: c3", "description: d", "compatibility: " + "c" * 500))
    assert validate(d) == []


def test_all_errors_reported_together_in_order(tmp_path: Path):
    d = skill(tmp_path, "multi", fm("name: -Multi_", "compatibility: " + "x" * 600, "zeta: 1", "alpha: 2"))
    assert validate(d) == [
        f"Unexpected fields in frontmatter: alpha, zeta. Only {ALLOWED} are allowed.",
        "Skill name '-Multi_' must be lowercase",
        "Skill name cannot start or end with a hyphen",
        "Skill name '-Multi_' contains invalid characters. Only letters, digits, and hyphens are allowed.",
        "Directory name 'multi' must match skill name '-Multi_'",
        "Missing required field in frontmatter: description",
        "Compatibility exceeds 500 character limit (600 chars)",
    ]


def test_frontmatter_split_and_shape(tmp_path: Path):
    d = skill(tmp_path, "open", "---\nname: open\ndescription: d\n")
    assert validate(d) == ["SKILL.md frontmatter not properly closed with ---"]
    # a `---` inside a value closes the block early (split at the first two `---` anywhere)
    d = skill(tmp_path, "dash", fm("name: dash", "description: a --- b"))
    assert validate(d) == []
    assert read_properties(d)["description"] == "a"
    for folder, text in [
        ("list", "---\n- a\n- b\n---\n"),
        ("scalar", "---\njust text\n---\n"),
        ("empty", "---\n---\nbody"),
        ("comment", "---\n# only a comment\n---\n"),
    ]:
        assert validate(skill(tmp_path, folder, text)) == ["SKILL.md frontmatter must be a YAML mapping"], folder
    # CRLF is read like Path.read_text() does
    d = skill(tmp_path, "crlf", "---\r\nname: crlf\r\ndescription: d\r\n---\r\nbody\r\n")
    assert validate(d) == []
    # a byte-order mark hides the opening ---
    d = skill(tmp_path, "bom", "\ufeff" + fm("name: bom", "description: d"))
    assert validate(d) == ["SKILL.md must start with YAML frontmatter (---)"]


def test_strict_scalars_are_strings(tmp_path: Path):
    d = skill(
        tmp_path,
        "s",
        fm("name: s", "description: 1.0", "license: ~", "metadata:", "  a: yes", "  b: null", "  c:", "    - x"),
    )
    assert validate(d) == []
    props = read_properties(d)
    assert props["description"] == "1.0" and props["license"] == "~"
    assert props["metadata"] == {"a": "yes", "b": "null", "c": "['x']"}  # metadata values become str()


# strictyaml texts recorded with strictyaml 1.7.3 (skills-ref 0.1.1's parser), frontmatter lines as given
STRICT = {
    "duplicate-key": (
        ["name: a", "name: b", "description: d"],
        "While parsing\n  in \"<unicode string>\", line 3, column 1:\n    name: b\n    ^ (line: 3)\n"
        "Duplicate key 'name' found\n  in \"<unicode string>\", line 3, column 5:\n    name: b\n        ^ (line: 3)",
    ),
    "anchor": (
        ["name: &x a", "description: d"],
        "While scanning\n  in \"<unicode string>\", line 2, column 7:\n    name: &x a\n          ^ (line: 2)\n"
        "Found confusing disallowed anchor token (surround with ' and ' to make text appear literally)\n"
        "  in \"<unicode string>\", line 2, column 9:\n    name: &x a\n            ^ (line: 2)",
    ),
    "alias-glob": (
        ["name: a", "description: d", "globs: *.py"],
        "found undefined alias '.py'\n  in \"<unicode string>\", line 4, column 8:\n    globs: *.py\n"
        "           ^ (line: 4)",
    ),
    "tag": (
        ["name: !!str a", "description: d"],
        "While scanning\n  in \"<unicode string>\", line 2, column 12:\n    name: !!str a\n               ^ (line: 2)\n"
        "Found disallowed tag tokens (do not specify types in markup)\n"
        "  in \"<unicode string>\", line 2, column 7:\n    name: !!str a\n          ^ (line: 2)",
    ),
    "flow-map": (
        ["name: a", "description: d", "metadata: {a: b}"],
        "While scanning\n  in \"<unicode string>\", line 4, column 11:\n    metadata: {a: b}\n"
        "              ^ (line: 4)\n"
        "Found ugly disallowed JSONesque flow mapping (surround with ' and ' to make text appear literally)\n"
        "  in \"<unicode string>\", line 4, column 12:\n    metadata: {a: b}\n               ^ (line: 4)",
    ),
    "indentation": (
        ["name: a", "description: d", "metadata:", "  a: b", "other:", "    c: d"],
        "While parsing\n  in \"<unicode string>\", line 7, column 5:\n        c: d\n        ^ (line: 7)\n"
        "Found mapping with indentation inconsistent with previous mapping\n"
        "  in \"<unicode string>\", line 8, column 1:\n    \n    ^ (line: 8)",
    ),
    "tab": (
        ["name: a", "\tdescription: d"],
        "while scanning for the next token\nfound character '\\t' that cannot start any token\n"
        "  in \"<unicode string>\", line 3, column 1:\n    \tdescription: d\n    ^ (line: 3)",
    ),
    "unclosed-quote": (
        ["name: a", 'description: "unclosed', ""],
        "while scanning a quoted scalar\n  in \"<unicode string>\", line 3, column 14:\n"
        '    description: "unclosed\n                 ^ (line: 3)\n'
        "found unexpected end of stream\n  in \"<unicode string>\", line 5, column 1:\n    \n    ^ (line: 5)",
    ),
    "bad-indent": (
        ["name: a", "  description: d"],
        "mapping values are not allowed here\n  in \"<unicode string>\", line 3, column 14:\n"
        "      description: d\n                 ^ (line: 3)",
    ),
    "second-doc": (
        ["name: a", "...", "description: d"],
        "expected a single document in the stream\n  in \"<unicode string>\", line 2, column 1:\n    name: a\n"
        "    ^ (line: 2)\nbut found another document\n  in \"<unicode string>\", line 4, column 1:\n"
        "    description: d\n    ^ (line: 4)",
    ),
    "merge-scalar": (
        ["<<: x", "name: a", "description: d"],
        "while constructing a mapping\n  in \"<unicode string>\", line 2, column 1:\n    <<: x\n    ^ (line: 2)\n"
        "expected a mapping or list of mappings for merging, but found scalar\n"
        "  in \"<unicode string>\", line 2, column 5:\n    <<: x\n        ^ (line: 2)",
    ),
    "mapping-key": (
        ["? a: b", ": value"],
        "while constructing a mapping\n  in \"<unicode string>\", line 2, column 1:\n    ? a: b\n    ^ (line: 2)\n"
        "found unhashable key\n  in \"<unicode string>\", line 2, column 3:\n    ? a: b\n      ^ (line: 2)",
    ),
    "comment-lookahead": (
        ["name: a", "description:b #c", "# comment", "x: ['y']"],
        "while scanning a simple key\n  in \"<unicode string>\", line 3, column 1:\n    description:b #c\n"
        "    ^ (line: 3)\ncould not find expected ':'\n  in \"<unicode string>\", line 4, column 1:\n"
        "    # comment\n    ^ (line: 4)",
    ),
}


@pytest.mark.parametrize("case", sorted(STRICT))
def test_strictyaml_refusals(tmp_path: Path, case: str):
    lines, text = STRICT[case]
    d = skill(tmp_path, "a", fm(*lines))
    assert validate(d) == [f"Invalid YAML in frontmatter: {text}"]
    diag = only(check(d), "spec-yaml-invalid")
    assert diag.severity == "warning" and diag.fix
    assert diag.line is not None and diag.path == str(d / "SKILL.md")


def test_merge_keys_like_strictyaml(tmp_path: Path):
    # top-level merged keys vanish from strictyaml's .data; nested ones follow the mapping's own keys
    d = skill(tmp_path, "m", fm("<<:", "  license: MIT", "name: m", "description: d", "metadata:", "  <<:",
                                "    a: b", "  c: d"))
    assert validate(d) == []
    assert read_properties(d) == {"name": "m", "description": "d", "metadata": {"c": "d", "a": "b"}}


# ---------------------------------------------------------------------------------------------------------------
# the command line around it
# ---------------------------------------------------------------------------------------------------------------


def test_cli_paths(tmp_path: Path):
    cwd = str(tmp_path)
    skill(tmp_path, "ok", fm("name: ok", "description: d"))
    (tmp_path / "plain.txt").write_text("x")
    assert validate_cli_output("nope", cwd) == (
        2,
        "",
        "Usage: agentskills validate [OPTIONS] SKILL_PATH\nTry 'agentskills validate --help' for help.\n\n"
        "Error: Invalid value for 'SKILL_PATH': Path 'nope' does not exist.\n",
    )
    assert validate_cli_output("plain.txt", cwd) == (
        1, "", "Validation failed for plain.txt:\n  - Not a directory: plain.txt\n"
    )
    assert validate_cli_output("ok/", cwd) == (0, "Valid skill: ok\n", "")
    assert validate_cli_output("ok/SKILL.md", cwd) == (0, "Valid skill: ok\n", "")
    assert validate_cli_output(str(tmp_path / "ok"), "/") == (0, f"Valid skill: {tmp_path / 'ok'}\n", "")
    assert validate(tmp_path / "missing") == [f"Path does not exist: {tmp_path / 'missing'}"]
    assert validate(tmp_path / "plain.txt") == [f"Not a directory: {tmp_path / 'plain.txt'}"]
    assert validate(tmp_path / "ok" / "SKILL.md") == []
    assert run_cli(["validate"], cwd)[0] == 2
    assert run_cli(["to-prompt"], cwd)[0] == 2
    assert run_cli(["bogus"], cwd)[0] == 2
    rc, out, err = run_cli(["read-properties", "plain.txt"], cwd)
    assert (rc, err) == (1, "Error: SKILL.md not found in plain.txt\n")


# ---------------------------------------------------------------------------------------------------------------
# diagnostics
# ---------------------------------------------------------------------------------------------------------------


def test_check_valid_skill_is_silent(vectors: Path):
    for folder in ("valid-skill", "bool-desc", "list-tools", "unicode-名前"):
        assert check(vectors / folder) == []


@pytest.mark.parametrize(
    "folder, code, severity, line",
    [
        ("Bad_Name", "spec-name-not-lowercase", "warning", 2),
        ("Bad_Name", "spec-name-invalid-chars", "warning", 2),
        ("hyphen-edge", "spec-name-hyphen-edge", "warning", 2),
        ("hyphen-edge", "spec-name-double-hyphen", "warning", 2),
        ("hyphen-edge", "spec-name-dir-mismatch", "warning", 2),
        ("dir-mismatch", "spec-name-dir-mismatch", "warning", 2),
        ("long-name-" + "a" * 60, "spec-name-too-long", "warning", 2),
        ("long-desc", "spec-description-too-long", "warning", 3),
        ("long-compat", "spec-compatibility-too-long", "warning", 4),
        ("empty-desc", "spec-description-missing", "warning", 3),
        ("no-desc", "spec-description-missing", "warning", None),
        ("no-fm", "spec-no-frontmatter", "warning", 1),
        ("colon-desc", "spec-yaml-invalid", "warning", 3),
        ("extra-field", "spec-yaml-invalid", "warning", 4),
        ("extra-field2", "spec-unexpected-field", "info", 4),
        ("empty-dir", "spec-missing-skill-md", "warning", None),
        ("lower-skill-md", "spec-skill-md-lowercase", "info", None),
    ],
)
def test_check_codes(vectors: Path, folder: str, code: str, severity: str, line: int | None):
    diags = check(vectors / folder, runtime="agentskills")
    d = only(diags, code)
    assert d.severity == severity and d.line == line and d.runtime == "agentskills"
    assert d.fix and "\n" not in d.fix
    assert d.code in cf.CODES and cf.CODES[d.code] == d.severity
    if code == "spec-missing-skill-md":
        assert d.path == str(vectors / folder)
    else:
        skill_md = "skill.md" if folder == "lower-skill-md" else "SKILL.md"
        assert d.path == str(vectors / folder / skill_md)
    # every diagnostic message is a skills-ref message (or, for skilltui's own, a one-liner)
    messages = validate(vectors / folder)
    for diag in diags:
        if diag.code != "spec-skill-md-lowercase":
            assert diag.message in messages


def test_check_more_codes(tmp_path: Path):
    d = skill(tmp_path, "n", fm("description: d"))
    assert codes(check(d)) == ["spec-name-missing"]
    d = skill(tmp_path, "open", "---\nname: open\n")
    assert codes(check(d)) == ["spec-no-frontmatter"]
    d = skill(tmp_path, "lst", "---\n- a\n---\n")
    assert codes(check(d)) == ["spec-frontmatter-not-mapping"]
    d = skill(tmp_path, "cmp", fm("name: cmp", "description: d", "compatibility:", "  - x"))
    diag = only(check(d), "spec-compatibility-not-string")
    assert diag.line == 4
    body = "line\n" * 501
    d = skill(tmp_path, "long", fm("name: long", "description: d", body=body))
    diag = only(check(d), "spec-body-too-long")
    assert diag.severity == "info" and diag.line == 5
    d = skill(tmp_path, "ok500", fm("name: ok500", "description: d", body="line\n" * 500))
    assert check(d) == []
    # a SKILL.md path stands for its folder; a relative path is resolved
    d = skill(tmp_path, "x", fm("name: y", "description: d"))
    assert codes(check(d / "SKILL.md")) == ["spec-name-dir-mismatch"]
    assert codes(check(tmp_path / "absent")) == ["spec-missing-skill-md"]
    assert codes(check(d / "SKILL.md" / "nope")) == ["spec-missing-skill-md"]


def test_check_unexpected_field_line_is_first_in_file(tmp_path: Path):
    d = skill(tmp_path, "u", fm("name: u", "zeta: 1", "description: d", "alpha: 2"))
    diag = only(check(d), "spec-unexpected-field")
    assert diag.line == 3 and "alpha, zeta" in diag.message


# ---------------------------------------------------------------------------------------------------------------
# hostile input: never crash, never hang, never expand
# ---------------------------------------------------------------------------------------------------------------


def _everything(d: Path) -> tuple[list[str], list[Diagnostic]]:
    messages = validate(d)
    diags = check(d)
    rc, out, err = validate_cli_output(str(d), "/")
    assert rc in (0, 1)
    for args in (["read-properties", str(d)], ["to-prompt", str(d)]):
        assert run_cli(args, "/")[0] in (0, 1)
    assert all(d.severity in ("warning", "info") for d in diags)
    return messages, diags


def test_binary_and_invalid_utf8(tmp_path: Path):
    d = skill(tmp_path, "bin", bytes(range(256)) * 10)
    messages, diags = _everything(d)
    assert messages == ["Cannot read SKILL.md: not UTF-8 text (byte 128: invalid start byte)"]
    assert codes(diags) == ["spec-skill-md-unreadable"]
    d = skill(tmp_path, "latin", "---\nname: latin\ndescription: caf\xe9\n---\n".encode("latin-1"))
    messages, diags = _everything(d)
    assert messages[0].startswith("Cannot read SKILL.md: not UTF-8 text")
    d = skill(tmp_path, "nul", fm("name: nul", "description: a\x00b"))
    messages, diags = _everything(d)
    assert messages == [
        "Invalid YAML in frontmatter: unacceptable character #x0000: special characters are not allowed\n"
        '  in "<unicode string>", position 25'
    ]
    assert only(diags, "spec-yaml-invalid").line == 3


def test_alias_bombs_are_refused_at_the_anchor(tmp_path: Path):
    flow = ["name: a", "description: d", 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    flow += [f"{c}: &{c} [" + ",".join([f"*{p}"] * 9) + "]" for p, c in zip("abcdefgh", "bcdefghi")]
    d = skill(tmp_path, "flow", fm(*flow))
    messages, _ = _everything(d)
    assert "Found confusing disallowed anchor token" in messages[0]
    block = ["name: a", "description: d", "a: &a", "  - lol"]
    for p, c in zip("abcdefgh", "bcdefghi"):
        block += [f"{c}: &{c}"] + [f"  - *{p}"] * 9
    d = skill(tmp_path, "block", fm(*block))
    messages, _ = _everything(d)
    assert "Found confusing disallowed anchor token" in messages[0]
    d = skill(tmp_path, "alias", fm("name: a", "description: *undefined"))
    messages, _ = _everything(d)
    assert messages[0].startswith("Invalid YAML in frontmatter: found undefined alias 'undefined'")


def test_deep_nesting_and_frontmatter_shapes(tmp_path: Path):
    d = skill(tmp_path, "deepseq", "---\nname: " + "- " * 5000 + "x\n---\n")
    messages, _ = _everything(d)
    assert messages[0].startswith("Invalid YAML in frontmatter:")
    deep = "".join(" " * i + f"k{i}:\n" for i in range(700))
    d = skill(tmp_path, "deepmap", "---\n" + deep + "---\n")
    messages, _ = _everything(d)
    assert messages and messages[0].startswith("Invalid YAML in frontmatter:")
    old = sys.getrecursionlimit()
    try:
        sys.setrecursionlimit(200)  # a shallow stack turns ordinary nesting into RecursionError: still a message
        d = skill(tmp_path, "mid", "---\n" + "".join(" " * i + f"k{i}:\n" for i in range(150)) + "---\n")
        messages = validate(d)
    finally:
        sys.setrecursionlimit(old)
    assert messages and messages[0].startswith("Invalid YAML in frontmatter:")


def test_huge_files_are_capped(tmp_path: Path):
    big_body = ("x" * 99 + "\n") * 20_000  # 2 MB
    d = skill(tmp_path, "big", fm("name: big", "description: d", body=big_body))
    messages, diags = _everything(d)
    assert messages == []
    assert codes(diags) == ["spec-body-too-long"] and "larger than 1000000 bytes" in diags[0].message
    d = skill(tmp_path, "unclosed", "---\nname: unclosed\n" + "y: z\n" * 300_000)
    messages, diags = _everything(d)
    assert messages == ["SKILL.md frontmatter not properly closed with ---"]
    assert set(codes(diags)) == {"spec-no-frontmatter", "spec-body-too-long"}
    # a multi-byte character cut by the cap is not an encoding error
    d = skill(tmp_path, "cut", fm("name: cut", "description: d", body="é" * 600_000))
    assert validate(d) == []
    d = skill(tmp_path, "hugefm", "---\nname: a\ndescription: d\nmetadata:\n" + "  k: v\n" * 50_000 + "---\n")
    messages, diags = _everything(d)
    assert messages[0].startswith("SKILL.md frontmatter is too large to check")


def test_unreadable_entries(tmp_path: Path):
    d = tmp_path / "dirmd"
    (d / "SKILL.md").mkdir(parents=True)
    messages, diags = _everything(d)
    assert messages == ["Cannot read SKILL.md: it is a directory"]
    assert codes(diags) == ["spec-skill-md-unreadable"]
    d = tmp_path / "dangling"
    d.mkdir()
    (d / "SKILL.md").symlink_to(tmp_path / "nowhere")
    messages, diags = _everything(d)
    assert messages == ["Missing required file: SKILL.md"]
    if hasattr(os, "mkfifo"):
        d = tmp_path / "fifo"
        d.mkdir()
        os.mkfifo(d / "SKILL.md")  # must not block
        messages, diags = _everything(d)
        assert messages == ["Cannot read SKILL.md: not a regular file"]
    if os.path.exists("/dev/zero"):
        d = tmp_path / "zero"
        d.mkdir()
        (d / "SKILL.md").symlink_to("/dev/zero")
        messages, _ = _everything(d)
        assert messages == ["Cannot read SKILL.md: not a regular file"]
    if hasattr(os, "geteuid") and os.geteuid() != 0:
        d = skill(tmp_path, "noperm", fm("name: noperm", "description: d"))
        os.chmod(d / "SKILL.md", 0)
        try:
            messages, diags = _everything(d)
        finally:
            os.chmod(d / "SKILL.md", 0o644)
        assert messages == ["Cannot read SKILL.md: Permission denied"]


def test_property_never_raises(tmp_path: Path):
    hypothesis = pytest.importorskip("hypothesis")
    st = hypothesis.strategies
    pieces = st.sampled_from(
        ["name", "description", ":", ": ", "-", "- ", "\n", "  ", "\t", "[", "]", "{", "}", "&a", "*a", "!t", "'",
         '"', "#", "|", ">", "...", "---", "<<", "?", "%", "@", "\\", "é", "\x00", "\r", "\ufeff", "x"]
    )
    counter = iter(range(10**9))

    @hypothesis.settings(max_examples=150, deadline=None, database=None)
    @hypothesis.given(st.lists(pieces, max_size=40), st.booleans())
    def run(parts, prefix):
        text = ("---\n" if prefix else "") + "".join(parts)
        d = skill(tmp_path, f"p{next(counter)}", text)
        messages = validate(d)
        assert isinstance(messages, list) and all(isinstance(m, str) for m in messages)
        assert all(x.severity in ("warning", "info") for x in check(d))

    run()


# ---------------------------------------------------------------------------------------------- the fast path
FAST_CASES = [
    "\nname: a\ndescription: b\n",
    "\nname: a\ndescription: >\n  folded\n  text\nmetadata:\n  version: 1.0\n  author: x\n",
    "\nname: a\ndescription: 'it''s'\nallowed-tools:\n  - Read\n  - Bash(git:*)\n",
    "\nname: a\ndescription: \"say \\\"hi\\\"\"\nlicense:\n",
    "\nname: a\ndescription: [x, y]\n",  # flow: strictyaml refuses; the fast path must not accept it
    "\nname: a\nmeta1:\n  k: v\nmeta2:\n    k: v\n",  # two nested maps at different indentation
    "\nname: &x a\ndescription: *x\n",
    "\nname: a\nname: b\n",
    "\nname: yes\ndescription: 1.50\ncompatibility: ~\n",
    "\n# comment\nname: a\n\ndescription: b # trailing\n",
]


def _strict_or_error(text):
    try:
        doc = cf.strict_load(text)
        return doc.data, doc.key_lines
    except Exception as exc:  # the kind of refusal is what matters
        return type(exc).__name__


@pytest.mark.parametrize("text", FAST_CASES)
def test_fast_load_agrees_with_strict_load(text):
    fast = cf.fast_load(text)
    if fast is not None:
        assert (fast.data, fast.key_lines) == _strict_or_error(text)


def test_fast_load_agrees_on_the_corpus(shared_dir):
    used = 0
    for path in sorted((shared_dir / "corpus").rglob("SKILL.md")):
        content, _, _ = cf.read_skill_md(path)
        if not content or not content.startswith("---"):
            continue
        parts = content.split("---", 2)
        if len(parts) < 3:
            continue
        fast = cf.fast_load(parts[1])
        if fast is not None:
            used += 1
            assert (fast.data, fast.key_lines) == _strict_or_error(parts[1]), path
    assert used > 500  # the fast path carries most real skills


# ------------------------------------------------------------------------------- the fast refusals (fast_refusal)
def _told(exc):
    """What the doctor takes from a refusal: its kind (the fix's wording), problem, line and printed text."""
    return getattr(exc, "kind", None), exc.problem, exc.problem_mark.line, cf.format_yaml_error(exc)


def _refusal(text):
    try:
        cf.strict_load(text)
    except Exception as exc:
        return _told(exc)
    return None


def _agrees(text) -> bool:
    """fast_refusal either stays out or tells what strict_load's own exception tells (without loading PyYAML)."""
    fast = cf.fast_refusal(text)
    if fast is None:
        return False
    assert _told(fast) == _refusal(text), text
    return True


REFUSALS = [  # each decided by the fast path
    "\nname: a\ndescription: Use it: now\n",
    "\nname: a\ndescription: Ends with a colon:\n",
    "\nname: a\nallowed-tools: [Read, Grep, Bash]\n",
    "\nname: a\nallowed-tools: []\ndescription: d\n",
    "\nname: a\ndescription: d\nmetadata:\n  version: 1.0\n  tags: [api, review]\n  author: x\n",
    "\nname: a\nmetadata:\n  note: see http://x.org: here\n",
    "\n# c\nname: a\n\ndescription: " + "long " * 30 + "text: and more " * 5 + "\n",
    "\nname: a\ndescription: >\n  folded\nlicense: MIT: or not\n",
    # the scanner stops at the colon: what follows (a duplicate key, a flow list, a nested map) is never read
    "\nname: a\ndescription: x: y\nname: b\n",
    "\nname: a\ndescription: Data only the: use it.\nmetadata:\n  version: 3.9.3\n  tags: [ci, analyze]\nlicense: MIT\n",
    "\nname: a\ndescription: x: y\nm1:\n  k: v\nm2:\n    k: v\n",
]
NOT_DECIDED = [  # the full parser must decide these (another problem comes first, or the scanner reads on)
    "\nname: a\nname: b\ndescription: x: y\n",
    "\nname: &x a\ndescription: x: y\n",
    "\nname: a\n\tdescription: x: y\n",
    "\nname: a\ndescription: x #c: y\n",
    "\nname: a\ndescription: 'x: y'\n",
    "\nname: a\ndescription: |\n  a: b\n",
    "\nname: a\ndescription: x\n  more: y\n",
    "\nname: a\ntools: [a, [b]]\n",
    "\nname: a\ntools: [a, 'b']\n",
    "\nname: a\ntools: [a, b\n  , c]\n",
    "\nname: a\ntools: [a] # c\n",
    "\nm1:\n  k: v\nm2:\n    k: x: y\n",
    "\nname: a\ndescription: x: y\n\x01\n",
]


@pytest.mark.parametrize("text", REFUSALS)
def test_fast_refusal_decides_the_common_mistakes(text):
    assert _refusal(text) is not None
    assert _agrees(text)


@pytest.mark.parametrize("text", NOT_DECIDED)
def test_fast_refusal_leaves_the_rest_to_the_parser(text):
    assert cf.fast_refusal(text) is None


def test_fast_refusal_agrees_on_generated_frontmatter():
    hypothesis = pytest.importorskip("hypothesis")
    st = hypothesis.strategies
    lines = st.sampled_from([
        "name: a", "name: b", "description: d", "description: Use it: now", "description: x:", "description: a #b: c",
        "license: MIT", "allowed-tools: [Read, Grep]", "allowed-tools: [a, [b]]", "tools: []", "tools: [x y, z]",
        "metadata:", "other:", "  version: 1.0", "  tags: [a, b]", "  note: a: b", "    deep: x", "  - item",
        "- item", "description: >", "  folded: text", "  more text", "", "# comment", "  # comment", "name: &x a",
        "alias: *x", "tag: !t x", "\tname: t", "name: 'q: r'", 'name: "q: r"', "k: {a: b}", "k: v ]", "  ", "...",
        "---", "? k", ": v", "k:v: w", "x: é: ü", "x: a\x7f: b", "x: (paren): y", "x: /path: y",
    ])

    @hypothesis.settings(max_examples=400, deadline=None, database=None)
    @hypothesis.given(st.lists(lines, min_size=1, max_size=9), st.booleans())
    def run(chosen, lead):
        _agrees(("\n" if lead else "") + "\n".join(chosen) + "\n")

    run()


def test_fast_refusal_agrees_on_the_corpus(shared_dir):
    decided = 0
    for path in sorted((shared_dir / "corpus").rglob("*.md")):
        content, _, _ = cf.read_skill_md(path)
        if content and content.startswith("---"):
            parts = content.split("---", 2)
            if len(parts) == 3:
                decided += _agrees(parts[1])
    assert decided >= 2  # the corpus's own one-line refusals; most of its others are in multi-line values
