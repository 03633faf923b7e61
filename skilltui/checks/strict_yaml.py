"""strictyaml, reproduced on PyYAML's pure-Python scanner, parser and composer (see checks/conformance.py, which
imports this module only for a frontmatter its string-method reader (`conformance.fast_load`) cannot decide: loading
PyYAML is a sixth of a doctor run's start-up, and most trees never need it)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from yaml import nodes as _nodes
from yaml import tokens as _tokens
from yaml.composer import Composer
from yaml.error import Mark, MarkedYAMLError
from yaml.parser import Parser
from yaml.reader import Reader
from yaml.resolver import BaseResolver
from yaml.scanner import Scanner, ScannerError


class StrictYAMLError(MarkedYAMLError):
    """A strictyaml refusal (flow style, anchor, tag, duplicate key, inconsistent indentation)."""

    kind = "disallowed"


class FlowDisallowed(StrictYAMLError):
    kind = "flow"


class _AnchorDisallowed(StrictYAMLError):
    kind = "anchor"


class _TagDisallowed(StrictYAMLError):
    kind = "tag"


class _DuplicateKey(StrictYAMLError):
    kind = "duplicate"


class _InconsistentIndentation(StrictYAMLError):
    kind = "indentation"


class _TooDeep(StrictYAMLError):
    kind = "depth"


class _CommentToken(_tokens.Token):
    """ruamel's round-trip scanner turns comments and blank lines into tokens; they change how far it reads ahead
    (and so which error it meets first). The parser never sees them."""

    id = "<comment>"


_LINE_ENDS = "\0\r\n\x85\u2028\u2029"
_POST_COMMENT_HOLDERS = (
    _tokens.ScalarToken,
    _tokens.ValueToken,
    _tokens.FlowSequenceEndToken,
    _tokens.FlowMappingEndToken,
)


class _StrictScanner(Scanner):
    """ruamel's RoundTripScanner token plumbing, plus strictyaml's StrictYAMLScanner.check_token: the head token is
    refused (flow style, anchor, tag) when the parser asks about it."""

    if TYPE_CHECKING:  # Reader's, which _StrictLoader mixes in
        index: int

        def peek(self, index: int = 0) -> str: ...
        def prefix(self, length: int = 1) -> str: ...
        def forward(self, length: int = 1) -> None: ...
        def get_mark(self) -> Mark: ...

    def _line_break(self, empty_line: bool = False) -> str:
        ch = self.peek()
        if ch in "\r\n\x85":
            self.forward(2 if self.prefix(2) == "\r\n" else 1)
            return "\n"
        if ch in "\u2028\u2029" or (empty_line and ch in "\t "):
            self.forward()
            return ch
        return ""

    def scan_to_next_token(self) -> tuple[Mark, Mark] | None:  # type: ignore[override]  # ruamel returns the comment
        if self.index == 0 and self.peek() == "\ufeff":
            self.forward()
        while True:
            while self.peek() == " ":
                self.forward()
            if self.peek() == "#":
                start_mark = self.get_mark()
                ch = "#"
                self.forward()
                while ch not in _LINE_ENDS:
                    ch = self.peek()
                    if ch == "\0":
                        break
                    self.forward()
                while self._line_break():
                    pass
                if not self.flow_level:
                    self.allow_simple_key = True
                return start_mark, self.get_mark()
            if self._line_break():
                if not self.flow_level:
                    self.allow_simple_key = True
                if self.peek() == "\n":  # empty lines
                    start_mark = self.get_mark()
                    while self._line_break(empty_line=True):
                        pass
                    return start_mark, self.get_mark()
            else:
                return None

    def fetch_more_tokens(self) -> None:
        comment = self.scan_to_next_token()
        if comment is not None:
            self.tokens.append(_CommentToken(*comment))
            return
        Scanner.fetch_more_tokens(self)  # its own scan_to_next_token() is now a no-op

    def _gather_comments(self) -> bool:
        """ruamel's _gather_comments. True when it ended with a simple-key check at the current position."""
        if not self.tokens:
            return False
        if isinstance(self.tokens[0], _CommentToken):
            self.tokens.pop(0)
            self.tokens_taken += 1
        while self.need_more_tokens():
            self.fetch_more_tokens()
            if not self.tokens:
                return False
            if isinstance(self.tokens[0], _CommentToken):
                self.tokens_taken += 1
                self.tokens.pop(0)
        # ruamel: "pull in post comment on e.g. ':'" -- it always holds a second token
        if not self.done and len(self.tokens) < 2:
            self.fetch_more_tokens()
            return False
        return True

    _filled: tuple[int, int, int] | None = None

    def _fill(self) -> None:
        # The parser asks about the same head token many times; with nothing read or taken since the last fill
        # (and no comment at the head), filling again would change nothing.
        state = (self.index, self.tokens_taken, len(self.tokens))
        if state == self._filled and not (self.tokens and isinstance(self.tokens[0], _CommentToken)):
            return
        while self.need_more_tokens():
            self.fetch_more_tokens()
        settled = self._gather_comments()
        self._filled = (self.index, self.tokens_taken, len(self.tokens)) if settled else None

    def peek_token(self) -> Any:
        self._fill()
        return self.tokens[0] if self.tokens else None

    def get_token(self) -> Any:
        self._fill()
        if not self.tokens:
            return None
        tokens = self.tokens
        if len(tokens) > 1 and isinstance(tokens[1], _CommentToken):
            head = tokens[0]
            same_line = head.end_mark.line == tokens[1].start_mark.line
            post = (isinstance(head, _POST_COMMENT_HOLDERS) and same_line) or (
                isinstance(head, _tokens.ScalarToken) and not same_line
            )
            if post:
                self.tokens_taken += 1
                tokens.pop(1)
                self.fetch_more_tokens()
                while len(tokens) > 1 and isinstance(tokens[1], _CommentToken):
                    self.tokens_taken += 1
                    tokens.pop(1)
                    self.fetch_more_tokens()
        self.tokens_taken += 1
        return tokens.pop(0)

    def check_token(self, *choices: Any) -> bool:
        self._fill()
        if self.tokens:
            if not choices:
                return True
            for choice in choices:
                if isinstance(self.tokens[0], choice):
                    token = self.tokens[0]
                    if isinstance(token, _tokens.TagToken):
                        raise _TagDisallowed(
                            "While scanning",
                            token.end_mark,
                            "Found disallowed tag tokens (do not specify types in markup)",
                            token.start_mark,
                        )
                    if isinstance(token, (_tokens.FlowMappingStartToken, _tokens.FlowSequenceStartToken)):
                        raise FlowDisallowed(
                            "While scanning",
                            token.start_mark,
                            "Found ugly disallowed JSONesque flow mapping "
                            "(surround with ' and ' to make text appear literally)",
                            token.end_mark,
                        )
                    if isinstance(token, _tokens.AnchorToken):
                        raise _AnchorDisallowed(
                            "While scanning",
                            token.start_mark,
                            "Found confusing disallowed anchor token "
                            "(surround with ' and ' to make text appear literally)",
                            token.end_mark,
                        )
                    return True
        return False


