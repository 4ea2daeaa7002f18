"""Parallel, cached, resumable task execution on local processes or a Dask cluster.

::

    from fpforge.jobs import Store, cache_dir, executor, run_tasks

    with executor(jobs=2) as ex:                       # or executor(scheduler="tcp://host:8786")
        for task, outcome in run_tasks(fn, tasks, executor=ex, store=Store(cache_dir("sweep")),
                                       key=lambda t: t, progress="points"):
            ...                                        # outcome: fn(task), or a TaskFailure

* :func:`executor` gives a pool of ``jobs`` local worker processes (default: every core), or a
  ``dask.distributed.Client`` connected to ``scheduler``; ``jobs=0`` runs tasks in the calling process
  (debugging, profiling).
* :func:`run_tasks` yields ``(task, outcome)`` as tasks finish — in completion order, not task order.
  ``fn`` must be a module-level function (it is pickled to the workers) and return JSON-able data. An
  exception in ``fn`` becomes a :class:`TaskFailure` carrying a one-line message; the other tasks go on.
* With a :class:`~fpforge.jobs.Store`, a task whose key is stored is not run again (its stored result is
  yielded first), and every new result is stored — by the calling process, atomically, as it arrives — so
  an interrupted run (Ctrl-C, a killed worker, a crash) resumes where it stopped. The store key of a task
  is the :func:`~fpforge.jobs.digest` of ``fn``'s qualified name and ``key(task)`` (default: the task
  itself). Tasks with equal keys run once. Failures are not stored: a rerun retries them.
* A local worker process that dies (killed, out of memory, a crashing native library) is replaced and the
  tasks it was running are retried, up to :data:`MAX_ATTEMPTS` times each; then they fail with
  "worker process died". On Dask the scheduler does the same (``distributed.scheduler.allowed-failures``)
  and a task it gives up on fails with its ``KilledWorker`` message.
* ``progress`` is the label of a tqdm bar on stderr (done/total, rate, ETA, failures), shown on a TTY only.
* Local workers die with the run: killed (even ``kill -9``), interrupted or finished, it leaves no worker,
  forkserver, resource tracker or tool (yosys, the prove harness) running (:mod:`fpforge.jobs.lifeline`).
"""

from __future__ import annotations

import contextlib
import itertools
import multiprocessing
import os
import sys
import uuid
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass

from ..golden.errors import FpforgeError, FpforgeTypeError, FpforgeValueError, ToolError, ToolMissing
from .lifeline import kill_group, worker_lifeline
from .store import MISSING, Store, digest

__all__ = ["MAX_ATTEMPTS", "Executor", "TaskFailure", "executor", "run_tasks", "task_key"]

#: How often a task is started on a local worker that then dies before it gives up.
MAX_ATTEMPTS = 3

#: Seconds to wait for a Dask scheduler to answer.
CONNECT_TIMEOUT_S = 10


@dataclass(frozen=True)
class TaskFailure:
    """A task that did not produce a result; ``message`` is one line (what went wrong, no traceback)."""

    message: str

    def __str__(self):
        return self.message


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    if isinstance(exc, FpforgeError):
        return text or type(exc).__name__
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


# -- worker side ----------------------------------------------------------------------------------------
_started = None  # the local pool's queue of started task ids (set in each worker by _init_worker)


def _init_worker(started):
    global _started
    worker_lifeline()  # dies, with the tools it starts, when the run that started it dies (jobs/lifeline.py)
    _started = started


def _call(fn, task, tid=None):
    """Run ``fn(task)`` in a worker: the result, or a TaskFailure for any exception."""
    if _started is not None and tid is not None:
        _started.put(tid)
    try:
        return fn(task)
    except Exception as e:  # noqa: BLE001 - every failure of one task is reported, the others go on
        return TaskFailure(_one_line(e))


# -- executors ------------------------------------------------------------------------------------------
class Executor:
    """What :func:`executor` yields: where tasks run. ``kind`` is ``"local"``, ``"dask"`` or ``"inline"``;
    ``workers`` the number of worker processes; ``client`` the Dask client (or None)."""

    kind = "inline"
    client = None

    def __init__(self, workers=1):
        self.workers = workers

    def __repr__(self):
        return f"<fpforge executor: {self.describe()}>"

    def describe(self) -> str:
        return "in-process (jobs=0)"

    def run(self, fn, items):
        """Yield ``(id, outcome)`` for ``items``, a list of ``(id, task)``, as they finish."""
        for tid, task in items:
            yield tid, _call(fn, task)

    def close(self):
        pass


