"""Bad inputs a new user tries, as data: command lines (``CLI_CASES``) and Python API calls (``API_CASES``).

Used by tests/test_cli_errors.py and tests/test_api_errors.py (each case must give one clear error) and by
tests/bad_input_table.py (the table of the reliability issue: tried / clear error / traceback / silent).

A CLI case is ``(id, argv, expected, setup)``: ``argv`` after ``fpforge``, with ``{dir}`` (an existing
directory), ``{file}`` (an existing text file), ``{badlib}`` (a file that is not a liberty) and ``{empty}`` (an
empty directory) and the files of ``PLACE_FILES`` (``{neglib}``, ...) substituted; ``expected`` is a substring of the one error line; ``setup`` sets
environment variables (same placeholders). An API case is ``(id, call, exception type, substring)``.
"""

from __future__ import annotations

import os

import ml_dtypes
import numpy as np

# -- command lines ----------------------------------------------------------------------------------------
_GLOBAL = [
    ("no-command", [], "required: COMMAND"),
    ("unknown-command", ["nope"], "invalid choice: 'nope'"),
    ("unknown-global-option", ["--bogus"], "required: COMMAND"),
    ("formats-extra-argument", ["formats", "extra"], "unrecognized arguments: extra"),
    ("formats-unknown-option", ["formats", "--bogus"], "unrecognized arguments: --bogus"),
]

_TABLE = [
    ("table-no-format", ["table"], "required: format"),
    ("table-unknown-format", ["table", "nope"], "unknown format 'nope'; valid formats:"),
    ("table-empty-format", ["table", ""], "unknown format ''"),
    ("table-bias-for-fixed-bias", ["table", "e4m3", "--bias", "3"], "has a fixed bias"),
    ("table-runtime-bias-missing", ["table", "cfloat8_143"], "give --bias B (0..63)"),
    ("table-bias-too-large", ["table", "cfloat8_143", "--bias", "64"], "--bias must be in 0..63, not 64"),
    ("table-bias-negative", ["table", "cfloat8_143", "--bias", "-1"], "--bias must be in 0..63, not -1"),
    ("table-bias-not-int", ["table", "cfloat8_143", "--bias", "x"], "invalid int value: 'x'"),
    ("table-bias-float", ["table", "cfloat8_143", "--bias", "1.5"], "invalid int value: '1.5'"),
    ("table-too-wide", ["table", "fp32"], "tables list formats of up to 16 bits"),
    ("table-block-format", ["table", "mx9"], "is a block format"),
    ("table-two-formats", ["table", "e4m3", "e5m2"], "table takes one format"),
    ("table-ranges-fixed-bias", ["table", "--ranges", "e4m3"], "fixed bias"),
    ("table-ranges-with-bias", ["table", "--ranges", "cfloat8_143", "--bias", "3"], "--ranges lists every bias"),
    ("table-summary-needs-bias", ["table", "--summary", "cfloat8_143"], "give --bias B"),
    ("table-summary-bias-no-runtime", ["table", "--summary", "e4m3", "--bias", "3"], "--bias applies to run-time"),
    ("table-ieee-denormals-e4m3", ["table", "e4m3", "--ieee-denormals"], "ieee_denormals applies to"),
    ("table-output-directory", ["table", "e4m3", "-o", "{dir}"], "is a directory"),
    ("table-output-missing-dir", ["table", "e4m3", "-o", "nodir/t.txt"], "does not exist"),
    ("table-output-parent-is-file", ["table", "e4m3", "-o", "{file}/t.txt"], "is not a directory"),
    ("table-output-empty", ["table", "e4m3", "-o", ""], "needs a file name"),
]

_PLOT = [
    ("plot-no-figure", ["plot"], "required: figure"),
    ("plot-unknown-figure", ["plot", "histogram", "-o", "x.png"], "invalid choice: 'histogram'"),
    ("plot-no-output", ["plot", "precision"], "required: -o/--output"),
    ("plot-bad-extension", ["plot", "precision", "-o", "x.jpg"], "must end in .png or .svg"),
    ("plot-empty-formats", ["plot", "precision", "-o", "x.png", "--formats", ""], "--formats names nothing"),
    ("plot-empty-item", ["plot", "precision", "-o", "x.png", "--formats", "e4m3,,e5m2"], "has an empty item"),
    ("plot-unknown-format", ["plot", "precision", "-o", "x.png", "--formats", "nope"], "unknown format 'nope'"),
    ("plot-runtime-bias-missing", ["plot", "precision", "-o", "x.png", "--formats", "cfloat8_143"], "give a bias"),
    ("plot-bias-too-large", ["plot", "precision", "-o", "x.png", "--bias", "99"], "--bias must be in 0..63"),
    ("plot-block-format", ["plot", "precision", "-o", "x.png", "--formats", "mx9"], "scalar format"),
    ("plot-bias-without-runtime-format", ["plot", "precision", "-o", "x.png", "--formats", "e4m3", "--bias", "3"],
     "--bias applies to run-time-bias formats"),
    ("plot-output-directory", ["plot", "precision", "-o", "{dir}.png"], "is a directory"),
    ("plot-output-missing-dir", ["plot", "precision", "-o", "nodir/x.png"], "does not exist"),
]

_QSNR = [
    ("qsnr-empty-formats", ["qsnr", "--formats", ""], "--formats names nothing"),
    ("qsnr-only-commas", ["qsnr", "--formats", ",,"], "has an empty item"),
    ("qsnr-unknown-format", ["qsnr", "--formats", "nope"], "unknown format 'nope'"),
    ("qsnr-one-unknown", ["qsnr", "--formats", "mx9,nope"], "unknown format 'nope'"),
    ("qsnr-zero-vectors", ["qsnr", "--vectors", "0"], "must be positive"),
    ("qsnr-negative-vectors", ["qsnr", "--vectors", "-5"], "must be positive"),
    ("qsnr-vectors-not-int", ["qsnr", "--vectors", "x"], "invalid int value: 'x'"),
    ("qsnr-zero-length", ["qsnr", "--length", "0"], "must be positive"),
    ("qsnr-length-not-block-multiple", ["qsnr", "--formats", "mxfp4_e2m1", "--length", "48"],
     "not a multiple of mxfp4_e2m1's block size 32"),
    ("qsnr-unknown-rounding", ["qsnr", "--formats", "e4m3", "--rounding", "foo"], "unknown rounding 'foo'"),
    ("qsnr-rounding-offered-by-none", ["qsnr", "--formats", "mx9", "--rounding", "hr"], "offers rounding 'hr'"),
    ("qsnr-too-many-values", ["qsnr", "--vectors", "100000", "--length", "100000"], "at most"),
    ("qsnr-seed-not-int", ["qsnr", "--seed", "x"], "invalid int value: 'x'"),
    ("qsnr-output-directory", ["qsnr", "--formats", "e4m3", "-o", "{dir}"], "is a directory"),
    ("qsnr-output-missing-dir", ["qsnr", "--formats", "e4m3", "-o", "nodir/q.txt"], "does not exist"),
    ("qsnr-json-output-directory", ["qsnr", "--formats", "e4m3", "--json", "-o", "{dir}"], "is a directory"),
]

_DOT_ERROR = [
    ("dot-error-empty-f", ["dot-error", "--f", ""], "--f names nothing"),
    ("dot-error-empty-f-item", ["dot-error", "--f", "8,,16"], "has an empty item"),
    ("dot-error-f-not-int", ["dot-error", "--formats", "mx9", "--f", "8,x"], "comma list of integers"),
    ("dot-error-f-too-small", ["dot-error", "--formats", "mx9", "--f", "4"], "must be an integer in 8..256, not 4"),
    ("dot-error-f-too-large", ["dot-error", "--formats", "mx9", "--f", "300"], "must be an integer in 8..256"),
    ("dot-error-r-not-multiple", ["dot-error", "--formats", "mx9", "--r", "20"], "multiple of k1 = 16"),
    ("dot-error-r-zero", ["dot-error", "--formats", "mx9", "--r", "0"], "positive multiple"),
    ("dot-error-r-negative", ["dot-error", "--formats", "mx9", "--r", "-16"], "positive multiple"),
    ("dot-error-zero-vectors", ["dot-error", "--formats", "mx9", "--vectors", "0"], "must be positive"),
    ("dot-error-too-many", ["dot-error", "--formats", "mx9", "--vectors", "10000000"], "at most"),
    ("dot-error-unknown-format", ["dot-error", "--formats", "nope"], "unknown dot-product operand format"),
    ("dot-error-source-format", ["dot-error", "--formats", "fp32"], "cannot be a dot-product operand"),
    ("dot-error-unsigned-format", ["dot-error", "--formats", "uhp"], "is unsigned"),
    ("dot-error-empty-formats", ["dot-error", "--formats", ""], "--formats names nothing"),
    ("dot-error-output-directory", ["dot-error", "--formats", "mx9", "--f", "16", "-o", "{dir}"], "is a directory"),
]

# Unit options: each row runs as `verilog ...`, `sim ...` and `synth ...` (rows marked "out" only with an
# output file: verilog and synth).
_UNIT = [
    ("no-unit", [], "required: unit"),
    ("unknown-unit", ["adder", "--format", "e4m3"], "invalid choice: 'adder'"),
    ("encoder-no-format", ["encoder"], "encoder needs --format"),
    ("unknown-format", ["encoder", "--format", "e9m9"], "unknown format 'e9m9'; valid formats:"),
    ("source-format-as-format", ["encoder", "--format", "fp32"], "is a source/target format"),
    ("block-format-scalar-unit", ["encoder", "--format", "mx9"], "is a block format; its units are"),
    ("scalar-format-block-unit", ["block-encoder", "--format", "e4m3"], "is a scalar format; its units are"),
    ("fp8-not-a-unit-format", ["encoder", "--format", "fp8"], "is a dot-product operand"),
    ("unknown-rounding", ["encoder", "--format", "e4m3", "--rounding", "foo"], "has no rounding 'foo'"),
    ("empty-rounding-item", ["encoder", "--format", "e4m3", "--rounding", "rne,,ta"], "has an empty item"),
    ("rounding-not-offered", ["encoder", "--format", "e4m3", "--rounding", "hr"], "valid choices: rne, ta, rtz, sr"),
    ("latency-negative", ["encoder", "--format", "e4m3", "--latency", "-1"], "latency must be an integer in 0..64"),
    ("latency-too-large", ["encoder", "--format", "e4m3", "--latency", "65"], "latency must be an integer in 0..64"),
    ("latency-not-int", ["encoder", "--format", "e4m3", "--latency", "x"], "invalid int value: 'x'"),
    ("rand-bits-zero", ["encoder", "--format", "e4m3", "--rounding", "sr", "--rand-bits", "0"],
     "rand_bits must be an integer in 1..32, not 0"),
    ("rand-bits-too-large", ["encoder", "--format", "e4m3", "--rounding", "sr", "--rand-bits", "33"],
     "rand_bits must be an integer in 1..32"),
    ("rand-bits-without-sr", ["encoder", "--format", "e4m3", "--rand-bits", "8"], "rand_bits applies to encoders"),
    ("seed-without-sr", ["encoder", "--format", "e4m3", "--seed", "3"], "seed applies to encoders"),
    ("seed-not-int", ["encoder", "--format", "e4m3", "--rounding", "sr", "--seed", "x"], "invalid int value"),
    ("saturate-and-sat-port", ["encoder", "--format", "e4m3", "--saturate", "--sat-port"], "choose one of"),
    ("unknown-source", ["encoder", "--format", "e4m3", "--source", "fp64"], "valid choices: fp32, fp16, bf16"),
    ("unknown-target", ["decoder", "--format", "e4m3", "--target", "int8"], "valid choices: fp32, fp16, bf16"),
    ("encoder-with-target", ["encoder", "--format", "e4m3", "--target", "fp16"], "does not take target"),
    ("decoder-with-source", ["decoder", "--format", "e4m3", "--source", "bf16"], "does not take source"),
    ("decoder-with-rounding", ["decoder", "--format", "e4m3", "--rounding", "rne"], "does not take rounding"),
    ("decoder-with-saturate", ["decoder", "--format", "e4m3", "--saturate"], "does not take saturate"),
    ("decoder-with-nan-to-zero", ["decoder", "--format", "e4m3", "--nan-to-zero"], "does not take nan_to_zero"),
    ("paper-literal-e5m2", ["encoder", "--format", "e5m2", "--paper-literal"], "paper_literal applies to HiF8"),
    ("paper-literal-without-hr", ["encoder", "--format", "hif8", "--paper-literal"], "applies to hybrid rounding"),
    ("ieee-denormals-e4m3", ["encoder", "--format", "e4m3", "--ieee-denormals"], "ieee_denormals applies to"),
    ("compat-unknown", ["encoder", "--format", "hif8", "--compat", "arm"], "invalid choice: 'arm'"),
    ("compat-empty", ["decoder", "--format", "hif8", "--compat", ""], "invalid choice: ''"),
    ("compat-not-hif8", ["encoder", "--format", "e4m3", "--compat", "ascend"], "compat='ascend' applies to HiF8"),
    ("compat-block-unit", ["block-encoder", "--format", "mx9", "--compat", "ascend"], "applies to HiF8"),
    ("compat-scaled-e5m2", ["scaled-encoder", "--format", "e5m2", "--compat", "ascend"], "applies to HiF8"),
    ("compat-dot", ["dot", "--preset", "mx9", "--r", "32", "--f", "16", "--compat", "ascend"],
     "does not take compat"),
    ("bdr-option-on-fp8", ["encoder", "--format", "e4m3", "--m", "3"], "apply to BDR formats"),
    ("bdr-missing-params", ["block-encoder", "--format", "bdr", "--m", "3"], "--format bdr needs"),
    ("bdr-m-too-large", ["block-encoder", "--format", "bdr", "--m", "30", "--k1", "16", "--d1", "8", "--k2", "2",
                         "--d2", "1"], "m (magnitude bits) must be an integer 1..24"),
    ("bdr-k2-not-divisor", ["block-encoder", "--format", "mx9", "--k2", "3"], "must divide k1 = 16, not 3"),
    ("bdr-d1-too-large", ["block-encoder", "--format", "mx9", "--d1", "9"], "d1 (shared exponent bits) must be"),
    ("bdr-d2-without-k2", ["block-encoder", "--format", "msfp12", "--d2", "1"], "has no sub-blocks"),
    ("bdr-k1-too-large", ["block-encoder", "--format", "bdr", "--m", "7", "--k1", "100000", "--d1", "8", "--k2",
                          "1", "--d2", "0"], "bits"),
    ("block-source-fp16", ["block-encoder", "--format", "mx9", "--source", "fp16"], "valid choices: fp32, bf16"),
    ("block-target-bf16", ["block-decoder", "--format", "mx9", "--target", "bf16"], "valid choices: fp32"),
    ("block-saturate", ["block-encoder", "--format", "mx9", "--saturate"], "does not take saturate"),
    ("block-decoder-rounding", ["block-decoder", "--format", "mx9", "--rounding", "ta"], "does not take rounding"),
    ("encoder-with-r", ["encoder", "--format", "e4m3", "--r", "4"], "does not take r"),
    ("encoder-with-preset", ["encoder", "--format", "e4m3", "--preset", "mx9"], "apply to dot units"),
    ("encoder-with-b-preset", ["encoder", "--format", "e4m3", "--b-preset", "mx9"], "apply to dot units"),
    ("encoder-with-stages", ["encoder", "--format", "e4m3", "--stages", "2"], "does not take stages"),
    ("dot-no-preset", ["dot", "--r", "16", "--f", "16"], "dot needs --preset"),
    ("dot-no-r-f", ["dot", "--preset", "mx9"], "dot needs --r"),
    ("dot-with-format", ["dot", "--format", "mx9", "--r", "32", "--f", "16"], "takes --preset"),
    ("dot-r-not-multiple", ["dot", "--preset", "mx9", "--r", "24", "--f", "16"], "multiple of k1 = 16"),
    ("dot-f-too-small", ["dot", "--preset", "mx9", "--r", "32", "--f", "6"], "must be an integer in 8..256, not 6"),
    ("dot-f-too-large", ["dot", "--preset", "mx9", "--r", "32", "--f", "300"], "must be an integer in 8..256"),
    ("dot-stages-negative", ["dot", "--preset", "mx9", "--r", "32", "--f", "16", "--stages", "-2"],
     "stages must be an integer in 0..64"),
    ("dot-stages-too-large", ["dot", "--preset", "mx9", "--r", "32", "--f", "16", "--stages", "65"],
     "stages must be an integer in 0..64"),
    ("dot-with-latency", ["dot", "--preset", "mx9", "--r", "32", "--f", "16", "--latency", "2"],
     "does not take latency"),
    ("dot-with-rounding", ["dot", "--preset", "mx9", "--r", "32", "--f", "16", "--rounding", "rne"],
     "does not take rounding"),
    ("dot-unknown-preset", ["dot", "--preset", "nope", "--r", "32", "--f", "16"],
     "unknown dot-product operand format"),
    ("dot-source-preset", ["dot", "--preset", "fp32", "--r", "32", "--f", "16"], "cannot be a dot-product operand"),
    ("dot-mixed-families", ["dot", "--preset", "mx9", "--b-preset", "mxfp8_e4m3", "--r", "32", "--f", "16"],
     "must be of one family"),
    ("dot-port-too-wide", ["dot", "--preset", "mx9", "--r", "1048576", "--f", "16"], "bits"),
    ("dot-bdr-options-on-e4m3", ["dot", "--preset", "e4m3", "--m", "3", "--r", "4", "--f", "16"],
     "apply to BDR formats"),
    # the dot epilogue (--scale --amax --out-format)
    ("dot-amax-combinational", ["dot", "--preset", "mx9", "--r", "16", "--f", "24", "--amax"], "give stages >= 1"),
    ("dot-out-format-block", ["dot", "--preset", "mx9", "--r", "16", "--f", "24", "--out-format", "mx9"],
     "scalar format of at most 8 bits"),
    ("dot-out-format-wide", ["dot", "--preset", "mx9", "--r", "16", "--f", "24", "--out-format", "shp"],
     "scalar format of at most 8 bits"),
    ("dot-out-format-source", ["dot", "--preset", "mx9", "--r", "16", "--f", "24", "--out-format", "bf16"],
     "scalar format of at most 8 bits"),
    ("dot-out-format-unknown", ["dot", "--preset", "mx9", "--r", "16", "--f", "24", "--out-format", "nope"],
     "unknown format 'nope'"),
    ("dot-out-format-fp8", ["dot", "--preset", "mx9", "--r", "16", "--f", "24", "--out-format", "fp8"],
     "unknown format 'fp8'"),
    ("dot-out-rounding-sr", ["dot", "--preset", "mx9", "--r", "16", "--f", "24", "--out-format", "e4m3", "--rounding",
                             "sr"], "no random source"),
    ("dot-out-rounding-two", ["dot", "--preset", "mx9", "--r", "16", "--f", "24", "--out-format", "e4m3",
                              "--rounding", "rne,rtz"], "rounds with one mode"),
    ("dot-out-rounding-unknown", ["dot", "--preset", "mx9", "--r", "16", "--f", "24", "--out-format", "e4m3",
                                  "--rounding", "hr"], "unknown rounding 'hr' for e4m3"),
    ("dot-no-saturate-without-cast", ["dot", "--preset", "mx9", "--r", "16", "--f", "24", "--scale",
                                      "--no-saturate"], "does not take saturate"),
    ("dot-sat-port", ["dot", "--preset", "mx9", "--r", "16", "--f", "24", "--out-format", "e4m3", "--sat-port"],
     "not 'runtime'"),
    ("encoder-out-format", ["encoder", "--format", "e4m3", "--out-format", "e5m2"], "--out-format applies to dot"),
    ("encoder-no-saturate", ["encoder", "--format", "e4m3", "--no-saturate"], "--no-saturate applies to a dot"),
    ("encoder-scale", ["encoder", "--format", "e4m3", "--scale"], "does not take scale"),
    ("scaled-encoder-amax", ["scaled-encoder", "--format", "e4m3", "--amax"], "does not take amax"),
    ("scaled-lanes-zero", ["scaled-encoder", "--format", "e4m3", "--lanes", "0"], "lanes must be an integer in 1..64"),
    ("scaled-latency-zero", ["scaled-encoder", "--format", "e4m3", "--latency", "0"],
     "latency must be an integer >= 1"),
    ("scaled-unknown-scaling", ["scaled-encoder", "--format", "e4m3", "--scaling", "e8m0"], "invalid choice: 'e8m0'"),
    ("scaled-target", ["scaled-encoder", "--format", "e4m3", "--target", "fp16"], "does not take target"),
    ("lanes-on-encoder", ["encoder", "--format", "e4m3", "--lanes", "2"], "does not take lanes"),
]
_UNIT_OUT = [
    ("dot-amax-io-registers", ["dot", "--preset", "mx9", "--r", "16", "--f", "24", "--amax", "--io-registers"],
     "give stages >= 1"),
    ("output-directory", ["encoder", "--format", "e4m3", "-o", "{dir}"], "is a directory"),
    ("output-missing-dir", ["encoder", "--format", "e4m3", "-o", "nodir/e.v"], "does not exist"),
    ("output-parent-is-file", ["encoder", "--format", "e4m3", "-o", "{file}/e.v"], "is not a directory"),
]
_VERILOG = [
    ("verilog-empty-name", ["verilog", "encoder", "--format", "e4m3", "--name", ""], "Verilog identifier"),
    ("verilog-name-digit", ["verilog", "encoder", "--format", "e4m3", "--name", "1abc"], "Verilog identifier"),
    ("verilog-name-dash", ["verilog", "encoder", "--format", "e4m3", "--name", "a-b"], "Verilog identifier"),
    ("verilog-io-registers-stream", ["verilog", "dot", "--preset", "mx9", "--r", "32", "--f", "16", "--stages", "1",
                                     "--io-registers"], "io_registers wraps the combinational unit"),
]
_SIM = [
    ("sim-unknown-simulator", ["sim", "encoder", "--format", "e4m3", "--simulator", "modelsim"],
     "invalid choice: 'modelsim'"),
    ("sim-zero-vectors", ["sim", "encoder", "--format", "e4m3", "--vectors", "0"], "vectors must be an integer in 1.."),
    ("sim-negative-vectors", ["sim", "encoder", "--format", "e4m3", "--vectors", "-1"], "vectors must be an integer"),
    ("sim-too-many-vectors", ["sim", "encoder", "--format", "e4m3", "--vectors", "20000000"],
     "vectors must be an integer in 1..10000000"),
    ("sim-vectors-for-decoder", ["sim", "decoder", "--format", "e4m3", "--vectors", "100"], "is checked on every code"),
    ("sim-vectors-for-fp16-source", ["sim", "encoder", "--format", "e4m3", "--source", "fp16", "--vectors", "100"],
     "65,536 fp16 patterns"),
    ("sim-biases-out-of-range", ["sim", "decoder", "--format", "cfloat8_143", "--biases", "1,99"],
     "--biases takes integers in 0..63"),
    ("sim-biases-not-int", ["sim", "decoder", "--format", "cfloat8_143", "--biases", "x"],
     "--biases takes a comma list"),
    ("sim-biases-empty", ["sim", "decoder", "--format", "cfloat8_143", "--biases", ""], "--biases takes a comma list"),
    ("sim-biases-fixed-bias", ["sim", "decoder", "--format", "e4m3", "--biases", "1,2"], "--biases applies to"),
    ("sim-io-registers", ["sim", "dot", "--preset", "mx9", "--r", "32", "--f", "16", "--io-registers"],
     "--io-registers is for area reports"),
    ("sim-name", ["sim", "encoder", "--format", "e4m3", "--name", "x"], "--name sets the module name"),
    ("sim-seed-vectors-not-int", ["sim", "encoder", "--format", "e4m3", "--seed-vectors", "x"], "invalid int value"),
    ("sim-build-dir-is-file", ["sim", "encoder", "--format", "e4m3", "--build-dir", "{file}"], "is not a directory"),
    ("sim-icarus-missing", ["sim", "decoder", "--format", "e4m3", "--simulator", "icarus"],
     "icarus: iverilog and vvp not found; apt-get install iverilog", {"PATH": "{empty}"}),
    ("sim-verilator-missing-tools", ["sim", "decoder", "--format", "e4m3", "--simulator", "verilator"],
     "verilator needs g++, make, perl on the host; apt-get install g++ make perl", {"PATH": "{empty}"}),
    ("sim-all-missing", ["sim", "decoder", "--format", "e4m3", "--simulator", "all"], "no simulator available",
     {"PATH": "{empty}"}),
]
_SYNTH = [
    ("synth-liberty-missing", ["synth", "encoder", "--format", "e4m3", "--liberty", "/nonexistent/x.lib"],
     "liberty file not found"),
    ("synth-liberty-directory", ["synth", "encoder", "--format", "e4m3", "--liberty", "{dir}"],
     "liberty path is not a file"),
    ("synth-liberty-malformed", ["synth", "encoder", "--format", "e4m3", "--liberty", "{badlib}"], "malformed liberty"),
    ("synth-yosys-missing", ["synth", "encoder", "--format", "e4m3"], "is not an executable yosys",
     {"FPFORGE_YOSYS": "/nonexistent/yosys"}),
]
_SCALE = [
    ("scale-no-format", ["scale"], "required: --format"),
    ("scale-zero-scale", ["scale", "--format", "e4m3", "--scale", "0"], "scale must be finite and positive"),
    ("scale-negative-amax", ["scale", "--format", "e4m3", "--amax", "-1"], "amax must be >= 0"),
    ("scale-nothing-to-do", ["scale", "--format", "e4m3"], "give --amax A, --scale S or --values"),
    ("scale-values-not-numbers", ["scale", "--format", "e4m3", "--values", "x"], "--values takes numbers"),
    ("scale-empty-values", ["scale", "--format", "e4m3", "--values", ""], "--values names no value"),
    ("scale-amax-and-scale", ["scale", "--format", "e4m3", "--amax", "1", "--scale", "2"], "not allowed with"),
    ("scale-runtime-bias-missing", ["scale", "--format", "cfloat8_143", "--amax", "3"], "give --bias B"),
    ("scale-block-format", ["scale", "--format", "mx9", "--amax", "1"], "applies to scalar formats"),
    ("scale-rounding-without-values", ["scale", "--format", "e4m3", "--amax", "1", "--rounding", "foo"],
     "apply to the casts of --values"),
    ("scaling-demo-unknown-format", ["scaling-demo", "--format", "nope"], "unknown format 'nope'"),
    ("scaling-demo-zero-steps", ["scaling-demo", "--steps", "0"], "steps must be a positive integer"),
    ("scaling-demo-negative-steps", ["scaling-demo", "--steps", "-1"], "steps must be a positive integer"),
    ("scaling-demo-zero-size", ["scaling-demo", "--size", "0"], "size must be a positive integer"),
    ("scaling-demo-figure-extension", ["scaling-demo", "--figure", "x.jpg"], "must end in .png or .svg"),
    ("scaling-demo-figure-directory", ["scaling-demo", "--figure", "{dir}.png"], "is a directory"),
    ("scaling-demo-empty-histories", ["scaling-demo", "--histories", ""], "--histories names no value"),
    ("scaling-demo-rounding-values", ["scaling-demo", "--rounding-values", "10"], "at least 4096"),
    ("scaling-demo-runtime-bias-missing", ["scaling-demo", "--format", "cfloat8_143"], "give --bias B"),
]
_PROVE = [
    ("prove-no-unit", ["prove"], "required: unit"),
    ("prove-no-format", ["prove", "encoder"], "encoder needs --format"),
    ("prove-block-format", ["prove", "encoder", "--format", "mx9"], "handles scalar narrow formats"),
    ("prove-stream", ["prove", "encoder", "--format", "e4m3", "--latency", "1"], "combinational units"),
    ("prove-bad-range", ["prove", "encoder", "--format", "e4m3", "--range", "x"], "--range"),
    ("prove-all-with-format", ["prove", "all", "--format", "e4m3"], "--format"),
    ("prove-only-without-all", ["prove", "encoder", "--format", "e4m3", "--only", "e4m3"],
     "apply to `fpforge prove all`"),
    ("prove-bias-fixed-format", ["prove", "encoder", "--format", "e4m3", "--bias", "3"], "--bias applies to"),
    ("prove-jobs-zero", ["prove", "encoder", "--format", "e4m3", "--jobs", "0"], "jobs"),
    ("prove-missing-verilog", ["prove", "encoder", "--format", "e4m3", "--verilog", "nope.v"], "nope.v"),
    ("prove-compat-not-hif8", ["prove", "encoder", "--format", "e5m2", "--compat", "ascend"], "applies to HiF8"),
    ("prove-compat-unknown", ["prove", "decoder", "--format", "hif8", "--compat", "arm"], "invalid choice: 'arm'"),
    ("prove-all-compat", ["prove", "all", "--compat", "ascend"], "not --compat"),
]
_SWEEP = [
    ("sweep-no-space", ["sweep"], "required: SPACE"),
    ("sweep-unknown-space", ["sweep", "nope"], "unknown space 'nope'"),
    ("sweep-missing-toml", ["sweep", "nodir/space.toml"], "unknown space"),
    ("sweep-area-table-vectors", ["sweep", "area-fp8", "--vectors", "5"], "is an area table"),
    ("sweep-zero-vectors", ["sweep", "small", "--vectors", "0"], "--vectors must be >= 1"),
]
# Class 8 of issue 30: re-reading a sweep from its CSV, the INT/FP8 scale-bit reading.
_SWEEP_CSV = [
    ("sweep-from-csv-missing", ["sweep", "paper", "--from-csv", "nodir/paper.csv"], "no such file 'nodir/paper.csv'"),
    ("sweep-from-csv-directory", ["sweep", "paper", "--from-csv", "{dir}"], "is not a file"),
    ("sweep-from-csv-not-a-sweep", ["sweep", "paper", "--from-csv", "{file}", "--claims"], "not a sweep CSV: no column"),
    ("sweep-from-csv-with-vectors", ["sweep", "paper", "--from-csv", "{file}", "--vectors", "5"],
     "--from-csv re-reads measured points: --vectors"),
    ("sweep-from-csv-with-jobs", ["sweep", "paper", "--from-csv", "{file}", "--jobs", "2"], "--jobs apply to a sweep"),
    ("sweep-from-csv-area-space", ["sweep", "area-fp8", "--from-csv", "{file}"], "is an area table"),
    ("sweep-from-csv-unknown-space", ["sweep", "nope", "--from-csv", "{file}"], "unknown space 'nope'"),
    ("sweep-count-scale-bits-area", ["sweep", "area-fp8", "--count-scale-bits"], "--count-scale-bits apply to"),
    ("sweep-count-scale-bits-value", ["sweep", "paper", "--count-scale-bits=yes"], "ignored explicit argument"),
]