class _StrictParser(Parser):
    """ruamel's parser where it differs from PyYAML's: YAML 1.2 unless `%YAML 1.1` (a new document may follow `...`
    without `---`; a block mapping entry may lack its key), and the mark it gives an empty value."""

    if TYPE_CHECKING:  # the scanner's, which _StrictLoader mixes in
        def check_token(self, *choices: Any) -> bool: ...
        def peek_token(self) -> Any: ...
        def get_token(self) -> Any: ...

    def _yaml12(self) -> bool:
        return bool(self.yaml_version != (1, 1))

    def parse_document_end(self) -> Any:
        event = Parser.parse_document_end(self)
        if self._yaml12():
            self.state = self.parse_implicit_document_start
        return event

    def parse_block_mapping_key(self) -> Any:
        if not self.check_token(_tokens.KeyToken) and self._yaml12() and self.check_token(_tokens.ValueToken):
            self.state = self.parse_block_mapping_value
            return self.process_empty_scalar(self.peek_token().start_mark)
        return Parser.parse_block_mapping_key(self)  # type: ignore[no-untyped-call]  # untyped in the stubs

    def parse_block_mapping_value(self) -> Any:
        if self.check_token(_tokens.ValueToken):
            token = self.get_token()
            if not self.check_token(_tokens.KeyToken, _tokens.ValueToken, _tokens.BlockEndToken):
                self.states.append(self.parse_block_mapping_key)
                return self.parse_block_node_or_indentless_sequence()  # type: ignore[no-untyped-call]
            self.state = self.parse_block_mapping_key
            if not _comment_follows(token.end_mark):
                token = self.peek_token()  # ruamel marks an empty value at the next token unless a comment sits between
            return self.process_empty_scalar(token.end_mark)
        return Parser.parse_block_mapping_value(self)  # type: ignore[no-untyped-call]


