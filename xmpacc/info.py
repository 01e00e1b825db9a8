"""``--info``: render the facts the passes recorded (``facts.py``) as compiler remarks.

One line per directive, in source order, on stderr:

    laplace_xmp.c:48:13: info: reflect (u): shadow [1][1] of a 31 x 47 double array: 2 x 24 + 2 x 18
        elements (corners included), <= 672 bytes received per node

Sizes are worked out when the extents are integer constants after macro expansion
(``facts.value``), and said to be known at run time otherwise.  Byte counts are upper
bounds per node: the largest block of a distribution, or, when the node count is only
known at run time, the one-node case ("less per node when distributed").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from xmpacc.facts import (
    AlignFacts,
    ArrayFacts,
    CommFacts,
    CopyFacts,
    Dim,
    DistributeFacts,
    Extent,
    ForFacts,
    GmoveFacts,
    InfoFact,
    KernelFacts,
    LoopFacts,
    NodesFacts,
    OwnerFacts,
    ReflectFacts,
    StaticDescFacts,
    TemplateFacts,
    VarFacts,
    WaitFacts,
    allocated,
    buffer_bytes,
    elem_size,
    owned,
    value,
)

# ---------------------------------------------------------------- text pieces


def _names(names: tuple[str, ...] | list[str]) -> str:
    return ", ".join(names) if names else "(none)"


def _num(text: str | None) -> str:
    v = value(text)
    return "*" if text is None else str(v) if v is not None else text


def _qualified(amount: str, ext: Extent, what: str = "bytes") -> str:
    if ext.exact:
        return f"{amount} {what} per node"
    if ext.per_node:
        return f"<= {amount} {what} per node"
    return f"<= {amount} {what} on 1 node, less per node when distributed"


def _bytes(ext: Extent, what: str = "bytes") -> str:
    return "size known at run time" if ext.n is None else _qualified(f"{ext.n:,}", ext, what)


def _sum(exts: list[Extent]) -> Extent:
    if any(x.n is None for x in exts):
        return Extent(None)
    return Extent(sum(x.n for x in exts), all(x.exact for x in exts),  # type: ignore[misc]
                  all(x.per_node for x in exts))


def _local(dims: tuple[Dim, ...], extent: Callable[[Dim], Extent]) -> str:
    """``<= 16 x 24``, ``256/P``, ``31/P x 47``: a node's share of each dimension."""
    parts, bound = [], False
    for d in dims:
        x = extent(d)
        if x.n is None:
            return "of a size known at run time"
        extra = x.n - (value(d.extent) or 0)   # shadow slots of the one-node case
        parts.append(str(x.n) if x.per_node else f"({_num(d.extent)}/P + {extra})" if extra
                     else f"{_num(d.extent)}/P")
        bound |= x.per_node and not x.exact
    return ("<= " if bound else "") + " x ".join(parts)


def _shape(a: ArrayFacts | VarFacts) -> str:
    exts = [d.extent for d in a.dims] if isinstance(a, ArrayFacts) else list(a.extents)
    return " x ".join(_num(e) for e in exts) + f" {a.elem or 'struct'}" if exts else a.elem or "struct"


def _shadow_spec(a: ArrayFacts) -> str:
    out = ""
    for d in a.dims:
        if d.shadow is None:
            out += "[*]"
        else:
            lo, hi = _num(d.shadow[0]), _num(d.shadow[1])
            out += f"[{lo}]" if lo == hi else f"[{lo}:{hi}]"
    return out


def _mapping(a: ArrayFacts) -> str:
    return ", ".join(f"dim {k}: {_dist(d.dist, d.width)} of {a.template} dim {d.tdim}"
                     if d.tdim >= 0 and d.dist != "none"
                     else f"dim {k}: not distributed" for k, d in enumerate(a.dims))


def _dist(kind: str, width: str | None) -> str:
    return f"cyclic({_num(width)})" if width else "not distributed" if kind == "none" else kind


def _prefix(names: list[str], groups: list[tuple[list[str], ArrayFacts]]) -> str:
    """``u, v: `` before a group's text when the directive's arrays are not all alike."""
    return f"{_names(names)}: " if len(groups) > 1 else ""


