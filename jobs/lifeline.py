"""A killed run leaves nothing running: worker processes and the tools they start die with their parent.

``kill -9`` of a process runs none of its cleanup, so the children must notice on their own:

* **Local workers** (:func:`worker_lifeline`, the initializer of ``fpforge.jobs.executor``'s process pool)
  become the leader of their own process group, so the worker and every tool it starts (yosys, the
  Amaranth/yosys Verilog export, Verilator, make, g++, the prove harness) can be killed as one; a watchdog
  thread blocks on multiprocessing's parent sentinel (a pipe the main process holds: end of file the
  moment it exits, however it exits) and polls ``os.getppid()`` (the forkserver), and kills the whole group
  when either is gone. On Linux ``prctl(PR_SET_PDEATHSIG, SIGKILL)`` also kills the worker at once if the
  forkserver dies. The pool's shutdown (a normal end, Ctrl-C, SIGTERM) kills each worker's group too
  (:func:`kill_group`), so no yosys outlives an interrupted sweep.
* **Tool subprocesses** (:func:`popen_kwargs`, passed to every ``subprocess`` call fpforge makes) get
  ``PR_SET_PDEATHSIG`` = SIGKILL in the child before ``exec`` (Linux), then check that their parent is still
  the process that started them — so a yosys, Verilator or harness started by a process that dies is
  killed by the kernel. The signal follows the *thread* that started the child: fpforge waits for its
  tools in the thread that started them, so that thread outlives the child.
* A tool cut by its **timeout** (``synth.yosys.run_script``) goes with what it started (yosys' ``yosys-abc``
  runs): :func:`kill_tree`.
* multiprocessing's **forkserver** exits when its last client (the main process and the workers, which hold
  its "alive" pipe) is gone, and the **resource tracker** when the last holder of its pipe is gone: both
  follow the workers within a second.

Dask workers belong to their cluster and are left alone; the tools a Dask task starts still die with the
worker (``popen_kwargs``).
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import functools
import multiprocessing
import os
import signal
import sys
import threading

__all__ = ["POLL_S", "kill_group", "kill_tree", "popen_kwargs", "set_parent_death_signal", "worker_lifeline"]

#: Seconds between two checks of ``os.getppid()`` by a worker's watchdog (the parent sentinel is immediate).
POLL_S = 0.5

_PR_SET_PDEATHSIG = 1


@functools.lru_cache(maxsize=1)
def _prctl():
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        fn = libc.prctl
    except (OSError, AttributeError):
        return None
    fn.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    fn.restype = ctypes.c_int
    return fn


def set_parent_death_signal(sig=signal.SIGKILL) -> bool:
    """Ask the kernel to send ``sig`` to this process when the thread that started it exits (Linux
    ``PR_SET_PDEATHSIG``). False where that is not available (other systems)."""
    fn = _prctl()
    return fn is not None and fn(_PR_SET_PDEATHSIG, int(sig), 0, 0, 0) == 0


_SIGKILL = int(signal.SIGKILL)


def _child_preexec(parent: int, prctl):
    # Runs in the child between fork and exec: no imports, no locks, nothing but the two system calls.
    prctl(_PR_SET_PDEATHSIG, _SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # the parent died before the signal was armed
        os._exit(137)


def popen_kwargs() -> dict:
    """Keywords for ``subprocess.run``/``Popen`` that make the child die with the process starting it
    (``preexec_fn`` arming ``PR_SET_PDEATHSIG`` on Linux; nothing elsewhere)."""
    fn = _prctl()
    if fn is None:
        return {}
    return {"preexec_fn": functools.partial(_child_preexec, os.getpid(), fn)}


def kill_group(pid: int, sig=signal.SIGKILL) -> None:
    """Send ``sig`` to the process group of the local worker ``pid``: the worker and every tool it started.
    The group outlives its leader while a member lives (and its id is not reused meanwhile), so this also
    reaches the tools of a worker that already died; nothing if the group is gone."""
    with contextlib.suppress(OSError):
        os.killpg(pid, sig)


def _children() -> dict[int, list[int]]:
    """``{pid: [child pids]}`` of the running processes (Linux ``/proc``; empty elsewhere)."""
    kids: dict[int, list[int]] = {}
    for name in os.listdir("/proc") if os.path.isdir("/proc") else ():
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat", encoding="ascii", errors="replace") as fh:
                    ppid = int(fh.read().rsplit(")", 1)[1].split()[1])  # (the command name may hold spaces)
            except (OSError, ValueError, IndexError):
                continue
            kids.setdefault(ppid, []).append(int(name))
    return kids


def kill_tree(pid: int) -> None:
    """SIGKILL ``pid`` and all its descendants: ``pid`` is stopped first, so that it starts no process while
    its descendants are found and killed, then killed itself."""
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGSTOP)
    kids = _children()
    todo = list(kids.get(pid, []))
    while todo:
        p = todo.pop()
        todo += kids.get(p, [])
        with contextlib.suppress(OSError):
            os.kill(p, signal.SIGKILL)
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGKILL)


def _end_group():
    """Kill this worker and everything it started (its process group), or at least this worker."""
    with contextlib.suppress(OSError):
        if os.getpgid(0) == os.getpid():
            os.killpg(0, signal.SIGKILL)
    os._exit(137)


def _watch(sentinel, ppid):
    from multiprocessing.connection import wait

    while True:
        if sentinel is not None and wait([sentinel], POLL_S):
            _end_group()  # the main process is gone
        elif sentinel is None:
            threading.Event().wait(POLL_S)
        if os.getppid() != ppid:
            _end_group()  # the forkserver (or the main process, under fork) is gone


def worker_lifeline() -> None:
    """Make this pool worker die with the run that started it (see the module docstring); call it first
    in the worker's initializer."""
    ppid = os.getppid()
    with contextlib.suppress(OSError):
        os.setpgid(0, 0)
    set_parent_death_signal(signal.SIGKILL)
    parent = multiprocessing.parent_process()
    sentinel = getattr(parent, "sentinel", None)
    if os.getppid() != ppid or ppid == 1 or (parent is not None and not parent.is_alive()):
        _end_group()  # the parent died before the lifeline was set up
    threading.Thread(target=_watch, args=(sentinel, ppid), name="fpforge-lifeline", daemon=True).start()
