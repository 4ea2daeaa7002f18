"""Running and storing work: the per-user cache directory, atomic file writes and (for the design-space
sweep and the prover) parallel, cached, resumable task execution on local processes or Dask."""

from .cache import cache_dir, write_atomic

__all__ = ["cache_dir", "write_atomic"]
