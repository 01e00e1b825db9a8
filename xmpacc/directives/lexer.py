"""Tokens of one directive and a cursor over them.

``tokenize(text, locs)`` splits the text that follows ``#pragma xmp`` (macros expanded,
continuations joined) into C tokens.  Every token keeps the index of its first character,
so ``TokenStream.loc(tok)`` maps it back to the original source through ``locs`` (one
``SourceLoc`` per character plus one for the end of the directive).

The lexer knows nothing of XMP: keywords are ordinary identifiers, compared ignoring case
by ``TokenStream.at_word``.  ``::`` is *not* one token, so that the triplet ``[::2]`` and
the list form ``[N] :: t`` share the plain ``:``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, NoReturn

from xmpacc.diagnostics import InternalError, SourceLoc, XmpError
from xmpacc.frontend.rawbytes import describe_char

TokenKind = Literal["ident", "number", "string", "op", "eof"]

# Longest first, so that `&&` wins over `&`.  Assignment operators are lexed only so that a
# stray one gives a clear "expected ..." error instead of two odd tokens.
_PUNCTUATORS = (
    "<<=", ">>=", "...", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
    "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=",
    "(", ")", "[", "]", "{", "}", ",", ":", ";", "?", "+", "-", "*", "/", "%", "&", "|",
    "^", "!", "~", "<", ">", "=", ".",
)
_IDENT = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")
# A C number is deliberately loose (pp-number): suffixes, hex and exponents all pass, and
# the C compiler judges the expression later.
_NUMBER = re.compile(r"(?:[0-9]|\.[0-9])(?:[eEpP][+-]|[A-Za-z_0-9.])*")
_STRING = re.compile(r"""(?:'(?:\\.|[^'\\])*'|"(?:\\.|[^"\\])*")""")
# Numbers first: a pp-number may contain letters (`10UL`) but never starts with one.
_WORD_PATTERNS: tuple[tuple[TokenKind, re.Pattern[str]], ...] = (
    ("number", _NUMBER), ("ident", _IDENT), ("string", _STRING),
)
_SPACE = re.compile(r"(?:\s+|/\*.*?\*/|//.*$)+", re.DOTALL)

OPENERS = {"(": ")", "[": "]", "{": "}"}
CLOSERS = {")": "(", "]": "[", "}": "{"}


@dataclass(frozen=True, slots=True)
class Token:
    kind: TokenKind
    text: str
    pos: int  # index of the first character in the directive text
    end: int  # index just past the last character


def tokenize(text: str, locs: Sequence[SourceLoc]) -> tuple[Token, ...]:
    """Split ``text`` into tokens ending with one ``eof`` token at ``len(text)``."""
    if len(locs) != len(text) + 1:
        raise InternalError(f"directive text has {len(text)} characters but {len(locs)} locs")
    tokens: list[Token] = []
    pos = 0
    while True:
        space = _SPACE.match(text, pos)
        if space:
            pos = space.end()
        if pos >= len(text):
            tokens.append(Token("eof", "", len(text), len(text)))
            return tuple(tokens)
        tok = _next_token(text, pos)
        if tok is None:
            raise XmpError(locs[pos], f"unexpected character {describe_char(text[pos])} in directive")
        tokens.append(tok)
        pos = tok.end


def _next_token(text: str, pos: int) -> Token | None:
    for kind, pattern in _WORD_PATTERNS:
        m = pattern.match(text, pos)
        if m:
            return Token(kind, m.group(), pos, m.end())
    for punct in _PUNCTUATORS:
        if text.startswith(punct, pos):
            return Token("op", punct, pos, pos + len(punct))
    return None


def describe(tok: Token) -> str:
    """How a token is named in messages: ``'foo'`` or ``end of directive``."""
    return "end of directive" if tok.kind == "eof" else f"'{tok.text}'"