def _layout(a: ArrayFacts) -> tuple[object, ...]:
    return a.elem, tuple((d.extent, d.tdim, d.dist, d.width, d.tmpl_extent, d.nodes) for d in a.dims)


def _groups(arrays: tuple[ArrayFacts, ...], key: Callable[[ArrayFacts], object] = lambda a: (a.elem, a.dims)
            ) -> list[tuple[list[str], ArrayFacts]]:
    """Arrays alike, together (the list form of align/shadow names several)."""
    out: list[tuple[list[str], ArrayFacts]] = []
    for a in arrays:
        for names, first in out:
            if key(first) == key(a):
                names.append(a.name)
                break
        else:
            out.append(([a.name], a))
    return out

# ---------------------------------------------------------------- one renderer per fact


def _nodes(f: NodesFacts) -> str:
    vals = [value(e) for e in f.extents]
    shape = " x ".join(_num(e) for e in f.extents)
    if None in vals:
        what = f"{len(vals)}-D node array {shape} of all the MPI processes ('*': known at run time)" \
            if len(vals) > 1 else \
            "1-D node array of all the MPI processes (their number is known at run time)"
    else:
        total = 1
        for v in vals:
            total *= v  # type: ignore[operator]
        what = (f"{shape} = " if len(vals) > 1 else "") + f"{total:,} nodes, one MPI process each"
    return f"{what}; descriptor {f.descriptor}"


def _template(f: TemplateFacts) -> str:
    if not f.bounds:   # t[:]: global-view §4
        return f"unfixed: its extents are given by template_fix at run time; descriptor {f.descriptor}"
    counts = [value(f"({hi})-({lo})+1") for lo, hi in f.bounds]
    ranges = ", ".join(f"{_num(lo)}..{_num(hi)}" for lo, hi in f.bounds)
    size = " x ".join(str(c) for c in counts) + " indices" if None not in counts else "size known at run time"
    return f"{size} ({ranges}); descriptor {f.descriptor}"


def _distribute(f: DistributeFacts) -> str:
    parts, m = [], 0
    for k, (kind, width, nodes, count) in enumerate(f.dims):
        if kind == "none":
            parts.append(f"dim {k} not distributed")
            continue
        t, p = value(count), value(nodes)
        share = f"<= {-(-t // p):,} indices per node" if t is not None and p and kind == "block" else \
            "blocks of sizes from the mapping array" if kind == "gblock" else \
            "dealt round robin" if kind == "cyclic" else f"{_num(count)}/P indices per node"
        parts.append(f"dim {k} {_dist(kind, width)} over {f.nodes} dim {m} ({share})")
        m += 1
    return "; ".join(parts)


def _align(f: AlignFacts) -> str:
    if f.shadow:
        return _shadow(f)
    out, groups = [], _groups(f.arrays, _layout)
    for names, a in groups:
        each = " each" if len(names) > 1 else ""
        out.append(f"{_prefix(names, groups)}{_shape(a)}{each}, local block {_local(a.dims, owned)} "
                   f"({_mapping(a)})")
    descriptors = _names([a.descriptor for a in f.arrays])
    return "; ".join(out) + f"; descriptor{'s' if len(f.arrays) > 1 else ''} {descriptors}"


def _shadow(f: AlignFacts) -> str:
    out, groups = [], _groups(f.arrays)
    for names, a in groups:
        full = [k for k, d in enumerate(a.dims) if d.shadow is None]
        what = f"full shadow of dim {', '.join(map(str, full))} (the whole extent on every node), " if full \
            else ""
        out.append(f"{_prefix(names, groups)}{what}local buffer {_local(a.dims, allocated)} {a.elem}, "
                   f"{_bytes(buffer_bytes(a))}{' each' if len(names) > 1 else ''}")
    return "; ".join(out)


def _loops(f: LoopFacts) -> str:
    loops = ", ".join(f"{var} ({_dist(kind, width)}, template {f.template} dim {tdim})"
                      for var, tdim, kind, width in f.loops)
    return f"distributed loop{'s' if len(f.loops) > 1 else ''} {loops}"


def _reductions(f: LoopFacts, how: str) -> str:
    if not f.reductions:
        return ""
    clauses = " ".join(f"reduction({op}: {', '.join(names)})" for op, names in f.reductions)
    return f"; {clauses}: {how} (MPI allreduce)"


