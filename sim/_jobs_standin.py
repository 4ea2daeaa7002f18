"""A small local stand-in for ``fpforge.jobs``' executor, task runner and store (COMMON.md contract),
used by the prover until the shared implementation lands; ``fpforge.sim.prove`` imports the real one
when it exists. Same surface: :func:`executor`, :func:`run_tasks`, :class:`TaskFailure`, :class:`Store`.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import hashlib
import json
import os
import sys
from pathlib import Path

from ..golden.errors import ToolMissing
from ..jobs import write_atomic

__all__ = ["Store", "TaskFailure", "executor", "run_tasks"]


class TaskFailure:
    """The outcome of a task that raised: ``message`` says what went wrong."""

    def __init__(self, message: str):
        self.message = message

    def __repr__(self):
        return f"TaskFailure({self.message!r})"


class Store:
    """Finished task outcomes (JSON) under ``directory``, one file per key, written atomically; an entry
    that does not parse is treated as missing (and recomputed)."""

    def __init__(self, directory):
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)

    def _path(self, key: str) -> Path:
        digest = hashlib.sha256(key.encode()).hexdigest()
        return self.directory / digest[:2] / f"{digest}.json"

    def get(self, key: str):
        path = self._path(key)
        try:
            entry = json.loads(path.read_text())
            if entry.get("key") == key:
                return entry["value"]
        except (OSError, ValueError, KeyError, AttributeError):
            pass
        return None

    def put(self, key: str, value) -> None:
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, json.dumps({"key": key, "value": value}, sort_keys=True))


@contextlib.contextmanager
def executor(jobs=None, scheduler=None):
    """A local process pool of ``jobs`` processes (default: all cores), or a ``dask.distributed.Client``
    connected to ``scheduler``."""
    if scheduler is not None:
        try:
            from dask.distributed import Client
        except ImportError:
            raise ToolMissing("--scheduler needs dask.distributed (pip install 'dask[distributed]')") from None
        client = Client(scheduler)
        try:
            yield client
        finally:
            client.close()
        return
    with concurrent.futures.ProcessPoolExecutor(max_workers=jobs or os.cpu_count()) as pool:
        yield pool


def _as_completed(pool, futures):
    if isinstance(pool, concurrent.futures.Executor):
        return concurrent.futures.as_completed(futures)
    from dask.distributed import as_completed

    return as_completed(futures)


def run_tasks(fn, tasks, *, executor, store=None, key=None, progress=None):
    """Yield ``(task, outcome)`` as tasks finish: ``fn(task)``'s JSON-able result, or a
    :class:`TaskFailure`. With ``store`` (and ``key(task) -> str``) finished tasks are taken from the
    store and new outcomes written to it. ``progress``: label of a tqdm bar (TTY only)."""
    tasks = list(tasks)
    bar = None
    if progress and sys.stderr.isatty():
        from tqdm import tqdm

        bar = tqdm(total=len(tasks), desc=progress, unit="chunk", dynamic_ncols=True)
    failures = 0
    futures = {}
    try:
        for task in tasks:
            done = store.get(key(task)) if store is not None else None
            if done is not None:
                if bar is not None:
                    bar.update()
                yield task, done
            else:
                futures[executor.submit(fn, task)] = task
        for future in _as_completed(executor, list(futures)):
            task = futures.pop(future)
            try:
                outcome = future.result()
            except Exception as e:  # noqa: BLE001 - a task's failure is its outcome
                outcome = TaskFailure(f"{type(e).__name__}: {e}")
                failures += 1
            else:
                if store is not None:
                    store.put(key(task), outcome)
            if bar is not None:
                bar.update()
                if failures:
                    bar.set_postfix(failures=failures)
            yield task, outcome
    finally:
        for future in futures:
            future.cancel()
        if bar is not None:
            bar.close()