def _space_files(cases):
    """Sweep command lines on space files: ``(id, TOML text, expected)`` -> CLI rows; the files are written
    once into a private temporary directory (removed at exit), outside the tests' working directory."""
    import atexit
    import shutil
    import tempfile

    root = tempfile.mkdtemp(prefix="fpforge-bad-spaces-")
    atexit.register(shutil.rmtree, root, True)
    rows = []
    for ident, text, expected in cases:
        path = os.path.join(root, f"{ident}.toml")
        with open(path, "w") as f:
            f.write(text)
        rows.append((ident, ["sweep", path], expected))
    return rows


_SPACE_HEAD = 'name = "s"\n[dot]\nr = 16\n'
_SPACE_FILE = _space_files([
    ("space-grid-not-tables", 'grid = 5\n' + _SPACE_HEAD, "grid: must be an array of tables [[grid]], not 5"),
    ("space-points-string", 'points = "mx9"\n' + _SPACE_HEAD, "points: must be an array of tables [[points]]"),
    ("space-description-int", 'description = 5\n' + _SPACE_HEAD + '[[points]]\npreset = "mx9"\n',
     "description: must be a string, not 5 (an integer)"),
    ("space-liberty-int", _SPACE_HEAD + '[synth]\nliberty = 5\n[[points]]\npreset = "mx9"\n',
     "[synth] liberty: must be a path (a string), not 5"),
    ("space-f-uppercase", 'name = "s"\n[dot]\nr = 16\nf = "AUTO"\n[[points]]\npreset = "mx9"\n',
     "[dot] f: 'AUTO' is spelled 'auto'"),
    ("space-flow-capitalized", _SPACE_HEAD + '[synth]\nflow = "Reuse"\n[[points]]\npreset = "mx9"\n',
     "[synth] flow: 'Reuse' is spelled 'reuse' (names are lowercase"),
    ("space-preset-uppercase", _SPACE_HEAD + '[[points]]\npreset = "MX9"\n', "[[points]] #1 preset: 'MX9' is spelled"),
    ("space-family-uppercase", _SPACE_HEAD + '[[grid]]\nfamily = "INT"\nm = [3]\n',
     "[[grid]] #1 family: 'INT' is spelled 'int'"),
    ("space-k1-not-dividing-vectors", _SPACE_HEAD + '[[grid]]\nm = [2]\nk1 = [48]\nk2 = [2]\nd2 = [1]\n',
     "[[grid]] #1 k1: 48 does not divide the QSNR vector length 256 (valid: 1, 2, 4, 8, 16, 32"),
    ("space-k1-not-dividing-r", 'name = "s"\n[dot]\nr = 24\n[[grid]]\nm = [2]\nk1 = [16]\nk2 = [2]\nd2 = [1]\n',
     "[[grid]] #1 k1: 16 does not divide [dot] r = 24"),
    ("space-k2-not-dividing-k1", _SPACE_HEAD + '[[grid]]\nm = [2]\nk1 = [16]\nk2 = [3]\nd2 = [1]\n',
     "[[grid]] #1 k2: 3 gives no point"),
    ("space-k1-zero", _SPACE_HEAD + '[[grid]]\nm = [2]\nk1 = [0]\nk2 = [2]\nd2 = [1]\n',
     "[[grid]] #1 k1: 0: a block holds at least one value"),
    ("space-m-zero", _SPACE_HEAD + '[[points]]\nm = 0\nk1 = 16\n', "[[points]] #1 m: 0 is out of range (valid: 1..24)"),
    ("space-int-grid-k1", _SPACE_HEAD + '[[grid]]\nfamily = "int"\nm = [3]\nk1 = [16]\n',
     "[[grid]] #1 k1: family int takes only m"),
    ("space-int-point-k2", _SPACE_HEAD + '[[points]]\nfamily = "int"\nm = 3\nk2 = 2\n',
     "[[points]] #1 k2: family int takes only m"),
    ("space-unknown-table", _SPACE_HEAD + '[plot]\nx = 1\n[[points]]\npreset = "mx9"\n', "plot: unknown table or key"),
    ("space-unknown-key", 'name = "s"\n[dot]\nr = 16\nk1 = 16\n[[points]]\npreset = "mx9"\n',
     "[dot] k1: unknown key (valid: r, f)"),
    ("space-vectors-too-many", _SPACE_HEAD + '[qsnr]\nvectors = 1000000\n[[points]]\npreset = "mx9"\n',
     "[qsnr] vectors: 1000000 is out of range"),
])
_LINT = [
    ("lint-no-files", ["lint"], "required: FILE"),
    ("lint-missing-file", ["lint", "nope.v"], "cannot lint 'nope.v': no such file"),
    ("lint-directory", ["lint", "{dir}"], "not a regular file"),
    ("lint-perl-missing", ["lint", "{file}"], "verilator needs perl", {"PATH": "{empty}"}),
]
_CLEAN = [
    ("clean-unknown-kind", ["clean", "nokind"], "no nokind in the cache"),
    ("clean-unknown-option", ["clean", "--bogus"], "unrecognized arguments: --bogus"),
    ("clean-foreign-directory", ["clean"], "does not look like fpforge's cache", {"FPFORGE_CACHE": "{dir}"}),
    ("clean-cache-is-file", ["clean"], "is not a directory", {"FPFORGE_CACHE": "{file}"}),
]
# unclear messages (issue 30, class 6): each way a --range misses has its own message; a value starting with
# "-" and a digit reaches its option's check; argparse errors name the subcommand once; no internal names
_MSGS = [
    ("prove-range-reversed", ["prove", "encoder", "--format", "e4m3", "--range", "5:3"],
     "'5:3' is reversed: END 3 is before START 5"),
    ("prove-range-empty", ["prove", "encoder", "--format", "e4m3", "--range", "3:3"], "'3:3' is empty"),
    ("prove-range-negative", ["prove", "encoder", "--format", "e4m3", "--range", "-1:5"],
     "START must be >= 0, not -1"),
    ("prove-range-negative-count", ["prove", "encoder", "--format", "e4m3", "--range", "-1:+5"],
     "START must be >= 0, not -1"),
    ("prove-range-negative-end", ["prove", "encoder", "--format", "e4m3", "--range", "0:-3"],
     "END must be >= 0, not -3"),
    ("prove-range-zero-count", ["prove", "encoder", "--format", "e4m3", "--range", "5:+0"],
     "COUNT must be positive, not 0"),
    ("prove-range-past-end", ["prove", "encoder", "--format", "e4m3", "--source", "fp16", "--range", "0:0x10001"],
     "END 0x10001 is past the end of the input patterns (the unit's input patterns are 0:0x10000)"),
    ("prove-range-start-past-end", ["prove", "encoder", "--format", "e4m3", "--source", "fp16", "--range",
                                    "0x10000:"], "START 0x10000 is past the last input pattern"),
    ("prove-range-three-parts", ["prove", "encoder", "--format", "e4m3", "--range", "1:2:3"],
     "--range takes START:END or START:+COUNT of integers"),
    ("prove-jobs-not-int", ["prove", "encoder", "--format", "e4m3", "--jobs", "x"],
     "error: prove: argument --jobs: invalid int value: 'x'"),
    ("sim-biases-negative", ["sim", "decoder", "--format", "cfloat8_143", "--biases", "-1,3"],
     "--biases takes integers in 0..63, not '-1,3'"),
    ("dot-error-f-negative-list", ["dot-error", "--formats", "mx9", "--f", "-8,16"], "must be an integer in 8..256"),
    ("top-level-unrecognized", ["formats", "extra"], "error: unrecognized arguments: extra"),
    ("verilog-name-dash-value", ["verilog", "encoder", "--format", "e4m3", "--name", "-x"],
     "verilog: argument --name: expected one argument (give a value; one that starts with '-' is written "
     "--name=VALUE)"),
    ("table-output-no-value", ["table", "e4m3", "-o"], "written --output=VALUE"),
    ("plot-block-format-named", ["plot", "precision", "-o", "x.png", "--formats", "e4m3,mx9"],
     "the precision plot takes scalar formats (e.g. --formats hif8,e4m3,e5m2,fp16); 'mx9' is a block format"),
]

# The environment is input (FPFORGE_CACHE, XDG_CACHE_HOME, HOME, TMPDIR; tests/test_env_cache.py has the full fuzz).
_ENV_CASES = [
    ("env-cache-is-file-sim", ["sim", "decoder", "--format", "e4m3"], "FPFORGE_CACHE={file}: cannot use",
     {"FPFORGE_CACHE": "{file}"}),
    ("env-cache-is-file-sweep", ["sweep", "small"], "FPFORGE_CACHE={file}: cannot use", {"FPFORGE_CACHE": "{file}"}),
    ("env-cache-is-file-prove", ["prove", "encoder", "--format", "e4m3"], "FPFORGE_CACHE={file}: cannot use",
     {"FPFORGE_CACHE": "{file}"}),
    ("env-cache-missing-parent-prove-all", ["prove", "all"], "does not exist",
     {"FPFORGE_CACHE": "{dir}/nodir/cache"}),
    ("env-cache-under-file-report", ["report", "proofs"], "is not a directory", {"FPFORGE_CACHE": "{file}/cache"}),
    ("env-xdg-is-file-verilog", ["verilog", "decoder", "--format", "e4m3"], "XDG_CACHE_HOME={file}: cannot use",
     {"FPFORGE_CACHE": "", "XDG_CACHE_HOME": "{file}"}),
    ("env-xdg-is-file-synth", ["synth", "decoder", "--format", "e4m3"], "XDG_CACHE_HOME={file}: cannot use",
     {"FPFORGE_CACHE": "", "XDG_CACHE_HOME": "{file}"}),
    ("env-home-missing-sim", ["sim", "encoder", "--format", "e5m2"], "HOME={dir}/nohome: cannot use",
     {"FPFORGE_CACHE": "", "XDG_CACHE_HOME": "", "HOME": "{dir}/nohome"}),
    ("env-tmpdir-missing-sweep", ["sweep", "area-fp8"], "TMPDIR={dir}/notmp: cannot use", {"TMPDIR": "{dir}/notmp"}),
]

# --window-bits (the dot unit's f; --f is its alias, not to be confused with -f/--format) (issue 32).
_WINDOW_BITS_CASES = [
    ("dot-window-bits-too-small", ["verilog", "dot", "--preset", "mx9", "--r", "32", "--window-bits", "6"],
     "must be an integer in 8..256, not 6"),
    ("dot-window-bits-not-int", ["synth", "dot", "--preset", "mx9", "--r", "32", "--window-bits", "x"],
     "--window-bits/--f: invalid int value: 'x'"),
    ("dot-window-bits-missing", ["verilog", "dot", "--preset", "mx9", "--r", "32"],
     "dot needs --r (elements per dot product) and --window-bits (alias --f; 8..256)"),
    ("dot-error-window-bits-empty", ["dot-error", "--window-bits", ""], "--window-bits/--f names nothing"),
    ("dot-error-window-bits-too-large", ["dot-error", "--window-bits", "8,512"], "8..256"),
]


# Timing and power (issue 28): `synth --clock-ns/--power/--activity/--netlist-out`, named liberties. Each fails
# before the library, OpenSTA or yosys is needed where it can, so the cases hold where osu018 is not installed.
_PPA_SYNTH = ["synth", "encoder", "-f", "e4m3"]
_PPA_CASES = [
    ("synth-clock-zero", [*_PPA_SYNTH, "--liberty", "osu018", "--clock-ns", "0"], "finite number of ns > 0, not '0'"),
    ("synth-clock-negative", [*_PPA_SYNTH, "--clock-ns", "-2"], "finite number of ns > 0, not '-2'"),
    ("synth-clock-nan", [*_PPA_SYNTH, "--clock-ns", "nan"], "finite number of ns > 0, not 'nan'"),
    ("synth-clock-inf", [*_PPA_SYNTH, "--clock-ns", "inf"], "finite number of ns > 0, not 'inf'"),
    ("synth-clock-minus-inf", [*_PPA_SYNTH, "--clock-ns=-inf"], "finite number of ns > 0, not '-inf'"),
    ("synth-clock-not-a-number", [*_PPA_SYNTH, "--clock-ns", "fast"], "a number of ns > 0, not 'fast'"),
    ("synth-clock-area-only-liberty", [*_PPA_SYNTH, "--clock-ns", "2"], "fpforge45.lib has no timing tables"),
    ("synth-power-area-only-liberty", [*_PPA_SYNTH, "--liberty", "fpforge45", "--clock-ns", "2", "--power"],
     "fpforge45.lib has no timing tables"),
    ("synth-clock-not-a-liberty", [*_PPA_SYNTH, "--liberty", "{badlib}", "--clock-ns", "2"], "malformed liberty"),
    ("synth-clock-liberty-missing", [*_PPA_SYNTH, "--liberty", "nodir/x.lib", "--clock-ns", "2"],
     "liberty file not found: 'nodir/x.lib'"),
    ("synth-liberty-unknown-name", [*_PPA_SYNTH, "--liberty", "osu18"],
     "unknown liberty 'osu18'; valid names: fpforge45, osu018"),
    ("synth-liberty-osu018-not-installed", [*_PPA_SYNTH, "--liberty", "osu018", "--clock-ns", "2"],
     "liberty osu018 (the OSU 0.18 um cells of Debian's qflow-tech-osu018) is not installed", {"FPFORGE_TECH": "{empty}"}),
    ("synth-power-without-clock", [*_PPA_SYNTH, "--liberty", "osu018", "--power"], "--power needs --clock-ns T"),
    ("synth-activity-workload", ["synth", "block-encoder", "-f", "mx6", "--clock-ns", "2", "--power", "--activity",
                                 "workload"], "--activity workload: no workload for a block-encoder unit"),
    ("synth-activity-unknown", [*_PPA_SYNTH, "--clock-ns", "2", "--power", "--activity", "toggles"],
     "unknown --activity 'toggles'; valid: vectorless, workload"),
    ("synth-activity-without-power", [*_PPA_SYNTH, "--clock-ns", "2", "--activity", "vectorless"],
     "--activity applies to --power"),
    ("synth-power-liberty-without-power-tables", [*_PPA_SYNTH, "--liberty", "{timelib}", "--clock-ns", "2", "--power"],
     "timelib.lib has no internal_power tables"),
    ("synth-sta-missing", [*_PPA_SYNTH, "--liberty", "{timelib}", "--clock-ns", "2"],
     "is not an executable OpenSTA `sta`", {"FPFORGE_STA": "{dir}/nosta"}),
    ("synth-netlist-out-directory", [*_PPA_SYNTH, "--netlist-out", "{dir}"], "is a directory"),
    ("synth-netlist-out-missing-dir", [*_PPA_SYNTH, "--netlist-out", "nodir/n.v"], "does not exist"),
    ("synth-netlist-out-stdout", [*_PPA_SYNTH, "--netlist-out", "-"], "--netlist-out needs a file name"),
    ("synth-netlist-out-is-output", [*_PPA_SYNTH, "--netlist-out", "r.txt", "-o", "r.txt"],
     "--netlist-out and -o are the same file"),
    ("prove-netlist-liberty-unknown-name", ["prove", "decoder", "-f", "e4m3", "--netlist", "--liberty", "osu18"],
     "unknown liberty 'osu18'; valid names: fpforge45, osu018"),
]

