"""Directive parser (test layer 1): tables of good and bad ``#pragma xmp`` texts.

Good texts are compared with the expected objects after every ``SourceLoc`` has been
replaced by ``None`` (locations get their own tests); bad texts must raise ``XmpError``
with a message fragment at an exact column.  The text is placed as if it followed
``#pragma xmp `` on line 1, so its first character is in column 13.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from xmpacc.diagnostics import SourceLoc, XmpError
from xmpacc.directives import ast as A
from xmpacc.directives import local_view_ast as LV
from xmpacc.directives.parser import parse_directive

COL0 = 13  # len("#pragma xmp ") + 1


def locs_for(text: str) -> list[SourceLoc]:
    return [SourceLoc("t.c", 1, COL0 + k) for k in range(len(text) + 1)]


def parse(text: str) -> list[A.Directive]:
    return parse_directive(text, locs_for(text))


def strip(obj: Any, style: bool = False) -> Any:
    """``obj`` with every loc (and, if ``style``, every style) replaced by None."""
    if isinstance(obj, SourceLoc):
        return None
    if isinstance(obj, tuple | list):
        return type(obj)(strip(x, style) for x in obj)
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        values = {f.name: strip(getattr(obj, f.name), style) for f in dataclasses.fields(obj)}
        if style and "style" in values:
            values["style"] = None
        return type(obj)(**values)
    return obj


# Builders for expected values (loc=None everywhere, as after ``strip``).
def E(text: str) -> A.Expr:
    return A.Expr(text, None)  # type: ignore[arg-type]


def N(name: str) -> A.Name:
    return A.Name(name, None)  # type: ignore[arg-type]


def names(*ns: str) -> tuple[A.Name, ...]:
    return tuple(N(n) for n in ns)


STAR = A.Star(None)  # type: ignore[arg-type]
COLON = A.Colon(None)  # type: ignore[arg-type]


def TD(lower: str, upper: str) -> A.TemplateDim:
    return A.TemplateDim(E(lower), E(upper))


def TR(start: str | None, last: str | None, step: str | None = None) -> A.Triplet:
    start_, last_, step_ = (None if x is None else E(x) for x in (start, last, step))
    return A.Triplet(start_, last_, step_, None)  # type: ignore[arg-type]


def REF(name: str, subs: tuple | None = None, style: A.Style = "bracket") -> A.Ref:
    return A.Ref(N(name), subs, style, None)  # type: ignore[arg-type]


def NODES(name: str, extents: tuple, style: A.Style, mapping: Any = None) -> A.NodesDecl:
    return A.NodesDecl(N(name), extents, mapping, style, None)  # type: ignore[arg-type]


def TEMPLATE(name: str, dims: tuple, style: A.Style) -> A.TemplateDecl:
    return A.TemplateDecl(N(name), dims, style, None)  # type: ignore[arg-type]


def DF(kind: A.DistKind, arg: Any = None) -> A.DistFormat:
    return A.DistFormat(kind, arg, None)  # type: ignore[arg-type]


def TFIX(formats: tuple | None, template: str, dims: tuple | None) -> A.TemplateFix:
    return A.TemplateFix(formats, N(template), dims, None)  # type: ignore[arg-type]


def DIST(template: str, formats: tuple, onto: str) -> A.Distribute:
    return A.Distribute(N(template), formats, N(onto), None)  # type: ignore[arg-type]


def SUB(dummy: str, offset: str | None = None) -> A.AlignSubscript:
    return A.AlignSubscript(N(dummy), None if offset is None else E(offset))


def ALIGN(arrays: tuple, sources: tuple, template: str, subs: tuple, style: A.Style) -> A.Align:
    return A.Align(arrays, sources, N(template), subs, style, None)  # type: ignore[arg-type]


def SW(lower: str, upper: str | None = None) -> A.ShadowWidth:
    return A.ShadowWidth(E(lower), E(upper if upper is not None else lower))


def SHADOW(arrays: tuple, widths: tuple) -> A.Shadow:
    return A.Shadow(arrays, widths, None)  # type: ignore[arg-type]


def LI(name: str, offset: str | None = None) -> A.LoopIndex:
    return A.LoopIndex(N(name), None if offset is None else E(offset))


def ON(template: str, subs: tuple, style: A.Style) -> A.OnTemplate:
    return A.OnTemplate(N(template), subs, style, None)  # type: ignore[arg-type]


def VARS(*ns: str) -> tuple[A.VarRef, ...]:
    return tuple(VR(n) for n in ns)


def RED(op: A.ReductionOp, *variables: str | tuple[str, tuple[str, ...]]) -> A.Reduction:
    rvars = tuple(
        A.ReductionVar(N(v), ()) if isinstance(v, str)
        else A.ReductionVar(N(v[0]), tuple(VR(x) for x in v[1]))
        for v in variables
    )
    return A.Reduction(op, rvars, None)  # type: ignore[arg-type]


def VR(name: str, subs: tuple | None = None) -> A.VarRef:
    return A.VarRef(N(name), subs, None)  # type: ignore[arg-type]


def ST(base: str | None = None, length: str | None = None, step: str | None = None) -> A.SectionTriplet:
    b, n, k = (None if x is None else E(x) for x in (base, length, step))
    return A.SectionTriplet(b, n, k, None)  # type: ignore[arg-type]


def LW(lower: str, upper: str | None = None, unbound: bool = False) -> A.LoopWidth:
    return A.LoopWidth(E(lower), E(upper if upper is not None else lower), unbound)


def ACC(private: tuple = (), firstprivate: tuple = (), shared: tuple = (),
        num_threads: tuple = ()) -> A.AccClauses:
    return A.AccClauses(names(*private), names(*firstprivate), names(*shared),
                        tuple(E(t) for t in num_threads), None)  # type: ignore[arg-type]


def LOOP(indices: tuple | None, on: A.OnTemplate, reductions: tuple = (),
         acc: A.AccClauses | None = None, expand: tuple | None = None, margin: tuple | None = None,
         peel: A.PeelAndWait | None = None) -> A.Loop:
    idx = None if indices is None else names(*indices)
    return A.Loop(idx, on, reductions, acc, None, expand, margin, peel)  # type: ignore[arg-type]


def RW(lower: str, upper: str | None = None, periodic: bool = False) -> A.ReflectWidth:
    return A.ReflectWidth(E(lower), E(upper if upper is not None else lower), periodic)


def REFLECT(arrays: tuple, widths: tuple | None = None, acc: bool = False) -> A.Reflect:
    return A.Reflect(arrays, widths, acc, None)  # type: ignore[arg-type]


NOLOC: Any = None

GOOD: list[tuple[str, list[Any]]] = [
    # ------------------------------------------------------------ nodes (§4.1)
    ("nodes p(4)", [NODES("p", (E("4"),), "paren")]),
    ("nodes p[4]", [NODES("p", (E("4"),), "bracket")]),
    ("nodes p(2,3)", [NODES("p", (E("3"), E("2")), "paren")]),
    ("nodes p[3][2]", [NODES("p", (E("3"), E("2")), "bracket")]),
    ("nodes p(2, *)", [NODES("p", (STAR, E("2")), "paren")]),
    ("nodes p[*][2]", [NODES("p", (STAR, E("2")), "bracket")]),
    ("nodes p(*)", [NODES("p", (STAR,), "paren")]),
    ("nodes p(NP / 2)", [NODES("p", (E("NP / 2"),), "paren")]),
    ("nodes p(4), q(2)", [NODES("p", (E("4"),), "paren"), NODES("q", (E("2"),), "paren")]),
    ("nodes p[4], q(2,2)", [NODES("p", (E("4"),), "bracket"),
                            NODES("q", (E("2"), E("2")), "paren")]),
    ("nodes [4] :: p", [NODES("p", (E("4"),), "bracket")]),
    ("nodes (2,4) :: p, q", [NODES("p", (E("4"), E("2")), "paren"),
                             NODES("q", (E("4"), E("2")), "paren")]),
    ("NODES P(4)", [NODES("P", (E("4"),), "paren")]),
    ("nodes q[8] = p[0:8]", [NODES("q", (E("8"),), "bracket",
                                   REF("p", (TR("0", "7"),)))]),
    ("nodes q(2) = p(1:2)", [NODES("q", (E("2"),), "paren",
                                   REF("p", (TR("1", "2"),), "paren"))]),
    ("nodes q(2) = *", [NODES("q", (E("2"),), "paren", STAR)]),
    ("nodes q = *", [NODES("q", (STAR,), "bracket", STAR)]),
    ("nodes q = p[1:2]", [NODES("q", (STAR,), "bracket", REF("p", (TR("1", "2"),)))]),
    ("nodes q[*] = p[1][:]", [NODES("q", (STAR,), "bracket", REF("p", (E("1"), TR(None, None))))]),
    ("nodes q[2][2] = p(1:4)", [NODES("q", (E("2"), E("2")), "bracket",
                                      REF("p", (TR("1", "4"),), "paren"))]),
    # ------------------------------------------------------------ template (§4.2)
    ("template t(0:N-1)", [TEMPLATE("t", (TD("0", "N-1"),), "paren")]),
    ("template t(N)", [TEMPLATE("t", (TD("1", "N"),), "paren")]),
    ("template t[N]", [TEMPLATE("t", (TD("0", "(N)-1"),), "bracket")]),
    ("template t[8]", [TEMPLATE("t", (TD("0", "7"),), "bracket")]),
    ("template t[N*2]", [TEMPLATE("t", (TD("0", "(N*2)-1"),), "bracket")]),
    ("template t(0:9, 0:19)", [TEMPLATE("t", (TD("0", "19"), TD("0", "9")), "paren")]),
    ("template t[20][10]", [TEMPLATE("t", (TD("0", "19"), TD("0", "9")), "bracket")]),
    ("template t(0:N>0?N-1:0)", [TEMPLATE("t", (TD("0", "N>0?N-1:0"),), "paren")]),
    ("template t(f(a, b))", [TEMPLATE("t", (TD("1", "f(a, b)"),), "paren")]),
    ("template t(:)", [TEMPLATE("t", (COLON,), "paren")]),
    ("template t[:][4]", [TEMPLATE("t", (COLON, TD("0", "3")), "bracket")]),
    ("template [N] :: t1, t2", [TEMPLATE("t1", (TD("0", "(N)-1"),), "bracket"),
                                TEMPLATE("t2", (TD("0", "(N)-1"),), "bracket")]),
    ("template (0:7) :: t", [TEMPLATE("t", (TD("0", "7"),), "paren")]),
    ("template t[2:10]", [TEMPLATE("t", (TD("2", "10"),), "bracket")]),
    ("template t[1:N][0:M-1]", [TEMPLATE("t", (TD("1", "N"), TD("0", "M-1")), "bracket")]),
    ("template t1[4], t2(2:5)", [TEMPLATE("t1", (TD("0", "3"),), "bracket"),
                                 TEMPLATE("t2", (TD("2", "5"),), "paren")]),
    # ------------------------------------------------------------ distribute (§4.3)
    ("distribute t(block) onto p", [DIST("t", (DF("block"),), "p")]),
    ("distribute t(BLOCK) onto p", [DIST("t", (DF("block"),), "p")]),
    ("distribute t[block] onto p", [DIST("t", (DF("block"),), "p")]),
    ("distribute t(block, cyclic) onto p", [DIST("t", (DF("cyclic"), DF("block")), "p")]),
    ("distribute t[cyclic][block] onto p", [DIST("t", (DF("cyclic"), DF("block")), "p")]),
    ("distribute t(*, block) onto p", [DIST("t", (DF("block"), DF("none")), "p")]),
    ("distribute t[Cyclic(3)] ONTO p", [DIST("t", (DF("cyclic", E("3")),), "p")]),
    ("distribute t(gblock(W)) onto p", [DIST("t", (DF("gblock", E("W")),), "p")]),
    ("distribute t(gblock(*)) onto p", [DIST("t", (DF("gblock", STAR),), "p")]),
    ("distribute t[gblock(*)][block] onto p", [DIST("t", (DF("gblock", STAR), DF("block")), "p")]),
    ("distribute t(block(4)) onto p", [DIST("t", (DF("block", E("4")),), "p")]),
    ("distribute t[Block (N)] onto p", [DIST("t", (DF("block", E("N")),), "p")]),
    # ------------------------------------------------------------ template_fix (global-view §4)
    ("template_fix t[n]", [TFIX(None, "t", (TD("0", "(n)-1"),))]),
    ("template_fix t[0:n-1]", [TFIX(None, "t", (TD("0", "n-1"),))]),
    ("template_fix t(0:n-1)", [TFIX(None, "t", (TD("0", "n-1"),))]),
    ("template_fix t(n)", [TFIX(None, "t", (TD("1", "n"),))]),
    ("template_fix [gblock(m)] t[0:n-1]", [TFIX((DF("gblock", E("m")),), "t", (TD("0", "n-1"),))]),
    ("template_fix(block) t(0:n-1)", [TFIX((DF("block"),), "t", (TD("0", "n-1"),))]),
    ("template_fix (gblock(m), block) t(0:9, 1:n)",
     [TFIX((DF("block"), DF("gblock", E("m"))), "t", (TD("1", "n"), TD("0", "9")))]),
    ("template_fix [gblock(m)][*] t[n][4]",
     [TFIX((DF("gblock", E("m")), DF("none")), "t", (TD("0", "(n)-1"), TD("0", "3")))]),
    ("template_fix [gblock(m)] t", [TFIX((DF("gblock", E("m")),), "t", None)]),
    ("TEMPLATE_FIX [cyclic(3)] t[12]", [TFIX((DF("cyclic", E("3")),), "t", (TD("0", "11"),))]),
    ("template t[:][:]", [TEMPLATE("t", (COLON, COLON), "bracket")]),
    ("template t(:, :)", [TEMPLATE("t", (COLON, COLON), "paren")]),
    # ------------------------------------------------------------ align (§4.4)
    ("align a[i] with t(i)", [ALIGN(names("a"), names("i"), "t", (SUB("i"),), "paren")]),
    ("align a[i][j] with t(j, i)",
     [ALIGN(names("a"), names("i", "j"), "t", (SUB("i"), SUB("j")), "paren")]),
    ("align a[i][j] with t[i][j]",
     [ALIGN(names("a"), names("i", "j"), "t", (SUB("i"), SUB("j")), "bracket")]),
    ("align a[i][*] with t(i)",
     [ALIGN(names("a"), (N("i"), STAR), "t", (SUB("i"),), "paren")]),
    ("align a[i] with t[i][*]",
     [ALIGN(names("a"), names("i"), "t", (SUB("i"), STAR), "bracket")]),
    ("align x[*][j] with tz[j][*]",
     [ALIGN(names("x"), (STAR, N("j")), "tz", (SUB("j"), STAR), "bracket")]),
    ("align a[:] with t(:)", [ALIGN(names("a"), (COLON,), "t", (COLON,), "paren")]),
    ("align a[i] with t(i+1)", [ALIGN(names("a"), names("i"), "t", (SUB("i", "1"),), "paren")]),
    ("align a[i] with t(i - 1)",
     [ALIGN(names("a"), names("i"), "t", (SUB("i", "-1"),), "paren")]),
    ("align a[i] with t(i-c)", [ALIGN(names("a"), names("i"), "t", (SUB("i", "-(c)"),), "paren")]),
    ("align a[i] with t(i+c*2)",
     [ALIGN(names("a"), names("i"), "t", (SUB("i", "c*2"),), "paren")]),
    ("align a[i] with t(i-a+b)",
     [ALIGN(names("a"), names("i"), "t", (SUB("i", "-(a)+b"),), "paren")]),
    ("align a[i] with t(i-(a+b))",
     [ALIGN(names("a"), names("i"), "t", (SUB("i", "-((a+b))"),), "paren")]),
    ("align a[i] with t(i - -1)",
     [ALIGN(names("a"), names("i"), "t", (SUB("i", "1"),), "paren")]),
    ("align [i] with t(i) :: a, b",
     [ALIGN(names("a", "b"), names("i"), "t", (SUB("i"),), "paren")]),
    ("align [i][j] with t[i][j] :: u, v",
     [ALIGN(names("u", "v"), names("i", "j"), "t", (SUB("i"), SUB("j")), "bracket")]),
    # ------------------------------------------------------------ shadow (§4.5)
    ("shadow a[1]", [SHADOW(names("a"), (SW("1"),))]),
    ("shadow a[1][0]", [SHADOW(names("a"), (SW("1"), SW("0")))]),
    ("shadow a[1:2][*]", [SHADOW(names("a"), (SW("1", "2"), STAR))]),
    ("shadow a[W]", [SHADOW(names("a"), (SW("W"),))]),
    ("shadow [*] :: p_x, p_y, p_z", [SHADOW(names("p_x", "p_y", "p_z"), (STAR,))]),
    # ------------------------------------------------------------ structure members (global-view §8)
    ("align b.a[i] with t[i]", [ALIGN(names("b.a"), names("i"), "t", (SUB("i"),), "bracket")]),
    ("align b . a[i][*] with t(i)", [ALIGN(names("b.a"), (N("i"), STAR), "t", (SUB("i"),), "paren")]),
    ("align [i] with t[i] :: b.a, c.d",
     [ALIGN(names("b.a", "c.d"), names("i"), "t", (SUB("i"),), "bracket")]),
    ("shadow b.a[1]", [SHADOW(names("b.a"), (SW("1"),))]),
    ("shadow [1:2] :: b.a, x", [SHADOW(names("b.a", "x"), (SW("1", "2"),))]),
    ("reflect (c.a, p->a, s)", [REFLECT(names("c.a", "p->a", "s"))]),
    ("reflect c.a width(1)", [REFLECT(names("c.a"), (RW("1"),))]),
    # ------------------------------------------------------------ combined directive (global-view §8a)
    ("nodes :: p[4]", [NODES("p", (E("4"),), "bracket")]),
    ("nodes :: p(2,2), q[*]", [NODES("p", (E("2"), E("2")), "paren"), NODES("q", (STAR,), "bracket")]),
    ("nodes :: q[2] = p[0:2]", [NODES("q", (E("2"),), "bracket", REF("p", (TR("0", "1"),)))]),
    ("template :: t[N]", [TEMPLATE("t", (TD("0", "(N)-1"),), "bracket")]),
    ("template, distribute(block) onto p :: t[N], u(0:7)",
     [TEMPLATE("t", (TD("0", "(N)-1"),), "bracket"), TEMPLATE("u", (TD("0", "7"),), "paren"),
      DIST("t", (DF("block"),), "p"), DIST("u", (DF("block"),), "p")]),
    ("distribute[cyclic] onto p, template :: t[8]",
     [TEMPLATE("t", (TD("0", "7"),), "bracket"), DIST("t", (DF("cyclic"),), "p")]),
    ("template (0:N-1, 0:N-1), distribute (*, block) onto p :: t",
     [TEMPLATE("t", (TD("0", "N-1"), TD("0", "N-1")), "paren"), DIST("t", (DF("block"), DF("none")), "p")]),
    ("distribute (block) onto p :: t1, t2",
     [DIST("t1", (DF("block"),), "p"), DIST("t2", (DF("block"),), "p")]),
    ("align [i][*] with t[i], shadow [1][0] :: a, b",
     [ALIGN(names("a", "b"), (N("i"), STAR), "t", (SUB("i"),), "bracket"),
      SHADOW(names("a", "b"), (SW("1"), SW("0")))]),
    ("shadow [*], align [i] with t(i) :: x",
     [ALIGN(names("x"), names("i"), "t", (SUB("i"),), "paren"), SHADOW(names("x"), (STAR,))]),
    ("align (i) with t(i) :: a, b", [ALIGN(names("a", "b"), names("i"), "t", (SUB("i"),), "paren")]),
    ("align (i, j) with t(i, j), shadow (1:2, 0) :: u",
     [ALIGN(names("u"), names("j", "i"), "t", (SUB("j"), SUB("i")), "paren"),
      SHADOW(names("u"), (SW("0"), SW("1", "2")))]),
    ("align [i] with t(*, i) :: w, p, x",
     [ALIGN(names("w", "p", "x"), names("i"), "t", (SUB("i"), STAR), "paren")]),
    ("align [:] with t(*, :) :: w", [ALIGN(names("w"), (COLON,), "t", (COLON, STAR), "paren")]),
    ("ALIGN [i] WITH t[i], SHADOW [1] :: b.a, c",
     [ALIGN(names("b.a", "c"), names("i"), "t", (SUB("i"),), "bracket"),
      SHADOW(names("b.a", "c"), (SW("1"),))]),
    ("static_desc :: p, t, a", [A.StaticDesc(names("p", "t", "a"), NOLOC)]),
    # ------------------------------------------------------------ loop (§6.1, §7.4)
    ("loop on t(i)", [LOOP(None, ON("t", (LI("i"),), "paren"))]),
    ("LOOP ON t(i)", [LOOP(None, ON("t", (LI("i"),), "paren"))]),
    ("loop (i) on t[i]", [LOOP(("i",), ON("t", (LI("i"),), "bracket"))]),
    ("loop (j,i) on t[j][i]", [LOOP(("j", "i"), ON("t", (LI("j"), LI("i")), "bracket"))]),
    ("loop (j,i) on t(i,j)", [LOOP(("j", "i"), ON("t", (LI("j"), LI("i")), "paren"))]),
    ("loop (j) on t[j][*]", [LOOP(("j",), ON("t", (LI("j"), STAR), "bracket"))]),
    ("loop on t(:, i)", [LOOP(None, ON("t", (LI("i"), COLON), "paren"))]),
    ("loop on t(i-1)", [LOOP(None, ON("t", (LI("i", "-1"),), "paren"))]),
    ("loop on t[0][i]", [LOOP(None, ON("t", (E("0"), LI("i")), "bracket"))]),
    ("loop on t(i) reduction(+:s)",
     [LOOP(None, ON("t", (LI("i"),), "paren"), (RED("+", "s"),))]),
    ("loop (j,i) on t[j][i] reduction(+:s, t) reduction(max:m)",
     [LOOP(("j", "i"), ON("t", (LI("j"), LI("i")), "bracket"),
           (RED("+", "s", "t"), RED("max", "m")))]),
    ("loop on t(i) reduction(MIN:x) Reduction(||:f) reduction(&&:g) reduction(^:h)",
     [LOOP(None, ON("t", (LI("i"),), "paren"),
           (RED("min", "x"), RED("||", "f"), RED("&&", "g"), RED("^", "h")))]),
    ("loop on t(i) reduction(firstmax: m/i/) reduction(LastMin:n /i, j/)",
     [LOOP(None, ON("t", (LI("i"),), "paren"),
           (RED("firstmax", ("m", ("i",))), RED("lastmin", ("n", ("i", "j")))))]),
    ("loop on t(i) reduction(firstmax: v /idx, k[1][:]/)",
     [LOOP(None, ON("t", (LI("i"),), "paren"),
           (A.Reduction("firstmax", (A.ReductionVar(N("v"), (VR("idx"), VR("k", (E("1"), ST())))),),
                        NOLOC),))]),
    ("loop on t(i) reduction(+: k[1][0:n], a)",
     [LOOP(None, ON("t", (LI("i"),), "paren"),
           (A.Reduction("+", (A.ReductionVar(N("k"), (), (E("1"), ST("0", "n"))),
                              A.ReductionVar(N("a"), ())), NOLOC),))]),
    ("loop on t[i][j] expand(1, -1)",
     [LOOP(None, ON("t", (LI("i"), LI("j")), "bracket"), expand=(LW("1"), LW("-1")))]),
    ("loop on t(i, j) margin(1:2, /unbound/ 0)",
     [LOOP(None, ON("t", (LI("j"), LI("i")), "paren"), margin=(LW("0", unbound=True), LW("1", "2")))]),
    ("loop on t[i] reduction(+:s) peel_and_wait(ID, -1:-2)",
     [LOOP(None, ON("t", (LI("i"),), "bracket"), (RED("+", "s"),),
           peel=A.PeelAndWait(E("ID"), (LW("-1", "-2"),)))]),
    ("loop on t[i] EXPAND(/UNBOUND/ N) acc",
     [LOOP(None, ON("t", (LI("i"),), "bracket"), (), ACC(), expand=(LW("N", unbound=True),))]),
    ("loop (i) on p(i)", [LOOP(("i",), ON("p", (LI("i"),), "paren"))]),
    ("loop [i] on t[i]", [LOOP(("i",), ON("t", (LI("i"),), "bracket"))]),
    ("loop [j][i] on t[j][i] reduction(+:s)",
     [LOOP(("j", "i"), ON("t", (LI("j"), LI("i")), "bracket"), (RED("+", "s"),))]),
    ("loop [j] on t(*, j) acc", [LOOP(("j",), ON("t", (LI("j"), STAR), "paren"), (), ACC())]),
    ("loop on t[i+1]", [LOOP(None, ON("t", (LI("i", "1"),), "bracket"))]),
    ("loop on t(i) acc", [LOOP(None, ON("t", (LI("i"),), "paren"), (), ACC())]),
    ("loop on t(i) reduction(+:s) acc",
     [LOOP(None, ON("t", (LI("i"),), "paren"), (RED("+", "s"),), ACC())]),
    ("loop (j,i) on t(i,j) acc num_threads(16, 16) private(x, y) firstprivate(z) shared(w)",
     [LOOP(("j", "i"), ON("t", (LI("j"), LI("i")), "paren"), (),
           ACC(("x", "y"), ("z",), ("w",), ("16", "16")))]),
    ("loop on t(i) ACC Private(a) NUM_THREADS(BS) private(b)",
     [LOOP(None, ON("t", (LI("i"),), "paren"), (), ACC(("a", "b"), num_threads=("BS",)))]),
    # ------------------------------------------------------------ reduction (§6.4)
    ("reduction(+:a,b)",
     [A.ReductionDirective(RED("+", "a", "b"), None, NOLOC)]),
    ("reduction (MAX : m) on p",
     [A.ReductionDirective(RED("max", "m"), REF("p"), NOLOC)]),
    ("reduction(*:x) on p[:][*]",
     [A.ReductionDirective(RED("*", "x"), REF("p", (TR(None, None), STAR)), NOLOC)]),
    ("reduction(max: m /n, k[1][:]/) on t(*, js:je)",
     [A.ReductionDirective(A.Reduction("max", (A.ReductionVar(N("m"), (VR("n"), VR("k", (E("1"), ST())))),),
                                       NOLOC), REF("t", (TR("js", "je"), STAR), "paren"), NOLOC)]),
    ("reduction(lastmin: m /n/, x /k[0:2]/)",
     [A.ReductionDirective(A.Reduction("lastmin", (A.ReductionVar(N("m"), (VR("n"),)),
                                                   A.ReductionVar(N("x"), (VR("k", (ST("0", "2"),)),))),
                                       NOLOC), None, NOLOC)]),
    ("reduction(+: k[1][:], a[0:2:2])",
     [A.ReductionDirective(A.Reduction("+", (A.ReductionVar(N("k"), (), (E("1"), ST())),
                                             A.ReductionVar(N("a"), (), (ST("0", "2", "2"),))), NOLOC),
                           None, NOLOC)]),
    # ------------------------------------------------------------ reflect (§6.3)
    ("reflect (a)", [REFLECT(names("a"))]),
    ("reflect (a, b)", [REFLECT(names("a", "b"))]),
    ("reflect a", [REFLECT(names("a"))]),
    ("reflect p_x, p_y, p_z", [REFLECT(names("p_x", "p_y", "p_z"))]),
    ("reflect (a) width(1, /periodic/2:1, 0)",
     [REFLECT(names("a"), (RW("1"), RW("2", "1", True), RW("0")))]),
    ("reflect (a) WIDTH(/PERIODIC/ 1)", [REFLECT(names("a"), (RW("1", periodic=True),))]),
    ("reflect (a) acc", [REFLECT(names("a"), acc=True)]),
    ("reflect a width(1) acc", [REFLECT(names("a"), (RW("1"),), True)]),
    ("reflect (a) width(1, 0) orthogonal async(2)",
     [A.Reflect(names("a"), (RW("1"), RW("0")), False, NOLOC, E("2"), True)]),
    ("reflect_init (a, b) width(/periodic/ 1, 0:1) ORTHOGONAL",
     [A.ReflectInit(names("a", "b"), (RW("1", periodic=True), RW("0", "1")), True, NOLOC)]),
    ("reflect_init (a)", [A.ReflectInit(names("a"), None, False, NOLOC)]),
    ("reflect_do (a, b)", [A.ReflectDo(names("a", "b"), NOLOC)]),
    ("reflect_do (a) async(k + 1)", [A.ReflectDo(names("a"), NOLOC, E("k + 1"))]),
    # XcalableACC.md §4: acc on device copies
    ("reflect_init (a) width(1) acc", [A.ReflectInit(names("a"), (RW("1"),), False, NOLOC, True)]),
    ("reflect_do (a) async(2) ACC", [A.ReflectDo(names("a"), NOLOC, E("2"), True)]),
    ("bcast (x) from p[0] acc", [A.Bcast(VARS("x"), REF("p", (E("0"),)), None, NOLOC, None, True)]),
    ("reduction(+:s) async(1) acc", [A.ReductionDirective(RED("+", "s"), None, NOLOC, E("1"), True)]),
    ("barrier acc", [A.Barrier(None, NOLOC, True)]),
    ("wait_async (1) acc", [A.WaitAsync((E("1"),), None, NOLOC, True)]),
    ("reduce_shadow (a) width(1:0) async (3)",
     [A.ReduceShadow(names("a"), (RW("1", "0"),), NOLOC, E("3"))]),
    ("reduce_shadow (a, b)", [A.ReduceShadow(names("a", "b"), None, NOLOC)]),
    # ------------------------------------------------------------ bcast, barrier, task
    ("bcast (x)", [A.Bcast(VARS("x"), None, None, NOLOC)]),
    ("bcast (x, y) from p(1) on q",
     [A.Bcast(VARS("x", "y"), REF("p", (E("1"),), "paren"), REF("q"), NOLOC)]),
    ("bcast (x) on q[0:2] from p[1]",
     [A.Bcast(VARS("x"), REF("p", (E("1"),)), REF("q", (TR("0", "1"),)), NOLOC)]),
    ("bcast (a[0:5], k[1], x)",
     [A.Bcast((VR("a", (ST("0", "5"),)), VR("k", (E("1"),)), VR("x")), None, None, NOLOC)]),
    ("bcast (c[i][:][2::-1]) from p[0]",
     [A.Bcast((VR("c", (E("i"), ST(None, None), ST("2", None, "-1"))),), REF("p", (E("0"),)), None,
              NOLOC)]),
    ("barrier", [A.Barrier(None, NOLOC)]),
    ("barrier on p(1:2, *)",
     [A.Barrier(REF("p", (STAR, TR("1", "2")), "paren"), NOLOC)]),
    ("barrier on t[i:n][::2]",
     [A.Barrier(REF("t", (TR("i", "(i)+(n)-1"), TR(None, None, "2"))), NOLOC)]),
    ("task on p(1)", [A.Task(REF("p", (E("1"),), "paren"), False, NOLOC)]),
    ("task on t(0, 0, 0) NOCOMM", [A.Task(REF("t", (E("0"), E("0"), E("0")), "paren"), True, NOLOC)]),
    ("tasks", [A.Tasks(NOLOC)]),
    ("bcast (x) from t(k) on t(:)",
     [A.Bcast(VARS("x"), REF("t", (E("k"),), "paren"), REF("t", (TR(None, None),), "paren"), NOLOC)]),
    ("task on p[0]", [A.Task(REF("p", (E("0"),)), False, NOLOC)]),
    ("TASK ON t[j]", [A.Task(REF("t", (E("j"),)), False, NOLOC)]),
    ("task on p[2:]", [A.Task(REF("p", (TR("2", None),)), False, NOLOC)]),
    ("task on p[:4]", [A.Task(REF("p", (TR("0", "3"),)), False, NOLOC)]),
    ("task on p[1:n:2]", [A.Task(REF("p", (TR("1", "(1)+((n)-1)*(2)", "2"),)), False, NOLOC)]),
    ("task on p[0:4:2]", [A.Task(REF("p", (TR("0", "6", "2"),)), False, NOLOC)]),
    ("task on p(2:n:2)", [A.Task(REF("p", (TR("2", "n", "2"),), "paren"), False, NOLOC)]),
    # ------------------------------------------------------------ async (global-view §7)
    ("wait_async (1)", [A.WaitAsync((E("1"),), None, NOLOC)]),
    ("wait_async (k+1, 2) on p[0]", [A.WaitAsync((E("k+1"), E("2")), REF("p", (E("0"),)), NOLOC)]),
    ("reflect (a) async (3)", [A.Reflect(names("a"), None, False, NOLOC, E("3"))]),
    ("bcast (x) from p[0] async(id)",
     [A.Bcast(VARS("x"), REF("p", (E("0"),)), None, NOLOC, E("id"))]),
    ("reduction(+:s) on p async(1)",
     [A.ReductionDirective(A.Reduction("+", (A.ReductionVar(N("s"), ()),), NOLOC), REF("p"), NOLOC,
                           E("1"))]),
    # ------------------------------------------------------------ gmove, array (global-view §2, §3)
    ("gmove", [A.Gmove("collective", NOLOC)]),
    ("GMOVE in", [A.Gmove("in", NOLOC)]),
    ("gmove out async (k+1)", [A.Gmove("out", NOLOC, E("k+1"))]),
    ("gmove async(2) in", [A.Gmove("in", NOLOC, E("2"))]),
    ("gmove acc", [A.Gmove("collective", NOLOC, None, True)]),
    ("gmove acc async(3)", [A.Gmove("collective", NOLOC, E("3"), True)]),
    ("gmove in acc", [A.Gmove("in", NOLOC, None, True)]),
    ("gmove acc out async(1)", [A.Gmove("out", NOLOC, E("1"), True)]),
    ("array on t[:]", [A.ArrayDirective(REF("t", (TR(None, None),)), NOLOC)]),
    ("array on t", [A.ArrayDirective(REF("t"), NOLOC)]),
    ("array on t(1:N)", [A.ArrayDirective(REF("t", (TR("1", "N"),), "paren"), NOLOC)]),
    ("array on t[0:n][2]",
     [A.ArrayDirective(REF("t", (TR("0", "(n)-1"), E("2"))), NOLOC)]),
    ("ARRAY ON t(1:N:2, j)",
     [A.ArrayDirective(REF("t", (E("j"), TR("1", "N", "2")), "paren"), NOLOC)]),
    # ------------------------------------------------------------ XMP-ACC (§7.2, §7.3)
    ("acc replicate (x, v)", [A.AccReplicate(names("x", "v"), NOLOC)]),
    ("ACC REPLICATE (x)", [A.AccReplicate(names("x"), NOLOC)]),
    ("acc replicate_sync in (v)",
     [A.AccReplicateSync((A.SyncClause("in", names("v")),), NOLOC)]),
    ("acc replicate_sync out (x, y) IN (z) out(w)",
     [A.AccReplicateSync((A.SyncClause("out", names("x", "y")),
                          A.SyncClause("in", names("z")),
                          A.SyncClause("out", names("w"))), NOLOC)]),
    # aligned structure members (global-view §8) on the device
    ("acc replicate (c.a, p->a, x)", [A.AccReplicate(names("c.a", "p->a", "x"), NOLOC)]),
    ("acc replicate_sync in (c . a) out (p->a)",
     [A.AccReplicateSync((A.SyncClause("in", names("c.a")), A.SyncClause("out", names("p->a"))), NOLOC)]),
    ("reflect_init (c.a, p->a) acc", [A.ReflectInit(names("c.a", "p->a"), None, False, NOLOC, True)]),
    ("reflect_do (c.a) acc", [A.ReflectDo(names("c.a"), NOLOC, None, True)]),
    ("reduce_shadow (c.a)", [A.ReduceShadow(names("c.a"), None, NOLOC)]),
    # ------------------------------------------------------------ local view (global-view §11)
    ("sync_all", [LV.SyncAll(NOLOC)]),
    ("SYNC_MEMORY", [LV.SyncMemory(NOLOC)]),
    ("sync_images (*)", [LV.SyncImages(None, NOLOC)]),
    ("sync_images (0, k + 1)", [LV.SyncImages((E("0"), E("k + 1")), NOLOC)]),
    ("post (p[k], 3)", [LV.Post(REF("p", (E("k"),)), E("3"), NOLOC)]),
    ("post (p(2), tag)", [LV.Post(REF("p", (E("2"),), "paren"), E("tag"), NOLOC)]),
    ("wait", [LV.Wait(None, None, NOLOC)]),
    ("wait (p[1])", [LV.Wait(REF("p", (E("1"),)), None, NOLOC)]),
    ("wait (p[me - 1], 7)", [LV.Wait(REF("p", (E("me - 1"),)), E("7"), NOLOC)]),
    ("lock (l:[0])", [LV.CoLock(LV.CoRef(N("l"), (), (E("0"),), NOLOC), False, NOLOC)]),
    ("unlock (l[i][2]:[0][k])",
     [LV.CoLock(LV.CoRef(N("l"), (E("i"), E("2")), (E("0"), E("k")), NOLOC), True, NOLOC)]),
    ("critical", [LV.Critical(False, NOLOC)]),
    ("end critical", [LV.Critical(True, NOLOC)]),
    ("coarray a, b : [2][*]", [LV.CoarrayDirective(names("a", "b"), (E("2"), STAR), NOLOC)]),
    # ------------------------------------------------------------ lexing
    ("nodes\tp( 4 )  /* comment */", [NODES("p", (E("4"),), "paren")]),
    ("template t(0 : N - 1)", [TEMPLATE("t", (TD("0", "N - 1"),), "paren")]),
    ("template t[sizeof(int) << 2]",
     [TEMPLATE("t", (TD("0", "(sizeof(int) << 2)-1"),), "bracket")]),
]


@pytest.mark.parametrize(("text", "expected"), GOOD, ids=[t for t, _ in GOOD])
def test_good(text: str, expected: list[Any]) -> None:
    assert [strip(d) for d in parse(text)] == expected


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


def test_locs_of_pieces() -> None:
    text = "loop (j) on t(*, j) reduction(+:s) acc num_threads(8)"
    (loop,) = parse(text)
    assert isinstance(loop, A.Loop)
    col = {name: COL0 + text.index(name) for name in ("loop", "j)", "t(", "reduction", "s)",
                                                       "acc", "8")}
    assert loop.loc.col == col["loop"]
    assert loop.indices is not None and loop.indices[0].loc.col == col["j)"]
    assert loop.on.loc.col == col["t("]
    assert loop.reductions[0].loc.col == col["reduction"]
    assert loop.reductions[0].variables[0].name.loc.col == col["s)"]
    assert loop.acc is not None and loop.acc.loc.col == col["acc"]
    assert loop.acc.num_threads[0].loc.col == col["8"]


def test_locs_follow_the_locs_argument() -> None:
    """Locations come from ``locs`` (e.g. after macro expansion), not from counting."""
    text = "barrier on p"
    locs = [SourceLoc("m.c", 7, 100 + 2 * k) for k in range(len(text) + 1)]
    (barrier,) = parse_directive(text, locs)
    assert isinstance(barrier, A.Barrier) and barrier.on is not None
    assert barrier.loc == SourceLoc("m.c", 7, 100)
    assert barrier.on.loc == SourceLoc("m.c", 7, 100 + 2 * text.index("p"))
    with pytest.raises(XmpError) as err:
        parse_directive("barrier on", locs[:11])
    assert err.value.loc == SourceLoc("m.c", 7, 120)  # the end-of-directive entry


# ---------------------------------------------------------------- normalisation


EQUIVALENT = [
    ("nodes p(2,3)", "nodes p[3][2]"),
    ("nodes p(2,*)", "nodes p[*][2]"),
    ("nodes p(4)", "nodes [4] :: p"),
    ("template t(0:9,0:19)", "template t[20][10]"),
    ("template t(0:7)", "template [8] :: t"),
    ("distribute t(block, cyclic(2), *) onto p", "distribute t[*][cyclic(2)][block] onto p"),
    ("align a[i][j] with t(j,i)", "align a[i][j] with t[i][j]"),
    ("align a[i][*] with t(*, i)", "align a[i][*] with t[i][*]"),
    ("align [i] with t(i) :: a", "align a[i] with t[i]"),
    ("shadow [1:2] :: a", "shadow a[1:2]"),
    ("loop (j,i) on t(i,j)", "loop (j,i) on t[j][i]"),
    ("loop on t(*, j)", "loop on t[j][*]"),
    ("reflect (a, b)", "reflect a, b"),
    ("distribute t(BLOCK) onto p", "distribute t[block] onto p"),
]


@pytest.mark.parametrize(("paren", "bracket"), EQUIVALENT)
def test_equivalent_forms(paren: str, bracket: str) -> None:
    assert strip(parse(paren), style=True) == strip(parse(bracket), style=True)


# A combined directive is one directive per attribute for each DECL (global-view §8a).
COMBINED = [
    ("nodes :: p[4], q(2, 2)", ["nodes p[4]", "nodes q(2, 2)"]),
    ("nodes [*] :: p", ["nodes p[*]"]),
    ("template, distribute [block] onto p :: t[N], u[M]",
     ["template t[N]", "template u[M]", "distribute t[block] onto p", "distribute u[block] onto p"]),
    ("template (0:7), distribute (cyclic(2)) onto p :: t",
     ["template t(0:7)", "distribute t(cyclic(2)) onto p"]),
    ("align [i][*] with t[i], shadow [1][0] :: a, b",
     ["align [i][*] with t[i] :: a, b", "shadow [1][0] :: a, b"]),
    ("align (i, j) with t(j, i), shadow (0, 1:2) :: a",
     ["align a[j][i] with t[i][j]", "shadow a[1:2][0]"]),
]


@pytest.mark.parametrize(("combined", "separate"), COMBINED)
def test_combined_is_one_directive_per_attribute(combined: str, separate: list[str]) -> None:
    expected = [d for text in separate for d in parse(text)]
    assert strip(parse(combined), style=True) == strip(expected, style=True)


def test_combined_objects_are_located_at_their_attributes() -> None:
    text = "template, distribute(block) onto p :: t[N]"
    tmpl, dist = parse(text)
    assert (tmpl.loc.col, dist.loc.col) == (COL0, COL0 + text.index("distribute"))
    text = "shadow [1], align [i] with t[i] :: a, b"
    align, shadow = parse(text)
    assert (align.loc.col, shadow.loc.col) == (COL0 + text.index("align"), COL0)
    assert [n.loc.col for n in align.arrays] == [COL0 + text.index("a, b"), COL0 + len(text) - 1]


@pytest.mark.parametrize(("paren", "bracket"), [
    ("task on p(1)", "task on p[0]"),
    ("task on p(k)", "task on p[(k)-1]"),
    ("task on p(1, 2)", "task on p[1][0]"),
    ("task on p(2:3)", "task on p[1:2]"),
    ("task on p(1:3:2)", "task on p[0:2:2]"),
    ("task on p(:, 3)", "task on p[2][:]"),
    ("task on p(*, 1)", "task on p[0][*]"),
])
def test_paren_node_refs_are_1_based(paren: str, bracket: str) -> None:
    (p,), (b,) = parse(paren), parse(bracket)
    assert isinstance(p, A.Task) and isinstance(b, A.Task)
    assert strip(p.on.node_subs()) == strip(b.on.node_subs())


def test_template_refs_keep_their_indices() -> None:
    """A parenthesised template index is absolute: ``subs`` are as written (C order)."""
    (task,) = parse("task on t(3, k)")
    assert isinstance(task, A.Task)
    assert strip(task.on.subs) == (E("k"), E("3"))
    assert strip(task.on.node_subs()) == (E("(k)-1"), E("2"))


def test_bare_ref_has_no_subs() -> None:
    (barrier,) = parse("barrier on p")
    assert isinstance(barrier, A.Barrier) and barrier.on is not None
    assert barrier.on.subs is None and barrier.on.node_subs() is None


# ---------------------------------------------------------------- errors


# (text, message fragment, column of the offending token)
BAD: list[tuple[str, str, int]] = [
    # directive names (§2, §6.8, §7.6)
    ("", "expected an XMP directive name, found end of directive", 13),
    ("(", "expected an XMP directive name", 13),
    ("foo p", "unknown XMP directive 'foo'", 13),
    ("Fooo", "unknown XMP directive 'Fooo'", 13),
    ("gmove in out", "conflicting 'out' in 'gmove' directive", 22),
    ("gmove out out", "duplicate 'out' in 'gmove' directive", 23),
    ("gmove inout", "unknown clause 'inout' in 'gmove' directive", 19),
    ("gmove async", "expected '(' after 'async'", 24),
    ("gmove async(1) async(2)", "duplicate 'async' clause in 'gmove' directive", 28),
    ("gmove (a)", "extra tokens after 'gmove' directive: '('", 19),
    ("gmove acc acc", "duplicate 'acc' clause in 'gmove' directive", 23),
    ("array", "expected 'on' after 'array', found end of directive", 18),
    ("array t[:]", "expected 'on' after 'array', found 't'", 19),
    ("array on", "expected a template name after 'on', found end of directive", 21),
    ("array on t[:] async(1)", "extra tokens after 'array' directive: 'async'", 27),
    ("array on t[1:2:]", "expected a triplet step, found ']'", 28),
    ("local_alias la => a", "'local_alias' is not supported yet", 13),
    ("coarray a", "expected ':' after the coarray names", 22),
    ("coarray a : *", "expected '[' of a codimension, found '*'", 25),
    ("post (p[k])", "expected ',' after the node of 'post'", 23),
    ("post p[k], 1", "expected '(' after 'post'", 18),
    ("wait (p[k], 1, 2)", "expected ')' after the arguments of 'wait'", 26),
    ("lock (l)", "expected ':' after 'l' (the image must be given: 'l:[k]')", 20),
    ("lock (l:)", "expected '[' of the image index after ':'", 21),
    ("unlock (l:[k]) x", "extra tokens after 'unlock' directive", 28),
    ("end", "expected 'critical' after 'end'", 16),
    ("end loop", "expected 'critical' after 'end', found 'loop'", 17),
    ("sync_all (p)", "extra tokens after 'sync_all' directive", 22),
    ("sync_images ()", "expected an image index or '*'", 26),
    ("reflect_init a", "expected '(' after 'reflect_init', found 'a'", 26),
    ("reflect_init (a) acc acc", "duplicate 'acc' clause in 'reflect_init' directive", 34),
    ("reflect_init (a) async(1)", "unknown clause 'async' in 'reflect_init'", 30),
    ("reflect_init (a) width(1) width(2)", "duplicate 'width' clause", 39),
    ("reflect_do (a) width(1)", "unknown clause 'width' in 'reflect_do'", 28),
    ("reflect_do (a) acc width(1)", "unknown clause 'width' in 'reflect_do'", 32),
    ("reflect_do ()", "empty name list in 'reflect_do'", 25),
    ("reduce_shadow (a) orthogonal", "unknown clause 'orthogonal' in 'reduce_shadow'", 31),
    ("reduce_shadow (a) width(/periodic 1)", "expected '/' after 'periodic', found '1'", 47),
    ("reduce_shadow a", "expected '(' after 'reduce_shadow', found 'a'", 27),
    ("tasks on p", "extra tokens after 'tasks' directive: 'on'", 19),
    ("nodes q =", "expected a node array name or '*', found end of directive", 22),
    ("wait_async", "expected '(' after 'wait_async'", 23),
    ("wait_async ()", "expected an async id", 25),
    ("wait_async (1) width(1)", "unknown clause 'width' in 'wait_async'", 28),
    ("acc", "expected an XMP-ACC directive name after 'acc'", 16),
    ("acc reflect (a)", "'acc reflect' is not supported yet", 17),
    ("acc barrier", "'acc barrier' is not supported yet", 17),
    ("acc loop (i) private(x)", "'acc loop' is not supported yet", 17),
    ("acc foo", "unknown XMP-ACC directive 'acc foo'", 17),
    # nodes
    ("nodes", "expected a node array name", 18),
    ("nodes p", "expected '(' or '[' after node array name 'p'", 20),
    ("nodes p(4) q(2)", "extra tokens after 'nodes' directive", 24),
    ("nodes p(*, 2)", "'*' is only allowed in the last dimension of a parenthesised", 21),
    ("nodes p[2][*]", "'*' is only allowed in the first dimension of a bracketed", 24),
    ("nodes p[*][*]", "'*' is only allowed in the first dimension", 24),
    ("nodes p(:)", "':' is not allowed in a nodes declaration", 21),
    ("nodes p[4", "unbalanced '['", 20),
    ("nodes p[4]]", "unbalanced ']'", 23),
    ("nodes p(4,)", "expected a node extent, found ')'", 23),
    ("nodes p(4 5)", "unexpected '5' after '4' in expression", 23),
    ("template t[N M]", "unexpected 'M' after 'N'", 26),
    ("template t[N-]", "expected an operand after '-', found ']'", 26),
    ("loop on t(i+)", "expected an operand after '+', found ')'", 25),
    ("template t(0:N ? 1)", "expected ':' of '?:', found ')'", 31),
    ("nodes [4] p", "expected '::'", 23),
    ("nodes [4] :: ", "expected a node array name, found end of directive", 26),
    ("nodes p[1][2][3][4][5][6][7][8]", "more than 7 dimensions", 42),
    ("nodes p(1,2,3,4,5,6,7,8)", "more than 7 dimensions", 35),
    ("nodes p(4) = ", "expected a node array name or '*'", 26),
    ("nodes p[4] @", "unexpected character '@'", 24),
    # template
    ("template t[*]", "'*' is not allowed in a template declaration", 24),
    ("template t(0:)", "expected a template upper bound, found ')'", 26),
    ("template t[0:]", "expected a template upper bound, found ']'", 26),
    ("template t[0:9:1]", "expected ']', found ':'", 27),
    ("template t(f(N)", "unbalanced '('", 23),
    ("template t(a[1)]", "expected ']', found ')'", 27),
    ("template t", "expected '(' or '[' after template name 't'", 23),
    ("template [8] t", "expected '::' before the template names", 26),
    # distribute
    ("distribute t(block) p", "expected 'onto'", 33),
    ("distribute t(block)", "expected 'onto' after the distribution formats, found end", 32),
    ("distribute t(blok) onto p", "unknown distribution format 'blok'", 26),
    ("distribute t(block()) onto p", "expected a distribution argument, found ')'", 32),
    ("distribute t(gblock(*, 2)) onto p", "expected ')', found ','", 34),
    # template_fix
    ("template_fix", "expected a template name, found end of directive", 25),
    ("template_fix [gblock(m)]", "expected a template name, found end of directive", 37),
    ("template_fix t[:]", "':' is not allowed in template_fix", 28),
    ("template_fix t(*)", "'*' is not allowed in template_fix", 28),
    ("template_fix [blok] t[4]", "unknown distribution format 'blok'", 27),
    ("template_fix t[4] p", "extra tokens after 'template_fix' directive", 31),
    ("template_fix t[0:]", "expected a template upper bound, found ']'", 30),
    ("distribute t[gblock] onto p", "expected '(' after 'gblock'", 32),
    ("distribute t(:) onto p", "expected a distribution format, found ':'", 26),
    ("distribute t(block) onto p[1]", "extra tokens after 'distribute' directive", 39),
    ("distribute t onto p", "expected '(' or '['", 26),
    # align
    ("align a[i] t(i)", "expected 'with'", 24),
    ("align a(i) with t(i)", "expected '[' after array name 'a'", 20),
    ("align a[i+1] with t(i)", "expected ']' after align dummy 'i'", 22),
    ("align a[i] with t(2*i)", "expected an align dummy with an optional '+' or '-' offset", 31),
    ("align a[i] with t(i<<1)", "found 'i<<1'", 31),
    ("align a[1] with t(i)", "expected an align dummy, '*' or ':', found '1'", 21),
    ("align [i] with t(i)", "expected '::' before the aligned array names", 32),
    ("align [i] with t(i) :: ", "expected an array name", 36),
    ("align a[i] with t(i) :: b", "extra tokens after 'align' directive", 34),
    ("align b.[i] with t(i)", "expected a member name after '.', found '['", 21),
    ("align p->a[i] with t(i)", "expected '[' after array name 'p'", 20),
    ("reflect (c.)", "expected a member name after '.', found ')'", 24),
    ("align a[i] with", "expected a template name after 'with'", 28),
    # shadow
    ("shadow a[:]", "expected a shadow width, found ':'", 22),
    ("shadow a(1)", "expected '[' after array name 'a'", 21),
    ("shadow [1] a", "expected '::' before the shadowed array names", 24),
    ("shadow a[1:]", "expected an upper shadow width", 24),
    ("shadow a", "expected '[' after array name 'a', found end of directive", 21),
    # combined directive (global-view §8a): the spec's restrictions, at the attribute or the DECL
    ("align [i] with t[i], align [j] with u[j] :: a", "'align' is given twice in this directive", 34),
    ("shadow [1], align [i] with t[i], shadow [2] :: a", "'shadow' is given twice in this directive", 46),
    ("nodes, template :: p[4]", "'template' cannot be combined with 'nodes': the names after '::' would be "
     "node arrays and templates at once", 20),
    ("template, align [i] with t[i] :: a", "'align' cannot be combined with 'template'", 23),
    ("align [i] with t[i], distribute (block) onto p :: a",
     "'distribute' cannot be combined with 'align'", 34),
    ("nodes :: p", "'p' is not a nodes declaration: give its extents ('p[4]')", 22),
    ("nodes :: q[2], p", "'p' is not a nodes declaration", 28),
    ("nodes [4] :: p[4]", "the extents of 'p' are given twice: after 'nodes' and here", 27),
    ("template :: t", "'t' is not a template declaration: give its extents ('t[N]')", 25),
    ("template, distribute(block) onto p :: t", "'t' is not a template declaration", 51),
    ("template [N] :: t(0:3)", "the extents of 't' are given twice: after 'template' and here", 30),
    ("distribute (block) onto p :: t[8]",
     "template 't' is not declared by this directive: add the 'template' attribute", 42),
    ("align [i] with t[i] :: a[N]",
     "'a' is not an array name: 'align' takes the names of declared arrays", 36),
    ("align [i] with t[i], shadow (1) :: b.a(1)",
     "'b.a' is not an array name: 'align' and 'shadow' take", 48),
    ("align [i] with t[i] shadow [1] :: a", "expected ',' before the attribute 'shadow'", 33),
    ("align [i] with t[i], :: a",
     "expected an attribute (nodes, template, distribute, align or shadow) after ',', found ':'", 34),
    ("align [i] with t[i], loop on t(i) :: a", "expected an attribute (nodes, template, distribute, align or "
     "shadow) after ',', found 'loop'", 34),
    ("nodes, :: p", "expected an attribute", 20),
    ("distribute (block) :: t", "expected 'onto' after the distribution formats, found ':'", 32),
    ("template, distribute (block) onto p",
     "expected '::' before the template names, found end of directive", 48),
    ("align [i] with t(i), shadow :: a", "expected '[' after 'shadow', found ':'", 41),
    ("static_desc a, b", "expected '::' after 'static_desc', found 'a'", 25),
    ("static_desc ::", "expected a node array, template or array name, found end of directive", 27),
    ("static_desc :: a,", "expected a node array, template or array name", 30),
    ("static_desc :: a b", "extra tokens after 'static_desc' directive: 'b'", 30),
    # loop
    ("loop t(i)", "expected 'on' in 'loop' directive, found 't'", 18),
    ("loop (i) on t", "expected '(' or '[' after template name 't'", 26),
    ("loop () on t(i)", "empty name list in 'loop'", 19),
    ("loop on t(i) foo", "unknown clause 'foo' in 'loop' directive", 26),
    ("loop [] on t[i]", "expected a loop index, found ']'", 19),
    ("loop [i on t[i]", "expected ']', found 'on'", 21),
    ("loop [i+1] on t[i]", "expected ']', found '+'", 20),
    ("loop [i](j) on t[i]", "expected 'on' in 'loop' directive, found '('", 21),
    ("loop [i][*] on t[i]", "expected a loop index, found '*'", 22),
    ("loop on t(i) expand", "expected '(' after 'expand', found end of directive", 32),
    ("loop on t(i) expand()", "expected a loop width, found ')'", 33),
    ("loop on t(i) expand(/unbnd/ 1)", "expected 'unbound' after '/', found 'unbnd'", 34),
    ("loop on t(i) expand(/unbound 1)", "expected '/' after 'unbound', found '1'", 42),
    ("loop on t(i) margin(1:)", "expected an upper loop width, found ')'", 35),
    ("loop on t(i) expand(1) margin(1)", "'margin' and 'expand' cannot be combined", 36),
    ("loop on t(i) expand(1) expand(1)", "duplicate 'expand' clause in 'loop'", 36),
    ("loop on t(i) PEEL_AND_WAIT", "expected '(' after 'peel_and_wait'", 39),
    ("loop on t(i) peel_and_wait(1)", "expected ',' after the async id of 'peel_and_wait', found ')'", 41),
    ("loop on t(i) acc expand(1)", "'expand' clause must come before 'acc'", 30),
    ("loop on t(i) threads", "'threads' clause is not supported yet", 26),
    ("loop on t(i:2)", "expected ')', found ':'", 24),
    ("loop on t(i))", "unbalanced ')'", 25),
    ("loop on t[i][", "unbalanced '['", 25),
    ("loop on t(i) reduction(+ s)", "expected ':' after the reduction operator, found 's'", 38),
    ("loop on t(i) reduction(foo:s)", "unknown reduction operator 'foo'", 36),
    ("loop on t(i) reduction(%:s)", "unknown reduction operator '%'", 36),
    ("loop on t(i) reduction(sum:s)", "unknown reduction operator 'sum'", 36),
    ("loop on t(i) reduction(max:s/i/)", "location variables are only allowed with firstmax", 41),
    ("loop on t(i) reduction(firstmax:s)", "reduction 'firstmax' needs location variables", 45),
    ("loop on t(i) reduction(lastmin:s/i)", "expected '/' after the location variables", 47),
    ("loop on t(i) reduction(+:)", "empty variable list in 'reduction'", 38),
    ("loop on t(i) reduction(+:s", "unbalanced '('", 35),
    ("loop on t(i) acc reduction(+:s)", "'reduction' clause must come before 'acc'", 30),
    ("loop on t(i) private(x) acc", "'private' clause must follow 'acc'", 26),
    ("loop on t(i) num_threads(4) acc", "'num_threads' clause must follow 'acc'", 26),
    ("loop on t(i) acc acc", "duplicate 'acc' clause", 30),
    ("loop on t(i) acc private()", "empty name list in 'private'", 38),
    ("loop on t(i) acc private(*)", "expected a variable name, found '*'", 38),
    ("loop on t(i) acc num_threads()", "'num_threads' needs 1 to 3 values", 42),
    ("loop on t(i) acc num_threads(1,2,3,4)", "'num_threads' takes at most 3 values", 48),
    ("loop on t(i) acc num_threads(1) num_threads(2)", "duplicate 'num_threads' clause", 45),
    ("loop on t(i) acc gang", "unknown clause 'gang' in 'loop' directive", 30),
    # reduction directive
    ("reduction(+:s) acc acc", "duplicate 'acc' clause in 'reduction' directive", 32),
    ("task on p[0] acc", "'acc' clause is not XMP-ACC syntax; ", 26),
    ("wait_async (1) acc acc", "duplicate 'acc' clause in 'wait_async' directive", 32),
    ("reduction(+:s/i/)", "location variables are only allowed with max, min, firstmax", 26),
    ("reduction(firstmax:s)", "reduction 'firstmax' needs location variables", 32),
    ("reduction(max:s/ /)", "empty location variable list", 30),
    ("reduction(max:s/i,/)", "expected a location variable, found '/'", 31),
    ("reduction(+:s) async", "expected '(' after 'async'", 33),
    ("reduction(+:s) on p on q", "duplicate 'on' clause in 'reduction' directive", 33),
    ("reduction +:s", "expected '(' after 'reduction', found '+'", 23),
    ("reduction(+:s) foo", "unknown clause 'foo' in 'reduction' directive", 28),
    # reflect
    ("reflect", "expected an array name or '(', found end of directive", 20),
    ("reflect ()", "empty name list in 'reflect'", 22),
    ("reflect (a,)", "expected an array name, found ')'", 24),
    ("reflect (a) width(/periodc/1)", "expected 'periodic' after '/', found 'periodc'", 32),
    ("reflect (a) width(/periodic 1)", "expected '/' after 'periodic', found '1'", 41),
    ("reflect (a) width()", "expected a reflect width, found ')'", 31),
    ("reflect (a) width(1", "unbalanced '('", 30),
    ("reflect (a) width(1) width(1)", "duplicate 'width' clause", 34),
    ("reflect (a) orthogonal orthogonal", "duplicate 'orthogonal' clause", 36),
    ("reflect (a) async(1) async(2)", "duplicate 'async' clause", 34),
    ("reflect (a) acc acc", "duplicate 'acc' clause in 'reflect' directive", 29),
    ("reflect (a) (b)", "extra tokens after 'reflect' directive: '('", 25),
    # bcast, barrier, task
    ("bcast x", "expected '(' after 'bcast', found 'x'", 19),
    ("bcast ()", "empty name list in 'bcast'", 20),
    ("bcast (x) acc acc", "duplicate 'acc' clause in 'bcast' directive", 27),
    ("bcast (x) from", "expected a node array or template name, found end of directive", 27),
    ("bcast (*)", "expected a variable name, found '*'", 20),
    ("bcast (a[])", "expected a subscript or a triplet after '[', found ']'", 22),
    ("bcast (a[0:5:])", "expected a section step, found ']'", 26),
    ("bcast (a[0:5)", "expected ']', found ')'", 25),
    ("bcast (x) from p(1) from p(2)", "duplicate 'from' clause", 33),
    ("bcast (x) on p[1:]:", "extra tokens after 'bcast' directive: ':'", 31),
    ("barrier x", "unknown clause 'x' in 'barrier' directive", 21),
    ("barrier on", "expected a node array or template name", 23),
    ("barrier acc(1)", "extra tokens after 'barrier' directive", 24),
    ("barrier ;", "extra tokens after 'barrier' directive", 21),
    ("barrier on p(1", "unbalanced '('", 25),
    ("barrier on p[1]]", "unbalanced ']'", 28),
    ("task p(1)", "expected 'on' after 'task', found 'p'", 18),
    ("task on p(1) nocomm(1)", "extra tokens after 'task' directive: '('", 32),
    ("task on p(1:2:)", "expected a triplet step, found ')'", 27),
    # XMP-ACC
    ("acc replicate", "expected '(' after 'replicate', found end of directive", 26),
    ("acc replicate x", "expected '(' after 'replicate', found 'x'", 27),
    ("acc replicate ()", "empty name list in 'replicate'", 28),
    ("acc replicate (x) (y)", "extra tokens after 'acc replicate' directive", 31),
    ("acc replicate_sync", "'in' or 'out' clause is required in 'acc replicate_sync'", 31),
    ("acc replicate_sync (x)", "'in' or 'out' clause is required", 32),
    ("acc replicate_sync in (x) inout (y)", "unknown clause 'inout' in 'acc replicate_sync'", 39),
    ("acc replicate_sync in x", "expected '(' after 'in', found 'x'", 35),
    ("acc replicate_sync out ()", "empty name list in 'out'", 37),
]


@pytest.mark.parametrize(("text", "fragment", "col"), BAD, ids=[t or "<empty>" for t, _, _ in BAD])
def test_bad(text: str, fragment: str, col: int) -> None:
    with pytest.raises(XmpError) as err:
        parse(text)
    assert fragment in err.value.message
    assert err.value.loc == SourceLoc("t.c", 1, col), err.value.message


@pytest.mark.parametrize("text", [t for t, _, _ in BAD])
def test_messages_are_lower_case(text: str) -> None:
    with pytest.raises(XmpError) as err:
        parse(text)
    assert err.value.message[0] == "'" or err.value.message[0].islower()
