#!/usr/bin/env python3
"""Run the real Claude Code on a fixture tree for more than one turn and capture the skill listings it adds.

The shared oracle kit (../shared/oracle/oracle.py, or $SKILLTUI_ORACLE) captures only the first request. This
tool reuses its namespaces, fixture handling and listing parser, and swaps in a mock Messages API whose answers to
the main conversation are, in turn, a `tool_use` of Read or Edit on each path given, then "OK". Every later request
is searched for the skill-listing blocks Claude Code adds after a tool result.

  tools/oracle_session.py --home H --cwd C --read src/a.ts --edit lib/b.py [--budget N] [--model M] [-- CLAUDE_ARGS]

Output (JSON): {"version", "model", "first": <first listing>, "steps": [{"tool", "path", "added": [<listing text>],
"result": <tool result text, first 300 chars>}]}. Not part of the test suite: the tests replay recordings.
"""
from __future__ import annotations

import argparse
import importlib.util
import io
import json
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[1]


def load_oracle() -> ModuleType:
    path = Path(os.environ.get("SKILLTUI_ORACLE") or REPO.parent / "shared" / "oracle" / "oracle.py")
    if not path.is_file():
        sys.exit(f"oracle_session: no oracle kit at {path} (set SKILLTUI_ORACLE)")
    spec = importlib.util.spec_from_file_location("skilltui_oracle", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


oracle = load_oracle()


def reexec_unshared() -> None:
    """As the kit does, but re-running this script: a loopback-only network and a private mount namespace."""
    if os.environ.get("SKILLTUI_ORACLE_UNSHARED"):
        return
    unshare = shutil.which("unshare")
    if not unshare:
        sys.exit("oracle_session: `unshare` is needed")
    env = dict(os.environ, SKILLTUI_ORACLE_UNSHARED="1")
    os.execve(unshare, [unshare, "-n", "-m", "--", sys.executable, os.path.abspath(__file__), *sys.argv[1:]], env)


def is_main(request: dict) -> bool:
    return any(t.get("name") == "Read" for t in request.get("tools") or [])


def tool_results(request: dict) -> int:
    count = 0
    for message in request.get("messages", []):
        content = message.get("content")
        for block in content if isinstance(content, list) else []:
            count += block.get("type") == "tool_result"
    return count


def make_handler(steps: list[tuple[str, str]]) -> type:
    class Handler(oracle.MockMessagesAPI):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length") or 0))
            path = self.path.split("?")[0]
            if path != "/v1/messages":
                self.reply(200 if path.endswith("count_tokens") else 404,
                           b'{"input_tokens": 100}' if path.endswith("count_tokens") else b"{}")
                return
            try:
                request = json.loads(body)
            except ValueError:
                request = {}
            self.server.requests.append(request)
            done = tool_results(request)
            if not is_main(request) or done >= len(steps):
                # let the kit's handler answer "OK" (it reads the body again and records the request)
                self.server.requests.pop()
                rfile, self.rfile = self.rfile, io.BytesIO(body)
                try:
                    super().do_POST()
                finally:
                    self.rfile = rfile
                return
            tool, target = steps[done]
            tool_input = {"file_path": target} if tool == "Read" else {
                "file_path": target, "old_string": "EDIT-ME", "new_string": "EDITED"}
            self.answer_tool_use(request, f"toolu_oracle_{done}", tool, tool_input)

        def answer_tool_use(self, request: dict, tool_id: str, name: str, tool_input: dict) -> None:
            message = {"id": f"msg_oracle_{tool_id}", "type": "message", "role": "assistant",
                       "model": request.get("model", "claude"), "content": [], "stop_reason": None,
                       "stop_sequence": None, "usage": {"input_tokens": 10, "output_tokens": 1}}
            block = {"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}
            if not request.get("stream"):
                done = {**message, "content": [block], "stop_reason": "tool_use"}
                self.reply(200, json.dumps(done).encode())
                return
            events = [
                ("message_start", {"type": "message_start", "message": message}),
                ("content_block_start", {"type": "content_block_start", "index": 0,
                                         "content_block": {**block, "input": {}}}),
                ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                         "delta": {"type": "input_json_delta", "partial_json": json.dumps(tool_input)}}),
                ("content_block_stop", {"type": "content_block_stop", "index": 0}),
                ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": None},
                                   "usage": {"output_tokens": 1}}),
                ("message_stop", {"type": "message_stop"}),
            ]
            stream = "".join(f"event: {n}\ndata: {json.dumps(d)}\n\n" for n, d in events)
            self.reply(200, stream.encode(), "text/event-stream")

    return Handler