# `fpforge verilog ... --fusesoc DIR` (issue 31, item 3): DIR unusable, or given with -o; nothing is written.
_FUSESOC_V = ["verilog", "encoder", "-f", "e4m3"]
_FUSESOC_P = ["prove", "encoder", "-f", "e4m3", "--range", "0:16", "--jobs", "1", "--verilog"]
_FUSESOC_CASES = [
    ("fusesoc-dir-is-file", [*_FUSESOC_V, "--fusesoc", "{file}"], "not a directory (give a directory for the .v"),
    ("fusesoc-missing-parent", [*_FUSESOC_V, "--fusesoc", "nodir/cores"], "does not exist"),
    ("fusesoc-parent-is-file", [*_FUSESOC_V, "--fusesoc", "{file}/cores"], "is not a directory"),
    ("fusesoc-empty-dir-name", [*_FUSESOC_V, "--fusesoc", ""], "--fusesoc needs a directory name"),
    ("fusesoc-with-output", [*_FUSESOC_V, "--fusesoc", "cores", "-o", "x.v"], "choose one of -o"),
    ("fusesoc-no-value", [*_FUSESOC_V, "--fusesoc"], "--fusesoc: expected one argument"),
    ("fusesoc-bad-format", ["verilog", "encoder", "-f", "e9m9", "--fusesoc", "cores"], "unknown format 'e9m9'"),
    ("fusesoc-keyword-name", [*_FUSESOC_V, "--name", "module", "--fusesoc", "cores"], "keyword"),
    # `fpforge prove --verilog FILE --top NAME --ports ...` (issue 31, item 2); {uencv}: module uenc (PLACE_FILES)
    ("prove-ports-missing-file", [*_FUSESOC_P, "nodir/x.v", "--ports", "a=x"], "'nodir/x.v': no such file"),
    ("prove-top-no-module", [*_FUSESOC_P, "{uencv}", "--top", "nope", "--ports", "a=x"],
     "defines no module 'nope' (it defines uenc)"),
    ("prove-top-not-verilog", [*_FUSESOC_P, "{file}", "--top", "uenc"], "defines no module 'uenc' (it defines no module)"),
    ("prove-ports-unknown-design-port", [*_FUSESOC_P, "{uencv}", "--top", "uenc", "--ports", "a=nope,y=code"],
     "port map a=nope: module uenc has no port 'nope' (its ports: code (output of 8 bits), dbg (output of 3 "
     "bits), x (input of 32 bits))"),
    ("prove-ports-unknown-unit-port", [*_FUSESOC_P, "{uencv}", "--ports", "a=x,code=code"],
     "port map code=code: fpforge's unit has no port 'code' (its ports: a (input of 32 bits)"),
    ("prove-ports-width-mismatch", [*_FUSESOC_P, "{uencv}", "--ports", "a=x,y=dbg"],
     "port map y=dbg: uenc's dbg is an output of 3 bits, fpforge's y is an output of 8 bits"),
    ("prove-ports-direction-mismatch", [*_FUSESOC_P, "{uencv}", "--ports", "a=code,y=x"],
     "port map a=code: uenc's code is an output of 8 bits, fpforge's a is an input of 32 bits"),
    ("prove-ports-input-undriven", [*_FUSESOC_P, "{uencv}", "--ports", "y=code"],
     "module uenc has input x that no port of fpforge's unit drives"),
    ("prove-ports-same-design-port", [*_FUSESOC_P, "{uencv}", "--ports", "a=x,y=x"], "a and y both map to uenc's port"),
    ("prove-ports-not-a-pair", [*_FUSESOC_P, "{uencv}", "--ports", "a"], "--ports item 'a' is not UNIT_PORT=USER_PORT"),
    ("prove-ports-empty", [*_FUSESOC_P, "{uencv}", "--ports", ""], "--ports names nothing"),
    ("prove-ports-twice", [*_FUSESOC_P, "{uencv}", "--ports", "a=x,a=code"], "--ports maps a twice"),
    ("prove-ports-without-verilog", ["prove", "encoder", "-f", "e4m3", "--ports", "a=x"],
     "--top and --ports apply to --verilog FILE"),
    ("prove-top-and-name-differ", [*_FUSESOC_P, "{uencv}", "--top", "uenc", "--name", "other"],
     "--top 'uenc' and --name 'other' name different modules"),
    ("prove-top-not-identifier", [*_FUSESOC_P, "{uencv}", "--top", "9x"], "module name must be a Verilog identifier"),
]

#: Files the silent-results cases read (``{neglib}``, ``{zerolib}``): liberties that parse but whose areas would
#: make every report wrong (written by the test fixture and bad_input_table.py beside ``{badlib}``).
_NAND = 'cell (NAND2_X1) { area : 0.8 ; pin (A1) { direction : input ; } pin (A2) { direction : input ; }\n' \
        '  pin (ZN) { direction : output ; function : "!(A1 & A2)" ; } }\n'
PLACE_FILES = {
    "neglib": "library (neg) {\n" + _NAND + ' cell (INV_X1) { area : -0.5 ; pin (A) { direction : input ; }\n'
              '  pin (ZN) { direction : output ; function : "!A" ; } }\n}\n',
    "zerolib": "library (zero) {\n" + _NAND + ' cell (INV_X1) { area : 0 ; pin (A) { direction : input ; }\n'
               '  pin (ZN) { direction : output ; function : "!A" ; } }\n}\n',
    # timing tables (a buffer with a delay) but no power data: --clock-ns gets past the library, --power not
    "timelib": 'library (timelib) {\n capacitive_load_unit (1, pf) ;\n cell (BUF) { area : 1 ;\n'
               '  pin (A) { direction : input ; capacitance : 0.01 ; }\n  pin (Y) { direction : output ; '
               'function : "A" ;\n   timing () { related_pin : "A" ; cell_rise (scalar) { values ("0.1") ; } } } }\n}\n',
    # a user's encoder with its own port names (the prover's --ports cases; the file is uencv.lib)
    "uencv": "module uenc(input [31:0] x, output [7:0] code, output [2:0] dbg);\n  assign code = x[7:0];\n"
             "  assign dbg = 3'd0;\nendmodule\n",
}

# Silent or odd results (issue 30, class 4) and tracebacks (class 5): seeds beyond 32 bits, comma lists with
# empty items, module names that collide, --spec-json skipping checks, block formats in --summary, ...
_SILENT = [
    ("scaling-demo-unsigned-format", ["scaling-demo", "--format", "uhp", "--steps", "2", "--size", "16"],
     "uhp is unsigned"),
    ("scaling-demo-seed-too-large", ["scaling-demo", "--seed", "4294967296"], "a seed is an integer in 0..4294967295"),
    ("scaling-demo-seed-negative", ["scaling-demo", "--seed", "-1"], "a seed is an integer in 0..4294967295"),
    ("scaling-demo-histories-empty-item", ["scaling-demo", "--histories", "1,,16"], "--histories '1,,16' has an "
     "empty item"),
    ("scaling-demo-margins-trailing-comma", ["scaling-demo", "--margins", "0,"], "has an empty item"),
    ("scale-values-empty-item", ["scale", "-f", "e4m3", "--values", "1,,2"], "--values '1,,2' has an empty item"),
    ("scale-values-trailing-comma", ["scale", "-f", "e4m3", "--values", "1,2,"], "has an empty item"),
    ("scale-amax-two-commas", ["scale", "-f", "e4m3", "--amax", ",7"], "has an empty item"),
    ("qsnr-seed-too-large", ["qsnr", "--seed", "4294967296"], "a seed is an integer in 0..4294967295"),
    ("qsnr-seed-negative", ["qsnr", "--seed", "-1"], "a seed is an integer in 0..4294967295"),
    ("dot-error-seed-too-large", ["dot-error", "--seed", str(2**40)], "a seed is an integer in 0..4294967295"),
    ("sim-seed-vectors-too-large", ["sim", "decoder", "-f", "e4m3", "--seed-vectors", "4294967296"],
     "a seed is an integer in 0..4294967295"),
    ("sweep-seed-too-large", ["sweep", "small", "--seed", "4294967296"], "a seed is an integer in 0..4294967295"),
    ("verilog-seed-too-large", ["verilog", "encoder", "-f", "e4m3", "--rounding", "sr", "--seed", "4294967301"],
     "a seed is an integer in 0..4294967295"),
    ("prove-seed-negative", ["prove", "encoder", "-f", "e4m3", "--rounding", "sr", "--seed", "-5"],
     "a seed is an integer in 0..4294967295"),
    ("table-summary-block-format", ["table", "--summary", "mx9"], "'mx9' is a block format"),
    ("table-ranges-block-format", ["table", "--ranges", "mx9"], "'mx9' has a fixed bias"),
    ("table-summary-block-among-scalars", ["table", "--summary", "e4m3", "mxfp8_e4m3"], "is a block format"),
    ("verilog-name-is-a-port", ["verilog", "encoder", "-f", "e4m3", "--name", "a"], "is also the name of a signal"),
    ("verilog-name-is-the-rand-port", ["verilog", "encoder", "-f", "e4m3", "--rounding", "sr", "--name", "rand"],
     "is a Verilog/SystemVerilog keyword"),
    ("verilog-name-is-clk", ["verilog", "decoder", "-f", "e5m2", "--latency", "1", "--name", "clk"],
     "is also the name of a signal"),
    ("verilog-name-is-an-internal-wire", ["verilog", "encoder", "-f", "e4m3", "--name", "exp"],
     "is also the name of a signal"),
    ("verilog-name-keyword", ["verilog", "decoder", "-f", "e4m3", "--name", "module"], "keyword"),
    ("synth-name-is-a-port", ["synth", "decoder", "-f", "e4m3", "--name", "y"], "is also the name of a signal"),
    ("prove-name-keyword", ["prove", "decoder", "-f", "e4m3", "--name", "wire"], "keyword"),
    ("verilog-spec-json-bad-name", ["verilog", "encoder", "-f", "e4m3", "--spec-json", "--name", "1x"],
     "module name must be a Verilog identifier"),
    ("verilog-spec-json-name-is-a-port", ["verilog", "encoder", "-f", "e4m3", "--spec-json", "--name", "flags"],
     "is also the name of a signal"),
    ("verilog-spec-json-output-missing-dir", ["verilog", "encoder", "-f", "e4m3", "--spec-json", "-o", "nodir/s.json"],
     "does not exist"),
    ("synth-spec-json-output-directory", ["synth", "encoder", "-f", "e4m3", "--spec-json", "-o", "{dir}"],
     "is a directory"),
    ("synth-spec-json-bad-liberty", ["synth", "encoder", "-f", "e4m3", "--spec-json", "--liberty", "{badlib}"],
     "library"),
    ("sim-spec-json-vectors-exhaustive", ["sim", "decoder", "-f", "e4m3", "--spec-json", "--vectors", "5"],
     "checked on every code"),
    ("sim-spec-json-biases-fixed", ["sim", "decoder", "-f", "e4m3", "--spec-json", "--biases", "1"],
     "--biases applies to run-time-bias formats"),
    ("prove-spec-json-range", ["prove", "encoder", "-f", "e4m3", "--spec-json", "--range", "5:2"], "is reversed"),
    ("prove-spec-json-jobs", ["prove", "encoder", "-f", "e4m3", "--spec-json", "--jobs", "0"], "--jobs must be"),
    ("prove-spec-json-missing-verilog", ["prove", "encoder", "-f", "e4m3", "--spec-json", "--verilog", "nope.v"],
     "nope.v"),
    ("prove-bias-empty-item", ["prove", "decoder", "-f", "cfloat8_143", "--bias", "1,,2"], "has an empty item"),
    ("synth-liberty-negative-area", ["synth", "decoder", "-f", "e4m3", "--liberty", "{neglib}"],
     "area '-0.5' must be a finite number >= 0"),
    ("synth-liberty-zero-area", ["synth", "decoder", "-f", "e4m3", "--liberty", "{zerolib}"],
     "logic cell INV_X1 has area 0"),
    ("prove-netlist-liberty-zero-area", ["prove", "decoder", "-f", "e4m3", "--netlist", "--liberty", "{zerolib}"],
     "logic cell INV_X1 has area 0"),
]

_SLOW = [  # long work with feedback (issue 30, class 7)
    ("prove-all-fresh-without-estimate", ["prove", "all", "--fresh"], "takes --fresh with --estimate only"),
]

# The audit of issue 30 (other members of each class): the environment, space files, ignored options, repeated
# items, empty directory names.
_AUDIT = [
    ("audit-env-cache-name-too-long-sim", ["sim", "decoder", "-f", "e4m3"], "File name too long",
     {"FPFORGE_CACHE": "{dir}/" + "x" * 300}),
    ("audit-env-cache-name-too-long-sweep", ["sweep", "small"], "FPFORGE_CACHE={dir}/xxx",
     {"FPFORGE_CACHE": "{dir}/" + "x" * 300}),
    ("audit-sweep-cache-empty", ["sweep", "small", "--cache", ""], "--cache needs a directory name"),
    ("audit-sweep-cache-is-file", ["sweep", "small", "--cache", "{file}"], "as a result store: it is not a directory"),
    ("audit-sim-build-dir-empty", ["sim", "decoder", "-f", "e4m3", "--build-dir", ""],
     "--build-dir needs a directory name"),
    ("audit-scale-prev-scale-with-scale", ["scale", "-f", "e4m3", "--scale", "2", "--prev-scale", "4", "--values", "1"],
     "--prev-scale is the scale kept when an amax is 0, Inf or NaN"),
    ("audit-report-list-with-section", ["report", "--list", "qsnr"], "--list lists every section; it takes no SECTION"),
    ("audit-report-list-dry-run", ["report", "--list", "--dry-run"], "it takes no --dry-run"),
    ("audit-report-long-with-section", ["report", "--long", "qsnr"], "--long adds the long sections"),
    ("audit-qsnr-format-twice", ["qsnr", "--formats", "e4m3,mx9,e4m3"], "--formats 'e4m3,mx9,e4m3' names e4m3 twice"),
    ("audit-dot-error-f-twice", ["dot-error", "--f", "8,16,8"], "--f '8,16,8' names 8 twice"),
    ("audit-plot-format-twice", ["plot", "precision", "-o", "x.png", "--formats", "hif8,hif8"], "names hif8 twice"),
    ("audit-table-summary-format-twice", ["table", "--summary", "e4m3", "E4M3"], "format e4m3 is named twice"),
    ("audit-sim-biases-twice", ["sim", "decoder", "-f", "cfloat8_143", "--biases", "3,3"], "--biases '3,3' names 3 twice"),
]
_AUDIT_SPACES = _space_files([
    ("audit-space-name-with-slash", 'name = "a/b"\n[dot]\nr = 16\n[[points]]\npreset = "mx9"\n',
     "name: 'a/b' is not a plain name"),
    ("audit-space-name-dotdot", 'name = "../up"\n[dot]\nr = 16\n[[points]]\npreset = "mx9"\n',
     "name: '../up' is not a plain name"),
    ("audit-space-name-space", 'name = "my space"\n[dot]\nr = 16\n[[points]]\npreset = "mx9"\n',
     "is not a plain name"),
])


# `fpforge equiv` (issue 29): the design to compare with, its file's modules and ports, latency, timeout, engine.
_EQUIV_PORTS = "input [31:0] a, output [7:0] y, output [4:0] flags"
PLACE_FILES.update({
    "eqtwo": f"module one({_EQUIV_PORTS}); assign y = 0; assign flags = 0; endmodule\n"
             f"module two({_EQUIV_PORTS}); assign y = 1; assign flags = 0; endmodule\n",
    "eqnone": "// a Verilog file with no module\n",
    "eqnames": "module m(input [31:0] x, output [7:0] y, output [4:0] flags); endmodule\n",
    "eqwidths": "module m(input [15:0] a, output [7:0] y, output [3:0] flags); endmodule\n",
    "eqcells": f"module m({_EQUIV_PORTS}); NAND2_X1 u(.A1(a[0]), .A2(a[1]), .ZN(y[0])); endmodule\n",
    "equnknowncell": f"module m({_EQUIV_PORTS}); FOO_X1 u(.A(a[0]), .Z(y[0])); endmodule\n",
    "eqsyntax": "module m(input a; endmodule\n",
    "eqreg": f"module m({_EQUIV_PORTS}, input clk); reg [7:0] r; always @(posedge clk) r <= a[7:0]; assign y = r; "
             "assign flags = 0; endmodule\n",
})
_EQ = ["equiv", "encoder", "-f", "e4m3"]
_EQUIV_CASES = [
    ("equiv-no-design", _EQ, "equiv needs the design to compare with: --netlist (the unit's mapped netlist) or --against"),
    ("equiv-netlist-and-against", [*_EQ, "--netlist", "--against", "{eqtwo}"], "choose one of --netlist"),
    ("equiv-timeout-zero", [*_EQ, "--netlist", "--timeout", "0"], "finite number of seconds > 0, not '0'"),
    ("equiv-timeout-negative", [*_EQ, "--netlist", "--timeout", "-5"], "finite number of seconds > 0, not '-5'"),
    ("equiv-timeout-nan", [*_EQ, "--netlist", "--timeout", "nan"], "finite number of seconds > 0, not 'nan'"),
    ("equiv-timeout-inf", [*_EQ, "--netlist", "--timeout", "inf"], "finite number of seconds > 0, not 'inf'"),
    ("equiv-timeout-word", [*_EQ, "--netlist", "--timeout", "soon"], "a number of seconds > 0, not 'soon'"),
    ("equiv-engine-unknown", [*_EQ, "--netlist", "--engine", "sat"], "invalid choice: 'sat' (choose from 'iprove', "
     "'cec', 'dprove', 'staged', 'tempinduct')"),
    ("equiv-unit-dot", ["equiv", "scaled-encoder", "-f", "e4m3", "--netlist"], "invalid choice: 'scaled-encoder'"),
    ("equiv-block-format", ["equiv", "encoder", "-f", "mx9", "--netlist"], "fpforge equiv handles scalar narrow "
     "formats, not 'mx9'"),
    ("equiv-top-without-against", [*_EQ, "--netlist", "--top", "m"], "--top names the module of --against FILE"),
    ("equiv-name", [*_EQ, "--netlist", "--name", "x"], "--name: equiv compares fpforge's own module"),
    ("equiv-liberty-unknown", [*_EQ, "--netlist", "--liberty", "osu18"], "unknown liberty 'osu18'"),
    ("equiv-against-missing", [*_EQ, "--against", "nodir/x.v"], "--against 'nodir/x.v': no such file"),
    ("equiv-against-directory", [*_EQ, "--against", "{dir}"], "no such file"),
    ("equiv-against-no-module", [*_EQ, "--against", "{eqnone}"], "eqnone.lib defines no Verilog module"),
    ("equiv-against-not-verilog", [*_EQ, "--against", "{file}"], "yosys cannot read afile.txt: afile.txt:1: ERROR"),
    ("equiv-against-syntax-error", [*_EQ, "--against", "{eqsyntax}"], "yosys cannot read eqsyntax.lib"),
    ("equiv-against-two-candidates", [*_EQ, "--against", "{eqtwo}"],
     "eqtwo.lib has 2 candidate top modules (one, two); choose one with --top"),
    ("equiv-against-top-unknown", [*_EQ, "--against", "{eqtwo}", "--top", "three"],
     "eqtwo.lib defines no module 'three'; valid: one, two"),
    ("equiv-against-port-names", [*_EQ, "--against", "{eqnames}"],
     "module m does not have the unit's ports: missing input a (32 bits); unexpected port x (input, 32 bits)"),
    ("equiv-against-port-widths", [*_EQ, "--against", "{eqwidths}"],
     "a is an input of 16 bits, expected an input of 32; flags is an output of 4 bits, expected an output of 5"),
    ("equiv-against-cells-without-liberty", [*_EQ, "--against", "{eqcells}"],
     "instantiates modules it does not define (NAND2_X1); for a netlist of library cells give --liberty"),
    ("equiv-against-cell-not-in-liberty", [*_EQ, "--against", "{equnknowncell}", "--liberty", "fpforge45"],
     "instantiates FOO_X1, which neither it nor fpforge45.lib defines"),
    ("equiv-against-liberty-unused", [*_EQ, "--against", "{eqtwo}", "--top", "one", "--liberty", "fpforge45"],
     "eqtwo.lib instantiates no module it does not define; liberty (--liberty) applies to a netlist of library"),
    ("equiv-against-registers", [*_EQ, "--against", "{eqreg}"], "eqreg.lib has registers or latches ($dff in module m)"),
]

