"""Host loops that cc vectorises (passes/loops/hoist.py, loopnest.py): constant steps, descriptors
and block pointers copied into locals, ``restrict`` only where provable; and the stencil
loops of the heat and Laplace labs really vectorised by the host compiler."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from conftest import run_xmpacc
from test_passes import DECLS, function, run_passes

from xmpacc.cbuild import to_c
from xmpacc.frontend.preprocess import runtime_include_dir

ROOT = Path(__file__).resolve().parent.parent


def lowered(tmp_path: Path, body: str, decls: str = DECLS) -> str:
    unit, _ctx = run_passes(tmp_path, decls + "double b[100];\n#pragma xmp align b[i] with t[i]\n"
                            "double g(double);\nvoid f(void)\n{\n    int i;\n" + body + "}\n")
    return to_c(function(unit, "f"))


def test_distinct_arrays_get_restrict_and_a_constant_step(tmp_path: Path) -> None:
    c = lowered(tmp_path, "#pragma xmp loop on t[i]\n    for (i = 1; i < 99; i++)\n"
                          "        a[i] = b[i - 1] + b[i + 1];\n")
    assert "_xmpacc_array_t _xmpacc_ha_a = _xmpacc_a_a;" in c
    assert "double * restrict const _xmpacc_hp_a = a;" in c
    assert "double * restrict const _xmpacc_hp_b = b;" in c
    assert "i += 1)" in c
    assert ("_xmpacc_hp_a[_XMPACC_L(_xmpacc_ha_a, 0, i)] = "
            "_xmpacc_hp_b[_XMPACC_L(_xmpacc_ha_b, 0, i - 1)]") in c


@pytest.mark.parametrize("body", [
    "a[i] = g(b[i]);",            # a function that may read or write a or b
    "a[i] = *(&b[i]);",           # an element's address
    "a[i] = b[i] + (a == b);",    # the block pointer itself
])
def test_no_restrict_when_not_provable(tmp_path: Path, body: str) -> None:
    c = lowered(tmp_path, f"#pragma xmp loop on t[i]\n    for (i = 1; i < 99; i++)\n        {body}\n")
    assert "double * const _xmpacc_hp_a = a;" in c
    assert "restrict" not in c


def test_math_functions_keep_restrict(tmp_path: Path) -> None:
    c = lowered(tmp_path,
                "#pragma xmp loop on t[i]\n    for (i = 1; i < 99; i++)\n        a[i] = sqrt(b[i]);\n")
    assert "restrict" in c


def test_cyclic_loop_keeps_the_schedule_step(tmp_path: Path) -> None:
    decls = DECLS.replace("t[block]", "t[cyclic]")
    c = lowered(tmp_path, "#pragma xmp loop on t[i]\n    for (i = 0; i < 100; i++)\n        a[i] = b[i];\n",
                decls)
    assert "i += _xmpacc_s_i.step)" in c


def _is_gcc() -> bool:
    r = subprocess.run(["cc", "--version"], capture_output=True, text=True)
    return r.returncode == 0 and "Free Software Foundation" in r.stdout


@pytest.mark.skipif(not _is_gcc(), reason="the vectoriser report is gcc's")
@pytest.mark.parametrize("lab, lines", [("heat1d", (42, 46)), ("laplace", (46,))])
def test_lab_stencils_vectorise(tmp_path: Path, lab: str, lines: tuple[int, ...]) -> None:
    src = ROOT / "samples" / "labs" / lab / "step1_xmp.c"
    r = run_xmpacc("-S", str(src), "-o", str(tmp_path / lab))
    assert r.returncode == 0, r.stderr
    rep = subprocess.run(["cc", "-O3", "-fPIC", "-isystem", runtime_include_dir(), "-c",
                          str(tmp_path / f"{lab}.host.c"), "-o", str(tmp_path / "x.o"),
                          "-fopt-info-vec-optimized"], capture_output=True, text=True)
    assert rep.returncode == 0, rep.stderr
    done = {int(m) for m in re.findall(r"step1_xmp\.c:(\d+):\d+: optimized: loop vectorized", rep.stderr)}
    assert set(lines) <= done, rep.stderr
