"""Mutants of the samples and test programs never crash xmpacc (issue 10).

``tests/fuzzing.py`` makes the mutants (directive tokens deleted, duplicated or swapped,
brackets changed, lines moved, garbage and non-UTF-8 bytes, deep nesting ...) and is the
oracle: every mutant compiles, or fails with a located ``file:line:col: error:``; never an
internal error, a traceback or a hang, and the host C of an accepted mutant compiles
whenever the mutant is valid C for cc.  The CI run (60 mutants: every mutation and more
than a third of the corpus; mutants 0-59 of seed 0) takes about 6 s on two cores; a release
check runs more, on another seed if wanted:

    XMPACC_FUZZ_MUTANTS=10000 .venv/bin/pytest -q tests/test_fuzz.py
    XMPACC_FUZZ_MUTANTS=10000 XMPACC_FUZZ_SEED=7 .venv/bin/pytest -q tests/test_fuzz.py

A finding names its mutant number: ``python tests/fuzzing.py --seed S --show N`` prints
that mutant again.
"""

from __future__ import annotations

import os
import random

import fuzz_mutations
import fuzzing
import pytest

DEFAULT_MUTANTS = 60
MUTANTS = int(os.environ.get("XMPACC_FUZZ_MUTANTS", DEFAULT_MUTANTS))
SEED = int(os.environ.get("XMPACC_FUZZ_SEED", "0"))
# The CI run stops after 40 s even on a slow machine; a longer run has no cap.
SECONDS = float(os.environ.get("XMPACC_FUZZ_SECONDS", 40 if MUTANTS <= DEFAULT_MUTANTS else "inf"))


def test_the_corpus_has_directives() -> None:
    files = fuzzing.corpus()
    assert len(files) >= 20 and all(b"#pragma xmp" in f.read_bytes() for f in files)


def test_mutants_are_reproducible() -> None:
    files = fuzzing.corpus()
    assert fuzz_mutations.mutant(files, SEED, 17) == fuzz_mutations.mutant(files, SEED, 17)
    assert fuzz_mutations.mutant(files, SEED, 17)[1] != fuzz_mutations.mutant(files, SEED, 18)[1]


@pytest.mark.parametrize("mutation", fuzz_mutations.MUTATIONS, ids=lambda m: m.__name__)
def test_every_mutation_changes_a_program(mutation: fuzz_mutations.Mutation) -> None:
    src = (fuzzing.REPO / "samples/laplace/laplace_xmp.c").read_bytes()
    outs = {mutation(src, random.Random(k)) for k in range(5)}
    assert None not in outs and any(out != src for out in outs)


def test_the_oracle() -> None:
    assert fuzzing.classify(0, "")[0] == "ok"
    assert fuzzing.classify(1, "m.c:3:7: error: 'N' undeclared\n")[0] == "error"
    assert fuzzing.classify(1, "xmpacc: error: something\n")[0] == "unlocated"
    assert fuzzing.classify(2, "xmpacc: internal error: RecursionError: ...\n")[0] == "internal"
    assert fuzzing.classify(1, "Traceback (most recent call last):\n")[0] == "traceback"


def test_mutants_never_crash_xmpacc() -> None:
    summary = fuzzing.run(MUTANTS, jobs=2, seed=SEED, host=True, max_seconds=SECONDS)
    report = "\n".join(f"mutant {o.index} (seed {SEED}, {o.base}: {', '.join(o.mutations)}): {o.kind}\n"
                       f"{o.detail[:1500]}" for o in summary.findings)
    print(summary.line())
    assert summary.mutants >= min(MUTANTS, 20), summary.line()
    assert not summary.findings, f"{summary.line()}\n{report}"
