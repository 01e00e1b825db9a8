"""The clauses of the OpenACC directives: one parser per clause and the collector
``parse_clauses`` that ``openacc.py`` calls after the directive name.

Clause names are *canonical* after ``SYNONYMS`` (``pcopy`` is ``present_or_copy``, ``self``
is ``host``); messages use the spelling the user wrote.  Each clause parser is called with
the stream just after the keyword ``tok`` and returns the clause's value (see the table in
``openacc_ast.py``); ``Found`` sorts the values into what the directive builders read.
"""

from __future__ import annotations

from collections.abc import Callable
from types import MappingProxyType
from typing import Any, NoReturn, get_args

from xmpacc.diagnostics import XmpError
from xmpacc.directives.ast import Expr, SectionTriplet, Star, VarRef
from xmpacc.directives.exprs import int_value
from xmpacc.directives.lexer import Token, TokenStream, describe
from xmpacc.directives.openacc_ast import (
    AccReduction,
    AsyncClause,
    DataClause,
    DataKind,
    DefaultClause,
    LevelClause,
    UpdateClause,
    WaitClause,
)
from xmpacc.directives.refs import at_alone, parse_expr, parse_paren_var_refs, parse_var_ref, star

ClauseParser = Callable[[TokenStream, Token, str], Any]

DATA_KINDS = frozenset(get_args(DataKind))
SYNONYMS: MappingProxyType[str, str] = MappingProxyType({
    "pcopy": "present_or_copy", "pcopyin": "present_or_copyin", "pcopyout": "present_or_copyout",
    "pcreate": "present_or_create", "self": "host", "dtype": "device_type",
})
_COMPUTE = frozenset({"acc parallel", "acc kernels", "acc parallel loop", "acc kernels loop"})
_LOOPS = frozenset({"acc loop", "acc parallel loop", "acc kernels loop"})
# Clauses that XcalableACC §5 leaves out (and OpenACC 2.6 ones), with the directives that
# take them in OpenACC: "not supported yet" there, "not allowed" elsewhere.  None: anywhere
# (XcalableACC's multi-device extension).
_LATER: MappingProxyType[str, frozenset[str] | None] = MappingProxyType({
    "device_type": _COMPUTE | _LOOPS | {"acc update", "acc routine"},
    "no_create": _COMPUTE | {"acc data"},
    "attach": _COMPUTE | {"acc data", "acc enter data"},
    "detach": frozenset({"acc exit data"}),
    "device_resident": frozenset({"acc declare"}),
    "link": frozenset({"acc declare"}),
    "gang": frozenset({"acc routine"}),
    "worker": frozenset({"acc routine"}),
    "vector": frozenset({"acc routine"}),
    "bind": frozenset({"acc routine"}),
    "nohost": frozenset({"acc routine"}),
    "layout": None,
    "on_device": None,
})
# A clause -> those it cannot appear with (OpenACC 2.x, loop construct).
_EXCLUSIVE: MappingProxyType[str, tuple[str, ...]] = MappingProxyType({
    "seq": ("independent", "auto", "gang", "worker", "vector", "tile"),
    "tile": ("collapse", "seq"), "collapse": ("tile",),
    "independent": ("seq", "auto"),
    "auto": ("seq", "independent"),
    "gang": ("seq",), "worker": ("seq",), "vector": ("seq",),
})
_LIST_CLAUSES = ("private", "firstprivate", "use_device")
_SYMBOL_OPS = frozenset({"+", "*", "&", "|", "^", "&&", "||"})
_LEVEL_KEYS: MappingProxyType[str, tuple[str, ...]] = MappingProxyType({
    "gang": ("num", "static", "dim"), "worker": ("num",), "vector": ("length",),
})


