"""Junk into the hardware and scaling API, and what the silent-results fixes of issue 30 promise.

The junk property of tests/test_fuzz_api.py covers the functions of ``fpforge.golden`` (and its dot, QSNR and
scaling modules); this file covers the entry points beside them: ``fpforge.hw.build_unit`` /
``spec_from_options``, every ``UnitSpec`` class (constructor, ``from_dict``, ``from_json``), ``FormatRef``,
``to_verilog`` / ``default_name`` and the methods of ``DelayedScaling``. Junk of every type — None, bools,
floats (NaN, Inf), strings, ints out of range, huge ints, numpy scalars, nested and ragged lists, dicts,
bytes, arrays, objects — either gives a result or raises fpforge's TypeError/ValueError with a one-line
message: never another exception, never a traceback of a library underneath.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fpforge.cli import main
from fpforge.golden.errors import FpforgeError, FpforgeValueError
from fpforge.golden.scaling import DelayedScaling
from fpforge.hw import FormatRef, UnitSpec, build_unit, default_name, spec_from_options, to_verilog
from fpforge.hw.spec import SPECS, UNITS, VARIANT_SUGAR
from fpforge.synth import SynthError
from fpforge.synth.liberty import parse_liberty_text

from bad_inputs import PLACE_FILES

pytestmark = pytest.mark.filterwarnings("ignore::amaranth.hdl.UnusedElaboratable")  # units built only to inspect

PROFILES = [pytest.param(12, id="fast"), pytest.param(300, id="many", marks=pytest.mark.slow)]

#: Junk of every type (numpy scalars and nests included).
JUNK = st.one_of(
    st.none(), st.booleans(), st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=5),
    st.integers(-3, 70), st.sampled_from([2**32, 2**70, -(2**63)]),
    st.sampled_from([np.int64(3), np.uint8(200), np.float32(1.5), np.float64(np.nan), np.bool_(True), np.int8(-1)]),
    st.lists(st.one_of(st.integers(-2, 3), st.text(max_size=3), st.none()), max_size=3),
    st.just([[1], [1, 2]]), st.just([["rne"]]), st.just((("a",),)), st.just({}), st.just({"name": None}),
    st.just({"x": [1]}), st.just(b"\x00\x01"), st.just(object()), st.just(np.ones(2)), st.just(np.array(["a"])),
    st.just(np.zeros((2, 0))), st.just(1j), st.just(set()),
)

#: One valid configuration per unit kind (build_unit keywords).
BASE = {
    "encoder": dict(format="e4m3"),
    "decoder": dict(format="e5m2"),
    "block-encoder": dict(format="mx6"),
    "block-decoder": dict(format="mx6"),
    "dot": dict(format="e4m3", r=4, f=16),
    "scaled-encoder": dict(format="e4m3"),
}
#: Every keyword any unit takes, and one no unit takes.
OPTIONS = sorted({n for k in SPECS.values() for n in k.options()} | set(VARIANT_SUGAR) | {"bogus"})


def run(max_examples, test):
    settings(max_examples=max_examples, deadline=None, derandomize=max_examples <= 50,
             suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])(test)()


def clear(call, label):
    """``call()`` returns, or raises fpforge's TypeError/ValueError with one line; anything else fails."""
    try:
        return call()
    except (TypeError, ValueError) as e:
        assert isinstance(e, FpforgeError), f"{label}: {type(e).__name__}: {e}"
        assert str(e) and "\n" not in str(e), f"{label}: {e!r}"
    except Exception as e:  # noqa: BLE001 - the property: no other exception type escapes
        raise AssertionError(f"{label} raised {type(e).__name__}: {e}") from e
    return None


def _silence(unit):
    """(The units built here are never elaborated: the module's pytestmark ignores Amaranth's warning.)"""
    return unit


# -- build_unit / spec_from_options / the spec classes ----------------------------------------------------------
@pytest.mark.parametrize("examples", PROFILES)
def test_junk_in_any_option_of_build_unit_is_a_clear_error(examples):
    @given(st.sampled_from([*UNITS, "adder"]), st.sampled_from(["unit", *OPTIONS]), JUNK)
    def prop(unit, option, junk):
        cfg = dict(unit=unit, **BASE.get(unit, BASE["encoder"]))
        cfg[option] = junk
        label = f"build_unit({cfg!r})"
        _silence(clear(lambda: build_unit(**cfg), label))
        spec = clear(lambda: spec_from_options(**cfg), label)
        if spec is not None:  # what the keywords accept, the spec's JSON gives back
            assert UnitSpec.from_json(spec.to_json()) == spec
    run(examples, prop)


