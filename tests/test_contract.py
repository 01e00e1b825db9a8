"""The contract between generated code and the runtime (runtime/contract.py).

Both sides must agree: every entry has a ``Runtime`` method of the same name taking the
same number of arguments, and the checked-in header that generated C includes
(``include/xmpacc_rt.h``) is exactly what the contract renders.
"""

from __future__ import annotations

import inspect
from pathlib import Path

from xmpacc.runtime import contract
from xmpacc.runtime.api import Runtime

HEADER = Path(contract.__file__).parent / "include" / contract.HEADER


def test_header_is_rendered_from_the_contract() -> None:
    assert HEADER.read_text() == contract.c_header(), \
        "run: python -m xmpacc.runtime.contract > runtime/include/xmpacc_rt.h"


def test_every_entry_has_a_runtime_method_with_its_arity() -> None:
    for entry in contract.ENTRIES:
        method = getattr(Runtime, entry.name, None)
        assert method is not None, f"Runtime has no method {entry.name}"
        params = list(inspect.signature(method).parameters)[1:]  # without self
        assert len(params) == entry.arity, f"{entry.name}: {len(params)} != {entry.arity}"


def test_entry_names_are_unique_and_prefixed() -> None:
    names = [e.name for e in contract.ENTRIES]
    assert len(names) == len(set(names))
    assert all(n.startswith("_xmpacc_") for n in names)
    assert all(t in contract.C_TYPES for e in contract.ENTRIES for t, _ in e.params)
