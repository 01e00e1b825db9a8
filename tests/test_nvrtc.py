"""Every GPU program of the repository's kernel file compiles with NVRTC, the compiler the
cuda backend runs, with the runtime's own options (device.nvrtc_options): no GPU needed,
only NVRTC's library (the ``nvidia-cuda-nvrtc`` wheel of the test extra).  The host
backend compiles the same file as C, so C that NVRTC's C++ rejects (``sqrt(i)`` of an int:
ambiguous among its overloads; a type the file lacks) was found on a GPU only.  Skipped when
the library is missing."""

from __future__ import annotations

import ctypes
import re
from pathlib import Path

import pytest
from conftest import REPO, repo_builds, run_xmpacc
from test_acc import REDUCTION_PROGRAMS
from test_location_margins import CASES as MARGIN_CASES
from test_replay import PROGRAM as REPLAY_PROGRAM
from test_samples import SAMPLE_LIST, sample_builds
from test_xacc import CASES as XACC_CASES
from test_xacc_compute import CASES as COMPUTE_CASES

from xmpacc.runtime.device import nvrtc_options

_ACC = re.compile(r"#pragma\s+acc\b|#pragma\s+xmp\b.*\bacc\b")
PROGRAMS = sorted(p.relative_to(REPO) for d in ("tests", "samples", "bench") for p in (REPO / d).rglob("*.c")
                  if _ACC.search(p.read_text(errors="replace")))
# programs whose kernel file needs more than the default build
OPTIONS: dict[str, list[str]] = {}
CHECKED = {"tests/xacc_compute/basic.c", "tests/xacc_compute/user_types.c", "samples/laplace/laplace_acc.c"}
LANES = {"samples/nbody/nbody_acc.c": 8, "bench/nbody_bench.c": 32}
# programs another test module builds (conftest.repo_builds, tests/test_samples.py) with the
# default options and --keep: their kept kernel file is the one -S writes, and is used here
# rather than compiled again
SHARED = {"tests/xacc_compute": set(COMPUTE_CASES), "tests/xacc_programs": set(XACC_CASES),
          "tests/acc_programs": {"acc_fixed_subscript.c", "acc_expand_offset.c", "acc_full_shadow_cyclic.c",
                                 "stream_cyclic.c", "acc_features.c", "acc_cyclic_w.c", "stream_stencils.c",
                                 *(f"{n}.c" for n in REDUCTION_PROGRAMS)},
          "tests/programs": {p.name for p in REPLAY_PROGRAM.parent.glob("replay_*.c")},
          "tests/location_margins": set(MARGIN_CASES)}
SAMPLES_SHOWN = {f"samples/{s.xmp}": s.name for s in SAMPLE_LIST}   # samples/MANIFEST


def _nvrtc() -> ctypes.CDLL | None:
    try:
        import nvidia
    except ImportError:
        return None
    for root in nvidia.__path__:
        for lib in sorted(Path(root).glob("cu*/lib/libnvrtc.so.*")):
            return ctypes.CDLL(str(lib))
    return None


NVRTC = _nvrtc()


def nvrtc_compile(source: str, options: tuple[str, ...]) -> tuple[int, str]:
    """(status, log) of NVRTC compiling ``source`` for sm_90 (H100/H200) to PTX."""
    assert NVRTC is not None
    prog = ctypes.c_void_p()
    assert NVRTC.nvrtcCreateProgram(ctypes.byref(prog), source.encode(), b"prog.cu", 0, None, None) == 0
    opts = [*options, "-arch=compute_90"]
    status = NVRTC.nvrtcCompileProgram(prog, len(opts),
                                       (ctypes.c_char_p * len(opts))(*[o.encode() for o in opts]))
    size = ctypes.c_size_t()
    NVRTC.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
    log = ctypes.create_string_buffer(size.value)
    NVRTC.nvrtcGetProgramLog(prog, log)
    NVRTC.nvrtcDestroyProgram(ctypes.byref(prog))
    return status, log.value.decode(errors="replace")


def test_programs_are_found() -> None:
    names = {str(p) for p in PROGRAMS}
    assert len(PROGRAMS) >= 50 and {"bench/himeno_xacc.c", "tests/xacc_compute/user_types.c"} <= names
    assert set(OPTIONS) | CHECKED | set(LANES) <= names


@pytest.mark.skipif(NVRTC is None, reason="no NVRTC library (pip install nvidia-cuda-nvrtc)")
@pytest.mark.parametrize("program", [str(p) for p in PROGRAMS])
def test_kernel_file_compiles_with_nvrtc(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory,
                                        program: str) -> None:
    cu = _kernel_file(tmp_path, tmp_path_factory, program)
    if not cu.exists():   # no kernels in this file (its GPU work is data directives)
        return
    variants = [(1, False)] + [(1, True)] * (program in CHECKED) \
        + [(LANES.get(program, 1), False)] * (program in LANES)
    for lanes, checked in variants:
        status, log = nvrtc_compile(cu.read_text(), nvrtc_options(lanes, checked))
        assert status == 0, f"NVRTC ({lanes} lanes, checked={checked}):\n{log}"


def _kernel_file(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, program: str) -> Path:
    """The .cu that xmpacc -S writes for ``program`` (compiled from the repository root), or
    that a build of another test module kept."""
    folder, name = str(Path(program).parent), Path(program).name
    if program not in OPTIONS and name in SHARED.get(folder, ()):
        exe, _ = repo_builds(tmp_path_factory, folder, [name])[name]
        return exe.with_suffix(".cu")
    if program not in OPTIONS and program in SAMPLES_SHOWN:
        b = sample_builds(tmp_path_factory)[SAMPLES_SHOWN[program]]
        assert b.error is None, b.error
        return b.exe.with_suffix(".cu")
    out = tmp_path / Path(program).stem
    r = run_xmpacc(program, "-S", "-o", str(out), *OPTIONS.get(program, []), cwd=REPO)
    assert r.returncode == 0, r.stderr
    return out.with_suffix(".cu")


@pytest.mark.skipif(NVRTC is None, reason="no NVRTC library (pip install nvidia-cuda-nvrtc)")
def test_files_of_one_program_are_one_module(tmp_path: Path) -> None:
    """The runtime compiles the kernel files of a program's files as one module (their
    concatenation, launcher.py): two files with the same struct, enum and static routine
    from one header (tests/xacc_multifile) compile, each file's in its own namespace, and
    the types of a routine that crosses the files are defined once, at global scope."""
    texts = []
    for name in ("main", "parts"):
        r = run_xmpacc(f"tests/xacc_multifile/{name}.c", "-S", "-o", str(tmp_path / name), cwd=REPO)
        assert r.returncode == 0, r.stderr
        texts.append((tmp_path / f"{name}.cu").read_text())
    # the structures of parts.c's routine scaled(cplx, struct scale, int), which main.c's
    # kernel calls: at global scope in both files, one definition in the module
    assert all(t.count("} cplx;") == 1 and t.count("struct scale\n{") == 1 for t in texts)
    assert all(t.index("} cplx;") < t.index("_XMPACC_UNIT_BEGIN") for t in texts)
    status, log = nvrtc_compile("".join(texts), nvrtc_options(1, False))
    assert status == 0, log