# `fpforge equiv ... --latency L` (issue 29): a stream unit against its combinational core + L registers.
_EQSTREAM_PORTS = ("input clk, input rst, input i__valid, output i__ready, input [31:0] i__payload, output o__valid, "
                   "input o__ready, output [12:0] o__payload")
PLACE_FILES.update({
    "eqstreamnarrow": "module s(input clk, input rst, input i__valid, output i__ready, input [15:0] i__payload, "
                      "output o__valid, input o__ready, output [12:0] o__payload); reg v; "
                      "always @(posedge clk) v <= i__valid; assign o__valid = v; assign i__ready = 1; "
                      "assign o__payload = 0; endmodule\n",
    "eqstreamcomb": f"module s({_EQSTREAM_PORTS}); assign o__valid = i__valid; assign i__ready = 1; "
                    "assign o__payload = i__payload[12:0]; endmodule\n",
})
_EQL = [*_EQ, "--latency", "2"]
_LATENCY_CASES = [
    ("equiv-latency-netlist", [*_EQL, "--netlist"], "--latency 2 --netlist: sequential equivalence with the mapped "
     "netlist is not available"),
    ("equiv-latency-comb-file", [*_EQL, "--against", "{eqtwo}", "--top", "one"],
     "eqtwo.lib: module one has no register: it is combinational, not a stream unit of latency 2"),
    ("equiv-latency-comb-stream-ports", [*_EQL, "--against", "{eqstreamcomb}"],
     "module s has no register: it is combinational"),
    ("equiv-latency-stream-file-without-latency", [*_EQ, "--against", "{eqstreamnarrow}"],
     "has registers or latches ($dff in module s); equiv checks combinational designs here: for a stream unit "
     "give its --latency"),
    ("equiv-latency-port-width", [*_EQL, "--against", "{eqstreamnarrow}"],
     "i__payload is an input of 16 bits, expected an input of 32"),
    ("equiv-latency-negative", [*_EQ, "--latency", "-1"], "latency must be an integer in 0..64, not -1"),
    ("equiv-latency-too-large", [*_EQ, "--latency", "65", "--against", "{eqreg}"],
     "latency must be an integer in 0..64, not 65"),
    ("equiv-latency-not-int", [*_EQ, "--latency", "two"], "invalid int value: 'two'"),
    ("equiv-latency-combinational-engine", [*_EQL, "--engine", "iprove"],
     "--engine iprove proves combinational units; with --latency valid: tempinduct, dprove"),
    ("equiv-latency-zero-stream-engine", [*_EQ, "--latency", "0", "--netlist", "--engine", "tempinduct"],
     "--engine tempinduct proves stream units (give --latency L); valid without --latency: iprove, cec, dprove, staged"),
    ("equiv-latency-sr", [*_EQL, "--rounding", "rne,sr"], "sequential equivalence of a stream unit with sr rounding"),
    ("equiv-latency-against-missing", [*_EQL, "--against", "nodir/x.v"], "--against 'nodir/x.v': no such file"),
    ("equiv-latency-against-syntax", [*_EQL, "--against", "{eqsyntax}"], "yosys cannot read eqsyntax.lib"),
    ("equiv-latency-top-unknown", [*_EQL, "--against", "{eqreg}", "--top", "n"],
     "eqreg.lib defines no module 'n'; valid: m"),
    ("equiv-latency-top-without-against", [*_EQL, "--top", "m"], "--top names the module of --against FILE"),
    ("equiv-latency-block-format", ["equiv", "encoder", "-f", "mx9", "--latency", "2"],
     "fpforge equiv handles scalar narrow formats, not 'mx9'"),
]
# `fpforge equiv` of block and dot units (issue 29, item 1): their ports named, --stages as a dot unit's latency.
PLACE_FILES.update({
    "eqdotnames": "module m(input [15:0] a, input [15:0] x, output [31:0] y); endmodule\n",
    "eqdottwo": "module m(input [15:0] a, input [7:0] b, output [31:0] y); assign y = 0; endmodule\n"
                "module n(input [15:0] a, input [15:0] b, output [31:0] y); assign y = 0; endmodule\n",
    "eqbdecwidth": "module m(input [63:0] a, output [255:0] y); assign y = 0; endmodule\n",
})
_EQD = ["equiv", "dot", "--preset", "e4m3", "--r", "2", "--f", "32"]
_EQUIV_UNIT_CASES = [
    ("equiv-dot-no-design", _EQD, "equiv needs the design to compare with: --netlist"),
    ("equiv-dot-timeout-zero", [*_EQD, "--netlist", "--timeout", "0"], "finite number of seconds > 0, not '0'"),
    ("equiv-dot-timeout-negative", [*_EQD, "--netlist", "--timeout", "-1"], "finite number of seconds > 0, not '-1'"),
    ("equiv-dot-latency", [*_EQD, "--latency", "2"], "a dot unit does not take latency (its depth is stages"),
    ("equiv-dot-stages-netlist", [*_EQD, "--stages", "1", "--netlist"],
     "--stages 1 --netlist: sequential equivalence with the mapped netlist is not available"),
    ("equiv-dot-stages-engine", [*_EQD, "--stages", "1", "--engine", "cec"],
     "--engine cec proves combinational units; with --stages 1 valid: tempinduct, dprove"),
    ("equiv-dot-stages-too-many", [*_EQD, "--stages", "65"], "stages must be an integer in 0..64, not 65"),
    ("equiv-dot-amax", [*_EQD, "--stages", "1", "--amax"], "amax: the running amax is state"),
    ("equiv-dot-io-registers", [*_EQD, "--io-registers", "--netlist"], "io_registers wraps the combinational dot"),
    ("equiv-dot-port-names", [*_EQD, "--against", "{eqdotnames}"],
     "module m does not have the unit's ports: missing input b (16 bits); unexpected port x (input, 16 bits)"),
    ("equiv-dot-two-candidates", [*_EQD, "--against", "{eqdottwo}"],
     "eqdottwo.lib has 2 candidate top modules (m, n); choose one with --top"),
    ("equiv-dot-port-width", [*_EQD, "--against", "{eqdottwo}", "--top", "m"],
     "b is an input of 8 bits, expected an input of 16"),
    ("equiv-dot-no-module", [*_EQD, "--against", "{eqnone}"], "eqnone.lib defines no Verilog module"),
    ("equiv-dot-stages-comb-file", [*_EQD, "--stages", "2", "--against", "{eqdottwo}", "--top", "n"],
     "module n has no register: it is combinational, not a stream unit of latency 2"),
    ("equiv-block-scalar-format", ["equiv", "block-encoder", "-f", "e4m3", "--netlist"],
     "'e4m3' is a scalar format; its units are encoder, decoder"),
    ("equiv-block-port-width", ["equiv", "block-decoder", "-f", "mx4", "--against", "{eqbdecwidth}"],
     "y is an output of 256 bits, expected an output of 512"),
    ("equiv-block-latency-netlist", ["equiv", "block-decoder", "-f", "mx9", "--latency", "1", "--netlist"],
     "--latency 1 --netlist: sequential equivalence with the mapped netlist is not available"),
    ("equiv-block-latency-sr", ["equiv", "block-encoder", "-f", "mx9", "--latency", "1", "--rounding", "sr"],
     "sequential equivalence of a stream unit with sr rounding"),
    ("equiv-block-timeout-zero", ["equiv", "block-decoder", "-f", "mx9", "--netlist", "--timeout", "0"],
     "finite number of seconds > 0, not '0'"),
]
# Batch clusters through dask-jobqueue (issue 33, item 3; docs/sweep.md, "Clusters"): checked before any work.
_CL = ["sweep", "small", "--cluster"]
_CLP = ["prove", "encoder", "-f", "e4m3", "--range", "0:16", "--cluster"]
_CLUSTER_CASES = [
    ("cluster-unknown-kind", [*_CL, "lsf", "--workers", "2"], "unknown --cluster 'lsf'; valid: slurm, pbs, sge"),
    ("cluster-workers-zero", [*_CL, "slurm", "--workers", "0"], "--workers must be a positive integer"),
    ("cluster-workers-negative", [*_CLP, "pbs", "--workers", "-3"], "--workers must be a positive integer"),
    ("cluster-workers-not-int", [*_CL, "slurm", "--workers", "x"], "--workers: invalid int value: 'x'"),
    ("cluster-workers-missing", [*_CL, "slurm"], "--cluster slurm needs --workers N"),
    ("cluster-workers-without-cluster", ["sweep", "small", "--workers", "4"], "--workers applies to --cluster"),
    ("cluster-option-without-cluster", [*_CLP[:-1], "--cluster-option", "queue=q"], "--cluster-option applies to"),
    ("cluster-dry-run-without-cluster", ["sweep", "small", "--cluster-dry-run"], "--cluster-dry-run applies to"),
    ("cluster-option-unknown-key", [*_CL, "slurm", "--cluster-dry-run", "--cluster-option", "partition=cpu"],
     "'partition' is not an option of --cluster slurm (dask-jobqueue SLURMCluster); valid: account, cores"),
    ("cluster-option-sge-account", [*_CLP, "sge", "--cluster-dry-run", "--cluster-option", "account=a"],
     "'account' is not an option of --cluster sge"),
    ("cluster-option-not-key-value", [*_CL, "pbs", "--cluster-dry-run", "--cluster-option", "queue"],
     "--cluster-option takes KEY=VALUE"),
    ("cluster-option-twice", [*_CL, "pbs", "--cluster-dry-run", "--cluster-option", "queue=a", "--cluster-option",
                              "queue=b"], "--cluster-option queue given twice"),
    ("cluster-option-cores-not-int", [*_CL, "sge", "--cluster-dry-run", "--cluster-option", "cores=two"],
     "cluster option cores must be a positive integer, not 'two'"),
    ("cluster-option-bad-memory", [*_CL, "slurm", "--cluster-dry-run", "--cluster-option", "memory=lots"],
     "memory must be an amount like 4GB"),
    ("cluster-option-processes-over-cores", [*_CL, "slurm", "--cluster-dry-run", "--cluster-option", "processes=2"],
     "processes=2 is more than cores=1"),
    ("cluster-sbatch-missing", [*_CL, "slurm", "--workers", "2"], "submits its workers with sbatch, which is not on "
     "PATH", {"PATH": "{empty}"}),
    ("cluster-qsub-missing-prove", [*_CLP, "pbs", "--workers", "2"], "submits its workers with qsub",
     {"PATH": "{empty}"}),
    ("cluster-qsub-missing-prove-all", ["prove", "all", "--cluster", "sge", "--workers", "2"], "with qsub",
     {"PATH": "{empty}"}),
    ("cluster-with-scheduler", [*_CL, "slurm", "--workers", "2", "--scheduler", "tcp://127.0.0.1:1"],
     "starts its own Dask workers: drop --scheduler"),
    ("cluster-with-jobs-prove", [*_CLP, "sge", "--workers", "2", "--jobs", "2"], "drop --jobs"),
    ("cluster-from-csv", ["sweep", "small", "--from-csv", "{file}", "--cluster", "slurm", "--cluster-dry-run"],
     "--from-csv re-reads measured points: --cluster apply"),
]


def _rows(prefix, rows):
    out = []
    for row in rows:
        ident, argv, expected, *setup = row
        out.append((f"{prefix}{ident}", argv, expected, setup[0] if setup else {}))
    return out


# r and f as sweep axes (issue 33, item 2): lists the unit cannot take, a facet not among the swept axes.
_RF_HEAD = 'name = "rf"\n[[points]]\npreset = "mx9"\n[dot]\n'
_RF_CASES = [
    ("sweep-r-list-not-multiple-of-k1", ["sweep", "small", "--r", "8,12"], "--r 8,12: k1: bdr_m1_k8_d8_k8_d0 has k1 = 8, "
     "which does not divide [dot] r = 12"),
    ("sweep-r-list-zero", ["sweep", "small", "--r", "8,0"], "--r 8,0: [dot] r: 0 is out of range"),
    ("sweep-r-list-twice", ["sweep", "small", "--r", "8,8"], "--r '8,8' names 8 twice"),
    ("sweep-r-list-not-int", ["sweep", "small", "--r", "8,x"], "--r takes a comma list of values"),
    ("sweep-f-list-too-small", ["sweep", "small", "--f", "16,4"], "--f 16,4: [dot] f: 4 is out of range (valid: an "
     "integer 8..256"),
    ("sweep-f-list-too-large", ["sweep", "small", "--window-bits", "24,300"], "[dot] f: 300 is out of range"),
    ("sweep-f-list-with-auto", ["sweep", "small", "--f", "16,auto"], '"auto" is a value of its own, not in an array'),
    ("sweep-f-list-empty-item", ["sweep", "small", "--f", "16,,24"], "has an empty item"),
    ("sweep-facet-not-swept", ["sweep", "small", "--facet", "r", "--plot", "x.png"], "cannot facet by r: space "
     "'small' does not sweep it (r = 8); valid: none"),
    ("sweep-facet-other-axis", ["sweep", "small", "--f", "16,24", "--facet", "r", "--plot", "x.png"],
     "cannot facet by r: space 'small' does not sweep it (r = 8); valid: f"),
    ("sweep-facet-unknown", ["sweep", "small", "--facet", "m", "--plot", "x.png"], "invalid choice: 'm'"),
    ("sweep-facet-without-plot", ["sweep", "small", "--r", "8,16", "--facet", "r"], "give --plot FILE"),
    ("sweep-rf-area-space", ["sweep", "area-fp8", "--r", "8,16"], "--r, --f and --facet apply to dot-product"),
    ("sweep-facet-from-csv-not-swept", ["sweep", "paper", "--from-csv", "{file}", "--facet", "f", "--plot", "x.png"],
     "cannot facet by f: space 'paper' does not sweep it"),
] + _space_files([
    ("space-r-list-not-multiple-of-k1", _RF_HEAD + "r = [16, 24]\n", "[[points]] #1 preset: mx9 has k1 = 16, which "
     "does not divide [dot] r = 24"),
    ("space-r-list-out-of-range", _RF_HEAD + "r = [16, 0]\n", "[dot] r: 0 is out of range (valid: an integer 1.."),
    ("space-r-list-empty", _RF_HEAD + "r = []\n", "[dot] r: is an empty array"),
    ("space-r-list-twice", _RF_HEAD + "r = [16, 16]\n", "[dot] r: lists 16 more than once"),
    ("space-r-list-string", _RF_HEAD + 'r = [16, "32"]\n', "[dot] r: must be an integer or an array of integers"),
    ("space-f-list-out-of-range", _RF_HEAD + "r = 16\nf = [16, 7]\n", "[dot] f: 7 is out of range (valid: an "
     "integer 8..256"),
    ("space-f-list-float", _RF_HEAD + "r = 16\nf = [16, 24.0]\n", "[dot] f: must be an integer or an array"),
    ("space-f-list-auto", _RF_HEAD + 'r = 16\nf = [16, "auto"]\n', '[dot] f: "auto" is a value of its own'),
    ("space-r-list-grid-k1", 'name = "rf"\n[dot]\nr = [16, 48]\n[[grid]]\nm = [2]\nk1 = [32]\nk2 = [2]\n'
     'd2 = [1]\n', "[[grid]] #1 k1: 32 does not divide [dot] r = 48"),
])

# the mapping goal of fpforge synth (issue 34, item 3): checked before the library, the tools or yosys
_GOAL_CASES = [
    ("synth-goal-unknown", ["synth", "encoder", "-f", "e5m2", "--goal", "size"],
     "unknown --goal 'size'; valid: delay, area"),
    ("synth-goal-case", ["synth", "encoder", "-f", "e5m2", "--goal", "Area"], "unknown --goal 'Area'; valid: delay, area"),
    ("synth-goal-empty", ["synth", "encoder", "-f", "e5m2", "--goal", ""], "unknown --goal ''; valid: delay, area"),
    ("synth-goal-missing-value", ["synth", "encoder", "-f", "e5m2", "--goal"], "expected one argument"),
    ("synth-goal-area-clock-area-only-liberty", ["synth", "encoder", "-f", "e5m2", "--goal", "area", "--clock-ns", "2"],
     "has no timing tables"),
    ("sweep-goal-unknown", ["sweep", "small", "--goal", "size"], "unknown --goal 'size'; valid: area, delay"),
    ("sweep-goal-case", ["sweep", "small", "--goal", "Area"], "unknown --goal 'Area'; valid: area, delay"),
    ("sweep-goal-area-table", ["sweep", "area-fp8", "--goal", "area"], "apply to dot-product spaces"),
]

# the synthesis flow of fpforge synth (issue 33, the sweep's flows for one unit): checked before the library or yosys
_FLOW_CASES = [
    ("synth-flow-unknown", ["synth", "encoder", "-f", "e5m2", "--flow", "quick"],
     "unknown --flow 'quick'; valid: standard, fast, reuse, flat, lean"),
    ("synth-flow-case", ["synth", "encoder", "-f", "e5m2", "--flow", "Lean"], "unknown --flow 'Lean'; valid:"),
    ("synth-flow-reuse-clock", ["synth", "encoder", "-f", "e5m2", "--flow", "reuse", "--clock-ns", "2",
                                "--liberty", "osu018"], "--flow reuse counts multiplier instances"),
    ("synth-flow-reuse-hierarchy", ["synth", "encoder", "-f", "e5m2", "--flow", "reuse", "--keep-hierarchy"],
     "drop --keep-hierarchy"),
]

# the dot unit's datapath (issue 34, item 1): anchored needs the exact window; checked before any build
_DP = ["verilog", "dot", "--preset", "e4m3", "--r", "8", "--datapath"]
_DATAPATH_CASES = [
    ("dot-datapath-anchored-narrow", ["verilog", "dot", "--preset", "e4m3", "--r", "8", "--f", "36", "--datapath",
                                      "anchored"], "datapath anchored needs an exact window: f >= 37"),
    ("dot-datapath-anchored-narrow-synth", ["synth", "dot", "--preset", "mxfp8_e4m3", "--r", "32", "--f", "24",
                                            "--datapath", "anchored"], "f >= 42"),
    ("dot-datapath-anchored-beyond-window", ["sim", "dot", "--preset", "mx9", "--r", "32", "--f", "256",
                                             "--datapath", "anchored"], "beyond the largest window 256"),
    ("dot-datapath-anchored-raw", [*_DP[:-1], "--f", "37", "--raw", "--datapath", "anchored"], "no raw outputs"),
    ("dot-datapath-unknown", [*_DP, "fast"], "invalid choice: 'fast'"),
    ("dot-datapath-missing-value", _DP, "expected one argument"),
]


# `fpforge sweep SPACE --estimate` (issue 33, item 4): checked before anything is read or run.
_ES = ["sweep", "small", "--estimate"]
_ESTIMATE_CASES = [
    ("estimate-workers-zero", [*_ES, "--workers", "0"], "--workers must be a positive integer (the workers to"),
    ("estimate-workers-negative", [*_ES, "--workers", "-2"], "--workers must be a positive integer"),
    ("estimate-workers-not-int", [*_ES, "--workers", "two"], "--workers: invalid int value: 'two'"),
    ("estimate-workers-and-jobs", [*_ES, "--workers", "4", "--jobs", "2"], "give --jobs N (local processes) or"),
    ("estimate-jobs-negative", [*_ES, "--jobs", "-1"], "--jobs must be >= 0"),
    ("estimate-cluster-without-workers", [*_ES, "--cluster", "slurm"], "--estimate with --cluster needs --workers N"),
    ("estimate-scheduler-without-workers", [*_ES, "--scheduler", "tcp://127.0.0.1:1"],
     "--estimate with --scheduler needs --workers N"),
    ("estimate-cluster-unknown", [*_ES, "--cluster", "lsf", "--workers", "2"], "unknown --cluster 'lsf'; valid:"),
    ("estimate-cluster-option-bad", [*_ES, "--cluster", "pbs", "--workers", "2", "--cluster-option", "nope=1"],
     "'nope' is not an option of --cluster pbs"),
    ("estimate-cluster-dry-run", [*_ES, "--cluster", "slurm", "--cluster-dry-run"], "give one"),
    ("estimate-with-output", [*_ES, "-o", "x.csv"], "--estimate runs nothing: -o/--output apply"),
    ("estimate-with-plot-claims", [*_ES, "--plot", "x.png", "--claims"], "--estimate runs nothing: --plot, --claims"),
    ("estimate-with-results", [*_ES, "--results"], "--estimate runs nothing: --results apply"),
    ("estimate-area-table", ["sweep", "area-fp8", "--estimate"], "area-fp8 is an area table: --estimate applies"),
    ("estimate-from-csv", [*_ES, "--from-csv", "{file}"], "--estimate applies to a sweep that measures them"),
    ("estimate-unknown-flow", [*_ES, "--flow", "quick"], "--flow: invalid choice: 'quick'"),
    ("estimate-bad-r", [*_ES, "--r", "0"], "--r 0: [dot] r: 0 is out of range"),
    ("estimate-unknown-space", ["sweep", "nope", "--estimate"], "unknown space 'nope': not a built-in space"),
    ("estimate-empty-cache", [*_ES, "--cache", ""], "--cache needs a directory name"),
]


