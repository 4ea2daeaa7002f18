"""The prover asks a unit's spec class what to do (sim.prove_unit.PROVE_KINDS), for a spec and for its keyword
form alike."""

import pytest

from fpforge.golden.errors import FpforgeValueError
from fpforge.hw.spec import DecoderSpec, DotSpec, EncoderSpec
from fpforge.sim.prove_unit import DEFAULT_BIASES, PROVE_KINDS, conditions_of, domain_of, prove_kind


def test_kind_is_looked_up_by_spec_class_for_specs_and_their_keyword_form():
    enc = EncoderSpec(format="e4m3", source="bf16")
    dec = DecoderSpec(format="cfloat8_143")
    for spec, encodes in ((enc, True), (dec, False)):
        assert prove_kind(spec) is PROVE_KINDS[type(spec)] is prove_kind(spec.as_options())
        assert prove_kind(spec).encodes is encodes
    assert domain_of(enc) == 1 << 16 and domain_of(dec) == 1 << 8
    assert [c.bias for c in conditions_of(dec)] == list(range(64))
    assert {c.bias for c in conditions_of(EncoderSpec(format="cfloat8_143"))} == set(DEFAULT_BIASES)


def test_units_without_a_kind_are_refused():
    with pytest.raises(FpforgeValueError, match="scalar encoder and decoder units, not 'dot'"):
        prove_kind(DotSpec(format="mx9", r=16, f=24))
    with pytest.raises(FpforgeValueError, match="not 'block-encoder'"):
        prove_kind({"unit": "block-encoder", "format": "mx9"})