def _comment_follows(mark: Any) -> bool:
    buffer = getattr(mark, "buffer", None)
    if not buffer:
        return False
    end = buffer.find("\n", mark.pointer)
    rest = buffer[mark.pointer : end if end >= 0 else len(buffer)]
    return bool(rest.strip(" \t\0").startswith("#"))


def _anchor_char(ch: str) -> bool:
    """ruamel's check_anchorname_char: any printable non-space character except flow indicators."""
    if ch in ",[]{}":
        return False
    return (
        "\x21" <= ch <= "\x7e"
        or "\xa0" <= ch <= "\ud7ff"
        or ("\ue000" <= ch <= "\ufffd" and ch != "\ufeff")
        or "\U00010000" <= ch <= "\U0010ffff"
    )


class _RuamelScanner(_StrictScanner):
    """Where ruamel's scanner differs from PyYAML's: anchor/alias names (YAML 1.2: `*.py` is the alias `.py`, not a
    scanner error), and a stray `]`/`}` outside any flow collection leaves the flow level at 0."""

    def fetch_flow_collection_end(self, TokenClass: Any) -> None:
        self.remove_possible_simple_key()
        if self.flow_level:
            self.flow_level -= 1
        self.allow_simple_key = False
        start_mark = self.get_mark()
        self.forward()
        self.tokens.append(TokenClass(start_mark, self.get_mark()))

    def scan_anchor(self, TokenClass: Any) -> Any:
        start_mark = self.get_mark()
        name = "alias" if self.peek() == "*" else "anchor"
        self.forward()
        length = 0
        ch = self.peek(length)
        while _anchor_char(ch):
            length += 1
            ch = self.peek(length)
        if not length:
            raise ScannerError(
                "while scanning an %s" % name,
                start_mark,
                "expected alphabetic or numeric character, but found %r" % ch,
                self.get_mark(),
            )
        value = self.prefix(length)
        self.forward(length)
        if ch not in "\0 \t\r\n\x85\u2028\u2029?:,[]{}%@`":
            raise ScannerError(
                "while scanning an %s" % name,
                start_mark,
                "expected alphabetic or numeric character, but found %r" % ch,
                self.get_mark(),
            )
        return TokenClass(value, start_mark, self.get_mark())


class _StrictLoader(Reader, _RuamelScanner, _StrictParser, Composer, BaseResolver):
    def __init__(self, stream: str):
        Reader.__init__(self, stream)
        Scanner.__init__(self)
        Parser.__init__(self)
        Composer.__init__(self)
        BaseResolver.__init__(self)


_DUPLICATE_MERGE_NOTE = (
    "\nTo suppress this check see:\n   http://yaml.readthedocs.io/en/latest/api.html#duplicate-keys\n"
    "\nDuplicate keys will become an error in future releases, and are errors\n"
    "by default when using the new API.\n"
)


def _is_merge_key(node: Any) -> bool:
    return isinstance(node, _nodes.ScalarNode) and node.style is None and node.value == "<<"


