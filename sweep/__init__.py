"""Design-space sweeps (issue 13): QSNR x dot-product area x memory over hundreds of number formats, the
Pareto frontier, the MX paper's Fig. 7 and its claims — cached, resumable, on local processes or Dask.

::

    from fpforge.jobs import executor
    from fpforge import sweep

    with executor(jobs=2) as ex:
        result = sweep.run("paper", executor=ex)        # or a Space, or a TOML file
    result.write_csv("paper.csv")

See docs/sweep.md for the TOML schema, the built-in spaces and the method.
"""

if __name__ != "fpforge.sweep":  # the folder imported as a top-level package: a second copy of fpforge
    raise ImportError(f"import fpforge.sweep, not {__name__}: the folder sweep/ is installed as fpforge.sweep "
                      "(run `make setup`, then use `import fpforge.sweep`)")

from .run import evaluate, run
from .space import PRESETS, Space, load_space, point, preset_points
from .spaces import SPACES
from . import area  # noqa: F401 - its tables join the built-in spaces load_space knows, after SPACES
from .table import COLUMNS, SweepResult, memory_accesses, memory_rel, pareto, read_csv

__all__ = ["COLUMNS", "PRESETS", "SPACES", "Space", "SweepResult", "evaluate", "load_space", "memory_accesses",
           "memory_rel", "pareto", "point", "preset_points", "read_csv", "run"]