class _LocalExecutor(Executor):
    kind = "local"

    def __init__(self, workers):
        super().__init__(workers)
        self._ctx = multiprocessing.get_context("forkserver")
        self._pool = None
        self._started = None

    def describe(self):
        return f"{self.workers} local process{'es' if self.workers != 1 else ''}"

    def _new_pool(self):
        self._started = self._ctx.SimpleQueue()  # put() writes through at once: a killed worker's id arrives
        self._pool = ProcessPoolExecutor(self.workers, mp_context=self._ctx, initializer=_init_worker,
                                         initargs=(self._started,))

    def _drain(self, started):
        with contextlib.suppress(OSError, ValueError, EOFError):
            while not self._started.empty():
                started.add(self._started.get())

    def run(self, fn, items):
        pending = dict(items)
        attempts = dict.fromkeys(pending, 0)
        while pending:
            if self._pool is None:
                self._new_pool()
            futures = {self._pool.submit(_call, fn, task, tid): tid for tid, task in pending.items()}
            started, finished = set(), set()
            broken = False
            waiting = set(futures)
            while waiting and not broken:
                done, waiting = wait(waiting, return_when=FIRST_COMPLETED)
                self._drain(started)
                for fut in done:
                    tid = futures[fut]
                    try:
                        outcome = fut.result()
                    except BrokenProcessPool:
                        broken = True
                        continue
                    finished.add(tid)
                    del pending[tid]
                    yield tid, outcome
            if broken:
                # The pool is unusable; charge an attempt to the tasks that had started and not finished
                # (the ones that may have killed their worker), then start a new pool for the rest.
                self._drain(started)
                self._shutdown()
                suspects = [tid for tid in started - finished if tid in pending] or list(pending)
                for tid in suspects:
                    attempts[tid] += 1
                    if attempts[tid] >= MAX_ATTEMPTS:
                        del pending[tid]
                        yield tid, TaskFailure(f"worker process died ({attempts[tid]} attempts; killed, out of "
                                               "memory or a crash in native code)")

    def _shutdown(self):
        if self._pool is not None:
            procs = list(getattr(self._pool, "_processes", {}).values() or ())
            manager = getattr(self._pool, "_executor_manager_thread", None)  # (shutdown forgets it)
            self._pool.shutdown(wait=False, cancel_futures=True)
            for p in procs:  # each worker leads a process group: it and the tools it started (yosys, harness)
                with contextlib.suppress(Exception):
                    kill_group(p.pid)
                    if p.is_alive():
                        p.terminate()
            for p in procs:
                with contextlib.suppress(Exception):
                    p.join(5)
            # Wait for the pool's manager thread, which closes its wake-up pipe as it ends. At interpreter exit,
            # Python 3.11's concurrent.futures writes to every pool's pipe without a lock; a close racing that write
            # printed "Exception ignored ... OSError: [Errno 9] Bad file descriptor" after Ctrl-C (once in a fresh
            # clone's make test, tests/test_lifeline.py). Once the thread has ended, its pipe is marked closed and
            # skipped.
            if manager is not None:
                with contextlib.suppress(Exception):
                    manager.join(5)
            self._pool = None
        if self._started is not None:
            with contextlib.suppress(Exception):
                self._started.close()
            self._started = None

    def close(self):
        self._shutdown()


class _DaskExecutor(Executor):
    kind = "dask"

    def __init__(self, client, owned):
        self.client = client
        self._owned = owned
        super().__init__(max(1, len(client.scheduler_info().get("workers", {}))))

    def describe(self):
        n = len(self.client.scheduler_info().get("workers", {}))
        return f"Dask scheduler {self.client.scheduler.address} ({n} worker{'s' if n != 1 else ''})"

    def run(self, fn, items):
        from distributed import as_completed

        futures = {}
        for tid, task in items:
            fut = self.client.submit(_call, fn, task, pure=False, key=f"fpforge-{tid}")
            futures[fut] = tid
        try:
            for fut in as_completed(list(futures)):
                tid = futures[fut]
                try:
                    outcome = fut.result()
                except Exception as e:  # noqa: BLE001 - KilledWorker, CancelledError, a lost worker's data
                    outcome = TaskFailure(_one_line(e))
                yield tid, outcome
        finally:
            self.client.cancel([f for f in futures if not f.done()])

    def close(self):
        if self._owned:
            with contextlib.suppress(Exception):
                self.client.close()


@contextlib.contextmanager
def executor(jobs=None, scheduler=None):
    """Where :func:`run_tasks` runs tasks (a context manager; workers stop on exit).

    Parameters
    ----------
    jobs : int, optional
        Local worker processes (default: every core, ``os.cpu_count()``); 0 runs tasks in this process.
    scheduler : str or dask.distributed.Client, optional
        Address of a running Dask scheduler (``tcp://host:8786``), or a connected ``Client``: tasks run
        on its workers (which must have fpforge installed). Exclusive with ``jobs``.

    Yields
    ------
    Executor

    Raises
    ------
    FpforgeTypeError, FpforgeValueError
        ``jobs`` not an integer >= 0, or both ``jobs`` and ``scheduler`` given.
    ToolMissing
        ``scheduler`` given but dask.distributed is not installed.
    ToolError
        The scheduler cannot be reached.
    """
    if jobs is not None and scheduler is not None:
        raise FpforgeValueError(f"give jobs (local processes) or scheduler (a Dask cluster), not both: "
                                f"jobs={jobs!r}, scheduler={scheduler!r}")
    if scheduler is not None:
        ex = _connect(scheduler)
    else:
        if jobs is None:
            jobs = os.cpu_count() or 1
        if not isinstance(jobs, int) or isinstance(jobs, bool):
            raise FpforgeTypeError(f"jobs must be an integer >= 0, not {jobs!r}")
        if jobs < 0:
            raise FpforgeValueError(f"jobs must be an integer >= 0 (0: in this process), not {jobs!r}")
        ex = Executor() if jobs == 0 else _LocalExecutor(jobs)
    try:
        yield ex
    finally:
        ex.close()