class Found:
    """The clauses of one directive, sorted for the builders (local to one parse)."""

    def __init__(self) -> None:
        self.data: list[DataClause] = []
        self.moves: list[UpdateClause] = []
        self.reductions: list[AccReduction] = []
        self.lists: dict[str, list[VarRef]] = {name: [] for name in _LIST_CLAUSES}
        self.single: dict[str, Any] = {}  # the clauses that appear at most once

    def get(self, canon: str) -> Any:
        return self.single.get(canon)

    def check(self, ts: TokenStream, tok: Token, canon: str, word: str, name: str) -> None:
        """A second ``async``, or ``seq`` with ``gang``: an error at the second one."""
        if canon in self.single:
            ts.error(tok, f"duplicate '{word}' clause in '{name}' directive")
        for other in _EXCLUSIVE.get(canon, ()):
            if other in self.single:
                ts.error(tok, f"'{word}' and '{other}' cannot both appear on '{name}'")

    def add(self, canon: str, value: Any) -> None:
        if canon in DATA_KINDS:
            self.data.append(value)
        elif canon in ("host", "device"):
            self.moves.append(value)
        elif canon in self.lists:
            self.lists[canon].extend(value)
        elif canon == "reduction":
            self.reductions.append(value)
        else:
            self.single[canon] = value


# BNF: clauses ::= [ clause [ [,] clause ]... ]
def parse_clauses(ts: TokenStream, name: str, allowed: frozenset[str]) -> Found:
    """The clauses after the directive name ``name``; each must be in ``allowed``."""
    found = Found()
    first = True
    while True:
        if not first and ts.at(","):
            ts.next()
            if ts.peek().kind != "ident":
                ts.error(ts.peek(), f"expected a clause after ',', found {describe(ts.peek())}")
        tok = ts.peek()
        if tok.kind != "ident":
            return found
        word = tok.text.lower()
        canon = SYNONYMS.get(word, word)
        _check_allowed(ts, tok, canon, name, allowed)
        found.check(ts, tok, canon, word, name)
        found.add(canon, _PARSERS[canon](ts, ts.next(), word))
        first = False


def _check_allowed(ts: TokenStream, tok: Token, canon: str, name: str,
                   allowed: frozenset[str]) -> None:
    if canon in allowed:
        return
    word = tok.text.lower()
    if canon in _LATER and (_LATER[canon] is None or name in _LATER[canon]):  # type: ignore[operator]
        if name == "acc routine":
            ts.error(tok, f"'acc routine {word}' is not supported yet (only 'acc routine seq')")
        ts.error(tok, f"'{word}' clause is not supported yet")
    if canon in _PARSERS or canon in _LATER:
        ts.error(tok, f"clause '{word}' is not allowed on '{name}'")
    ts.error(tok, f"unknown clause '{tok.text}' in '{name}' directive")


# ---------------------------------------------------------------- variable lists


# BNF: var-list ::= ( var-ref [, var-ref]... )      var-ref: name or subarray a[start:length]
#      (in data and update clauses the name may be a member path: copy(c.a), global-view §8)
def _var_list(ts: TokenStream, tok: Token, word: str, members: bool = False) -> tuple[VarRef, ...]:
    refs = parse_paren_var_refs(ts, "a variable name", word, members)
    for ref in refs:
        for sub in ref.subs or ():
            if isinstance(sub, SectionTriplet) and sub.step is not None:
                raise XmpError(sub.step.loc, "an OpenACC subarray has no step: write "
                                             "'[start:length]'")
    return refs


def _data_clause(ts: TokenStream, tok: Token, word: str) -> DataClause:
    items = _var_list(ts, tok, word, members=True)
    if word == "deviceptr":
        for ref in items:
            if ref.subs is not None:
                raise XmpError(ref.loc, "'deviceptr' takes pointer names, not subscripts or subarrays")
    return DataClause(SYNONYMS.get(word, word), word, items, ts.loc(tok))  # type: ignore[arg-type]


def _update_clause(ts: TokenStream, tok: Token, word: str) -> UpdateClause:
    direction = "device" if word == "device" else "host"
    return UpdateClause(direction, word, _var_list(ts, tok, word, members=True), ts.loc(tok))


