"""OpenACC directive parser (test layer 1): tables of good and bad ``#pragma acc`` texts.

Good texts are compared with the expected objects after every ``SourceLoc`` has been
replaced by ``AT`` (so that a flag clause, whose value is its location, still shows
whether it was written); bad texts carry an ``@`` just before the token the error must
point at (removed before parsing).  The text is placed as if it followed
``#pragma acc `` on line 1, so its first character is in column 13.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import pytest

from xmpacc.diagnostics import SourceLoc, XmpError
from xmpacc.directives import ast as A
from xmpacc.directives import openacc_ast as O
from xmpacc.directives.openacc import ALLOWED, parse_acc_directive
from xmpacc.directives.openacc_clauses import _PARSERS, SYNONYMS

COL0 = 13  # len("#pragma acc ") + 1
AT: Any = "@"  # stands for "some location" in expected objects


def locs_for(text: str) -> list[SourceLoc]:
    return [SourceLoc("t.c", 1, COL0 + k) for k in range(len(text) + 1)]


def parse(text: str) -> O.AccDirective:
    return parse_acc_directive(text, locs_for(text))


def strip(obj: Any) -> Any:
    if isinstance(obj, SourceLoc):
        return AT
    if isinstance(obj, tuple | list):
        return type(obj)(strip(x) for x in obj)
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return type(obj)(**{f.name: strip(getattr(obj, f.name)) for f in dataclasses.fields(obj)})
    return obj


# ---------------------------------------------------------------- builders (loc = AT)
def E(text: str) -> A.Expr:
    return A.Expr(text, AT)


def V(name: str, *subs: Any) -> A.VarRef:
    return A.VarRef(A.Name(name, AT), tuple(subs) if subs else None, AT)


def S(base: str | None, length: str | None) -> A.SectionTriplet:
    return A.SectionTriplet(None if base is None else E(base), None if length is None else E(length), None,
                            AT)


def DC(kind: str, *items: A.VarRef, spelling: str | None = None) -> O.DataClause:
    return O.DataClause(kind, spelling or kind, items, AT)  # type: ignore[arg-type]


def RED(op: str, *names: str) -> O.AccReduction:
    return O.AccReduction(op, tuple(V(n) for n in names), AT)  # type: ignore[arg-type]


def LV(level: str, num: str | None = None, static: Any = None, dim: int | None = None) -> O.LevelClause:
    return O.LevelClause(level, None if num is None else E(num), static, AT, dim)  # type: ignore[arg-type]


def LOOPC(collapse: str | None = None, gang: Any = None, worker: Any = None, vector: Any = None,
          seq: Any = None, independent: Any = None, auto: Any = None, private: tuple = (),
          reductions: tuple = (), tile: tuple | None = None) -> O.LoopClauses:
    return O.LoopClauses(None if collapse is None else E(collapse), gang, worker, vector, seq,
                         independent, auto, private, reductions, AT, tile)


def COMPUTE(construct: str, loop: O.LoopClauses | None = None, data: tuple = (), if_: str | None = None,
            async_: Any = None, wait: Any = None, num_gangs: str | None = None,
            num_workers: str | None = None, vector_length: str | None = None, private: tuple = (),
            firstprivate: tuple = (), reductions: tuple = (), default: str | None = None) -> O.AccCompute:
    e = (lambda t: None if t is None else E(t))
    return O.AccCompute(construct, loop, data, e(if_), async_, wait, e(num_gangs), e(num_workers),  # type: ignore[arg-type]
                        e(vector_length), private, firstprivate, reductions,
                        None if default is None else O.DefaultClause(default, AT), AT)  # type: ignore[arg-type]


def ASYNC(queue: str | None = None) -> O.AsyncClause:
    return O.AsyncClause(None if queue is None else E(queue), AT)


def WAIT(*queues: str) -> O.WaitClause:
    return O.WaitClause(tuple(E(q) for q in queues), AT)


def UPD(direction: str, *items: A.VarRef, spelling: str | None = None) -> O.UpdateClause:
    return O.UpdateClause(direction, spelling or direction, items, AT)  # type: ignore[arg-type]


GOOD: list[tuple[str, O.AccDirective]] = [
    # ------------------------------------------------------------ data (§1)
    ("data copy(a)", O.AccData((DC("copy", V("a")),), None, AT)),
    ("data", O.AccData((), None, AT)),
    ("DATA COPY(a) IF(n)", O.AccData((DC("copy", V("a")),), E("n"), AT)),
    ("data copyin(a[0:n], x) copyout(b[:n]) create(c[2:]) present(d) deviceptr(p)",
     O.AccData((DC("copyin", V("a", S("0", "n")), V("x")), DC("copyout", V("b", S(None, "n"))),
                DC("create", V("c", S("2", None))), DC("present", V("d")), DC("deviceptr", V("p"))),
               None, AT)),
    ("data copy(u[0:N][0:M], v[i][:])",
     O.AccData((DC("copy", V("u", S("0", "N"), S("0", "M")), V("v", E("i"), S(None, None))),), None, AT)),
    ("data pcopy(a) present_or_copy(b) pcopyin(c) present_or_copyin(d)",
     O.AccData((DC("present_or_copy", V("a"), spelling="pcopy"), DC("present_or_copy", V("b")),
                DC("present_or_copyin", V("c"), spelling="pcopyin"), DC("present_or_copyin", V("d"))),
               None, AT)),
    ("data pcopyout(e) present_or_copyout(f) pcreate(g) present_or_create(h) if(n > 10 && ok)",
     O.AccData((DC("present_or_copyout", V("e"), spelling="pcopyout"), DC("present_or_copyout", V("f")),
                DC("present_or_create", V("g"), spelling="pcreate"), DC("present_or_create", V("h"))),
               E("n > 10 && ok"), AT)),
    ("data copy(a), copyin(b) ,create(c)",
     O.AccData((DC("copy", V("a")), DC("copyin", V("b")), DC("create", V("c"))), None, AT)),
    # ------------------------------------------------------------ enter / exit data
    ("enter data copyin(a[0:n]) create(b) async(1) wait(2, 3) if(c)",
     O.AccEnterData((DC("copyin", V("a", S("0", "n"))), DC("create", V("b"))), E("c"), ASYNC("1"),
                    WAIT("2", "3"), AT)),
    ("ENTER DATA pcopyin(a) pcreate(b) async",
     O.AccEnterData((DC("present_or_copyin", V("a"), spelling="pcopyin"),
                     DC("present_or_create", V("b"), spelling="pcreate")), None, ASYNC(), None, AT)),
    ("enter data present_or_copyin(a) present_or_create(b) wait",
     O.AccEnterData((DC("present_or_copyin", V("a")), DC("present_or_create", V("b"))), None, None,
                    WAIT(), AT)),
    ("exit data copyout(a[0:n]) delete(b) finalize async wait(q) if(c)",
     O.AccExitData((DC("copyout", V("a", S("0", "n"))), DC("delete", V("b"))), E("c"), ASYNC(), WAIT("q"),
                   AT, AT)),
    ("exit data delete(a)", O.AccExitData((DC("delete", V("a")),), None, None, None, None, AT)),
    # ------------------------------------------------------------ declare
    ("declare create(x) copyin(a) present(p) deviceptr(q) copy(r) copyout(s)",
     O.AccDeclare((DC("create", V("x")), DC("copyin", V("a")), DC("present", V("p")),
                   DC("deviceptr", V("q")), DC("copy", V("r")), DC("copyout", V("s"))), AT)),
    ("declare pcopy(a) pcreate(b[0:N])",
     O.AccDeclare((DC("present_or_copy", V("a"), spelling="pcopy"),
                   DC("present_or_create", V("b", S("0", "N")), spelling="pcreate")), AT)),
    # ------------------------------------------------------------ update
    ("update host(a[0:n]) self(b) device(c) if(n) async(q) wait if_present",
     O.AccUpdate((UPD("host", V("a", S("0", "n"))), UPD("host", V("b"), spelling="self"),
                  UPD("device", V("c"))), E("n"), ASYNC("q"), WAIT(), AT, AT)),
    ("update device(a, b)", O.AccUpdate((UPD("device", V("a"), V("b")),), None, None, None, None, AT)),
    # aligned structure members (global-view §8) in data and update clauses
    ("data copy(c.a) copyin(p->a[0:n], x)",
     O.AccData((DC("copy", V("c.a")), DC("copyin", V("p->a", S("0", "n")), V("x"))), None, AT)),
    ("update host(c.a[2:3]) device(p -> a)",
     O.AccUpdate((UPD("host", V("c.a", S("2", "3"))), UPD("device", V("p->a"))), None, None, None, None, AT)),
    ("UPDATE SELF(a)", O.AccUpdate((UPD("host", V("a"), spelling="self"),), None, None, None, None, AT)),
    # ------------------------------------------------------------ host_data
    ("host_data use_device(a, b) use_device(c)", O.AccHostData((V("a"), V("b"), V("c")), AT)),
    # ------------------------------------------------------------ parallel, kernels (§2)
    ("parallel", COMPUTE("parallel")),
    ("kernels", COMPUTE("kernels")),
    ("parallel copy(a) num_gangs(G) num_workers(4) vector_length(VL) private(x) firstprivate(y) "
     "reduction(+:s) default(none) async(1) wait(1) if(c)",
     COMPUTE("parallel", data=(DC("copy", V("a")),), if_="c", async_=ASYNC("1"), wait=WAIT("1"),
             num_gangs="G", num_workers="4", vector_length="VL", private=(V("x"),),
             firstprivate=(V("y"),), reductions=(RED("+", "s"),), default="none")),
    ("kernels present(a) default(present) num_gangs(2) async",
     COMPUTE("kernels", data=(DC("present", V("a")),), async_=ASYNC(), num_gangs="2", default="present")),
    ("parallel private(x) private(y) reduction(+:s) reduction(max:m)",
     COMPUTE("parallel", private=(V("x"), V("y")), reductions=(RED("+", "s"), RED("max", "m")))),
    # ------------------------------------------------------------ combined constructs
    ("parallel loop", COMPUTE("parallel", LOOPC())),
    ("parallel loop collapse(2) gang worker vector reduction(max:m) private(t) firstprivate(u) copyin(a)",
     COMPUTE("parallel", LOOPC("2", LV("gang"), LV("worker"), LV("vector"), private=(V("t"),),
                               reductions=(RED("max", "m"),)),
             data=(DC("copyin", V("a")),), firstprivate=(V("u"),))),
    ("parallel loop seq vector_length(VL)", COMPUTE("parallel", LOOPC(seq=AT), vector_length="VL")),
    ("parallel loop independent", COMPUTE("parallel", LOOPC(independent=AT))),
    ("PARALLEL LOOP AUTO", COMPUTE("parallel", LOOPC(auto=AT))),
    ("kernels loop gang(32) vector(128) independent reduction(&&:f) pcopy(a)",
     COMPUTE("kernels", LOOPC(gang=LV("gang", "32"), vector=LV("vector", "128"), independent=AT,
                              reductions=(RED("&&", "f"),)),
             data=(DC("present_or_copy", V("a"), spelling="pcopy"),))),
    ("parallel loop gang, vector, copy(a)",
     COMPUTE("parallel", LOOPC(gang=LV("gang"), vector=LV("vector")), data=(DC("copy", V("a")),))),
    # ------------------------------------------------------------ loop
    ("loop", O.AccLoop(LOOPC(), AT)),
    ("loop gang(num: G, static: *) worker(num: W) vector(length: VL)",
     O.AccLoop(LOOPC(gang=LV("gang", "G", A.Star(AT)), worker=LV("worker", "W"),
                     vector=LV("vector", "VL")), AT)),
    ("loop gang(static: 4) worker(2)",
     O.AccLoop(LOOPC(gang=LV("gang", None, E("4")), worker=LV("worker", "2")), AT)),
    ("loop gang(G, static: S)", O.AccLoop(LOOPC(gang=LV("gang", "G", E("S"))), AT)),
    ("loop gang(dim: 2)", O.AccLoop(LOOPC(gang=LV("gang", dim=2)), AT)),
    ("loop gang(num: G, dim: 3)", O.AccLoop(LOOPC(gang=LV("gang", "G", dim=3)), AT)),
    ("loop vector reduction(+:s) private(x, y[0:4])",
     O.AccLoop(LOOPC(vector=LV("vector"), private=(V("x"), V("y", S("0", "4"))),
                     reductions=(RED("+", "s"),)), AT)),
    ("loop reduction(*:a) reduction(&:b) reduction(|:c) reduction(^:d) reduction(||:e) reduction(MIN:f)",
     O.AccLoop(LOOPC(reductions=(RED("*", "a"), RED("&", "b"), RED("|", "c"), RED("^", "d"),
                                 RED("||", "e"), RED("min", "f"))), AT)),
    ("loop collapse(3) seq", O.AccLoop(LOOPC("3", seq=AT), AT)),
    ("loop tile(8, *) independent", O.AccLoop(LOOPC(tile=(E("8"), A.Star(AT)), independent=AT), AT)),
    ("parallel loop tile(T) gang", COMPUTE("parallel", LOOPC(tile=(E("T"),), gang=LV("gang")))),
    ("loop collapse(N) independent", O.AccLoop(LOOPC("N", independent=AT), AT)),
    ("loop reduction(+:a[0:n], b)", O.AccLoop(LOOPC(reductions=(
        O.AccReduction("+", (V("a", S("0", "n")), V("b")), AT),)), AT)),
    # ------------------------------------------------------------ wait (§3)
    ("wait", O.AccWait((), None, AT)),
    ("wait(1, q+1)", O.AccWait((E("1"), E("q+1")), None, AT)),
    ("wait async(2)", O.AccWait((), ASYNC("2"), AT)),
    ("wait (1) async", O.AccWait((E("1"),), ASYNC(), AT)),
    ("wait(queues: 1, 2)", O.AccWait((E("1"), E("2")), None, AT)),
    ("wait(devnum: d + 1 : 3)", O.AccWait((E("3"),), None, AT, E("d + 1"))),
    ("wait(devnum: 0 : queues: q)", O.AccWait((E("q"),), None, AT, E("0"))),
    # ------------------------------------------------------------ routine, atomic
    ("routine seq", O.AccRoutine(None, AT)),
    ("routine(f) seq", O.AccRoutine(A.Name("f", AT), AT)),
    ("ROUTINE SEQ", O.AccRoutine(None, AT)),
    ("atomic", O.AccAtomic("update", AT)),
    ("atomic read", O.AccAtomic("read", AT)),
    ("atomic write", O.AccAtomic("write", AT)),
    ("atomic update", O.AccAtomic("update", AT)),
    ("ATOMIC Capture", O.AccAtomic("capture", AT)),
    # ------------------------------------------------------------ lexing
    ("parallel\tloop  /* comment */ gang", COMPUTE("parallel", LOOPC(gang=LV("gang")))),
    ("update device( a [ 0 : n ] )", O.AccUpdate((UPD("device", V("a", S("0", "n"))),), None, None, None,
                                                  None, AT)),
]


@pytest.mark.parametrize(("text", "expected"), GOOD, ids=[t for t, _ in GOOD])
def test_good(text: str, expected: O.AccDirective) -> None:
    assert strip(parse(text)) == expected


def _all_locs(obj: Any) -> list[SourceLoc]:
    if isinstance(obj, SourceLoc):
        return [obj]
    if isinstance(obj, tuple | list):
        return [loc for x in obj for loc in _all_locs(x)]
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return [loc for f in dataclasses.fields(obj) for loc in _all_locs(getattr(obj, f.name))]
    return []


@pytest.mark.parametrize("text", [t for t, _ in GOOD])
def test_every_loc_points_at_a_token(text: str) -> None:
    """Every loc comes from ``locs`` and names a character of a token, not a blank."""
    for loc in _all_locs(parse(text)):
        k = loc.col - COL0
        assert loc.file == "t.c" and loc.line == 1
        assert 0 <= k < len(text) and not text[k].isspace(), (loc, text)


def test_every_directive_and_clause_has_a_good_text() -> None:
    """The table covers every directive of ``ALLOWED`` and every clause spelling."""
    texts = [" ".join(t.lower().split()) for t, _ in GOOD]
    words = {w.lower() for t, _ in GOOD for w in re.findall(r"[A-Za-z_]+", t)}
    assert all(any(t.startswith(name.removeprefix("acc ")) for t in texts) for name in ALLOWED)
    assert set(_PARSERS) | set(SYNONYMS) - {"dtype"} <= words


def test_locs_of_pieces() -> None:
    text = "parallel loop gang reduction(+:s) copyin(a[0:n]) async(q) wait(1) if(c) default(none)"
    d = parse(text)
    assert isinstance(d, O.AccCompute) and d.loop is not None
    col = {w: COL0 + text.index(w) for w in ("parallel", "loop", "gang", "reduction", "s)", "copyin",
                                             "a[", "0:", "n]", "async", "q)", "wait", "1)", "c)", "default")}
    assert d.loc.col == col["parallel"] and d.loop.loc.col == col["loop"]
    assert d.loop.gang is not None and d.loop.gang.loc.col == col["gang"]
    assert d.loop.reductions[0].loc.col == col["reduction"]
    assert d.loop.reductions[0].variables[0].loc.col == col["s)"]
    clause = d.data[0]
    assert clause.loc.col == col["copyin"] and clause.items[0].loc.col == col["a["]
    sub = clause.items[0].subs[0]  # type: ignore[index]
    assert isinstance(sub, A.SectionTriplet) and sub.length is not None
    assert sub.loc.col == col["0:"] and sub.length.loc.col == col["n]"]
    assert d.async_ is not None and d.async_.loc.col == col["async"]
    assert d.async_.queue is not None and d.async_.queue.loc.col == col["q)"]
    assert d.wait is not None and d.wait.loc.col == col["wait"] and d.wait.queues[0].loc.col == col["1)"]
    assert d.if_ is not None and d.if_.loc.col == col["c)"]
    assert d.default is not None and d.default.loc.col == col["default"]


def test_flag_clauses_are_their_locations() -> None:
    text = "exit data delete(a) finalize"
    d = parse(text)
    assert isinstance(d, O.AccExitData) and d.finalize == SourceLoc("t.c", 1, COL0 + text.index("finalize"))
    loop = parse("loop seq")
    assert isinstance(loop, O.AccLoop) and loop.loop.seq and not loop.loop.independent


def test_locs_follow_the_locs_argument() -> None:
    """Locations come from ``locs`` (e.g. after macro expansion), not from counting."""
    text = "update device(a)"
    locs = [SourceLoc("m.c", 7, 100 + 2 * k) for k in range(len(text) + 1)]
    d = parse_acc_directive(text, locs)
    assert isinstance(d, O.AccUpdate)
    assert d.loc == SourceLoc("m.c", 7, 100) and d.moves[0].items[0].loc == SourceLoc("m.c", 7, 128)


@pytest.mark.parametrize(("text", "name"), [
    ("parallel", "acc parallel"), ("kernels loop", "acc kernels loop"),
    ("enter data copyin(a)", "acc enter data"),
    ("exit data delete(a)", "acc exit data"), ("host_data use_device(a)", "acc host_data"),
    ("wait", "acc wait"), ("loop", "acc loop"), ("atomic", "acc atomic"), ("routine seq", "acc routine"),
    ("declare create(a)", "acc declare"),
])
def test_directive_name(text: str, name: str) -> None:
    assert O.directive_name(parse(text)) == name


def test_loop_clauses_reads_loop_and_combined_constructs() -> None:
    assert O.loop_clauses(parse("loop seq")) is not None
    assert O.loop_clauses(parse("parallel loop")) is not None
    assert O.loop_clauses(parse("parallel")) is None and O.loop_clauses(parse("wait")) is None


def test_combined_private_and_reduction_act_on_the_loop() -> None:
    d = parse("parallel loop private(x) reduction(+:s) firstprivate(y)")
    assert isinstance(d, O.AccCompute) and d.loop is not None
    assert d.private == () and d.reductions == () and strip(d.firstprivate) == (V("y"),)
    assert strip(d.loop.private) == (V("x"),) and strip(d.loop.reductions) == (RED("+", "s"),)


# ---------------------------------------------------------------- errors

# (text with '@' before the offending token, message fragment)
BAD: list[tuple[str, str]] = [
    # directive names (XcalableACC §5)
    ("@", "expected an OpenACC directive name, found end of directive"),
    ("@(", "expected an OpenACC directive name, found '('"),
    ("@foo", "unknown OpenACC directive 'foo'"),
    ("@Reflect (a)", "unknown OpenACC directive 'Reflect' (XMP directives are written '#pragma xmp ...')"),
    ("@cache(a[0:n])", "'acc cache' is not supported yet"),
    ("@serial", "'acc serial' is not supported yet"),
    ("@SERIAL loop", "'acc serial' is not supported yet"),
    ("@set device_num(0)", "'acc set' is not supported yet"),
    ("@init", "'acc init' is not supported yet"),
    ("@shutdown", "'acc shutdown' is not supported yet"),
    ("@device d = nvidia(0:3)", "'acc device' is not supported yet"),
    ("enter @copyin(a)", "expected 'data' after 'enter', found 'copyin'"),
    ("exit@", "expected 'data' after 'exit', found end of directive"),
    ("enter data@", "'acc enter data' needs a 'copyin' or 'create' clause"),
    ("enter data async@", "'acc enter data' needs a 'copyin' or 'create' clause"),
    ("exit data if(c)@", "'acc exit data' needs a 'copyout' or 'delete' clause"),
    ("declare@", "'acc declare' needs a data clause"),
    ("update@", "'acc update' needs a 'host', 'self' or 'device' clause"),
    ("update async if_present@", "'acc update' needs a 'host', 'self' or 'device' clause"),
    ("host_data@", "'acc host_data' needs a 'use_device' clause"),
    ("routine@", "'acc routine' needs 'seq' (gang, worker and vector routines are not supported yet)"),
    ("routine(f)@", "'acc routine' needs 'seq'"),
    ("routine @gang", "'acc routine gang' is not supported yet (only 'acc routine seq')"),
    ("routine @worker", "'acc routine worker' is not supported yet"),
    ("routine @vector", "'acc routine vector' is not supported yet"),
    ("routine seq @bind(g)", "'acc routine bind' is not supported yet"),
    ("routine seq @nohost", "'acc routine nohost' is not supported yet"),
    ("routine seq @device_type(nvidia)", "'acc routine device_type' is not supported yet"),
    ("routine(@1) seq", "expected a function name, found '1'"),
    ("routine(f @seq", "expected ')', found 'seq'"),
    ("routine seq @seq", "duplicate 'seq' clause in 'acc routine' directive"),
    ("atomic @foo",
     "unknown clause 'foo' in 'acc atomic' directive (expected read, write, update or capture)"),
    ("atomic read @write", "extra tokens after 'acc atomic' directive: 'write'"),
    ("atomic @(x)", "extra tokens after 'acc atomic' directive: '('"),
    ("wait(@)", "expected an async queue number, found ')'"),
    ("wait(1,@)", "expected an async queue number, found ')'"),
    ("wait@(1", "unbalanced '(': missing ')'"),
    ("wait(1) @copy(a)", "clause 'copy' is not allowed on 'acc wait'"),
    ("wait(queues: @)", "expected an async queue number, found ')'"),
    ("wait(devnum: 0 @1)", "unexpected '1' after '0' in expression"),
    ("wait(devnum: 0@)", "expected ':' after the device number of 'devnum:', found ')'"),
    ("wait(devnum: 0 : @)", "expected an async queue number, found ')'"),
    ("wait(devnum: @)", "expected a device number, found ')'"),
    ("wait(1) @(2)", "extra tokens after 'acc wait' directive: '('"),
    ("wait async @async", "duplicate 'async' clause in 'acc wait' directive"),
    # a clause on the wrong directive (OpenACC 2.x)
    ("update @copy(a)", "clause 'copy' is not allowed on 'acc update'"),
    ("update device(a) @default(none)", "clause 'default' is not allowed on 'acc update'"),
    ("data @delete(a)", "clause 'delete' is not allowed on 'acc data'"),
    ("data copy(a) @async", "clause 'async' is not allowed on 'acc data'"),
    ("data copy(a) @wait", "clause 'wait' is not allowed on 'acc data'"),
    ("enter data @copyout(a)", "clause 'copyout' is not allowed on 'acc enter data'"),
    ("enter data @pcopy(a)", "clause 'pcopy' is not allowed on 'acc enter data'"),
    ("exit data @copyin(a)", "clause 'copyin' is not allowed on 'acc exit data'"),
    ("exit data @present(a)", "clause 'present' is not allowed on 'acc exit data'"),
    ("declare @if(c)", "clause 'if' is not allowed on 'acc declare'"),
    ("declare @delete(a)", "clause 'delete' is not allowed on 'acc declare'"),
    ("host_data @copy(a)", "clause 'copy' is not allowed on 'acc host_data'"),
    ("kernels @private(x)", "clause 'private' is not allowed on 'acc kernels'"),
    ("kernels @reduction(+:s)", "clause 'reduction' is not allowed on 'acc kernels'"),
    ("kernels loop @firstprivate(x)", "clause 'firstprivate' is not allowed on 'acc kernels loop'"),
    ("parallel @collapse(2)", "clause 'collapse' is not allowed on 'acc parallel'"),
    ("parallel @gang", "clause 'gang' is not allowed on 'acc parallel'"),
    ("parallel @self(a)", "clause 'self' is not allowed on 'acc parallel'"),
    ("parallel @host(a)", "clause 'host' is not allowed on 'acc parallel'"),
    ("parallel loop @delete(a)", "clause 'delete' is not allowed on 'acc parallel loop'"),
    ("parallel loop @use_device(a)", "clause 'use_device' is not allowed on 'acc parallel loop'"),
    ("loop @copy(a)", "clause 'copy' is not allowed on 'acc loop'"),
    ("loop @num_gangs(4)", "clause 'num_gangs' is not allowed on 'acc loop'"),
    ("loop @vector_length(4)", "clause 'vector_length' is not allowed on 'acc loop'"),
    ("loop @firstprivate(x)", "clause 'firstprivate' is not allowed on 'acc loop'"),
    ("loop @finalize", "clause 'finalize' is not allowed on 'acc loop'"),
    ("loop @if_present", "clause 'if_present' is not allowed on 'acc loop'"),
    ("update device(a) @tile(2)", "clause 'tile' is not allowed on 'acc update'"),
    ("data @link(a)", "clause 'link' is not allowed on 'acc data'"),
    # unknown clauses
    ("parallel @foo", "unknown clause 'foo' in 'acc parallel' directive"),
    ("loop @Foo(1)", "unknown clause 'Foo' in 'acc loop' directive"),
    ("parallel loop @shared(x)", "unknown clause 'shared' in 'acc parallel loop' directive"),
    # clauses XcalableACC §5 leaves out, where OpenACC has them
    ("loop tile(@0)", "'tile' needs positive sizes or '*', found '0'"),
    ("loop tile(2, @)", "expected a tile size, found ')'"),
    ("loop tile(2) @collapse(2)", "'collapse' and 'tile' cannot both appear on 'acc loop'"),
    ("loop tile(2) @seq", "'seq' and 'tile' cannot both appear on 'acc loop'"),
    ("parallel @device_type(nvidia)", "'device_type' clause is not supported yet"),
    ("loop @dtype(*)", "'dtype' clause is not supported yet"),
    ("update device(a) @device_type(*)", "'device_type' clause is not supported yet"),
    ("data @no_create(a)", "'no_create' clause is not supported yet"),
    ("enter data @attach(p)", "'attach' clause is not supported yet"),
    ("exit data @detach(p)", "'detach' clause is not supported yet"),
    ("declare @device_resident(a)", "'device_resident' clause is not supported yet"),
    ("declare @link(a)", "'link' clause is not supported yet"),
    ("parallel loop @on_device(d)", "'on_device' clause is not supported yet"),
    ("declare @layout(a[block])", "'layout' clause is not supported yet"),
    # repeated and exclusive clauses
    ("update device(a) async @async(1)", "duplicate 'async' clause in 'acc update' directive"),
    ("update device(a) if_present @if_present", "duplicate 'if_present' clause"),
    ("parallel if(a) @IF(b)", "duplicate 'if' clause in 'acc parallel' directive"),
    ("parallel num_gangs(1) @num_gangs(2)", "duplicate 'num_gangs' clause"),
    ("parallel wait @wait(1)", "duplicate 'wait' clause"),
    ("loop collapse(2) @collapse(3)", "duplicate 'collapse' clause in 'acc loop' directive"),
    ("loop gang @gang", "duplicate 'gang' clause"),
    ("parallel default(none) @default(present)", "duplicate 'default' clause"),
    ("exit data delete(a) finalize @finalize", "duplicate 'finalize' clause"),
    ("loop seq @gang", "'gang' and 'seq' cannot both appear on 'acc loop'"),
    ("loop vector @seq", "'seq' and 'vector' cannot both appear on 'acc loop'"),
    ("loop independent @auto", "'auto' and 'independent' cannot both appear"),
    ("parallel loop auto @seq", "'seq' and 'auto' cannot both appear on 'acc parallel loop'"),
    ("kernels loop seq @independent", "'independent' and 'seq' cannot both appear"),
    # variable lists and subarrays
    ("data copy@", "expected '(' after 'copy', found end of directive"),
    ("data copy @a", "expected '(' after 'copy', found 'a'"),
    ("data copy(@)", "empty name list in 'copy'"),
    ("data pcopy(@)", "empty name list in 'pcopy'"),
    ("data copy(a, @)", "expected a variable name, found ')'"),
    ("data copy(@*p)", "expected a variable name, found '*'"),
    ("data copy(a[0:n:@2])", "an OpenACC subarray has no step: write '[start:length]'"),
    ("data copy(a[@])", "expected a subscript or a triplet after '['"),
    ("data copy(a[0:n])@)", "unbalanced ')'"),
    ("data copy@(a", "unbalanced '(': missing ')'"),
    ("data copy(a @b)", "expected ')', found 'b'"),
    ("data deviceptr(@p[0:n])", "'deviceptr' takes pointer names, not subscripts or subarrays"),
    ("update host(a) device@", "expected '(' after 'device', found end of directive"),
    ("update self(@)", "empty name list in 'self'"),
    ("host_data use_device(@)", "empty name list in 'use_device'"),
    ("parallel private(@)", "empty name list in 'private'"),
    ("parallel firstprivate(a @1)", "expected ')', found '1'"),
    ("parallel private(c@.a)", "expected ')', found '.'"),
    ("data copy(c.@)", "expected a member name after '.', found ')'"),
    # expressions
    ("parallel if@", "expected '(' after 'if', found end of directive"),
    ("parallel if(@)", "expected a condition, found ')'"),
    ("parallel if(a @b)", "unexpected 'b' after 'a' in expression"),
    ("parallel num_gangs(@)", "expected the 'num_gangs' value, found ')'"),
    ("parallel num_workers@", "expected '(' after 'num_workers'"),
    ("parallel vector_length(128 @256)", "unexpected '256' after '128'"),
    ("parallel vector_length(1@,2)", "expected ')', found ','"),
    ("loop collapse(@0)", "'collapse' needs a positive constant, found '0'"),
    ("loop collapse(@-1)", "'collapse' needs a positive constant, found '-1'"),
    ("loop collapse@", "expected '(' after 'collapse'"),
    ("loop collapse(@)", "expected a loop count, found ')'"),
    ("parallel default(@shared)", "expected 'none' or 'present' in 'default', found 'shared'"),
    ("parallel default@", "expected '(' after 'default'"),
    ("parallel default(none @present)", "expected ')', found 'present'"),
    ("parallel async(@)", "expected an async queue number, found ')'"),
    ("parallel wait(@)", "expected an async queue number, found ')'"),
    # reductions
    ("parallel reduction(@-:s)", "'-' is not an OpenACC reduction operator: use '+'"),
    ("parallel reduction(@sum:s)", "unknown reduction operator 'sum'"),
    ("parallel reduction(@firstmax:s)", "unknown reduction operator 'firstmax'"),
    ("loop reduction(@:s)", "unknown reduction operator ':'"),
    ("parallel reduction(+ @s)", "expected ':' after the reduction operator, found 's'"),
    ("parallel reduction(+:@)", "empty variable list in 'reduction'"),
    ("parallel reduction@", "expected '(' after 'reduction'"),
    ("loop reduction(+:s,@)", "expected a reduction variable, found ')'"),
    # gang, worker, vector
    ("loop gang(dim: @4)", "'dim:' in 'gang' takes the constant 1, 2 or 3, not '4'"),
    ("loop gang(dim: @d)", "'dim:' in 'gang' takes the constant 1, 2 or 3, not 'd'"),
    ("loop gang(num: 2, @num: 3)", "duplicate 'num' argument in 'gang'"),
    ("loop gang(4, @num: 3)", "duplicate 'num' argument in 'gang'"),
    ("loop gang(static: *, @static: 2)", "duplicate 'static' argument in 'gang'"),
    ("loop worker(@length: 3)", "unknown argument 'length:' in 'worker' (expected 'num:')"),
    ("loop vector(@num: 3)", "unknown argument 'num:' in 'vector' (expected 'length:')"),
    ("loop gang(@foo: 3)", "unknown argument 'foo:' in 'gang' (expected 'num:' or 'static:' or 'dim:')"),
    ("loop worker(2, @3)", "duplicate 'num' argument in 'worker'"),
    ("loop gang(@)", "expected the 'gang' argument, found ')'"),
    ("loop gang(static: @)", "expected the 'gang' argument, found ')'"),
    ("loop vector(*@)", "expected an operand after '*', found ')'"),
    ("loop vector@(4", "unbalanced '(': missing ')'"),
    # clause separators and the end of the directive
    ("parallel loop gang,@", "expected a clause after ',', found end of directive"),
    ("parallel loop gang,@,", "expected a clause after ',', found ','"),
    ("parallel loop @, gang", "extra tokens after 'acc parallel loop' directive: ','"),
    ("parallel loop gang @;", "extra tokens after 'acc parallel loop' directive: ';'"),
    ("parallel loop gang @)", "unbalanced ')'"),
    ("update host(a) @$", "unexpected character '$' in directive"),
    ("data copy(a) @1", "extra tokens after 'acc data' directive: '1'"),
]


def _place(marked: str) -> tuple[str, int]:
    assert marked.count("@") == 1, marked
    return marked.replace("@", ""), COL0 + marked.index("@")


@pytest.mark.parametrize(("marked", "fragment"), BAD, ids=[m for m, _ in BAD])
def test_bad(marked: str, fragment: str) -> None:
    text, col = _place(marked)
    with pytest.raises(XmpError) as err:
        parse(text)
    assert fragment in err.value.message
    assert err.value.loc == SourceLoc("t.c", 1, col), err.value.message


@pytest.mark.parametrize("marked", [m for m, _ in BAD])
def test_messages_are_lower_case(marked: str) -> None:
    with pytest.raises(XmpError) as err:
        parse(_place(marked)[0])
    assert err.value.message[0] == "'" or err.value.message[0].islower()
