"""The OpenACC directive parser: ``parse_acc_directive(text, locs)`` -> one ``AccDirective``.

``text`` is what follows ``#pragma acc`` (macros expanded, continuations joined) and
``locs[k]`` the source location of ``text[k]`` (plus one for the end), exactly as for the
XMP parser (``parser.py``), whose lexer and shared pieces (``refs.py``) this module uses.
The objects and the mapping of every directive and clause are described in
``openacc_ast.py``.

Which clause a directive takes follows OpenACC 2.x (C); clauses may be separated by
commas, as OpenACC compilers accept.  Every user mistake raises ``XmpError`` at its token:

    clause on the wrong directive    clause 'copy' is not allowed on 'acc update'
    unknown clause                   unknown clause 'foo' in 'acc parallel' directive
    repeated single clause           duplicate 'async' clause in 'acc update' directive
    exclusive clauses                'seq' and 'gang' cannot both appear on 'acc loop'
    XcalableACC §5 (not included)    'acc cache' is not supported yet / 'tile' clause is
                                     not supported yet (at the word)

Keywords are case-insensitive like the XMP ones (reference §2, Omni compares with
``strcasecmp``): OpenACC itself is case-sensitive in C, but accepting ``COPYIN`` changes the
meaning of no valid program and keeps one rule for the whole ``#pragma`` family.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from types import MappingProxyType
from typing import get_args

from xmpacc.diagnostics import SourceLoc
from xmpacc.directives import openacc_clauses as cl
from xmpacc.directives.lexer import Token, TokenStream
from xmpacc.directives.openacc_ast import (
    AccAtomic,
    AccCompute,
    AccData,
    AccDeclare,
    AccDirective,
    AccEnterData,
    AccExitData,
    AccHostData,
    AccLoop,
    AccRoutine,
    AccUpdate,
    AccWait,
    AtomicKind,
    Construct,
    DataKind,
    LoopClauses,
    directive_name,
)
from xmpacc.directives.refs import parse_name

Handler = Callable[[TokenStream, Token], AccDirective]

_DATA = frozenset(get_args(DataKind)) - {"delete"}
_LOOP = frozenset({"collapse", "tile", "gang", "worker", "vector", "seq", "independent", "auto",
                   "private", "reduction"})
_KERNELS = _DATA | {"if", "async", "wait", "num_gangs", "num_workers", "vector_length", "default"}
_PARALLEL = _KERNELS | {"private", "firstprivate", "reduction"}

# Directive -> the clauses (canonical names, see openacc_clauses.SYNONYMS) it takes.
ALLOWED: MappingProxyType[str, frozenset[str]] = MappingProxyType({
    "acc data": _DATA | {"if"},
    "acc enter data": frozenset({"copyin", "create", "present_or_copyin", "present_or_create",
                                 "if", "async", "wait"}),
    "acc exit data": frozenset({"copyout", "delete", "if", "async", "wait", "finalize"}),
    "acc declare": _DATA,
    "acc update": frozenset({"host", "device", "if", "async", "wait", "if_present"}),
    "acc host_data": frozenset({"use_device"}),
    "acc parallel": _PARALLEL,
    "acc kernels": _KERNELS,
    "acc loop": _LOOP,
    "acc parallel loop": _PARALLEL | _LOOP,
    "acc kernels loop": _KERNELS | _LOOP,
    "acc wait": frozenset({"async"}),
    "acc routine": frozenset({"seq"}),
})

# OpenACC directives that XcalableACC §5 leaves out, and XcalableACC's multi-device one.
_LATER_DIRECTIVES = frozenset({"cache", "serial", "set", "init", "shutdown", "device"})
_XMP_WORDS = frozenset({"nodes", "template", "distribute", "align", "shadow", "reflect", "bcast",
                        "barrier", "task", "tasks", "gmove", "reduction", "wait_async",
                        "replicate", "replicate_sync", "reflect_init", "reflect_do"})
_ATOMIC_KINDS = get_args(AtomicKind)


def parse_acc_directive(text: str, locs: Sequence[SourceLoc]) -> AccDirective:
    """Parse one ``#pragma acc`` line; raise ``XmpError`` at the first mistake."""
    ts = TokenStream(text, locs)
    head = ts.next()
    word = ts.directive_word(head, "an OpenACC directive name", _LATER_DIRECTIVES, "acc ")
    handler = _HANDLERS.get(word)
    if handler is None:
        hint = " (XMP directives are written '#pragma xmp ...')" if word in _XMP_WORDS else ""
        ts.error(head, f"unknown OpenACC directive '{head.text}'{hint}")
    directive = handler(ts, head)
    ts.expect_end(directive_name(directive))
    return directive


def _name(kw: Token) -> str:
    """How messages name the directive of keyword ``kw`` (``acc update``)."""
    return f"acc {kw.text.lower()}"


def _clauses(ts: TokenStream, kw: Token, suffix: str = "") -> tuple[str, cl.Found]:
    """How messages name the directive (``acc`` + keyword + ``suffix``), and its clauses,
    each one that the directive allows (``ALLOWED``)."""
    name = _name(kw) + suffix
    return name, cl.parse_clauses(ts, name, ALLOWED[name])


def _require(ts: TokenStream, present: object, what: str, name: str) -> None:
    if not present:
        ts.error(ts.peek(), f"'{name}' needs {what}")


# ---------------------------------------------------------------- data directives (§1)


# BNF: data ::= data [ clause ]...
def _data(ts: TokenStream, kw: Token) -> AccDirective:
    _, f = _clauses(ts, kw)
    return AccData(tuple(f.data), f.get("if"), ts.loc(kw))


