"""The teaching labs of samples/labs/: every step, every LAB.md command, every mistake.

Each lab has step0_serial.c, step1_xmp.c (XMP on CPUs), step2_acc.c (XMP-ACC) and LAB.md.
Checked here:

- each step is its serial program plus ``#pragma xmp`` lines and nothing else;
- each step passes ``xmpacc-check`` on the host backend: step 0 on one process (on more,
  every process prints, which the pi lab shows), steps 1 and 2 on 1, 2 and 4 processes
  against step0_serial.c, and the output that LAB.md pastes for them is what it prints;
- each common mistake that a LAB.md shows is reproduced (the step file, edited as the
  sheet says, saved as mistake.c) and prints what the sheet pastes;
- the commands in each LAB.md name files that exist and options that xmpacc-check takes.

After a deliberate change of a lab or of xmpacc-check's report, rerun the LAB.md commands
and paste their output again.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import SAMPLES, run_mpi, run_xmpacc
from test_check import xmpacc_check

from xmpacc import check

LABS = SAMPLES / "labs"
LAB_NAMES = ("pi", "heat1d", "laplace", "nbody")
STEPS = ("step0_serial.c", "step1_xmp.c", "step2_acc.c")


def lab_md(lab: str) -> list[str]:
    return [ln.rstrip() for ln in (LABS / lab / "LAB.md").read_text().splitlines()]


def assert_pasted(lab: str, output: str, skip: tuple[str, ...] = ()) -> None:
    """Every line of ``output`` (except those starting with ``skip``) is a line of LAB.md."""
    sheet = set(lab_md(lab))
    missing = [ln for ln in output.splitlines() if ln.rstrip() not in sheet
               and not ln.startswith(skip)]
    assert not missing, (f"samples/labs/{lab}/LAB.md does not show these lines of the real "
                         "output (paste it again):\n" + "\n".join(missing))


# ------------------------------------------------------------------------------ steps


@pytest.mark.parametrize("lab", LAB_NAMES)
@pytest.mark.parametrize("step", STEPS[1:])
def test_step_is_serial_plus_directives(lab: str, step: str) -> None:
    text = (LABS / lab / step).read_text()
    found = check.directives(text)
    skip = {d.line + k for d in found for k in range(d.lines)}
    without = [ln for n, ln in enumerate(text.splitlines(), 1) if n not in skip]
    assert without == (LABS / lab / "step0_serial.c").read_text().splitlines(), \
        f"{lab}/{step} must be step0_serial.c plus '#pragma xmp' lines, nothing else"
    uses_acc = any(d.kind.startswith("acc") or d.acc_clause for d in found)
    assert found and uses_acc == (step == "step2_acc.c")
    assert not check.directives((LABS / lab / "step0_serial.c").read_text())


@pytest.mark.mpi
@pytest.mark.parametrize("lab", LAB_NAMES)
@pytest.mark.parametrize("step", STEPS)
def test_step_passes_xmpacc_check(lab: str, step: str) -> None:
    args = ["--np", "1"] if step == STEPS[0] else ["--serial", STEPS[0], "--np", "1,2,4"]
    r = xmpacc_check(step, *args, cwd=LABS / lab)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.splitlines()[-1] == f"result: OK at np={'1' if step == STEPS[0] else '1,2,4'}"
    if step != STEPS[0]:
        assert "other changes: none" in r.stdout.splitlines()
        assert_pasted(lab, r.stdout)


def test_laplace_step3_is_serial_plus_xmp_and_openacc_lines() -> None:
    """The fourth step of the Laplace lab: the same program in XcalableACC."""
    text = (LABS / "laplace" / "step3_xacc.c").read_text()
    found = check.directives(text)
    skip = {d.line + k for d in found for k in range(d.lines)}
    without = [ln for n, ln in enumerate(text.splitlines(), 1) if n not in skip]
    assert without == (LABS / "laplace" / "step0_serial.c").read_text().splitlines()
    assert {d.kind for d in found if d.openacc} == {"data", "parallel loop"}
    assert not any(d.kind.startswith("acc") for d in found if not d.openacc), "no XMP-ACC directives"


@pytest.mark.mpi
def test_laplace_step3_passes_xmpacc_check() -> None:
    r = xmpacc_check("step3_xacc.c", "--serial", STEPS[0], "--np", "1,2,4", cwd=LABS / "laplace")
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.splitlines()[-1] == "result: OK at np=1,2,4"
    assert "other changes: none" in r.stdout.splitlines()
    assert_pasted("laplace", r.stdout)


@pytest.mark.mpi
def test_serial_program_under_mpirun_prints_once_per_process() -> None:
    r = xmpacc_check("step0_serial.c", "--np", "1,2", cwd=LABS / "pi")
    assert r.returncode == 1
    assert "np=1: OK" in r.stdout and "once per process" in r.stdout
    assert_pasted("pi", r.stdout)


# --------------------------------------------------------------------------- mistakes


@dataclass(frozen=True)
class Mistake:
    """A copy of ``step`` saved as mistake.c, with ``old`` replaced by ``new`` (and each
    pair of ``more``); ``checked``: the sheet also shows a checked run on that many nodes."""

    lab: str
    name: str
    step: str
    old: str
    new: str
    more: tuple[tuple[str, str], ...] = ()
    checked: int = 0

    def __str__(self) -> str:
        return f"{self.lab}-{self.name}"

    def apply(self, text: str) -> str:
        for old, new in ((self.old, self.new), *self.more):
            assert text.count(old) == 1, f"{self}: the text to change is not in {self.step}: {old!r}"
            text = text.replace(old, new)
        return text


MISTAKES = [
    Mistake("pi", "no-reduction", "step1_xmp.c",
            "#pragma xmp loop on t[i] reduction(+:sum, big) reduction(max:fmax)\n",
            "#pragma xmp loop on t[i]\n"),
    Mistake("pi", "acc-loop-without-reduction", "step2_acc.c",
            "#pragma xmp loop on t[i] reduction(+:sum, big) reduction(max:fmax) acc\n",
            "#pragma xmp loop on t[i] acc\n"),
    Mistake("heat1d", "no-reflect", "step1_xmp.c", "#pragma xmp reflect (u)\n", ""),
    Mistake("heat1d", "no-shadow-no-reflect", "step1_xmp.c", "#pragma xmp shadow u[1]\n", "",
            (("#pragma xmp reflect (u)\n", ""),), checked=2),
    Mistake("heat1d", "no-final-sync-out", "step2_acc.c",
            "        }\n#pragma xmp acc replicate_sync out (u)\n", "        }\n", checked=2),
    Mistake("laplace", "no-shadow", "step1_xmp.c", "#pragma xmp shadow u[1][0]\n", ""),
    Mistake("laplace", "not-replicated", "step2_acc.c",
            "#pragma xmp acc replicate (u, unew)\n", "#pragma xmp acc replicate (u)\n"),
    Mistake("laplace", "no-sync-out-before-reflect", "step2_acc.c",
            "#pragma xmp acc replicate_sync out (u)\n#pragma xmp reflect (u)\n",
            "#pragma xmp reflect (u)\n", checked=2),
    Mistake("nbody", "no-reflect-m", "step1_xmp.c", "#pragma xmp reflect m\n", ""),
    Mistake("nbody", "no-sync-in-positions", "step2_acc.c",
            "#pragma xmp acc replicate_sync in (p_x, p_y, p_z)\n", "", checked=2),
]

# LAB.md shortens a mistake's report to the lines that matter
_STATS = ("directives:", "  XMP", "size:", "other changes:")


@pytest.mark.mpi
@pytest.mark.parametrize("mistake", MISTAKES, ids=str)
def test_lab_md_shows_the_real_mistake(mistake: Mistake, tmp_path: Path) -> None:
    (tmp_path / "mistake.c").write_text(mistake.apply((LABS / mistake.lab / mistake.step).read_text()))
    r = xmpacc_check("mistake.c", "--np", "1,2", cwd=tmp_path)
    assert r.returncode == 1, r.stdout
    assert "xmpacc-check mistake.c --np 1,2" in "\n".join(lab_md(mistake.lab))
    assert_pasted(mistake.lab, r.stdout, skip=_STATS)
    if mistake.checked:
        _checked_run(mistake, tmp_path)


def _checked_run(mistake: Mistake, tmp: Path) -> None:
    """The sheet's ``xmpacc mistake.c -o mistake && XMPACC_CHECK=1 ... mpirun -np N ./mistake``."""
    device = " XMPACC_DEVICE=host" if mistake.step == "step2_acc.c" else ""
    command = f"xmpacc mistake.c -o mistake && XMPACC_CHECK=1{device} mpirun -np {mistake.checked} ./mistake"
    assert f"    {command}" in lab_md(mistake.lab), f"{mistake}: LAB.md does not show '{command}'"
    r = run_xmpacc("mistake.c", "-o", "mistake", cwd=tmp)
    assert r.returncode == 0, r.stderr
    r = run_mpi(mistake.checked, tmp / "mistake", env={"XMPACC_CHECK": "1", "XMPACC_DEVICE": "host",
                                                       "XMPACC_CACHE_DIR": str(tmp / "cache")})
    assert r.returncode != 0 and ": error: " in r.stderr, r.stderr
    assert_pasted(mistake.lab, r.stderr, skip=("Abort(",))


