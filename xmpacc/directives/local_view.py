"""Parser rules of the local-view directives (global-view §11): coarray synchronisation,
post/wait, locks and the ``coarray`` declaration (objects in ``local_view_ast.py``).

Handlers are called by ``parser.parse_directive`` just after the directive keyword;
``HANDLERS`` maps each keyword to its handler.
"""

from __future__ import annotations

from collections.abc import Callable
from types import MappingProxyType
from typing import Any

from xmpacc.directives.ast import Expr, Star
from xmpacc.directives.lexer import Token, TokenStream, describe
from xmpacc.directives.local_view_ast import (
    CoarrayDirective,
    CoLock,
    CoRef,
    Critical,
    Post,
    SyncAll,
    SyncImages,
    SyncMemory,
    Wait,
)
from xmpacc.directives.refs import at_alone, parse_expr, parse_name, parse_name_list, parse_ref, star


# BNF: sync_all ::= sync_all
def _sync_all(ts: TokenStream, kw: Token) -> list[Any]:
    return [SyncAll(ts.loc(kw))]


# BNF: sync_memory ::= sync_memory
def _sync_memory(ts: TokenStream, kw: Token) -> list[Any]:
    return [SyncMemory(ts.loc(kw))]


# BNF: sync_images ::= sync_images ( * | int-expr [, int-expr]... )
def _sync_images(ts: TokenStream, kw: Token) -> list[Any]:
    ts.expect("(", "after 'sync_images'")
    if at_alone(ts, "*"):
        star(ts)
        images = None
    else:
        items = [parse_expr(ts, "an image index or '*'")]
        while ts.accept(","):
            items.append(parse_expr(ts, "an image index"))
        images = tuple(items)
    ts.expect(")", "after the images of 'sync_images'")
    return [SyncImages(images, ts.loc(kw))]


# BNF: post ::= post ( nodes-ref , tag )
def _post(ts: TokenStream, kw: Token) -> list[Any]:
    ts.expect("(", "after 'post'")
    node = parse_ref(ts, "a node reference ('p[k]')")
    ts.expect(",", "after the node of 'post' (a tag must follow: 'post (p[k], tag)')")
    tag = parse_expr(ts, "a tag")
    ts.expect(")", "after the tag of 'post'")
    return [Post(node, tag, ts.loc(kw))]


# BNF: wait ::= wait [ ( nodes-ref [, tag] ) ]
def _wait(ts: TokenStream, kw: Token) -> list[Any]:
    if not ts.accept("("):
        return [Wait(None, None, ts.loc(kw))]
    node = parse_ref(ts, "a node reference ('p[k]')")
    tag = parse_expr(ts, "a tag") if ts.accept(",") else None
    ts.expect(")", "after the arguments of 'wait'")
    return [Wait(node, tag, ts.loc(kw))]


# BNF: coref ::= name [ [ int-expr ] ]... : [ int-expr ] [ [ int-expr ] ]...
def _coref(ts: TokenStream, what: str) -> CoRef:
    name = parse_name(ts, what)
    subs: list[Expr] = []
    while ts.accept("["):
        subs.append(parse_expr(ts, "a subscript"))
        ts.expect("]", "after a subscript")
    colon = ts.peek()
    ts.expect(":", f"after '{name.name}' (the image must be given: '{name.name}:[k]')")
    image: list[Expr] = []
    while ts.accept("["):
        image.append(parse_expr(ts, "an image index"))
        ts.expect("]", "after an image index")
    if not image:
        ts.error(ts.peek(), f"expected '[' of the image index after ':', found {describe(ts.peek())}")
    return CoRef(name, tuple(subs), tuple(image), ts.loc(colon))


# BNF: lock ::= lock ( coref )        unlock ::= unlock ( coref )
def _lock(release: bool) -> Callable[[TokenStream, Token], list[Any]]:
    word = "unlock" if release else "lock"

    def handler(ts: TokenStream, kw: Token) -> list[Any]:
        ts.expect("(", f"after '{word}'")
        target = _coref(ts, "a lock variable (an 'xmp_lock_t' coarray)")
        ts.expect(")", f"after the lock variable of '{word}'")
        return [CoLock(target, release, ts.loc(kw))]
    return handler


# BNF: critical ::= critical        end-critical ::= end critical
def _critical(ts: TokenStream, kw: Token) -> list[Any]:
    return [Critical(False, ts.loc(kw))]


def _end(ts: TokenStream, kw: Token) -> list[Any]:
    if not ts.accept_word("critical"):
        ts.error(ts.peek(), f"expected 'critical' after 'end', found {describe(ts.peek())}")
    return [Critical(True, ts.loc(kw))]


# BNF: coarray ::= coarray name-list : [ codim ] [ [ codim ] ]...     codim ::= int-expr | *
def _coarray(ts: TokenStream, kw: Token) -> list[Any]:
    names = parse_name_list(ts, "a variable name")
    ts.expect(":", "after the coarray names ('coarray a : [*]')")
    codims: list[Expr | Star] = []
    while ts.accept("["):
        codims.append(star(ts) if at_alone(ts, "*") else parse_expr(ts, "a codimension or '*'"))
        ts.expect("]", "after a codimension")
    if not codims:
        ts.error(ts.peek(), f"expected '[' of a codimension, found {describe(ts.peek())}")
    return [CoarrayDirective(names, tuple(codims), ts.loc(kw))]


HANDLERS: MappingProxyType[str, Callable[[TokenStream, Token], list[Any]]] = MappingProxyType({
    "sync_all": _sync_all,
    "sync_memory": _sync_memory,
    "sync_images": _sync_images,
    "post": _post,
    "wait": _wait,
    "lock": _lock(False),
    "unlock": _lock(True),
    "critical": _critical,
    "end": _end,
    "coarray": _coarray,
})
