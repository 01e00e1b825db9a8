"""The pieces that every directive shares: integer expressions, names, dimension lists,
triplets and node/template references (reference §3).

All functions take a ``TokenStream`` positioned at the piece and leave it just after it.
Lists come back in **C order**: a parenthesised list is written in Fortran order and is
reversed here, so callers never see source order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from xmpacc.deepstack import MAX_NESTING, too_deep_message
from xmpacc.directives.ast import (
    Colon,
    Expr,
    Name,
    Ref,
    RefSub,
    SectionTriplet,
    Star,
    Style,
    Triplet,
    VarRef,
    VarSub,
)
from xmpacc.directives.exprs import last_index, negate
from xmpacc.directives.lexer import CLOSERS, OPENERS, Token, TokenStream, describe

MAX_RANK = 7  # Omni's limit on the rank of nodes, templates and arrays (reference §4.1)

T = TypeVar("T")

# Operators that bind at least as tightly as binary + and -, so that `i + rest` may be
# read as `i + (rest)`.  Anything else (shifts, comparisons, `?:` ...) ends the offset form.
_OFFSET_SAFE_OPS = frozenset({"+", "-", "*", "/", "%", "!", "~", ".", "->", "(", ")", "[", "]"})


# BNF: int-expr ::= balanced C tokens up to ',' or ':' or a closing bracket at depth 0
def parse_expr(ts: TokenStream, what: str = "an integer expression") -> Expr:
    """Scan a C expression and keep its text (the C compiler checks it in context)."""
    first = ts.peek()
    open_brackets: list[Token] = []
    pending_questions = 0  # a ':' that closes a '?' belongs to the expression
    last: Token | None = None
    while not _ends_expr(ts, open_brackets, pending_questions):
        tok = ts.next()
        if not open_brackets:
            if last is not None:
                _check_not_juxtaposed(ts, last, tok)
            if tok.kind == "op":
                pending_questions += {"?": 1, ":": -1}.get(tok.text, 0)
        _track_brackets(ts, tok, open_brackets)
        last = tok
    if last is None:
        ts.error(first, f"expected {what}, found {describe(first)}")
    if last.kind == "op" and last.text not in (")", "]", "}", "++", "--"):
        found = describe(ts.peek())
        ts.error(ts.peek(), f"expected an operand after '{last.text}', found {found}")
    if pending_questions > 0:
        ts.error(ts.peek(), f"expected ':' of '?:', found {describe(ts.peek())}")
    return Expr(ts.source(first, last).strip(), ts.loc(first))


def _ends_expr(ts: TokenStream, open_brackets: list[Token], pending_questions: int) -> bool:
    tok = ts.peek()
    if tok.kind == "eof":
        if open_brackets:
            opener = open_brackets[-1]
            ts.error(opener, f"unbalanced '{opener.text}': missing '{OPENERS[opener.text]}'")
        return True
    if tok.kind != "op" or open_brackets:
        return False
    return tok.text == "," or tok.text in CLOSERS or (tok.text == ":" and pending_questions == 0)


def _track_brackets(ts: TokenStream, tok: Token, open_brackets: list[Token]) -> None:
    """Push openers, pop closers; a closer at depth 0 never gets here (it ends the scan)."""
    if tok.kind != "op":
        return
    if tok.text in OPENERS:
        open_brackets.append(tok)
        if len(open_brackets) > MAX_NESTING:
            ts.error(tok, too_deep_message())
    elif tok.text in CLOSERS:
        expected = OPENERS[open_brackets[-1].text]
        if tok.text != expected:
            ts.error(tok, f"expected '{expected}', found '{tok.text}'")
        open_brackets.pop()


def _check_not_juxtaposed(ts: TokenStream, prev: Token, tok: Token) -> None:
    """``4 5`` is no expression; catch it here rather than in the generated C."""
    operands = ("ident", "number", "string")
    if prev.kind in operands and tok.kind in operands and prev.text != "sizeof":
        ts.error(tok, f"unexpected {describe(tok)} after '{prev.text}' in expression")


def at_alone(ts: TokenStream, op: str) -> bool:
    """Is ``op`` (``*`` or ``:``) a whole subscript here, as in ``[*]`` or ``(:, i)``?"""
    return ts.at(op) and at_sub_end(ts, ahead=1)


def at_sub_end(ts: TokenStream, ahead: int = 0) -> bool:
    tok = ts.peek(ahead)
    return tok.kind == "eof" or (tok.kind == "op" and tok.text in (",", ")", "]"))


def star(ts: TokenStream) -> Star:
    return Star(ts.loc(ts.next()))


# BNF: name ::= identifier
def parse_name(ts: TokenStream, what: str) -> Name:
    tok = ts.expect_ident(what)
    return Name(tok.text, ts.loc(tok))


# BNF: member-name ::= name [ { . | -> } name ]...
def parse_member_name(ts: TokenStream, what: str, arrow: bool = True) -> Name:
    """A name or a structure member path (global-view §8): ``a``, ``b.a``, ``p->a``.

    The path is kept as one ``Name`` whose text is the path without spaces (``"b.a"``);
    ``arrow`` allows ``->`` (objects in executable directives, not struct types in align).
    """
    first = parse_name(ts, what)
    text = first.name
    while ts.at(".") or (arrow and ts.at("->")):
        sep = ts.next().text
        text += sep + ts.expect_ident(f"a member name after '{sep}'").text
    return Name(text, first.loc)


# BNF: name-list ::= name [, name]...
def parse_name_list(ts: TokenStream, what: str, members: bool = False) -> tuple[Name, ...]:
    """Names separated by commas; with ``members`` each may be a member path (``c.a``)."""
    one = (lambda: parse_member_name(ts, what)) if members else (lambda: parse_name(ts, what))
    names = [one()]
    while ts.accept(","):
        names.append(one())
    return tuple(names)


# BNF: paren-names ::= ( name-list )
def parse_paren_names(ts: TokenStream, what: str, owner: str, members: bool = False) -> tuple[Name, ...]:
    """The parenthesised list after the keyword ``owner`` (``bcast (x, y)``)."""
    opener = ts.expect("(", f"after '{owner}'")
    if ts.at(")"):
        ts.error(ts.peek(), f"empty name list in '{owner}'")
    names = parse_name_list(ts, what, members)
    ts.expect_closer(opener)
    return names


# BNF: dims ::= ( item [, item]... ) | [ item ] [ [ item ] ]...
def parse_dims(
    ts: TokenStream, item: Callable[[TokenStream], T], context: str
) -> tuple[tuple[T, ...], Style]:
    """Either style of dimension list, items in C order, at most ``MAX_RANK`` of them."""
    if ts.at("("):
        opener = ts.next()
        items = [_dim_item(ts, item, opener, 0)]
        while ts.accept(","):
            items.append(_dim_item(ts, item, opener, len(items)))
        ts.expect_closer(opener)
        return tuple(reversed(items)), "paren"
    if ts.at("["):
        return parse_bracket_dims(ts, item, context), "bracket"
    ts.error(ts.peek(), f"expected '(' or '[' {context}, found {describe(ts.peek())}")


# BNF: bracket-dims ::= [ item ] [ [ item ] ]...
def parse_bracket_dims(
    ts: TokenStream, item: Callable[[TokenStream], T], context: str
) -> tuple[T, ...]:
    """The array-side list (``a[i][*]``, ``shadow a[1][0]``): brackets in both styles."""
    if not ts.at("["):
        ts.error(ts.peek(), f"expected '[' {context}, found {describe(ts.peek())}")
    items: list[T] = []
    while ts.at("["):
        opener = ts.next()
        items.append(_dim_item(ts, item, opener, len(items)))
        ts.expect_closer(opener)
    return tuple(items)


def _dim_item(ts: TokenStream, item: Callable[[TokenStream], T], opener: Token, count: int) -> T:
    if ts.at_end():
        ts.error(opener, f"unbalanced '{opener.text}': missing '{OPENERS[opener.text]}'")
    if count == MAX_RANK:
        ts.error(ts.peek(), f"more than {MAX_RANK} dimensions")
    return item(ts)


# BNF: rsub ::= * | int-expr | [ int-expr ] : [ int-expr ] [ : int-expr ]
def parse_rsub(ts: TokenStream, style: Style) -> RefSub:
    """One reference subscript; a bracketed ``start:length`` becomes ``start:last``."""
    if at_alone(ts, "*"):
        return star(ts)
    first = ts.peek()
    low = None if ts.at(":") else parse_expr(ts)
    if low is not None and not ts.at(":"):
        return low
    colon = ts.next()
    high = None if at_sub_end(ts) or ts.at(":") else parse_expr(ts)
    step = parse_expr(ts, "a triplet step") if ts.accept(":") else None
    if style == "paren" or high is None:
        return Triplet(low, high, step, ts.loc(first))
    # [start:length:step] names start .. start+(length-1)*step; start defaults to 0 (§3).
    start = low if low is not None else Expr("0", ts.loc(colon))
    last = Expr(last_index(start.text, high.text, step.text if step else None), high.loc)
    return Triplet(start, last, step, ts.loc(first))


# BNF: ref ::= name | name ( rsub [, rsub]... ) | name [ rsub ] [ [ rsub ] ]...
def parse_ref(ts: TokenStream, what: str) -> Ref:
    """A nodes or template reference; subscripts in C order, indices as written."""
    name = parse_name(ts, what)
    if not (ts.at("(") or ts.at("[")):
        return Ref(name, None, "bracket", name.loc)
    style: Style = "paren" if ts.at("(") else "bracket"
    subs, _ = parse_dims(ts, lambda t: parse_rsub(t, style), f"after '{name.name}'")
    return Ref(name, subs, style, name.loc)


# BNF: offset-sub ::= ident | ident { + | - } int-expr | int-expr
def parse_offset_sub(ts: TokenStream) -> tuple[Name, Expr | None] | Expr:
    """A subscript that may be ``dummy`` or ``dummy±offset`` (align, loop on-ref).

    Returns ``(name, offset)`` for those two forms, with the offset as a signed C
    expression to be *added* (``i-c`` → ``-(c)``), and the plain ``Expr`` otherwise.
    """
    start = ts.index
    expr = parse_expr(ts)
    toks = ts.tokens[start:ts.index]
    head = toks[0]
    if head.kind != "ident":
        return expr
    name = Name(head.text, ts.loc(head))
    if len(toks) == 1:
        return name, None
    sign, rest = toks[1], toks[2:]
    if sign.kind != "op" or sign.text not in ("+", "-") or not rest or not _offset_safe(rest):
        return expr
    return name, Expr(_offset_text(ts, sign, rest), ts.loc(sign))


# BNF: dummy-sub ::= * | : | offset-sub
def parse_dummy_sub(ts: TokenStream) -> Star | Colon | tuple[Name, Expr | None] | Expr:
    """A subscript of an align or loop on-ref: ``*`` or ``:`` alone, else an offset-sub."""
    if at_alone(ts, "*"):
        return star(ts)
    if at_alone(ts, ":"):
        return Colon(ts.loc(ts.next()))
    return parse_offset_sub(ts)


def _offset_safe(toks: Sequence[Token]) -> bool:
    depth = 0
    for tok in toks:
        if tok.kind != "op":
            continue
        if depth == 0 and tok.text not in _OFFSET_SAFE_OPS:
            return False
        depth += {"(": 1, "[": 1, ")": -1, "]": -1}.get(tok.text, 0)
    return True


def _offset_text(ts: TokenStream, sign: Token, rest: Sequence[Token]) -> str:
    """The offset to add: ``+ a-b`` → ``a-b``; ``- a-b`` → ``-(a)-b`` (first term only)."""
    body = ts.source(rest[0], rest[-1])
    if sign.text == "+":
        return body
    split = _first_binary_additive(rest)
    if split is None:
        return negate(body)
    head = ts.source(rest[0], rest[split - 1])
    return negate(head) + ts.source(rest[split], rest[-1])


def _first_binary_additive(toks: Sequence[Token]) -> int | None:
    """Index of the first depth-0 binary ``+``/``-`` (one that follows an operand)."""
    depth = 0
    for k, tok in enumerate(toks):
        if tok.kind == "op":
            if depth == 0 and k > 0 and tok.text in ("+", "-") and _ends_operand(toks[k - 1]):
                return k
            depth += {"(": 1, "[": 1, ")": -1, "]": -1}.get(tok.text, 0)
    return None


def _ends_operand(tok: Token) -> bool:
    return tok.kind in ("ident", "number", "string") or tok.text in (")", "]")


# BNF: var-ref ::= name [ [ var-sub ] ]...
# BNF: var-sub ::= int-expr | [ int-expr ] : [ int-expr ] [ : int-expr ]
def parse_var_ref(ts: TokenStream, what: str, members: bool = False) -> VarRef:
    """A variable or array section in a directive list (``bcast (a[0:5])``, location
    variables, reduction variables, OpenACC data clauses); with ``members`` the name may be
    a member path (``copy(c.a)``, global-view §8)."""
    name = parse_member_name(ts, what) if members else parse_name(ts, what)
    if not ts.at("["):
        return VarRef(name, None, name.loc)
    subs: list[VarSub] = []
    while ts.at("["):
        opener = ts.next()
        if ts.at_end() or ts.at("]"):
            ts.error(ts.peek(), f"expected a subscript or a triplet after '[', found {describe(ts.peek())}")
        if len(subs) == MAX_RANK:
            ts.error(ts.peek(), f"more than {MAX_RANK} dimensions")
        subs.append(_var_sub(ts))
        ts.expect_closer(opener)
    return VarRef(name, tuple(subs), name.loc)


def _var_sub(ts: TokenStream) -> VarSub:
    first = ts.peek()
    base = None if ts.at(":") else parse_expr(ts, "a subscript")
    if not ts.accept(":"):
        assert base is not None
        return base
    length = None if ts.at(":") or ts.at("]") else parse_expr(ts, "a section length")
    step = parse_expr(ts, "a section step") if ts.accept(":") else None
    return SectionTriplet(base, length, step, ts.loc(first))


# BNF: var-list ::= ( var-ref [, var-ref]... )
def parse_paren_var_refs(ts: TokenStream, what: str, owner: str, members: bool = False) -> tuple[VarRef, ...]:
    """The parenthesised list after ``owner`` whose items may be sections (``bcast (a[0:5], x)``)."""
    opener = ts.expect("(", f"after '{owner}'")
    if ts.at(")"):
        ts.error(ts.peek(), f"empty name list in '{owner}'")
    refs = [parse_var_ref(ts, what, members)]
    while ts.accept(","):
        refs.append(parse_var_ref(ts, what, members))
    ts.expect_closer(opener)
    return tuple(refs)
