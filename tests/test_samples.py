"""Every sample of samples/MANIFEST as a user builds and runs it, and its generated host C.

Each XMP sample is compiled once by xmpacc, from the repository root with a relative
path (so the ``#line`` markers of the generated C are the same on every machine), and
run under mpirun with each process count of its MANIFEST line; it must print what its
serial build prints (floating-point numbers to a relative 1e-9).

The generated host C is compared with ``tests/golden/<sample>.host.c``, except for its
first line when that names the xmpacc version.  After a deliberate change of the
generated code, rewrite the golden files and review their diff:

    XMPACC_UPDATE_GOLDEN=1 pytest tests/test_samples.py
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import REPO, SAMPLES, once, run_mpi, run_xmpacc, same_output, serial_output

from xmpacc import __version__

GOLDEN = Path(__file__).parent / "golden"
UPDATE = bool(os.environ.get("XMPACC_UPDATE_GOLDEN"))


@dataclass(frozen=True)
class Sample:
    xmp: str                   # relative to samples/
    serial: str
    counts: tuple[int, ...]

    @property
    def name(self) -> str:
        return Path(self.xmp).stem

    @property
    def is_acc(self) -> bool:
        return "_acc" in self.name


def _manifest() -> list[Sample]:
    samples = []
    for line in (SAMPLES / "MANIFEST").read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            xmp, serial, counts = line.split()
            samples.append(Sample(xmp, serial, tuple(int(c) for c in counts.split(","))))
    return samples


SAMPLE_LIST = _manifest()


@dataclass
class Built:
    exe: Path
    host_c: Path
    error: str | None          # xmpacc's stderr when it failed
    expected: str              # the serial build's output


class _Builds(dict[str, Built]):
    """sample name -> Built, each sample built on first use and once per test run, by
    whichever test module (tests/test_acc.py runs the acc samples) and pytest-xdist worker
    asks first."""

    def __init__(self, tmp_path_factory: pytest.TempPathFactory) -> None:
        super().__init__()
        self.factory = tmp_path_factory

    def __missing__(self, name: str) -> Built:
        s = next(s for s in SAMPLE_LIST if s.name == name)

        def make(tmp: Path) -> tuple[Path, Path, str | None, str]:
            exe = tmp / s.name
            r = run_xmpacc("--keep", f"samples/{s.xmp}", "-o", str(exe), cwd=REPO)
            return (exe, tmp / f"{s.name}.host.c", None if r.returncode == 0 else r.stderr,
                    serial_output(SAMPLES / s.serial, tmp))

        self[name] = Built(*once(self.factory, f"sample-{name}", make))
        return self[name]


def sample_builds(tmp_path_factory: pytest.TempPathFactory) -> _Builds:
    return _Builds(tmp_path_factory)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Built]:
    return sample_builds(tmp_path_factory)


def _check_built(s: Sample, b: Built) -> None:
    assert b.error is None, f"xmpacc {s.xmp} failed:\n{b.error}"


def _without_version(text: str) -> str:
    first, _, rest = text.partition("\n")
    return rest if first.startswith("/*") and __version__ in first else text


@pytest.mark.parametrize("sample", SAMPLE_LIST, ids=lambda s: s.name)
def test_generated_host_c_matches_golden(built: dict[str, Built], sample: Sample) -> None:
    b = built[sample.name]
    _check_built(sample, b)
    text = b.host_c.read_text()
    assert str(REPO) not in text, "a machine-dependent path in the generated C"
    golden = GOLDEN / f"{sample.name}.host.c"
    if UPDATE:
        GOLDEN.mkdir(exist_ok=True)
        golden.write_text(text)
    assert golden.exists(), f"no golden file {golden}: run with XMPACC_UPDATE_GOLDEN=1"
    assert _without_version(text) == _without_version(golden.read_text()), (
        f"{sample.xmp}: the generated host C differs from {golden}; if the change is "
        "intended, rerun with XMPACC_UPDATE_GOLDEN=1 and review the diff")


def _runs() -> list[object]:
    """The host samples' runs; the acc samples run in tests/test_acc.py (host backend) and
    tests/test_gpu.py (GPUs), against the same serial builds."""
    return [pytest.param(s, n, id=f"{s.name}-np{n}") for s in SAMPLE_LIST if not s.is_acc for n in s.counts]


@pytest.mark.mpi
@pytest.mark.parametrize("sample,nprocs", _runs())
def test_sample_prints_what_serial_build_prints(built: dict[str, Built], sample: Sample,
                                                nprocs: int) -> None:
    b = built[sample.name]
    _check_built(sample, b)
    r = run_mpi(nprocs, b.exe, timeout=120)
    assert r.returncode == 0, r.stderr
    same_output(r.stdout, b.expected)