# `fpforge sweep SPACE --ppa --liberty L --clock-ns T --cost C` (issue 28, item 3): refused before any work.
_PPA_SPACE = 'name = "pp"\n[dot]\nr = 4\n[[points]]\npreset = "e4m3"\n[synth]\n'
_SWEEP_PPA_CASES = [
    ("sweep-ppa-without-clock", ["sweep", "small", "--ppa", "--liberty", "osu018"], "--ppa needs --clock-ns T"),
    ("sweep-ppa-area-only-liberty", ["sweep", "small", "--ppa", "--clock-ns", "5"], "fpforge45.lib has no timing tables"),
    ("sweep-ppa-fpforge45", ["sweep", "small", "--ppa", "--clock-ns", "5", "--liberty", "fpforge45"],
     "fpforge45.lib has no timing tables"),
    ("sweep-ppa-no-power-tables", ["sweep", "small", "--ppa", "--clock-ns", "5", "--liberty", "{timelib}"],
     "timelib.lib has no internal_power tables"),
    ("sweep-ppa-liberty-unknown-name", ["sweep", "small", "--liberty", "osu18"],
     "unknown liberty 'osu18'; valid names: fpforge45, osu018"),
    ("sweep-ppa-osu018-not-installed", ["sweep", "small", "--ppa", "--liberty", "osu018", "--clock-ns", "5"],
     "liberty osu018 (the OSU 0.18 um cells of Debian's qflow-tech-osu018) is not installed", {"FPFORGE_TECH": "{empty}"}),
    ("sweep-ppa-sta-missing", ["sweep", "small", "--ppa", "--liberty", "osu018", "--clock-ns", "5"],
     "is not an executable OpenSTA `sta`", {"FPFORGE_STA": "{dir}/nosta"}),
    ("sweep-ppa-clock-zero", ["sweep", "small", "--ppa", "--clock-ns", "0"], "finite number of ns > 0, not '0'"),
    ("sweep-ppa-clock-nan", ["sweep", "small", "--ppa", "--clock-ns", "nan"], "finite number of ns > 0, not 'nan'"),
    ("sweep-clock-without-ppa", ["sweep", "small", "--clock-ns", "5"], "--clock-ns is the clock period of --ppa"),
    ("sweep-cost-energy-without-ppa", ["sweep", "small", "--cost", "energy-memory"],
     "--cost energy-memory needs the PPA columns: add --ppa"),
    ("sweep-cost-delay-without-ppa", ["sweep", "small", "--cost", "area-delay", "--liberty", "osu018"],
     "--cost area-delay needs the PPA columns"),
    ("sweep-cost-unknown", ["sweep", "small", "--cost", "power"], "invalid choice: 'power' (choose from 'area-memory'"),
    ("sweep-ppa-no-synth", ["sweep", "small", "--ppa", "--clock-ns", "5", "--no-synth"], "drop --no-synth"),
    ("sweep-ppa-area-table", ["sweep", "area-fp8", "--ppa", "--clock-ns", "5"], "area-fp8 is an area table: --ppa"),
    ("sweep-ppa-from-csv", ["sweep", "small", "--from-csv", "{file}", "--ppa", "--clock-ns", "5"],
     "--from-csv re-reads measured points: --ppa, --clock-ns"),
    ("sweep-ppa-reuse-flow", ["sweep", "small", "--ppa", "--clock-ns", "5", "--liberty", "osu018", "--flow", "reuse"],
     "the reuse flow counts multiplier instances"),
] + _space_files([
    ("space-ppa-without-clock", _PPA_SPACE + "ppa = true\n", "[synth] ppa: delay, power and energy need a clock "
     "period (valid: give clock_ns"),
    ("space-ppa-not-bool", _PPA_SPACE + 'ppa = "yes"\nclock_ns = 5\n', "[synth] ppa: must be true or false"),
    ("space-clock-zero", _PPA_SPACE + "ppa = true\nclock_ns = 0\n", "[synth] clock_ns: 0 is not a period"),
    ("space-clock-string", _PPA_SPACE + 'clock_ns = "5ns"\n', "[synth] clock_ns: must be a number"),
    ("space-ppa-area-only-liberty", _PPA_SPACE + "ppa = true\nclock_ns = 5\n", "fpforge45.lib has no timing tables"),
    ("space-ppa-unknown-key", _PPA_SPACE + "clock = 5\n", "[synth] clock: unknown key (valid: liberty, goal, abc_script, "
     "flow, clock_ns, ppa, activity)"),
])


# `fpforge sim UNIT ... --verilog/--vhdl FILE... --top NAME --ports MAP` (issue 31, items 1 and 4): a user's design.
PLACE_FILES.update({
    "udecvhd": "library ieee;\nuse ieee.std_logic_1164.all;\nentity udec is\n"
               "  port (code : in std_logic_vector(7 downto 0);\n        value : out std_logic_vector(31 downto 0);\n"
               "        dbg : out std_logic_vector(2 downto 0));\n"
               "end entity;\narchitecture a of udec is\nbegin\n  value <= (others => '0');\n  dbg <= \"000\";\n"
               "end architecture;\n",
    "utwovhd": "entity one is port (a : in bit); end entity;\nentity two is port (a : in bit); end entity;\n",
    "uintvhd": "entity uint is port (code : in integer range 0 to 255; value : out bit_vector(31 downto 0)); end;\n",
})
_SD = ["sim", "decoder", "-f", "e5m2", "--target", "fp32"]
_SE = ["sim", "encoder", "-f", "e4m3"]
_SIM_DESIGN_CASES = [
    ("sim-vhdl-missing-file", [*_SD, "--vhdl", "nodir/x.vhd"], "--vhdl 'nodir/x.vhd': no such file"),
    ("sim-verilog-missing-file", [*_SE, "--verilog", "{uencv}", "nodir/y.v"], "--verilog 'nodir/y.v': no such file"),
    ("sim-vhdl-no-entity-top", [*_SD, "--vhdl", "{udecvhd}", "--top", "nope"],
     "udecvhd.lib defines no entity 'nope' (it defines udec); name the design's entity with --top"),
    ("sim-verilog-no-module-top", [*_SE, "--verilog", "{uencv}", "--top", "nope"],
     "uencv.lib defines no module 'nope' (it defines uenc)"),
    ("sim-vhdl-not-vhdl", [*_SD, "--vhdl", "{file}"], "afile.txt defines no entity; name the one to check with --top"),
    ("sim-vhdl-two-entities-no-top", [*_SD, "--vhdl", "{utwovhd}"],
     "utwovhd.lib defines 2 entities (one, two); name the one to check with --top"),
    ("sim-vhdl-top-not-a-name", [*_SD, "--vhdl", "{udecvhd}", "--top", "a__b"], "is not a VHDL entity name"),
    ("sim-vhdl-port-map-unknown-design-port", [*_SD, "--vhdl", "{udecvhd}", "--ports", "a=nope,y=value"],
     "port map a=nope: entity udec has no port 'nope' (its ports: code (input of 8 bits), value (output of 32 "
     "bits), dbg (output of 3 bits))"),
    ("sim-vhdl-port-map-unknown-unit-port", [*_SD, "--vhdl", "{udecvhd}", "--ports", "a=code,value=value"],
     "port map value=value: fpforge's unit has no port 'value' (its ports: a (input of 8 bits), y (output of 32"),
    ("sim-verilog-port-map-unknown-design-port", [*_SE, "--verilog", "{uencv}", "--ports", "a=x,y=nope"],
     "port map y=nope: module uenc has no port 'nope'"),
    ("sim-vhdl-width-mismatch", [*_SD, "--vhdl", "{udecvhd}", "--ports", "a=code,y=dbg"],
     "port map y=dbg: udec's dbg is an output of 3 bits, fpforge's y is an output of 32 bits"),
    ("sim-verilog-width-mismatch", [*_SE, "--verilog", "{uencv}", "--ports", "a=x,y=dbg"],
     "port map y=dbg: uenc's dbg is an output of 3 bits, fpforge's y is an output of 8 bits"),
    ("sim-vhdl-width-mismatch-unit-options", ["sim", "decoder", "-f", "e5m2", "--target", "fp16", "--vhdl",
                                              "{udecvhd}", "--ports", "a=code,y=value"],
     "port map y=value: udec's value is an output of 32 bits, fpforge's y is an output of 16 bits"),
    ("sim-vhdl-input-undriven", [*_SD, "--vhdl", "{udecvhd}", "--ports", "y=value"],
     "entity udec has input code that no port of fpforge's unit drives"),
    ("sim-vhdl-stream-ports-missing", [*_SD, "--latency", "1", "--vhdl", "{udecvhd}", "--ports", "a=code,y=value"],
     "entity udec has no port for fpforge's stream ports clk, i_valid, i_ready, o_valid, o_ready"),
    ("sim-vhdl-port-type-unsupported", [*_SD, "--vhdl", "{uintvhd}", "--ports", "a=code,y=value"],
     "port code has type 'integer range 0 to 255'; fpforge connects std_logic"),
    ("sim-vhdl-ghdl-missing", [*_SD, "--vhdl", "{udecvhd}", "--ports", "a=code,y=value"],
     "FPFORGE_GHDL='{dir}/noghdl' is not an executable GHDL", {"FPFORGE_GHDL": "{dir}/noghdl"}),
    ("sim-vhdl-ghdl-not-on-path", [*_SD, "--vhdl", "{udecvhd}", "--ports", "a=code,y=value"],
     "ghdl: not found on PATH (VHDL designs run on GHDL); apt-get install ghdl", {"PATH": "{empty}",
                                                                                    "FPFORGE_GHDL": ""}),
    ("sim-vhdl-on-verilator", [*_SD, "--vhdl", "{udecvhd}", "--simulator", "verilator"],
     "--vhdl runs on GHDL: --simulator ghdl (or leave it out), not verilator"),
    ("sim-vhdl-on-all", [*_SD, "--vhdl", "{udecvhd}", "--simulator", "all"], "--vhdl runs on GHDL: --simulator ghdl "
     "(or leave it out), not all"),
    ("sim-verilog-on-ghdl", [*_SE, "--verilog", "{uencv}", "--simulator", "ghdl"],
     "--verilog runs on verilator or icarus (or `all`): ghdl simulates VHDL"),
    ("sim-ghdl-without-design", [*_SD, "--simulator", "ghdl"], "--simulator ghdl runs a user's VHDL design"),
    ("sim-top-without-design", [*_SD, "--top", "udec"], "--top and --ports apply to a user's design"),
    ("sim-verilog-and-vhdl", [*_SD, "--vhdl", "{udecvhd}", "--verilog", "{uencv}"],
     "argument --verilog: not allowed with argument --vhdl"),
    ("sim-design-dot-unit", ["sim", "dot", "--preset", "mx9", "--r", "32", "--window-bits", "32", "--verilog",
                             "{uencv}"],
     "fpforge sim checks a user's design of an encoder, decoder, block-encoder or block-decoder unit, not 'dot'"),
    ("sim-design-ports-not-a-pair", [*_SD, "--vhdl", "{udecvhd}", "--ports", "a"],
     "--ports item 'a' is not UNIT_PORT=USER_PORT"),
    ("sim-design-ports-twice", [*_SD, "--vhdl", "{udecvhd}", "--ports", "a=code,a=dbg"], "--ports maps a twice"),
]


# The PPA results section (issue 28, items 3 and 5): `fpforge report ppa-...` named where it cannot run.
_PPA_REPORT_CASES = [
    ("report-ppa-osu018-not-installed", ["report", "ppa-named-ppa"], "section ppa-named-ppa cannot run here: liberty "
     "osu018 (the OSU 0.18 um cells of Debian's qflow-tech-osu018) is not installed", {"FPFORGE_TECH": "{empty}"}),
    ("report-ppa-sta-missing", ["report", "ppa-paper"], "section ppa-paper cannot run here: FPFORGE_STA=",
     {"FPFORGE_STA": "{dir}/nosta"}),
    ("report-bench-ppa-sta-missing", ["report", "qsnr", "bench-ppa"], "section bench-ppa cannot run here",
     {"FPFORGE_STA": "{dir}/nosta"}),
]

def _unit_rows():
    out = []
    for cmd in ("verilog", "sim", "synth"):
        for ident, argv, expected in _UNIT:
            out.append((f"{cmd}-{ident}", [cmd, *argv], expected, {}))
        if cmd != "sim":
            for ident, argv, expected in _UNIT_OUT:
                out.append((f"{cmd}-{ident}", [cmd, *argv], expected, {}))
    return out


# fpforge prove dot (issue 29, item 2): exhaustive dot-unit proofs of at most 2^36 operand patterns.
_PD = ["prove", "dot", "--preset", "e4m3", "--r", "2", "--f", "24"]
_PROVE_DOT_CASES = [
    ("prove-dot-too-many-patterns", ["prove", "dot", "--preset", "e4m3", "--r", "4", "--f", "24"],
     "has 2^64 operand patterns (32 + 32 operand bits); fpforge prove dot proves at most 2^36"),
    ("prove-dot-block-too-many-patterns", ["prove", "dot", "--preset", "mx4", "--r", "16", "--f", "24"],
     "operand patterns"),
    ("prove-dot-unknown-preset", ["prove", "dot", "--preset", "nope", "--r", "2", "--f", "24"],
     "unknown dot-product operand format 'nope'; valid:"),
    ("prove-dot-no-r", ["prove", "dot", "--preset", "e4m3", "--f", "24"], "dot needs --r"),
    ("prove-dot-format-not-preset", ["prove", "dot", "-f", "e4m3", "--r", "2", "--f", "24"], "takes --preset"),
    ("prove-dot-bias-fixed-bias", [*_PD, "--bias", "7"], "--bias applies to dot units of run-time-bias operands"),
    ("prove-dot-bias-out-of-range", ["prove", "dot", "--preset", "cfloat8_143", "--r", "2", "--f", "24", "--bias",
                                     "64"], "biases must be integers in 0..63, not 64"),
    ("prove-dot-stages", [*_PD, "--stages", "2"], "checks the combinational dot unit (stages 0), not stages 2"),
    ("prove-dot-io-registers", [*_PD, "--io-registers"], "--io-registers adds registers"),
    ("prove-dot-epilogue", [*_PD, "--out-format", "e4m3"], "the epilogue (--scale, --amax, --out-format) is not"),
    ("prove-dot-raw-too-wide", ["prove", "dot", "--preset", "e4m3", "--r", "2", "--f", "40", "--raw"],
     "with --raw are 80 bits (y, sum, exp)"),
    ("prove-dot-netlist", [*_PD, "--netlist"], "does not take --netlist"),
    ("prove-dot-seed", [*_PD, "--seed", "1"], "does not take --seed (a dot unit has no rand port)"),
    ("prove-dot-only", [*_PD, "--only", "e4m3"], "does not take --only"),
    ("prove-dot-range-past-end", ["prove", "dot", "--preset", "e2m1", "--r", "2", "--f", "16", "--range",
                                  "0:0x20000"], "END 0x20000 is past the end"),
    ("prove-dot-verilog-missing", [*_PD, "--verilog", "nofile.v"], "--verilog 'nofile.v': no such file"),
    ("prove-dot-top-without-verilog", [*_PD, "--top", "m"], "--top applies to --verilog FILE"),
    ("prove-dot-jobs-zero", [*_PD, "--jobs", "0"], "--jobs must be positive, not 0"),
    ("prove-dot-record-with-unit", [*_PD, "--record"], "proves the record's dot units; it takes --list, --only and "
     "--jobs, not --preset"),
    ("prove-dot-record-only-unknown", ["prove", "dot", "--record", "--only", "mx9"], "--only 'mx9' is not a dot unit "
     "of the record; valid: e4m3,"),
    ("prove-encoder-record", ["prove", "encoder", "-f", "e4m3", "--record"], "--record applies to `fpforge prove "
     "dot`"),
    ("prove-all-record", ["prove", "all", "--record"], "not --record"),
    ("prove-dot-verilog-no-module", [*_PD, "--verilog", "{file}"], "defines no module 'fpforge_dot_e4m3_r2_f24' (it "
     "defines no module); name the unit's module with --top"),
]

# `--activity workload` (issue 28, item 2): units without a workload, unknown activity names. Each fails before
# the library, OpenSTA or yosys is needed.
_WL = ["--clock-ns", "2", "--power", "--activity", "workload"]
_WORKLOAD_CASES = [
    ("synth-workload-block-decoder", ["synth", "block-decoder", "-f", "mx6", *_WL],
     "--activity workload: no workload for a block-decoder unit"),
    ("synth-workload-scaled-encoder", ["synth", "scaled-encoder", "-f", "e4m3", *_WL],
     "no workload for a scaled-encoder unit"),
    ("synth-workload-stream-dot", ["synth", "dot", "--preset", "mx6", "--r", "16", "--f", "32", "--stages", "1", *_WL],
     "no workload for a pipelined (stream) dot unit (stages > 0)"),
    ("synth-workload-stream-encoder", ["synth", "encoder", "-f", "e4m3", "--latency", "2", *_WL],
     "no workload for a pipelined (stream) encoder"),
    ("synth-workload-dot-epilogue", ["synth", "dot", "--preset", "e4m3", "--r", "2", "--f", "32", "--scale", *_WL],
     "no workload for a dot unit with the scale/amax epilogue"),
    ("synth-activity-capitalized", [*_PPA_SYNTH, "--clock-ns", "2", "--power", "--activity", "Workload"],
     "unknown --activity 'Workload'; valid: vectorless, workload"),
    ("synth-activity-empty", [*_PPA_SYNTH, "--clock-ns", "2", "--power", "--activity", ""],
     "unknown --activity ''; valid: vectorless, workload"),
    ("synth-activity-workload-without-power", [*_PPA_SYNTH, "--clock-ns", "2", "--activity", "workload"],
     "--activity applies to --power"),
    ("sweep-activity-unknown", ["sweep", "small", "--ppa", "--clock-ns", "5", "--activity", "toggles"],
     "invalid choice: 'toggles' (choose from 'workload', 'vectorless')"),
    ("sweep-activity-without-ppa", ["sweep", "small", "--activity", "vectorless"],
     "--activity vectorless is the switching activity of --ppa's power: add --ppa"),
] + _space_files([
    ("space-activity-unknown", _PPA_SPACE + 'ppa = true\nclock_ns = 5\nactivity = "toggles"\n',
     "[synth] activity: unknown activity 'toggles' (valid: workload"),
    ("space-activity-not-a-string", _PPA_SPACE + 'ppa = true\nclock_ns = 5\nactivity = 1\n', "[synth] activity"),
])

CLI_CASES = (_rows("", _GLOBAL) + _rows("", _TABLE) + _rows("", _PLOT) + _rows("", _QSNR) + _rows("", _DOT_ERROR)
             + _unit_rows() + _rows("", _VERILOG) + _rows("", _SIM) + _rows("", _SYNTH) + _rows("", _SCALE)
             + _rows("", _PROVE) + _rows("", _SWEEP) + _rows("", _SWEEP_CSV) + _rows("", _SPACE_FILE) + _rows("", _LINT)
             + _rows("", _CLEAN) + _rows("", _ENV_CASES)
             + _rows("", _MSGS) + _rows("", _SILENT) + _rows("", _SLOW)
             + _rows("", _AUDIT) + _rows("", _AUDIT_SPACES)
             + _rows("", _WINDOW_BITS_CASES) + _rows("", _PPA_CASES) + _rows("", _EQUIV_CASES)
             + _rows("", _FUSESOC_CASES) + _rows("", _LATENCY_CASES) + _rows("", _RF_CASES)
             + _rows("", _CLUSTER_CASES) + _rows("", _SWEEP_PPA_CASES)
             + _rows("", _GOAL_CASES) + _rows("", _FLOW_CASES)
             + _rows("", _PROVE_DOT_CASES)
             + _rows("", _WORKLOAD_CASES)
             + _rows("", _SIM_DESIGN_CASES)
             + _rows("", _ESTIMATE_CASES)
             + _rows("", _DATAPATH_CASES)
             + _rows("", _PPA_REPORT_CASES)
             + _rows("", _EQUIV_UNIT_CASES))


