"""tests/compare_output.py, the output comparison of the shell checks."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from compare_output import same

HERE = Path(__file__).resolve().parent


def test_numbers_to_relative_tolerance() -> None:
    assert same("err = 1.000000000001e-3 at .5\n", "err = 1.0e-3 at 0.5\n")
    assert not same("err = 1.0001e-3\n", "err = 1.0e-3\n")
    assert not same("res = 1.0\n", "err = 1.0\n")


def test_exit_status(tmp_path: Path) -> None:
    got, exp = tmp_path / "got", tmp_path / "exp"
    got.write_text("x 2.0\n")
    exp.write_text("x 2.0000000000001\n")
    script = [sys.executable, str(HERE / "compare_output.py"), str(got), str(exp)]
    assert subprocess.run(script).returncode == 0
    exp.write_text("x 3.0\n")
    assert subprocess.run(script).returncode == 1
