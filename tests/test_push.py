"""Overlapped reflects whose loop's kernel makes the exchange (include/xmpacc_push.h,
runtime/acc_push.py): where the compiler offers the push, the host positions of the
interior, and how a node pairs its slabs with its neighbours'.  The push itself runs on
GPUs only (test_replay.py::test_overlapped_reflects_on_two_gpus, bench/push_check.sh)."""

from __future__ import annotations

import ctypes
import subprocess
from pathlib import Path

import pytest
from conftest import run_xmpacc

from xmpacc.runtime import acc_push
from xmpacc.runtime.acc_push import PushDesc, Pushes
from xmpacc.runtime.device import INCLUDE_DIR

STENCIL = """#include <stdio.h>
#define N 64
double u[N][N], v[N][N], w[N][N];
#pragma xmp nodes p[*]
#pragma xmp template t[N][N]
#pragma xmp distribute t[block][*] onto p
#pragma xmp align u[i][j] with t[i][j]
#pragma xmp align v[i][j] with t[i][j]
#pragma xmp align w[i][j] with t[i][j]
#pragma xmp shadow u[1][0]
#pragma xmp shadow v[1][0]
int main(void)
{
    int i, j;
#pragma xmp acc replicate (u, v, w)
    {
        REFLECT
#pragma xmp loop (i, j) on t[i][j] acc
        for (i = 1; i < N - 1; i++)
            for (j = 0; j < N; j++)
                w[i][j] = BODY;
    }
    printf("%f\\n", w[1][1]);
    return 0;
}
"""