# -- Python API calls --------------------------------------------------------------------------------------
def _api_cases():
    from fpforge import golden
    from fpforge.golden import dot as gdot
    from fpforge.golden import qsnr as gq
    from fpforge.hw import DotProduct, build_unit, to_verilog

    x = np.ones(32, np.float32)
    enc = golden.encode_block("mx9", np.ones((2, 32), np.float32))
    cfg = gdot.DotConfig("mx9", 32, 16)
    e4 = gdot.DotConfig("e4m3", 4, 16)
    codes = np.zeros((1, 4), np.uint8)
    T, V = TypeError, ValueError
    cases = [
        # decode: codes are integers in range, never cast
        ("decode-float-list", lambda: golden.decode("e4m3", [1.7]), T, "codes of e4m3"),
        ("decode-float-array", lambda: golden.decode("e4m3", np.array([1.0, 2.0])), T, "codes of e4m3"),
        ("decode-bool-list", lambda: golden.decode("e4m3", [True, False]), T, "codes of e4m3"),
        ("decode-bool-array", lambda: golden.decode("e4m3", np.array([True])), T, "codes of e4m3"),
        ("decode-string", lambda: golden.decode("e4m3", "0x38"), T, "codes of e4m3"),
        ("decode-object-array", lambda: golden.decode("e4m3", np.array([1, 2], object)), T, "codes of e4m3"),
        ("decode-complex", lambda: golden.decode("e4m3", np.array([1j])), T, "codes of e4m3"),
        ("decode-too-large", lambda: golden.decode("e4m3", [256]), V, "codes of e4m3"),
        ("decode-negative", lambda: golden.decode("e4m3", [-1]), V, "codes of e4m3"),
        ("decode-int16-out-of-range", lambda: golden.decode("e4m3", np.array([300], np.int16)), V, "codes of e4m3"),
        ("decode-huge-int", lambda: golden.decode("e4m3", 2**70), V, "codes of e4m3"),
        ("decode-ragged", lambda: golden.decode("e4m3", [[1], [1, 2]]), T, "codes of e4m3"),
        ("decode-unknown-format", lambda: golden.decode("e9m9", [0]), V, "unknown format 'e9m9'"),
        ("decode-format-int", lambda: golden.decode(5, [0]), T, "format must be"),
        ("decode-block-format", lambda: golden.decode("mx9", [0]), V, "block format"),
        ("decode-bias-fixed", lambda: golden.decode("e4m3", [0], bias=3), V, "fixed bias"),
        ("decode-bias-missing", lambda: golden.decode("cfloat8_143", [0]), V, "run-time bias"),
        ("decode-bias-float", lambda: golden.decode("cfloat8_143", [0], bias=2.0), T, "bias of 'cfloat8_143'"),
        ("decode-bias-array-float", lambda: golden.decode("cfloat8_143", [0, 1], bias=np.array([1.0, 2.0])), T,
         "bias of 'cfloat8_143'"),
        ("decode-bias-array-64", lambda: golden.decode("cfloat8_143", [0, 1], bias=[1, 64]), V,
         "bias of 'cfloat8_143'"),
        ("decode-bias-shape", lambda: golden.decode("cfloat8_143", [0, 1, 2], bias=[1, 2]), V, "bias of shape"),
        ("decode-ieee-denormals-int", lambda: golden.decode("cfloat8_143", [0], bias=1, ieee_denormals=1), T,
         "ieee_denormals"),
        ("decode-ieee-denormals-e4m3", lambda: golden.decode("e4m3", [0], ieee_denormals=True), V, "ieee_denormals"),
        ("decode-bits-target", lambda: golden.decode_bits("e4m3", [0], "fp8"), V, "unknown target 'fp8'"),
        ("decode-bits-target-int", lambda: golden.decode_bits("e4m3", [0], 32), V, "unknown target"),
        ("decode-bits-float-codes", lambda: golden.decode_bits("e5m2", [0.5]), T, "codes of e5m2"),
        ("decode-compat-unknown", lambda: golden.decode("hif8", [0], compat="arm"), V, "unknown compat 'arm'"),
        ("decode-compat-not-hif8", lambda: golden.decode("e4m3", [0], compat="ascend"), V, "applies to HiF8"),
        ("decode-compat-bool", lambda: golden.decode("hif8", [0], compat=True), T, "compat"),
        ("decode-bits-compat-e5m2", lambda: golden.decode_bits("e5m2", [0], compat="ascend"), V, "applies to HiF8"),
        ("encode-compat-unknown", lambda: golden.encode("hif8", x, compat="huawei"), V, "unknown compat"),
        ("encode-compat-not-hif8", lambda: golden.encode("e5m2", x, compat="ascend"), V, "applies to HiF8"),
        ("encode-compat-list", lambda: golden.encode("hif8", x, compat=["ascend"]), T, "compat"),
        # encode: x must be FP32/FP16/BF16, options of the right type
        ("encode-float64", lambda: golden.encode("e4m3", np.ones(3)), T, "source dtype"),
        ("encode-int32", lambda: golden.encode("e4m3", np.ones(3, np.int32)), T, "source dtype"),
        ("encode-list", lambda: golden.encode("e4m3", [1.0, 2.0]), T, "source dtype"),
        ("encode-python-float", lambda: golden.encode("e4m3", 1.0), T, "source dtype"),
        ("encode-bool-array", lambda: golden.encode("e4m3", np.array([True])), T, "source dtype"),
        ("encode-fp8-dtype", lambda: golden.encode("e4m3", np.ones(2, ml_dtypes.float8_e4m3fn)), T, "source dtype"),
        ("encode-object", lambda: golden.encode("e4m3", np.array([1.0], object)), T, "source dtype"),
        ("encode-unknown-rounding", lambda: golden.encode("e4m3", x, rounding="nearest"), V, "has no rounding"),
        ("encode-rounding-int", lambda: golden.encode("e4m3", x, rounding=0), V, "has no rounding"),
        ("encode-rounding-hr-e4m3", lambda: golden.encode("e4m3", x, rounding="hr"), V, "has no rounding 'hr'"),
        ("encode-saturate-string", lambda: golden.encode("e4m3", x, saturate="yes"), T, "saturate"),
        ("encode-saturate-int", lambda: golden.encode("e4m3", x, saturate=1), T, "saturate"),
        ("encode-nan-to-zero-none", lambda: golden.encode("e4m3", x, nan_to_zero=None), T, "nan_to_zero"),
        ("encode-seed-float", lambda: golden.encode("e4m3", x, rounding="sr", seed=1.5), T, "seed"),
        ("encode-seed-string", lambda: golden.encode("e4m3", x, rounding="sr", seed="7"), T, "seed"),
        ("encode-rand-bits-zero", lambda: golden.encode("e4m3", x, rounding="sr", rand_bits=0), V, "rand_bits"),
        ("encode-rand-bits-float", lambda: golden.encode("e4m3", x, rounding="sr", rand_bits=8.0), T, "rand_bits"),
        ("encode-rand-float", lambda: golden.encode("e4m3", x, rounding="sr", rand=np.full(32, 0.5)), T, "rand"),
        ("encode-rand-out-of-range", lambda: golden.encode("e4m3", x, rounding="sr", rand=np.full(32, 1 << 16)), V,
         "rand"),
        ("encode-rand-count", lambda: golden.encode("e4m3", x, rounding="sr", rand=np.zeros(3, int)), V, "rand"),
        ("encode-rand-without-sr", lambda: golden.encode("e4m3", x, rand=np.zeros(32, int)), V, "rand"),
        ("encode-paper-literal-e4m3", lambda: golden.encode("e4m3", x, paper_literal=True), V, "paper_literal"),
        ("encode-paper-literal-int", lambda: golden.encode("hif8", x, rounding="hr", paper_literal=1), T,
         "paper_literal"),
        ("encode-bias-fixed", lambda: golden.encode("e5m2", x, bias=3), V, "fixed bias"),
        ("encode-bias-too-large", lambda: golden.encode("cfloat8_152", x, bias=64), V, "bias of 'cfloat8_152'"),
        ("encode-bias-bool", lambda: golden.encode("cfloat8_152", x, bias=True), T, "bias of 'cfloat8_152'"),
        ("encode-block-format", lambda: golden.encode("mx9", x), V, "block format"),
        ("encode-flags-float64", lambda: golden.encode_flags("e5m2", np.ones(2)), T, "source dtype"),
        ("encode-with-flags-rounding", lambda: golden.encode_with_flags("hif8", x, rounding="rne2"), V,
         "has no rounding"),
        ("get-format-unknown", lambda: golden.get_format("e4m4"), V, "unknown format 'e4m4'"),
        ("get-format-none", lambda: golden.get_format(None), T, "format must be"),
        ("get-format-int", lambda: golden.get_format(8), T, "format must be"),
        ("source-of-list", lambda: golden.source_of([1.0]), T, "source dtype"),
        ("code-dtype-too-wide", lambda: golden.code_dtype(65), V, "65"),
        ("random-bits-zero-bits", lambda: golden.random_bits(0, 4, 0), V, "random bits per value"),
        ("random-bits-negative-n", lambda: golden.random_bits(0, -1), V, "non-negative"),
        # block formats
        ("bdr-m-zero", lambda: golden.bdr(0, 16, 8, 2, 1), V, "m (magnitude bits)"),
        ("bdr-m-float", lambda: golden.bdr(7.0, 16, 8, 2, 1), V, "m (magnitude bits)"),
        ("bdr-k2-not-divisor", lambda: golden.bdr(7, 16, 8, 3, 1), V, "k2 (sub-block size)"),
        ("bdr-d1-too-large", lambda: golden.bdr(7, 16, 9, 2, 1), V, "d1 (shared exponent bits)"),
        ("bdr-d2-too-large", lambda: golden.bdr(7, 16, 8, 2, 5), V, "d2 (sub-block shift bits)"),
        ("encode-block-float64", lambda: golden.encode_block("mx9", np.ones(16)), T, "source dtype"),
        ("encode-block-length", lambda: golden.encode_block("mx9", np.ones(15, np.float32)), V, "multiple of k1"),
        ("encode-block-scalar", lambda: golden.encode_block("mx9", np.float32(1)), V, "multiple of k1"),
        ("encode-block-rounding", lambda: golden.encode_block("mx9", x, rounding="hr"), V, "has no rounding"),
        ("encode-block-scalar-format", lambda: golden.encode_block("e4m3", x), V, "not a block format"),
        ("encode-block-seed-float", lambda: golden.encode_block("mx9", x, rounding="sr", seed=0.5), T, "seed"),
        ("encode-block-rand-without-sr", lambda: golden.encode_block("mx9", x, rand=np.zeros(32, int)), V, "rand"),
        ("decode-block-not-encoding", lambda: golden.decode_block("mx9", np.zeros(16)), T, "BlockEncoding"),
        ("decode-block-other-format", lambda: golden.decode_block("mx6", enc), V, "encoding is in 'mx9'"),
        ("block-encoding-float-elem", lambda: golden.BlockEncoding(enc.format, enc.scale, enc.shift,
                                                                   enc.elem.astype(float)), T, "elem"),
        ("block-encoding-elem-range", lambda: golden.BlockEncoding(enc.format, enc.scale, enc.shift,
                                                                   enc.elem.astype(np.int32) + 256), V, "elem"),
        ("block-encoding-shift-range", lambda: golden.BlockEncoding(enc.format, enc.scale, enc.shift + 2,
                                                                    enc.elem), V, "shift"),
        ("block-encoding-scale-range", lambda: golden.BlockEncoding(enc.format, enc.scale.astype(int) + 256,
                                                                    enc.shift, enc.elem), V, "scale"),
        ("block-encoding-shape", lambda: golden.BlockEncoding(enc.format, enc.scale, enc.shift, enc.elem[..., :8]),
         V, "elem"),
        ("block-encoding-format", lambda: golden.BlockEncoding(42, enc.scale, enc.shift, enc.elem), T, "format"),
        ("pack-not-encoding", lambda: golden.pack("mx9", b"\x00" * 18), T, "BlockEncoding"),
        ("unpack-int16-300", lambda: golden.unpack("mx9", np.array([300] * 18, np.int16), (16,)), V, "data"),
        ("unpack-float-data", lambda: golden.unpack("mx9", np.zeros(18), (16,)), T, "data"),
        ("unpack-short", lambda: golden.unpack("mx9", b"\x00" * 17, (16,)), V, "need 18 bytes"),
        ("unpack-shape-float", lambda: golden.unpack("mx9", b"\x00" * 18, (16.0,)), T, "shape"),
        ("unpack-shape-not-multiple", lambda: golden.unpack("mx9", b"\x00" * 18, (15,)), V, "shape"),
        ("unpack-shape-negative", lambda: golden.unpack("mx9", b"\x00" * 18, (-16,)), V, "shape"),
        ("block-words-not-encoding", lambda: golden.block_words("mx9", [0]), T, "BlockEncoding"),
        ("from-block-words-float", lambda: golden.from_block_words("mx9", [1.5]), T, "words of mx9"),
        ("from-block-words-negative", lambda: golden.from_block_words("mx9", [-1]), V, "words of mx9"),
        ("from-block-words-too-wide", lambda: golden.from_block_words("mx9", [1 << 144]), V, "words of mx9"),
        ("from-block-words-string", lambda: golden.from_block_words("mx9", "123"), T, "words"),
        ("from-block-words-shape", lambda: golden.from_block_words("mx9", [0, 0], (16,)), V, "shape"),
        ("quantize-float64", lambda: golden.quantize("mx6", np.ones(16)), T, "source dtype"),
        # dot products
        ("dot-config-r", lambda: gdot.DotConfig("mx9", 24, 16), V, "r must be a positive multiple"),
        ("dot-config-f", lambda: gdot.DotConfig("mx9", 32, 7), V, "f (bits of the fixed-point window"),
        ("dot-config-f-float", lambda: gdot.DotConfig("mx9", 32, 16.0), T, "f must be an integer (bits of the"),
        ("dot-config-families", lambda: gdot.DotConfig("mx9", 32, 16, "mxint8"), V, "must be of one family"),
        ("dot-config-unknown", lambda: gdot.DotConfig("nope", 32, 16), V, "unknown dot-product operand format"),
        ("dot-float-codes", lambda: gdot.dot(e4, np.full((1, 4), 56.7), None, codes), T, "operand A codes"),
        ("dot-codes-range", lambda: gdot.dot(e4, codes, None, np.full((1, 4), 256)), V, "operand B codes"),
        ("dot-select-float", lambda: gdot.dot(gdot.DotConfig("fp8", 4, 16), codes, None, codes, select_a=0.5), T,
         "select_a"),
        ("dot-select-range", lambda: gdot.dot(gdot.DotConfig("fp8", 4, 16), codes, None, codes, select_b=[2]), V,
         "select_b"),
        ("dot-select-block", lambda: gdot.dot(cfg, enc, None, enc, select_a=1), V, "select_a"),
        ("dot-bias-missing", lambda: gdot.dot(gdot.DotConfig("cfloat8_143", 4, 16), codes, None, codes, bias_b=0), V,
         "pass bias_a= an integer in 0..63"),
        ("dot-bias-range", lambda: gdot.dot(gdot.DotConfig("cfloat8_143", 4, 16), codes, None, codes, bias_a=64,
                                            bias_b=0), V, "bias_a of cfloat8_143 must be integers in 0..63"),
        ("dot-bias-float", lambda: gdot.dot(gdot.DotConfig("cfloat8_152", 4, 16), codes, None, codes, bias_a=7.0,
                                            bias_b=0), T, "bias_a"),
        ("dot-bias-fixed", lambda: gdot.dot(e4, codes, None, codes, bias_a=7), V, "e4m3 has a fixed bias"),
        ("dot-exact-bias-missing", lambda: gdot.dot_exact(gdot.DotConfig("cfloat8_143", 4, 16), codes, None, codes),
         V, "run-time bias"),
        ("dot-no-b", lambda: gdot.dot(cfg, enc), V, "operand B is required"),
        ("dot-no-f", lambda: gdot.dot("mx9", enc, "mx9", enc), V, "f (bits of the fixed-point window) is required"),
        ("dot-block-not-encoding", lambda: gdot.dot(cfg, np.zeros((2, 32), np.uint8), None, enc), T,
         "BlockEncoding"),
        ("dot-wrong-r", lambda: gdot.dot(gdot.DotConfig("mx9", 16, 16), enc, None, enc), V, "r = 16 elements"),
        ("dot-exact-float-codes", lambda: gdot.dot_exact(e4, np.full((1, 4), 1.5), None, codes), T, "operand A"),
        ("operand-words-float", lambda: gdot.operand_words("e4m3", np.full((1, 4), 0.5)), T, "data"),
        ("operand-words-not-encoding", lambda: gdot.operand_words("mx9", np.zeros((1, 32), np.uint8)), T, "data"),
        ("from-operand-words-float", lambda: gdot.from_operand_words("e4m3", [0.5], 4), T, "words"),
        ("from-operand-words-negative", lambda: gdot.from_operand_words("e4m3", [-1], 4), V, "words"),
        ("from-operand-words-r", lambda: gdot.from_operand_words("mx9", [0], 20), V, "r must be"),
        ("fp32-bits-float", lambda: gdot.fp32_bits(np.array([1.5]), np.array([0])), T, "T must be"),
        ("fp32-bits-exp-float", lambda: gdot.fp32_bits(np.array([1]), np.array([0.5])), T, "exp must be"),
        ("quantized-operands-cfg", lambda: gdot.quantized_operands("mx9", np.ones((1, 32), np.float32)), T, "cfg"),
        ("quantized-operands-float64", lambda: gdot.quantized_operands(cfg, np.ones((1, 32))), T, "source dtype"),
        ("quantized-operands-side", lambda: gdot.quantized_operands(cfg, np.ones((1, 32), np.float32), side="c"), V,
         "side"),
        ("error-sweep-f", lambda: gdot.error_sweep(["mx9"], [4], r=32, n_vectors=2), V, "f (bits of the fixed-point"),
        ("error-sweep-vectors", lambda: gdot.error_sweep(["mx9"], [16], r=32, n_vectors=0), V, "n_vectors"),
        ("error-sweep-empty", lambda: gdot.error_sweep([], [16], r=32, n_vectors=2), V, "formats and fs"),
        ("operand-format-fp32", lambda: gdot.operand_format("fp32"), V, "cannot be a dot-product operand"),
        ("scalar-set-empty", lambda: gdot.ScalarSet(()), V, "at least one element format"),
        # QSNR
        ("qsnr-float64", lambda: gq.qsnr("e4m3", np.ones((2, 16))), T, "source dtype"),
        ("qsnr-nan", lambda: gq.qsnr("e4m3", np.full((1, 4), np.nan, np.float32)), V, "finite"),
        ("qsnr-scalar", lambda: gq.qsnr("e4m3", np.float32(1)), V, "last axis"),
        ("qsnr-rounding", lambda: gq.qsnr("e4m3", np.ones((1, 4), np.float32), rounding="hr"), V, "has no rounding"),
        ("qsnr-bound-scalar", lambda: gq.qsnr_bound("e4m3"), V, "BDR formats"),
        ("qsnr-bound-rounding", lambda: gq.qsnr_bound("mx9", "hr"), V, "has no rounding"),
        ("qsnr-table-rounding", lambda: gq.qsnr_table(("e4m3",), n_vectors=2, length=8, rounding="foo"), V,
         "unknown rounding 'foo'"),
        ("qsnr-table-none-offers", lambda: gq.qsnr_table(("mx9",), n_vectors=2, length=16, rounding="hr"), V,
         "offers rounding"),
        ("qsnr-table-empty", lambda: gq.qsnr_table((), n_vectors=2, length=16), V, "names no format"),
        ("qsnr-table-length", lambda: gq.qsnr_table(("mx9",), n_vectors=2, length=20), V, "multiple of mx9"),
        ("gaussian-zero-vectors", lambda: gq.gaussian_vectors(0), V, "n_vectors"),
        ("gaussian-float-length", lambda: gq.gaussian_vectors(2, 8.0), T, "length"),
        ("gaussian-huge", lambda: gq.gaussian_vectors(1 << 20, 1 << 10), V, "at most"),
        ("gaussian-sigma", lambda: gq.gaussian_vectors(2, 8, 0, (5, 1)), V, "log2_sigma"),
        ("gaussian-seed-float", lambda: gq.gaussian_vectors(2, 8, 0.5), T, "seed"),
        # hardware
        ("build-unit-unknown", lambda: build_unit("adder", format="e4m3"), V, "unknown unit 'adder'"),
        ("build-unit-compat-e4m3", lambda: build_unit("encoder", format="e4m3", compat="ascend"), V, "applies to HiF8"),
        ("build-unit-compat-unknown", lambda: build_unit("decoder", format="hif8", compat="arm"), V, "unknown compat"),
        ("build-unit-compat-int", lambda: build_unit("encoder", format="hif8", compat=1), T, "compat"),
        ("build-unit-compat-dot", lambda: build_unit("dot", format="mx9", r=32, f=16, compat="ascend"), V,
         "does not take compat"),
        ("build-unit-compat-block", lambda: build_unit("block-encoder", format="mx9", compat="ascend"), V,
         "does not take compat"),
        ("build-unit-latency-float", lambda: build_unit("encoder", format="e4m3", latency=1.5), T, "latency"),
        ("build-unit-latency-large", lambda: build_unit("encoder", format="e4m3", latency=10**6), V, "latency"),
        ("build-unit-saturate-string", lambda: build_unit("encoder", format="e4m3", saturate="yes"), T, "saturate"),
        ("build-unit-rand-bits", lambda: build_unit("encoder", format="e4m3", rounding=("sr",), rand_bits=0), V,
         "rand_bits"),
        ("build-unit-rand-bits-no-sr", lambda: build_unit("encoder", format="e4m3", rand_bits=8), V, "rand_bits"),
        ("build-unit-target-encoder", lambda: build_unit("encoder", format="e4m3", target="fp16"), V, "target"),
        ("build-unit-rounding-empty", lambda: build_unit("encoder", format="e4m3", rounding=()), V, "rounding"),
        ("build-unit-rounding-int", lambda: build_unit("encoder", format="e4m3", rounding=3), T, "rounding"),
        ("build-unit-dot-latency", lambda: build_unit("dot", format="mx9", r=32, f=16, latency=1), V, "latency"),
        # the dot epilogue
        ("dot-epilogue-amax-combinational", lambda: build_unit("dot", format="mx9", r=16, f=24, amax=True), V,
         "give stages >= 1"),
        ("dot-epilogue-scale-int", lambda: build_unit("dot", format="mx9", r=16, f=24, scale=1), T,
         "scale must be True or False"),
        ("dot-epilogue-out-format-block", lambda: DotProduct("mx9", 16, 24, out_format="mx9"), V,
         "scalar format of at most 8 bits"),
        ("dot-epilogue-out-format-unknown", lambda: DotProduct("mx9", 16, 24, out_format="e9m9"), V,
         "unknown format 'e9m9'"),
        ("dot-epilogue-rounding-sr", lambda: DotProduct("mx9", 16, 24, out_format="e4m3", out_rounding="sr"), V,
         "no random source"),
        ("dot-epilogue-rounding-tuple", lambda: DotProduct("mx9", 16, 24, out_format="e4m3", out_rounding=("rne",)),
         T, "out_rounding must be one mode name"),
        ("dot-epilogue-rounding-without-cast", lambda: DotProduct("mx9", 16, 24, out_rounding="rne"), V,
         "give out_format"),
        ("dot-epilogue-no-saturate-without-cast", lambda: DotProduct("mx9", 16, 24, scale=True, saturate=False), V,
         "give out_format"),
        ("dot-epilogue-saturate-runtime", lambda: build_unit("dot", format="mx9", r=16, f=24, out_format="e4m3",
                                                             saturate="runtime"), V, "not 'runtime'"),
        ("dot-epilogue-rounding-no-cast", lambda: build_unit("dot", format="mx9", r=16, f=24, stages=1,
                                                             rounding="rne"), V, "does not take rounding"),
        ("encoder-amax", lambda: build_unit("encoder", format="e4m3", amax=True), V, "does not take amax"),
        ("to-verilog-empty-name", lambda: to_verilog(build_unit("decoder", format="e4m3"), ""), V, "module name"),
    ]
    return cases + _msgs_api_cases() + _sweep_csv_api_cases() + _silent_api_cases()


