"""A fork server for the suite's ``xmpacc`` runs (conftest.run_xmpacc).

A compile by the ``xmpacc`` console script spends about 0.3 s of its time starting Python
and importing ``xmpacc.cli``; the suite compiles about a thousand times.  This server is a
Python that has imported the installed ``xmpacc.cli`` once (with the console script's
``sys.path``, so the installed package, never the checkout's ``xmpacc/``) and forks once
per compile: the child takes the compile's working directory, environment, argv and
output files and runs the console script's body, ``sys.exit(main())``, with Python's exit
handling (atexit functions, SystemExit codes, a traceback and status 1 for an uncaught
exception).  So a compile is a process of its own, started from the state right after the
import, as a fresh ``xmpacc`` is; only the interpreter start and the import are shared.

``XMPACC_TEST_FORK_SERVER=0`` turns the server off (every compile a fresh ``xmpacc``).

Protocol (one server per pytest process, talking over the server's stdin and stdout):
the server prints ``ready``; then, per request, one JSON line in
``{"argv", "cwd", "env", "stdout", "stderr", "timeout"}`` and one JSON line out,
``{"returncode"}`` or ``{"timeout": true}`` (the child was killed, as subprocess.run
kills a command past its timeout).  Its output went to the two files named.
"""

from __future__ import annotations

import json
import os
import select
import signal
import sys
import time


def _child(request: dict[str, object]) -> int:
    """The compile, in the forked child: the console script's ``sys.exit(main())``."""
    import atexit

    os.chdir(str(request["cwd"]))
    os.environ.clear()
    os.environ.update(request["env"])   # type: ignore[arg-type]
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    for fd, path in ((1, request["stdout"]), (2, request["stderr"])):
        f = os.open(str(path), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(f, fd)
        os.close(f)
    os.close(null)
    sys.argv = list(request["argv"])   # type: ignore[arg-type]
    sys.argv[0] = sys.argv[0].removesuffix(".exe")
    code: object
    try:
        from xmpacc.cli import main
        code = main()
    except SystemExit as e:
        code = e.code
    except BaseException:   # noqa: BLE001 - as the interpreter: the traceback, status 1
        sys.excepthook(*sys.exc_info())
        code = 1
    if code is None:
        status = 0
    elif isinstance(code, int):
        status = code & 0xFF
    else:
        print(code, file=sys.stderr)
        status = 1
    try:
        atexit._run_exitfuncs()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:   # noqa: BLE001 - a closed stream: nothing more to write
                pass
    return status


def _wait(pid: int, timeout: float) -> int | None:
    """The child's wait status, or None after ``timeout`` seconds (the child then killed)."""
    deadline = time.monotonic() + timeout
    try:
        pidfd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        pidfd = None
    try:
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                return status
            left = deadline - time.monotonic()
            if left <= 0:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                return None
            if pidfd is not None:
                select.select([pidfd], [], [], left)
            else:
                time.sleep(min(left, 0.002))
    finally:
        if pidfd is not None:
            os.close(pidfd)


def serve(script: str) -> None:
    # the console script's sys.path: its own folder first, not this file's (tests/)
    sys.path[0] = os.path.dirname(os.path.abspath(script))
    import xmpacc.cli  # noqa: F401 - imported once, before the forks

    requests = os.fdopen(os.dup(0), "r")
    replies = os.fdopen(os.dup(1), "w")
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)
    replies.write("ready\n")
    replies.flush()
    for line in requests:
        request = json.loads(line)
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            status = 1
            try:
                requests.close()
                replies.close()
                status = _child(request)
            finally:
                os._exit(status)
        wait_status = _wait(pid, float(request["timeout"]))
        reply = {"timeout": True} if wait_status is None \
            else {"returncode": os.waitstatus_to_exitcode(wait_status)}
        replies.write(json.dumps(reply) + "\n")
        replies.flush()


if __name__ == "__main__":
    serve(sys.argv[1])
