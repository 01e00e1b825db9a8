"""The directive parser: ``parse_directive(text, locs)`` → list of frozen directive objects.

``text`` is what follows ``#pragma xmp`` (macros expanded, continuations joined) and
``locs[k]`` is the source location of ``text[k]`` (plus one entry for the end).  The result
is a list because one directive may declare several objects:

    nodes p(4), q(2)            → [NodesDecl p, NodesDecl q]
    template [N] :: t1, t2      → [TemplateDecl t1, TemplateDecl t2]
    align [i] with t(i) :: a, b → [Align(arrays=(a, b))]           (one object, two arrays)
    template, distribute (block) onto p :: t[N]
                                → [TemplateDecl t, Distribute t]  (the combined directive)

Every object is normalised as described in ``ast.py`` (C order, inclusive template bounds,
``start:last`` triplets); every user mistake raises ``XmpError`` at the offending token.
Each object's ``loc`` is the directive keyword (``acc`` for the XMP-ACC directives; in a
combined directive the keyword of its attribute).  This module holds the dispatch; the
declarative directives are in ``declarations.py`` and ``combined.py`` (reference §4,
global-view §8a), the executable ones in ``executable.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from types import MappingProxyType

from xmpacc.diagnostics import SourceLoc
from xmpacc.directives import assignment, combined, declarations, dynamic, executable, local_view, shadows
from xmpacc.directives.ast import Directive
from xmpacc.directives.lexer import Token, TokenStream

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
    if combined.is_combined(ts, word):
        handler = combined.parse_combined
    directives = handler(ts, head)
    ts.expect_end(_directive_name(ts, word))
    return directives


def _directive_name(ts: TokenStream, word: str) -> str:
    return f"acc {ts.tokens[1].text.lower()}" if word == "acc" else word


_HANDLERS: MappingProxyType[str, Handler] = MappingProxyType({
    "nodes": declarations.parse_nodes,
    "template": declarations.parse_template,
    "distribute": declarations.parse_distribute,
    "align": declarations.parse_align,
    "shadow": declarations.parse_shadow,
    "static_desc": combined.parse_static_desc,
    "template_fix": dynamic.parse_template_fix,
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