def _host_loop(f: LoopFacts) -> str:
    return f"{_loops(f)}, each node runs its own iterations on the host" + \
        _reductions(f, "identity on all nodes but one before the loop, combined over the nodes after it")


def _kernel(f: KernelFacts) -> str:
    per = "one thread per local iteration" + (f" of ({', '.join(v for v, *_ in f.loop.loops)})"
                                              if len(f.loop.loops) > 1 else "")
    positions = [v for v, _t, kind, width in f.loop.loops if kind == "cyclic" and width]
    if positions:   # loopsched.CyclicLoop: threads follow owned positions, not iterations
        per += (f" (along {_names(positions)}: one per owned index of the loop's range; "
                "threads on indices the loop's step skips do nothing)")
    lanes = f", inner {f.lanes}-loop split over up to 32 lanes (accumulators {_names(f.accumulators)})" \
        if f.lanes else f" (no lane split: {f.why})" if f.why else ""
    if isinstance(f.walk, tuple):   # streaming.py: a thread walks rows of the outer loop
        rows, var, windows, vector = f.walk
        others = [v for v, *_ in f.loop.loops if v != var]
        points = f", {vector} consecutive of {others[-1]} with 16-byte loads where aligned" \
            if vector > 1 else ""
        others = others[:-1] if vector > 1 else others
        per = (f"streamed: each thread runs {rows} consecutive local iterations of '{var}'"
               + (f" (and one of {', '.join(others)}{points})" if others else "")
               + (f", keeping {windows} in registers" if windows != "none" else ""))
    threads = f"; {f.block}" if f.block else ""
    # a single loop has no rows to walk: no remark
    unstreamed = isinstance(f.walk, str) and f.walk and len(f.loop.loops) > 1
    stream = f"; not streamed: {f.walk}" if unstreamed else ""
    scalars = f"; replicated scalars {_names(f.scalars)}" if f.scalars else ""
    return (f"{_loops(f.loop)} -> kernel {f.kernel}, {per}{lanes}{threads}{stream}; "
            f"device arrays {_names(f.arrays)}"
            f"{scalars}; by value: {_names(f.by_value)}; private: {_names(f.private)}"
            + _reductions(f.loop, _kernel_reductions(f)))


def _kernel_reductions(f: KernelFacts) -> str:
    if not f.reduced_arrays:
        return "per-thread partials combined on the device, then over the nodes"
    return (f"arrays {_names(f.reduced_arrays)} updated atomically on a device temporary, copied back after "
            "the kernel, scalars by per-thread partials combined on the device; then over the nodes")


def _reflect_elements(a: ArrayFacts, widths: tuple[tuple[str, str], ...] | None) -> tuple[list[str], Extent]:
    """What reflect moves into one node's shadow, dimension after dimension like
    runtime/reflect.py: the slab of d spans the allocated extent of the dimensions done
    before it (so corners come along) and the owned block of the others."""
    done: set[int] = set()
    terms, sizes = [], []
    for k, d in enumerate(a.dims):
        if d.tdim < 0 or d.dist == "none":
            continue
        if d.shadow is None:   # all-gather: the others' blocks of the whole extent
            width = Extent(value(d.extent), exact=True)
        else:
            lo, hi = widths[k] if widths and k < len(widths) else d.shadow
            v = [value(lo), value(hi)]
            width = Extent(None if None in v else v[0] + v[1], exact=True)  # type: ignore[operator]
        others = [allocated(o) if j in done or o.tdim < 0 or o.dist == "none" or o.shadow is None
                  else owned(o)
                  for j, o in enumerate(a.dims) if j != k]
        done.add(k)
        factors = [width] + others
        if any(x.n is None for x in factors):
            return [], Extent(None)
        n = 1
        for x in factors:
            n *= x.n  # type: ignore[operator]
        if n:
            terms.append(" x ".join(str(x.n) for x in factors))
            sizes.append(Extent(n, per_node=all(x.per_node for x in factors)))
    return terms, _sum(sizes) if sizes else Extent(0, exact=True)


