"""Typed unit specs (issue 12, item 3): frozen, validated once, a strict JSON form and a content hash; the one
route from the keyword style; build_unit(spec) gives the keyword style's Verilog."""

import dataclasses
import hashlib
import json
import warnings

import pytest

from fpforge.golden import get_format, list_formats
from fpforge.golden.errors import FpforgeError, FpforgeTypeError, FpforgeValueError
from fpforge.hw import build_unit, default_name, to_verilog
from fpforge.hw.spec import (
    SCHEMA_VERSION,
    SPECS,
    BlockDecoderSpec,
    BlockEncoderSpec,
    DecoderSpec,
    DotSpec,
    EncoderSpec,
    FormatRef,
    ScaledEncoderSpec,
    UnitSpec,
    spec_from_options,
)

from helpers import fpforge

pytestmark = pytest.mark.filterwarnings("ignore::amaranth.hdl.UnusedElaboratable")  # units built only to inspect

SCALAR = [f for f in list_formats("scalar") if f in ("e4m3", "hif8", "cfloat8_143", "shp_ieee", "binary8p3uf", "uhp")]
BLOCK = ["mx9", "mxfp4_e2m1", "msfp16", "mxint8"]


def _specs():
    out = []
    for f in SCALAR:
        modes = get_format(f).roundings
        out += [EncoderSpec(format=f), EncoderSpec(format=f, source="bf16", rounding=modes, saturate="runtime",
                                                   latency=2),
                DecoderSpec(format=f, latency=1,
                            target="fp16" if f in ("e4m3", "hif8") else "bf16" if f == "binary8p3uf" else "fp32"),
                ScaledEncoderSpec(format=f, lanes=4, scaling="pow2", rounding=modes[-1:], saturate=True)]
    for f in BLOCK:
        out += [BlockEncoderSpec(format=f, rounding=get_format(f).roundings), BlockDecoderSpec(format=f, latency=3)]
    out += [DotSpec(format="mx9", r=32, f=16), DotSpec(format="fp8", r=16, f=24, stages=2, raw=True),
            DotSpec(format="e4m3", format_b="e5m2", r=8, f=20, io_registers=True),
            EncoderSpec(format=FormatRef("cfloat8_143", 7, (("denormals", "ieee"),)))]
    return out


SPEC_LIST = _specs()


