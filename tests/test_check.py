"""``xmpacc-check``: output comparison, directive counting, and the command as a user runs it.

The comparison and the counting are tested in-process (no subprocess); the command itself
runs as the installed console script on small programs written into a temporary folder:
a program that matches, one that differs on two processes, one within and one outside the
float tolerance, build failures, a failing and a hanging run, and usage errors.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import mpirun_path

from xmpacc import check

# --------------------------------------------------------------------------- helpers


def xmpacc_check(*args: str, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """``xmpacc-check ARGS`` run from ``cwd`` as a user runs it (``$CC`` is ``cc``, so the
    serial build line is the same everywhere)."""
    if mpirun_path() is None:
        pytest.skip("no mpirun")
    exe = Path(sys.executable).parent / "xmpacc-check"
    if not exe.exists():
        pytest.fail("xmpacc-check is not installed: pip install --no-deps -e . (see the README)")
    env = {**os.environ, "CC": "cc"}
    return subprocess.run([str(exe), *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, env=env, check=False)


def write(folder: Path, name: str, text: str) -> str:
    (folder / name).write_text(textwrap.dedent(text).lstrip())
    return name


# Ten iterations over two loops; the second has no reduction clause, so on two processes
# p[0] prints only its own part of the sum.  'fail' and 'hang' make the parallel run (and
# only the parallel run, where sum != 45) exit with status 3 or never end.
MODES = """
    #include <stdio.h>
    #include <string.h>
    #define N 10
    #pragma xmp nodes p[*]
    #pragma xmp template t[N]
    #pragma xmp distribute t[block] onto p

    int main(int argc, char **argv)
    {
        int i, count = 0, sum = 0;
    #pragma xmp loop on t[i] reduction(+:count)
        for (i = 0; i < N; i++)
            count++;
    #pragma xmp loop on t[i]
        for (i = 0; i < N; i++)
            sum += i;
        if (argc > 1 && strcmp(argv[1], "fail") == 0 && sum != 45)
            return 3;
        if (argc > 1 && strcmp(argv[1], "hang") == 0 && sum != 45)
            for (;;)
                ;
    #pragma xmp task on p[0]
        {
            printf("count = %d\\n", count);
            printf("sum = %d\\n", sum);
        }
        return 0;
    }
"""

# ------------------------------------------------------------------ output comparison


def test_floats_agree_within_rtol() -> None:
    assert check.compare("x = 1.000000000000e+00\n", "x = 1.000000000100e+00\n") is None
    diff = check.compare("x = 1.000000000000e+00\n", "x = 1.000000000100e+00\n", rtol=1e-12)
    assert diff is not None and diff.line == 1
    assert "relative difference 1.0e-10 > rtol 1e-12" in diff.detail


def test_atol_covers_numbers_near_zero() -> None:
    assert check.compare("r = 0.0\n", "r = 1e-20\n") is not None
    assert check.compare("r = 0.0\n", "r = 1e-20\n", atol=1e-15) is None


def test_integers_must_be_equal() -> None:
    # as floats these agree to 1e-9; as counts they do not
    diff = check.compare("n = 1000000001\n", "n = 1000000000\n")
    assert diff is not None and diff.detail == "1000000001 vs 1000000000: integers differ"


def test_text_must_be_equal() -> None:
    diff = check.compare("a\nb = 1\n", "a\nc = 1\n")
    assert diff == check.Difference(2, "b = 1", "c = 1", "the text differs")
    # digits inside words are text, not numbers
    assert check.compare("x2 = 3 v1.2.3\n", "x3 = 3 v1.2.3\n") is not None
    assert check.compare("v1.2.3\n", "v1.2.4\n") is not None
    assert check.compare("3-1 = 2\n", "3-1 = 2\n") is None


def test_first_differing_line_is_reported() -> None:
    diff = check.compare("a = 1\nb = 2\nc = 3\n", "a = 1\nb = 5\nc = 7\n")
    assert (diff.line, diff.serial, diff.xmpacc) == (2, "b = 2", "b = 5")  # type: ignore[union-attr]


def test_missing_and_repeated_output() -> None:
    short = check.compare("a\nb\n", "a\n")
    assert (short.line, short.serial, short.xmpacc) == (2, "b", None)  # type: ignore[union-attr]
    twice = check.compare("pi = 3.14\n", "pi = 3.14\npi = 3.14\n")
    assert twice is not None and twice.serial is None and "2 times, once per process" in twice.detail
    assert check.compare("a\n", "").detail == "xmpacc printed nothing"  # type: ignore[union-attr]


# ----------------------------------------------------------------- directive counting

SOURCE = """
    #include <stdio.h>
    /* #pragma xmp nodes q[4]   (in a comment: not counted) */
    double a[8];
    #pragma xmp nodes p[*]
    #pragma xmp template t[8]
    #pragma xmp distribute t[block] \\
            onto p
    #pragma xmp align a[i] with t[i]
    int main(void)
    {
        int i;
        double acc = 0;
    #pragma xmp acc replicate (a)
        {
    #pragma xmp loop on t[i] acc
            for (i = 0; i < 8; i++) a[i] = i;
    #pragma xmp acc replicate_sync out (a)
        }
    #pragma xmp loop on t[i] reduction(+:acc)
        for (i = 0; i < 8; i++) acc += a[i];
        printf("%g\\n", acc);
        return 0;
    }
