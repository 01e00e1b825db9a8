"""The words that name XMP directives in messages ("'xmp barrier' is not allowed ...")."""

from __future__ import annotations

from xmpacc.directives import ast as xd
from xmpacc.directives.local_view_ast import LOCAL_VIEW_NAMES

NAMES: dict[type, str] = {
    xd.Loop: "loop", xd.ReductionDirective: "reduction", xd.Reflect: "reflect", xd.Bcast: "bcast",
    xd.Barrier: "barrier", xd.Task: "task", xd.WaitAsync: "wait_async", xd.AccReplicate: "acc replicate",
    xd.AccReplicateSync: "acc replicate_sync", xd.NodesDecl: "nodes", xd.TemplateDecl: "template",
    xd.Distribute: "distribute", xd.Align: "align", xd.Shadow: "shadow", xd.StaticDesc: "static_desc",
    xd.TemplateFix: "template_fix", xd.ReflectInit: "reflect_init", xd.ReflectDo: "reflect_do",
    xd.ReduceShadow: "reduce_shadow", xd.Tasks: "tasks", xd.Gmove: "gmove", xd.ArrayDirective: "array",
    **LOCAL_VIEW_NAMES,
}


# Directives that communicate among the executing node set (global-view §6: not in a
# nocomm task, not in the body of a loop directive).
COLLECTIVES: frozenset[type] = frozenset({
    xd.Reflect, xd.ReductionDirective, xd.Bcast, xd.Barrier, xd.ReflectInit, xd.ReflectDo, xd.ReduceShadow,
    xd.Tasks,
})


def xmp_name(d: object) -> str:
    """The directive's word, as a program spells it after ``#pragma xmp``."""
    return NAMES.get(type(d), type(d).__name__)
