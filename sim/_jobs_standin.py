"""A small local stand-in for ``fpforge.jobs``' executor, task runner and store (COMMON.md contract),
used by the prover until the shared implementation lands on main; ``fpforge.sim.prove`` imports the real
one when it exists. Same surface as far as the prover uses it: :func:`executor`, :func:`run_tasks`,
:class:`TaskFailure`, :class:`Store` (``get`` returns :data:`MISSING` for an absent or corrupt entry),
:func:`digest`.
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

__all__ = ["MISSING", "Store", "TaskFailure", "digest", "executor", "run_tasks"]

MISSING = type("Missing", (), {"__bool__": lambda self: False, "__repr__": lambda self: "MISSING"})()


def digest(obj) -> str:
    """Hex SHA-256 of ``obj`` (str as UTF-8, anything else as sorted-key JSON)."""
    text = obj if isinstance(obj, str) else json.dumps(obj, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


class TaskFailure:
    """The outcome of a task that raised: ``message`` says what went wrong."""

    def __init__(self, message: str):
        self.message = message

    def __str__(self):
        return self.message


class Store:
    """Finished results (JSON) under ``directory``, one file per digest key, written atomically; an entry
    that does not parse or names another key is missing (and recomputed)."""

    def __init__(self, directory):
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)

    def path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str, default=MISSING):
        try:
            entry = json.loads(self.path(key).read_text())
            if entry.get("key") == key:
                return entry["result"]
        except (OSError, ValueError, KeyError, AttributeError):
            pass
        return default

    def put(self, key: str, result) -> Path:
        path = self.path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, json.dumps({"key": key, "result": result}, sort_keys=True))
        return path


@contextlib.contextmanager
def executor(jobs=None, scheduler=None):
    """A local process pool of ``jobs`` processes (default: all cores); Dask needs the shared executor."""
    if scheduler is not None:
        raise ToolMissing("--scheduler needs fpforge.jobs' Dask executor (not in this build)")
    with concurrent.futures.ProcessPoolExecutor(max_workers=jobs or os.cpu_count()) as pool:
        yield pool


def run_tasks(fn, tasks, *, executor, store=None, key=None, progress=None):
    """Yield ``(task, outcome)`` as tasks finish: ``fn(task)``'s JSON-able result, or a
    :class:`TaskFailure`. With ``store`` finished tasks (key: digest of ``fn``'s name and ``key(task)``)
    are taken from it first and new results written to it. ``progress``: a tqdm bar label (TTY only)."""
    tasks = list(tasks)
    name = f"{fn.__module__}.{fn.__qualname__}"
    bar = None
    if progress and sys.stderr.isatty():
        from tqdm import tqdm

        bar = tqdm(total=len(tasks), desc=progress, unit="task", dynamic_ncols=True)
    futures = {}
    try:
        for task in tasks:
            k = digest([name, key(task) if key is not None else task])
            done = store.get(k) if store is not None else MISSING
            if done is not MISSING:
                if bar is not None:
                    bar.update()
                yield task, done
            else:
                futures[executor.submit(fn, task)] = (task, k)
        for future in concurrent.futures.as_completed(list(futures)):
            task, k = futures.pop(future)
            try:
                outcome = future.result()
            except Exception as e:  # noqa: BLE001 - a task's failure is its outcome
                outcome = TaskFailure(f"{type(e).__name__}: {e}")
            else:
                if store is not None:
                    store.put(k, outcome)
            if bar is not None:
                bar.update()
            yield task, outcome
    finally:
        for future in futures:
            future.cancel()
        if bar is not None:
            bar.close()
