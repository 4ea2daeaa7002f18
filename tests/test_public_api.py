"""The small public-API items of issue 32: the descriptor classes and ``register`` on ``fpforge.golden``;
``--window-bits`` (alias ``--f``) on the dot-product commands."""

from __future__ import annotations

import pytest


def test_descriptor_classes_and_register_are_public():
    import fpforge.golden as golden
    from fpforge.golden import block, contract, registry, taperedformat

    for name in ("FloatFormat", "TaperedFormat", "BlockFormat", "MXFormat", "ScalarFormat", "BlockFormatLike",
                 "register"):
        assert name in golden.__all__, name
    assert golden.register is registry.register and golden.TaperedFormat is taperedformat.TaperedFormat
    assert golden.ScalarFormat is contract.ScalarFormat and golden.BlockFormat is block.BlockFormat
    # every registered format is an instance of one of the exported contracts
    for name in golden.list_formats():
        assert isinstance(golden.get_format(name), (golden.ScalarFormat, golden.BlockFormatLike)), name
    assert len(golden.__all__) == len(set(golden.__all__))
    assert all(hasattr(golden, n) for n in golden.__all__)


@pytest.mark.parametrize("command", [["verilog", "dot"], ["synth", "dot"], ["sim", "dot"]])
def test_window_bits_and_its_alias(command):
    """--window-bits and --f set the same thing; -f/--format stays the format."""
    from fpforge.cli import parser

    if command[0] not in parser()._subparsers._group_actions[0].choices:
        pytest.skip(f"no {command[0]} command")
    base = [*command, "--preset", "mx9", "--r", "16"]
    long, alias = (parser().parse_args([*base, opt, "24"]) for opt in ("--window-bits", "--f"))
    assert long.f == alias.f == 24


def test_dot_error_window_bits_alias():
    from fpforge.cli import parser

    assert parser().parse_args(["dot-error", "--window-bits", "8,16"]).f == "8,16"
    assert parser().parse_args(["dot-error", "--f", "8,16"]).f == "8,16"