REMINDER = re.compile(r"<system-reminder>\n(.*?)\n</system-reminder>", re.S)


def tool_result(request: dict, n: int) -> str:
    """The text of tool result number n (1-based) in the request's messages."""
    seen = 0
    for message in request.get("messages", []):
        content = message.get("content")
        for b in content if isinstance(content, list) else []:
            if b.get("type") == "tool_result":
                seen += 1
                if seen == n:
                    inner = b.get("content")
                    return inner if isinstance(inner, str) else "".join(
                        ib.get("text", "") for ib in inner or [] if isinstance(ib, dict))
    return ""


def skill_reminders(text: str) -> list[str]:
    """The system-reminder blocks about skills that Claude Code appended to a tool result, in order."""
    return [m.group(1) for m in REMINDER.finditer(text) if "skill" in m.group(1).lower()]


def session(opts: argparse.Namespace) -> dict:
    steps = opts.steps
    with oracle.mock_messages_api(make_handler(steps)) as api, tempfile.TemporaryDirectory(prefix="oracle-") as tmp:
        run_env = {"ANTHROPIC_BASE_URL": api.url, "ANTHROPIC_API_KEY": "dummy-not-a-real-key"}
        if opts.budget is not None:
            run_env["SLASH_COMMAND_TOOL_CHAR_BUDGET"] = str(opts.budget)
        debug_file = os.path.join(tmp, "debug.log")
        oracle.run("claude", ["-p", "hello", "--model", opts.model, "--debug-file", debug_file,
                              "--permission-mode", "acceptEdits", "--max-turns", str(len(steps) + 2),
                              *opts.tool_args], opts, run_env, check=False)
        debug = [oracle.TIME_STAMP.sub("", line) for line in (oracle.read_text(debug_file) or "").splitlines()
                 if oracle.SKILL_DEBUG.search(oracle.PATH_WORD.sub("", line))]
    main = [r for r in api.requests if is_main(r)]
    first, _ = oracle.find_listing(main[:1])
    out_steps = []
    for i, (tool, path) in enumerate(steps, start=1):
        request = next((r for r in main if tool_results(r) == i), None)
        out_steps.append({"tool": tool, "path": path,
                          "added": skill_reminders(tool_result(request, i)) if request else None,
                          "result": REMINDER.sub("", tool_result(request, i)).strip()[:200] if request else None})
    return {"version": oracle.version("claude", opts), "model": main[0].get("model") if main else None,
            "first": first, "steps": out_steps, "debug": debug}


def parse_args(argv: list[str]) -> argparse.Namespace:
    argv, tool_args = (argv[:argv.index("--")], argv[argv.index("--") + 1:]) if "--" in argv else (argv, [])
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--home", required=True)
    p.add_argument("--cwd", default=".")
    p.add_argument("--env", action="append", default=[], metavar="K=V")
    p.add_argument("--timeout", type=float, default=180)
    p.add_argument("--copy", action="store_true")
    p.add_argument("--placeholder", action="store_true")
    p.add_argument("--budget", type=int)
    p.add_argument("--model", default=oracle.DEFAULT_MODEL)
    p.add_argument("--read", action="append", default=[], metavar="PATH", dest="reads")
    p.add_argument("--edit", action="append", default=[], metavar="PATH", dest="edits")
    p.add_argument("--step", action="append", default=[], metavar="TOOL:PATH",
                   help="Read:PATH or Edit:PATH, in order (after --read/--edit)")
    opts = p.parse_args(argv)
    opts.steps = [("Read", x) for x in opts.reads] + [("Edit", x) for x in opts.edits] + [
        (s.split(":", 1)[0], s.split(":", 1)[1]) for s in opts.step]
    if not opts.steps:
        p.error("give at least one --read, --edit or --step")
    opts.tool_args, opts.command, opts.managed_dir = tool_args, "claude-session", None
    opts.home, opts.cwd = os.path.abspath(opts.home), os.path.abspath(opts.cwd)
    opts.env = dict(kv.split("=", 1) for kv in opts.env)
    return opts


def main(argv: list[str]) -> int:
    opts = parse_args(argv)
    reexec_unshared()
    try:
        oracle.enter_private_namespaces()
        with oracle.fixture_tree(opts):
            top = os.path.commonpath([opts.home, opts.cwd])
            opts.steps = [(tool, path.replace("$TREE", top)) for tool, path in opts.steps]
            out = opts.unmap(session(opts))
    except oracle.OracleError as e:
        print(f"oracle_session: {e}", file=sys.stderr)
        return 1
    sys.stdout.write(json.dumps(out, indent=2, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
