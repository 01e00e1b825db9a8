"""Run-time failures of a program, reported with the directive's source line."""

from __future__ import annotations

# Seconds a node that ends the whole job (MPI_Abort) waits first: the lines already written
# (its own message, the other nodes' output) are in mpirun's pipes, and the abort stops
# mpirun's forwarding, which under load had not read them all.
ABORT_DRAIN_S = 0.3


def where_text(where: bytes | None) -> str:
    """The ``"file.c:12"`` argument of a runtime call as text."""
    return where.decode(errors="replace") if where else "?"


class RuntimeFailure(Exception):
    """A user-visible error at run time.

    ``collective`` means every process detects it at the same point (a wrong process
    count, a bad template): rank 0 alone prints it and the job ends cleanly.  Otherwise
    the failing process prints it with its node number and aborts the whole job.
    """

    def __init__(self, where: str, message: str, collective: bool = False) -> None:
        super().__init__(f"{where}: error: {message}")
        self.where = where
        self.message = message
        self.collective = collective
        self.names_node = False   # the message names this node already (checked accesses)


class InternalError(Exception):
    """A broken invariant of the runtime itself, not a mistake of the program."""

    def __init__(self, message: str) -> None:
        super().__init__(f"{message} (this is a bug in xmpacc)")


# An Open MPI whose default one-sided component cannot make a window over a program's
# own memory (MPI_Win_create; MPI_Win_allocate works): seen with Open MPI 4.1 on a single
# host whose openib/ofi/tcp btls offer no RDMA.  docs/clusters.md says more.
WINDOW_HINT = ("; with Open MPI, OMPI_MCA_osc=sm,rdma OMPI_MCA_btl=self,vader "
               "OMPI_MCA_btl_vader_single_copy_mechanism=cma on one host (docs/clusters.md)")
