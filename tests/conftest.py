"""Shared helpers: run the xmpacc CLI and launch programs under mpirun."""

from __future__ import annotations

import atexit
import fcntl
import json
import locale
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parent.parent
# Every rank of a program the suite runs (a few thousand per run) is a Python that imports
# NumPy, whose OpenBLAS starts a thread per core at import: a fifth of the rank's start-up
# CPU, on two cores shared by two workers and up to 16 ranks.  The runtime's BLAS calls
# (xmp_matmul) are the tests' small matrices, which OpenBLAS runs on one thread anyway.
# OMP_NUM_THREADS (the OpenMP tests set it) is another variable and is left alone.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
SAMPLES = REPO / "samples"


def gpu_count() -> int:
    """CUDA GPUs this machine has (0 without CuPy or a driver): GPU tests skip on 0."""
    try:
        import cupy

        return int(cupy.cuda.runtime.getDeviceCount())
    except Exception:  # noqa: BLE001 - no CuPy or no driver
        return 0


def mpirun_path() -> str | None:
    """The mpirun next to this Python (the MPICH wheel), else the one on PATH."""
    here = Path(sys.executable).parent / "mpirun"
    return str(here) if here.exists() else shutil.which("mpirun")


def xmpacc_command() -> list[str]:
    """The installed ``xmpacc`` console script (not ``python -m``, which would put the
    source tree first on sys.path: the tests check the installed package)."""
    here = Path(sys.executable).parent / "xmpacc"
    found = str(here) if here.exists() else shutil.which("xmpacc")
    if found is None:
        pytest.fail("xmpacc is not installed in this environment (see the README)")
    return [found]


class _ForkServer:
    """The client of tests/xmpacc_server.py: one server per pytest process, started on the
    first compile; None where it cannot start (every compile is then a fresh ``xmpacc``)."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen[str] | None = None
        self.dir: Path | None = None
        self.lock = threading.Lock()
        self.broken = os.environ.get("XMPACC_TEST_FORK_SERVER", "1") == "0"

    def _start(self, script: str) -> bool:
        if self.proc is not None and self.proc.poll() is None:
            return True
        if self.broken:
            return False
        self.dir = Path(tempfile.mkdtemp(prefix="xmpacc-fork-server-"))
        atexit.register(shutil.rmtree, self.dir, ignore_errors=True)
        server = Path(__file__).parent / "xmpacc_server.py"
        self.proc = subprocess.Popen([sys.executable, str(server), script], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)
        atexit.register(self._stop, self.proc)
        assert self.proc.stdout is not None
        if self.proc.stdout.readline() != "ready\n":
            self.proc.kill()
            self.broken = True
        return not self.broken

    @staticmethod
    def _stop(proc: subprocess.Popen[str]) -> None:
        """End of the pytest process: the server ends when its stdin closes."""
        if proc.stdin is not None:
            proc.stdin.close()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()

    def run(self, cmd: list[str], cwd: Path | None, env: dict[str, str],
            timeout: float) -> subprocess.CompletedProcess[str] | None:
        with self.lock:
            if not self._start(cmd[0]):
                return None
            assert self.proc is not None and self.proc.stdin is not None and self.proc.stdout is not None
            assert self.dir is not None
            out, err = self.dir / "stdout", self.dir / "stderr"
            request = {"argv": cmd, "cwd": str(cwd if cwd is not None else Path.cwd()), "env": env,
                       "stdout": str(out), "stderr": str(err), "timeout": timeout}
            self.proc.stdin.write(json.dumps(request) + "\n")
            self.proc.stdin.flush()
            reply = json.loads(self.proc.stdout.readline())
            stdout, stderr = (_text(f.read_bytes()) for f in (out, err))
        if reply.get("timeout"):
            raise subprocess.TimeoutExpired(cmd, timeout, stdout, stderr)
        return subprocess.CompletedProcess(cmd, reply["returncode"], stdout, stderr)


def _text(data: bytes) -> str:
    """Bytes as subprocess.run(text=True) decodes a captured stream."""
    return data.decode(locale.getpreferredencoding(False)).replace("\r\n", "\n").replace("\r", "\n")


_FORK_SERVER = _ForkServer()


def run_xmpacc(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None,
               timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``xmpacc ARGS`` in a process of its own, as a user runs it: forked from a Python
    that has imported xmpacc (tests/xmpacc_server.py; XMPACC_TEST_FORK_SERVER=0 starts
    the console script instead)."""
    cmd = [*xmpacc_command(), *args]
    full_env = {**os.environ, **(env or {})}
    served = _FORK_SERVER.run(cmd, cwd, full_env, timeout)
    if served is not None:
        return served
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=full_env)


