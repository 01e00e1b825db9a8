"""The messages of passes/locality/locality.py: what is wrong with an access and the fix, with the
shadow widths the loop needs (every access of the array in the loop counts, so that
``a[i - 1]`` and ``a[i + 1]`` both lead to ``shadow a[1]``)."""

from __future__ import annotations

from collections.abc import Callable

from xmpacc.diagnostics import SourceLoc
from xmpacc.passes.common.accesses import Access, text_value
from xmpacc.passes.locality.findings import Finding, LoopInfo
from xmpacc.passes.locality.shadow_state import INF, Stale
from xmpacc.symbols import ArrayDim, ArraySym


def _width(lo: int, hi: int) -> str:
    return str(lo) if lo == hi else f"{lo}:{hi}"


def _declared(dim: ArrayDim) -> str:
    if dim.full_shadow:
        return "*"
    return dim.shadow_lo if dim.shadow_lo == dim.shadow_hi else f"{dim.shadow_lo}:{dim.shadow_hi}"


def shadow_fix(sym: ArraySym, needs: dict[int, tuple[int, int]], full: set[int]) -> str:
    """``a[1]``: the shadow declaration that covers ``needs`` (dimension -> (lo, hi)) and
    ``full`` (dimensions that need every element), keeping what is declared."""
    parts = []
    for k, dim in enumerate(sym.dims):
        if k in full or dim.full_shadow:
            parts.append("*")
        elif k in needs:
            lo, hi = text_value(dim.shadow_lo) or 0, text_value(dim.shadow_hi) or 0
            parts.append(_width(max(lo, needs[k][0]), max(hi, needs[k][1])))
        else:
            parts.append(_declared(dim))
    return sym.name + "".join(f"[{p}]" for p in parts)


def _needs(same: list[Access], classify: Callable[[Access], list[Finding]]) -> dict[int, tuple[int, int]]:
    needs: dict[int, tuple[int, int]] = {}
    for other in same:
        for f in classify(other):
            if f.kind != "anywhere" and max(f.below, f.above) < INF:
                lo, hi = needs.get(f.dim, (0, 0))
                needs[f.dim] = (max(lo, f.below), max(hi, f.above))
    return needs


def _runs(info: LoopInfo, finding: Finding, acc: Access) -> str:
    gov, _offset = info.governing.get(acc.sym.dims[finding.dim].tdim, (None, 0))
    if gov == "*":
        return f"this loop runs each iteration on every node that owns part of {info.on}"
    widened = f" (and, with {info.range.text()}, the iterations next to that node's block)" \
        if info.range.clause is not None else ""
    return f"this loop runs each iteration on the owner of {info.on}{widened}"


def outside(acc: Access, finding: Finding, info: LoopInfo, same: list[Access],
            classify: Callable[[Access], list[Finding]]) -> str:
    """A read or write that may leave the node's block and shadow (worded "is written" when
    it certainly does, which pass locality makes an error; the others are warnings)."""
    text, name = acc.text(), acc.sym.name
    runs = _runs(info, finding, acc)
    cyclic = info.tmpl.dist_kind(acc.sym.dims[finding.dim].tdim) == "cyclic"
    if finding.kind == "outside":
        n, where = (finding.below, "below") if finding.below > 0 else (finding.above, "above")
        side = f"{n} element{'s' if n > 1 else ''} {where}"
        why = f"and {info.tmpl.name} is cyclic-distributed, so neighbouring elements are on different " \
              "nodes" if cyclic else f"and {text} lies {side} that node's block"
    else:
        why = f"which need not hold {text}"
    if acc.writes:
        head = f"{text} is written outside this node's block" if finding.kind == "outside" else \
            f"{text} may be written outside this node's block"
        return f"{head}: {runs}, {why}; a distributed loop may write only the elements of its node"
    head = f"{text} may be on another node: {runs}, {why}"
    if cyclic:
        return head + f"; cyclic dimensions take no shadow (distribute {info.tmpl.name} by block to read " \
                      "other nodes' elements through a shadow)"
    full = {finding.dim} if finding.kind == "anywhere" else set()
    fix = shadow_fix(acc.sym, _needs(same, classify), full)
    if acc.sym.shadow is None:
        return head + f"; declare '#pragma xmp shadow {fix}' and add '#pragma xmp reflect ({name})' before " \
                      "the loop"
    return head + f", beyond the shadow of '{name}'; widen it to '#pragma xmp shadow {fix}' and reflect " \
                  f"({name}) before the loop"


