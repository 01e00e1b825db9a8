"""The global-view directives that own an array assignment statement (global-view §2, §3):
``gmove`` and ``array``.

    gmove                    → Gmove("collective")
    gmove in async (1)       → Gmove("in", async_id=1)
    array on t[:][0:N]       → ArrayDirective(on=Ref(t, (Triplet(None, None), Triplet(0, N-1))))

The statement that follows is C; the passes (``passes/localize/gmove.py``, ``passes/localize/array.py``) read
it.  A template reference keeps the conventions of reference §3: parenthesised triplets
are bounds, bracketed ones start:length (normalised to start:last by ``parse_ref``).
"""

from __future__ import annotations

from typing import cast

from xmpacc.directives.ast import ArrayDirective, Directive, Expr, Gmove, GmoveMode
from xmpacc.directives.executable import parse_async_clause
from xmpacc.directives.lexer import Token, TokenStream
from xmpacc.directives.refs import parse_ref


# BNF: gmove ::= gmove [ in | out ] [ async ( int-expr ) ] [ acc ]      (in any order)
def parse_gmove(ts: TokenStream, kw: Token) -> list[Directive]:
    mode: GmoveMode = "collective"
    direction: Token | None = None
    async_id: Expr | None = None
    acc: Token | None = None
    while ts.peek().kind == "ident":
        tok = ts.next()
        word = tok.text.lower()
        if word in ("in", "out") and direction is not None:
            what = "duplicate" if word == direction.text.lower() else "conflicting"
            ts.error(tok, f"{what} '{word}' in 'gmove' directive (one of 'in' and 'out' at most)")
        elif word in ("in", "out"):
            direction, mode = tok, cast(GmoveMode, word)
        elif word == "async" and async_id is not None:
            ts.error(tok, "duplicate 'async' clause in 'gmove' directive")
        elif word == "async":
            async_id = parse_async_clause(ts)
        elif word == "acc" and acc is not None:
            ts.error(tok, "duplicate 'acc' clause in 'gmove' directive")
        elif word == "acc":
            acc = tok
        else:
            ts.error(tok, f"unknown clause '{tok.text}' in 'gmove' directive "
                          "(expected 'in', 'out', 'async' or 'acc')")
    return [Gmove(mode, ts.loc(kw), async_id, acc is not None)]


# BNF: array ::= array on template-ref
def parse_array(ts: TokenStream, kw: Token) -> list[Directive]:
    ts.expect_word("on", "after 'array'")
    on = parse_ref(ts, "a template name after 'on'")
    return [ArrayDirective(on, ts.loc(kw))]
