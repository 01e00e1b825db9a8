"""The combined directive (global-view §8a, S §4 "Combined Directive") and ``static_desc``.

    #pragma xmp ATTR [, ATTR]... :: DECL [, DECL]...

declares each DECL as if one directive per attribute had been written for it, so the
parser returns the objects those directives give, each located at its attribute's keyword
(no pass knows the combined form):

    nodes :: p[4], q[2][2]                  → [NodesDecl p, NodesDecl q]
    nodes [4] :: p, q                       → [NodesDecl p, NodesDecl q]  (extents on the attribute)
    template, distribute (block) onto n :: t[N], u(0:M-1)
                                            → [TemplateDecl t, TemplateDecl u, Distribute t, Distribute u]
    distribute [block] onto n :: t          → [Distribute t]               (t declared before)
    align [i][*] with t[i], shadow [1][0] :: a, b
                                            → [Align(arrays=(a, b)), Shadow(arrays=(a, b))]
    align (i) with t(i), shadow (*) :: x    → as align [i] ..., shadow [*] (Fortran order, reversed)

The attributes form three families by what their DECLs are: node arrays (``nodes``),
templates (``template``, ``distribute``) and arrays (``align``, ``shadow``).  The spec's
restrictions are located errors: an attribute twice (at the second), attributes of two
families (at the later attribute: a DECL cannot be both), and a DECL that is not what its
attributes declare (at the DECL).  Extents may stand on the attribute or on each DECL
(``template [N] :: t`` or ``template :: t[N]``), not on both.

``static_desc :: a, b`` (Omni: keep these descriptors across calls) is a ``StaticDesc``;
the declare stage checks its names.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from xmpacc.diagnostics import SourceLoc, XmpError
from xmpacc.directives.ast import (
    Align,
    Directive,
    Distribute,
    Name,
    NodesDecl,
    Shadow,
    StaticDesc,
    TemplateDecl,
)
from xmpacc.directives.declarations import (
    align_source,
    align_target,
    distribution,
    nodes_decl,
    nodes_dims,
    nodes_mapping,
    shadow_width,
    template_dims,
)
from xmpacc.directives.lexer import Token, TokenStream, describe
from xmpacc.directives.refs import (
    parse_bracket_dims,
    parse_dims,
    parse_member_name,
    parse_name,
    parse_name_list,
)


@dataclass(frozen=True, slots=True)
class _Attribute:
    """One attribute before ``::``: its keyword and what the parser of its kind returned
    (None where nothing follows the keyword: ``nodes``, ``template``)."""

    word: str
    loc: SourceLoc
    parts: Any


# BNF: attribute ::= nodes [ nodes-dims [ = mapping ] ] | template [ tdims ]
#                  | distribute fdims onto name | align adims with name sdims | shadow wdims
def _nodes(ts: TokenStream) -> Any:
    if not (ts.at("(") or ts.at("[")):
        return None
    extents, style = nodes_dims(ts, "after 'nodes'")
    return extents, style, nodes_mapping(ts)


def _template(ts: TokenStream) -> Any:
    return template_dims(ts, "after 'template'") if ts.at("(") or ts.at("[") else None


def _distribute(ts: TokenStream) -> Any:
    return distribution(ts, "after 'distribute'")


# BNF: adims ::= [ src ] [ [ src ] ]... | ( src [, src]... )      wdims: the same with widths
def _align(ts: TokenStream) -> Any:
    return _dims(ts, align_source, "after 'align'"), *align_target(ts)


def _shadow(ts: TokenStream) -> Any:
    return _dims(ts, shadow_width, "after 'shadow'")


def _dims(ts: TokenStream, item: Callable[[TokenStream], Any], context: str) -> tuple[Any, ...]:
    """The array-side list: brackets, or (spec §8a) parentheses in Fortran order."""
    return parse_dims(ts, item, context)[0] if ts.at("(") else parse_bracket_dims(ts, item, context)


_ATTRIBUTES: MappingProxyType[str, Callable[[TokenStream], Any]] = MappingProxyType({
    "nodes": _nodes, "template": _template, "distribute": _distribute, "align": _align, "shadow": _shadow,
})
# What the DECLs of each attribute are, in messages.
_FAMILY = MappingProxyType({"nodes": "node arrays", "template": "templates", "distribute": "templates",
                            "align": "arrays", "shadow": "arrays"})
_DECLS = MappingProxyType({"nodes": "node array", "template": "template", "distribute": "template",
                           "align": "aligned array", "shadow": "shadowed array"})


def is_combined(ts: TokenStream, word: str) -> bool:
    """Does the directive ``word`` (just taken) have the combined form?  Its first attribute
    is followed by no name: ``nodes [4] ::``, ``template, ...``, ``distribute (block)``."""
    if word == "distribute":
        return ts.at("(") or ts.at("[")
    return word in _ATTRIBUTES and ts.peek().kind == "op"


# BNF: combined ::= attribute [, attribute]... :: decl [, decl]...
def parse_combined(ts: TokenStream, kw: Token) -> list[Directive]:
    attrs = _attributes(ts, kw)
    first = next(iter(attrs))
    following = ts.peek()
    if following.kind == "ident" and following.text.lower() in _ATTRIBUTES:
        ts.error(following, f"expected ',' before the attribute '{following.text}'")
    ts.expect_double_colon(f"before the {_DECLS[first]} names")
    if first == "nodes":
        return _node_arrays(ts, attrs["nodes"])
    if _FAMILY[first] == "templates":
        return _templates(ts, attrs.get("template"), attrs.get("distribute"))
    return _arrays(ts, attrs.get("align"), attrs.get("shadow"))


def _attributes(ts: TokenStream, kw: Token) -> dict[str, _Attribute]:
    found: dict[str, _Attribute] = {}
    tok = kw
    while True:
        word = tok.text.lower()
        if word in found:
            ts.error(tok, f"'{word}' is given twice in this directive")
        other = next((w for w in found if _FAMILY[w] != _FAMILY[word]), None)
        if other is not None:
            ts.error(tok, f"'{word}' cannot be combined with '{other}': the names after '::' would be "
                          f"{_FAMILY[other]} and {_FAMILY[word]} at once")
        found[word] = _Attribute(word, ts.loc(tok), _ATTRIBUTES[word](ts))
        if not ts.accept(","):
            return found
        tok = ts.peek()
        if tok.kind != "ident" or tok.text.lower() not in _ATTRIBUTES:
            ts.error(tok, f"expected an attribute (nodes, template, distribute, align or shadow) after ',', "
                          f"found {describe(tok)}")
        ts.next()


def _decls(ts: TokenStream, one: Callable[[], Any]) -> list[Any]:
    items = [one()]
    while ts.accept(","):
        items.append(one())
    return items


def _not_twice(ts: TokenStream, name: Name, attr: _Attribute) -> None:
    if ts.at("(") or ts.at("["):
        ts.error(ts.peek(), f"the extents of '{name.name}' are given twice: after '{attr.word}' and here")


# BNF: decl ::= nodes-decl        (after 'nodes' without extents; else a name)
def _node_arrays(ts: TokenStream, nodes: _Attribute) -> list[Directive]:
    if nodes.parts is not None:
        extents, style, mapping = nodes.parts

        def named() -> NodesDecl:
            name = parse_name(ts, "a node array name")
            _not_twice(ts, name, nodes)
            return NodesDecl(name, extents, mapping, style, nodes.loc)
        return _decls(ts, named)

    def declared() -> NodesDecl:
        at = ts.peek()
        if at.kind == "ident" and not (ts.at("(", 1) or ts.at("[", 1) or ts.at("=", 1)):
            ts.error(at, f"'{at.text}' is not a nodes declaration: give its extents ('{at.text}[4]') "
                         "or write them after 'nodes' ('nodes [4] :: ...')")
        return nodes_decl(ts, nodes.loc)
    return _decls(ts, declared)


# BNF: decl ::= template-decl     (after 'template' without extents; else a name)
def _templates(ts: TokenStream, template: _Attribute | None, dist: _Attribute | None) -> list[Directive]:
    def one() -> tuple[Name, Any]:
        name = parse_name(ts, "a template name")
        if template is None:   # distribute alone: a template declared before
            if ts.at("(") or ts.at("["):
                raise XmpError(name.loc, f"template '{name.name}' is not declared by this directive: add "
                                         "the 'template' attribute ('template, distribute ...') or name a "
                                         "template declared before")
            return name, None
        if template.parts is not None:
            _not_twice(ts, name, template)
            return name, template.parts
        if not (ts.at("(") or ts.at("[")):
            raise XmpError(name.loc, f"'{name.name}' is not a template declaration: give its extents "
                                     f"('{name.name}[N]') or write them after 'template' "
                                     "('template [N] :: ...')")
        return name, template_dims(ts, f"after template name '{name.name}'")
    decls = _decls(ts, one)
    out: list[Directive] = []
    if template is not None:
        out += [TemplateDecl(name, dims, style, template.loc) for name, (dims, style) in decls]
    if dist is not None:
        formats, onto = dist.parts
        out += [Distribute(name, formats, onto, dist.loc) for name, _ in decls]
    return out


# BNF: decl ::= member-name      (align, shadow)
def _arrays(ts: TokenStream, align: _Attribute | None, shadow: _Attribute | None) -> list[Directive]:
    given = [f"'{a.word}'" for a in (align, shadow) if a is not None]
    words = " and ".join(given) + (" take" if len(given) > 1 else " takes")

    def one() -> Name:
        name = parse_member_name(ts, "an array name", arrow=False)
        if ts.at("(") or ts.at("["):
            raise XmpError(name.loc, f"'{name.name}' is not an array name: {words} the names of "
                                     f"declared arrays ('{name.name}', not '{name.name}[N]')")
        return name
    arrays = tuple(_decls(ts, one))
    out: list[Directive] = []
    if align is not None:
        sources, template, subs, style = align.parts
        out.append(Align(arrays, sources, template, subs, style, align.loc))
    if shadow is not None:
        out.append(Shadow(arrays, shadow.parts, shadow.loc))
    return out


# BNF: static_desc ::= static_desc :: name-list
def parse_static_desc(ts: TokenStream, kw: Token) -> list[Directive]:
    ts.expect_double_colon("after 'static_desc'")
    return [StaticDesc(parse_name_list(ts, "a node array, template or array name"), ts.loc(kw))]