@pytest.mark.parametrize("examples", PROFILES)
@pytest.mark.parametrize("unit", UNITS)
def test_junk_in_any_field_of_a_spec_constructor_is_a_clear_error(unit, examples):
    kind = SPECS[unit]

    @given(st.sampled_from(kind.options()), JUNK)
    def prop(name, junk):
        kw = dict(BASE[unit])
        kw[name] = junk
        clear(lambda: kind(**kw), f"{kind.__name__}({kw!r})")
    run(examples, prop)


def _dicts():
    return [spec_from_options(unit, **cfg).to_dict() for unit, cfg in BASE.items()] + [
        spec_from_options("encoder", format="cfloat8_143", ieee_denormals=True, rounding=("rne", "sr")).to_dict(),
        spec_from_options("decoder", format=FormatRef("cfloat8_152", 7).descriptor()).to_dict()]


@pytest.mark.parametrize("examples", PROFILES)
def test_junk_in_a_spec_json_form_is_a_clear_error(examples):
    forms = _dicts()

    @given(st.sampled_from(forms), st.sampled_from(["unit", "schema", "sha256", "format", "bogus", "*"]), JUNK,
           st.sampled_from(["set", "delete", "format-at", "format-with", "format-with-field"]))
    def prop(form, key, junk, how):
        d = dict(form)
        keys = [k for k in d if k not in ("unit", "schema")]
        key = keys[hash(repr(junk)) % len(keys)] if key == "*" else key
        if how == "delete":
            d.pop(key, None)
        elif how == "format-at":
            d["format"] = {"name": "cfloat8_143", "at": junk}
        elif how == "format-with":
            d["format"] = {"name": "e4m3", "with": junk}
        elif how == "format-with-field":
            d["format"] = {"name": "e4m3", "with": {str(junk)[:8]: junk}}
        else:
            d[key] = junk
        spec = clear(lambda: UnitSpec.from_dict(d), f"UnitSpec.from_dict({d!r})")
        try:
            text = json.dumps(d)
        except (TypeError, ValueError):
            text = None
        if text is not None:
            again = clear(lambda: UnitSpec.from_json(text), f"UnitSpec.from_json({text!r})")
            assert (again is None) == (spec is None) and (spec is None or again == spec)
        clear(lambda: UnitSpec.from_json(junk), f"UnitSpec.from_json({junk!r})")
        clear(lambda: FormatRef.from_dict(junk if isinstance(junk, dict) else {"name": junk}), "FormatRef.from_dict")
    run(examples, prop)


def test_a_spec_json_form_with_its_sha256_round_trips_and_a_stale_hash_is_refused():
    for d in _dicts():
        spec = UnitSpec.from_dict(d)
        assert UnitSpec.from_dict(dict(d, sha256=spec.sha256)) == spec
        edited = dict(d, sha256=spec.sha256, latency=d.get("latency", 0) + 1) if "latency" in d else None
        if edited is not None:
            with pytest.raises(FpforgeValueError, match="is not the hash of its fields"):
                UnitSpec.from_dict(edited)


# -- to_verilog / default_name ------------------------------------------------------------------------------
@pytest.mark.parametrize("examples", PROFILES)
def test_junk_instead_of_a_unit_or_a_module_name_is_a_clear_error(examples):
    unit = build_unit("decoder", format="e4m3")

    @given(JUNK, st.one_of(JUNK, st.sampled_from(["a", "y", "clk", "wire", "logic", "rand", "_x1", "exp"])))
    def prop(junk, name):
        clear(lambda: to_verilog(junk), f"to_verilog({junk!r})")
        clear(lambda: default_name(junk), f"default_name({junk!r})")
        text = clear(lambda: to_verilog(unit, name), f"to_verilog(unit, {name!r})")
        if text is not None:  # an accepted name (None: the default one) is the module's, and no signal of it
            name = default_name(unit) if name is None else name
            assert f"module {name}(" in text and not any(
                line.strip().startswith(("input", "output", "wire", "reg")) and line.rstrip(" ;").endswith(f" {name}")
                for line in text.splitlines())
    run(examples, prop)


@pytest.mark.parametrize("cfg", [dict(unit="encoder", format="e5m2", rounding=("rne", "sr"), saturate="runtime"),
                                 dict(unit="decoder", format="e4m3", latency=2),
                                 dict(unit="scaled-encoder", format="e4m3", lanes=2)],
                         ids=["encoder-sr", "decoder-stream", "scaled-encoder"])