"""


def test_directives_are_classified() -> None:
    found = check.directives(textwrap.dedent(SOURCE).lstrip())
    assert [d.kind for d in found] == ["nodes", "template", "distribute", "align",
                                       "acc replicate", "loop", "acc replicate_sync", "loop"]
    assert [d.acc_clause for d in found] == [False] * 5 + [True, False, False]
    assert (found[2].line, found[2].lines) == (6, 2)       # a continued directive


def test_statistics_against_a_serial_file(tmp_path: Path) -> None:
    prog = write(tmp_path, "prog.c", SOURCE)
    serial_lines = [ln for ln in (tmp_path / prog).read_text().splitlines()
                    if not ln.startswith(("#pragma xmp", "        onto"))]
    (tmp_path / "serial.c").write_text("\n".join(serial_lines[1:]) + "\n")   # one line less
    stats = check.statistics([str(tmp_path / prog)], [str(tmp_path / "serial.c")])
    assert (stats.added, stats.removed) == (1, 0)
    report = stats.report()
    assert report[0] == ("directives: 8 #pragma xmp lines (9 with continuations): 6 XMP + 2 "
                         "XMP-ACC directives, 1 acc clause (3 lines use XMP-ACC)")
    assert report[1] == "  XMP:     nodes 1, template 1, distribute 1, align 1, loop 2 (1 with acc)"
    assert report[2] == "  XMP-ACC: acc replicate 1, acc replicate_sync 1"
    assert report[-1].startswith("other changes: 1 lines added and 0 removed")


def test_no_mpi4py_or_cupy() -> None:
    code = "import sys, xmpacc.check; print(sorted({'mpi4py', 'cupy'} & set(sys.modules)))"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert r.stdout.strip() == "[]"


# ------------------------------------------------------------------------- the command


@pytest.mark.mpi
def test_matching_program(tmp_path: Path) -> None:
    write(tmp_path, "modes.c", MODES)
    r = xmpacc_check("modes.c", "--np", "1", cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.splitlines() == [
        "xmpacc-check modes.c (XMPACC_DEVICE=host, rtol 1e-09, atol 0)",
        "serial build: cc -O2 -w modes.c -lm: OK, prints 2 lines",
        "xmpacc build: xmpacc modes.c: OK",
        "np=1: OK",
        "directives: 6 #pragma xmp lines: 6 XMP directives (no XMP-ACC)",
        "  XMP:     nodes 1, template 1, distribute 1, loop 2, task 1",
        ("size: serial program 22 lines (this program without its directives); "
         "with the directives 28 lines"),
        "result: OK at np=1"]


@pytest.mark.mpi
def test_deliberate_difference_shows_the_first_differing_line(tmp_path: Path) -> None:
    write(tmp_path, "modes.c", MODES)
    r = xmpacc_check("modes.c", "--np", "1,2", cwd=tmp_path)
    assert r.returncode == 1
    out = r.stdout.splitlines()
    assert "np=1: OK" in out
    assert "np=2: DIFFERS at line 2: serial 'sum = 45' / xmpacc 'sum = 10'" in out
    assert "      45 vs 10: integers differ" in out
    assert out[-1] == "result: OK at np=1; DIFFERS at np=2"


@pytest.mark.mpi
def test_float_tolerance_against_another_serial_program(tmp_path: Path) -> None:
    write(tmp_path, "ref.c",
          '#include <stdio.h>\nint main(void) { printf("x = %.12e\\n", 1.0); return 0; }\n')
    write(tmp_path, "near.c",
          '#include <stdio.h>\nint main(void) { printf("x = %.12e\\n", 1.0 + 1e-10); return 0; }\n')
    ok = xmpacc_check("near.c", "--serial", "ref.c", "--np", "1", cwd=tmp_path)
    assert ok.returncode == 0, ok.stdout
    assert "other changes: 1 lines added and 1 removed besides the directives (comments count too)" \
        in ok.stdout
    strict = xmpacc_check("near.c", "--serial", "ref.c", "--np", "1", "--rtol", "1e-12", cwd=tmp_path)
    assert strict.returncode == 1
    assert "np=1: DIFFERS at line 1: serial 'x = 1.000000000000e+00' / " \
           "xmpacc 'x = 1.000000000100e+00'" in strict.stdout


def test_xmpacc_build_failure_shows_the_compiler_message(tmp_path: Path) -> None:
    write(tmp_path, "bad.c", """
        #include <stdio.h>
        double a[8];
        #pragma xmp nodes p[*]
        #pragma xmp template t[8]
        #pragma xmp distribute t[block] onto p
        #pragma xmp align a[i] with t[i]
        int main(void)
        {
        #pragma xmp reflect (a)
            printf("%g\\n", a[0]);
            return 0;
        }
    """)
    r = xmpacc_check("bad.c", cwd=tmp_path)
    assert r.returncode == 1
    out = r.stdout.splitlines()
    assert "xmpacc build (xmpacc bad.c): FAILED" in out
    assert any(ln.startswith("bad.c:9:22: error: the aligned array 'a' has no shadow") for ln in out)
    assert out[-1] == "result: FAILED (xmpacc build)"
    assert "np=" not in r.stdout and "Traceback" not in r.stdout + r.stderr


def test_serial_build_failure_is_reported(tmp_path: Path) -> None:
    write(tmp_path, "typo.c", "int main(void) { return 0 }\n")
    r = xmpacc_check("typo.c", cwd=tmp_path)
    assert r.returncode == 1
    assert "serial build (cc -O2 -w typo.c -lm): FAILED (exit status 1)" in r.stdout
    assert "typo.c:1:" in r.stdout                         # the C compiler's own message
    assert r.stdout.splitlines()[-1] == "result: FAILED (the serial program)"


@pytest.mark.mpi
def test_failing_and_hanging_runs(tmp_path: Path) -> None:
    write(tmp_path, "modes.c", MODES)
    failed = xmpacc_check("modes.c", "--np", "2", "--", "fail", cwd=tmp_path)
    assert failed.returncode == 1
    assert "np=2: FAILED (exit status 3)" in failed.stdout.splitlines()
    hung = xmpacc_check("modes.c", "--np", "2", "--timeout", "3", "--", "hang", cwd=tmp_path)
    assert hung.returncode == 1
    assert "np=2: TIMEOUT after 3 s" in hung.stdout.splitlines()
    assert hung.stdout.splitlines()[-1] == "result: TIMEOUT at np=2"


@pytest.mark.parametrize("argv, message", [
    ([], "the following arguments are required: PROG.c"),
    (["missing.c"], "xmpacc-check: error: no such file: 'missing.c'"),
    (["prog.c", "--serial", "nothere.c"], "no such file: 'nothere.c'"),
    (["prog.c", "--np", "0"], "--np wants positive process counts, not '0'"),
    (["prog.c", "--np", "two"], "--np wants process counts like 1,2,4, not 'two'"),
    (["prog.c", "--rtol", "-1"], "--rtol and --atol must be >= 0"),
    (["prog.c", "--device", "gpu"], "invalid choice: 'gpu'"),
    (["prog.c", "--frobnicate"], "unrecognized arguments: --frobnicate"),
])
def test_usage_errors_exit_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                             capsys: pytest.CaptureFixture[str], argv: list[str],
                             message: str) -> None:
    write(tmp_path, "prog.c", "int main(void) { return 0; }\n")
    monkeypatch.chdir(tmp_path)
    assert check.main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_console_script_usage_error(tmp_path: Path) -> None:
    r = xmpacc_check("missing.c", cwd=tmp_path)
    assert r.returncode == 2
    assert r.stderr == "xmpacc-check: error: no such file: 'missing.c'\n"
    help_ = xmpacc_check("--help", cwd=tmp_path)
    assert help_.returncode == 0 and "usage: xmpacc-check PROG.c" in help_.stdout
