"""The command line (spec/cli.md): every view of the TUI as a plain command, JSON with --json, exit codes 0/1/2."""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import stat
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, NoReturn, TextIO

from skilltui import __version__, leaving, units
from skilltui.runtimes import REGISTRY

if TYPE_CHECKING:
    from skilltui.model import Catalog, Options, Skill
    from skilltui.runtimes.claude.toggle import Outcome

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2
NO_TERMINAL = ("skilltui: the TUI needs a terminal (stdin and stdout are not both one); "
               "for plain output use a command, e.g. `skilltui list` (see `skilltui --help`)")


class CliError(Exception):
    """A clear one-line failure: printed on stderr, exit 1."""


class Parser(argparse.ArgumentParser):
    """argparse, with its errors as ONE line (no usage block): `skilltui budget: --fraction must be ...`."""

    def error(self, message: str) -> NoReturn:
        # A type error reads "argument --x: --x '0' must ..."; the option is named once.
        head, sep, rest = message.partition(": ")
        if sep and head.startswith("argument ") and rest.startswith(head[len("argument "):].split("/")[0]):
            message = rest
        self.exit(EXIT_USAGE, f"{self.prog}: {message} (see `{self.prog} --help`)\n")


def _unit(parse: Callable[[str, str], Any], what: str) -> Callable[[str], Any]:
    """An argparse type from a units.py parser: the same parser and messages as the TUI's fields."""

    def convert(text: str) -> Any:
        try:
            return parse(text, what)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    convert.__name__ = what  # argparse names the type in some messages
    return convert


# The options every command takes, before or after it: (flag, argparse keywords).
_GLOBAL: tuple[tuple[str, dict[str, Any]], ...] = (
    ("--cwd", {"help": "the project directory the agent would be started in"}),
    ("--home", {"help": "the home directory used for discovery (default $HOME)"}),
    ("--runtime", {"choices": REGISTRY,  # the mapping itself: a runtime registered later is a choice too
                   "help": "whose discovery rules to apply (default claude; `all` for show and doctor)"}),
    ("--managed-dir", {"help": "Claude Code managed (policy) directory"}),
    ("--add-dir", {"action": "append", "help": "an additional directory, as Claude Code's --add-dir"}),
    ("--settings", {"help": "flag settings: a JSON object or a file path, as Claude Code's --settings"}),
    ("--omp-rules", {"choices": ("14", "18"), "help": "oh-my-pi rule set (default 18)"}),
    ("--native-dir", {"help": "oh-my-pi native folder name (default .omp; .xcsh for the fork)"}),
    ("--demo", {"action": "store_true", "help": "use the bundled demo home and project (a temporary copy)"}),
    ("--demo-reset", {"action": "store_true", "help": "use the demo (as --demo), starting again from a fresh copy"}),
    ("--no-cache", {"action": "store_true", "help": "do not use or store answers in the cache (also SKILLTUI_NO_CACHE=1)"}),
)
# The global options that take a value, and those that do not: enough to find the command in the usual arguments.
_FLAGS = frozenset(flag for flag, kw in _GLOBAL if kw.get("action") == "store_true")
_VALUED = frozenset(flag for flag, _ in _GLOBAL) - _FLAGS


def _global_options(parser: argparse.ArgumentParser, suppress: bool) -> None:
    d: dict[str, Any] = {"default": argparse.SUPPRESS} if suppress else {}
    for flag, kwargs in _GLOBAL:
        parser.add_argument(flag, **kwargs, **d)


# `list`'s own options, all flags: what `_plain_list_args` reads without a parser (build_parser adds the same).
_LIST_FLAGS = ("--all", "--json", "--pretty")


def _json_options(p: argparse.ArgumentParser, group: argparse._MutuallyExclusiveGroup | None = None) -> None:
    (group or p).add_argument("--json", action="store_true",
                              help="JSON (docs/json.md); compact unless stdout is a terminal or --pretty is given")
    p.add_argument("--pretty", action="store_true", help="indent the JSON")


class _Unsure(Exception):
    """The parser built for one command could not take the arguments: the whole parser decides and speaks."""


class _FixedWidth(argparse.HelpFormatter):
    """A formatter that does not ask the terminal's width (argparse imports shutil for that while building)."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, width=80)


class _QuietParser(Parser):
    """Never prints: it reads only arguments `_named_command` understood, and the whole parser takes over otherwise."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _FixedWidth)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        raise _Unsure(message)