def run_mpi(nprocs: int, exe: Path | str, *args: str, timeout: float = 120,
            env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    mpirun = mpirun_path()
    if mpirun is None:
        pytest.skip("no mpirun")
    cmd = [mpirun, "-np", str(nprocs), str(exe), *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})})


def nvcc_compile(cu: Path, out: Path) -> subprocess.CompletedProcess[str]:
    """nvcc -c for sm_90 of a generated kernel file, with the runtime's headers."""
    return subprocess.run(["nvcc", "-arch=sm_90", "-c", str(cu), "-I", str(REPO / "runtime" / "include"),
                           "-o", str(out)], capture_output=True, text=True)


def run_source(tmp_path: Path, name: str, source: str, env: dict[str, str], *options: str) -> str:
    """Build ``source`` (as ``name``.c) with xmpacc and run it on one process; its output."""
    src = tmp_path / f"{name}.c"
    src.write_text(source)
    r = run_xmpacc(str(src), *options, "-o", str(tmp_path / name))
    assert r.returncode == 0, r.stderr
    r = run_mpi(1, tmp_path / name, env=env)
    assert r.returncode == 0, r.stderr
    return r.stdout


def build_serial(src: Path, out: Path) -> Path:
    """The oracle: the same program built by plain cc with its pragmas ignored."""
    subprocess.run(["cc", "-O2", "-w", str(src), "-o", str(out), "-lm"], check=True)
    return out


def serial_output(src: Path, tmp: Path) -> str:
    """What the serial build of ``src`` prints (the oracle of an MPI run)."""
    exe = build_serial(src, tmp / (src.stem + "_serial"))
    return subprocess.run([str(exe)], capture_output=True, text=True, check=True,
                          timeout=60).stdout


def shared_dir(tmp_path_factory: pytest.TempPathFactory, kind: str) -> Path:
    """A directory for one kind of builds, shared by the test modules and the pytest-xdist
    workers of the run (above each worker's own; the run's base folder without xdist)."""
    base = tmp_path_factory.getbasetemp()
    shared = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / f"shared-{kind}"
    shared.mkdir(exist_ok=True)
    return shared


