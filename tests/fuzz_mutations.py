"""The mutations of the fuzzer (tests/fuzzing.py): seeded edits of a C program.

Directive tokens deleted, duplicated or swapped, brackets changed, lines moved or
duplicated, garbage and non-UTF-8 bytes inserted, expressions and blocks nested
thousands of levels deep, directive numbers turned into floating-point literals and
names into other or unknown ones.  ``mutant(files, seed, k)`` is always the same file.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from pathlib import Path

_DIRECTIVE = re.compile(rb"^[ \t]*#[ \t]*pragma[ \t]+xmp\b.*$", re.MULTILINE)
_TOKEN = re.compile(rb"[A-Za-z_]\w*|\d[\w.]*|::|&&|\|\||[^\s\w]")
_IDENT = re.compile(rb"\b[A-Za-z_]\w*\b")
_NUMBER = re.compile(rb"\b\d+\b")
_BRACKETS = b"()[]{}"
_GARBAGE = (b"@", b"`", b"$", b"\\", b"#", b"'", b'"', b"/*", b"*/", b"//", b"??/", b";", b",",
            b":", b"::", b"...", b"0x", b"1e", b".5", b"_xmpacc_x", b"xmp", b"acc", b"on",
            b"#pragma xmp", b"#pragma xmp loop on t[i]", b"\t", b"\n", b"\\\n", b"\x00")
_RAW_BYTES = (b"\xff", b"\xfe", b"\x80", b"\xc3", b"\xc3\x28", b"\xe2\x82", b"\xed\xa0\x80",
              b"\xf0\x9f\x98", b"\xc0\xaf")


# ---------------------------------------------------------------- mutations
# Each takes the program and a random generator and returns the mutated program, or None
# when it does not apply (then another one is drawn).

Mutation = Callable[[bytes, random.Random], "bytes | None"]


def _directive_spans(src: bytes) -> list[tuple[int, int]]:
    return [m.span() for m in _DIRECTIVE.finditer(src)]


def _directive_tokens(src: bytes) -> list[tuple[int, int]]:
    """(start, end) of every token after ``#pragma xmp`` on directive lines."""
    out = []
    for start, end in _directive_spans(src):
        line = src[start:end]
        head = re.match(rb"[ \t]*#[ \t]*pragma[ \t]+xmp", line)
        assert head is not None
        out += [(start + m.start(), start + m.end()) for m in _TOKEN.finditer(line, head.end())]
    return out


def delete_token(src: bytes, rng: random.Random) -> bytes | None:
    toks = _directive_tokens(src)
    if not toks:
        return None
    a, b = rng.choice(toks)
    return src[:a] + src[b:]


def duplicate_token(src: bytes, rng: random.Random) -> bytes | None:
    toks = _directive_tokens(src)
    if not toks:
        return None
    a, b = rng.choice(toks)
    return src[:b] + b" " + src[a:b] + src[b:]


def swap_tokens(src: bytes, rng: random.Random) -> bytes | None:
    toks = _directive_tokens(src)
    if len(toks) < 2:
        return None
    k = rng.randrange(len(toks) - 1)
    (a, b), (c, d) = toks[k], toks[k + 1]
    return src[:a] + src[c:d] + src[b:c] + src[a:b] + src[d:]


def change_bracket(src: bytes, rng: random.Random) -> bytes | None:
    """Replace, delete or add a bracket, in a directive (mostly) or anywhere."""
    spans = _directive_spans(src)
    if spans and rng.random() < 0.7:
        a, b = rng.choice(spans)
    else:
        a, b = 0, len(src)
    places = [i for i in range(a, b) if src[i] in _BRACKETS]
    if not places:
        return None
    i = rng.choice(places)
    action = rng.random()
    new = bytes([rng.choice(_BRACKETS)])
    if action < 0.5:
        return src[:i] + new + src[i + 1:]
    if action < 0.75:
        return src[:i] + src[i + 1:]
    return src[:i] + new + src[i:]


def move_line(src: bytes, rng: random.Random) -> bytes | None:
    lines = src.split(b"\n")
    directives = [k for k, ln in enumerate(lines) if _DIRECTIVE.match(ln)]
    k = rng.choice(directives) if directives and rng.random() < 0.7 else rng.randrange(len(lines))
    line = lines.pop(k)
    lines.insert(rng.randrange(len(lines) + 1), line)
    return b"\n".join(lines)


