"""The shadow directives of global-view §7 beyond ``reflect`` (executable.py):
``reflect_init``, ``reflect_do`` and ``reduce_shadow``.

    reflect_init (u) width(1, 0)     -> ReflectInit((u,), (1:1, 0:0), orthogonal=False)
    reflect_do (u) async (3)         -> ReflectDo((u,), async_id=3)
    reduce_shadow (u) width(/periodic/ 1)

Handlers are called by ``parser.parse_directive`` just after the directive keyword.
"""

from __future__ import annotations

from typing import Any

from xmpacc.directives.ast import Directive, Name, ReduceShadow, ReflectDo, ReflectInit
from xmpacc.directives.executable import parse_async_clause, parse_clauses
from xmpacc.directives.lexer import Token, TokenStream
from xmpacc.directives.refs import parse_paren_names
from xmpacc.directives.widths import reflect_widths


def _arrays(ts: TokenStream, directive: str) -> tuple[Name, ...]:
    """Arrays, or aligned members of objects (``c.a``, ``p->a``: global-view §8), as in reflect."""
    return parse_paren_names(ts, "an array name", directive, members=True)


# BNF: reflect_init ::= reflect_init ( name-list ) [ width ( rwidth [, rwidth]... ) ]
#                       [ orthogonal ] [ acc ]
def parse_reflect_init(ts: TokenStream, kw: Token) -> list[Directive]:
    arrays = _arrays(ts, "reflect_init")
    clauses: dict[str, Any] = parse_clauses(ts, "reflect_init", {
        "width": reflect_widths, "orthogonal": lambda _: True, "acc": lambda _: True})
    return [ReflectInit(arrays, clauses.get("width"), "orthogonal" in clauses, ts.loc(kw), "acc" in clauses)]


# BNF: reflect_do ::= reflect_do ( name-list ) [ async ( int-expr ) ] [ acc ]
def parse_reflect_do(ts: TokenStream, kw: Token) -> list[Directive]:
    arrays = _arrays(ts, "reflect_do")
    clauses = parse_clauses(ts, "reflect_do", {"async": parse_async_clause, "acc": lambda _: True})
    return [ReflectDo(arrays, ts.loc(kw), clauses.get("async"), "acc" in clauses)]


# BNF: reduce_shadow ::= reduce_shadow ( name-list ) [ width ( rwidth [, rwidth]... ) ]
#                        [ async ( int-expr ) ]
def parse_reduce_shadow(ts: TokenStream, kw: Token) -> list[Directive]:
    arrays = _arrays(ts, "reduce_shadow")
    clauses = parse_clauses(ts, "reduce_shadow", {"width": reflect_widths, "async": parse_async_clause})
    return [ReduceShadow(arrays, clauses.get("width"), ts.loc(kw), clauses.get("async"))]