def _msgs_api_cases():
    """Unclear messages (issue 30, class 6): each message names the argument as the caller spelt it."""
    from fpforge.golden import dot as gdot
    from fpforge.golden.scaling import epilogue
    from fpforge.golden.scaling_demo import run_demo
    from fpforge.hw import build_unit

    T, V = TypeError, ValueError

    f32 = np.ones(4, np.float32)
    dot = dict(format="mx9", r=16, f=24, out_format="e4m3")
    msgs = [
        ("dot-config-r-float", lambda: gdot.DotConfig("mx9", r=16.0, f=16), T,
         "r must be an integer (a positive multiple of k1 = 16 (mx9), at most 1048576), not float 16.0"),
        ("dot-config-r-bool", lambda: gdot.DotConfig("mx9", r=True, f=16), T, "r must be an integer"),
        ("build-unit-dot-r-float", lambda: build_unit("dot", format="mx9", r=32.0, f=16), T, "r must be an integer"),
        ("epilogue-out-fmt-block", lambda: epilogue(f32, 1.0, 1.0, out_fmt="mx9"), V,
         "out_fmt must be a scalar format"),
        ("build-unit-dot-out-rounding-sr", lambda: build_unit("dot", out_rounding="sr", **dot), V,
         "out_rounding must be one of rne, ta, rtz, not 'sr'"),
        ("build-unit-dot-out-rounding-unknown", lambda: build_unit("dot", out_rounding="hr", **dot), V,
         "unknown rounding 'hr' for e4m3 (out_rounding)"),
        ("build-unit-dot-out-rounding-no-cast", lambda: build_unit("dot", format="mx9", r=16, f=24,
                                                                   out_rounding="rne"), V,
         "does not take out_rounding"),
        ("build-unit-dot-rounding-sr", lambda: build_unit("dot", rounding="sr", **dot), V,
         "rounding must be one of rne, ta, rtz, not 'sr'"),
        ("build-unit-dot-rounding-twice", lambda: build_unit("dot", rounding="rne", out_rounding="rtz", **dot), V,
         "rounding and out_rounding are one option"),
        ("build-unit-encoder-out-rounding", lambda: build_unit("encoder", format="e4m3", out_rounding="rne"), V,
         "an encoder unit takes rounding"),
        ("run-demo-histories-zero", lambda: run_demo(histories=[0]), V,
         "histories (amax history lengths) must be integers in 1..1048576"),
        ("run-demo-histories-float", lambda: run_demo(histories=[1.5]), T, "histories (amax history lengths)"),
        ("run-demo-margins-negative", lambda: run_demo(margins=[-1]), V, "margins (each scale divided by"),
    ]
    return msgs


def _silent_api_cases():
    """Silent or odd results and tracebacks of the API (issue 30, classes 4 and 5)."""
    from fpforge import golden
    from fpforge.golden import qsnr as gq
    from fpforge.golden.scaling import DelayedScaling
    from fpforge.golden.scaling_demo import double_rounding_table, drifting_tensor, run_demo
    from fpforge.golden.summary import bias_ranges, summary_table
    from fpforge.hw import EncoderSpec, UnitSpec, Xorshift32, build_unit, default_name, to_verilog
    from fpforge.synth.liberty import parse_liberty_text

    x = np.ones(4, np.float32)
    enc = EncoderSpec(format="e4m3").to_dict()
    def dec():
        return build_unit("decoder", format="e4m3")

    T, V = TypeError, ValueError
    return [
        ("to-verilog-none", lambda: to_verilog(None), T, "to_verilog takes a unit built by build_unit"),
        ("to-verilog-unit-name", lambda: to_verilog("encoder"), T, "not 'encoder'"),
        ("to-verilog-spec", lambda: to_verilog(EncoderSpec(format="e4m3")), T, "to_verilog takes a unit"),
        ("default-name-none", lambda: default_name(None), T, "default_name takes a unit"),
        ("to-verilog-name-is-a-port", lambda: to_verilog(dec(), "y"), V, "is also the name of a signal"),
        ("to-verilog-name-keyword", lambda: to_verilog(dec(), "always"), V, "keyword"),
        ("to-verilog-name-int", lambda: to_verilog(dec(), 5), V, "module name must be a Verilog identifier"),
        ("spec-from-dict-unknown-format-option", lambda: UnitSpec.from_dict(
            dict(enc, format={"name": "e4m3", "with": {"bogus": 1}})), V, "unknown field(s) bogus of e4m3"),
        ("spec-from-dict-format-option-of-registered-only", lambda: UnitSpec.from_dict(
            dict(enc, format={"name": "e4m3", "with": {"roundings": 5}})), T, "roundings"),
        ("spec-from-dict-unit-list", lambda: UnitSpec.from_dict({"unit": ["encoder"]}), V, "unknown unit"),
        ("spec-from-dict-unit-dict", lambda: UnitSpec.from_dict({"unit": {}}), V, "unknown unit"),
        ("spec-from-dict-sha256-mismatch", lambda: UnitSpec.from_dict(dict(enc, sha256="0" * 64)), V,
         "is not the hash of its fields"),
        ("spec-from-json-none", lambda: UnitSpec.from_json(None), T, "from_json takes the JSON text"),
        ("spec-from-json-list", lambda: UnitSpec.from_json("[1, 2]"), T, "must be a mapping"),
        ("delayed-scaling-update-negative", lambda: DelayedScaling("e4m3").update(-5), V, "amax must be >= 0"),
        ("delayed-scaling-update-minus-inf", lambda: DelayedScaling("e4m3").update(np.float32(-np.inf)), V,
         "amax must be >= 0"),
        ("delayed-scaling-update-ragged", lambda: DelayedScaling("e4m3").update([[1.0], [1.0, 2.0]]), T, "amax"),
        ("delayed-scaling-step-float64", lambda: DelayedScaling("e4m3").step(np.ones(4)), T, "x must hold float32"),
        ("summary-table-block-format", lambda: summary_table(["mx9"]), V, "'mx9' is a block format"),
        ("summary-table-string", lambda: summary_table("e4m3"), T, "formats must be a list"),
        ("bias-ranges-block-format", lambda: bias_ranges("mx9"), V, "'mx9' has a fixed bias"),
        ("run-demo-unsigned", lambda: run_demo("uhp", steps=2, size=16), V, "uhp is unsigned"),
        ("run-demo-seed-too-large", lambda: run_demo("e4m3", steps=2, size=16, seed=2**32), V, "seed"),
        ("drifting-tensor-seed-negative", lambda: next(drifting_tensor(2, 16, -1)), V, "seed"),
        ("double-rounding-seed-float", lambda: double_rounding_table(["e4m3"], n=4096, seed=0.5), T, "seed"),
        ("encode-seed-2-32", lambda: golden.encode("e4m3", x, rounding="sr", seed=2**32), V,
         "seed must be an integer in 0..4294967295"),
        ("encode-seed-negative", lambda: golden.encode("e4m3", x, rounding="sr", seed=-1), V, "seed must be"),
        ("random-bits-seed-alias", lambda: golden.random_bits(2**32 + 5, 4), V, "seed must be"),
        ("gaussian-seed-too-large", lambda: gq.gaussian_vectors(2, 8, 2**64), V, "seed must be"),
        ("build-unit-seed-too-large", lambda: build_unit("encoder", format="e4m3", rounding=("sr",), latency=1,
                                                         seed=2**32), V, "seed must be"),
        ("xorshift32-seed-too-large", lambda: Xorshift32(2**32 + 1), V, "seed must be"),
        ("liberty-negative-area", lambda: parse_liberty_text(PLACE_FILES["neglib"], "neg.lib"), V,
         "area '-0.5' must be a finite number >= 0"),
        ("liberty-zero-area", lambda: parse_liberty_text(PLACE_FILES["zerolib"], "zero.lib"), V,
         "logic cell INV_X1 has area 0"),
        ("liberty-nan-area", lambda: parse_liberty_text(PLACE_FILES["zerolib"].replace("area : 0 ", "area : nan "),
                                                        "nan.lib"), V, "must be a finite number >= 0"),
    ]


def _sweep_csv_api_cases():
    """Class 8 of issue 30: the sweep's CSV reader and the INT/FP8 scale-bit reading."""
    from fpforge.sweep import SweepResult, load_space, read_csv
    from fpforge.sweep.claims import check_claims
    from fpforge.sweep.table import with_scale_bits

    T, V = TypeError, ValueError
    return [
        ("sweep-read-csv-missing", lambda: read_csv("nodir/paper.csv", "paper"), V, "cannot read 'nodir/paper.csv'"),
        ("sweep-read-csv-unknown-space", lambda: read_csv("nodir/paper.csv", "nope"), V, "unknown space 'nope'"),
        ("sweep-read-csv-area-space", lambda: read_csv("nodir/paper.csv", "area-fp8"), V, "is an area table"),
        ("sweep-scale-bits-not-bool", lambda: with_scale_bits([], "yes"), T, "counted must be True or False"),
        ("sweep-scale-bits-int", lambda: with_scale_bits([], 1), T, "counted must be True or False"),
        ("sweep-claims-reading-not-bool", lambda: check_claims(SweepResult(load_space("small"), []), "no"), T,
         "counted must be True or False"),
    ]


def _space_api_cases():
    """fpforge.sweep: space dicts (parsed TOML) and points, checked before any work."""
    from fpforge import sweep
    from fpforge.sweep.space import from_dict, grid_points

    def space(**extra):
        return dict({"name": "s", "dot": {"r": 16}, "points": [{"preset": "mx9"}]}, **extra)

    T, V = TypeError, ValueError
    return [
        ("space-dict-grid-int", lambda: from_dict(space(grid=5)), T, "grid: must be an array of tables"),
        ("space-dict-f-uppercase", lambda: from_dict(space(dot={"r": 16, "f": "AUTO"})), V, "'AUTO' is spelled 'auto'"),
        ("space-dict-r-string", lambda: from_dict(space(dot={"r": "16"})), T, "[dot] r: must be an integer"),
        ("space-dict-description-int", lambda: from_dict(space(description=5)), T, "description: must be a string"),
        ("space-dict-k1-48", lambda: from_dict(space(grid=[dict(m=2, k1=48, k2=2, d2=1)])), V,
         "[[grid]] #1 k1: 48 does not divide the QSNR vector length"),
        ("space-grid-k2-3", lambda: grid_points(dict(m=2, k1=16, k2=3, d2=1)), V, "k2: 3 gives no point"),
        ("space-grid-family-case", lambda: grid_points(dict(family="Int", m=3)), V, "'Int' is spelled 'int'"),
        ("space-preset-uppercase", lambda: sweep.preset_points("MX9"), V, "'MX9' is spelled 'mx9'"),
        ("space-preset-int", lambda: sweep.preset_points(9), T, "preset: must be a name"),
        ("space-point-int-with-k1", lambda: sweep.point("int", m=3, k1=16), V, "family int takes only m"),
        ("space-object-k1-not-tiling-r", lambda: sweep.Space("s", sweep.preset_points("mx9"), r=24), V,
         "mx9 has k1 = 16, which does not divide [dot] r = 24"),
    ]


def _decode_source_cases():
    """decode() of the source formats (a view / shift at memory speed) keeps every argument check; so does
    qsnr_table's progress callback."""
    from fpforge import golden
    from fpforge.golden import dot as gdot
    from fpforge.golden import qsnr as gq

    V, T = ValueError, TypeError
    return [
        ("decode-fp32-code-too-large", lambda: golden.decode("fp32", np.array([1, 1 << 32])), V,
         "codes of fp32 must be integer codes in 0..4294967295"),
        ("decode-fp32-negative-code", lambda: golden.decode("fp32", [-1]), V, "not -1"),
        ("decode-fp32-float-codes", lambda: golden.decode("fp32", np.ones(3, np.float32)), T, "codes of fp32"),
        ("decode-bf16-code-too-large", lambda: golden.decode("bf16", 1 << 16), V, "not 65536"),
        ("decode-fp16-bool-codes", lambda: golden.decode("fp16", np.ones(2, bool)), T, "codes of fp16"),
        ("decode-bias-per-element-out-of-range", lambda: golden.decode("cfloat8_143", [1, 2], bias=[3, 64]), V,
         "0..63"),
        ("qsnr-table-progress-not-callable", lambda: gq.qsnr_table(["e4m3"], n_vectors=2, progress=1), T,
         "progress must be None or a callable"),
        ("dot-error-sweep-progress-not-callable", lambda: gdot.error_sweep(["mx9"], [8], n_vectors=2, progress=1),
         T, "progress must be None or a callable"),
    ]


def _audit_api_cases():
    """The audit of issue 30: junk to the public functions of fpforge.sweep, fpforge.sim, fpforge.synth and
    fpforge.jobs (each was a plain TypeError, KeyError or AttributeError, or opened a file descriptor)."""
    from fpforge import jobs, sim, sweep, synth

    pts = sweep.preset_points("mx9")
    T, V = TypeError, ValueError
    return [
        ("audit-sweep-run-executor-int", lambda: sweep.run("small", executor=5), T, "executor must be None or"),
        ("audit-sweep-run-synth-string", lambda: sweep.run("small", synth="yes"), T, "synth must be True or False"),
        ("audit-sweep-run-cache-int", lambda: sweep.run("small", cache=5), T, "cache must be None, False"),
        ("audit-sweep-space-points-none", lambda: sweep.Space("s", None), T, "points: must be a list of points"),
        ("audit-sweep-space-points-ints", lambda: sweep.Space("s", [5]), T, "points: must be a list of points"),
        ("audit-sweep-space-points-empty-dict", lambda: sweep.Space("s", [{}]), T, "points: must be a list"),
        ("audit-sweep-space-liberty-int", lambda: sweep.Space("s", pts, liberty=5), T, "liberty: must be a path"),
        ("audit-sweep-space-name-slash", lambda: sweep.Space("a/b", pts), V, "name: 'a/b' is not a plain name"),
        ("audit-sweep-read-csv-fd", lambda: sweep.read_csv(5, "paper"), T, "path must be a CSV file's path"),
        ("audit-sweep-pareto-none", lambda: sweep.pareto(None), T, "rows must be a list of dicts"),
        ("audit-sweep-memory-accesses-none", lambda: sweep.memory_accesses(None), T, "bits_per_element"),
        ("audit-sweep-memory-rel-negative", lambda: sweep.memory_rel(-8), V, "bits_per_element must be a finite"),
        ("audit-sweep-evaluate-empty-task", lambda: sweep.evaluate({}), T, "task must be a sweep task"),
        ("audit-sim-unit-case-none", lambda: sim.unit_case(None), T, "cfg of unit_case must be a unit spec"),
        ("audit-sim-unit-case-unknown-unit", lambda: sim.unit_case({"unit": "adder"}), V, "cfg['unit'] of unit_case"),
        ("audit-sim-encoder-case-string", lambda: sim.encoder_case("e4m3"), T, "cfg of encoder_case"),
        ("audit-sim-decoder-case-no-format", lambda: sim.decoder_case({}), V, "names no format"),
        ("audit-synth-format-report-none", lambda: synth.format_report(None), T, "report must be a synthesize()"),
        ("audit-synth-format-report-empty", lambda: synth.format_report({}), T, "report must be a synthesize()"),
        ("audit-synth-read-liberty-int", lambda: synth.read_liberty(5), T, "liberty must be a liberty file's path"),
        ("audit-synth-nand2-reference-int", lambda: synth.nand2_reference(5), T, "liberty must be"),
        ("audit-jobs-cache-dir-int", lambda: jobs.cache_dir(5), T, "kind must be a subdirectory name"),
        ("audit-jobs-cache-dir-escape", lambda: jobs.cache_dir("../x"), V, "kind must be a relative name"),
        ("audit-jobs-write-atomic-int-path", lambda: jobs.write_atomic(5, "x"), T, "path must be a file path"),
        ("audit-jobs-write-atomic-int-data", lambda: jobs.write_atomic("x.txt", 5), T, "data must be str or bytes"),
    ]


def _ppa_api_cases():
    """synthesize(clock_ns=, power=, activity=, liberty=NAME): checked before yosys runs."""
    from fpforge.synth import synthesize

    src = "module x(input a, output y); assign y = ~a; endmodule\n"
    V, T = ValueError, TypeError
    return [
        ("synth-clock-nan", lambda: synthesize(src, "x", clock_ns=float("nan")), V, "finite number of ns > 0"),
        ("synth-clock-zero", lambda: synthesize(src, "x", clock_ns=0), V, "finite number of ns > 0, not 0.0"),
        ("synth-clock-string", lambda: synthesize(src, "x", clock_ns="2"), T, "clock_ns must be a number"),
        ("synth-clock-bool", lambda: synthesize(src, "x", clock_ns=True), T, "clock_ns must be a number"),
        ("synth-power-not-bool", lambda: synthesize(src, "x", clock_ns=2, power="yes"), T, "power must be True or"),
        ("synth-power-without-clock", lambda: synthesize(src, "x", power=True), V, "power needs a clock period"),
        ("synth-activity-workload", lambda: synthesize(src, "x", clock_ns=2, power=True, activity="workload"), V,
         "give workload= (the unit spec"),
        ("synth-activity-unknown", lambda: synthesize(src, "x", clock_ns=2, activity="Vectorless"), V,
         "unknown activity 'Vectorless'; valid: vectorless, workload"),
        ("synth-ops-per-cycle-zero", lambda: synthesize(src, "x", clock_ns=2, ops_per_cycle=0), V,
         "ops_per_cycle must be >= 1"),
        ("synth-clock-area-only-liberty", lambda: synthesize(src, "x", clock_ns=2), V, "has no timing tables"),
        ("synth-liberty-unknown-name", lambda: synthesize(src, "x", liberty="nangate"), V, "unknown liberty 'nangate'"),
    ]


def _equiv_api_cases():
    from fpforge.sim.equiv import equiv

    e4m3 = {"unit": "encoder", "format": "e4m3"}
    V, T = ValueError, TypeError
    return [
        ("equiv-no-design", lambda: equiv(e4m3), V, "netlist=True (its mapped netlist) or against=FILE"),
        ("equiv-netlist-and-against", lambda: equiv(e4m3, netlist=True, against="x.v"), V, "compare the unit with one"),
        ("equiv-netlist-not-bool", lambda: equiv(e4m3, netlist="yes"), T, "netlist must be True or False, not 'yes'"),
        ("equiv-against-not-path", lambda: equiv(e4m3, against=3), T, "against must be a path to a Verilog file"),
        ("equiv-against-missing", lambda: equiv(e4m3, against="nodir/x.v"), V, "--against 'nodir/x.v': no such file"),
        ("equiv-timeout-zero", lambda: equiv(e4m3, netlist=True, timeout=0), V, "finite number of seconds > 0, not 0"),
        ("equiv-timeout-nan", lambda: equiv(e4m3, netlist=True, timeout=float("nan")), V, "finite number of seconds"),
        ("equiv-timeout-str", lambda: equiv(e4m3, netlist=True, timeout="5"), T, "timeout must be a number of seconds"),
        ("equiv-timeout-bool", lambda: equiv(e4m3, netlist=True, timeout=True), T, "timeout must be a number"),
        ("equiv-engine-unknown", lambda: equiv(e4m3, netlist=True, engine="sat"), V,
         "unknown engine 'sat'; valid: iprove, cec, dprove, staged"),
        ("equiv-top-with-netlist", lambda: equiv(e4m3, netlist=True, top="m"), V, "top names the module of the against"),
        ("equiv-top-not-str", lambda: equiv(e4m3, against="x.v", top=1), T, "top must be a Verilog module name"),
        ("equiv-latency", lambda: equiv(dict(e4m3, latency=2), netlist=True), V, "sequential equivalence against "
         "the mapped netlist (netlist=True) is not available"),
        ("equiv-dot-unit", lambda: equiv({"unit": "scaled-encoder", "format": "e4m3"}, netlist=True), V,
         "fpforge equiv handles encoder, decoder, block-encoder, block-decoder, dot units, not 'scaled-encoder'"),
        ("equiv-block-format", lambda: equiv({"unit": "encoder", "format": "mx9"}, netlist=True), V,
         "fpforge equiv handles scalar narrow formats, not 'mx9'"),
        ("equiv-liberty-unknown", lambda: equiv(e4m3, netlist=True, liberty="nangate"), V, "unknown liberty 'nangate'"),
    ]


def _cluster_api_cases():
    from fpforge.jobs.cluster import job_script, start_cluster

    V, T = ValueError, TypeError
    return [
        ("cluster-api-unknown-kind", lambda: job_script("lsf"), V, "unknown cluster 'lsf'; valid: slurm, pbs, sge"),
        ("cluster-api-kind-not-str", lambda: job_script(None), T, "cluster kind must be a string"),
        ("cluster-api-options-not-dict", lambda: job_script("slurm", ["queue=a"]), T, "must be a dict of keywords"),
        ("cluster-api-unknown-option", lambda: job_script("pbs", {"partition": "a"}), V,
         "'partition' is not an option of cluster pbs (dask-jobqueue PBSCluster); valid: account"),
        ("cluster-api-cores-float", lambda: job_script("sge", {"cores": 1.5}), T, "cores must be a positive integer"),
        ("cluster-api-cores-zero", lambda: job_script("sge", {"cores": 0}), V,
         "cores must be a positive integer, not 0"),
        ("cluster-api-queue-not-str", lambda: job_script("slurm", {"queue": 3}), T, "queue must be a string, not 3"),
        ("cluster-api-nanny-str", lambda: job_script("slurm", {"nanny": "maybe"}), V, "nanny must be true or false"),
        ("cluster-api-workers-zero", lambda: start_cluster("slurm", 0).__enter__(), V,
         "workers must be a positive integer (Dask workers to start), not 0"),
        ("cluster-api-workers-bool", lambda: start_cluster("slurm", True).__enter__(), T, "workers must be a positive"),
    ]


API_CASES = _api_cases() + _space_api_cases() + _decode_source_cases() + _audit_api_cases() + _ppa_api_cases()
API_CASES += _equiv_api_cases()
API_CASES += _cluster_api_cases()