def _built(x):
    """``to_verilog`` of ``build_unit(x)`` (``x`` a spec or keywords)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return to_verilog(build_unit(x) if isinstance(x, UnitSpec) else build_unit(**x))


def test_every_unit_kind_has_a_spec():
    assert sorted(SPECS) == sorted(["encoder", "decoder", "block-encoder", "block-decoder", "dot", "scaled-encoder"])
    assert {type(s) for s in SPEC_LIST} == set(SPECS.values())


@pytest.mark.parametrize("spec", SPEC_LIST, ids=lambda s: f"{s.unit}-{s.key}")
def test_json_form_round_trips(spec):
    d = spec.to_dict()
    assert d["unit"] == spec.unit and d["schema"] == SCHEMA_VERSION
    text = json.dumps(d)  # JSON-able
    back = UnitSpec.from_dict(json.loads(text))
    assert back == spec and type(back) is type(spec) and back.sha256 == spec.sha256
    assert type(spec).from_dict(d) == spec
    assert UnitSpec.from_json(spec.to_json()) == spec
    assert spec_from_options(**spec.as_options()) == spec  # the keyword form maps back to the spec


def test_hash_is_sha256_of_the_sorted_compact_json():
    spec = EncoderSpec(format="e4m3", rounding=("rne", "sr"), saturate="runtime")
    literal = ('{"format":"e4m3","latency":0,"nan_to_zero":false,"rand_bits":16,"rounding":["rne","sr"],'
               '"saturate":"runtime","schema":1,"seed":0,"source":"fp32","unit":"encoder"}')
    assert spec.to_json() == literal
    assert spec.sha256 == hashlib.sha256(literal.encode()).hexdigest()
    assert spec.key == spec.sha256[:16]
    dot = DotSpec(format="mx9", r=32, f=16)
    literal = ('{"amax":false,"datapath":"auto","f":16,"format":"mx9","format_b":"mx9","io_registers":false,"out_format":null,'
               '"r":32,"raw":false,"rounding":null,"saturate":null,"scale":false,"schema":1,"stages":0,'
               '"unit":"dot"}')
    assert dot.sha256 == hashlib.sha256(literal.encode()).hexdigest()


def test_specs_differ_in_hash_when_they_differ():
    keys = {s.sha256 for s in SPEC_LIST}
    assert len(keys) == len(SPEC_LIST)


@pytest.mark.parametrize("a, b", [
    (dict(unit="encoder", format="CFloat8_143", ieee_denormals=True), dict(unit="encoder", format="cfloat8_143_ieee")),
    (dict(unit="encoder", format="hif8", compat="ascend"), dict(unit="encoder", format="hif8_ascend")),
    (dict(unit="encoder", format="hif8", rounding="hr", paper_literal=True),
     dict(unit="encoder", format="hif8_literal", rounding=("hr",))),
    (dict(unit="encoder", format="e4m3", rounding=("rne", "sr", "rne"), saturate="on", compat="default"),
     dict(unit="encoder", format="e4m3", rounding=["rne", "sr"], saturate=True, rand_bits=16, seed=0)),
    (dict(unit="decoder", format="shp", ieee_denormals=True, latency=0), dict(unit="decoder", format="shp_ieee")),
    (dict(unit="scaled-encoder", format="hif8", compat="ascend"), dict(unit="scaled-encoder", format="hif8_ascend",
                                                                       latency=1, lanes=1, scaling="fp32")),
    (dict(unit="block-encoder", format="bdr_m7_k16_d8_k2_d1"), dict(unit="block-encoder", format="MX9")),
    (dict(unit="dot", format="mx9", r=32, f=16), dict(unit="dot", format="MX9", format_b="mx9", r=32, f=16)),
    (dict(unit="encoder", format="e4m3", saturate="off"), dict(unit="encoder", format="e4m3", rounding="rne")),
])
def test_two_spellings_are_one_spec(a, b):
    sa, sb = spec_from_options(**a), spec_from_options(**b)
    assert sa == sb and sa.sha256 == sb.sha256 and hash(sa) == hash(sb)


@pytest.mark.parametrize("a, b", [
    (dict(unit="encoder", format="cfloat8_143", ieee_denormals=True), dict(unit="encoder", format="cfloat8_143_ieee")),
    (dict(unit="encoder", format="hif8", rounding="hr", paper_literal=True),
     dict(unit="encoder", format="hif8_literal", rounding=("hr",))),
])
def test_two_spellings_are_one_verilog(a, b):
    assert _built(a) == _built(b) == _built(spec_from_options(**a))


def test_specs_are_frozen():
    spec = EncoderSpec(format="e4m3")
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.latency = 3
    with pytest.raises(TypeError):
        EncoderSpec("e4m3")  # keyword-only
    assert {spec: 1}[EncoderSpec(format="E4M3")] == 1  # hashable, equal specs one key


def test_defaults_are_resolved():
    assert EncoderSpec(format="hif8").rounding == ("ta",) and EncoderSpec(format="e4m3").rounding == ("rne",)
    enc = EncoderSpec(format="e4m3")
    assert enc.rand_bits is None and enc.seed is None and enc.source == "fp32" and enc.saturate is False
    sr = EncoderSpec(format="e4m3", rounding="sr")
    assert (sr.rand_bits, sr.seed) == (16, 0)
    assert ScaledEncoderSpec(format="e4m3").latency == 1 and DecoderSpec(format="e4m3").latency == 0
    assert DotSpec(format="mx6", r=32, f=16).format_b == "mx6"


BAD = [
    ("not-a-dict", ["unit"], FpforgeTypeError, "must be a mapping"),
    ("unknown-unit", dict(unit="adder"), ValueError, "unknown unit 'adder'"),
    ("schema", dict(EncoderSpec(format="e4m3").to_dict(), schema=99), FpforgeValueError, "schema 99"),
    ("unknown-key", dict(EncoderSpec(format="e4m3").to_dict(), colour="red"), FpforgeValueError,
     "unknown key(s) colour"),
    ("missing-key", {k: v for k, v in EncoderSpec(format="e4m3").to_dict().items() if k != "latency"},
     FpforgeValueError, "missing key(s) latency"),
    ("latency-string", dict(EncoderSpec(format="e4m3").to_dict(), latency="2"), FpforgeTypeError, "latency"),
    ("latency-float", dict(EncoderSpec(format="e4m3").to_dict(), latency=2.0), FpforgeTypeError, "latency"),
    ("switch-int", dict(DecoderSpec(format="e4m3").to_dict(), unit="encoder", nan_to_zero=1, source="fp32",
                        rounding=["rne"], saturate=False, rand_bits=None, seed=None, target=None), FpforgeValueError,
     "unknown key(s) target"),
    ("nan-to-zero-int", dict(EncoderSpec(format="e4m3").to_dict(), nan_to_zero=1), FpforgeTypeError, "nan_to_zero"),
    ("rounding-int", dict(EncoderSpec(format="e4m3").to_dict(), rounding=3), FpforgeTypeError, "rounding"),
    ("rounding-unknown", dict(EncoderSpec(format="e4m3").to_dict(), rounding=["hr"]), FpforgeValueError,
     "has no rounding 'hr'"),
    ("rand-bits-without-sr", dict(EncoderSpec(format="e4m3").to_dict(), rand_bits=8), FpforgeValueError,
     "rand_bits applies to encoders with stochastic rounding"),
    ("format-unknown", dict(EncoderSpec(format="e4m3").to_dict(), format="e9m9"), ValueError,
     "unknown format 'e9m9'"),
    ("format-block", dict(EncoderSpec(format="e4m3").to_dict(), format="mx9"), FpforgeValueError, "is a block format"),
    ("wrong-class", DecoderSpec(format="e4m3").to_dict(), FpforgeValueError, "EncoderSpec.from_dict got a decoder"),
    ("dot-r", dict(DotSpec(format="mx9", r=32, f=16).to_dict(), r=33), FpforgeValueError, "multiple of k1"),
    ("dot-io-stages", dict(DotSpec(format="mx9", r=32, f=16).to_dict(), stages=2, io_registers=True),
     FpforgeValueError, "io_registers"),
    ("target-cannot-hold", dict(DecoderSpec(format="uhp").to_dict(), target="fp16"), FpforgeValueError,
     "fp16 cannot hold every uhp value"),
    ("block-source", dict(BlockEncoderSpec(format="mx9").to_dict(), source="fp16"), FpforgeValueError,
     "unknown block encoder source 'fp16'"),
    ("format-ref-key", dict(EncoderSpec(format="e4m3").to_dict(), format={"name": "e4m3", "bias": 3}),
     FpforgeValueError, "format reference"),
]


@pytest.mark.parametrize("d, kind, words", [pytest.param(d, k, w, id=i) for i, d, k, w in BAD])
def test_bad_json_forms_are_one_line_errors(d, kind, words):
    cls = EncoderSpec if words.startswith("EncoderSpec") else UnitSpec
    with pytest.raises(kind) as info:
        cls.from_dict(d)
    assert isinstance(info.value, FpforgeError)
    assert words in str(info.value) and "\n" not in str(info.value), str(info.value)


def test_from_json_refuses_bad_text():
    with pytest.raises(FpforgeValueError, match="not a unit spec's JSON"):
        UnitSpec.from_json("{unit: encoder")


def test_the_keyword_style_keeps_its_rules():
    with pytest.raises(FpforgeValueError, match="does not take target"):
        spec_from_options("encoder", format="e4m3", target="fp16")
    with pytest.raises(FpforgeValueError, match="paper_literal applies to hybrid rounding"):
        spec_from_options("encoder", format="hif8", paper_literal=True)
    with pytest.raises(FpforgeTypeError, match="unexpected keyword argument 'colour'"):
        spec_from_options("encoder", format="e4m3", colour=1)
    with pytest.raises(FpforgeTypeError, match="not both"):
        build_unit(EncoderSpec(format="e4m3"), latency=1)


@pytest.mark.parametrize("spec", [
    EncoderSpec(format="e4m3", rounding=("rne", "sr"), saturate="runtime", latency=2, seed=9),
    DecoderSpec(format="shp_ieee"), BlockDecoderSpec(format="bdr_m2_k2_d3_k1_d1", latency=1),
    ScaledEncoderSpec(format="e5m2", scaling="pow2"), DotSpec(format="e4m3", format_b="e5m2", r=8, f=20, stages=1),
    EncoderSpec(format=FormatRef("cfloat8_143", 7, (("denormals", "ieee"),)))], ids=lambda s: s.unit)
def test_build_unit_of_a_spec_is_the_keyword_style_verilog(spec):
    opts = spec.as_options()
    if isinstance(opts["format"], FormatRef):
        opts["format"] = opts["format"].descriptor()
    text = _built(spec)
    assert text == _built(opts)
    unit = build_unit(spec)
    assert f"module {default_name(unit)}(" in text


def test_an_unregistered_descriptor_is_a_format_reference():
    fixed = get_format("cfloat8_143").at(7).with_(denormals="ieee")
    spec = EncoderSpec(format=fixed)
    assert spec.format == FormatRef("cfloat8_143", 7, (("denormals", "ieee"),)) and spec.descriptor == fixed
    assert spec.to_dict()["format"] == {"name": "cfloat8_143", "at": 7, "with": {"denormals": "ieee"}}
    assert EncoderSpec(format=get_format("e4m3")).format == "e4m3"


def test_the_top_level_api_exports_the_specs():
    import fpforge

    assert fpforge.EncoderSpec is EncoderSpec and fpforge.spec_from_options is spec_from_options
    with pytest.raises(AttributeError):
        fpforge.NoSuchSpec  # noqa: B018


def test_cli_prints_the_spec():
    run = fpforge("verilog", "encoder", "-f", "cfloat8_143", "--ieee-denormals", "--rounding", "rne,sr", "--spec-json")
    assert run.returncode == 0, run.stderr
    d = json.loads(run.stdout)
    sha = d.pop("sha256")
    spec = UnitSpec.from_dict(d)
    assert spec == EncoderSpec(format="cfloat8_143_ieee", rounding=("rne", "sr")) and spec.sha256 == sha


# -- units built from their spec (issue 32, item 1) ------------------------------------------------------------
def test_a_unit_is_built_from_its_spec_and_the_keywords_are_sugar_for_it():
    from fpforge.hw import Decoder, Encoder

    spec = EncoderSpec(format="e4m3", source="bf16", rounding=("rne", "sr"), saturate="runtime")
    sugar = Encoder("e4m3", source="bf16", roundings=("rne", "sr"), saturate="runtime")
    unit = Encoder(spec)
    assert unit.spec is spec and sugar.spec == spec
    assert to_verilog(unit) == to_verilog(sugar) == to_verilog(build_unit(spec))
    with pytest.raises(FpforgeTypeError, match="a spec or a format with options, not both"):
        Encoder(spec, source="fp16")
    with pytest.raises(FpforgeTypeError, match="Decoder is built from a DecoderSpec"):
        Decoder(spec)


@pytest.mark.parametrize("word, canonical", [("on", True), ("off", False), (True, True), (False, False),
                                             ("runtime", "runtime")])
def test_saturate_has_one_spelling_in_spec_and_gateware(word, canonical):
    from fpforge.hw import Encoder, ScaledEncoder

    assert EncoderSpec(format="e4m3", saturate=word).saturate == canonical
    assert Encoder("e4m3", saturate=word).saturate == canonical
    assert Encoder("e4m3", saturate=word).saturate is canonical or canonical == "runtime"
    assert ScaledEncoder("e4m3", saturate=word).core.config["saturate"] == canonical


@pytest.mark.parametrize("make, match", [
    (lambda: DecoderSpec(format="binary8p1se", target="fp16"), "fp16 cannot hold every binary8p1se value"),
    (lambda: DecoderSpec(format="shp", target="bf16"), "bf16 cannot hold every shp value exactly "
                                                               "at every bias"),
    (lambda: BlockDecoderSpec(format="bdr_m24_k16_d8_k2_d1"), "FP32 cannot hold every bdr_m24_k16_d8_k2_d1 value"),
    (lambda: BlockDecoderSpec(format="mx9", target="bf16"), "unknown block decoder target 'bf16'; valid choices: "
                                                            "fp32"),
])
def test_the_spec_alone_holds_the_rules_the_gateware_had(make, match):
    with pytest.raises(FpforgeValueError, match=match):
        make()


def _refused():
    from fpforge.hw import (
        BlockDecoder,
        BlockEncoder,
        Decoder,
        DotProduct,
        Encoder,
        HiF8Decoder,
        HiF8Encoder,
        Pipeline,
        RegisteredIO,
        ScaledEncoder,
        ScaledEncoderCore,
        Xorshift32,
    )

    return [
        ("Encoder source", lambda: Encoder("e4m3", source="fp64")),
        ("Encoder of a tapered format", lambda: Encoder("hif8")),
        ("Decoder target", lambda: Decoder("binary8p1se", target="fp16")),
        ("HiF8Encoder rounding", lambda: HiF8Encoder("hif8", roundings=("nope",))),
        ("HiF8Decoder format", lambda: HiF8Decoder("e4m3")),
        ("BlockEncoder source", lambda: BlockEncoder("mx9", source="fp16")),
        ("BlockDecoder exactness", lambda: BlockDecoder("bdr_m24_k16_d8_k2_d1")),
        ("DotProduct window", lambda: DotProduct("mx9", 16, 7)),
        ("DotProduct amax", lambda: DotProduct("mx9", 16, 24, amax=True)),
        ("ScaledEncoder lanes", lambda: ScaledEncoder("e4m3", lanes=0)),
        ("ScaledEncoderCore scaling", lambda: ScaledEncoderCore("e4m3", scaling="e8m0")),
        ("Pipeline core", lambda: Pipeline("e4m3")),
        ("Xorshift32 bits", lambda: Xorshift32(bits=0)),
        ("RegisteredIO core", lambda: RegisteredIO(3)),
    ]


@pytest.mark.parametrize("label", [label for label, _ in _refused()])
def test_a_refused_unit_leaves_no_object_for_amaranth_to_warn_about(label):
    """Checked before the object exists (no private Amaranth names): nothing "created but never used"."""
    import gc

    from amaranth.hdl import UnusedElaboratable

    make = dict(_refused())[label]
    gc.collect()  # (what earlier tests left)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(FpforgeError):
            make()
        gc.collect()
    assert [str(w.message) for w in caught if issubclass(w.category, UnusedElaboratable)] == []


def test_no_amaranth_private_names_in_the_sources():
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    hits = [str(p.relative_to(root)) for folder in ("hw", "sim", "sweep", "fpforge", "golden", "jobs", "synth", "tests")
            for p in (root / folder).rglob("*.py") if "_Must" + "Use" in p.read_text()]
    assert hits == []
