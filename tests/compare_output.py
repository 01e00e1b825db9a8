"""Exit 0 when a program's output matches the expected one, 1 otherwise: the same text
with every decimal number replaced, and each number within 1e-9 relative of the expected.

The shell checks (gpu_oversubscribed.sh, mpi_launch_check.sh) call it; it needs only
the standard library, so it runs in any environment they make.

    python3 tests/compare_output.py GOT EXPECTED
"""

from __future__ import annotations

import re
import sys

NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+)(?:[eE][-+]?\d+)?")


def same(got: str, expected: str, rel: float = 1e-9) -> bool:
    return NUMBER.sub("#", got) == NUMBER.sub("#", expected) and all(
        abs(float(a) - float(b)) <= rel * max(abs(float(b)), 1e-300)
        for a, b in zip(NUMBER.findall(got), NUMBER.findall(expected), strict=False))


def main(argv: list[str]) -> int:
    got, expected = (open(p).read() for p in argv[1:3])
    return 0 if same(got, expected) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