def _latency_api_cases():
    from fpforge.sim.equiv import equiv

    e4m3 = {"unit": "encoder", "format": "e4m3", "latency": 2}
    V, T = ValueError, TypeError
    return [
        ("equiv-latency-engine-comb", lambda: equiv(e4m3, engine="iprove"), V,
         "engine 'iprove' proves combinational units; for latency 2 valid: tempinduct, dprove"),
        ("equiv-latency-zero-engine-seq", lambda: equiv(dict(e4m3, latency=0), netlist=True, engine="tempinduct"), V,
         "engine 'tempinduct' proves stream units; for a combinational unit valid: iprove, cec, dprove, staged"),
        ("equiv-latency-engine-unknown", lambda: equiv(e4m3, engine="sby"), V, "unknown engine 'sby'; valid: tempinduct, dprove"),
        ("equiv-latency-negative", lambda: equiv(dict(e4m3, latency=-1)), V, "latency must be an integer in 0..64"),
        ("equiv-latency-float", lambda: equiv(dict(e4m3, latency=2.0)), T, "latency"),
        ("equiv-latency-sr", lambda: equiv(dict(e4m3, rounding=["sr"])), V, "stream unit with sr rounding"),
        ("equiv-latency-netlist-str", lambda: equiv(e4m3, netlist="no"), T, "netlist must be True or False"),
        ("equiv-latency-timeout-zero", lambda: equiv(e4m3, timeout=0), V, "finite number of seconds > 0, not 0"),
        ("equiv-latency-against-not-path", lambda: equiv(e4m3, against=3), T, "against must be a path"),
        ("equiv-latency-dot", lambda: equiv({"unit": "dot", "format": "mx9", "r": 32, "f": 32, "stages": 2,
                                             "amax": True}), V, "amax: the running amax is state"),
    ]


API_CASES += _latency_api_cases()


def _equiv_unit_api_cases():
    from fpforge.sim.equiv import equiv

    dot = {"unit": "dot", "format": "e4m3", "r": 2, "f": 32}
    V = ValueError
    return [
        ("equiv-unit-scaled-encoder", lambda: equiv({"unit": "scaled-encoder", "format": "e4m3"}, netlist=True), V,
         "not 'scaled-encoder' (a stream unit whose amax and scale registers are no pipeline"),
        ("equiv-unit-dot-io-registers", lambda: equiv(dict(dot, io_registers=True), netlist=True), V,
         "io_registers wraps the combinational dot unit"),
        ("equiv-unit-dot-amax", lambda: equiv(dict(dot, stages=1, amax=True)), V, "amax: the running amax is state"),
        ("equiv-unit-dot-latency", lambda: equiv(dict(dot, latency=1), netlist=True), V,
         "a dot unit does not take latency"),
        ("equiv-unit-dot-stages-netlist", lambda: equiv(dict(dot, stages=2), netlist=True), V,
         "latency 2: sequential equivalence against the mapped netlist (netlist=True) is not available"),
        ("equiv-unit-dot-stages-engine", lambda: equiv(dict(dot, stages=1), engine="cec"), V,
         "engine 'cec' proves combinational units; for latency 1 valid: tempinduct, dprove"),
        ("equiv-unit-dot-timeout-zero", lambda: equiv(dot, netlist=True, timeout=0), V, "finite number of seconds"),
        ("equiv-unit-block-stream-sr", lambda: equiv({"unit": "block-encoder", "format": "mx9", "latency": 1,
                                                      "rounding": ["sr"]}), V, "stream unit with sr rounding"),
        ("equiv-unit-dot-against-missing", lambda: equiv(dot, against="nodir/x.v"), V, "no such file"),
    ]


API_CASES += _equiv_unit_api_cases()


def _rf_api_cases():
    """r and f as sweep axes (issue 33, item 2): Space lists, the facet of the figure."""
    from fpforge.sweep import Space, SweepResult, preset_points
    from fpforge.sweep.plot import check_facet, plot_pareto

    mx9 = preset_points("mx9")
    sp = Space("g", mx9, r=16, f=[16, 24])
    row = dict(name="mx9", family="bdr", r=16, f=16, bits_per_element=9.0, qsnr_db=20.0, cost=1.0, pareto=True)
    V, T = ValueError, TypeError
    return [
        ("space-api-r-list-not-multiple-of-k1", lambda: Space("x", mx9, r=[16, 24]), V,
         "mx9 has k1 = 16, which does not divide [dot] r = 24"),
        ("space-api-r-list-zero", lambda: Space("x", mx9, r=[16, 0]), V, "[dot] r: 0 is out of range"),
        ("space-api-r-list-float", lambda: Space("x", mx9, r=[16, 32.0]), T, "[dot] r: must be an integer"),
        ("space-api-f-list-out-of-range", lambda: Space("x", mx9, f=[24, 512]), V, "[dot] f: 512 is out of range"),
        ("space-api-f-list-auto", lambda: Space("x", mx9, f=["auto", 24]), V, '"auto" is a value of its own'),
        ("space-api-f-list-twice", lambda: Space("x", mx9, f=[24, 24]), V, "[dot] f: lists 24 more than once"),
        ("sweep-api-facet-not-swept", lambda: check_facet(sp, "r"), V, "cannot facet by r: space 'g' does not sweep"),
        ("sweep-api-facet-unknown", lambda: check_facet(sp, "m"), V, "unknown facet 'm' (valid: r, f)"),
        ("sweep-api-plot-facet-not-swept", lambda: plot_pareto(SweepResult(sp, [row]), facet="r"), V,
         "cannot facet by r"),
    ]


API_CASES += _rf_api_cases()


def _goal_api_cases():
    """synthesize(goal=): a name of GOALS, no cast; checked before yosys runs."""
    from fpforge.synth import synthesize

    src = "module x(input a, output y); assign y = ~a; endmodule\n"
    V, T = ValueError, TypeError
    return [
        ("synth-api-goal-int", lambda: synthesize(src, "x", goal=5), T, "goal must be a name (delay, area), not 5"),
        ("synth-api-goal-none", lambda: synthesize(src, "x", goal=None), T, "goal must be a name (delay, area)"),
        ("synth-api-goal-unknown", lambda: synthesize(src, "x", goal="size"), V,
         "unknown goal 'size'; valid: delay, area"),
        ("synth-api-goal-case", lambda: synthesize(src, "x", goal="AREA"), V, "unknown goal 'AREA'"),
        ("synth-api-goal-with-script", lambda: synthesize(src, "x", goal="area", abc_script="strash; &get -n; &nf; &put"),
         V, "give goal or abc_script, not both"),
        ("synth-api-goal-clock-area-only", lambda: synthesize(src, "x", goal="area", clock_ns=2), V,
         "has no timing tables"),
    ]


API_CASES += _goal_api_cases()


def _flow_api_cases():
    """synth.flow_options(flow): a name of FLOWS, no cast."""
    from fpforge.synth.flow import flow_options

    V, T = ValueError, TypeError
    return [
        ("synth-api-flow-unknown", lambda: flow_options("quick"), V,
         "unknown flow 'quick'; valid: standard, fast, reuse, flat, lean"),
        ("synth-api-flow-case", lambda: flow_options("LEAN"), V, "unknown flow 'LEAN'"),
        ("synth-api-flow-none", lambda: flow_options(None), T, "flow must be a string, not NoneType"),
    ]


API_CASES += _flow_api_cases()


def _sweep_ppa_api_cases():
    """PPA in a sweep (issue 28, item 3): Space(clock_ns=, ppa=, cost=), run() on an area-only liberty."""
    from fpforge.sweep import Space, preset_points
    from fpforge.sweep import run as sweep_run

    e4 = preset_points("e4m3")
    V, T = ValueError, TypeError
    return [
        ("sweep-api-ppa-without-clock", lambda: Space("x", e4, r=4, ppa=True), V, "[synth] ppa: delay, power and "
         "energy need a clock period"),
        ("sweep-api-ppa-not-bool", lambda: Space("x", e4, r=4, ppa=1, clock_ns=5), T, "ppa: must be true or false"),
        ("sweep-api-clock-string", lambda: Space("x", e4, r=4, clock_ns="5"), T, "clock_ns: must be a number"),
        ("sweep-api-clock-inf", lambda: Space("x", e4, r=4, clock_ns=float("inf")), V, "clock_ns: inf is not a period"),
        ("sweep-api-cost-unknown", lambda: Space("x", e4, r=4, cost="power"), V, "unknown cost 'power' (valid: "
         "area-memory, energy-memory, area-delay)"),
        ("sweep-api-cost-energy-without-ppa", lambda: Space("x", e4, r=4, cost="energy-memory"), V,
         "cost energy-memory needs the PPA columns"),
        ("sweep-api-activity-unknown", lambda: Space("x", e4, r=4, activity="toggles"), V, "activity"),
        ("sweep-api-ppa-area-only-liberty", lambda: sweep_run(Space("x", e4, r=4, ppa=True, clock_ns=5), cache=False,
                                                              progress=False), V, "fpforge45.lib has no timing tables"),
    ]


API_CASES += _sweep_ppa_api_cases()


def _prove_dot_api_cases():
    """fpforge.sim.prove_dot (issue 29, item 2): DotProofUnit.generated, dot_conditions, prove_dot."""
    from fpforge.sim.prove_dot import DotProofUnit

    def unit():
        return DotProofUnit.generated(dict(unit="dot", format="e2m1", r=2, f=16))

    def prove(**kw):
        from fpforge.sim.prove_dot import prove_dot

        return prove_dot(unit(), jobs=1, store=False, progress=False, **kw)

    V, T = ValueError, TypeError
    return [
        ("prove-dot-api-too-many", lambda: DotProofUnit.generated(dict(unit="dot", format="e4m3", r=4, f=16)), V,
         "has 2^64 operand patterns"),
        ("prove-dot-api-not-dot", lambda: DotProofUnit.generated(dict(unit="encoder", format="e4m3")), V,
         "fpforge prove dot proves dot units, not 'encoder'"),
        ("prove-dot-api-not-a-config", lambda: DotProofUnit.generated("e4m3"), T, "a dot unit is a DotSpec or a dict"),
        ("prove-dot-api-stages", lambda: DotProofUnit.generated(dict(unit="dot", format="e2m1", r=2, f=16,
                                                                     stages=1)), V, "not stages 1"),
        ("prove-dot-api-bias-fixed", lambda: unit().conditions([7]), V, "--bias applies to dot units of run-time-bias"),
        ("prove-dot-api-range-past-end", lambda: prove(end=1 << 17), V, "is not inside the unit's operand patterns"),
        ("prove-dot-api-start-float", lambda: prove(start=0.0), T, "start must be an integer, not 0.0"),
        ("prove-dot-api-chunk-zero", lambda: prove(chunk=0), V, "chunk must be positive"),
    ]


API_CASES += _prove_dot_api_cases()

def _workload_api_cases():
    """activity="workload" (issue 28, item 2): the workload= stimulus, units without one, net_activity's stimulus."""
    from fpforge.hw.spec import BlockEncoderSpec, DotSpec, EncoderSpec
    from fpforge.synth import synthesize
    from fpforge.synth.activity import net_activity, workload_stimulus

    src = "module x(input a, output y); assign y = ~a; endmodule\n"
    inv = "module t(a, y);\n  input a;\n  output y;\n  INV_X1 u (\n    .A(a),\n    .ZN(y)\n  );\nendmodule\n"
    V, T = ValueError, TypeError
    return [
        ("synth-workload-with-vectorless", lambda: synthesize(src, "x", clock_ns=2, power=True, activity="vectorless",
                                                              workload={"a": [0, 1]}), V,
         "workload= is the stimulus of activity 'workload', not of 'vectorless'"),
        ("synth-workload-list", lambda: synthesize(src, "x", clock_ns=2, power=True, workload=[0, 1]), T,
         "workload must be a unit spec or a dict"),
        ("synth-workload-block-unit", lambda: synthesize(src, "x", clock_ns=2, power=True,
                                                         workload=BlockEncoderSpec(format="mx6")), V,
         "no workload for a block-encoder unit"),
        ("synth-workload-stream-encoder", lambda: synthesize(src, "x", clock_ns=2, power=True,
                                                             workload=EncoderSpec(format="e4m3", latency=1)), V,
         "no workload for a pipelined (stream) encoder"),
        ("workload-stimulus-stream-dot", lambda: workload_stimulus(DotSpec(format="mx6", r=16, f=32, stages=1)), V,
         "no workload for a pipelined (stream) dot unit"),
        ("workload-stimulus-not-a-spec", lambda: workload_stimulus("dot"), T, "workload must be a unit spec"),
        ("net-activity-missing-port", lambda: net_activity(inv, "t", _fpforge45(), {}), V,
         "the stimulus of t must drive its inputs a; missing a"),
        ("net-activity-extra-port", lambda: net_activity(inv, "t", _fpforge45(), {"a": [0, 1], "b": [0, 1]}), V,
         "b not an input"),
        ("net-activity-one-cycle", lambda: net_activity(inv, "t", _fpforge45(), {"a": [1]}), V,
         "the same number (>= 2) of cycles"),
        ("net-activity-not-a-dict", lambda: net_activity(inv, "t", _fpforge45(), [0, 1]), T,
         "stimulus must be a dict"),
        ("net-activity-no-module", lambda: net_activity(inv, "u", _fpforge45(), {"a": [0, 1]}), V,
         "the netlist has no module 'u'"),
        ("net-activity-too-wide", lambda: net_activity(inv, "t", _fpforge45(), {"a": [0, 2]}), V,
         "stimulus of t.a must be in 0..2**1-1 (its width), not 2"),
        ("net-activity-negative", lambda: net_activity(inv, "t", _fpforge45(), {"a": [0, -1]}), V,
         "must be in 0..2**1-1 (its width), not -1"),
        ("net-activity-floats", lambda: net_activity(inv, "t", _fpforge45(), {"a": [0.0, 1.0]}), T,
         "stimulus of t.a must be integers (one value per cycle), not float64"),
        ("net-activity-2d", lambda: net_activity(inv, "t", _fpforge45(), {"a": [[0, 1], [1, 0]]}), V,
         "must be one value per cycle (1-D), not shape (2, 2)"),
    ]


def _fpforge45():
    from fpforge.synth import DEFAULT_LIBERTY

    return DEFAULT_LIBERTY


API_CASES += _workload_api_cases()


def _sim_design_api_cases():
    from fpforge.sim.regress import regress_unit
    from fpforge.sim.userdesign import UserDesign, vhdl_ports

    vhd = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "e5m2_to_fp32.vhd")
    dec = dict(unit="decoder", format="e5m2", target="fp32")
    V, T = ValueError, TypeError
    return [
        ("sim-design-files-not-paths", lambda: UserDesign(42, "vhdl"), T, "files must be a list of paths"),
        ("sim-design-no-files", lambda: UserDesign([], "vhdl"), T, "files must be a list of paths"),
        ("sim-design-language-unknown", lambda: UserDesign([vhd], "systemc"), V,
         "language must be 'verilog' or 'vhdl', not 'systemc'"),
        ("sim-design-missing-file", lambda: UserDesign(["nodir/x.vhd"], "vhdl"), V,
         "--vhdl 'nodir/x.vhd': no such file"),
        ("sim-design-ports-not-names", lambda: UserDesign([vhd], "vhdl", ports={"a": 1}), T,
         "ports must be a dict {fpforge's port: the design's port} of names (str)"),
        ("sim-design-top-not-str", lambda: UserDesign([vhd], "vhdl", top=3), T, "top must be the name (str)"),
        ("sim-design-top-missing", lambda: UserDesign([vhd], "vhdl", top="nope"), V,
         "e5m2_to_fp32.vhd defines no entity 'nope' (it defines e5m2_to_fp32)"),
        ("sim-design-not-a-design", lambda: regress_unit(dec, "ghdl", design="x.vhd"), T,
         "design must be a fpforge.sim.userdesign.UserDesign"),
        ("sim-design-vhdl-on-verilator", lambda: regress_unit(dec, "verilator", design=UserDesign([vhd], "vhdl")), V,
         "a VHDL design runs on GHDL (--simulator ghdl), not 'verilator'"),
        ("sim-design-ghdl-without-design", lambda: regress_unit(dec, "ghdl"), V, "ghdl runs a user's VHDL design"),
        ("sim-design-vhdl-ports-no-entity", lambda: vhdl_ports(["entity a is port (x : in bit); end;"], "b"), V,
         "no entity 'b' in the VHDL files"),
    ]


API_CASES += _sim_design_api_cases()

def _ids(rows) -> frozenset:
    return frozenset(row[0] for row in rows)


#: Issue 30 (reliability, third pass): its classes and the ids of the bad inputs added for each (command lines and
#: API calls); tests/bad_input_table.py counts them. Class 3 (a killed run leaves nothing running) is no bad
#: input: tests/test_lifeline.py kills real sweeps and proofs.
ISSUE30_CLASSES = {
    "1. the environment (cache roots, damaged entries)": _ids(_ENV_CASES),
    "2. space files": _ids(_SPACE_FILE) | _ids(_AUDIT_SPACES) | _ids(_space_api_cases()),
    "4-5. silent results, tracebacks": _ids(_SILENT) | _ids(_silent_api_cases()),
    "6. unclear messages": _ids(_MSGS) | _ids(_msgs_api_cases()),
    "7. slow paths (their bad inputs)": _ids(_SLOW) | _ids(_decode_source_cases()),
    "8. sweep CSV and scale-bit reading": _ids(_SWEEP_CSV) | _ids(_sweep_csv_api_cases()),
    "audit: other members of the classes": _ids(_AUDIT) | _ids(_audit_api_cases()),
}



def _estimate_api_cases():
    """fpforge.sweep.estimate.estimate (issue 33, item 4): workers, cache and synth checked, no cast."""
    from fpforge.sweep.estimate import estimate

    V, T = ValueError, TypeError
    return [
        ("estimate-api-workers-zero", lambda: estimate("small", workers=0, cache=False), V,
         "workers must be a positive integer (worker processes), not 0"),
        ("estimate-api-workers-str", lambda: estimate("small", workers="2", cache=False), T,
         "workers must be a positive integer, not '2'"),
        ("estimate-api-workers-float", lambda: estimate("small", workers=2.0, cache=False), T,
         "workers must be a positive integer"),
        ("estimate-api-workers-bool", lambda: estimate("small", workers=True, cache=False), T,
         "workers must be a positive integer"),
        ("estimate-api-cache-int", lambda: estimate("small", cache=5), T, "cache must be None, False, a directory"),
        ("estimate-api-synth-int", lambda: estimate("small", synth=1, cache=False), T, "synth must be True or False"),
        ("estimate-api-area-table", lambda: estimate("area-fp8", cache=False), V, "area-fp8 is an area table"),
        ("estimate-api-unknown-space", lambda: estimate("nope", cache=False), V, "unknown space 'nope'"),
    ]


API_CASES += _estimate_api_cases()

def _datapath_api_cases():
    """The dot unit's datapath (issue 34, item 1): a name of DATAPATHS, anchored only with an exact window."""
    from fpforge.hw import DotProduct, build_unit

    V = ValueError
    return [
        ("dot-api-datapath-anchored-narrow", lambda: build_unit("dot", format="e4m3", r=8, f=24, datapath="anchored"),
         V, "f >= 37"),
        ("dot-api-datapath-anchored-raw", lambda: DotProduct("e4m3", 8, 37, raw=True, datapath="anchored"), V,
         "no raw outputs"),
        ("dot-api-datapath-unknown", lambda: build_unit("dot", format="e4m3", r=8, f=37, datapath="Anchored"), V,
         "datapath must be one of auto, aligned, anchored"),
        ("dot-api-datapath-bool", lambda: DotProduct("e4m3", 8, 37, datapath=True), V,
         "datapath must be one of auto, aligned, anchored"),
    ]


API_CASES += _datapath_api_cases()


def _typed_sweep_api_cases():
    """The sweep's typed records and the prover's spec-class table (issue 32, item 4): a column no row has, a
    point missing its fields, a unit the prover has no kind for."""
    from fpforge.hw.spec import DotSpec
    from fpforge.sim.prove_unit import prove_kind
    from fpforge.sweep import Space
    from fpforge.sweep.points import Point, Row

    T, V = TypeError, ValueError
    return [
        ("sweep-api-row-unknown-column", lambda: Row.from_record({"name": "x", "colour": "red"}), T,
         "not a sweep row column: colour"),
        ("sweep-api-row-with-unknown-column", lambda: Row(name="x").with_(qsnr=3.0), T,
         "not a sweep row column: qsnr"),
        ("sweep-api-point-missing-fields", lambda: Point.from_record({"name": "x", "m": 3}), T,
         "a sweep point needs the fields name, family, m"),
        ("sweep-api-space-partial-point", lambda: Space("x", [{"name": "a", "family": "bdr", "format": "mx9",
                                                                "k1": 16}]), T, "must be a list of points"),
        ("prove-api-kind-of-dot", lambda: prove_kind(DotSpec(format="mx9", r=16, f=24)), V,
         "fpforge prove handles scalar encoder and decoder units, not 'dot'"),
    ]


API_CASES += _typed_sweep_api_cases()


# `fpforge prove dot --golden` (issue 29: the C++ golden dot product): an unknown golden side, the C++ golden for a
# block unit it does not compute (two blocks), --golden on an encoder proof. Each fails before any harness is built.
_PROVE_DOT_GOLDEN_CASES = [
    ("prove-dot-golden-unknown", [*_PD, "--golden", "fortran"], "invalid choice: 'fortran'"),
    ("prove-dot-golden-cpp-block", ["prove", "dot", "--preset", "bdr", "--m", "1", "--k1", "2", "--d1", "2", "--k2",
                                    "2", "--d2", "0", "--r", "4", "--f", "16", "--golden", "cpp"],
     "the C++ golden computes scalar operand formats"),
    ("prove-encoder-golden", ["prove", "encoder", "-f", "e4m3", "--golden", "numpy"],
     "--golden applies to `fpforge prove dot`"),
]
CLI_CASES += _rows("", _PROVE_DOT_GOLDEN_CASES)


def _prove_dot_golden_api_cases():
    from fpforge.sim.prove_dot import golden_of

    cfg = {"format": "e4m3", "format_b": "e4m3", "r": 2, "f": 32}
    return [
        ("prove-dot-api-golden-unknown", lambda: golden_of(cfg, "fortran"), ValueError,
         "the golden side of a dot proof is one of cpp, numpy, not 'fortran'"),
        ("prove-dot-api-golden-cpp-block", lambda: golden_of({**cfg, "format": "mx9", "format_b": "mx9", "r": 32},
                                                             "cpp"), ValueError,
         "the C++ golden computes scalar operand formats"),
    ]


API_CASES += _prove_dot_golden_api_cases()