def build_parser(only: str | None = None, parser_class: type[Parser] = Parser) -> argparse.ArgumentParser:
    """The command line's parser; `only`: with that one command's subparser alone (the others cost more to build
    than a `list --json` run spends parsing)."""
    parser = parser_class(
        prog="skilltui", usage="%(prog)s [OPTIONS] [COMMAND [ARGS]]",
        description="Which skills your coding agent sees, from where, and why. "
                    "With no COMMAND, skilltui opens the TUI (it needs a terminal); each COMMAND prints one view.",
        epilog="`skilltui COMMAND --help` describes a command. JSON output is documented in docs/json.md.")
    parser.add_argument("--version", action="version", version=f"skilltui {__version__}")
    _global_options(parser, suppress=False)
    common = parser_class(add_help=False)
    _global_options(common, suppress=True)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=False, parser_class=parser_class,
                                prog="skilltui", title="commands (optional: without one, the TUI opens)")

    def add(name: str, **kwargs: Any) -> argparse.ArgumentParser:
        if only is None or name == only:
            return sub.add_parser(name, **kwargs)
        return parser_class(add_help=False)  # not wanted: what is added to it goes nowhere

    p = add("list", parents=[common], help="the skills the runtime offers, in listing order")
    p.add_argument("--all", action="store_true", help="also every file found but not offered, with the reason")
    _json_options(p)  # with --all: _LIST_FLAGS

    p = add("show", parents=[common], help="one skill: frontmatter, body, referenced files")
    p.add_argument("name")
    _json_options(p)

    p = add("resolve", parents=[common], help="resolve a skill://NAME[/RELPATH] URL")
    p.add_argument("url")

    p = add("plugins", parents=[common], help="installed plugins and who decides whether they load")
    _json_options(p)

    p = add("plugin", parents=[common], help="enable or disable a Claude Code plugin")
    p.add_argument("action", choices=("enable", "disable"))
    p.add_argument("id")
    p.add_argument("--scope", choices=("user", "project", "local"))
    _json_options(p)
    p.add_argument("--follow-links", action="store_true",
                   help="write project/local settings even where a link leads the real file outside the project")

    p = add("skill", parents=[common],
                       help="set a per-skill override (Claude Code skillOverrides: `set NAME VALUE`), or "
                            "`enable|disable NAME` where the runtime has a per-skill switch (Gemini CLI skills.disabled)")
    p.add_argument("action", choices=("set", "enable", "disable"))
    p.add_argument("name")
    p.add_argument("value", nargs="?", choices=("on", "name-only", "user-invocable-only", "off"))
    p.add_argument("--scope", choices=("user", "project", "local", "workspace"))
    _json_options(p)
    p.add_argument("--follow-links", action="store_true",
                   help="write project/local settings even where a link leads the real file outside the project")

    p = add("budget", parents=[common], help="simulate the skill listing under a context window")
    win = p.add_mutually_exclusive_group()
    win.add_argument("--context-window", type=_unit(units.parse_count, "--context-window"), metavar="TOKENS",
                     help="the model's context window: 200000, 200k, 1m, 1_000_000")
    win.add_argument("--model", metavar="ID")
    p.add_argument("--chars-per-token", type=_unit(units.parse_positive, "--chars-per-token"), metavar="N")
    p.add_argument("--fraction", type=_unit(units.parse_fraction, "--fraction"), metavar="F",
                   help="the share of the window the listing may take (above 0, at most 1)")
    p.add_argument("--budget", type=_unit(units.parse_count, "--budget"), metavar="CHARS",
                   help="the listing budget in columns, as SLASH_COMMAND_TOOL_CHAR_BUDGET (8000, 8k)")
    p.add_argument("--usage", metavar="FILE", help="a global config holding skillUsage (default: the real one)")
    p.add_argument("--now", metavar="ISO", help="the clock for usage decay (default: now)")
    out = p.add_mutually_exclusive_group()
    _json_options(p, out)
    out.add_argument("--text", action="store_true")

    p = add("touch", parents=[common],
                       help="what Claude Code adds to the listing when the agent reads or edits these files")
    p.add_argument("paths", nargs="*", metavar="PATH", help="files, folders or globs, in the order they are touched")
    p.add_argument("--git", nargs="?", const="", metavar="RANGE",
                   help="also the files git sees as changed (staged, unstaged, untracked), or those of RANGE (main...HEAD)")
    p.add_argument("--budget", type=_unit(units.parse_count, "--budget"), metavar="CHARS",
                   help="listing budget (default: as for the first listing)")
    p.add_argument("--model", metavar="ID", help="the model whose budget applies (default: the one Claude Code would run)")
    out = p.add_mutually_exclusive_group()
    _json_options(p, out)
    out.add_argument("--text", action="store_true", help="only the blocks the model receives, in order")

    p = add("doctor", parents=[common], help="every diagnostic, with the file and a fix")
    _json_options(p)
    p.add_argument("--strict", action="store_true", help="exit 1 when there is an error")
    return parser