def writes_shadow(acc: Access, info: LoopInfo) -> str:
    name = acc.sym.name
    return (f"{acc.text()} writes a shadow slot of '{name}': this loop runs each iteration on the owner of "
            f"{info.on}, and the element belongs to a neighbour; the value stays on this node and the next "
            f"reflect ({name}) overwrites it (if the loop adds into its neighbours' elements on purpose, "
            f"'#pragma xmp reduce_shadow ({name})' after it gives them to their owners)")


def stale_shadow(acc: Access, stale: Stale, loop: SourceLoc, reach: dict[int, tuple[int, int]]) -> str:
    name = acc.sym.name
    head = f"{acc.text()} reads the shadow of '{name}', which is stale here: "
    if stale.pending is None and stale.partial_loc is not None and stale.fresh is not None:
        return _partial(acc, stale, reach)
    if stale.pending is not None and stale.reflect_loc is not None:
        return head + (f"the '{stale.reflect_text}' of line {stale.reflect_loc.line} may still be running; "
                       f"add '#pragma xmp wait_async ({stale.reflect_id})' before this loop")
    written = stale.loc
    when = " (in the previous iteration)" if (written.file, written.line) >= (loop.file, loop.line) else ""
    return head + (f"'{name}' is {stale.cause} at line {written.line}{when} and not reflected since; "
                   f"add '#pragma xmp reflect ({name})' before this loop")


def _partial(acc: Access, stale: Stale, reach: dict[int, tuple[int, int]]) -> str:
    """The last reflect refreshed too little: a width too small, or no corners."""
    assert stale.fresh is not None and stale.partial_loc is not None
    did = f"the '{stale.partial_text}' of line {stale.partial_loc.line}"
    name = acc.sym.name
    if stale.within(reach):
        return (f"{acc.text()} reads the shadow of '{name}' in a corner, which {did} does not exchange; "
                f"drop 'orthogonal' there")
    k, (lo, hi) = next((k, r) for k, r in reach.items()
                       if r[0] > stale.fresh[k][0] or r[1] > stale.fresh[k][1])
    n, where = (lo, "below") if lo > stale.fresh[k][0] else (hi, "above")
    got = stale.fresh[k][0] if where == "below" else stale.fresh[k][1]
    whose = "the width of its reflect_init" if stale.partial_text.startswith("reflect_do") else "its width"
    return (f"{acc.text()} reads the shadow of '{name}' {n} element{'s' if n > 1 else ''} {where} the block, "
            f"beyond what {did} refreshes ({got}); widen {whose} to "
            f"'width({_needed(acc.sym, stale.fresh, reach)})'")


def _needed(sym: ArraySym, fresh: tuple[tuple[int, int], ...], reach: dict[int, tuple[int, int]]) -> str:
    """The width list that refreshes ``fresh`` and ``reach`` (whole-shadow dimensions as
    declared)."""
    parts = []
    for k, dim in enumerate(sym.dims):
        lo, hi = fresh[k]
        lo, hi = max(lo, reach.get(k, (0, 0))[0]), max(hi, reach.get(k, (0, 0))[1])
        if dim.full_shadow:      # any width but 0 gathers the whole dimension
            parts.append("1")
        else:
            parts.append(_declared(dim) if max(lo, hi) >= INF else _width(lo, hi))
    return ", ".join(parts)
