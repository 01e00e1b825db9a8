"""OpenACC directives of XcalableACC as frozen value objects: what ``#pragma acc ...`` means.

``openacc.py`` turns the text of one ``#pragma acc`` line into exactly one of the classes
below (``AccDirective``); no later pass reads pragma text.  Every object and every clause
item carries a ``loc``: a directive's is its first name word (``parallel`` of
``#pragma acc parallel loop``), a clause's is its keyword, a list item's is its name.
Expressions stay C text (``ast.Expr``, macros expanded) like in the XMP objects, and lists
of variables are ``ast.VarRef`` (``a``, ``a[i]``, ``a[0:n][:]``): OpenACC's subarray
``[start:length]`` is the array section of global-view §1, so ``SectionTriplet.length`` is
a length.  Keywords are case-insensitive as in the XMP parser (reference §2); names keep
their case.

Directive (XcalableACC.md)              -> object
    data clause...                   §1 -> AccData(data, if_)
    enter data clause...             §1 -> AccEnterData(data, if_, async_, wait)
    exit data clause...              §1 -> AccExitData(data, if_, async_, wait, finalize)
    declare clause...                §1 -> AccDeclare(data)
    update host|self|device(list)... §1 -> AccUpdate(moves, if_, async_, wait, if_present)
    host_data use_device(list)       §1 -> AccHostData(use_device)
    parallel / kernels clause...     §2 -> AccCompute(construct, loop=None, ...)
    parallel loop / kernels loop     §2 -> AccCompute(construct, loop=LoopClauses(...), ...)
    loop clause...                   §2 -> AccLoop(loop=LoopClauses(...))
    wait [(n...)] [async[(n)]]       §3 -> AccWait(queues, async_)
    routine [(name)] seq             §2 -> AccRoutine(name)
    atomic [read|write|update|capture]  -> AccAtomic(kind)  (no word: "update")

Clause                                  -> field
    copy copyin copyout create present delete deviceptr
    pcopy/present_or_copy pcopyin/present_or_copyin pcopyout/present_or_copyout
    pcreate/present_or_create           -> ``data``: DataClause(kind, spelling, items), in
                                           source order; ``kind`` is the long OpenACC name
                                           (pcopy -> "present_or_copy"), ``spelling`` as
                                           written, for messages
    if(cond)                            -> ``if_``: Expr
    async / async(n)                    -> ``async_``: AsyncClause(queue None / Expr)
    wait / wait(n, ...)                 -> ``wait``: WaitClause(queues () / Exprs)
    host(list) self(list) device(list)  -> ``moves``: UpdateClause(direction, spelling, items);
                                           self is host
    if_present, finalize, seq, independent, auto
                                        -> flag fields: the clause's SourceLoc, None if absent
    use_device(list) private(list) firstprivate(list)
                                        -> tuples of VarRef (repeated clauses concatenate)
    reduction(op:list)                  -> ``reductions``: AccReduction(op, variables)
    default(none|present)               -> ``default``: DefaultClause(kind)
    num_gangs(e) num_workers(e) vector_length(e) collapse(n)
                                        -> Expr fields
    gang[(...)] worker[(...)] vector[(...)]
                                        -> LevelClause(level, num, static)

On a combined ``parallel loop`` / ``kernels loop`` the loop's clauses (``collapse``,
``gang``/``worker``/``vector``, ``seq``/``independent``/``auto``, ``private``, ``reduction``)
are in ``AccCompute.loop`` (OpenACC 2.x: private and reduction of a combined construct
act on its loop); the others are on the ``AccCompute``.  ``AccLoop.loop`` and
``AccCompute.loop`` have the same type, so ``d.loop`` reads both.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from xmpacc.diagnostics import SourceLoc
from xmpacc.directives.ast import Expr, Name, Star, VarRef

DataKind = Literal[
    "copy", "copyin", "copyout", "create", "present", "delete", "deviceptr",
    "present_or_copy", "present_or_copyin", "present_or_copyout", "present_or_create",
]
AccReductionOp = Literal["+", "*", "max", "min", "&", "|", "^", "&&", "||"]
Construct = Literal["parallel", "kernels"]
Level = Literal["gang", "worker", "vector"]
AtomicKind = Literal["read", "write", "update", "capture"]

# ---------------------------------------------------------------- clauses


# Frozen dataclasses, one per directive and clause (like ast.py): alike in shape, not in meaning.
@dataclass(frozen=True, slots=True)
class DataClause:
    """``copyin(a[0:n], x)``: ``kind`` normalised (``pcopyin`` -> "present_or_copyin")."""

    kind: DataKind
    spelling: str                # lower case, as written: "pcopyin"
    items: tuple[VarRef, ...]
    loc: SourceLoc


@dataclass(frozen=True, slots=True)
class AsyncClause:
    """``async`` (``queue`` None: OpenACC's acc_async_noval queue) or ``async(n)``."""

    queue: Expr | None
    loc: SourceLoc


@dataclass(frozen=True, slots=True)
class WaitClause:
    """``wait`` (``queues`` empty: every queue) or ``wait(n, m)``; ``devnum`` is the
    device of ``wait(devnum: d : n)`` (OpenACC 2.6)."""

    queues: tuple[Expr, ...]
    loc: SourceLoc
    devnum: Expr | None = None


@dataclass(frozen=True, slots=True)
class UpdateClause:
    """``host(list)``, ``self(list)`` (direction "host") or ``device(list)``."""

    direction: Literal["host", "device"]
    spelling: str
    items: tuple[VarRef, ...]
    loc: SourceLoc


@dataclass(frozen=True, slots=True)
class DefaultClause:
    kind: Literal["none", "present"]
    loc: SourceLoc


@dataclass(frozen=True, slots=True)
class AccReduction:
    """``reduction(op: a, b)``; ``op`` normalised to lower case (``MAX`` -> "max")."""

    op: AccReductionOp
    variables: tuple[VarRef, ...]
    loc: SourceLoc


@dataclass(frozen=True, slots=True)
class LevelClause:
    """``gang``, ``worker``, ``vector`` with their optional argument.

    ``num`` is ``gang(n)``/``gang(num:n)``, ``worker(n)``/``worker(num:n)`` or
    ``vector(n)``/``vector(length:n)``; ``static`` is ``gang(static:e)`` or
    ``gang(static:*)`` (gang only); ``dim`` is ``gang(dim:d)``, d in 1..3.  All are hints
    (XcalableACC §2).
    """

    level: Level
    num: Expr | None
    static: Expr | Star | None
    loc: SourceLoc
    dim: int | None = None


@dataclass(frozen=True, slots=True)
class LoopClauses:
    """The clauses of a ``loop`` construct (alone or in a combined construct).

    ``seq``/``independent``/``auto`` are the clause's location or None; at most one of
    them is set, and ``seq`` never comes with a ``LevelClause``.  ``collapse`` is the
    expression as written (a positive constant by OpenACC's rules; the parser rejects
    a literal < 1).  ``loc`` is the ``loop`` word.
    """

    collapse: Expr | None
    gang: LevelClause | None
    worker: LevelClause | None
    vector: LevelClause | None
    seq: SourceLoc | None
    independent: SourceLoc | None
    auto: SourceLoc | None
    private: tuple[VarRef, ...]
    reductions: tuple[AccReduction, ...]
    loc: SourceLoc
    tile: tuple[Expr | Star, ...] | None = None   # tile(8, *): sizes, outermost loop first


# ---------------------------------------------------------------- data directives (§1)


@dataclass(frozen=True, slots=True)
class AccData:
    """``data clause...`` followed by a structured block."""

    data: tuple[DataClause, ...]
    if_: Expr | None
    loc: SourceLoc


@dataclass(frozen=True, slots=True)
class AccEnterData:
    data: tuple[DataClause, ...]   # copyin, create and their present_or_ forms; never empty
    if_: Expr | None
    async_: AsyncClause | None
    wait: WaitClause | None
    loc: SourceLoc


@dataclass(frozen=True, slots=True)
class AccExitData:
    data: tuple[DataClause, ...]   # copyout and delete; never empty
    if_: Expr | None
    async_: AsyncClause | None
    wait: WaitClause | None
    finalize: SourceLoc | None
    loc: SourceLoc


@dataclass(frozen=True, slots=True)
class AccDeclare:
    """``declare clause...`` at file or block scope (never empty)."""

    data: tuple[DataClause, ...]
    loc: SourceLoc


@dataclass(frozen=True, slots=True)
class AccUpdate:
    moves: tuple[UpdateClause, ...]   # never empty, in source order
    if_: Expr | None
    async_: AsyncClause | None
    wait: WaitClause | None
    if_present: SourceLoc | None
    loc: SourceLoc


@dataclass(frozen=True, slots=True)
class AccHostData:
    """``host_data use_device(list)`` followed by a structured block."""

    use_device: tuple[VarRef, ...]   # never empty
    loc: SourceLoc


# ---------------------------------------------------------------- compute directives (§2)


@dataclass(frozen=True, slots=True)
class AccCompute:
    """``parallel``, ``kernels`` (``loop`` None, a structured block follows) or the combined
    ``parallel loop``, ``kernels loop`` (``loop`` set, a for-loop nest follows).

    ``private``/``firstprivate``/``reductions`` here are the construct's own; ``kernels``
    has none (OpenACC 2.x), and a combined construct puts private and reduction in
    ``loop``.
    """

    construct: Construct
    loop: LoopClauses | None
    data: tuple[DataClause, ...]
    if_: Expr | None
    async_: AsyncClause | None
    wait: WaitClause | None
    num_gangs: Expr | None
    num_workers: Expr | None
    vector_length: Expr | None
    private: tuple[VarRef, ...]
    firstprivate: tuple[VarRef, ...]
    reductions: tuple[AccReduction, ...]
    default: DefaultClause | None
    loc: SourceLoc


@dataclass(frozen=True, slots=True)
class AccLoop:
    """``loop clause...`` inside a compute construct, or with an XMP ``loop`` (§2)."""

    loop: LoopClauses
    loc: SourceLoc


@dataclass(frozen=True, slots=True)
class AccRoutine:
    """``routine seq`` / ``routine(name) seq``: a device function (``name`` None: the
    function whose definition or prototype follows)."""

    name: Name | None
    loc: SourceLoc


@dataclass(frozen=True, slots=True)
class AccAtomic:
    kind: AtomicKind
    loc: SourceLoc


# ---------------------------------------------------------------- asynchrony (§3)


@dataclass(frozen=True, slots=True)
class AccWait:
    """``wait`` (every queue) or ``wait(n, m)``, optionally ``async(q)``; ``devnum`` as in
    WaitClause."""

    queues: tuple[Expr, ...]
    async_: AsyncClause | None
    loc: SourceLoc
    devnum: Expr | None = None


AccDirective = (
    AccData | AccEnterData | AccExitData | AccDeclare | AccUpdate | AccHostData
    | AccCompute | AccLoop | AccRoutine | AccAtomic | AccWait
)

_NAMES: dict[type, str] = {
    AccData: "data", AccEnterData: "enter data", AccExitData: "exit data", AccDeclare: "declare",
    AccUpdate: "update", AccHostData: "host_data", AccLoop: "loop", AccRoutine: "routine",
    AccAtomic: "atomic", AccWait: "wait",
}


def directive_name(d: AccDirective) -> str:
    """How messages name ``d``: ``acc parallel loop``, ``acc enter data`` ..."""
    if isinstance(d, AccCompute):
        return f"acc {d.construct}{' loop' if d.loop is not None else ''}"
    return f"acc {_NAMES[type(d)]}"


def loop_clauses(d: AccDirective) -> LoopClauses | None:
    """The loop part of ``acc loop`` and of the combined constructs, else None."""
    return d.loop if isinstance(d, (AccLoop, AccCompute)) else None
