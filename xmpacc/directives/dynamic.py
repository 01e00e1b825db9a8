"""``template_fix`` (global-view §4): the directive that fixes an unfixed template.

    template_fix [gblock(m)] t[0:n-1]        format list (C order), then bounds
    template_fix (block) t(0:n-1)            parenthesised: Fortran order, reversed
    template_fix t[n]                        bounds only: 0 .. n-1
    template_fix [gblock(m)] t               the gblock map only (size declared)

The handler is called by ``parser.parse_directive`` with the stream after the keyword;
the dist-format parser is the one of ``distribute`` (``declarations.py``).
"""

from __future__ import annotations

from xmpacc.directives.ast import Directive, Expr, Style, TemplateDim, TemplateFix
from xmpacc.directives.declarations import dist_format
from xmpacc.directives.exprs import minus_one
from xmpacc.directives.lexer import Token, TokenStream
from xmpacc.directives.refs import at_alone, parse_dims, parse_expr, parse_name


# BNF: template_fix ::= template_fix [ fdims ] name [ fix-dims ]
# BNF: fdims ::= ( dist-format [, dist-format]... ) | [ dist-format ] [ [ dist-format ] ]...
def parse_template_fix(ts: TokenStream, kw: Token) -> list[Directive]:
    formats = None
    if ts.at("(") or ts.at("["):
        formats, _ = parse_dims(ts, dist_format, "after 'template_fix'")
    template = parse_name(ts, "a template name")
    dims = None
    if ts.at("(") or ts.at("["):
        style: Style = "paren" if ts.at("(") else "bracket"
        dims, _ = parse_dims(ts, lambda t: _fix_spec(t, style), f"after template name '{template.name}'")
    return [TemplateFix(formats, template, dims, ts.loc(kw))]


# BNF: fix-spec ::= [ int-expr : ] int-expr
def _fix_spec(ts: TokenStream, style: Style) -> TemplateDim:
    """Inclusive bounds: ``[n]`` is 0..n-1, ``(n)`` is 1..n, ``lo:hi`` is lo..hi in both."""
    for op in (":", "*"):
        if at_alone(ts, op):
            ts.error(ts.peek(), f"'{op}' is not allowed in template_fix; give the extent")
    first = parse_expr(ts, "a template extent")
    if ts.accept(":"):
        return TemplateDim(first, parse_expr(ts, "a template upper bound"))
    if style == "bracket":
        return TemplateDim(Expr("0", first.loc), Expr(minus_one(first.text), first.loc))
    return TemplateDim(Expr("1", first.loc), first)
