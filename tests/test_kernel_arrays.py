"""Reductions of arrays and sections on GPU loops, below the programs
(tests/acc_programs/acc_array_reductions.c and tests/xacc_compute/array_reductions.c run
them whole):

* the body rewrite (kernel_arrays.rewrite): each update form of each operator as the
  atomic macro it becomes, and what stays an error;
* the runtime's temporary (runtime/acc_arrays.py): the section goes in and comes back,
  the rest of the host array stays; a section outside the array is a located failure.
"""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

from xmpacc import cbuild
from xmpacc.diagnostics import SourceLoc, XmpError
from xmpacc.passes.kernel.kernel_arrays import ReducedArray, rewrite
from xmpacc.runtime.acc_arrays import temporary
from xmpacc.runtime.device import HostBackend

AT = SourceLoc("k.c", 1, 1)


def _array(op: str, name: str = "h", rank: int = 1) -> ReducedArray:
    return ReducedArray(0, name, op, rank, f"int *_xmpacc_ra_{name}", name + "[0]" * rank, "0", "4", AT)


def _rewritten(op: str, body: str, rank: int = 1) -> str:
    node = cbuild.stmt("{ " + body + " }")
    return " ".join(cbuild.to_c(rewrite(node, (_array(op, rank=rank),))).split())


FORMS = [
    ("+", "h[k] += v;", "_XMPACC_ATOMIC_ADD(_xmpacc_ra_h[k], v);"),
    ("+", "h[k] -= v;", "_XMPACC_ATOMIC_ADD(_xmpacc_ra_h[k], -v);"),
    ("+", "h[k] = h[k] + v;", "_XMPACC_ATOMIC_ADD(_xmpacc_ra_h[k], v);"),
    ("+", "h[k] = v + h[k];", "_XMPACC_ATOMIC_ADD(_xmpacc_ra_h[k], v);"),
    ("+", "h[k]++;", "_XMPACC_ATOMIC_ADD(_xmpacc_ra_h[k], 1);"),
    ("+", "--h[k];", "_XMPACC_ATOMIC_ADD(_xmpacc_ra_h[k], -1);"),
    ("-", "h[k] += 2;", "_XMPACC_ATOMIC_ADD(_xmpacc_ra_h[k], 2);"),
    ("*", "h[k] = v * h[k];", "_XMPACC_RMW_MUL(_xmpacc_ra_h[k], v, 0);"),
    ("^", "h[k] ^= v;", "_XMPACC_RMW_XOR(_xmpacc_ra_h[k], v, 0);"),
    ("max", "h[k] = fmax(h[k], v);", "_XMPACC_RMW_MAX(_xmpacc_ra_h[k], v, 0);"),
    ("max", "h[k] = fmaxf(v, h[k]);", "_XMPACC_RMW_MAX(_xmpacc_ra_h[k], v, 0);"),
    ("max", "h[k] = h[k] > v ? h[k] : v;", "_XMPACC_RMW_MAX(_xmpacc_ra_h[k], v, 0);"),
    ("max", "h[k] = h[k] < v ? v : h[k];", "_XMPACC_RMW_MAX(_xmpacc_ra_h[k], v, 0);"),
    ("max", "if (v > h[k]) h[k] = v;", "_XMPACC_RMW_MAX(_xmpacc_ra_h[k], v, 0);"),
    ("max", "if (h[k] <= v) { h[k] = v; }", "_XMPACC_RMW_MAX(_xmpacc_ra_h[k], v, 0);"),
    ("min", "h[k] = v < h[k] ? v : h[k];", "_XMPACC_RMW_MIN(_xmpacc_ra_h[k], v, 0);"),
    ("min", "h[k] = h[k] < v ? h[k] : v;", "_XMPACC_RMW_MIN(_xmpacc_ra_h[k], v, 0);"),
    ("min", "if (h[k] > v) h[k] = v;", "_XMPACC_RMW_MIN(_xmpacc_ra_h[k], v, 0);"),
    ("min", "h[k] = fmin(v, h[k]);", "_XMPACC_RMW_MIN(_xmpacc_ra_h[k], v, 0);"),
    ("+", "for (j = 0; j < 3; j++) if (j != k) h[j]++;",
     "for (j = 0; j < 3; j++) if (j != k) _XMPACC_ATOMIC_ADD(_xmpacc_ra_h[j], 1);"),
]