def _check_usage(path: str) -> None:
    """--usage names a global config: a missing or broken one is said, never silently read as "no usage"."""
    from skilltui import fsio
    from skilltui.runtimes.claude.listing import USAGE_CAP

    try:  # through fsio: a FIFO or /dev/zero named here neither blocks nor reads without end
        got = fsio.read_capped_bytes(path, USAGE_CAP)
        if got.truncated:
            raise CliError(f"--usage {path}: larger than {USAGE_CAP:,} bytes; not read")
        data = fsio.json_loads(got.data.decode("utf-8"))
    except FileNotFoundError:
        raise CliError(f"--usage {path}: no such file") from None
    except fsio.NotRegularFile as exc:
        raise CliError(f"--usage {path}: cannot be read ({exc.strerror})") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise CliError(f"--usage {path}: cannot be read ({exc.__class__.__name__})") from None
    except (ValueError, RecursionError) as exc:
        raise CliError(f"--usage {path}: not valid JSON ({str(exc).splitlines()[0] if str(exc) else exc})") from None
    if not isinstance(data, dict):
        raise CliError(f"--usage {path}: not a JSON object")


def _check_settings_flag(value: str) -> None:
    """--settings as Claude Code reads it: JSON text that parses, else a file path that must exist
    (observed: `claude --settings '{bad json'` and a missing file both stop with "Settings file not found: <path>")."""
    if value.lstrip().startswith("{"):
        try:
            from skilltui import fsio

            fsio.json_loads(value)  # as JSON.parse: a 5,000-digit number is valid
            return
        except (ValueError, RecursionError) as exc:
            if not os.path.exists(value):
                raise CliError(f"--settings: not valid JSON ({exc}) and no file has that name") from None
    if not os.path.isfile(value):
        raise CliError(f"--settings: settings file not found: {os.path.abspath(value)}")


def options_from(args: argparse.Namespace, runtime: str | None = None) -> Options:
    from skilltui.model import Options

    env = dict(os.environ)
    home = args.home or env.get("HOME") or os.path.expanduser("~")
    cwd = args.cwd or os.getcwd()
    managed = args.managed_dir
    if args.settings is not None:
        _check_settings_flag(args.settings)
    if getattr(args, "demo", False) or getattr(args, "demo_reset", False):
        from dataclasses import replace

        from skilltui.demo import demo_options

        # the demo is its own home, project and managed folder: a flag that picks one is a contradiction, not ignored
        for flag, given in (("--home", args.home), ("--cwd", args.cwd), ("--managed-dir", managed)):
            if given is not None:
                raise CliError(f"{flag} cannot be used with --demo, which brings its own home, project and managed folder")
        opts = demo_options(runtime or args.runtime or "claude", env, reset=getattr(args, "demo_reset", False))
        return replace(opts, add_dirs=list(args.add_dir or []), settings_flag=args.settings,
                       omp_rules=args.omp_rules or "18", native_dir=args.native_dir or ".omp")
    for label, path in (("--cwd", cwd), ("--home", home)):
        if not os.path.isdir(path):
            raise CliError(f"{label} {path}: not a directory")
    if managed is None:
        managed = ("/Library/Application Support/ClaudeCode" if sys.platform == "darwin"
                   else r"C:\Program Files\ClaudeCode" if os.name == "nt" else "/etc/claude-code")
    return Options(cwd=os.path.abspath(cwd), home=os.path.abspath(home), runtime=runtime or args.runtime or "claude",
                   managed_dir=managed, add_dirs=list(args.add_dir or []), settings_flag=args.settings, env=env,
                   omp_rules=args.omp_rules or "18", native_dir=args.native_dir or ".omp")


def _json_bytes(data: object, args: argparse.Namespace) -> bytes:
    """JSON in UTF-8: indented for a terminal or --pretty; otherwise compact, through the C encoder (much faster).
    Encoded once: the encoding is also the check for lone surrogates (a 3 MB doctor answer was encoded twice)."""
    pretty = getattr(args, "pretty", False) or sys.stdout.isatty()
    indent, separators = (2, None) if pretty else (None, (",", ":"))
    try:
        return (json.dumps(data, ensure_ascii=False, indent=indent, separators=separators) + "\n").encode("utf-8")
    except UnicodeEncodeError:  # a file name that is not UTF-8 holds lone surrogates: escape them, stay valid JSON
        return (json.dumps(data, ensure_ascii=True, indent=indent, separators=separators) + "\n").encode("utf-8")


def _emit_json(data: object, args: argparse.Namespace) -> None:
    _write_chunks([_json_bytes(data, args)])


def _cache_parts(args: argparse.Namespace, opts: Options) -> list[object]:
    from dataclasses import replace

    return [__version__, sys.stdout.isatty(), sorted((k, repr(v)) for k, v in vars(args).items() if k != "no_cache"),
            repr(replace(opts, env={}))]


