"""Variants are descriptors (issue 12, item 2): registered as ``<base>_<variant>``, reachable from their
base, resolved from the API's and the CLI's flags at the boundary, and absorbed from a name alone."""

import numpy as np
import pytest

from fpforge.golden import decode, encode, get_format, list_formats, registry
from fpforge.golden.formats import TaperedFormat, resolve_variant
from fpforge.hw import build_unit, default_name


def test_the_variants_and_their_bases():
    assert list_formats(kind="variant") == ["cfloat8_143_ieee", "cfloat8_152_ieee", "shp_ieee", "hif8_literal",
                                             "hif8_ascend"]
    for name in list_formats(kind="variant"):
        v = get_format(name)
        assert v.base.variant(v.variant_name) is v and v.base.variant_name is None
        assert name == f"{v.base.name}_{v.variant_name}"
    assert get_format("shp").variants == ("ieee",) and get_format("e4m3").variants == ()
    assert get_format("shp_ieee").denormals == "ieee" and get_format("hif8_literal").hr_literal
    assert get_format("hif8").variant("ascend").compat == "ascend"  # issue 15's variant, declared by its name
    assert get_format("cfloat8_143").at(5).variant("ieee") is get_format("cfloat8_143_ieee")


def test_flags_resolve_to_the_variant_descriptor():
    assert resolve_variant("cfloat8_152", ieee_denormals=True) is get_format("cfloat8_152_ieee")
    assert resolve_variant("hif8", paper_literal=True) is get_format("hif8_literal")
    assert resolve_variant("e4m3", ieee_denormals=False) is get_format("e4m3")
    x = np.float32([2.0**-8, 24.0])
    assert np.array_equal(encode("cfloat8_143", x, bias=7, ieee_denormals=True), encode("cfloat8_143_ieee", x, bias=7))
    assert np.array_equal(decode("shp", [1, 2], bias=3, ieee_denormals=True), decode("shp_ieee", [1, 2], bias=3))
    assert encode("hif8", x[1:], rounding="hr", paper_literal=True) == encode("hif8_literal", x[1:], rounding="hr")


@pytest.mark.parametrize("call, match", [
    (lambda: resolve_variant("e4m3", ieee_denormals=True), r"ieee_denormals applies to .* \(cfloat8_143, "
                                                           r"cfloat8_152, shp\), not 'e4m3'"),
    (lambda: resolve_variant("e5m2", paper_literal=True), r"paper_literal applies to HiF8 .* \(hif8\), not 'e5m2'"),
    (lambda: get_format("hif8").variant("nope"), r"format 'hif8' has no variant 'nope'; its variants: literal, ascend"),
    (lambda: registry.register(get_format("e4m3")), r"format 'e4m3' is already registered"),
])
def test_bad_variants_are_one_clear_error(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_verilog_keeps_the_names_the_options_had():
    assert default_name(build_unit("encoder", format="cfloat8_143_ieee")) == "fpforge_enc_fp32_cfloat8_143_ieeedn"
    assert default_name(build_unit("decoder", format="shp", ieee_denormals=True)) == "fpforge_dec_shp_fp32_ieeedn"
    unit = build_unit("encoder", format="hif8_literal", rounding=("hr",))
    assert default_name(unit) == "fpforge_enc_fp32_hif8" and "-> hif8," in unit.describe()
    assert "paper_literal 1" in unit.describe()


@pytest.fixture
def scratch_variant():
    """A variant registered by name alone (as hif8_ascend is), removed afterwards."""
    fmt = registry.register(TaperedFormat("hif8_scratch", title="a test variant"))
    yield fmt
    del registry.REGISTRY[fmt.name]
    del registry._BASE[fmt.name]


def test_a_descriptor_registered_as_base_underscore_name_is_a_variant(scratch_variant):
    hif8 = get_format("hif8")
    assert hif8.variant("scratch") is scratch_variant and scratch_variant.base is hif8
    assert set(hif8.variants) == {"literal", "ascend", "scratch"} and "hif8_scratch" in list_formats(kind="variant")
    assert default_name(build_unit("encoder", format="hif8_scratch")) == "fpforge_enc_fp32_hif8_scratch"
