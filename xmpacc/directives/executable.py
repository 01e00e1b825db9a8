"""Executable and XMP-ACC directives (reference §6, §7): ``loop``, ``reduction``,
``reflect``, ``bcast``, ``barrier``, ``task``, ``acc replicate``, ``acc replicate_sync``.

Each ``parse_*`` handler is called by ``parser.parse_directive`` with the stream just after
the directive keyword ``kw`` and returns the directive objects; the dispatcher checks that
nothing follows.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Literal, NoReturn, cast

from xmpacc.diagnostics import XmpError
from xmpacc.directives.ast import (
    AccClauses,
    AccReplicate,
    AccReplicateSync,
    Barrier,
    Bcast,
    Directive,
    Expr,
    Loop,
    LoopIndex,
    LoopSub,
    Name,
    OnTemplate,
    Reduction,
    ReductionDirective,
    ReductionOp,
    ReductionVar,
    Ref,
    Reflect,
    SyncClause,
    Task,
    Tasks,
    WaitAsync,
)
from xmpacc.directives.lexer import Token, TokenStream, describe
from xmpacc.directives.refs import (
    parse_bracket_dims,
    parse_dims,
    parse_dummy_sub,
    parse_expr,
    parse_name,
    parse_name_list,
    parse_paren_names,
    parse_paren_var_refs,
    parse_ref,
    parse_var_ref,
)
from xmpacc.directives.widths import parse_loop_widths, parse_peel_and_wait, reflect_widths

ClauseParser = Callable[[TokenStream], Any]

_SYMBOL_OPS = frozenset({"+", "-", "*", "&", "|", "^", "&&", "||"})
_LOCATION_OPS = frozenset({"firstmax", "firstmin", "lastmax", "lastmin"})
_WORD_OPS = frozenset({"max", "min"}) | _LOCATION_OPS
_ACC_CLAUSES = ("private", "firstprivate", "shared", "num_threads")
_MAX_THREAD_DIMS = 3
# Clauses of S or Omni that xmpacc recognises but does not implement (reference §6.8).
_LATER_CLAUSES = frozenset({"threads"})
# max and min take location variables on the reduction directive (Omni's extension).
_DIRECTIVE_LOCATION_OPS = _LOCATION_OPS | {"max", "min"}
# O11-only directives (reference §7.6).
_LATER_ACC = frozenset({"reflect", "barrier", "loop"})


# BNF: clauses ::= [ clause-keyword clause-body ]...     (any order, each at most once)
def parse_clauses(
    ts: TokenStream, directive: str, parsers: Mapping[str, ClauseParser]
) -> dict[str, Any]:
    """Trailing clauses: keyword → what its parser returned (called after the keyword)."""
    found: dict[str, Any] = {}
    while ts.peek().kind == "ident":
        tok = ts.peek()
        word = tok.text.lower()
        if word not in parsers:
            _reject_clause(ts, tok, directive)
        if word in found:
            ts.error(tok, f"duplicate '{word}' clause in '{directive}' directive")
        ts.next()
        found[word] = parsers[word](ts)
    return found


def _reject_clause(ts: TokenStream, tok: Token, directive: str) -> NoReturn:
    word = tok.text.lower()
    if word in _LATER_CLAUSES:
        ts.error(tok, f"'{word}' clause is not supported yet")
    if word == "acc":
        # XcalableACC syntax; in XMP-ACC communication always works on host data.
        ts.error(tok, f"'acc' clause is not XMP-ACC syntax; XMP-ACC communicates host data "
                      f"only: use 'acc replicate_sync out' before '{directive}' and "
                      f"'acc replicate_sync in' after it")
    ts.error(tok, f"unknown clause '{tok.text}' in '{directive}' directive")


def _flag(ts: TokenStream) -> bool:
    """A clause without arguments (XcalableACC's ``acc``)."""
    return True


def _on_ref(ts: TokenStream) -> Ref:
    return parse_ref(ts, "a node array or template name")


# ---------------------------------------------------------------- loop (§6.1, §7.4)


# BNF: loop ::= loop [ index-list ] on on-ref [ reduction-clause ]... [ acc [ acc-clause ]... ]
def parse_loop(ts: TokenStream, kw: Token) -> list[Directive]:
    indices = _loop_indices(ts)
    ts.expect_word("on", "in 'loop' directive")
    on = _on_template(ts)
    reductions: list[Reduction] = []
    acc: AccClauses | None = None
    widths: dict[str, Any] = {}
    while ts.peek().kind == "ident":
        tok = ts.peek()
        word = tok.text.lower()
        if word in ("reduction", *_WIDTH_CLAUSES) and acc is not None:
            ts.error(tok, f"'{word}' clause must come before 'acc'")
        elif word == "reduction":
            reductions.append(parse_reduction_clause(ts, ts.next(), in_directive=False))
        elif word in _WIDTH_CLAUSES:
            _width_clause(ts, widths, on)
        elif word == "acc" and acc is not None:
            ts.error(tok, "duplicate 'acc' clause in 'loop' directive")
        elif word == "acc":
            acc = _acc_clauses(ts)
        elif word in _ACC_CLAUSES:
            ts.error(tok, f"'{word}' clause must follow 'acc'")
        else:
            _reject_clause(ts, tok, "loop")
    return [Loop(indices, on, tuple(reductions), acc, ts.loc(kw), widths.get("expand"),
                 widths.get("margin"), widths.get("peel_and_wait"))]


_WIDTH_CLAUSES = ("expand", "margin", "peel_and_wait")


# BNF: index-list ::= ( name-list ) | [ name ] [ [ name ] ]...
def _loop_indices(ts: TokenStream) -> tuple[Name, ...] | None:
    """``(j, i)`` or, in the bracketed style of XcalableACC's programs, ``[j][i]``; the
    names are kept as written (they are matched with the on-ref by name)."""
    if ts.at("("):
        return parse_paren_names(ts, "a loop index", "loop")
    if ts.at("["):
        return parse_bracket_dims(ts, lambda t: parse_name(t, "a loop index"), "after 'loop'")
    return None


# BNF: width-clause ::= expand ( lwidth [, lwidth]... ) | margin ( ... )
#                     | peel_and_wait ( int-expr , lwidth [, lwidth]... )
def _width_clause(ts: TokenStream, found: dict[str, Any], on: OnTemplate) -> None:
    """expand, margin and peel_and_wait exclude each other (each is one iteration range)."""
    tok = ts.next()
    word = tok.text.lower()
    if found:
        other = next(iter(found))
        ts.error(tok, f"duplicate '{word}' clause in 'loop' directive" if other == word
                 else f"'{word}' and '{other}' cannot be combined in one 'loop' directive")
    if word == "peel_and_wait":
        found[word] = parse_peel_and_wait(ts, on.style)
    else:
        found[word] = parse_loop_widths(ts, word, on.style)


# BNF: on-ref ::= tname ( lsub [, lsub]... ) | tname [ lsub ] [ [ lsub ] ]...
def _on_template(ts: TokenStream) -> OnTemplate:
    name = parse_name(ts, "a template name after 'on'")
    subs, style = parse_dims(ts, _loop_sub, f"after template name '{name.name}'")
    return OnTemplate(name, subs, style, name.loc)


# BNF: lsub ::= ident [ { + | - } int-expr ] | * | : | int-expr
def _loop_sub(ts: TokenStream) -> LoopSub:
    sub = parse_dummy_sub(ts)
    return LoopIndex(*sub) if isinstance(sub, tuple) else sub


# BNF: reduction-clause ::= reduction ( kind : rspec [, rspec]... )
def parse_reduction_clause(ts: TokenStream, kw: Token, in_directive: bool) -> Reduction:
    """The part after the ``reduction`` keyword ``kw`` (clause of loop or the directive)."""
    opener = ts.expect("(", "after 'reduction'")
    op = _reduction_op(ts, in_directive)
    ts.expect(":", "after the reduction operator")
    if ts.at(")"):
        ts.error(ts.peek(), "empty variable list in 'reduction'")
    variables = [_rspec(ts, op, in_directive)]
    while ts.accept(","):
        variables.append(_rspec(ts, op, in_directive))
    ts.expect_closer(opener)
    return Reduction(op, tuple(variables), ts.loc(kw))


# BNF: kind ::= + | - | * | & | '|' | ^ | && | '||' | max | min
#              | firstmax | firstmin | lastmax | lastmin
def _reduction_op(ts: TokenStream, in_directive: bool) -> ReductionOp:
    tok = ts.peek()
    op = None
    if tok.kind == "op" and tok.text in _SYMBOL_OPS:
        op = tok.text
    elif tok.kind == "ident" and tok.text.lower() in _WORD_OPS:
        op = tok.text.lower()
    if op is None:
        ts.error(tok, f"unknown reduction operator {describe(tok)}")
    ts.next()
    return cast(ReductionOp, op)


# BNF: rspec ::= var-ref [ / var-ref [, var-ref]... / ]
def _rspec(ts: TokenStream, op: ReductionOp, in_directive: bool) -> ReductionVar:
    """A reduction variable (scalar, array, element or section) and its location
    variables (global-view §5: first*/last* on loop; also max/min on the directive)."""
    var = parse_var_ref(ts, "a reduction variable")
    if not ts.at("/"):
        if op in _LOCATION_OPS:
            raise XmpError(var.name.loc, f"reduction '{op}' needs location variables, "
                                         f"as in '{var.name.name}/i/'")
        return ReductionVar(var.name, (), var.subs)
    slash = ts.next()
    if op not in (_DIRECTIVE_LOCATION_OPS if in_directive else _LOCATION_OPS):
        kinds = "max, min, firstmax" if in_directive else "firstmax"
        ts.error(slash, f"location variables are only allowed with {kinds}, firstmin, "
                        "lastmax and lastmin")
    if ts.at("/"):
        ts.error(ts.peek(), "empty location variable list")
    locations = [parse_var_ref(ts, "a location variable")]
    while ts.accept(","):
        locations.append(parse_var_ref(ts, "a location variable"))
    ts.expect("/", "after the location variables")
    return ReductionVar(var.name, tuple(locations), var.subs)


# BNF: acc-clauses ::= acc [ acc-clause ]...
# BNF: acc-clause ::= { private | firstprivate | shared } ( name-list )
#                   | num_threads ( int-expr [, int-expr [, int-expr ]] )
def _acc_clauses(ts: TokenStream) -> AccClauses:
    acc = ts.next()
    lists: dict[str, list[Name]] = {"private": [], "firstprivate": [], "shared": []}
    threads: tuple[Expr, ...] = ()
    while tok := ts.accept_word(*_ACC_CLAUSES):
        word = tok.text.lower()
        if word != "num_threads":
            lists[word].extend(parse_paren_names(ts, "a variable name", word))
        elif threads:
            ts.error(tok, "duplicate 'num_threads' clause in 'loop' directive")
        else:
            threads = _num_threads(ts)
    return AccClauses(tuple(lists["private"]), tuple(lists["firstprivate"]),
                      tuple(lists["shared"]), threads, ts.loc(acc))


# BNF: num-threads ::= ( int-expr [, int-expr [, int-expr ]] )
def _num_threads(ts: TokenStream) -> tuple[Expr, ...]:
    opener = ts.expect("(", "after 'num_threads'")
    if ts.at(")"):
        ts.error(ts.peek(), f"'num_threads' needs 1 to {_MAX_THREAD_DIMS} values")
    values = [parse_expr(ts, "a thread count")]
    while ts.accept(","):
        if len(values) == _MAX_THREAD_DIMS:
            ts.error(ts.peek(), f"'num_threads' takes at most {_MAX_THREAD_DIMS} values")
        values.append(parse_expr(ts, "a thread count"))
    ts.expect_closer(opener)
    return tuple(values)


# ---------------------------------------------------------------- communication (§6.3-6.6)


# BNF: reduction ::= reduction ( kind : variable [, variable]... ) [ on ref ] [ async ( int-expr ) ] [ acc ]
#                    [ async ( int-expr ) ]
def parse_reduction(ts: TokenStream, kw: Token) -> list[Directive]:
    reduction = parse_reduction_clause(ts, kw, in_directive=True)
    clauses = parse_clauses(ts, "reduction", {"on": _on_ref, "async": parse_async_clause, "acc": _flag})
    return [ReductionDirective(reduction, clauses.get("on"), ts.loc(kw),
                               clauses.get("async"), "acc" in clauses)]


# BNF: reflect ::= reflect { ( name-list ) | name-list } [ width ( rwidth [, rwidth]... ) ]
#                  [ orthogonal ] [ async ( int-expr ) ] [ acc ]
def parse_reflect(ts: TokenStream, kw: Token) -> list[Directive]:
    if ts.at("("):
        arrays = parse_paren_names(ts, "an array name", "reflect", members=True)
    else:
        arrays = parse_name_list(ts, "an array name or '('", members=True)
    clauses = parse_clauses(ts, "reflect", {"width": reflect_widths, "acc": lambda _: True,
                                            "orthogonal": lambda _: True,
                                            "async": parse_async_clause})
    return [Reflect(arrays, clauses.get("width"), "acc" in clauses, ts.loc(kw), clauses.get("async"),
                    "orthogonal" in clauses)]


# BNF: bcast ::= bcast ( var-list ) [ from ref ] [ on ref ] [ async ( int-expr ) ] [ acc ]
def parse_bcast(ts: TokenStream, kw: Token) -> list[Directive]:
    variables = parse_paren_var_refs(ts, "a variable name", "bcast")
    clauses = parse_clauses(ts, "bcast", {"from": _on_ref, "on": _on_ref, "async": parse_async_clause,
                                          "acc": _flag})
    return [Bcast(variables, clauses.get("from"), clauses.get("on"), ts.loc(kw), clauses.get("async"),
                  "acc" in clauses)]


# BNF: async-clause ::= async ( int-expr )
def parse_async_clause(ts: TokenStream) -> Expr:
    """The ``( id )`` after ``async`` (on every communication directive, global-view §7)."""
    opener = ts.expect("(", "after 'async'")
    async_id = parse_expr(ts, "an async id")
    ts.expect_closer(opener)
    return async_id


# BNF: wait_async ::= wait_async ( int-expr [, int-expr]... ) [ on ref ] [ acc ]
def parse_wait_async(ts: TokenStream, kw: Token) -> list[Directive]:
    opener = ts.expect("(", "after 'wait_async'")
    ids = [parse_expr(ts, "an async id")]
    while ts.accept(","):
        ids.append(parse_expr(ts, "an async id"))
    ts.expect_closer(opener)
    clauses = parse_clauses(ts, "wait_async", {"on": _on_ref, "acc": _flag})
    return [WaitAsync(tuple(ids), clauses.get("on"), ts.loc(kw), "acc" in clauses)]


# BNF: barrier ::= barrier [ on ref ] [ acc ]
def parse_barrier(ts: TokenStream, kw: Token) -> list[Directive]:
    clauses = parse_clauses(ts, "barrier", {"on": _on_ref, "acc": _flag})
    return [Barrier(clauses.get("on"), ts.loc(kw), "acc" in clauses)]


# BNF: task ::= task on ref [ nocomm ]
def parse_task(ts: TokenStream, kw: Token) -> list[Directive]:
    ts.expect_word("on", "after 'task'")
    on = _on_ref(ts)
    clauses = parse_clauses(ts, "task", {"nocomm": lambda _: True})
    return [Task(on, "nocomm" in clauses, ts.loc(kw))]


# BNF: tasks ::= tasks        (followed by a compound statement of task constructs)
def parse_tasks(ts: TokenStream, kw: Token) -> list[Directive]:
    return [Tasks(ts.loc(kw))]


# ---------------------------------------------------------------- XMP-ACC (§7.2, §7.3)


# BNF: acc-directive ::= acc replicate ( name-list )      names may be member paths (c.a)
#                      | acc replicate_sync sync-clause [ sync-clause ]...
def parse_acc(ts: TokenStream, kw: Token) -> list[Directive]:
    tok = ts.peek()
    word = ts.directive_word(tok, "an XMP-ACC directive name after 'acc'", _LATER_ACC, "acc ")
    if word not in ("replicate", "replicate_sync"):
        ts.error(tok, f"unknown XMP-ACC directive 'acc {tok.text}'")
    ts.next()
    if word == "replicate":
        return [AccReplicate(parse_paren_names(ts, "a variable name", "replicate", members=True), ts.loc(kw))]
    return [AccReplicateSync(_sync_clauses(ts), ts.loc(kw))]


# BNF: sync-clause ::= in ( name-list ) | out ( name-list )
def _sync_clauses(ts: TokenStream) -> tuple[SyncClause, ...]:
    clauses: list[SyncClause] = []
    while tok := ts.accept_word("in", "out"):
        direction = cast(Literal["in", "out"], tok.text.lower())
        clauses.append(SyncClause(direction, parse_paren_names(ts, "a variable name",
                                                               tok.text, members=True)))
    if ts.peek().kind == "ident":
        ts.error(ts.peek(), f"unknown clause '{ts.peek().text}' in 'acc replicate_sync' "
                            "directive (expected 'in' or 'out')")
    if not clauses:
        ts.error(ts.peek(), "'in' or 'out' clause is required in 'acc replicate_sync' directive")
    return tuple(clauses)