def test_every_port_name_of_a_unit_is_refused_as_its_module_name(cfg):
    """The names `fpforge lint` rejected (Verilator VARHIDDEN): each port of the unit, whatever the unit."""
    from fpforge.hw.generate import VERILOG_KEYWORDS

    unit = build_unit(**cfg)
    text = to_verilog(unit)
    header = next(line for line in text.splitlines() if line.startswith("module "))
    ports = [p.strip().lstrip("\\") for p in header[header.index("(") + 1:header.rindex(")")].split(",")]
    assert len(ports) >= 2
    for port in ports:
        with pytest.raises(FpforgeValueError) as e:
            to_verilog(unit, port)
        assert ("is also the name of a signal" in str(e.value)) != (port in VERILOG_KEYWORDS), str(e.value)


# -- DelayedScaling -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("examples", PROFILES)
def test_junk_in_delayed_scaling_is_a_clear_error_and_leaves_its_state(examples):
    params = ["fmt", "history_len", "algo", "margin", "pow2", "initial_scale", "bias"]

    @given(st.sampled_from(params), JUNK, JUNK, st.sampled_from(["update", "step-x", "step-rounding", "step-saturate"]))
    def prop(param, junk, junk2, method):
        kw = {"fmt": "e4m3", "history_len": 4}
        kw[param] = junk
        clear(lambda: DelayedScaling(**kw), f"DelayedScaling({kw!r})")
        d = DelayedScaling("e4m3", 4)
        d.update(np.float32(3.0))
        before = (d.history, d.scale, d.steps)
        x = np.ones(8, np.float32)
        calls = {"update": lambda: d.update(junk2), "step-x": lambda: d.step(junk2),
                 "step-rounding": lambda: d.step(x, rounding=junk2), "step-saturate": lambda: d.step(x, saturate=junk2)}
        try:
            calls[method]()
        except (TypeError, ValueError) as e:
            assert isinstance(e, FpforgeError) and "\n" not in str(e), f"{method}({junk2!r}): {type(e).__name__}: {e}"
            assert np.array_equal(d.history, before[0]) and d.scale == before[1] and d.steps == before[2], \
                f"{method}({junk2!r}) was refused but changed the state"
    run(examples, prop)


@pytest.mark.parametrize("amax", [-5, -0.5, np.float32(-1e-30), -np.inf], ids=str)
@pytest.mark.parametrize("algo", ["max", "most_recent"])
def test_a_negative_amax_is_refused_and_recorded_nowhere(amax, algo):
    d = DelayedScaling("e4m3", 3, algo)
    d.update(np.float32(7.0))
    history, scale = d.history, d.scale
    with pytest.raises(FpforgeValueError, match="amax must be >= 0"):
        d.update(amax)
    assert np.array_equal(d.history, history) and d.scale == scale and d.steps == 1
    assert d.update(-0.0) == scale  # a negative zero is a zero amax: no information, the scale is kept


# -- --spec-json: the command's checks, -o, and a JSON that from_json reads back --------------------------------
#: Options of one unit of each kind (and a format reference), for every command that prints specs.
SPEC_CASES = [
    ["encoder", "-f", "cfloat8_143", "--ieee-denormals", "--rounding", "rne,sr", "--seed", "4294967295"],
    ["decoder", "-f", "hif8", "--target", "fp16", "--latency", "2"],
    ["block-encoder", "-f", "mx9", "--rounding", "sr", "--rand-bits", "8"],
    ["block-decoder", "-f", "bdr", "--m", "3", "--k1", "16", "--d1", "8", "--k2", "2", "--d2", "1"],
    ["dot", "--preset", "e4m3", "--r", "4", "--f", "16", "--stages", "1", "--out-format", "e5m2"],
    ["scaled-encoder", "-f", "e4m3", "--lanes", "2", "--scaling", "pow2"],
]


def _spec_of(argv):
    from fpforge.cli import parser
    from fpforge.unitopts import unit_spec

    return unit_spec(parser().parse_args(argv))


