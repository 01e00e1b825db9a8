"""The directives of a pragma node: what pass attach (passes/attach/attach.py) filed.

preprocess.py replaces each directive line by ``#pragma xmp_<id>`` or ``#pragma acc_<id>``;
attach parses the text of id ``<id>`` and files the result by the identity of the pragma
node, XMP directives in ``ctx.directives`` and OpenACC ones in ``ctx.acc_directives``.  Every
later pass asks these functions instead of reading pragma text:

    #pragma xmp_3          pragma_id(node) == 3       directives_of(node, ctx) == [Loop(...)]
    #pragma acc_4          pragma_id(node, "acc") == 4   acc_directive(node, ctx) == AccCompute(...)
"""

from __future__ import annotations

import re
from typing import Literal

from pycparser import c_ast

from xmpacc.cbuild import walk
from xmpacc.context import Context
from xmpacc.directives import ast as xd
from xmpacc.directives.openacc_ast import AccDirective

Dialect = Literal["xmp", "acc"]
_PRAGMA_ID = {"xmp": re.compile(r"xmp_(\d+)"), "acc": re.compile(r"acc_(\d+)")}


def pragma_id(node: c_ast.Node, dialect: Dialect = "xmp") -> int | None:
    """The directive id of a pragma node of ``dialect`` (``#pragma xmp_<id>`` or
    ``#pragma acc_<id>``); None for every other node (a user's ``#pragma xmp_loop`` too)."""
    if isinstance(node, c_ast.Pragma):
        m = _PRAGMA_ID[dialect].fullmatch(node.string.strip())
        if m:
            return int(m.group(1))
    return None


def is_directive(node: c_ast.Node) -> bool:
    """Does the node hold a directive of either dialect?"""
    return pragma_id(node) is not None or pragma_id(node, "acc") is not None


def directives_of(node: c_ast.Node, ctx: Context) -> list[xd.Directive]:
    """The XMP directives of a pragma node ([] for any other node)."""
    return ctx.directives.get(id(node), []) if pragma_id(node) is not None else []


def acc_directive(node: c_ast.Node, ctx: Context) -> AccDirective | None:
    """The OpenACC directive of a pragma node, None for any other node."""
    return ctx.acc_directives.get(id(node)) if pragma_id(node, "acc") is not None else None


def copy_directives(original: c_ast.Node, copied: c_ast.Node, ctx: Context) -> None:
    """``copied`` (a deep copy of ``original``) keeps the OpenACC directives of its
    pragmas: the table is by node identity (acc_routine's device copies of functions)."""
    for a, b in zip(walk(original), walk(copied), strict=True):
        d = acc_directive(a, ctx)
        if d is not None:
            ctx.acc_directives[id(b)] = d
