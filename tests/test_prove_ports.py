"""`fpforge prove UNIT --verilog FILE --top NAME --ports UNIT_PORT=USER_PORT,...`: fpforge's own E4M3 encoder
with its module and ports renamed proves through the port map; a mutant of it (which also lacks ``flags``)
fails; fpforge's ports the design lacks are listed as not driven / not checked; bad maps are one line."""

from __future__ import annotations

import re

import pytest

from fpforge.cli import main
from fpforge.golden.errors import FpforgeTypeError, FpforgeValueError
from fpforge.hw.generate import build_unit, default_name, to_verilog
from fpforge.sim.prove_unit import ProofUnit, port_map_wrapper

#: FP32 patterns from 448 (E4M3's largest finite value) upwards: rounding to max, overflow (2^20 of them).
TOP = (0x43E00000, 0x43E00000 + (1 << 20))
RANGE = f"{TOP[0]:#x}:{TOP[1]:#x}"


def _renamed(cfg, module, renames):
    """fpforge's Verilog of ``cfg`` with the top module called ``module`` and ports renamed (whole words)."""
    unit = build_unit(**cfg)
    text = to_verilog(unit, default_name(unit))
    text = re.sub(rf"\b{default_name(unit)}\b", module, text)
    for old, new in renames.items():
        text = re.sub(rf"(?<![\\$.\w]){old}\b", new, text)
    return text


def _no_flags(text):
    """The design without its ``flags`` output (the port, its declaration and its assignment)."""
    text = text.replace("(code, st, x_in)", "(code, x_in)").replace("(y, flags, a)", "(y, a)")
    text = re.sub(r"\n  output \[4:0\] st;", "", text)  # its `wire [4:0] st;` stays
    return text


@pytest.mark.sim
def test_renamed_encoder_proves_through_the_port_map_and_a_mutant_fails(tmp_path, capsys):
    text = _renamed(dict(unit="encoder", format="e4m3"), "my_enc", {"a": "x_in", "y": "code", "flags": "st"})
    assert text.count("module my_enc(code, st, x_in);") == 1 and "input [31:0] x_in;" in text
    good = tmp_path / "mine.v"
    good.write_text(text)
    argv = ["prove", "encoder", "-f", "e4m3", "--range", RANGE, "--jobs", "1", "--fresh"]
    rc = main([*argv, "--verilog", str(good), "--top", "my_enc", "--ports", "a=x_in,y=code,flags=st"])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "proving my_enc (file mine.v, module my_enc through a port map" in out
    assert "ports: a=x_in, y=code, flags=st" in out and "not checked" not in out and "not driven" not in out
    assert "1,048,576 vectors         0 mismatches" in out

    # the mutant: overflow one code early, and no flags output (so flags are not checked, and said so)
    assert len(re.findall(r"> 7'h7e;", text)) == 1, "the generated Verilog changed: pick another mutation"
    bad = tmp_path / "mutant.v"
    bad.write_text(_no_flags(text.replace("> 7'h7e;", "> 7'h7d;")))
    rc = main([*argv, "--verilog", str(bad), "--top", "my_enc", "--ports", "a=x_in,y=code"])
    out = capsys.readouterr().out
    assert rc == 1, out
    assert "not checked (my_enc has no such port): flags" in out
    assert "FAILED" in out and "a=0x43e00000 (448) rne sat=0: expected y=0x7e, got y=0x7f" in out


