"""The settings writer on real files: only the one value changes, refusals leave files untouched, writes are atomic."""

from __future__ import annotations

import errno
import json
import os
import stat
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from skilltui.settings_writer import (
    SettingsWriteError,
    preview,
    read_json_object,
    set_member,
)

EP = "enabledPlugins"
ID = "demo@mkt"


def write(p: Path, text: str | bytes) -> bytes:
    data = text.encode("utf-8") if isinstance(text, str) else text
    p.write_bytes(data)
    return data


def replaced(before: bytes, old: str, new: str) -> bytes:
    """`before` with the one occurrence of `old` replaced: the only bytes a write may change."""
    o, n = old.encode(), new.encode()
    assert before.count(o) == 1, f"{old!r} must occur once in the fixture"
    i = before.index(o)
    return before[:i] + n + before[i + len(o) :]


def no_temp_left(folder: Path) -> None:
    assert [p.name for p in folder.iterdir() if p.name.endswith(".tmp")] == []


# ---------------------------------------------------------------- changing an existing value / style of inserts


@pytest.mark.parametrize("unit", ["  ", "    ", "\t"])
def test_replace_existing_keeps_every_other_byte(tmp_path, unit):
    p = tmp_path / "settings.json"
    text = (
        f'{{\n{unit}"zeta": 1,\n{unit}"{EP}": {{\n{unit}{unit}"a@m": true,\n'
        f'{unit}{unit}"{ID}": true,\n{unit}{unit}"b@m": false\n{unit}}},\n{unit}"unknown": [1, 2]\n}}\n'
    )
    before = write(p, text)
    change = set_member(p, (EP, ID), False)
    assert p.read_bytes() == replaced(before, f'"{ID}": true', f'"{ID}": false')
    assert change.old_line == f'{unit}{unit}"{ID}": true,'  # the full line, as a diff shows it
    assert change.new_line == f'{unit}{unit}"{ID}": false,'
    assert not change.created and change.changed


@pytest.mark.parametrize("unit", ["  ", "    ", "\t"])
def test_insert_missing_member_in_neighbours_style(tmp_path, unit):
    p = tmp_path / "settings.json"
    before = write(p, f'{{\n{unit}"{EP}": {{\n{unit}{unit}"a@m": true,\n{unit}{unit}"b@m": false\n{unit}}}\n}}')
    change = set_member(p, (EP, ID), True)
    assert p.read_bytes() == replaced(before, '"b@m": false', f'"b@m": false,\n{unit}{unit}"{ID}": true')
    assert change.old_line is None and change.new_line == f'{unit}{unit}"{ID}": true'


@pytest.mark.parametrize("unit", ["  ", "    ", "\t"])
def test_empty_object_expands_with_the_files_indent(tmp_path, unit):
    p = tmp_path / "settings.json"
    before = write(p, f'{{\n{unit}"model": "x",\n{unit}"{EP}": {{}}\n}}\n')
    set_member(p, (EP, ID), True)
    assert p.read_bytes() == replaced(before, "{}", f'{{\n{unit}{unit}"{ID}": true\n{unit}}}')


@pytest.mark.parametrize("unit", ["  ", "    ", "\t"])
def test_missing_parent_added_as_last_top_level_member(tmp_path, unit):
    p = tmp_path / "settings.json"
    before = write(p, f'{{\n{unit}"b": 1,\n{unit}"a": {{"x": "y"}}\n}}\n')
    set_member(p, (EP, ID), False)
    added = f',\n{unit}"{EP}": {{\n{unit}{unit}"{ID}": false\n{unit}}}'
    assert p.read_bytes() == replaced(before, '{"x": "y"}', '{"x": "y"}' + added)
    assert list(json.loads(p.read_text())) == ["b", "a", EP]


def test_single_member_object_and_spacing_around_colon(tmp_path):
    p = tmp_path / "settings.json"
    before = write(p, '{\n   "model" : "x"\n}')  # odd 3-space indent and " : " are copied
    set_member(p, (EP, ID), True)
    assert p.read_bytes() == replaced(before, '"x"', f'"x",\n   "{EP}" : {{\n      "{ID}" : true\n   }}')


