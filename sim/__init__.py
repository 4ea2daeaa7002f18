"""cocotb regressions: one generic testbench, the runner, stimulus and golden expectations."""

if __name__ != "fpforge.sim":  # the folder imported as a top-level package: a second copy of fpforge
    raise ImportError(f"import fpforge.sim, not {__name__}: the folder sim/ is installed as fpforge.sim "
                      "(run `make setup`, then use `import fpforge.sim`)")

from .cases import UnitCase, decoder_case, encoder_case, unit_case
from .regress import regress_unit
from .run import SIMULATORS, Result, SimulatorMissing, available_simulators, run_case, verilator_env
from .userdesign import UserDesign

__all__ = [
    "Result",
    "SIMULATORS",
    "SimulatorMissing",
    "UnitCase",
    "UserDesign",
    "available_simulators",
    "decoder_case",
    "encoder_case",
    "regress_unit",
    "run_case",
    "unit_case",
    "verilator_env",
]