@pytest.mark.sim
@pytest.mark.slow
def test_an_input_the_design_lacks_is_not_driven(tmp_path, capsys):
    """A design without fpforge's `sat` port (it never saturates): proved under sat=0, refuted under sat=1."""
    text = _renamed(dict(unit="encoder", format="e4m3"), "nosat", {"a": "i", "y": "o"})
    path = tmp_path / "nosat.v"
    path.write_text(text)
    rc = main(["prove", "encoder", "-f", "e4m3", "--sat-port", "--range", RANGE, "--jobs", "1", "--fresh",
               "--verilog", str(path), "--top", "nosat", "--ports", "a=i,y=o"])
    out = capsys.readouterr().out
    assert rc == 1, out
    assert "not driven (nosat has no such port): sat" in out
    assert re.search(r"rne sat=0 +1,048,576 vectors +0 mismatches", out), out
    assert re.search(r"rne sat=1 +1,048,576 vectors +[1-9][\d,]* mismatches", out), out


EXPECTED = {"a": ("in", 32), "y": ("out", 8), "flags": ("out", 5), "sat": ("in", 1)}
ACTUAL = {"x": ("in", 32), "code": ("out", 8), "dbg": ("out", 3)}


def test_port_map_wrapper_text_and_notes():
    text, top, checked, notes = port_map_wrapper("u_enc", ACTUAL, EXPECTED, {"a": "x", "y": "code"})
    assert top == "u_enc__fpforge_ports" and checked == {"a": ("in", 32), "y": ("out", 8), "sat": ("in", 1)}
    assert "module u_enc__fpforge_ports (a, y, sat);" in text
    assert "u_enc u (.x(a), .code(y), .dbg());" in text and "input [0:0] sat;" in text
    assert notes == ("ports: a=x, y=code", "not driven (u_enc has no such port): sat",
                     "not checked (u_enc has no such port): flags",
                     "outputs of u_enc not compared (no port of fpforge's unit maps to them): dbg")
    # unnamed ports keep their names; the wrapper's name avoids the file's modules
    text, top, checked, _ = port_map_wrapper("m", {"a": ("in", 32), "y": ("out", 8)}, EXPECTED, {},
                                             taken=["m", "m__fpforge_ports"])
    assert top == "m__fpforge_ports_" and "m u (.a(a), .y(y));" in text and set(checked) == {"a", "y", "sat"}


@pytest.mark.parametrize("ports, actual, message", [
    ({"b": "x"}, ACTUAL, "port map b=x: fpforge's unit has no port 'b' (its ports: a (input of 32 bits), y"),
    ({"a": "nope"}, ACTUAL, "port map a=nope: module m has no port 'nope' (its ports: x (input of 32 bits)"),
    ({"a": "x", "y": "x"}, ACTUAL, "a and y both map to m's port 'x'"),
    ({"a": "x", "y": "dbg"}, ACTUAL, "port map y=dbg: m's dbg is an output of 3 bits, fpforge's y is an output of 8"),
    ({"a": "code"}, ACTUAL, "port map a=code: m's code is an output of 8 bits, fpforge's a is an input of 32 bits"),
    ({"y": "code"}, ACTUAL, "module m has input x that no port of fpforge's unit drives"),
    ({"a": "x"}, {"x": ("in", 32), "dbg": ("out", 3)}, "no port for any output of fpforge's unit (y, flags)"),
    ({}, {"x": ("in", 32), "y": ("out", 8)}, "module m has input x that no port"),
    ({}, {"y": ("out", 8)}, "module m has no port for fpforge's input a (input of 32 bits); map it with --ports"),
    ({}, {"a": ("in", 16), "y": ("out", 8)}, "port map a=a: m's a is an input of 16 bits, fpforge's a is an input "
                                             "of 32 bits"),
])
def test_port_map_errors(ports, actual, message):
    with pytest.raises(FpforgeValueError) as e:
        port_map_wrapper("m", actual, EXPECTED, ports)
    assert message in str(e.value)


def test_port_map_type_error():
    with pytest.raises(FpforgeTypeError, match="ports must be a dict"):
        port_map_wrapper("m", ACTUAL, EXPECTED, [("a", "x")])
    with pytest.raises(FpforgeTypeError, match="ports must be a dict"):
        ProofUnit.from_file(dict(unit="encoder", format="e4m3"), __file__, "m", {"a": 1})
