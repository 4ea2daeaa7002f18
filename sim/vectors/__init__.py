"""Stimulus, one module per unit family: :mod:`~fpforge.sim.vectors.scalar` (exhaustive 16-bit patterns,
random FP32 and directed corner cases for the conversion units), :mod:`~fpforge.sim.vectors.block` (random
and directed blocks), :mod:`~fpforge.sim.vectors.dot` and :mod:`~fpforge.sim.vectors.dot_groups` (random and
directed operand pairs for the dot-product units; ``fpforge.golden.dot`` and ``fpforge.hw.dot`` are their
twins). Directed corner cases come in named groups, one function each."""

from .block import DIRECTED_BLOCK_GROUPS, directed_blocks, random_blocks
from .dot import DotOperands, concat_dot_operands, directed_dot_operands, random_dot_operands
from .scalar import (DEFAULT_BIASES, EXHAUSTIVE_BIASES, all_patterns, directed, random_patterns, stimulus,
                     stimulus_with_bias, tapered_thresholds)

__all__ = ["DEFAULT_BIASES", "DIRECTED_BLOCK_GROUPS", "EXHAUSTIVE_BIASES", "DotOperands", "all_patterns",
           "concat_dot_operands", "directed", "directed_blocks", "directed_dot_operands", "random_blocks",
           "random_dot_operands", "random_patterns", "stimulus", "stimulus_with_bias", "tapered_thresholds"]
