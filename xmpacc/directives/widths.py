"""The width lists of ``reflect ... width`` (reference §6.3, global-view §7) and of the
``loop`` clauses ``expand``, ``margin`` and ``peel_and_wait`` (global-view §7).

    reflect (u) width(/periodic/ 1:2, 0)    -> (ReflectWidth(1, 2, periodic=True), ReflectWidth(0, 0))
    loop on t[i][j] expand(1, 0)            -> (LoopWidth(1, 1), LoopWidth(0, 0))
    loop on t(i) margin(/unbound/ 1:2)      -> (LoopWidth(1, 2, unbound=True),)
    loop on t[i] peel_and_wait(5, 1)        -> PeelAndWait(5, (LoopWidth(1, 1),))

A reflect width belongs to an array dimension, in C order in both syntaxes.  A loop width
belongs to an on-ref subscript, in the order the on-ref writes them; like every list of
the parenthesised style, they are reversed to C order when the on-ref is ``t(...)``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from xmpacc.directives.ast import Expr, LoopWidth, PeelAndWait, ReflectWidth, Style
from xmpacc.directives.lexer import TokenStream
from xmpacc.directives.refs import MAX_RANK, parse_expr

W = TypeVar("W")


# BNF: width ::= [ /flag/ ] int-expr [ : int-expr ]
def _bounds(ts: TokenStream, flag: str, what: str) -> tuple[Expr, Expr, bool]:
    """(lower, upper, flagged) of one width; ``flag`` is 'periodic' or 'unbound'."""
    flagged = ts.accept("/") is not None
    if flagged:
        ts.expect_word(flag, "after '/'")
        ts.expect("/", f"after '{flag}'")
    lower = parse_expr(ts, f"a {what} width")
    upper = parse_expr(ts, f"an upper {what} width") if ts.accept(":") else lower
    return lower, upper, flagged


# BNF: rwidth ::= [ /periodic/ ] int-expr [ : int-expr ]
def _reflect_width(ts: TokenStream) -> ReflectWidth:
    return ReflectWidth(*_bounds(ts, "periodic", "reflect"))


# BNF: lwidth ::= [ /unbound/ ] int-expr [ : int-expr ]
def _loop_width(ts: TokenStream) -> LoopWidth:
    return LoopWidth(*_bounds(ts, "unbound", "loop"))


def _widths(ts: TokenStream, one: Callable[[TokenStream], W]) -> list[W]:
    """``one`` width, then more after commas, one per dimension at the most."""
    widths = [one(ts)]
    while ts.accept(","):
        if len(widths) == MAX_RANK:
            ts.error(ts.peek(), f"more than {MAX_RANK} dimensions")
        widths.append(one(ts))
    return widths


def _loop_widths(ts: TokenStream, style: Style) -> tuple[LoopWidth, ...]:
    widths = _widths(ts, _loop_width)
    return tuple(reversed(widths)) if style == "paren" else tuple(widths)


# BNF: width-list ::= ( rwidth [, rwidth]... )
def reflect_widths(ts: TokenStream) -> tuple[ReflectWidth, ...]:
    """Widths in C order (one per array dimension) in both syntaxes."""
    opener = ts.expect("(", "after 'width'")
    widths = _widths(ts, _reflect_width)
    ts.expect_closer(opener)
    return tuple(widths)


# BNF: loop-widths ::= ( lwidth [, lwidth]... )
def parse_loop_widths(ts: TokenStream, clause: str, style: Style) -> tuple[LoopWidth, ...]:
    """The ``( ... )`` after ``expand`` or ``margin``; ``style`` is the on-ref's."""
    opener = ts.expect("(", f"after '{clause}'")
    widths = _loop_widths(ts, style)
    ts.expect_closer(opener)
    return widths


# BNF: peel-and-wait ::= ( int-expr , lwidth [, lwidth]... )
def parse_peel_and_wait(ts: TokenStream, style: Style) -> PeelAndWait:
    opener = ts.expect("(", "after 'peel_and_wait'")
    async_id = parse_expr(ts, "an async id")
    ts.expect(",", "after the async id of 'peel_and_wait'")
    widths = _loop_widths(ts, style)
    ts.expect_closer(opener)
    return PeelAndWait(async_id, widths)
