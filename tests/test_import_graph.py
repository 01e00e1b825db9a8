"""The shape of the code, checked from the source: no import cycles (lazy and
``TYPE_CHECKING`` imports included), no imports of another module's ``_names``, and the
layering of ``xmpacc/passes`` (one subpackage per stage of ``driver.py``, two libraries
that the stages share).

The graph is read with ``ast`` from every ``.py`` file of ``xmpacc/`` and ``runtime/``
(installed as ``xmpacc.runtime``); nothing is imported, so a cycle that Python would
survive (a lazy import, an annotation under ``TYPE_CHECKING``) still fails here.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SOURCES = {"xmpacc": ROOT / "xmpacc", "xmpacc.runtime": ROOT / "runtime",
           "xmpacc.templates": ROOT / "templates"}
# The passes' libraries: helpers and value types that several stages use.  Every other
# subpackage of xmpacc.passes is a stage of the driver.
LIBRARIES = ("xmpacc.passes.common", "xmpacc.passes.kernel")


def _modules() -> dict[str, Path]:
    out: dict[str, Path] = {}
    for prefix, folder in SOURCES.items():
        for path in folder.rglob("*.py"):
            parts = path.relative_to(folder).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join((prefix, *parts))] = path
    return out


MODULES = _modules()


def _package(name: str) -> str:
    return name if MODULES[name].name == "__init__.py" else name.rsplit(".", 1)[0]


@functools.cache
def _tree(name: str) -> ast.Module:
    return ast.parse(MODULES[name].read_text(), str(MODULES[name]))


def _imports(name: str) -> Iterator[tuple[str, str, int]]:
    """(module, imported name or "", line) of every import in module ``name``, wherever
    it stands (function bodies and ``if TYPE_CHECKING:`` blocks too)."""
    for node in ast.walk(_tree(name)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, "", node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = _package(name).split(".")
                base = base[:len(base) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            for alias in node.names:
                if f"{module}.{alias.name}" in MODULES:
                    yield f"{module}.{alias.name}", "", node.lineno
                else:
                    yield module, alias.name, node.lineno


@functools.cache
def _graph() -> dict[str, frozenset[str]]:
    """Module -> the modules it imports; importing a module also runs its packages'
    ``__init__`` files, so each module depends on its parents too."""
    graph: dict[str, frozenset[str]] = {}
    for name in MODULES:
        deps = {m for m, _, _ in _imports(name) if m in MODULES}
        parts = name.split(".")
        deps |= {".".join(parts[:k]) for k in range(1, len(parts)) if ".".join(parts[:k]) in MODULES}
        graph[name] = frozenset(deps - {name})
    return graph


def _cycles(graph: dict[str, frozenset[str]] | dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def _stage_of(name: str) -> str | None:
    """The stage package (``xmpacc.passes.gpu``) of a module, None outside the stages."""
    parts = name.split(".")
    if len(parts) < 3 or parts[:2] != ["xmpacc", "passes"]:
        return None
    package = ".".join(parts[:3])
    return None if package in LIBRARIES else package


def _is_pass(name: str) -> bool:
    """A module of a stage package with a top-level ``run``: the driver calls it."""
    if _stage_of(name) is None or name == _stage_of(name):
        return False
    return any(isinstance(n, ast.FunctionDef) and n.name == "run" for n in _tree(name).body)


def test_the_graph_is_read() -> None:
    graph = _graph()
    assert "xmpacc.driver" in graph and "xmpacc.runtime.api" in graph
    assert "xmpacc.passes.gpu.gpu" in graph["xmpacc.driver"]


def test_no_import_cycles() -> None:
    assert _cycles(_graph()) == []


def test_the_cycle_finder_finds_a_lazy_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_imports_of_private_names() -> None:
    """``from m import _x`` and ``m._x`` for another module ``m``: a helper that other
    modules need is public, in the module that owns it."""
    found = []
    for name in MODULES:
        for module, imported, line in _imports(name):
            if imported.startswith("_") and not imported.startswith("__") and module.startswith("xmpacc"):
                found.append(f"{MODULES[name]}:{line}: {module}.{imported}")
        tree = _tree(name)
        aliases = {a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
                   and (n.module or "").startswith("xmpacc") for a in n.names}
        aliases |= {a.asname for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names
                    if a.asname and a.name.startswith("xmpacc")}
        for n in ast.walk(tree):
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id in aliases \
                    and n.attr.startswith("_") and not n.attr.startswith("__"):
                found.append(f"{MODULES[name]}:{n.lineno}: {n.value.id}.{n.attr}")
    assert found == []


def test_passes_are_grouped_by_stage() -> None:
    """Every pass module lives in a stage package, and every stage package holds a pass."""
    passes = [m for m in MODULES if _is_pass(m)]
    assert passes
    stages = {m for m in MODULES if _stage_of(m) == m}
    assert stages == {_stage_of(m) for m in passes}
    loose = [m for m in MODULES if m.startswith("xmpacc.passes.") and m.count(".") == 2 and m not in stages
             and m not in LIBRARIES]
    assert loose == []


def test_a_pass_is_imported_by_the_driver_only() -> None:
    importers = {m: sorted(n for n, deps in _graph().items() if m in deps) for m in MODULES if _is_pass(m)}
    assert {m: who for m, who in importers.items() if who != ["xmpacc.driver"]} == {}


@pytest.mark.parametrize("library", LIBRARIES)
def test_libraries_import_no_stage(library: str) -> None:
    wrong = [(m, d) for m, deps in _graph().items() if m.startswith(library) for d in deps if _stage_of(d)]
    assert wrong == []


def test_a_stage_imports_no_other_stage() -> None:
    wrong = [(m, d) for m, deps in _graph().items() if _stage_of(m) for d in deps
             if _stage_of(d) and _stage_of(d) != _stage_of(m)]
    assert wrong == []


def test_the_compiler_and_the_runtime_stay_apart() -> None:
    """The compiler never imports mpi4py or CuPy; the runtime never imports pycparser or
    Jinja2 (the README's shape)."""
    wrong = []
    for name in MODULES:
        runtime = name.startswith("xmpacc.runtime")
        banned = ("pycparser", "jinja2") if runtime else ("mpi4py", "cupy")
        wrong += [(name, m) for m, _, _ in _imports(name) if m.split(".")[0] in banned]
    assert wrong == []