def _cached_chunks(args: argparse.Namespace, opts: Options,
                   compute: Callable[[Options], list[bytes]]) -> Sequence[bytes]:
    """compute(opts) as byte chunks (written one by one, never joined), or the answer stored by an earlier run on the
    same, unchanged tree (skilltui/cache.py). The recording environment itself goes to compute, not a copy: a copy's
    reads are not noted, and a changed variable (say ANTHROPIC_MODEL) would then give the stored answer."""
    from dataclasses import replace

    from skilltui import cache

    if args.no_cache or args.demo:
        return compute(opts)
    return cache.cached_chunks(_cache_parts(args, opts), opts.env,
                               lambda env: compute(replace(opts, env=env)),  # type: ignore[arg-type]
                               later=_AFTER_EXIT if leaving.active() else None)


def _write_chunks(chunks: Sequence[bytes]) -> None:
    """Bytes to stdout as they are (UTF-8 already); through the text layer where stdout has no buffer (a test's
    StringIO)."""
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:
        for chunk in chunks:
            sys.stdout.write(chunk.decode("utf-8", "surrogateescape"))
        return
    sys.stdout.flush()
    if sum(map(len, chunks)) > 1 << 16:
        _widen_pipe(sys.stdout)
    for chunk in chunks:
        buffer.write(chunk)
    buffer.flush()


def _widen_pipe(stream: TextIO) -> None:
    """Where stdout is a pipe, its capacity raised to 1 MiB (Linux's usual limit for a user): a big answer then goes
    out in a few writes, instead of one wake-up of the reader every 64 KiB. Nothing changes elsewhere."""
    try:
        import fcntl

        fd = stream.fileno()
        if stat.S_ISFIFO(os.fstat(fd).st_mode):
            fcntl.fcntl(fd, getattr(fcntl, "F_SETPIPE_SZ", 1031), 1 << 20)
    except (OSError, ValueError, AttributeError, ImportError):
        pass


def _suggest(wanted: str, names: Sequence[str], limit: int = 3) -> str:
    """ ' (did you mean a, b?)' from the closest names, or ''."""
    import difflib  # only on this error path: a normal run does not pay for it

    folded = {n.casefold(): n for n in names}
    close = [folded[n] for n in difflib.get_close_matches(wanted.casefold(), list(folded), n=limit, cutoff=0.6)]
    # a prefix or a part also counts: `linter` -> linter@demo-market, `pdf` -> pdf-tools
    for n in names:
        parts = n.replace("@", ":").split(":")
        if len(close) < limit and n not in close and (wanted in parts or n.startswith(wanted)):
            close.append(n)
    return f" (did you mean {', '.join(close)}?)" if close else ""


def _find_skill(catalog: Catalog, name: str) -> Skill:
    """By name, then by display name or label (`pdf`, `pdf-tools (pdf)`), a listed copy first; shipped entries too."""
    matchers: tuple[Callable[[Skill], bool], ...] = (
        lambda s: s.name == name, lambda s: s.display_name == name or s.label == name,
        lambda s: s.name.casefold() == name.casefold())
    for match in matchers:
        matches = [s for s in catalog.skills if match(s)]
        if matches:
            listed = [s for s in matches if s.status == "listed"]
            return (listed or matches)[0]
    names = list(dict.fromkeys([s.name for s in catalog.skills] + [s.display_name for s in catalog.skills if s.display_name]))
    raise CliError(f"no skill named {name!r} was found for {catalog.runtime}{_suggest(name, names)}")


# ---------------------------------------------------------------- commands
def _discover(opts: Options) -> Catalog:
    from skilltui.runtimes import discover  # imported only when there is discovering to do (a cached answer has none)

    return discover(opts)


def _list_json(catalog: Catalog, opts: Options, include_all: bool, lazy_skills: bool = False) -> dict[str, object]:
    from skilltui.runtimes import get

    data = catalog.to_json(include_all=include_all, lazy_skills=lazy_skills)
    choice = get(catalog.runtime).listing_model(catalog, opts)  # Claude Code: spec/claude-code.md §8.0
    if choice is not None:
        data.update(choice.to_json())
    return data


SKILLS_PER_BATCH = 500  # skills encoded per json call: the output is built in pieces this size


def _list_chunks(catalog: Catalog, opts: Options, args: argparse.Namespace) -> list[bytes]:
    """`list --json` as UTF-8 pieces whose concatenation is `_json_bytes` of the whole answer. Compact JSON is built a
    batch of skills at a time and encoded at once: neither the whole answer's dicts nor its text is ever held (at
    20,000 skills they were most of the peak memory). Pretty JSON goes through `_json_bytes` whole."""
    data = _list_json(catalog, opts, args.all, lazy_skills=True)
    skills: list[Skill] = data["skills"]  # type: ignore[assignment]
    leaving.keep(catalog, data)  # a process that ends after this answer does not free them one by one
    del catalog  # the listed entries stay alive through `skills`
    if getattr(args, "pretty", False) or sys.stdout.isatty():
        data["skills"] = [s.to_json() for s in skills]
        return [_json_bytes(data, args)]
    try:
        return _compact_chunks(data, skills, ensure_ascii=False)
    except UnicodeEncodeError:  # a file name that is not UTF-8 holds lone surrogates: escape them, as _json_bytes does
        return _compact_chunks(data, skills, ensure_ascii=True)