def _construct(node: Any, top: bool = False) -> Any:
    """strictyaml's constructor on a composed node: strings, lists, dicts.

    Follows ruamel's order: merge (`<<`) sources first, then each key and its value depth-first, the duplicate-key
    check, then the sibling-indentation check. Merged keys follow the mapping's own keys, except in the top-level
    mapping, where strictyaml's `.data` drops them."""
    if isinstance(node, _nodes.ScalarNode):
        return node.value
    if isinstance(node, _nodes.SequenceNode):
        return [_construct(child) for child in node.value]
    if not isinstance(node, _nodes.MappingNode):  # pragma: no cover - PyYAML composes only three node kinds
        return None
    merged: list[dict[Any, Any]] = []
    pairs = []
    seen_merge = False
    for key_node, value_node in node.value:
        if not _is_merge_key(key_node):
            pairs.append((key_node, value_node))
            continue
        if seen_merge:
            raise StrictYAMLError(
                "while constructing a mapping",
                node.start_mark,
                'found duplicate key "<<"',
                key_node.start_mark,
                _DUPLICATE_MERGE_NOTE,
            )
        seen_merge = True
        if isinstance(value_node, _nodes.MappingNode):
            merged.append(_construct(value_node))
        elif isinstance(value_node, _nodes.SequenceNode):
            for sub in value_node.value:
                if not isinstance(sub, _nodes.MappingNode):
                    raise StrictYAMLError(
                        "while constructing a mapping",
                        node.start_mark,
                        "expected a mapping for merging, but found %s" % sub.id,
                        sub.start_mark,
                    )
                merged.append(_construct(sub))
        else:
            raise StrictYAMLError(
                "while constructing a mapping",
                node.start_mark,
                "expected a mapping or list of mappings for merging, but found %s" % value_node.id,
                value_node.start_mark,
            )
    out: dict[Any, Any] = {}
    for key_node, value_node in pairs:
        if isinstance(key_node, _nodes.MappingNode):
            raise StrictYAMLError(
                "while constructing a mapping", node.start_mark, "found unhashable key", key_node.start_mark
            )
        if not isinstance(key_node, _nodes.ScalarNode):
            # strictyaml crashes (AssertionError) on a list used as a key; we report it instead.
            raise StrictYAMLError(
                "while constructing a mapping",
                node.start_mark,
                "found a list used as a mapping key",
                key_node.start_mark,
            )
        key = key_node.value
        value = _construct(value_node)
        if key in out:
            raise _DuplicateKey(
                "While parsing",
                key_node.start_mark,
                f"Duplicate key '{key}' found",
                key_node.end_mark,
            )
        out[key] = value
    previous = None
    for child in (v for _, v in pairs if isinstance(v, _nodes.MappingNode)):
        if previous is None:
            previous = child.start_mark.column
        if child.start_mark.column != previous:
            raise _InconsistentIndentation(
                "While parsing",
                child.start_mark,
                "Found mapping with indentation inconsistent with previous mapping",
                child.end_mark,
            )
    if not top:
        for source in merged:
            for key, value in source.items():
                out.setdefault(key, value)
    return out


def strict_load(text: str) -> tuple[Any, dict[str, int]]:
    """(data, top-level key -> 0-based line) as `strictyaml.load(text)` gives them. Raises YAMLError (StrictYAMLError for
    strictyaml's own refusals) instead; nesting too deep for Python's stack becomes a YAMLError too (the reference
    would crash)."""
    loader = _StrictLoader(text)
    try:
        node = loader.get_single_node()
        if not isinstance(node, (_nodes.MappingNode, _nodes.SequenceNode)):
            # strictyaml: "Document is just a (string, int, etc.)" -> the whole text as a string
            return text, {}
        data = _construct(node, top=True)
        key_lines: dict[str, int] = {}
        if isinstance(node, _nodes.MappingNode):
            for key_node, _ in node.value:
                if isinstance(key_node, _nodes.ScalarNode) and not _is_merge_key(key_node):
                    key_lines.setdefault(key_node.value, key_node.start_mark.line)
        return data, key_lines
    except RecursionError:
        raise _TooDeep(None, None, "the frontmatter nests too deeply to read", None) from None
    finally:
        loader.dispose()


# The two refusals most real frontmatter meets (about 4% of skills): a flow list as a value (`tools: [Read, Grep]`)