# --------------------------------------------------------------------------- LAB.md


def _commands(lab: str) -> list[list[str]]:
    """The xmpacc-check, xmpacc, cc and mpirun commands of a LAB.md (code blocks indented
    by four spaces and inline code), split at '&&'."""
    lines = [ln[4:] for ln in lab_md(lab) if ln.startswith("    ")]
    lines += re.findall(r"`((?:xmpacc-check|xmpacc|cc|mpirun) [^`]*)`", "\n".join(lab_md(lab)))
    found = []
    for line in lines:
        for part in line.split("&&"):
            words = shlex.split(part)
            if words and words[0] in ("xmpacc-check", "xmpacc", "cc", "mpirun", "time"):
                found.append(words)
    return found


@pytest.mark.parametrize("lab", LAB_NAMES)
def test_lab_md_commands_exist(lab: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(LABS / lab)
    commands = _commands(lab)
    joined = [" ".join(c) for c in commands]
    for step in STEPS[1:]:
        assert f"xmpacc-check {step} --serial step0_serial.c --np 1,2,4" in joined
        assert any(c.startswith(f"xmpacc {step} -o ") for c in joined), f"no 'xmpacc {step} -o'"
    assert any(c.startswith("mpirun -np 4 ./") for c in joined)
    for words in commands:
        for w in words:
            if w.endswith(".c") and w != "mistake.c":
                assert (LABS / lab / w).is_file(), f"{lab}/LAB.md: '{' '.join(words)}': no {w}"
        if words[0] == "xmpacc-check" and "mistake.c" not in words:
            check.parse_args(words[1:])          # raises on a bad option
    assert "## Common mistakes" in lab_md(lab)


def test_nbody_lab_compares_with_the_paper() -> None:
    stats = check.statistics([str(LABS / "nbody" / "step2_acc.c")],
                             [str(LABS / "nbody" / "step0_serial.c")])
    xmp = [d for d in stats.found if not d.kind.startswith("acc")]
    acc = [d for d in stats.found if d.kind.startswith("acc")]
    counts = (len(xmp), len(acc), sum(d.acc_clause for d in xmp), stats.serial_lines)
    sheet = "\n".join(lab_md("nbody"))
    assert "10 XMP lines plus 4 directives and 2 acc clauses" in sheet   # the paper's claim
    assert f"| this lab | {counts[0]} | {counts[1]} | {counts[2]} | {counts[3]} |" in sheet


def test_labs_index_lists_every_lab() -> None:
    index = (LABS / "README.md").read_text()
    for lab in LAB_NAMES:
        assert f"{lab}/LAB.md" in index
        assert all((LABS / lab / f).is_file() for f in (*STEPS, "LAB.md"))