class TokenStream:
    """A cursor over the tokens of one directive; all errors go through ``error``."""

    __slots__ = ("index", "locs", "text", "tokens")

    def __init__(self, text: str, locs: Sequence[SourceLoc]) -> None:
        self.text = text
        self.locs = locs
        self.tokens = tokenize(text, locs)
        self.index = 0

    # -------------------------------------------------------------- looking
    def peek(self, ahead: int = 0) -> Token:
        return self.tokens[min(self.index + ahead, len(self.tokens) - 1)]

    def at(self, op: str, ahead: int = 0) -> bool:
        tok = self.peek(ahead)
        return tok.kind == "op" and tok.text == op

    def at_word(self, *words: str, ahead: int = 0) -> bool:
        """Is the next token one of the keywords ``words`` (ignoring case)?"""
        tok = self.peek(ahead)
        return tok.kind == "ident" and tok.text.lower() in words

    def at_end(self) -> bool:
        return self.peek().kind == "eof"

    def at_double_colon(self) -> bool:
        return self.at(":") and self.at(":", ahead=1)

    # -------------------------------------------------------------- taking
    def next(self) -> Token:
        tok = self.peek()
        if tok.kind != "eof":
            self.index += 1
        return tok

    def accept(self, op: str) -> Token | None:
        return self.next() if self.at(op) else None

    def accept_word(self, *words: str) -> Token | None:
        return self.next() if self.at_word(*words) else None

    def expect(self, op: str, context: str) -> Token:
        """Take ``op`` or report "expected 'op' <context>" at the token found instead."""
        if not self.at(op):
            self.error(self.peek(), f"expected '{op}' {context}, found {describe(self.peek())}")
        return self.next()

    def expect_word(self, word: str, context: str) -> Token:
        if not self.at_word(word):
            self.error(self.peek(), f"expected '{word}' {context}, found {describe(self.peek())}")
        return self.next()

    def expect_ident(self, what: str) -> Token:
        tok = self.peek()
        if tok.kind != "ident":
            self.error(tok, f"expected {what}, found {describe(tok)}")
        return self.next()

    def expect_closer(self, opener: Token) -> Token:
        """Take the bracket that closes ``opener``; at the end, blame the opener."""
        closer = OPENERS[opener.text]
        if self.at(closer):
            return self.next()
        if self.at_end():
            self.error(opener, f"unbalanced '{opener.text}': missing '{closer}'")
        self.error(self.peek(), f"expected '{closer}', found {describe(self.peek())}")

    def directive_word(self, tok: Token, what: str, later: frozenset[str], prefix: str = "") -> str:
        """The lower-case name of a directive at ``tok`` (``what``: how messages name the
        expected word); a name in ``later`` is "not supported yet" (``prefix``: 'acc ')."""
        if tok.kind != "ident":
            self.error(tok, f"expected {what}, found {describe(tok)}")
        word = tok.text.lower()
        if word in later:
            self.error(tok, f"'{prefix}{word}' is not supported yet")
        return word

    def expect_end(self, name: str) -> None:
        """Nothing may follow a whole directive (``name``: how messages name it)."""
        tok = self.peek()
        if tok.kind == "eof":
            return
        if tok.kind == "op" and tok.text in CLOSERS:
            self.error(tok, f"unbalanced '{tok.text}'")
        self.error(tok, f"extra tokens after '{name}' directive: {describe(tok)}")

    def expect_double_colon(self, context: str) -> None:
        if not self.at_double_colon():
            self.error(self.peek(), f"expected '::' {context}, found {describe(self.peek())}")
        self.next()
        self.next()

    # -------------------------------------------------------------- reporting
    def loc(self, tok: Token) -> SourceLoc:
        return self.locs[tok.pos]

    def error(self, tok: Token, message: str) -> NoReturn:
        raise XmpError(self.loc(tok), message)

    def source(self, first: Token, last: Token) -> str:
        """The directive text from ``first`` to ``last`` inclusive, as written."""
        return self.text[first.pos:last.end]