# BNF: reduction ::= reduction ( op : var-ref [, var-ref]... )
# BNF: op ::= + | * | max | min | & | '|' | ^ | && | '||'
def _reduction(ts: TokenStream, tok: Token, word: str) -> AccReduction:
    opener = ts.expect("(", "after 'reduction'")
    op_tok = ts.peek()
    if op_tok.kind == "op" and op_tok.text in _SYMBOL_OPS:
        op = op_tok.text
    elif op_tok.kind == "ident" and op_tok.text.lower() in ("max", "min"):
        op = op_tok.text.lower()
    elif op_tok.kind == "op" and op_tok.text == "-":
        ts.error(op_tok, "'-' is not an OpenACC reduction operator: use '+'")
    else:
        ts.error(op_tok, f"unknown reduction operator {describe(op_tok)}")
    ts.next()
    ts.expect(":", "after the reduction operator")
    if ts.at(")"):
        ts.error(ts.peek(), "empty variable list in 'reduction'")
    variables = [parse_var_ref(ts, "a reduction variable")]
    while ts.accept(","):
        variables.append(parse_var_ref(ts, "a reduction variable"))
    ts.expect_closer(opener)
    return AccReduction(op, tuple(variables), ts.loc(tok))  # type: ignore[arg-type]


# ---------------------------------------------------------------- expressions


# BNF: paren-expr ::= ( int-expr )
def _paren_expr(ts: TokenStream, word: str, what: str) -> Expr:
    opener = ts.expect("(", f"after '{word}'")
    expr = parse_expr(ts, what)
    ts.expect_closer(opener)
    return expr


def _condition(ts: TokenStream, tok: Token, word: str) -> Expr:
    return _paren_expr(ts, word, "a condition")


def _count(ts: TokenStream, tok: Token, word: str) -> Expr:
    return _paren_expr(ts, word, f"the '{word}' value")


# BNF: collapse ::= collapse ( int-constant )
def _collapse(ts: TokenStream, tok: Token, word: str) -> Expr:
    expr = _paren_expr(ts, word, "a loop count")
    value = int_value(expr.text)
    if value is not None and value < 1:
        raise XmpError(expr.loc, f"'collapse' needs a positive constant, found '{expr.text}'")
    return expr


# BNF: tile ::= tile ( size [, size]... )     size ::= int-constant | *
def _tile(ts: TokenStream, tok: Token, word: str) -> tuple[Expr | Star, ...]:
    """The tile sizes, outermost loop first; xmpacc takes them as a hint (the loops are
    one thread space, as with collapse: acc_loopnest._collapse)."""
    opener = ts.expect("(", f"after '{word}'")
    sizes: list[Expr | Star] = []
    while True:
        if at_alone(ts, "*"):
            sizes.append(star(ts))
        else:
            size = parse_expr(ts, "a tile size")
            value = int_value(size.text)
            if value is not None and value < 1:
                raise XmpError(size.loc, f"'tile' needs positive sizes or '*', found '{size.text}'")
            sizes.append(size)
        if not ts.accept(","):
            break
    ts.expect_closer(opener)
    return tuple(sizes)


# BNF: async ::= async [ ( int-expr ) ]
def _async(ts: TokenStream, tok: Token, word: str) -> AsyncClause:
    queue = _paren_expr(ts, word, "an async queue number") if ts.at("(") else None
    return AsyncClause(queue, ts.loc(tok))


# BNF: wait ::= wait [ ( [ devnum : int-expr : ] [ queues : ] int-expr [, int-expr]... ) ]
def _wait(ts: TokenStream, tok: Token, word: str) -> WaitClause:
    devnum, queues = parse_wait_arguments(ts, word) if ts.at("(") else (None, ())
    return WaitClause(queues, ts.loc(tok), devnum)


def parse_wait_arguments(ts: TokenStream, word: str) -> tuple[Expr | None, tuple[Expr, ...]]:
    """``( [devnum: d :] [queues:] n [, m]... )`` of the wait directive and clause (the
    stream is at the ``(``): the device number, if written, and the queues."""
    opener = ts.next()
    devnum = None
    if _keyword(ts, "devnum"):
        devnum = parse_expr(ts, "a device number")
        ts.expect(":", "after the device number of 'devnum:'")
    _keyword(ts, "queues")
    queues = [parse_expr(ts, "an async queue number")]
    while ts.accept(","):
        queues.append(parse_expr(ts, "an async queue number"))
    ts.expect_closer(opener)
    return devnum, tuple(queues)


