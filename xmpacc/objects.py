"""One file at a time, as gcc does it: an object (``-c``), preprocessed text (``-E``,
``-M``) and dependency files (``-MD``, ``-MMD``).

A file without directives goes to the host compiler as it is, with the user's options
plus ``-fPIC`` (Toolchain.compile_flags): ``xmpacc -c -fPIC f.c`` writes the bytes that
``gcc -c -fPIC f.c`` writes, and ``xmpacc -E``/``-MMD`` write what gcc writes.  A file with
directives is translated first; its object is one relocatable ELF file (``cc -r``, usable
by ``ar``, ``nm`` and ``ld -r``) with its host code, its record (start-up function,
kernel source, xmpacc version: build.py), its kernels compiled for the host backend and
its generated C for checked builds (the section ``.xmpacc_check``, checked.py).  A file
that includes <mpi.h> or xmp.h is compiled (and preprocessed) with mpi4py's MPI
(mpi_flags.py).
Its dependency file comes from the host compiler's preprocessor run on the source, so it
lists the headers the source really includes, in gcc's format.
"""

from __future__ import annotations

import os
import tempfile

from xmpacc import checked
from xmpacc.build import Generated, Toolchain, atomic_output, check, write_files
from xmpacc.frontend.preprocess import XMP_MACROS
from xmpacc.frontend.scan import user_texts


def object_name(source: str) -> str:
    """``dir/a.c`` -> ``a.o`` (in the current folder, as gcc names it)."""
    return os.path.splitext(os.path.basename(source))[0] + ".o"


def _lang(lang_c: bool) -> list[str]:
    return ["-x", "c"] if lang_c else []


def _mpi(tc: Toolchain, source: str) -> list[str]:
    """MPI's flags when the source file or a header of the user's it includes includes
    <mpi.h> (or xmp.h)."""
    return tc.mpi_compile_flags([text for _path, text in user_texts(source, tc.cppflags)])


def compile_plain(tc: Toolchain, source: str, lang_c: bool, output: str, dep_args: list[str]) -> None:
    cmd = [*tc.command, *tc.compile_flags(), *_mpi(tc, source), *dep_args, "-c", *_lang(lang_c), source,
           "-o", output]
    check(tc.run(cmd), {})


def compile_xmp(tc: Toolchain, gen: Generated, output: str, keep_dir: str | None = None) -> None:
    """The object of a translated file.  The host C is compiled under the source's own
    file name, so the object's file symbol (and the linker's messages) name the user's
    file; ``--keep`` leaves the generated files next to the object (STEM.host.c, ...)."""
    if keep_dir is not None:
        stem = os.path.splitext(os.path.basename(output))[0]
        write_files([(f"{stem}.host.c", gen.host[1])] + gen.files()[1:], keep_dir)
    with tempfile.TemporaryDirectory(prefix="xmpacc-") as tmp, atomic_output(output, tc.showme) as out:
        write_files(gen.files(), tmp)
        host = os.path.join(tmp, gen.host[0])
        mpi = tc.mpi_compile_flags([gen.host[1]])
        payload = [] if tc.showme else \
            [checked.embed(tc.unit_payload(gen, mpi), tmp, "unit", header=gen.kernels is None)]
        if gen.kernels is None:
            cmd = [*tc.command, *tc.generated_flags(), *mpi, "-c",
                   *[a for p in payload for a in ("-include", p)], host, "-o", out]
        else:   # two translation units and the payload, one relocatable object
            cmd = [*tc.command, "-r", "-nostdlib", *tc.generated_flags(), *mpi, host, "-x", "c",
                   os.path.join(tmp, gen.kernels[0]), "-x", "none", *payload, "-o", out]
        names = {host: gen.source}
        if gen.kernels:
            names[os.path.join(tmp, gen.kernels[0])] = gen.source
        check(tc.run(cmd), names)


def _cpp(tc: Toolchain, source: str, xmp: bool, dep_args: list[str]) -> list[str]:
    """The host compiler's preprocessor as it sees the source (its file and language follow)."""
    return [*tc.command, "-E", *(XMP_MACROS if xmp else []), *tc.compile_flags(),
            *_mpi(tc, source), *dep_args]


def preprocess_to(tc: Toolchain, source: str, lang_c: bool, xmp: bool, dep_args: list[str],
                  output: str | None) -> None:
    """``-E`` (and ``-M``/``-MM``): the host compiler's preprocessor on the source, with
    xmpacc's macros when the file has directives; the text goes to stdout or ``output``."""
    cmd = [*_cpp(tc, source, xmp, dep_args), *_lang(lang_c), source] + (["-o", output] if output else [])
    check(tc.run(cmd), {})


def write_deps(tc: Toolchain, source: str, lang_c: bool, xmp: bool, dep_args: list[str],
               target: str, dep_file: str) -> None:
    """``-MD``/``-MMD`` of a file that xmpacc compiles itself: ``target`` and ``dep_file``
    are gcc's defaults, used unless the user gave -MT/-MQ and -MF."""
    extra = []
    if not any(a.startswith(("-MT", "-MQ")) for a in dep_args):
        extra += ["-MT", target]
    if not any(a.startswith("-MF") for a in dep_args):
        extra += ["-MF", dep_file]
    cmd = [*_cpp(tc, source, xmp, dep_args), *extra, *_lang(lang_c), source, "-o", os.devnull]
    check(tc.run(cmd), {})


def dep_defaults(source: str, output: str | None, mode: str) -> tuple[str, str]:
    """(target, dependency file) as gcc chooses them for -MD/-MMD: after -o when given,
    else after the source (``-c``: a.o and a.d; linking: a-a.d)."""
    stem = os.path.splitext(os.path.basename(source))[0]
    if output is not None:
        return output, os.path.splitext(output)[0] + ".d"
    if mode == "compile":
        return stem + ".o", stem + ".d"
    return f"a-{stem}.o", f"a-{stem}.d"