def test_one_line_file_stays_one_line(tmp_path):
    p = tmp_path / "settings.json"
    before = write(p, '{"model":"x","a":1}')
    set_member(p, (EP, ID), True)
    assert p.read_bytes() == before[:-1] + f',"{EP}":{{"{ID}":true}}}}'.encode()
    p2 = tmp_path / "two.json"
    before = write(p2, '{"a": 1, "enabledPlugins": {}}\n')
    set_member(p2, (EP, ID), False)
    assert p2.read_bytes() == replaced(before, "{}", f'{{"{ID}": false}}')


def test_crlf_kept_and_used_for_inserts(tmp_path):
    p = tmp_path / "settings.json"
    before = write(p, f'{{\r\n  "{EP}": {{\r\n    "a@m": true\r\n  }}\r\n}}\r\n')
    set_member(p, (EP, ID), True)
    after = p.read_bytes()
    assert after == replaced(before, '"a@m": true', f'"a@m": true,\r\n    "{ID}": true')
    assert b"\n" not in after.replace(b"\r\n", b"")
    q = tmp_path / "empty.json"
    write(q, "{\r\n}")
    set_member(q, (EP, ID), True)
    assert q.read_bytes() == f'{{\r\n  "{EP}": {{\r\n    "{ID}": true\r\n  }}\r\n}}'.encode()


def test_unicode_keys_and_values_escapes_bom_and_no_final_newline(tmp_path):
    p = tmp_path / "settings.json"
    text = '\ufeff{\n  "naïve": "日本\\u00e9\\n",\n  "skillOverrides": {\n    "café": "on"\n  }\n}'
    before = write(p, text)
    set_member(p, ("skillOverrides", "café"), "名前-off")
    assert p.read_bytes() == replaced(before, '"café": "on"', '"café": "名前-off"')
    set_member(p, ("skillOverrides", "ü@mkt"), "off")
    assert p.read_bytes().startswith(b"\xef\xbb\xbf{") and p.read_bytes().endswith(b"}")
    assert json.loads(p.read_text("utf-8-sig"))["skillOverrides"] == {"café": "名前-off", "ü@mkt": "off"}


def test_escaped_key_is_matched_after_unescaping_and_keeps_its_spelling(tmp_path):
    p = tmp_path / "settings.json"
    before = write(p, '{"enabledPlugins": {"a\\u0062@m": true, "x\\"y": true}}')
    set_member(p, (EP, "ab@m"), False)
    assert p.read_bytes() == replaced(before, '"a\\u0062@m": true', '"a\\u0062@m": false')
    before = p.read_bytes()
    set_member(p, (EP, 'x"y'), False)
    assert p.read_bytes() == replaced(before, '"x\\"y": true', '"x\\"y": false')


def test_duplicate_keys_last_one_wins(tmp_path):
    p = tmp_path / "settings.json"
    before = write(p, f'{{"{EP}": {{"{ID}": true, "{ID}": true}}}}')
    set_member(p, (EP, ID), False)
    assert p.read_bytes() == before.replace(b"true}", b"false}")
    # a duplicated parent: the last one is the one JSON parsers keep, so that is where the member goes
    q = tmp_path / "dup-parent.json"
    before = write(q, f'{{"{EP}": {{"a@m": true}}, "x": 1, "{EP}": {{}}}}')
    set_member(q, (EP, ID), True)
    assert q.read_bytes() == before[:-3] + f'{{"{ID}": true}}}}'.encode()
    assert json.loads(q.read_text())[EP] == {ID: True}


def test_value_of_another_type_replaced_even_multiline(tmp_path):
    p = tmp_path / "settings.json"
    old = '[\n      "1.0.0",\n      "2.0.0"\n    ]'
    before = write(p, f'{{\n  "{EP}": {{\n    "{ID}": {old},\n    "z@m": true\n  }}\n}}\n')
    change = set_member(p, (EP, ID), False)
    assert p.read_bytes() == replaced(before, old, "false")
    assert change.old_line == f'    "{ID}": {old},'
    assert change.new_line == f'    "{ID}": false,'


def test_depth_one_member(tmp_path):
    p = tmp_path / "settings.json"
    before = write(p, '{\n  "model": "opus"\n}\n')
    set_member(p, ("model",), "sonnet")
    assert p.read_bytes() == replaced(before, '"opus"', '"sonnet"')


def test_same_value_is_not_rewritten(tmp_path):
    p = tmp_path / "settings.json"
    write(p, f'{{"{EP}": {{"{ID}": true}}}}')
    inode = p.stat().st_ino
    change = set_member(p, (EP, ID), True)
    assert not change.changed and p.stat().st_ino == inode