def _keyword(ts: TokenStream, word: str) -> bool:
    """Take ``word :`` if it comes next."""
    if not (ts.at_word(word) and ts.at(":", ahead=1)):
        return False
    ts.next()
    ts.next()
    return True


# BNF: default ::= default ( none | present )
def _default(ts: TokenStream, tok: Token, word: str) -> DefaultClause:
    opener = ts.expect("(", "after 'default'")
    kind = ts.peek()
    if not ts.at_word("none", "present"):
        ts.error(kind, f"expected 'none' or 'present' in 'default', found {describe(kind)}")
    ts.next()
    ts.expect_closer(opener)
    return DefaultClause(kind.text.lower(), ts.loc(tok))  # type: ignore[arg-type]


# BNF: gang ::= gang [ ( garg [, garg]... ) ]
#      garg ::= [ num : ] int-expr | static : { int-expr | * } | dim : int-const
# BNF: worker ::= worker [ ( [ num : ] int-expr ) ]    vector ::= vector [ ( [ length : ] int-expr ) ]
def _level(ts: TokenStream, tok: Token, word: str) -> LevelClause:
    args: dict[str, Expr | Star] = {}
    if ts.at("("):
        opener = ts.next()
        while True:
            key_tok = ts.peek()
            key = _level_key(ts, word)
            if key in args:
                ts.error(key_tok, f"duplicate '{key}' argument in '{word}'")
            static_star = key == "static" and at_alone(ts, "*")
            args[key] = star(ts) if static_star else parse_expr(ts, f"the '{word}' argument")
            if not ts.accept(","):
                break
        ts.expect_closer(opener)
    num = args.get(_LEVEL_KEYS[word][0])
    assert not isinstance(num, Star)
    return LevelClause(word, num, args.get("static"), ts.loc(tok), _gang_dim(args.get("dim")))  # type: ignore[arg-type]


def _gang_dim(dim: Expr | Star | None) -> int | None:
    """``gang(dim: d)`` (OpenACC 3.0): d is 1, 2 or 3, a constant.  Like the other gang
    arguments it is a hint: xmpacc chooses the launch shape (XcalableACC §2)."""
    if dim is None:
        return None
    assert not isinstance(dim, Star)
    value = int_value(dim.text)
    if value not in (1, 2, 3):
        raise XmpError(dim.loc, f"'dim:' in 'gang' takes the constant 1, 2 or 3, not '{dim.text}'")
    return value


def _level_key(ts: TokenStream, word: str) -> str:
    """Take ``num:`` / ``length:`` / ``static:`` if written; the argument's key."""
    keys = _LEVEL_KEYS[word]
    tok = ts.peek()
    if tok.kind != "ident" or not ts.at(":", ahead=1):
        return keys[0]
    key = tok.text.lower()
    if key not in keys:
        _unknown_argument(ts, tok, word)
    ts.next()
    ts.next()
    return key


def _unknown_argument(ts: TokenStream, tok: Token, word: str) -> NoReturn:
    expected = " or ".join(f"'{k}:'" for k in _LEVEL_KEYS[word])
    ts.error(tok, f"unknown argument '{tok.text}:' in '{word}' (expected {expected})")


def _flag(ts: TokenStream, tok: Token, word: str) -> Any:
    return ts.loc(tok)


_PARSERS: MappingProxyType[str, ClauseParser] = MappingProxyType({
    **{kind: _data_clause for kind in DATA_KINDS},
    "host": _update_clause, "device": _update_clause,
    "private": _var_list, "firstprivate": _var_list, "use_device": _var_list,
    "reduction": _reduction,
    "if": _condition, "async": _async, "wait": _wait, "default": _default,
    "num_gangs": _count, "num_workers": _count, "vector_length": _count, "collapse": _collapse, "tile": _tile,
    "gang": _level, "worker": _level, "vector": _level,
    "seq": _flag, "independent": _flag, "auto": _flag, "finalize": _flag, "if_present": _flag,
})
