"""Running and storing work: the per-user cache directory, atomic file writes, and parallel, cached,
resumable task execution on local processes or a Dask cluster (the design-space sweep and the prover)."""

from .cache import cache_dir, write_atomic
from .executor import MAX_ATTEMPTS, Executor, TaskFailure, executor, run_tasks, task_key
from .store import MISSING, Store, canonical_json, digest

__all__ = ["MAX_ATTEMPTS", "MISSING", "Executor", "Store", "TaskFailure", "cache_dir", "canonical_json", "digest",
           "executor", "run_tasks", "task_key", "write_atomic"]
