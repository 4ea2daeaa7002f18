"""Running and storing work: the per-user cache directory, atomic file writes, and parallel, cached,
resumable task execution on local processes or a Dask cluster (the design-space sweep and the prover)."""

if __name__ != "fpforge.jobs":  # the folder imported as a top-level package: a second copy of fpforge
    raise ImportError(f"import fpforge.jobs, not {__name__}: the folder jobs/ is installed as fpforge.jobs "
                      "(run `make setup`, then use `import fpforge.jobs`)")

from .cache import cache_dir, write_atomic
from .executor import MAX_ATTEMPTS, Executor, TaskFailure, executor, run_tasks, task_key
from .store import MISSING, Store, canonical_json, digest

__all__ = ["MAX_ATTEMPTS", "MISSING", "Executor", "Store", "TaskFailure", "cache_dir", "canonical_json", "digest",
           "executor", "run_tasks", "task_key", "write_atomic"]