def _compact_chunks(data: dict[str, object], skills: list[Skill], ensure_ascii: bool) -> list[bytes]:
    """json.dumps(data with each skill's to_json, compact) + "\n", in UTF-8 pieces: the keys before "skills", the
    skills a batch at a time, then the keys after. Raises UnicodeEncodeError on a lone surrogate."""
    from skilltui.model import skill_json_text

    enc = json.JSONEncoder(ensure_ascii=ensure_ascii, separators=(",", ":"))
    keys = list(data)
    at = keys.index("skills")
    head = enc.encode({k: data[k] for k in keys[:at]})[:-1] + ("," if at else "") + '"skills":['
    out = [head.encode("utf-8")]
    for i in range(0, len(skills), SKILLS_PER_BATCH):
        if i:
            out.append(b",")
        out.append(",".join([skill_json_text(s, enc) for s in skills[i : i + SKILLS_PER_BATCH]]).encode("utf-8"))
    tail = {k: data[k] for k in keys[at + 1 :]}
    out.append(("]" + ("," + enc.encode(tail)[1:] if tail else "}") + "\n").encode("utf-8"))
    return out


@contextlib.contextmanager
def _no_cyclic_gc() -> Iterator[None]:
    """Cyclic GC paused: building and encoding a big catalog's JSON makes tens of thousands of containers and no
    cycles, and the collector's passes over them cost a few percent of a `list` run. When the program ends right
    after the command (`run`), it stays paused: the first allocation after `gc.enable()` would start a pass over
    every object the command made (30-50 ms on a 6,000-skill tree), after the answer is out and for nothing."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled and not leaving.active():
            gc.enable()


def cmd_list(args: argparse.Namespace, opts: Options) -> int:
    if args.json:
        with _no_cyclic_gc():
            chunks = _cached_chunks(args, opts, lambda o: _list_chunks(_discover(o), o, args))
            _write_chunks(chunks)
        return EXIT_OK
    from skilltui.runtimes import discover
    from skilltui.text import safe

    catalog = discover(opts)
    skills = catalog.skills if args.all else catalog.listed()
    print(f"# {catalog.runtime} {catalog.runtime_version} (simulated) — cwd {safe(catalog.cwd)}")
    if catalog.facts.notice:  # what the runtime did not read, or why it does not start
        print(f"# {safe(catalog.facts.notice)}")
    for s in skills:
        pos = f"{s.order + 1:>3}" if s.order is not None else "  -"
        line = f"{pos} {safe(s.label or s.name)}  [{s.source}] {s.status}"
        if s.status != "listed" and s.reason:
            line += f": {safe(s.reason)}"
        elif s.description:
            line += f"  {safe(s.description)[:100]}"
        print(line)
    return EXIT_OK


def cmd_show(args: argparse.Namespace, opts: Options) -> int:
    from skilltui import preview
    from skilltui.runtimes import discover
    from skilltui.text import safe

    if args.runtime_all:
        return cmd_show_all(args, opts)
    catalog = discover(opts)
    skill = _find_skill(catalog, args.name)
    data = preview.skill_details(catalog, skill)
    if args.json:
        _emit_json(data, args)
        return EXIT_OK
    print(f"{safe(skill.name)}  [{skill.source}] {skill.status}{': ' + safe(skill.reason) if skill.reason else ''}")
    print(f"path: {safe(skill.path)}" if skill.path else "path: none (shipped inside the runtime; its text is not on disk)")
    fm = data["frontmatter"]
    if fm["error"]:
        print(f"frontmatter: {fm['status']} (line {fm['error_line']}): {safe(fm['error'])}")
    for key, value in fm["fields"].items():
        print(f"  {safe(str(key))}: {safe(json.dumps(value, ensure_ascii=False, default=str))[:200]}")
    print()
    print(safe(data["body"], keep_newlines=True))
    if data["references"]:
        print("\nreferenced files:")
        for ref in data["references"]:
            mark = "ok" if ref["exists"] else (ref["problem"] or "missing")
            print(f"  {safe(ref['link'])} -> {safe(ref['resolved'] or '-')} [{mark}]")
    return EXIT_OK


def cmd_show_all(args: argparse.Namespace, opts: Options) -> int:
    from skilltui import preview
    from skilltui.text import safe

    rows = preview.every_runtime(opts, args.name)
    if args.json:
        _emit_json(rows, args)
        return EXIT_OK
    for row in rows:
        print(f"{row['runtime']} {row['runtime_version']}:")
        if not row["copies"]:
            print("  (no copy found)")
        for c in row["copies"]:
            mark = "→" if c["status"] == "listed" else " "
            print(f"  {mark} {c['status']:<11} [{c['source']}] {safe(c['path'])}" + (f" — {safe(c['reason'])}" if c["reason"] else ""))
    return EXIT_OK


def cmd_resolve(args: argparse.Namespace, opts: Options) -> int:
    from skilltui import preview
    from skilltui.refs import SkillUrlError
    from skilltui.runtimes import discover
    from skilltui.text import safe

    catalog = discover(opts)
    try:
        print(safe(preview.resolve_url(catalog, args.url)))
    except SkillUrlError as exc:
        raise CliError(str(exc).replace("\n", " — ")) from None
    return EXIT_OK


def cmd_plugins(args: argparse.Namespace, opts: Options) -> int:
    from skilltui.runtimes import discover
    from skilltui.text import safe

    opts.runtime = "claude"
    catalog = discover(opts)
    rows = [p.to_json() for p in catalog.plugins]
    if args.json:
        _emit_json(rows, args)
        return EXIT_OK
    if not rows:
        print("No plugins installed.")
    for p in catalog.plugins:
        state = "enabled" if p.enabled else "disabled"
        load = "loads" if p.loads else "does not load"
        if p.decided_by == "default":
            why = "by default"
        else:
            why = f"decided by {p.decided_by}" + (f": {safe(p.decided_in)}" if p.decided_in else " (inline --settings)")
        print(f"{safe(p.id)}  {state}, {load}  ({why})")
        for note in p.notes + p.errors:
            print(f"    {safe(note)}")
    return EXIT_OK


def _toggle(outcome: Outcome, args: argparse.Namespace, hint: str = "") -> int:
    from skilltui.runtimes.claude import toggle
    from skilltui.text import safe

    toggle.apply(outcome, follow_links=args.follow_links)
    if not outcome.ok and hint:
        outcome.message += hint
    if args.json:
        _emit_json(outcome.to_json(), args)
    elif outcome.ok:
        print(safe(outcome.message))
        if outcome.change:
            real = outcome.change.target
            print(f"{safe(outcome.change.path)}:" + (f" (through a link: {safe(real)})" if outcome.change.outside else ""))
            if outcome.change.old_line is not None:
                print(f"  - {safe(outcome.change.old_line)}")
            print(f"  + {safe(outcome.change.new_line)}")
        if outcome.gitignore:  # git must not pick up local settings, as Claude Code ensures too
            print(f"{safe(outcome.gitignore)}:\n  + {toggle.LOCAL_IGNORE_RULE}")
    for w in outcome.warnings:
        print(f"warning: {safe(w)}", file=sys.stderr)
    if not outcome.ok:
        print(safe(outcome.stderr_line()), file=sys.stderr)
        return EXIT_FAIL
    return EXIT_OK


def cmd_plugin(args: argparse.Namespace, opts: Options) -> int:
    from skilltui.runtimes import discover
    from skilltui.runtimes.claude import toggle

    opts.runtime = "claude"
    catalog = discover(opts)
    outcome = toggle.plan_plugin(catalog, args.id, args.action == "enable", args.scope)
    hint = ""
    if outcome.failure_code == "plugin_not_installed":
        hint = _suggest(args.id, [p.id for p in catalog.plugins if p.kind != "builtin"])
    return _toggle(outcome, args, hint)


def cmd_skill_switch(args: argparse.Namespace, opts: Options) -> int:
    """`skill enable|disable NAME`: the runtime's own per-skill switch, written through the settings writer."""
    from skilltui.runtimes import discover, get
    from skilltui.text import safe

    runtime = get(opts.runtime)
    plan = getattr(runtime, "plan_skill_toggle", None)
    apply = getattr(runtime, "apply_skill_toggle", None)
    if plan is None or apply is None:
        raise CliError(f"{runtime.label} has no per-skill enable/disable (try --runtime gemini; for Claude Code use "
                       "`skill set NAME on|off`)")
    result = apply(plan(discover(opts), args.action, args.name, args.scope))
    if args.json:
        _emit_json(result.to_json(), args)
    else:
        print(safe(result.message), file=sys.stdout if result.ok else sys.stderr)
        for edit in result.edits:
            print(f"{safe(edit.path)}: skills.disabled {safe(json.dumps(edit.old, ensure_ascii=False))} -> "
                  f"{safe(json.dumps(edit.new, ensure_ascii=False))}")
    for w in result.warnings:
        print(f"warning: {safe(w)}", file=sys.stderr)
    return EXIT_OK if result.ok else EXIT_FAIL


