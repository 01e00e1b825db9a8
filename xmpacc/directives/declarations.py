"""The declarative directives with their object named first (reference §4):

    nodes p(4), q[2][2]              → [NodesDecl p, NodesDecl q]
    template t(0:N-1)                → [TemplateDecl t]
    distribute t[block] onto p       → [Distribute t]
    align a[i][*] with t(i)          → [Align(arrays=(a,))]
    shadow a[1:2]                    → [Shadow(arrays=(a,))]

The forms with a ``::`` list (``align [i] with t(i) :: a, b``, ``template, distribute
(block) onto p :: t[N]``) are ``combined.py``'s, which reads its attributes with the item
parsers below (``nodes_dims``, ``template_dims``, ``dist_format``, ``align_source`` ...).
Each handler is called by ``parser.parse_directive`` with the stream just after the
keyword ``kw``; every object's ``loc`` is that keyword.
"""

from __future__ import annotations

from xmpacc.diagnostics import SourceLoc, XmpError
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
    parse_ref,
    star,
)

# ---------------------------------------------------------------- nodes (§4.1)


# BNF: nodes ::= nodes nodes-decl [, nodes-decl]...
def parse_nodes(ts: TokenStream, kw: Token) -> list[Directive]:
    decls: list[Directive] = []
    while True:
        decls.append(nodes_decl(ts, ts.loc(kw)))
        if not ts.accept(","):
            return decls


# BNF: nodes-decl ::= name nodes-dims [ = mapping ] | name = mapping
def nodes_decl(ts: TokenStream, loc: SourceLoc) -> NodesDecl:
    name = parse_name(ts, "a node array name")
    if ts.at("="):   # ``nodes q = *``: one dimension, as large as the set it maps
        extents, style = (Star(ts.loc(ts.peek())),), "bracket"
    else:
        extents, style = nodes_dims(ts, f"after node array name '{name.name}'")
    return NodesDecl(name, extents, nodes_mapping(ts), style, loc)


# BNF: nodes-dims ::= ( nodes-spec [, nodes-spec]... ) | [ nodes-spec ] [ [ nodes-spec ] ]...
def nodes_dims(ts: TokenStream, context: str) -> tuple[tuple[Expr | Star, ...], Style]:
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
def nodes_mapping(ts: TokenStream) -> Ref | Star | None:
    if not ts.accept("="):
        return None
    if ts.at("*"):
        return star(ts)
    return parse_ref(ts, "a node array name or '*'")


# ---------------------------------------------------------------- template (§4.2)


# BNF: template ::= template template-decl [, template-decl]...
# BNF: template-decl ::= name tdims
def parse_template(ts: TokenStream, kw: Token) -> list[Directive]:
    decls: list[Directive] = []
    while True:
        name = parse_name(ts, "a template name")
        dims, style = template_dims(ts, f"after template name '{name.name}'")
        decls.append(TemplateDecl(name, dims, style, ts.loc(kw)))
        if not ts.accept(","):
            return decls


# BNF: tdims ::= ( tspec [, tspec]... ) | [ tspec-c ] [ [ tspec-c ] ]...
def template_dims(ts: TokenStream, context: str) -> tuple[tuple[TemplateDim | Colon, ...], Style]:
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
def parse_distribute(ts: TokenStream, kw: Token) -> list[Directive]:
    template = parse_name(ts, "a template name")
    formats, onto = distribution(ts, f"after template name '{template.name}'")
    return [Distribute(template, formats, onto, ts.loc(kw))]


# BNF: distribution ::= fdims onto name
# BNF: fdims ::= ( dist-format [, dist-format]... ) | [ dist-format ] [ [ dist-format ] ]...
def distribution(ts: TokenStream, context: str) -> tuple[tuple[DistFormat, ...], Name]:
    formats, _ = parse_dims(ts, dist_format, context)
    ts.expect_word("onto", "after the distribution formats")
    return formats, parse_name(ts, "a node array name after 'onto'")


# BNF: dist-format ::= * | block [ ( int-expr ) ] | cyclic [ ( int-expr ) ]
#                    | gblock ( { * | int-array } )
def dist_format(ts: TokenStream) -> DistFormat:
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


# BNF: align ::= align member-name [ src ]... with name sdims
def parse_align(ts: TokenStream, kw: Token) -> list[Directive]:
    array = parse_member_name(ts, "an array name or '['", arrow=False)
    sources = parse_bracket_dims(ts, align_source, f"after array name '{array.name}'")
    template, subs, style = align_target(ts)
    return [Align((array,), sources, template, subs, style, ts.loc(kw))]


# BNF: align-target ::= with name sdims
# BNF: sdims ::= ( sub [, sub]... ) | [ sub ] [ [ sub ] ]...
def align_target(ts: TokenStream) -> tuple[Name, tuple[AlignSub, ...], Style]:
    ts.expect_word("with", "after the align sources")
    template = parse_name(ts, "a template name after 'with'")
    subs, style = parse_dims(ts, _align_sub, f"after template name '{template.name}'")
    return template, subs, style


# BNF: src ::= ident | * | :
def align_source(ts: TokenStream) -> AlignSource:
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


# BNF: shadow ::= shadow member-name [ width ]...
def parse_shadow(ts: TokenStream, kw: Token) -> list[Directive]:
    array = parse_member_name(ts, "an array name or '['", arrow=False)
    widths = parse_bracket_dims(ts, shadow_width, f"after array name '{array.name}'")
    return [Shadow((array,), widths, ts.loc(kw))]


# BNF: width ::= int-expr | int-expr : int-expr | *
def shadow_width(ts: TokenStream) -> ShadowWidth | Star:
    if at_alone(ts, "*"):
        return star(ts)
    lower = parse_expr(ts, "a shadow width")
    upper = parse_expr(ts, "an upper shadow width") if ts.accept(":") else lower
    return ShadowWidth(lower, upper)
