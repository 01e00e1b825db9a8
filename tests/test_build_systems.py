"""The build-system examples of samples/build/, built as a user builds them: make with
``CC = xmpacc`` (objects, a static library, -MMD dependency files, make -j rebuilding
only what changed) and CMake with xmpacc as the C compiler.  Each program prints what its
serial build (plain cc, directives ignored) prints."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import SAMPLES, run_mpi, same_output

BUILD = SAMPLES / "build"
HOST = {"XMPACC_DEVICE": "host"}


def _env() -> dict[str, str]:
    """xmpacc and mpirun of this environment first on PATH (as after 'source
    .venv/bin/activate'); no CC, so the examples choose xmpacc themselves."""
    env = {k: v for k, v in os.environ.items() if k != "CC"}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return env


def _run(cmd: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    r = subprocess.run(cmd, cwd=cwd, env=_env(), capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, f"{' '.join(cmd)} failed:\n{r.stdout}\n{r.stderr}"
    return r


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    """A copy of samples/build (the make and cmake folders share ../src)."""
    shutil.copytree(BUILD, tmp_path / "build")
    return tmp_path / "build"


@pytest.fixture(scope="module")
def expected(tmp_path_factory: pytest.TempPathFactory) -> str:
    tmp = tmp_path_factory.mktemp("serial")
    exe = tmp / "heat_serial"
    subprocess.run(["cc", "-O2", "-w", *sorted(str(p) for p in (BUILD / "src").glob("*.c")), "-o", str(exe)],
                   check=True)
    return subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout


def _compiled(output: str) -> set[str]:
    """The sources a make run compiled (from the commands it printed)."""
    return {Path(w).name for line in output.splitlines() if " -c " in line
            for w in line.split() if w.endswith(".c")}


@pytest.mark.mpi
def test_make_builds_a_program_with_a_static_library(project: Path, expected: str) -> None:
    make = project / "make"
    r = _run(["make"], make)
    assert _compiled(r.stdout) == {"main.c", "init.c", "step.c"}
    assert {"main.d", "init.d", "step.d", "libheat.a", "heat"} <= {p.name for p in make.iterdir()}
    members = _run(["ar", "t", "libheat.a"], make).stdout.split()
    assert members == ["init.o", "step.o"]
    for n in (1, 4):
        run = run_mpi(n, make / "heat", env=HOST)
        assert run.returncode == 0, run.stderr
        same_output(run.stdout, expected)


def _touch(path: Path) -> None:
    later = time.time() + 5   # clearly newer than every target, whatever the clock's grain
    os.utime(path, (later, later))


def test_make_j_rebuilds_only_what_changed(project: Path) -> None:
    make = project / "make"
    _run(["make", "-j2"], make)
    assert _compiled(_run(["make", "-j2"], make).stdout) == set(), "nothing changed, nothing rebuilt"
    _touch(project / "src" / "step.c")
    r = _run(["make", "-j2"], make)
    assert _compiled(r.stdout) == {"step.c"}
    assert "ar rcs libheat.a" in r.stdout and "-o heat" in r.stdout
    # every object depends on the header (through -MMD), and only on it among the headers
    _touch(project / "src" / "heat.h")
    assert _compiled(_run(["make", "-j2"], make).stdout) == {"main.c", "init.c", "step.c"}
    deps = (make / "step.d").read_text()
    assert "heat.h" in deps and "xmp" not in deps and "/usr/include" not in deps


@pytest.mark.mpi
@pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake is not installed")
def test_cmake_builds_and_runs(project: Path, expected: str) -> None:
    out = project / "out"
    r = _run(["cmake", "-S", str(project / "cmake"), "-B", str(out)], project)
    assert "The C compiler identification is" in r.stdout and "unknown" not in r.stdout, r.stdout
    _run(["cmake", "--build", str(out)], project)
    run = run_mpi(3, out / "heat", env=HOST)
    assert run.returncode == 0, run.stderr
    same_output(run.stdout, expected)
    # a changed header rebuilds its users (the compiler's dependency files)
    _touch(project / "src" / "heat.h")
    rebuilt = _run(["cmake", "--build", str(out)], project).stdout
    assert rebuilt.count("Building C object") == 3, rebuilt