def cmd_skill(args: argparse.Namespace, opts: Options) -> int:
    from skilltui.runtimes import discover
    from skilltui.runtimes.claude import toggle

    if args.action in ("enable", "disable"):
        return cmd_skill_switch(args, opts)
    if args.value is None:
        raise CliError("skill set NAME VALUE: give a value (on, name-only, user-invocable-only, off)")
    if args.scope == "workspace":
        raise CliError("--scope workspace is a Gemini CLI scope; Claude Code's are user, project and local")
    opts.runtime = "claude"
    catalog = discover(opts)
    outcome = toggle.plan_override(catalog, args.name, args.value, args.scope)
    hint = ""
    if outcome.failure_code == "skill_not_found":
        hint = _suggest(args.name, list(dict.fromkeys(s.name for s in catalog.skills)))
    return _toggle(outcome, args, hint)


def cmd_budget(args: argparse.Namespace, opts: Options) -> int:
    from skilltui import budget

    if args.usage is not None:
        _check_usage(args.usage)
    try:
        result = budget.run(opts, context_window=args.context_window, model=args.model, chars_per_token=args.chars_per_token,
                            fraction=args.fraction, budget=args.budget, usage_path=args.usage, now=args.now)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    if args.json:
        _emit_json(result.to_json(), args)
    elif args.text:
        if result.text:
            sys.stdout.write(result.text + "\n")
    else:
        sys.stdout.write(result.human() + "\n")
    return EXIT_OK