def made_once(directory: Path, key: str, make: Callable[[Path], None]) -> Path:
    """``directory/key``, made by ``make`` the first time any worker asks (a lock per key)."""
    out = directory / key
    with open(directory / f"{key}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (directory / f"{key}.done").exists():
            make(out)
            (directory / f"{key}.done").touch()
    return out


def _to_json(value: object) -> object:
    if isinstance(value, Path):
        return {"path": str(value)}
    if isinstance(value, tuple):
        return {"tuple": [_to_json(v) for v in value]}
    if isinstance(value, list):
        return [_to_json(v) for v in value]
    if isinstance(value, dict):
        return {"dict": [[_to_json(k), _to_json(v)] for k, v in value.items()]}
    assert value is None or isinstance(value, str | int | float | bool), value
    return value


def _from_json(value: object) -> object:
    if isinstance(value, list):
        return [_from_json(v) for v in value]
    if isinstance(value, dict):
        if "path" in value:
            return Path(value["path"])
        if "tuple" in value:
            return tuple(_from_json(v) for v in value["tuple"])
        return {_from_json(k): _from_json(v) for k, v in value["dict"]}
    return value


def once(tmp_path_factory: pytest.TempPathFactory, key: str, make: Callable[[Path], Any]) -> Any:
    """What ``make(work)`` returns (paths, strings, numbers, in tuples, lists and dicts), made
    once per test run in a folder ``work`` of its own, whichever test module and pytest-xdist
    worker asks first (a module-scoped fixture runs once in each worker that runs a test of
    the module); the others read the result.  For builds that several tests run."""
    def build(work: Path) -> None:
        work.mkdir(exist_ok=True)
        (work / "result.json").write_text(json.dumps(_to_json(make(work))))

    return _from_json(json.loads((made_once(shared_dir(tmp_path_factory, "once"), key, build)
                                  / "result.json").read_text()))


class SharedBuilds(Mapping[str, tuple[Path, str]]):
    """name -> (executable, serial output) of the programs of a test module, each built on
    first use and once per test run.  A module-scoped fixture runs once in each pytest-xdist
    worker, so building every program there built each one once per worker; here the
    workers share one directory of the run (shared_dir, made_once)."""

    def __init__(self, tmp_path_factory: pytest.TempPathFactory, kind: str, names: Iterable[str],
                 make: Callable[[str, Path], tuple[Path, str]]) -> None:
        self.dir = shared_dir(tmp_path_factory, kind)
        self.names, self.make = list(names), make

    def __getitem__(self, name: str) -> tuple[Path, str]:
        if name not in self.names:
            raise KeyError(name)

        def build(work: Path) -> None:
            work.mkdir(exist_ok=True)
            exe, out = self.make(name, work)
            (work / "record.json").write_text(json.dumps([str(exe), out]))

        exe_text, out = json.loads((made_once(self.dir, name.replace("/", "__"), build)
                                    / "record.json").read_text())
        return Path(exe_text), out

    def __iter__(self) -> Iterator[str]:
        return iter(self.names)

    def __len__(self) -> int:
        return len(self.names)


def xmpacc_and_serial(folder: Path, *options: str, cwd: Path | None = None, env: dict[str, str] | None = None,
                      warnings: bool = True) -> Callable[[str, Path], tuple[Path, str]]:
    """SharedBuilds' ``make``: ``folder/name`` built by xmpacc (``options``, in ``cwd``: a
    relative ``folder`` names the files as the golden files do; ``env``: for the compile;
    ``warnings=False``: xmpacc must print none) and by plain cc (the oracle)."""
    def make(name: str, work: Path) -> tuple[Path, str]:
        src = folder / name
        exe = work / Path(name).stem
        r = run_xmpacc(str(src), "-o", str(exe), *options, cwd=cwd, env=env)
        assert r.returncode == 0, f"xmpacc {name} failed:\n{r.stderr}"
        assert warnings or "warning" not in r.stderr, f"xmpacc {name}:\n{r.stderr}"
        return exe, serial_output(cwd / src if cwd is not None else src, work)
    return make


def repo_builds(tmp_path_factory: pytest.TempPathFactory, folder: str, names: Iterable[str],
                env: dict[str, str] | None = None) -> SharedBuilds:
    """name -> (executable, serial output) of the programs ``names`` of the repository's
    ``folder`` (``tests/acc_programs``), built by xmpacc from the repository root with a
    relative path (so the #line names of the generated files are those of the golden files)
    and ``--keep`` (the generated files lie next to the executable), ``env`` set for the
    compile; each once per test run: the modules that run a program, and
    tests/test_nvrtc.py, which compiles its kernel file, share the build."""
    kind = "-".join(["repo", *Path(folder).parts, *(f"{k}_{v}" for k, v in sorted((env or {}).items()))])
    return SharedBuilds(tmp_path_factory, kind, names,
                        xmpacc_and_serial(Path(folder), "--keep", cwd=REPO, env=env))


def runtime_stats(stderr: str) -> list[dict[str, int]]:
    """The runtime counters each rank prints under XMPACC_STATS=1, one dict per rank."""
    return [json.loads(m) for m in re.findall(r"xmpacc-stats: (\{[^{}]*\})", stderr)]


def assert_prints(exe: Path, nprocs: int, expected: str) -> None:
    """``mpirun -np nprocs exe`` succeeds and prints ``expected`` (same_output)."""
    r = run_mpi(nprocs, exe, timeout=60 if nprocs <= 4 else 180)
    assert r.returncode == 0, r.stderr
    same_output(r.stdout, expected)


_FLOAT = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+)(?:[eE][-+]?\d+)?|[-+]?\d+[eE][-+]?\d+")


def same_output(got: str, expected: str, rel: float = 1e-9) -> None:
    """Equal text, except that floating-point numbers agree to a relative tolerance
    (parallel reductions add in another order than the serial loop)."""
    assert _FLOAT.sub("#", got) == _FLOAT.sub("#", expected), \
        f"output differs\n--- got:\n{got}--- expected:\n{expected}"
    for a, b in zip(_FLOAT.findall(got), _FLOAT.findall(expected), strict=False):
        assert float(a) == pytest.approx(float(b), rel=rel, abs=1e-300), f"{a} != {b}"