def duplicate_line(src: bytes, rng: random.Random) -> bytes | None:
    lines = src.split(b"\n")
    directives = [k for k, ln in enumerate(lines) if _DIRECTIVE.match(ln)]
    k = rng.choice(directives) if directives else rng.randrange(len(lines))
    lines.insert(rng.randrange(len(lines) + 1), lines[k])
    return b"\n".join(lines)


def _somewhere(src: bytes, rng: random.Random) -> int:
    """A position: in a directive, a comment, a string or anywhere."""
    spans = _directive_spans(src)
    choice = rng.random()
    if spans and choice < 0.4:
        a, b = rng.choice(spans)
        return rng.randint(a, b)
    pieces = [m.start() + 2 for m in re.finditer(rb'/\*|"', src)]
    if pieces and choice < 0.7:
        return min(rng.choice(pieces), len(src))
    return rng.randint(0, len(src))


def insert_garbage(src: bytes, rng: random.Random) -> bytes | None:
    i = _somewhere(src, rng)
    return src[:i] + rng.choice(_GARBAGE) + src[i:]


def insert_bytes(src: bytes, rng: random.Random) -> bytes | None:
    i = _somewhere(src, rng)
    return src[:i] + rng.choice(_RAW_BYTES) * rng.randint(1, 3) + src[i:]


def _depth(rng: random.Random) -> int:
    return rng.choice((50, 300, 1000, 3000, 6000))


def deep_parens(src: bytes, rng: random.Random) -> bytes | None:
    """Wrap a number (in a directive or in C code) in thousands of parentheses."""
    numbers = list(_NUMBER.finditer(src))
    spans = _directive_spans(src)
    inside = [m for m in numbers if any(a <= m.start() < b for a, b in spans)]
    pool = inside if inside and rng.random() < 0.5 else numbers
    if not pool:
        return None
    m = rng.choice(pool)
    n = _depth(rng)
    return src[:m.start()] + b"(" * n + m.group() + b")" * n + src[m.end():]


def deep_braces(src: bytes, rng: random.Random) -> bytes | None:
    """A statement of main's body nested in thousands of blocks, or deep unary chains."""
    semis = [m.end() for m in re.finditer(rb";\n", src)]
    if not semis:
        return None
    i = rng.choice(semis)
    n = _depth(rng)
    piece = rng.choice((b"{" * n + b";" + b"}" * n, b"x = " + b"-" * n + b"1;",
                        b"{ int d_ = " + b"1 + " * n + b"1; }", b"if (1) ; " + b"else if (1) ; " * n))
    return src[:i] + piece + b"\n" + src[i:]


def float_literal(src: bytes, rng: random.Random) -> bytes | None:
    """A number in a directive becomes a floating-point literal (part 2's checks)."""
    spans = _directive_spans(src)
    numbers = [m for m in _NUMBER.finditer(src) if any(a <= m.start() < b for a, b in spans)]
    if not numbers:
        return None
    m = rng.choice(numbers)
    return src[:m.start()] + m.group() + rng.choice((b".0", b".5", b"e0", b"f")) + src[m.end():]


def rename_ident(src: bytes, rng: random.Random) -> bytes | None:
    """A name in a directive becomes another name of the file or an unknown one."""
    spans = _directive_spans(src)
    idents = [m for m in _IDENT.finditer(src) if any(a <= m.start() < b for a, b in spans)]
    if not idents:
        return None
    m = rng.choice(idents)
    names = sorted({x.group() for x in _IDENT.finditer(src)})
    new = rng.choice(names) if rng.random() < 0.6 \
        else rng.choice((b"undeclared_", b"NN", b"q", b"main", b"printf"))
    return src[:m.start()] + new + src[m.end():]


MUTATIONS: tuple[Mutation, ...] = (
    delete_token, duplicate_token, swap_tokens, change_bracket, move_line, duplicate_line,
    insert_garbage, insert_bytes, deep_parens, deep_braces, float_literal, rename_ident,
)


def mutant(files: list[Path], seed: int, index: int) -> tuple[str, bytes, list[str]]:
    """Mutant ``index`` of ``seed``: (its base file, its text, the mutations applied)."""
    rng = random.Random(f"{seed}:{index}")
    base = rng.choice(files)
    src = base.read_bytes()
    applied: list[str] = []
    # deep nesting is slow to compile: at most one such mutation per mutant
    deep = {deep_parens, deep_braces}
    count = rng.choice((1, 1, 2, 3))
    while len(applied) < count:
        mutation = rng.choice(MUTATIONS)
        if mutation in deep and any(name.startswith("deep") for name in applied):
            continue
        out = mutation(src, rng)
        if out is not None:
            src = out
            applied.append(mutation.__name__)
    return base.name, src, applied