@pytest.mark.parametrize("op,body,expected", FORMS)
def test_update_forms_become_atomic(op: str, body: str, expected: str) -> None:
    got = _rewritten(op, body)
    assert expected in got, got
    assert " h[" not in got.replace("_xmpacc_ra_h[", "")


def test_2d_element_keeps_its_subscripts() -> None:
    assert "_XMPACC_ATOMIC_ADD(_xmpacc_ra_h[i][j], 1);" in _rewritten("+", "h[i][j] += 1;", rank=2)


NOT_UPDATES = [
    ("+", "x = h[k];"),                      # a read
    ("+", "h[k] = 1;"),                      # a store
    ("+", "h[k] = v - h[k];"),               # not a sum
    ("+", "h[k] *= 2;"),                     # another operator's form
    ("max", "h[k] += v;"),
    ("max", "h[k] = fmax(h[j], v);"),        # another element
    ("max", "if (v > h[k]) h[k] = v; else x = 1;"),
    ("+", "x = h[k]++;"),                    # an update used as a value
    ("+", "h[k] += h[j];"),                  # v uses the array
    ("+", "h[h[1]] += 1;"),                  # so does a subscript
]


@pytest.mark.parametrize("op,body", NOT_UPDATES)
def test_other_uses_are_errors(op: str, body: str) -> None:
    with pytest.raises(XmpError, match="'h' is a reduction array of this GPU loop: the loop may only update"):
        _rewritten(op, body)


def test_partial_subscripts_of_a_2d_array_are_errors() -> None:
    with pytest.raises(XmpError, match="may only update its elements"):
        _rewritten("+", "h[i]++;", rank=2)


def test_body_is_not_changed_in_place() -> None:
    node = cbuild.stmt("{ h[k] += 1; }")
    before = cbuild.to_c(node)
    rewrite(node, (_array("+"),))
    assert cbuild.to_c(node) == before


# ------------------------------------------------------------------ runtime


def _desc(host: np.ndarray, lo: int, count: int, to_host: int = 0) -> np.ndarray:
    e = host.itemsize
    return np.array([host.ctypes.data, host.nbytes, lo * e, count * e, to_host], dtype=np.int64)


def _absent(addr: int, n: int, to_host: bool, where: str) -> None:
    return None


def test_temporary_copies_the_section_in_and_out() -> None:
    backend = HostBackend(ctypes.CDLL(None))
    host = np.arange(10, dtype=np.int32)
    desc = _desc(host, 2, 5)
    temp = temporary(backend, desc.ctypes.data, 7, "k.c:1")   # 7: _XMPACC_TYPE of int
    temp.copy_in("k.c:1", _absent)
    assert temp.to_host and temp.holder.value == backend.ptr(temp.buffer)
    device = temp.buffer.view(np.int32)
    assert list(device[2:7]) == [2, 3, 4, 5, 6]
    device[:] += 100   # the kernel; elements outside the section do not come back
    temp.copy_out()
    assert list(host) == [0, 1, 102, 103, 104, 105, 106, 7, 8, 9]


def test_a_present_section_is_updated_in_its_device_copy() -> None:
    """The kernel gets the device copy's address of the array's start; nothing moves."""
    backend = HostBackend(ctypes.CDLL(None))
    host = np.arange(10, dtype=np.int32)
    desc = _desc(host, 2, 5)
    seen = []

    def present(addr: int, n: int, to_host: bool, where: str) -> int:
        seen.append((addr - host.ctypes.data, n, to_host))
        return 4096 + 8   # the device address of the section's first element

    temp = temporary(backend, desc.ctypes.data, 7, "k.c:1")
    temp.copy_in("k.c:1", present)
    assert seen == [(8, 20, False)] and temp.holder.value == 4096 and not temp.to_host
    assert temp.buffer is None   # no temporary made
    temp.copy_out()
    assert list(host) == list(range(10))


def test_section_outside_the_array_fails_located() -> None:
    from xmpacc.runtime.errors import RuntimeFailure

    backend = HostBackend(ctypes.CDLL(None))
    host = np.zeros(4, dtype=np.float64)
    desc = _desc(host, 2, 5)
    temp = temporary(backend, desc.ctypes.data, 14, "k.c:9")   # 14: double
    with pytest.raises(RuntimeFailure,
                       match=r"the reduced section \[2:5\] is outside its array of 4 elements"):
        temp.copy_in("k.c:9", _absent)
