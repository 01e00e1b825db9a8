"""The contract between generated code and the runtime (runtime/contract.py).

Both sides must agree: every entry has one method of the same name taking the same number
of arguments, on the runtime or on exactly one of the concerns it is composed of
(``Runtime.entries()``, what the launcher binds), and the checked-in header that generated C
includes (``include/xmpacc_rt.h``) is exactly what the contract renders.
"""

from __future__ import annotations

import inspect
from pathlib import Path
from types import SimpleNamespace

from xmpacc.runtime import contract
from xmpacc.runtime.api import Runtime

HEADER = Path(contract.__file__).parent / "include" / contract.HEADER


def test_header_is_rendered_from_the_contract() -> None:
    assert HEADER.read_text() == contract.c_header(), \
        "run: python -m xmpacc.runtime.contract > runtime/include/xmpacc_rt.h"


class _World:
    """Enough of MPI_COMM_WORLD to make a runtime: nothing here communicates."""

    def Get_rank(self) -> int:  # noqa: N802 - mpi4py's name
        return 0

    def Get_size(self) -> int:  # noqa: N802 - mpi4py's name
        return 1


def _runtime() -> Runtime:
    return Runtime(_World(), SimpleNamespace())


def test_every_entry_is_implemented_once_with_its_arity() -> None:
    rt = _runtime()
    owners = (rt, *rt.concerns())
    for entry in contract.ENTRIES:
        found = [type(o).__name__ for o in owners if hasattr(o, entry.name)]
        assert len(found) == 1, f"{entry.name} is implemented by {found or 'nothing'}"
    entries = rt.entries()
    assert sorted(entries) == sorted(e.name for e in contract.ENTRIES)
    for entry in contract.ENTRIES:
        params = list(inspect.signature(entries[entry.name]).parameters)   # bound: without self
        assert len(params) == entry.arity, f"{entry.name}: {len(params)} != {entry.arity}"



def test_the_runtime_is_composed_not_mixed() -> None:
    """A mixin defining a method name of the runtime's would silently lose it: the runtime
    has no base class, and the fast reflect is a concern whose methods the others hold."""
    rt = _runtime()
    assert Runtime.__bases__ == (object,)
    assert rt.dynamic.forget == rt.fast_reflect.forget
    assert rt.shadows.offer == rt.fast_reflect.offer


def test_only_entries_carry_the_entry_prefix() -> None:
    """A method named like an entry that is none would never be called from C."""
    rt = _runtime()
    names = {e.name for e in contract.ENTRIES}
    for owner in (rt, *rt.concerns()):
        stray = [n for n in dir(type(owner)) if n.startswith("_xmpacc_") and n not in names]
        assert not stray, f"{type(owner).__name__}: {stray}"


def test_entry_names_are_unique_and_prefixed() -> None:
    names = [e.name for e in contract.ENTRIES]
    assert len(names) == len(set(names))
    assert all(n.startswith("_xmpacc_") for n in names)
    assert all(t in contract.C_TYPES for e in contract.ENTRIES for t, _ in e.params)


def test_the_fingerprint_covers_the_plans_layouts(tmp_path: Path) -> None:
    """A header of the C side changed (a plan's structure grew a field) is another contract:
    a program built against it is refused by a runtime of the other layout instead of
    reading its plans wrongly (launcher.py)."""
    include = Path(contract.__file__).parent / "include"
    for header in include.glob("*.h"):
        (tmp_path / header.name).write_bytes(header.read_bytes())
    assert contract.fingerprint(contract.ENTRIES, tmp_path) == contract.contract_id()
    plans = tmp_path / "xmpacc_replay.h"
    plans.write_text(plans.read_text().replace("int nlocated;", "int nlocated, spare;"))
    assert contract.fingerprint(contract.ENTRIES, tmp_path) != contract.contract_id()
    assert contract.fingerprint(contract.ENTRIES[1:], include) != contract.contract_id()