@pytest.mark.parametrize("argv", SPEC_CASES, ids=[a[0] for a in SPEC_CASES])
def test_spec_json_round_trips_through_from_json_for_every_unit_kind(argv, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    want = _spec_of(["verilog", *argv])
    provable = argv[0] in ("encoder", "decoder") and "--latency" not in argv
    commands = ["verilog", "synth", "sim"] + (["prove"] if provable else [])
    if argv[0] in ("encoder", "decoder") and not provable:  # prove's own rule holds under --spec-json too
        assert main(["prove", *argv, "--spec-json"]) == 2
        out, err = capsys.readouterr()
        assert out == "" and "checks combinational units" in err
    for command in commands:
        assert main([command, *argv, "--spec-json"]) == 0
        out, err = capsys.readouterr()
        assert err == ""
        spec = UnitSpec.from_json(out)
        assert spec == want and json.loads(out)["sha256"] == want.sha256, command
    for command in ("verilog", "synth"):  # the commands with -o: the file, nothing on stdout
        assert main([command, *argv, "--spec-json", "-o", f"{command}.json"]) == 0
        out, _ = capsys.readouterr()
        assert out == "" and UnitSpec.from_json((tmp_path / f"{command}.json").read_text()) == want
    assert sorted(p.name for p in tmp_path.iterdir()) == ["synth.json", "verilog.json"]  # no temporary left


# -- liberty areas ------------------------------------------------------------------------------------------------
def test_zero_area_is_refused_only_where_it_would_falsify_an_area():
    """A logic cell of area 0 (or a negative, NaN or infinite area anywhere) is refused; a physical cell without
    outputs (a filler, a tap) and a dont_use cell may have area 0."""
    lib = PLACE_FILES["zerolib"]
    for bad in (lib, lib.replace("area : 0 ", "area : -1 "), lib.replace("area : 0 ", "area : inf "),
                lib.replace("area : 0 ", "")):
        with pytest.raises(SynthError, match="INV_X1"):
            parse_liberty_text(bad, "x.lib")
    ok = lib.replace("cell (INV_X1) { area : 0 ;", "cell (INV_X1) { area : 0 ; dont_use : true ;")
    filler = lib.replace("}\n}\n", "}\n cell (FILL_X1) { area : 0 ; }\n}\n").replace("area : 0 ;", "area : 0.5 ;", 1)
    assert parse_liberty_text(ok, "ok.lib").cells["INV_X1"].area == 0
    cells = parse_liberty_text(filler, "fill.lib").cells
    assert cells["FILL_X1"].area == 0 and cells["INV_X1"].area == 0.5


# -- the gateware constructors ------------------------------------------------------------------------------------
def _gateware():
    from fpforge import hw

    return {  # constructor: valid positional arguments (each replaced by junk in turn)
        "Encoder": (hw.Encoder, lambda: ["e4m3", "fp32", ("rne",), False, False, 16]),
        "Decoder": (hw.Decoder, lambda: ["e4m3", "fp32"]),
        "HiF8Encoder": (hw.HiF8Encoder, lambda: ["hif8", "fp32", ("ta",), False, False, 16]),
        "HiF8Decoder": (hw.HiF8Decoder, lambda: ["hif8", "fp32"]),
        "BlockEncoder": (hw.BlockEncoder, lambda: ["mx6", "fp32", ("rne",), 16]),
        "BlockDecoder": (hw.BlockDecoder, lambda: ["mx6", "fp32"]),
        "DotProduct": (hw.DotProduct, lambda: ["e4m3", 4, 16]),
        "Xorshift32": (hw.Xorshift32, lambda: [0, 16, 1]),
        "Fp32Multiplier": (hw.Fp32Multiplier, lambda: ["fp32", "fp32"]),
        "ScaledEncoder": (hw.ScaledEncoder, lambda: ["e4m3"]),
        "Pipeline": (hw.Pipeline, lambda: [hw.Decoder("e4m3"), 1, 0]),
        "RegisteredIO": (hw.RegisteredIO, lambda: [hw.DotProduct("e4m3", 4, 16)]),
        "operand_layout": (hw.operand_layout, lambda: ["e4m3", 4]),
        "block_layout": (hw.block_layout, lambda: ["mx6"]),
    }


GATEWARE = _gateware()


@pytest.mark.parametrize("examples", PROFILES)
@pytest.mark.parametrize("name", sorted(GATEWARE))
def test_junk_in_any_argument_of_a_gateware_constructor_is_a_clear_error(name, examples):
    make, valid = GATEWARE[name]

    @given(st.integers(0, len(valid()) - 1), JUNK)
    def prop(i, junk):
        args = valid()
        for a in args:
            _silence(a)
        args[i] = junk
        _silence(clear(lambda: make(*args), f"{name}({args!r})"))
    run(examples, prop)
