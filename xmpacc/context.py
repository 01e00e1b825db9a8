"""What one translation unit carries through the passes (never stored on AST nodes)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pycparser import c_ast

from xmpacc.diagnostics import Diagnostics
from xmpacc.directives import ast as xd
from xmpacc.directives.openacc_ast import AccDirective
from xmpacc.facts import InfoFact
from xmpacc.frontend.preprocess import Preprocessed
from xmpacc.kernel_types import Typedefs
from xmpacc.passes.common.coindex import Coarray
from xmpacc.passes.common.values import Kernel, ReflectOverlap, Replicated
from xmpacc.symbols import ScopeTree


@dataclass
class Unit:
    """One .c file with XMP directives, from cpp output to transformed AST."""

    path: str
    pre: Preprocessed
    ast: c_ast.FileAST

    @property
    def stem(self) -> str:
        """A C identifier made from the file name (laplace_xmp.c -> laplace_xmp_c)."""
        base = self.path.rsplit("/", 1)[-1]
        return re.sub(r"\W", "_", base)


@dataclass
class Context:
    """Analysis results and generated pieces of one unit, shared by the passes."""

    diags: Diagnostics = field(default_factory=Diagnostics)
    # id(Pragma node) -> the directives it holds (one pragma may declare several objects)
    directives: dict[int, list[xd.Directive]] = field(default_factory=dict)
    # id(Pragma node) -> its OpenACC directive (XcalableACC; ``#pragma acc_<id>``, attach.py)
    acc_directives: dict[int, AccDirective] = field(default_factory=dict)
    scopes: ScopeTree | None = None
    # descriptors and file-scope code the passes add around the user's declarations
    file_decls: list[c_ast.Node] = field(default_factory=list)
    init_stmts: list[c_ast.Node] = field(default_factory=list)
    kernels: list[Kernel] = field(default_factory=list)   # in source order
    # XcalableACC data (passes/gpu/acc_data.py): id(Compound) of a data region -> its present
    # variables, for the gpu pass; a device is needed even without
    # kernels; after enter data or declare, presence is checked at run time
    acc_present: dict[int, list[Replicated]] = field(default_factory=dict)
    acc_entered: list[Replicated] = field(default_factory=list)   # variables of enter data /
                                                                  # file-scope declare
    device_data: bool = False
    # name -> copy of the FuncDef of each 'acc routine seq' function (device functions, acc_routine.py)
    acc_routines: dict[str, c_ast.FuncDef] = field(default_factory=dict)
    # the functions this file defines under 'acc routine', their checks passed or not
    # (acc_orphans.py: the loop lines of their host copies)
    acc_routine_defs: set[str] = field(default_factory=set)
    # name -> the file-scope variables its device copy takes as trailing parameters
    acc_routine_globals: dict[str, list[str]] = field(default_factory=dict)
    # routines of other files (their prototypes) and this file's for other files (acc_routine_files.py)
    acc_routine_externs: dict[str, c_ast.Decl] = field(default_factory=dict)
    acc_routine_exports: dict = field(default_factory=dict)   # name -> acc_routine_files.Export
    kernel_typedefs: Typedefs | None = None   # the unit's typedefs, made once (typedefs_of)
    has_main: bool = False
    main_params: int = 0
    main_returns_void: bool = False
    info: list[InfoFact] = field(default_factory=list)   # what --info reports (facts.py)
    # file-scope coarrays by name (passes/declare/coarray_decls.py; global-view §11)
    coarrays: dict[str, Coarray] = field(default_factory=dict)
    # id(reflect ... acc pragma) -> how the next loop's interior overlaps its exchange
    # (passes/locality/overlap.py; the gpu pass lowers both)
    reflect_overlaps: dict[int, ReflectOverlap] = field(default_factory=dict)
    # the overlapped reflects' push variables whose loop's kernel takes one (kernel_gen.py):
    # only those reflect calls pass it (include/xmpacc_push.h)
    pushes: set[str] = field(default_factory=set)

    def typedefs_of(self, unit: Unit) -> Typedefs:
        """The unit's Typedefs, made once (every kernel and routine of the unit asks)."""
        if self.kernel_typedefs is None:
            self.kernel_typedefs = Typedefs(unit.ast.ext)
        return self.kernel_typedefs


# The user's main, renamed by pass entry: the start-up glue calls it after the runtime's set-up.
USER_MAIN = "_xmpacc_user_main"


def init_function_name(unit: Unit) -> str:
    """The start-up function of a file's XMP objects (pass entry defines it, the glue calls it)."""
    return f"_xmpacc_init_{unit.stem}"