def _connect(scheduler):
    try:
        from distributed import Client
    except ImportError:
        raise ToolMissing("--scheduler needs dask.distributed: pip install 'dask[distributed]'") from None
    if isinstance(scheduler, Client):
        return _DaskExecutor(scheduler, owned=False)
    if not isinstance(scheduler, str) or not scheduler.strip():
        raise FpforgeTypeError(f"scheduler must be an address like tcp://host:8786 or a dask Client, "
                               f"not {scheduler!r}")
    try:
        client = Client(scheduler.strip(), timeout=f"{CONNECT_TIMEOUT_S}s")
    except (OSError, TimeoutError, ValueError) as e:
        raise ToolError(f"cannot reach the Dask scheduler at {scheduler!r}: {_one_line(e)}") from None
    return _DaskExecutor(client, owned=True)


# -- running tasks --------------------------------------------------------------------------------------
def _progress_bar(label, total):
    if not label or not sys.stderr.isatty():
        return None
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm(total=total, desc=str(label), unit="task", dynamic_ncols=True, file=sys.stderr)


def task_key(fn, task, key=None) -> str:
    """The store key :func:`run_tasks` gives ``task``: the digest of ``fn``'s qualified name and
    ``key(task)`` (default: the task itself)."""
    name = f"{getattr(fn, '__module__', '')}.{getattr(fn, '__qualname__', repr(fn))}"
    return digest([name, key(task) if key is not None else task])


def run_tasks(fn, tasks, *, executor, store=None, key=None, progress=None):
    """Run ``fn`` on every task and yield ``(task, outcome)`` as each finishes (see the module docstring).

    Parameters
    ----------
    fn : callable
        A module-level function of one task returning JSON-able data (for a store).
    tasks : iterable
        The tasks (JSON-able when no ``key`` is given and a store is used).
    executor : Executor or None
        From :func:`executor`; None runs in this process.
    store : Store, optional
        Finished results are read from and written to it.
    key : callable, optional
        ``key(task)`` -> what identifies the task's result (str, bytes or JSON-able); default the task.
    progress : str, optional
        Label of the progress bar (shown on a TTY only).

    Yields
    ------
    (task, outcome)
        ``outcome`` is ``fn(task)``'s result or a :class:`TaskFailure`.
    """
    if not callable(fn):
        raise FpforgeTypeError(f"fn must be callable, not {fn!r}")
    if store is not None and not isinstance(store, Store):
        raise FpforgeTypeError(f"store must be a fpforge.jobs.Store, not {store!r}")
    if key is not None and not callable(key):
        raise FpforgeTypeError(f"key must be a callable of one task, not {key!r}")
    if executor is None:
        executor = Executor()
    elif not isinstance(executor, Executor):
        raise FpforgeTypeError(f"executor must come from fpforge.jobs.executor(), not {executor!r}")
    tasks = list(tasks)
    bar = _progress_bar(progress, len(tasks))
    failures = 0

    def tick(outcome):
        nonlocal failures
        if bar is None:
            return
        if isinstance(outcome, TaskFailure):
            failures += 1
            bar.set_postfix(failed=failures, refresh=False)
        bar.update(1)

    try:
        # Group equal tasks by key: each distinct key runs once.
        groups: dict[object, list[int]] = {}
        keys = {}
        for i, task in enumerate(tasks):
            if store is not None or key is not None:
                k = task_key(fn, task, key)
            else:
                k = i
            keys[i] = k
            groups.setdefault(k, []).append(i)
        todo = []
        for k, members in groups.items():
            if store is not None:
                cached = store.get(k)
                if cached is not MISSING:
                    for i in members:
                        tick(cached)
                        yield tasks[i], cached
                    continue
            todo.append((k, tasks[members[0]]))
        run_id = uuid.uuid4().hex[:8]
        ids = {k: f"{run_id}-{n}" for n, (k, _) in zip(itertools.count(), todo)}
        by_id = {n: k for k, n in ids.items()}
        for tid, outcome in executor.run(fn, [(ids[k], t) for k, t in todo]):
            k = by_id[tid]
            if store is not None and not isinstance(outcome, TaskFailure):
                store.put(k, outcome)
            for i in groups[k]:
                tick(outcome)
                yield tasks[i], outcome
    finally:
        if bar is not None:
            bar.close()