def cmd_touch(args: argparse.Namespace, opts: Options) -> int:
    from skilltui.runtimes import get
    from skilltui.touch_view import TouchRequest, run_touch

    runtime = get(opts.runtime)
    if not runtime.lists_on_touch:
        raise CliError(f"touch simulates the listings that reading a file adds; {runtime.label} lists every skill "
                       "up front")
    if not args.paths and args.git is None:
        raise CliError("give files, folders or globs to touch, or --git")
    try:
        view = run_touch(opts, TouchRequest(args.paths, args.git, args.budget, args.model))
    except ValueError as exc:
        raise CliError(str(exc)) from None
    if args.json:
        _emit_json(view.to_json(), args)
    elif args.text:
        sys.stdout.write(view.text())
    else:
        sys.stdout.write(view.human() + "\n")
    return EXIT_OK


def cmd_doctor(args: argparse.Namespace, opts: Options) -> int:
    from skilltui import doctor, parallel
    from skilltui.text import safe

    runtimes = tuple(REGISTRY) if args.runtime_all else (opts.runtime,)
    with _no_cyclic_gc():  # tens of thousands of findings, catalog entries and their JSON: no cycles to collect
        diags = doctor.run(opts, runtimes, workers=parallel.cpus())
        if args.json:
            _emit_json({"runtimes": list(runtimes), "diagnostics": [d.to_json() for d in diags]}, args)
    if not args.json:
        if not diags:
            print("No problems found.")
        for d in diags:
            where = safe(d.path or "-") + (f":{d.line}" if d.line else "")
            print(f"{d.severity:<7} {d.code}  {where}\n        {safe(d.summary)}" + (f"\n        fix: {safe(d.fix)}" if d.fix else "")
                  + (f"\n        found by: {', '.join(d.lenses)}" if d.lenses else ""))
    errors = sum(d.severity == "error" for d in diags)
    return EXIT_FAIL if args.strict and errors else EXIT_OK


COMMANDS = {"list": cmd_list, "show": cmd_show, "resolve": cmd_resolve, "plugins": cmd_plugins, "plugin": cmd_plugin,
            "skill": cmd_skill, "budget": cmd_budget, "touch": cmd_touch, "doctor": cmd_doctor}


_TUI_STARTED = False  # set when main() runs the TUI: its threads and terminal get the interpreter's usual exit
# Work for after the answer is out (storing a new cached answer): run() does it in a detached process, so neither
# the caller's wait for this process nor its read of the output waits for it.
_AFTER_EXIT: list[Callable[[], None]] = []


def run() -> NoReturn:
    """The program (`skilltui`, `python -m skilltui`): main(), then, after a command, leave without the interpreter's
    teardown. Freeing a big catalog's objects one by one at exit took longer than a cold `list --json` spends on
    its answer; the process ends anyway. The exit handlers still run (the demo removes its folder), and stdout
    and stderr are flushed."""
    code = main(ends_after=True)
    if _TUI_STARTED:
        raise SystemExit(code)
    import atexit

    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe or stream: nothing more can be said
            pass
    if _AFTER_EXIT:
        from skilltui import parallel

        # The caller's pipes are let go of here, before the fork: whoever reads them sees their end now, not once
        # the new process has been given a CPU to let go of its copies (on a busy machine, tens of ms).
        try:
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)
            os.close(null)
        except OSError:
            pass
        if not parallel.detached(_after_exit):
            _after_exit()  # no process could be made: done here, as main() called in a process does
    os._exit(code)


def _after_exit() -> None:
    for work in _AFTER_EXIT:
        try:
            work()
        except Exception:  # storing for next time is never worth a failure of this run
            pass