def _reflect(f: ReflectFacts) -> str:
    out, groups = [], _groups(f.arrays)
    for names, a in groups:
        terms, elems = _reflect_elements(a, f.widths)
        size = elem_size(a.elem)
        kind = "full shadow" if any(d.shadow is None for d in a.dims) else f"shadow {_shadow_spec(a)}"
        of = f"a {_shape(a)} array" if len(names) == 1 else f"{len(names)} arrays of {_shape(a)}"
        what = f"{_prefix(names, groups)}{kind} of {of}"
        if elems.n is None or size is None:
            out.append(f"{what}: size known at run time")
            continue
        moved = Extent(elems.n * size, elems.n == 0, elems.per_node)
        gather = " (all-gather, less the node's own block)" if any(d.shadow is None for d in a.dims) else ""
        each = " each" if len(names) > 1 else ""
        corners = " (corners included)" if len(terms) > 1 else ""
        formula = f"{' + '.join(terms)} elements{corners}, " if terms else ""
        out.append(f"{what}: {formula}{_bytes(moved, 'bytes received')}{each}{gather}")
    where = "; device copies, device to device" if f.acc else ""
    if f.overlap:
        peel = ", ".join(f"template dim {t}: {lo} below, {hi} above"
                         for t, (lo, hi) in enumerate(f.overlap) if lo or hi)
        where += ("; overlapped where an array's block holds 16 MiB or more (XMPACC_OVERLAP_BYTES): "
                  "the next loop's iterations that read no shadow slot run during the exchange, the "
                  f"rim behind it ({peel})" if peel else
                  "; overlapped: the next loop reads no shadow slot and runs during the exchange")
    if f.push:
        where += ("; from the second call, where every neighbour is another GPU of this host, the loop's "
                  "kernel stores the rows into the neighbours itself (XMPACC_PUSH=0: never)")
    return "; ".join(out) + where


def _copy(f: CopyFacts) -> str:
    sizes = [buffer_bytes(v) for v in f.variables]
    total = _sum(sizes)
    if len(f.variables) == 1:
        v = f.variables[0]
        amount = (f"{_local(v.dims, allocated)} {v.elem}" if isinstance(v, ArrayFacts) else _shape(v)) + \
            f", {_bytes(total)}"
    elif total.n is None:
        amount = _bytes(total)
    elif len({x.n for x in sizes}) == 1:
        amount = _qualified(f"{len(sizes)} x {sizes[0].n:,} = {total.n:,}", total)
    else:
        amount = _qualified(" + ".join(f"{x.n:,}" for x in sizes) + f" = {total.n:,}", total)
    buffers = f"whole local buffer{'s' if len(f.variables) > 1 else ''} incl. shadow: {amount}" \
        if any(isinstance(v, ArrayFacts) for v in f.variables) else amount
    if f.direction == "alloc":
        life = "allocated at start-up for the whole program" if f.file_scope else \
            "allocated here, freed at the end of the block"
        return f"device copies, {buffers}; {life}"
    way = {"in": "host -> device",
           "out": "device -> host"}.get(f.direction, "host -> device and device -> host")
    return f"{way}, {buffers}"


def _comm(f: CommFacts) -> str:
    nodes = "the on-set" if f.on else "the executing nodes"
    if f.kind == "task":
        return "the block runs only on the nodes of the on-set, which become the executing nodes inside"
    if f.kind == "barrier":
        return f"MPI barrier of {nodes}"
    total = _sum([buffer_bytes(v) for v in f.variables])
    amount = f"{total.n:,} bytes" if total.n is not None else "a size known at run time"
    if f.kind == "bcast":
        return (f"MPI broadcast of {_names([v.name for v in f.variables])} ({amount}) "
                f"from the source node to {nodes}")
    return f"MPI allreduce ({f.op}) of {_names([v.name for v in f.variables])} ({amount}) over {nodes}"


def _gmove(f: GmoveFacts) -> str:
    if f.lhs != "distributed" and f.rhs != "distributed":
        how = "a plain copy on every node, no communication"
    elif f.mode == "in":
        how = "the executing nodes get the elements from their owners " + \
              ("(their gmove agents, no code on the owners)" if f.acc
               else "(MPI one-sided, no code on the owners)")
    elif f.mode == "out":
        how = "the executing nodes put the elements into their owners' blocks " + \
              ("(their gmove agents)" if f.acc else "(MPI one-sided)")
    elif f.rhs != "distributed":
        how = "each owner of the left-hand side copies its own elements, no communication"
    elif f.lhs == "scalar":
        how = "every executing node gets the value from its owner"
    elif f.lhs != "distributed":
        how = "every executing node gets all the elements from their owners"
    else:
        how = ("a copy between the owners, one message per pair of nodes at most, "
               "planned at the first execution")
    device = "; between the device copies" if f.acc else ""
    later = f"; asynchronous: complete after wait_async ({f.async_id})" if f.async_id else ""
    return f"{f.statement}: {how}{device}{later}"