def test_mode_is_kept(tmp_path):
    p = tmp_path / "settings.json"
    write(p, "{}")
    p.chmod(0o640)
    set_member(p, (EP, ID), True)
    assert stat.S_IMODE(p.stat().st_mode) == 0o640


# ---------------------------------------------------------------- missing / empty files


DEFAULT = f'{{\n  "{EP}": {{\n    "{ID}": true\n  }}\n}}\n'


def test_missing_file_and_folders_are_created(tmp_path):
    p = tmp_path / "a" / "b" / "settings.json"
    change = set_member(p, (EP, ID), True)
    assert p.read_text() == DEFAULT
    assert change.created and change.old_line is None and change.new_line == f'    "{ID}": true'
    no_temp_left(p.parent)


@pytest.mark.parametrize("content", [b"", b"  \n\t\r\n"])
def test_empty_file_is_treated_as_missing(tmp_path, content):
    p = tmp_path / "settings.json"
    write(p, content)
    assert read_json_object(p) is None
    change = set_member(p, (EP, ID), True)
    assert p.read_text() == DEFAULT and not change.created


def test_empty_object_file(tmp_path):
    p = tmp_path / "settings.json"
    write(p, "{}\n")
    set_member(p, (EP, ID), True)
    assert p.read_text() == DEFAULT


# ---------------------------------------------------------------- symbolic links


def test_symlink_chain_stays_a_link_and_target_is_written(tmp_path):
    real = tmp_path / "dotfiles" / "settings.json"
    real.parent.mkdir()
    before = write(real, f'{{\n  "{EP}": {{\n    "{ID}": false\n  }}\n}}\n')
    middle = tmp_path / "middle.json"
    middle.symlink_to(os.path.relpath(real, tmp_path))
    link = tmp_path / "home" / "settings.json"
    link.parent.mkdir()
    link.symlink_to(middle)
    change = set_member(link, (EP, ID), True)
    assert link.is_symlink() and middle.is_symlink()
    assert os.readlink(link) == str(middle)
    assert real.read_bytes() == replaced(before, "false", "true")
    assert change.path == str(link) and change.target == str(real.resolve())
    no_temp_left(real.parent)
    no_temp_left(link.parent)


def test_dangling_symlink_creates_its_target(tmp_path):
    link = tmp_path / "settings.json"
    link.symlink_to(tmp_path / "elsewhere" / "real.json")
    set_member(link, (EP, ID), True)
    assert link.is_symlink() and (tmp_path / "elsewhere" / "real.json").read_text() == DEFAULT


# ---------------------------------------------------------------- refusals: one line, naming the file, nothing written


def refused(p, match: str, keys=(EP, ID), value=True) -> str:
    for fn in (preview, set_member):
        with pytest.raises(SettingsWriteError, match=match) as info:
            fn(p, keys, value)
        message = str(info.value)
        assert "\n" not in message and str(p) in message
    return message


@pytest.mark.parametrize(
    "text, match",
    [
        ('{"enabledPlugins": {"a": true,}}', "not valid JSON"),
        ('{"a": 1} {"b": 2}', "not valid JSON"),
        ('{"a": NaN}', "not valid JSON"),
        (b'{"a": "\xff"}', "not UTF-8"),
        ("[1, 2]", "the top level is an array, not a JSON object"),
        ('"text"', "the top level is a string"),
        ('{"enabledPlugins": ["demo@mkt"]}', '"enabledPlugins" is an array, not a JSON object'),
        ('{"enabledPlugins": null}', '"enabledPlugins" is null'),
    ],
)
def test_refuses_unusable_content_untouched(tmp_path, text, match):
    p = tmp_path / "settings.json"
    before = write(p, text)
    refused(p, match)
    assert p.read_bytes() == before
    no_temp_left(tmp_path)


def test_read_json_object(tmp_path):
    p = tmp_path / "settings.json"
    assert read_json_object(p) is None
    write(p, '{"a": 1, "a": 2}')
    assert read_json_object(p) == {"a": 2}
    write(p, "{")
    with pytest.raises(SettingsWriteError, match=r"cannot read .*settings.json: not valid JSON"):
        read_json_object(p)


