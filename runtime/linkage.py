"""Nodes and templates that several files of a program share (declared in a header).

Every file that includes the header runs the directive's start-up call on the same
descriptor (a weak symbol, ``_XMPACC_SHARED``).  The first call creates the object; a
later one checks that it declares the same thing and does nothing more, so the object,
its communicators and the arrays aligned with it stay those of the first call.  Two files
that see different declarations (a macro defined differently in each) are an error that
names both places.
"""

from __future__ import annotations

from typing import Any

from .errors import RuntimeFailure

Seen = dict[tuple[int, str], tuple[str, Any]]


def declared_again(seen: Seen, ptr: int, kind: str, initialized: bool, what: str, signature: Any,
                   where: str) -> bool:
    """True when the descriptor at ``ptr`` was initialised by an earlier file (skip the
    call); ``initialized`` says what the C descriptor says (block-scope descriptors start
    zeroed, so they are always new)."""
    first = seen.get((ptr, kind))
    if not initialized or first is None:
        seen[(ptr, kind)] = (where, signature)
        return False
    if first[1] != signature:
        there = "in a file started before" if first[0] == where else f"at {first[0]}"
        raise RuntimeFailure(where, f"{what} is declared differently by two files of the program "
                                    f"({_show(signature)} here, {_show(first[1])} {there}); "
                                    "declared in a header, it is one object of the whole program, so "
                                    "every file must see the same declaration", collective=True)
    return True


def _show(signature: Any) -> str:
    return " ".join(str(part) for part in signature)