def _owner(f: OwnerFacts) -> str:
    text = f"{f.statement}: each node computes the elements whose template {f.template} element it owns, " \
           "no communication"
    if f.temporary:
        text += "; the right-hand side goes through a temporary (it reads the array it writes)"
    if f.checked:
        text += f"; run-time check that the elements of {_names(list(f.checked))} are local"
    return text


def _for(f: ForFacts) -> str:
    if f.why:
        return f"in 'acc kernels', runs in order in one GPU thread: {f.why}"
    extra = [f"reduction({op}: {v})" for v, op in f.reductions] + ([f"private {_names(list(f.private))}"]
                                                                  if f.private else [])
    return "in 'acc kernels', iterations independent: one GPU thread per iteration" + \
        (f" ({'; '.join(extra)})" if extra else "")


def _wait(f: WaitFacts) -> str:
    return ("made on the device: every stream waits there for the queues, and the host goes on "
            f"(only device work follows); the host waits {f.host_waits}")


def _static_desc(f: StaticDescFacts) -> str:
    parts = []
    if f.file_scope:
        parts.append(f"descriptors of {_names(f.file_scope)} are file-lifetime already")
    if f.block_scope:
        parts.append(f"descriptors of {_names(f.block_scope)} are made at each entry of their block and "
                     "released at its exit, as without static_desc (the program means the same)")
    if f.kept:
        parts.append(f"the descriptors of the parameters {_names(f.kept)} are kept from call to call: a "
                     "call that passes the block of the last one makes no runtime call for them")
    return "; ".join(parts) + ("" if f.kept else "; nothing to do")


_RENDER: dict[type, Callable[[Any], str]] = {
    NodesFacts: _nodes, TemplateFacts: _template, DistributeFacts: _distribute, AlignFacts: _align,
    LoopFacts: _host_loop, KernelFacts: _kernel, ReflectFacts: _reflect, CopyFacts: _copy, CommFacts: _comm,
    GmoveFacts: _gmove, OwnerFacts: _owner, ForFacts: _for, StaticDescFacts: _static_desc, WaitFacts: _wait,
}

# ---------------------------------------------------------------- the remarks

_PRAGMA = re.compile(r"^\s*#\s*pragma\s+(?:xmp\s+(.*)|(acc\b.*))$")   # an OpenACC line keeps its "acc"
_COMMENT = re.compile(r"/\*.*?\*/|//.*$")


def _as_written(loc: Any, files: dict[str, list[str]]) -> str | None:
    """The directive as the user wrote it (continuation lines joined, comments dropped)."""
    if loc.file not in files:
        try:
            with open(loc.file, encoding="utf-8", errors="replace") as src:
                files[loc.file] = src.read().splitlines()
        except OSError:
            files[loc.file] = []
    lines, k = files[loc.file], loc.line - 1
    if not 0 <= k < len(lines):
        return None
    text = lines[k]
    while text.endswith("\\") and k + 1 < len(lines):
        k += 1
        text = text[:-1] + " " + lines[k]
    m = _PRAGMA.match(_COMMENT.sub(" ", text))
    return " ".join((m.group(1) or m.group(2)).split()) if m else None


def render(infos: list[InfoFact]) -> list[str]:
    """One ``file:line:col: info: directive: what was generated`` line per fact, in source order."""
    files: dict[str, list[str]] = {}
    seen: set[InfoFact] = set()
    out = []
    for fact in sorted(infos, key=lambda f: (f.loc.file, f.loc.line, f.loc.col)):
        if fact in seen:
            continue
        seen.add(fact)
        written = _as_written(fact.loc, files) or type(fact.facts).__name__.removesuffix("Facts").lower()
        out.append(f"{fact.loc}: info: {written}: {_RENDER[type(fact.facts)](fact.facts)}")
    return out
