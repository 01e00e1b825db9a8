"""The width lists of the ``loop`` clauses ``expand``, ``margin`` and ``peel_and_wait``
(global-view §7).

    loop on t[i][j] expand(1, 0)            -> (LoopWidth(1, 1), LoopWidth(0, 0))
    loop on t(i) margin(/unbound/ 1:2)      -> (LoopWidth(1, 2, unbound=True),)
    loop on t[i] peel_and_wait(5, 1)        -> PeelAndWait(5, (LoopWidth(1, 1),))

There is one width per on-ref subscript, in the order the on-ref writes them; like every
list of the parenthesised style, they are reversed to C order when the on-ref is ``t(...)``.
"""

from __future__ import annotations

from xmpacc.directives.ast import LoopWidth, PeelAndWait, Style
from xmpacc.directives.lexer import TokenStream
from xmpacc.directives.refs import MAX_RANK, parse_expr


# BNF: lwidth ::= [ /unbound/ ] int-expr [ : int-expr ]
def _loop_width(ts: TokenStream) -> LoopWidth:
    unbound = ts.accept("/") is not None
    if unbound:
        ts.expect_word("unbound", "after '/'")
        ts.expect("/", "after 'unbound'")
    lower = parse_expr(ts, "a loop width")
    upper = parse_expr(ts, "an upper loop width") if ts.accept(":") else lower
    return LoopWidth(lower, upper, unbound)


def _widths(ts: TokenStream, style: Style) -> tuple[LoopWidth, ...]:
    widths = [_loop_width(ts)]
    while ts.accept(","):
        if len(widths) == MAX_RANK:
            ts.error(ts.peek(), f"more than {MAX_RANK} dimensions")
        widths.append(_loop_width(ts))
    return tuple(reversed(widths)) if style == "paren" else tuple(widths)


# BNF: loop-widths ::= ( lwidth [, lwidth]... )
def parse_loop_widths(ts: TokenStream, clause: str, style: Style) -> tuple[LoopWidth, ...]:
    """The ``( ... )`` after ``expand`` or ``margin``; ``style`` is the on-ref's."""
    opener = ts.expect("(", f"after '{clause}'")
    widths = _widths(ts, style)
    ts.expect_closer(opener)
    return widths


# BNF: peel-and-wait ::= ( int-expr , lwidth [, lwidth]... )
def parse_peel_and_wait(ts: TokenStream, style: Style) -> PeelAndWait:
    opener = ts.expect("(", "after 'peel_and_wait'")
    async_id = parse_expr(ts, "an async id")
    ts.expect(",", "after the async id of 'peel_and_wait'")
    widths = _widths(ts, style)
    ts.expect_closer(opener)
    return PeelAndWait(async_id, widths)
