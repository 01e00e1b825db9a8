"""Arithmetic on C expression text, for the normalisations of the directive parser.

Directive expressions stay C text (``Expr``), evaluated later by the generated code.  The
parser still has to shift bounds (``t[N]`` ends at ``(N)-1``, node ``p(k)`` is ``(k)-1``)
and turn ``start:length:step`` into an inclusive last index.  These helpers build that
text, parenthesising every operand so C precedence cannot change the meaning, and fold
decimal literals so that the common ``t[8]`` gives ``7`` rather than ``(8)-1``.
"""

from __future__ import annotations

import re

# Decimal literals only: a leading zero would be octal in C, and suffixes change types.
_DECIMAL = re.compile(r"-?(?:0|[1-9][0-9]*)")


def int_value(text: str) -> int | None:
    """The value of ``text`` if it is a (possibly negative) decimal literal, else None."""
    text = text.strip()
    return int(text) if _DECIMAL.fullmatch(text) else None


def plus(a: str, b: str) -> str:
    """``a + b``, folded when both are literals: ``"1", "4"`` → ``"5"``."""
    x, y = int_value(a), int_value(b)
    return str(x + y) if x is not None and y is not None else f"({a}) + ({b})"


def larger(a: str, b: str) -> str:
    """The larger of ``a`` and ``b`` (C), folded when both are literals."""
    x, y = int_value(a), int_value(b)
    return str(max(x, y)) if x is not None and y is not None else f"(({a}) > ({b}) ? ({a}) : ({b}))"


def minus_one(text: str) -> str:
    """``text - 1``: ``"8"`` → ``"7"``, ``"N"`` → ``"(N)-1"``."""
    value = int_value(text)
    return str(value - 1) if value is not None else f"({text})-1"


def negate(text: str) -> str:
    """``-text``: ``"1"`` → ``"-1"``, ``"c"`` → ``"-(c)"``."""
    value = int_value(text)
    return str(-value) if value is not None else f"-({text})"


def last_index(start: str, length: str, step: str | None) -> str:
    """Inclusive last index of ``start:length:step``: ``start + (length-1)*step``."""
    s, n = int_value(start), int_value(length)
    k = 1 if step is None else int_value(step)
    if s is not None and n is not None and k is not None:
        return str(s + (n - 1) * k)
    count = minus_one(length)
    span = count if step is None or k == 1 else f"({count})*({step})"
    return span if s == 0 else f"({start})+{span}"
