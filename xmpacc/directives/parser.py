"""The directive parser: ``parse_directive(text, locs)`` → list of frozen directive objects.

``text`` is what follows ``#pragma xmp`` (macros expanded, continuations joined) and
``locs[k]`` is the source location of ``text[k]`` (plus one entry for the end).  The result
is a list because one directive may declare several objects:

    nodes p(4), q(2)            → [NodesDecl p, NodesDecl q]
    template [N] :: t1, t2      → [TemplateDecl t1, TemplateDecl t2]
    align [i] with t(i) :: a, b → [Align(arrays=(a, b))]           (one object, two arrays)

Every object is normalised as described in ``ast.py`` (C order, inclusive template bounds,
``start:last`` triplets); every user mistake raises ``XmpError`` at the offending token.
Each object's ``loc`` is the directive keyword (``acc`` for the XMP-ACC directives).
This module holds the dispatch and the declarative directives (reference §4); the
executable ones live in ``executable.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from types import MappingProxyType

from xmpacc.diagnostics import SourceLoc, XmpError
from xmpacc.directives import assignment, dynamic, executable, local_view, shadows
from xmpacc.directives.ast import (
    Align,
    AlignSource,
    AlignSub,
    AlignSubscript,
    Colon,
    Directive,
    DistFormat,
    Distribute,
    Expr,
    Name,
    NodesDecl,
    Ref,
    Shadow,
    ShadowWidth,
    Star,
    Style,
    TemplateDecl,
    TemplateDim,
)
from xmpacc.directives.exprs import minus_one
from xmpacc.directives.lexer import Token, TokenStream, describe
from xmpacc.directives.refs import (
    at_alone,
    at_sub_end,
    parse_bracket_dims,
    parse_dims,
    parse_dummy_sub,
    parse_expr,
    parse_member_name,
    parse_name,
    parse_name_list,
    parse_ref,
    star,
)

Handler = Callable[[TokenStream, Token], list[Directive]]

# Recognised so that a user gets "not supported yet" instead of "unknown" (reference §6.8).
_LATER_DIRECTIVES = frozenset({"local_alias"})


def parse_directive(text: str, locs: Sequence[SourceLoc]) -> list[Directive]:
    """Parse one directive; raise ``XmpError`` at the first mistake."""
    ts = TokenStream(text, locs)
    head = ts.next()
    word = ts.directive_word(head, "an XMP directive name", _LATER_DIRECTIVES)
    handler = _HANDLERS.get(word)
    if handler is None:
        ts.error(head, f"unknown XMP directive '{head.text}'")
    directives = handler(ts, head)
    ts.expect_end(_directive_name(ts, word))
    return directives


def _directive_name(ts: TokenStream, word: str) -> str:
    return f"acc {ts.tokens[1].text.lower()}" if word == "acc" else word


# ---------------------------------------------------------------- nodes (§4.1)


# BNF: nodes ::= nodes nodes-decl [, nodes-decl]... | nodes nodes-dims [= mapping] :: name-list
# BNF: nodes-decl ::= name nodes-dims [ = mapping ] | name = mapping
def _nodes(ts: TokenStream, kw: Token) -> list[Directive]:
    loc = ts.loc(kw)
    if ts.at("(") or ts.at("["):
        extents, style = _nodes_dims(ts, "after 'nodes'")
        mapping = _nodes_mapping(ts)
        ts.expect_double_colon("before the node array names")
        names = parse_name_list(ts, "a node array name")
        return [NodesDecl(name, extents, mapping, style, loc) for name in names]
    decls: list[Directive] = []
    while True:
        name = parse_name(ts, "a node array name")
        if ts.at("="):   # ``nodes q = *``: one dimension, as large as the set it maps
            extents, style = (Star(ts.loc(ts.peek())),), "bracket"
        else:
            extents, style = _nodes_dims(ts, f"after node array name '{name.name}'")
        decls.append(NodesDecl(name, extents, _nodes_mapping(ts), style, loc))
        if not ts.accept(","):
            return decls


# BNF: nodes-dims ::= ( nodes-spec [, nodes-spec]... ) | [ nodes-spec ] [ [ nodes-spec ] ]...
def _nodes_dims(ts: TokenStream, context: str) -> tuple[tuple[Expr | Star, ...], Style]:
    extents, style = parse_dims(ts, _nodes_spec, context)
    # '*' is last in Fortran order or first in C order: index 0 after normalisation.
    for extent in extents[1:]:
        if isinstance(extent, Star):
            where = "last dimension of a parenthesised" if style == "paren" else \
                "first dimension of a bracketed"
            raise XmpError(extent.loc, f"'*' is only allowed in the {where} nodes declaration")
    return extents, style


# BNF: nodes-spec ::= int-expr | *
def _nodes_spec(ts: TokenStream) -> Expr | Star:
    if at_alone(ts, "*"):
        return star(ts)
    if at_alone(ts, ":"):
        ts.error(ts.peek(), "':' is not allowed in a nodes declaration")
    return parse_expr(ts, "a node extent")


# BNF: mapping ::= = * | = nodes-ref
def _nodes_mapping(ts: TokenStream) -> Ref | Star | None:
    if not ts.accept("="):
        return None
    if ts.at("*"):
        return star(ts)
    return parse_ref(ts, "a node array name or '*'")


# ---------------------------------------------------------------- template (§4.2)


# BNF: template ::= template template-decl [, template-decl]... | template tdims :: name-list
# BNF: template-decl ::= name tdims
def _template(ts: TokenStream, kw: Token) -> list[Directive]:
    loc = ts.loc(kw)
    if ts.at("(") or ts.at("["):
        dims, style = _template_dims(ts, "after 'template'")
        ts.expect_double_colon("before the template names")
        names = parse_name_list(ts, "a template name")
        return [TemplateDecl(name, dims, style, loc) for name in names]
    decls: list[Directive] = []
    while True:
        name = parse_name(ts, "a template name")
        dims, style = _template_dims(ts, f"after template name '{name.name}'")
        decls.append(TemplateDecl(name, dims, style, loc))
        if not ts.accept(","):
            return decls


# BNF: tdims ::= ( tspec [, tspec]... ) | [ tspec-c ] [ [ tspec-c ] ]...
def _template_dims(ts: TokenStream, context: str) -> tuple[tuple[TemplateDim | Colon, ...], Style]:
    style: Style = "paren" if ts.at("(") else "bracket"
    return parse_dims(ts, lambda t: _tspec(t, style), context)


# BNF: tspec ::= [ int-expr : ] int-expr | :        tspec-c ::= [ int-expr : ] int-expr | :
def _tspec(ts: TokenStream, style: Style) -> TemplateDim | Colon:
    """One template extent as inclusive bounds: ``(N)`` is 1..N, ``[N]`` is 0..N-1,
    ``(2:10)`` and ``[2:10]`` are 2..10."""
    if at_alone(ts, ":"):
        return Colon(ts.loc(ts.next()))
    if at_alone(ts, "*"):
        ts.error(ts.peek(), "'*' is not allowed in a template declaration")
    first = parse_expr(ts, "a template extent")
    if style == "bracket" and ts.accept(":"):   # t[2:10]: bounds, as t(2:10) (global-view §7)
        return TemplateDim(first, parse_expr(ts, "a template upper bound"))
    if style == "bracket":
        return TemplateDim(Expr("0", first.loc), Expr(minus_one(first.text), first.loc))
    if ts.accept(":"):
        return TemplateDim(first, parse_expr(ts, "a template upper bound"))
    return TemplateDim(Expr("1", first.loc), first)


# ---------------------------------------------------------------- distribute (§4.3)


# BNF: distribute ::= distribute name fdims onto name
# BNF: fdims ::= ( dist-format [, dist-format]... ) | [ dist-format ] [ [ dist-format ] ]...
def _distribute(ts: TokenStream, kw: Token) -> list[Directive]:
    template = parse_name(ts, "a template name")
    formats, _ = parse_dims(ts, _dist_format, f"after template name '{template.name}'")
    ts.expect_word("onto", "after the distribution formats")
    onto = parse_name(ts, "a node array name after 'onto'")
    return [Distribute(template, formats, onto, ts.loc(kw))]


# BNF: dist-format ::= * | block [ ( int-expr ) ] | cyclic [ ( int-expr ) ]
#                    | gblock ( { * | int-array } )
def _dist_format(ts: TokenStream) -> DistFormat:
    tok = ts.peek()
    if at_alone(ts, "*"):
        return DistFormat("none", None, ts.loc(ts.next()))
    if tok.kind != "ident":
        ts.error(tok, f"expected a distribution format, found {describe(tok)}")
    word = tok.text.lower()
    if word not in ("block", "cyclic", "gblock"):
        ts.error(tok, f"unknown distribution format '{tok.text}'")
    ts.next()
    if word in ("block", "cyclic"):
        return DistFormat(word, _format_arg(ts) if ts.at("(") else None, ts.loc(tok))
    if not ts.at("("):
        ts.error(ts.peek(), f"expected '(' after 'gblock', found {describe(ts.peek())}")
    if ts.at("*", ahead=1) and at_sub_end(ts, ahead=2):
        # gblock(*): the map comes with template_fix (global-view §4)
        opener = ts.next()
        arg = star(ts)
        ts.expect_closer(opener)
        return DistFormat("gblock", arg, ts.loc(tok))
    return DistFormat("gblock", _format_arg(ts), ts.loc(tok))


# BNF: format-arg ::= ( int-expr )
def _format_arg(ts: TokenStream) -> Expr:
    opener = ts.next()
    arg = parse_expr(ts, "a distribution argument")
    ts.expect_closer(opener)
    return arg


# ---------------------------------------------------------------- align (§4.4)


# BNF: align ::= align name [ src ]... with name sdims
#              | align [ src ]... with name sdims :: name-list
# BNF: sdims ::= ( sub [, sub]... ) | [ sub ] [ [ sub ] ]...
def _align(ts: TokenStream, kw: Token) -> list[Directive]:
    array = None if ts.at("[") else parse_member_name(ts, "an array name or '['", arrow=False)
    after = "after 'align'" if array is None else f"after array name '{array.name}'"
    sources = parse_bracket_dims(ts, _align_source, after)
    ts.expect_word("with", "after the align sources")
    template = parse_name(ts, "a template name after 'with'")
    subs, style = parse_dims(ts, _align_sub, f"after template name '{template.name}'")
    if array is None:
        ts.expect_double_colon("before the aligned array names")
        arrays = parse_name_list(ts, "an array name", members=True)
    else:
        arrays = (array,)
    return [Align(arrays, sources, template, subs, style, ts.loc(kw))]


# BNF: src ::= ident | * | :
def _align_source(ts: TokenStream) -> AlignSource:
    tok = ts.peek()
    if at_alone(ts, "*"):
        return star(ts)
    if at_alone(ts, ":"):
        return Colon(ts.loc(ts.next()))
    if tok.kind != "ident":
        ts.error(tok, f"expected an align dummy, '*' or ':', found {describe(tok)}")
    ts.next()
    if not at_sub_end(ts):
        # Offsets belong on the template side: `align a[i] with t(i+1)`.
        ts.error(ts.peek(), f"expected ']' after align dummy '{tok.text}', "
                            f"found {describe(ts.peek())}")
    return Name(tok.text, ts.loc(tok))


# BNF: sub ::= ident [ { + | - } int-expr ] | * | :
def _align_sub(ts: TokenStream) -> AlignSub:
    sub = parse_dummy_sub(ts)
    if isinstance(sub, (Star, Colon)):
        return sub
    if isinstance(sub, Expr):
        raise XmpError(sub.loc, f"expected an align dummy with an optional '+' or '-' offset, "
                                f"'*' or ':', found '{sub.text}'")
    return AlignSubscript(*sub)


# ---------------------------------------------------------------- shadow (§4.5)


# BNF: shadow ::= shadow name [ width ]... | shadow [ width ]... :: name-list
def _shadow(ts: TokenStream, kw: Token) -> list[Directive]:
    array = None if ts.at("[") else parse_member_name(ts, "an array name or '['", arrow=False)
    after = "after 'shadow'" if array is None else f"after array name '{array.name}'"
    widths = parse_bracket_dims(ts, _shadow_width, after)
    if array is None:
        ts.expect_double_colon("before the shadowed array names")
        arrays = parse_name_list(ts, "an array name", members=True)
    else:
        arrays = (array,)
    return [Shadow(arrays, widths, ts.loc(kw))]


# BNF: width ::= int-expr | int-expr : int-expr | *
def _shadow_width(ts: TokenStream) -> ShadowWidth | Star:
    if at_alone(ts, "*"):
        return star(ts)
    lower = parse_expr(ts, "a shadow width")
    upper = parse_expr(ts, "an upper shadow width") if ts.accept(":") else lower
    return ShadowWidth(lower, upper)


# BNF: template_fix ::= template_fix [ fdims ] name [ fix-dims ]      (dynamic.py)
def _template_fix(ts: TokenStream, kw: Token) -> list[Directive]:
    return dynamic.parse_template_fix(ts, kw, _dist_format)


_HANDLERS: MappingProxyType[str, Handler] = MappingProxyType({
    "nodes": _nodes,
    "template": _template,
    "distribute": _distribute,
    "align": _align,
    "shadow": _shadow,
    "template_fix": _template_fix,
    "loop": executable.parse_loop,
    "reduction": executable.parse_reduction,
    "reflect": executable.parse_reflect,
    "bcast": executable.parse_bcast,
    "barrier": executable.parse_barrier,
    "task": executable.parse_task,
    "wait_async": executable.parse_wait_async,
    "acc": executable.parse_acc,
    "tasks": executable.parse_tasks,
    "reflect_init": shadows.parse_reflect_init,
    "reflect_do": shadows.parse_reflect_do,
    "reduce_shadow": shadows.parse_reduce_shadow,
    "gmove": assignment.parse_gmove,
    "array": assignment.parse_array,
    **local_view.HANDLERS,   # coarrays (global-view §11)
})