def _generated(tmp_path: Path, reflect: str, body: str) -> tuple[str, str]:
    src = tmp_path / "push.c"
    src.write_text(STENCIL.replace("REFLECT", reflect).replace("BODY", body))
    built = run_xmpacc(str(src), "-o", str(tmp_path / "push"), "--keep", cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    return (tmp_path / "push.host.c").read_text(), (tmp_path / "push.cu").read_text()


def test_one_array_read_across_the_rim_gets_a_push(tmp_path: Path) -> None:
    """reflect (u) acc before a loop that reads u[i - 1], u[i + 1]: the site's static
    struct goes to the reflect call and, by value, to the kernel, which pushes first
    thing and waits by block rows of its 2-D grid before its early return."""
    host, cu = _generated(tmp_path, "#pragma xmp reflect (u) acc", "u[i - 1][j] + u[i + 1][j]")
    assert "static _xmpacc_push_t _xmpacc_push_" in host
    name = host.split("static _xmpacc_push_t ")[1].split(";")[0]
    assert "_xmpacc_reflect_acc_overlap(&_xmpacc_a_u, \"push.c:" in host
    assert f", 0, 0, &{name});" in host
    assert f"_xmpacc_push_interior(&{name}, &_xmpacc_whole, &_xmpacc_s_i);" in host
    assert "_xmpacc_push_t _xmpacc_push)" in cu
    prologue = cu.split("_xmpacc_push_t _xmpacc_push)")[1]
    wait = prologue.index("_XMPACC_PUSH(_xmpacc_push, _xmpacc_grid2, _xmpacc_s_i.count")
    assert prologue.index("_XMPACC_PUSH_OUT(_xmpacc_push);") < wait
    assert prologue.index("_XMPACC_PUSH(_xmpacc_push, ") < prologue.index("if (!_xmpacc_valid) return;")


@pytest.mark.parametrize("reflect, body", [
    ("#pragma xmp reflect (u, v) acc", "u[i - 1][j] + v[i + 1][j]"),          # two arrays
    ("#pragma xmp reflect (u) width (1, 0) acc", "u[i - 1][j] + u[i + 1][j]"),   # a width clause
    ("#pragma xmp reflect (u) acc", "u[i][j] * 2.0"),                          # no shadow read
])
def test_other_overlapped_reflects_keep_the_transport(tmp_path: Path, reflect: str, body: str) -> None:
    host, cu = _generated(tmp_path, reflect, body)
    assert "_xmpacc_push_t" not in host and "_xmpacc_push_t" not in cu
    if "u[i - 1]" in body:   # still overlapped: the exchange stream's path
        assert "_xmpacc_reflect_acc_split(" in host and ", 0, 0);" in host   # not orthogonal, no push


INTERIOR = """#include <stdio.h>
#include "xmpacc_types.h"
#include "xmpacc_push.h"
static _xmpacc_sched_t s(long long first, long long last, long long step, long long count) {
  _xmpacc_sched_t r = {0};
  r.first = first, r.last = last, r.step = step, r.count = count;
  return r;
}
int main(void) {
  _xmpacc_push_t p = {0};
  _xmpacc_sched_t w = s(1, 62, 1, 62), in = s(2, 61, 1, 60);
  _xmpacc_push_interior(&p, &w, &in);
  printf("%lld %lld %d\\n", p.lo, p.hi, p.flip);
  w = s(62, 1, -1, 62), in = s(61, 2, -1, 60);
  _xmpacc_push_interior(&p, &w, &in);
  printf("%lld %lld %d\\n", p.lo, p.hi, p.flip);
  in = s(1, 0, 1, 0);
  _xmpacc_push_interior(&p, &w, &in);
  printf("%lld %lld %d\\n", p.lo, p.hi, p.flip);
  w = s(1, 62, 1, 62), in = s(2, 62, 1, 61);   /* the low rim only */
  _xmpacc_push_interior(&p, &w, &in);
  printf("%lld %lld %d\\n", p.lo, p.hi, p.flip);
  in = s(1, 61, 1, 61);   /* the high rim only */
  _xmpacc_push_interior(&p, &w, &in);
  printf("%lld %lld %d\\n", p.lo, p.hi, p.flip);
  return 0;
}
"""


def test_the_interior_is_positions_one_row_narrower(tmp_path: Path) -> None:
    """Positions of the whole schedule, one row narrower than the interior on each side
    where it reads the shadow (the rows next to the shadow may share a cache line with
    it); none without one; the rows in reverse where only the low side waits."""
    src, exe = tmp_path / "interior.c", tmp_path / "interior"
    src.write_text(INTERIOR)
    r = subprocess.run(["cc", f"-I{INCLUDE_DIR}", str(src), "-o", str(exe)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert subprocess.run([str(exe)], capture_output=True, text=True).stdout.split("\n")[:5] == \
        ["2 59 0", "2 59 0", "1 0 0", "2 61 1", "0 59 0"]


class _Backend:
    name = "cuda"


class _Device:
    backend = _Backend()
    copies: dict[int, object] = {}


def _pushes() -> Pushes:
    pushes = Pushes(_Device(), None)
    pushes._open = lambda handle: int.from_bytes(handle, "little")  # type: ignore[method-assign]
    return pushes


def _payload(rank: int, peers: list[int], recvs: list[tuple[int, int, int, int]],
             host: str = "h", bus: tuple[int, int, int] = (0, 0, 0)) -> tuple:
    """As Pushes.plan gathers it: (rank, host, bus, neighbours, flags' handle and offset,
    receives as (from, handle, offset, bytes))."""
    return (rank, host, bus, peers, ((1000 + rank).to_bytes(8, "little"), 0),
            [(p, h.to_bytes(8, "little"), off, n) for p, h, off, n in recvs])


def test_sends_pair_with_the_neighbours_receives_in_order() -> None:
    """Node 1 between 0 and 2: its k-th send to a neighbour lands where that neighbour's
    k-th receive from node 1 would, mapped through the neighbour's handle; its slot at
    each neighbour is its index among that neighbour's neighbours."""
    mine = ([(0, 0x10, 64), (2, 0x20, 64)], [(0, 0x30, 64), (2, 0x40, 64)], [0, 2])
    by_rank = {0: _payload(0, [1], [(1, 500, 8, 64)], bus=(0, 1, 0)),
               1: _payload(1, [0, 2], [(0, 600, 0, 64), (2, 600, 64, 64)], bus=(0, 2, 0)),
               2: _payload(2, [1], [(1, 700, 16, 64)], bus=(0, 3, 0))}
    d = PushDesc()
    assert _pushes()._fill(d, mine, by_rank, 1, 0x9000)
    assert (d.npeers, d.nslabs, d.mine) == (2, 2, 0x9000)
    assert list(d.src[:2]) == [0x10, 0x20] and list(d.dst[:2]) == [508, 716]
    assert list(d.slot) == [0, 0]
    assert list(d.theirs) == [1000, 1002] and list(d.bytes[:2]) == [64, 64]


@pytest.mark.parametrize("change", ["bytes", "host", "same GPU", "unpaired"])
def test_no_push_where_a_neighbour_cannot_take_it(change: str) -> None:
    mine = ([(0, 0x10, 64)], [(0, 0x30, 64)], [0])
    recvs = [(1, 500, 0, 32 if change == "bytes" else 64)] if change != "unpaired" else []
    by_rank = {0: _payload(0, [1], recvs, host="other" if change == "host" else "h",
                           bus=(0, 2, 0) if change == "same GPU" else (0, 1, 0)),
               1: _payload(1, [0], [(0, 600, 0, 64)], bus=(0, 2, 0))}
    assert not _pushes()._fill(PushDesc(), mine, by_rank, 1, 0x9000)


def test_the_host_never_plans_a_push(monkeypatch: pytest.MonkeyPatch) -> None:
    """XMPACC_PUSH=0, or a backend other than CUDA: no local plan, so every node keeps the
    transport (the allgather then carries None)."""
    monkeypatch.setenv("XMPACC_PUSH", "0")
    assert not acc_push.enabled()
    monkeypatch.delenv("XMPACC_PUSH")
    assert acc_push.enabled() and acc_push.spin_ns() == 20_000_000_000

    class Host(_Backend):
        name = "host"

    device = _Device()
    device.backend = Host()
    nccl = type("T", (), {"name": "nccl"})()
    assert Pushes(device, None)._local([("k", None, [], [])], None, nccl, 0) is None
    assert ctypes.sizeof(PushDesc) > 0