def _named_command(argv: Sequence[str]) -> str | None:
    """The command the arguments name, when it can be told without a parser; None when unsure (help, an abbreviated
    or unknown option, no command): the whole parser then reads them."""
    if any(a in ("-h", "--help", "--version") for a in argv):
        return None
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg in _VALUED:
            i += 2
        elif arg in _FLAGS or (arg.partition("=")[0] in _VALUED and "=" in arg):
            i += 1
        else:
            return arg if arg in COMMANDS else None
    return None


def _plain_list_args(argv: Sequence[str]) -> argparse.Namespace | None:
    """The namespace the whole parser gives for a plain `list` command line, read without building a parser (which
    costs more than a cached `list` run spends on the rest): global options before or after `list` and its flags
    after it, each written in full (`--cwd X` or `--cwd=X`), with no value that starts with `-`. None for anything
    else (help, an abbreviation, an error, a choice not offered, another command): the parsers then read it.
    As argparse does, a global option given after the command replaces the one given before it."""
    before: dict[str, Any] = {}
    after: dict[str, Any] = {}
    seen = before
    command = False
    i = 0
    while i < len(argv):
        arg = argv[i]
        flag, eq, value = arg.partition("=")
        if arg == "list" and not command:
            command, seen = True, after
        elif arg in _FLAGS or (command and arg in _LIST_FLAGS):
            seen[arg[2:].replace("-", "_")] = True
        elif flag in _VALUED:
            if not eq:
                if i + 1 >= len(argv):
                    return None
                i += 1
                value = argv[i]
                if value.startswith("-"):
                    return None
            kwargs = dict(_GLOBAL)[flag]
            if "choices" in kwargs and value not in kwargs["choices"]:
                return None
            name = flag[2:].replace("-", "_")
            if kwargs.get("action") == "append":
                seen[name] = [*seen.get(name, ()), value]
            else:
                seen[name] = value
        else:
            return None
        i += 1
    if not command:
        return None
    out = {flag[2:].replace("-", "_"): False if flag in _FLAGS else None for flag, _ in _GLOBAL}
    out.update({flag[2:]: False for flag in _LIST_FLAGS})
    return argparse.Namespace(**{**out, **before, **after, "command": "list"})


def main(argv: list[str] | None = None, ends_after: bool = False) -> int:
    """The command line; `ends_after`: the process ends when a command returns (`run`; the TUI is not a command)."""
    for stream in (sys.stdout, sys.stderr):  # a lone surrogate from a non-UTF-8 file name must not end the program
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="replace")
    argv = list(sys.argv[1:] if argv is None else argv)
    # `--runtime all` is accepted by `show` and `doctor` only; argparse sees a normal runtime.
    runtime_all = False
    for i, arg in enumerate(argv):
        if arg == "--runtime" and i + 1 < len(argv) and argv[i + 1] == "all":
            argv[i + 1], runtime_all = "claude", True
        elif arg == "--runtime=all":
            argv[i], runtime_all = "--runtime=claude", True
    command = _named_command(argv)
    args = _plain_list_args(argv) if command == "list" else None  # the most common case: no parser at all
    if command is not None and args is None:  # the common case: that command's parser alone
        try:
            args = build_parser(only=command, parser_class=_QuietParser).parse_args(argv)
        except _Unsure:
            args = None
    parser = build_parser() if args is None else None
    try:
        if parser is not None:
            args = parser.parse_args(argv)
    except SystemExit as exc:  # usage errors (one line, exit 2), --help and --version: a code, not an exception
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    assert args is not None
    for flag, _ in _GLOBAL:  # given neither before nor after the command: the default
        name = flag[2:].replace("-", "_")
        setattr(args, name, getattr(args, name, False if flag in _FLAGS else None))
    args.runtime_all = runtime_all
    if runtime_all and args.command not in ("show", "doctor"):
        (parser or build_parser()).error("--runtime all is accepted by show and doctor only")
    try:
        if args.command is None and not (sys.stdin.isatty() and sys.stdout.isatty()):
            print(NO_TERMINAL, file=sys.stderr)
            return EXIT_USAGE
        opts = options_from(args)
        if ends_after and args.command is not None:
            leaving.start()  # what the command would free just before the end is kept (skilltui/leaving.py)
        if args.command is None:
            from skilltui.tui.app import run_app

            global _TUI_STARTED
            _TUI_STARTED = True

            return run_app(opts, cache=not (args.no_cache or args.demo or getattr(args, "demo_reset", False)))
        return COMMANDS[args.command](args, opts)
    except CliError as exc:
        from skilltui.text import safe

        print(f"skilltui: {safe(str(exc))}", file=sys.stderr)
        return EXIT_FAIL
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except Exception as exc:  # no traceback ever reaches a user; say what failed in one line
        from skilltui.text import safe

        print(f"skilltui: internal error: {exc.__class__.__name__}: {safe(str(exc))[:300]}", file=sys.stderr)
        if os.environ.get("SKILLTUI_DEBUG"):
            raise
        return EXIT_FAIL


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