# BNF: enter-data ::= enter data clause [ clause ]...
# BNF: exit-data ::= exit data clause [ clause ]...
def _enter_exit(ts: TokenStream, kw: Token) -> AccDirective:
    ts.expect_word("data", f"after '{kw.text.lower()}'")
    name, f = _clauses(ts, kw, " data")
    if name == "acc enter data":
        _require(ts, f.data, "a 'copyin' or 'create' clause", name)
        return AccEnterData(tuple(f.data), f.get("if"), f.get("async"), f.get("wait"), ts.loc(kw))
    _require(ts, f.data, "a 'copyout' or 'delete' clause", name)
    return AccExitData(tuple(f.data), f.get("if"), f.get("async"), f.get("wait"),
                       f.get("finalize"), ts.loc(kw))


# BNF: declare ::= declare data-clause [ data-clause ]...
def _declare(ts: TokenStream, kw: Token) -> AccDirective:
    name, f = _clauses(ts, kw)
    _require(ts, f.data, "a data clause", name)
    return AccDeclare(tuple(f.data), ts.loc(kw))


# BNF: update ::= update clause [ clause ]...   (at least one host, self or device)
def _update(ts: TokenStream, kw: Token) -> AccDirective:
    name, f = _clauses(ts, kw)
    _require(ts, f.moves, "a 'host', 'self' or 'device' clause", name)
    return AccUpdate(tuple(f.moves), f.get("if"), f.get("async"), f.get("wait"),
                     f.get("if_present"), ts.loc(kw))


# BNF: host-data ::= host_data use_device ( var-list ) [ use_device ( var-list ) ]...
def _host_data(ts: TokenStream, kw: Token) -> AccDirective:
    name, f = _clauses(ts, kw)
    _require(ts, f.lists["use_device"], "a 'use_device' clause", name)
    return AccHostData(tuple(f.lists["use_device"]), ts.loc(kw))


# ---------------------------------------------------------------- compute directives (§2)


# BNF: compute ::= { parallel | kernels } [ loop ] [ clause ]...
def _compute(ts: TokenStream, kw: Token) -> AccDirective:
    loop_word = ts.accept_word("loop")
    _, f = _clauses(ts, kw, " loop" if loop_word else "")
    construct: Construct = "parallel" if kw.text.lower() == "parallel" else "kernels"
    loop = None if loop_word is None else _loop_clauses(f, ts.loc(loop_word))
    own_lists = loop is None  # a combined construct's private and reduction act on its loop
    return AccCompute(
        construct, loop, tuple(f.data), f.get("if"), f.get("async"), f.get("wait"),
        f.get("num_gangs"), f.get("num_workers"), f.get("vector_length"),
        tuple(f.lists["private"]) if own_lists else (), tuple(f.lists["firstprivate"]),
        tuple(f.reductions) if own_lists else (), f.get("default"), ts.loc(kw))


# BNF: loop ::= loop [ clause ]...
def _loop(ts: TokenStream, kw: Token) -> AccDirective:
    _, f = _clauses(ts, kw)
    return AccLoop(_loop_clauses(f, ts.loc(kw)), ts.loc(kw))


def _loop_clauses(f: cl.Found, loc: SourceLoc) -> LoopClauses:
    return LoopClauses(f.get("collapse"), f.get("gang"), f.get("worker"), f.get("vector"),
                       f.get("seq"), f.get("independent"), f.get("auto"),
                       tuple(f.lists["private"]), tuple(f.reductions), loc, f.get("tile"))


# BNF: routine ::= routine [ ( name ) ] seq
def _routine(ts: TokenStream, kw: Token) -> AccDirective:
    name = _name(kw)
    routine = None
    if ts.at("("):
        opener = ts.next()
        routine = parse_name(ts, "a function name")
        ts.expect_closer(opener)
    f = cl.parse_clauses(ts, name, ALLOWED[name])
    _require(ts, f.get("seq"), "'seq' (gang, worker and vector routines are not supported yet)",
             name)
    return AccRoutine(routine, ts.loc(kw))


# BNF: atomic ::= atomic [ read | write | update | capture ]
def _atomic(ts: TokenStream, kw: Token) -> AccDirective:
    tok = ts.peek()
    if tok.kind == "ident" and tok.text.lower() not in _ATOMIC_KINDS:
        ts.error(tok, f"unknown clause '{tok.text}' in 'acc atomic' directive "
                      "(expected read, write, update or capture)")
    kind = ts.next().text.lower() if tok.kind == "ident" else "update"
    return AccAtomic(kind, ts.loc(kw))  # type: ignore[arg-type]


# ---------------------------------------------------------------- asynchrony (§3)


# BNF: wait ::= wait [ ( [ devnum : int-expr : ] [ queues : ] int-expr [, int-expr]... ) ]
#               [ async [ ( int-expr ) ] ]
def _wait(ts: TokenStream, kw: Token) -> AccDirective:
    devnum, queues = cl.parse_wait_arguments(ts, "wait") if ts.at("(") else (None, ())
    _, f = _clauses(ts, kw)
    return AccWait(queues, f.get("async"), ts.loc(kw), devnum)


_HANDLERS: MappingProxyType[str, Handler] = MappingProxyType({
    "data": _data,
    "enter": _enter_exit,
    "exit": _enter_exit,
    "declare": _declare,
    "update": _update,
    "host_data": _host_data,
    "parallel": _compute,
    "kernels": _compute,
    "loop": _loop,
    "routine": _routine,
    "atomic": _atomic,
    "wait": _wait,
})