def test_refuses_read_only_file(tmp_path):
    p = tmp_path / "settings.json"
    before = write(p, '{"enabledPlugins": {}}')
    p.chmod(0o444)
    assert refused(p, "the file is read-only").endswith("the file is read-only")
    assert p.read_bytes() == before and stat.S_IMODE(p.stat().st_mode) == 0o444
    no_temp_left(tmp_path)


def test_refuses_read_only_folder(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    p = folder / "settings.json"
    before = write(p, '{"enabledPlugins": {}}')
    folder.chmod(0o555)
    try:
        refused(p, "the folder .* is read-only")
        refused(folder / "new" / "settings.json", "the folder .* is read-only")
        assert p.read_bytes() == before and sorted(os.listdir(folder)) == ["settings.json"]
    finally:
        folder.chmod(0o755)


def test_refuses_directory(tmp_path):
    refused(tmp_path, "it is a directory")


def test_refuses_unreadable(tmp_path):
    loop = tmp_path / "loop.json"
    loop.symlink_to(loop)
    refused(loop, "it cannot be read")
    (tmp_path / "file").write_text("{}")
    refused(tmp_path / "file" / "settings.json", "it cannot be read")


# ---------------------------------------------------------------- concurrent edits and failures


def edit_on_fsync(monkeypatch, target: Path, *contents: str):
    """Another writer edits `target` right after our temp file is fsynced, i.e. between our snapshot and the rename.
    Only os.fsync is wrapped; every write is a real one."""
    real_fsync, pending = os.fsync, list(contents)

    def fsync(fd):
        real_fsync(fd)
        if pending:
            target.write_text(pending.pop(0))

    monkeypatch.setattr(os, "fsync", fsync)


def test_concurrent_edit_is_kept_and_change_reapplied(tmp_path, monkeypatch):
    p = tmp_path / "settings.json"
    write(p, '{\n  "enabledPlugins": {\n    "a@m": true\n  }\n}\n')
    theirs = '{\n  "model": "opus",\n  "enabledPlugins": {\n    "a@m": false\n  }\n}\n'
    edit_on_fsync(monkeypatch, p, theirs)
    set_member(p, (EP, ID), True)
    assert p.read_text() == replaced(theirs.encode(), '"a@m": false', f'"a@m": false,\n    "{ID}": true').decode()
    no_temp_left(tmp_path)


def test_concurrent_edit_that_breaks_json_is_refused(tmp_path, monkeypatch):
    p = tmp_path / "settings.json"
    write(p, '{"enabledPlugins": {}}')
    edit_on_fsync(monkeypatch, p, '{"enabledPlugins": {')
    with pytest.raises(SettingsWriteError, match="it changed on disk while being written, and now: not valid JSON"):
        set_member(p, (EP, ID), True)
    assert p.read_text() == '{"enabledPlugins": {'
    no_temp_left(tmp_path)


def test_second_concurrent_edit_is_refused(tmp_path, monkeypatch):
    p = tmp_path / "settings.json"
    write(p, '{"enabledPlugins": {}}')
    edit_on_fsync(monkeypatch, p, '{"a": 1}', '{"a": 2}')
    with pytest.raises(SettingsWriteError, match="changed on disk again"):
        set_member(p, (EP, ID), True)
    assert p.read_text() == '{"a": 2}'
    no_temp_left(tmp_path)


def test_concurrent_writer_already_set_it(tmp_path, monkeypatch):
    p = tmp_path / "settings.json"
    write(p, '{"enabledPlugins": {}}')
    edit_on_fsync(monkeypatch, p, f'{{"enabledPlugins": {{"{ID}": true}}}}')
    assert not set_member(p, (EP, ID), True).changed
    assert p.read_text() == f'{{"enabledPlugins": {{"{ID}": true}}}}'
    no_temp_left(tmp_path)


@pytest.mark.parametrize("exc", [OSError(errno.EIO, "I/O error"), KeyboardInterrupt()])
def test_dying_before_the_rename_leaves_the_original(tmp_path, monkeypatch, exc):
    p = tmp_path / "settings.json"
    before = write(p, '{\n  "enabledPlugins": {\n    "demo@mkt": false\n  }\n}\n')

    def replace(src, dst):
        raise exc

    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(SettingsWriteError if isinstance(exc, OSError) else KeyboardInterrupt):
        set_member(p, (EP, ID), True)
    assert p.read_bytes() == before
    no_temp_left(tmp_path)


def test_full_disk_leaves_the_original(tmp_path, monkeypatch):
    p = tmp_path / "settings.json"
    before = write(p, '{"enabledPlugins": {"demo@mkt": false}}')

    def full(fd, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "write", full)
    with pytest.raises(SettingsWriteError, match=r"settings.json: the disk is full$"):
        set_member(p, (EP, ID), True)
    assert p.read_bytes() == before
    no_temp_left(tmp_path)


def test_preview_writes_nothing(tmp_path):
    p = tmp_path / "settings.json"
    before = write(p, '{"enabledPlugins": {"demo@mkt": false}}')
    change = preview(p, (EP, ID), True)
    assert change.old_line == before.decode() and change.new_line == '{"enabledPlugins": {"demo@mkt": true}}'
    assert p.read_bytes() == before
    missing = tmp_path / "none" / "settings.json"
    assert preview(missing, (EP, ID), True).created and not missing.parent.exists()


# ---------------------------------------------------------------- property: any document, any formatting

SENTINEL = "\x00sentinel\x00"
keys_st = st.text(st.sampled_from('ab"\\/\n\té日😀@-'), max_size=5)
scalars = st.none() | st.booleans() | st.integers(-(10**6), 10**6) | st.floats(allow_nan=False, allow_infinity=False)
values = st.recursive(
    scalars | keys_st, lambda c: st.lists(c, max_size=3) | st.dictionaries(keys_st, c, max_size=3), max_leaves=8
)
docs = st.dictionaries(keys_st, st.dictionaries(keys_st, values, max_size=4) | values, max_size=5)
styles = st.fixed_dictionaries(
    {
        "indent": st.sampled_from([None, 0, 1, 2, 4, "\t"]),
        "item": st.sampled_from([",", ", "]),
        "colon": st.sampled_from([":", ": ", " : "]),
        "crlf": st.booleans(),
        "ascii": st.booleans(),
        "final_nl": st.booleans(),
        "bom": st.booleans(),
    }
)


def render(doc, s) -> bytes:
    item = "," if s["indent"] is not None else s["item"]
    text = json.dumps(doc, indent=s["indent"], separators=(item, s["colon"]), ensure_ascii=s["ascii"])
    if s["crlf"]:
        text = text.replace("\n", "\r\n")  # raw newlines are all structural: json.dumps escapes those in strings
    return (b"\xef\xbb\xbf" if s["bom"] else b"") + (text + ("\n" if s["final_nl"] else "")).encode()


def pairs(data: bytes):
    return json.loads(data.decode("utf-8-sig"), object_pairs_hook=lambda p: p)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(doc=docs, style=styles, depth=st.integers(1, 2), mode=st.integers(0, 2), use_existing=st.booleans(),
       pick=st.integers(0, 10), new_key=keys_st, value=st.booleans() | keys_st)
def test_property_only_that_value_changes(tmp_path, doc, style, depth, mode, use_existing, pick, new_key, value):
    p = tmp_path / "settings.json"
    top = list(doc)
    if depth == 2:
        objects = [k for k in top if isinstance(doc[k], dict)]
        # mode: into an existing object, under any existing member (maybe not an object), or a new parent
        pool = objects if mode == 0 else top if mode == 1 else []
        parent = pool[pick % len(pool)] if pool else new_key + "P"
        if parent in doc and not isinstance(doc[parent], dict):
            event("refused: parent not an object")
            before = write(p, render(doc, style))
            with pytest.raises(SettingsWriteError, match="not a JSON object"):
                set_member(p, (parent, new_key), value)
            assert p.read_bytes() == before
            return
        holder = doc.get(parent, {})
        receiver = holder if parent in doc else doc  # the object that gets a new member if the key is missing
    else:
        holder = receiver = doc
    names = list(holder)
    key = names[pick % len(names)] if names and use_existing else new_key
    keys = (parent, key) if depth == 2 else (key,)
    existed = key in holder
    receiver_empty = not receiver
    event(f"depth {depth}, " + ("replace" if existed else "insert into empty" if receiver_empty else "insert"))
    before = write(p, render(doc, style))
    set_member(p, keys, value)
    after = p.read_bytes()

    expected = json.loads(json.dumps(doc))
    (expected.setdefault(parent, {}) if depth == 2 else expected)[key] = value
    assert json.loads(after.decode("utf-8-sig")) == expected
    if existed:
        # the bytes around the value are exactly json.dumps' rendering with a sentinel in the value's place
        holder[key] = SENTINEL
        marked = render(doc, style)
        mark = json.dumps(SENTINEL, ensure_ascii=style["ascii"]).encode()
        assume(marked.count(mark) == 1)
        i = marked.index(mark)
        new = json.dumps(value, ensure_ascii=False).encode()
        assert after == marked[:i] + new + marked[i + len(mark) :]
        assert before.startswith(marked[:i]) and before.endswith(marked[i + len(mark) :])
        return
    # nothing moved: the new member is the last of its object, every old member keeps its place
    old, got = pairs(before), pairs(after)
    if depth == 1:
        assert got == old + [(key, value)]
    elif parent in doc:
        assert [k for k, _ in got] == [k for k, _ in old]
        assert dict(got)[parent] == dict(old)[parent] + [(key, value)]
    else:
        assert got == old + [(parent, [(key, value)])]
    if not receiver_empty:  # a non-empty object grows by one contiguous insertion
        common = 0
        while common < min(len(before), len(after)) and before[common] == after[common]:
            common += 1
        assert after.endswith(before[common:])


def test_a_write_leaves_nothing_else_in_the_folder(tmp_path):
    """The writer's lock is a flock on the folder: no lock or temp file stays beside the user's settings."""
    from skilltui import settings_writer

    path = tmp_path / "settings.json"
    path.write_text('{\n  "a": 1\n}\n')
    settings_writer.set_member(str(path), ("enabledPlugins", "x@m"), True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["settings.json"]
    assert '"x@m": true' in path.read_text()


# ---------------------------------------------------------------- append_line (the git ignore rule), read through fsio
RULE = "**/.claude/settings.local.json"


def test_append_line_creates_appends_once_and_keeps_other_lines(tmp_path):
    from skilltui.settings_writer import append_line

    new = tmp_path / "cfg/git/ignore"
    assert append_line(new, RULE) is True and new.read_text() == RULE + "\n"
    assert append_line(new, RULE) is False and new.read_text() == RULE + "\n"
    old = tmp_path / "old"
    old.write_bytes(b"foo")  # no final newline: Claude Code's "\n<line>\n" gives it one
    assert append_line(old, RULE) is True and old.read_bytes() == b"foo\n" + RULE.encode() + b"\n"


def test_append_line_refuses_a_fifo_without_blocking_and_an_oversized_file(tmp_path):
    from skilltui.settings_writer import APPEND_CAP, append_line

    fifo = tmp_path / "ignore"
    os.mkfifo(fifo)  # a plain open() for reading would block here until a writer came
    with pytest.raises(SettingsWriteError, match="not a regular file"):
        append_line(fifo, RULE)
    big = tmp_path / "big"
    big.write_bytes(b"x" * (APPEND_CAP + 1))
    with pytest.raises(SettingsWriteError, match="larger than"):
        append_line(big, RULE)
    assert big.stat().st_size == APPEND_CAP + 1
    folder = tmp_path / "folder"
    folder.mkdir()
    with pytest.raises(SettingsWriteError, match="not a regular file"):
        append_line(folder, RULE)


def test_preview_carries_the_exact_bytes_the_write_puts_there(tmp_path):
    """A dialog diffs the writer's own planned bytes: they are the bytes set_member then writes, byte for byte."""
    from skilltui.settings_writer import text_diff

    crlf = tmp_path / "crlf.json"
    write(crlf, '\ufeff{\r\n\t"enabledPlugins": {\r\n\t\t"a@m": true\r\n\t}\r\n}')
    missing = tmp_path / "new" / "settings.json"
    for path in (crlf, missing):
        before = path.read_bytes() if path.exists() else None
        planned = preview(path, (EP, ID), False)
        assert planned.before == before and planned.changed
        set_member(path, (EP, ID), False)
        assert planned.after == path.read_bytes()
    assert text_diff(None, missing.read_bytes()) == ["@@ -0,0 +1,5 @@", "+{", '+  "enabledPlugins": {',
                                                     f'+    "{ID}": false', "+  }", "+}"]
    assert [ln for ln in preview(crlf, (EP, "b@m"), True).diff() if ln[:1] in "+-"] == [
        f'-\t\t"{ID}": false', f'+\t\t"{ID}": false,', '+\t\t"b@m": true']  # the neighbour gains a comma
    assert text_diff(b"foo\n", b"foo\n\nbar\n") == ["@@ -1 +1,3 @@", " foo", "+", "+bar"]
