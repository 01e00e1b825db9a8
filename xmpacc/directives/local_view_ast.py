"""Local-view directives (global-view §11, coarrays) as frozen value objects.

    sync_all                      -> SyncAll()
    sync_memory                   -> SyncMemory()
    sync_images (*) / (0, k)      -> SyncImages(images=None) / SyncImages((0, k))
    post (p[k], 3)                -> Post(node=Ref p[k], tag=3)
    wait / wait (p[k]) / (p[k],3) -> Wait(None, None) / Wait(p[k], None) / Wait(p[k], 3)
    lock (l[i]:[k]), unlock (...) -> CoLock(CoRef(l, (i,), (k,)), release=False/True)
    critical, end critical        -> Critical(end=False/True)
    coarray a, b : [2][*]         -> CoarrayDirective((a, b), (2, *))

Image indices are 0-based (XMP C).  ``Expr`` texts are C, checked by the C compiler.
"""

from __future__ import annotations

from dataclasses import dataclass

from xmpacc.diagnostics import SourceLoc
from xmpacc.directives.ast import Expr, Name, Ref, Star


# Frozen dataclasses, one per directive (like ast.py): alike in shape, not in meaning.
@dataclass(frozen=True, slots=True)
class CoRef:
    """``l[i]:[k]``: an element of a coarray on image ``k`` (codimensions in C order)."""

    name: Name
    subs: tuple[Expr, ...]
    image: tuple[Expr, ...]
    loc: SourceLoc


@dataclass(frozen=True, slots=True)
class SyncAll:
    loc: SourceLoc


@dataclass(frozen=True, slots=True)
class SyncMemory:
    loc: SourceLoc


@dataclass(frozen=True, slots=True)
class SyncImages:
    images: tuple[Expr, ...] | None          # None: '*', every image
    loc: SourceLoc


@dataclass(frozen=True, slots=True)
class Post:
    node: Ref
    tag: Expr
    loc: SourceLoc


@dataclass(frozen=True, slots=True)
class Wait:
    node: Ref | None                         # None: a post from any node
    tag: Expr | None                         # None: any tag
    loc: SourceLoc


@dataclass(frozen=True, slots=True)
class CoLock:
    target: CoRef
    release: bool                            # True: unlock
    loc: SourceLoc


@dataclass(frozen=True, slots=True)
class Critical:
    end: bool                                # True: 'end critical'
    loc: SourceLoc


@dataclass(frozen=True, slots=True)
class CoarrayDirective:
    names: tuple[Name, ...]
    codims: tuple[Expr | Star, ...]
    loc: SourceLoc


LOCAL_VIEW_NAMES = {
    SyncAll: "sync_all", SyncMemory: "sync_memory", SyncImages: "sync_images", Post: "post",
    Wait: "wait", Critical: "critical", CoarrayDirective: "coarray",
}
