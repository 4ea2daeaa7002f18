"""Property-based fuzzing of the public golden API (hypothesis), over every registered format.

Two properties, for every public function of ``fpforge.golden`` and ``fpforge.golden.dot`` and every name
``list_formats()`` returns (formats added later are covered without touching this file):

1. **Well-formed equivalents.** An argument in another valid representation — a list instead of an array,
   another integer dtype wide enough, big-endian, non-contiguous, 0-d, empty — gives exactly what the
   canonical form gives (bit for bit, NaN payloads and signs included).
2. **Bad input is a clear error.** Codes that are not integers (floats, bools, objects, strings), codes out
   of range, source values that are not FP32/FP16/BF16, and plain junk in any argument either raise
   ``TypeError``/``ValueError`` — an ``FpforgeError`` whose one-line message names the parameter — or, for
   junk that happens to be valid, return; never another exception type, never a silent cast.

``make test`` runs a few examples per property; ``make regress`` (``-m slow``) runs many more.
"""

from __future__ import annotations

import inspect

import ml_dtypes
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fpforge import golden
from fpforge.golden import dot as gdot
from fpforge.golden import qsnr as gqsnr
from fpforge.golden import scaling as gscaling
from fpforge.golden.errors import FpforgeError

PROFILES = [pytest.param(12, id="fast"), pytest.param(400, id="many", marks=pytest.mark.slow)]

SCALARS = golden.list_formats(kind="source") + golden.list_formats(kind="scalar")
BLOCKS = golden.list_formats(kind="block")
SOURCE_DTYPES = [np.dtype(np.float32), np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16)]
INT_DTYPES = [np.dtype(t) for t in (np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64,
                                    np.uint64)]
BAD_DTYPES = [np.dtype(t) for t in (np.float16, np.float32, np.float64, np.complex64, np.bool_, object)]


def run(max_examples, test):
    """Run the hypothesis test ``test`` with ``max_examples`` examples (no deadline: shared machine)."""
    settings(max_examples=max_examples, deadline=None, derandomize=max_examples <= 50,
             suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])(test)()


def clear_error(excinfo_value, *words):
    """The exception is fpforge's TypeError/ValueError with a one-line message naming one of ``words``."""
    e = excinfo_value
    assert isinstance(e, (TypeError, ValueError)) and isinstance(e, FpforgeError), f"{type(e).__name__}: {e}"
    assert "\n" not in str(e), str(e)
    if words:
        assert any(w in str(e) for w in words), f"{e} (expected one of {words})"


def same_bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape and a.dtype == b.dtype, (a.shape, a.dtype, b.shape, b.dtype)
    a, b = np.ascontiguousarray(a).reshape(-1), np.ascontiguousarray(b).reshape(-1)
    assert np.array_equal(a.view(np.uint8), b.view(np.uint8))


# -- representations of a valid integer array ------------------------------------------------------------
@st.composite
def int_representation(draw, values: np.ndarray):
    """``values`` (a canonical int64 array) in another valid representation."""
    hi = int(values.max()) if values.size else 0
    fits = [d for d in INT_DTYPES if np.iinfo(d).max >= hi]
    how = draw(st.sampled_from(["list", "dtype", "big-endian", "strided", "python-int"]))
    if how == "list" and (values.size or values.ndim <= 1):  # an empty (0, k) array has no list form
        return values.tolist()
    if how == "python-int" and values.ndim == 0:
        return int(values)
    dt = draw(st.sampled_from(fits))
    if how == "big-endian":
        dt = dt.newbyteorder(">")
    arr = values.astype(dt)
    if how == "strided" and values.ndim:
        wide = np.repeat(arr, 2, axis=-1)
        return wide[..., ::2]
    return arr


@st.composite
def shapes(draw, last_multiple=1, max_blocks=3, scalar=True):
    kind = draw(st.sampled_from(["0-d", "empty", "1-d", "2-d"]))
    if kind == "0-d" and scalar:
        return ()
    if kind == "empty":
        return (0, last_multiple) if draw(st.booleans()) else (0 * last_multiple,)
    n = draw(st.integers(1, max_blocks)) * last_multiple
    return (n,) if kind in ("1-d", "0-d") else (draw(st.integers(1, 3)), n)


@st.composite
def source_values(draw, shape):
    """Random bit patterns of a source dtype: every class (NaN payloads, ±Inf, ±0, subnormals) occurs."""
    dt = draw(st.sampled_from(SOURCE_DTYPES))
    n = int(np.prod(shape, dtype=np.int64))
    words = draw(st.lists(st.integers(0, (1 << (8 * dt.itemsize)) - 1), min_size=n, max_size=n))
    special = {2: [0x0000, 0x8000, 0x7C00, 0xFC00, 0x0001, 0x7E01], 4: [0, 1 << 31, 0x7F800000, 0x7FC00001, 1]}
    words = [draw(st.sampled_from(special[dt.itemsize])) if draw(st.integers(0, 3)) == 0 else w for w in words]
    return np.array(words, dtype=f"<u{dt.itemsize}").view(dt).reshape(shape)


def other_layout(draw, x):
    """``x`` big-endian, non-contiguous, or as it is (same values)."""
    how = draw(st.sampled_from(["same", "big-endian", "strided"]))
    if how == "big-endian" and x.dtype != np.dtype(ml_dtypes.bfloat16):
        return x.astype(x.dtype.newbyteorder(">"))
    if how == "strided" and x.ndim:
        return np.repeat(x, 2, axis=-1)[..., ::2]
    return x


# Integers stay small or absurd: a valid-but-huge count (2**31 draws) would only measure the machine's memory.
JUNK = st.one_of(st.none(), st.booleans(), st.floats(allow_nan=True), st.text(max_size=4), st.integers(-2, 40),
                 st.just(2**70),
                 st.lists(st.floats(), max_size=3), st.just(object()), st.just({}), st.just(np.ones(2)),
                 st.just(np.array([1.5j])), st.just(np.array(["a"])), st.just(np.ones((2, 0))), st.just(b"\x00\x01"))


# -- scalar formats -------------------------------------------------------------------------------------
def _bias_for(fmt, draw):
    return draw(st.integers(0, 63)) if getattr(fmt, "runtime_bias", False) else None


@pytest.mark.parametrize("examples", PROFILES)
def test_decode_takes_every_valid_code_representation(examples):
    @given(st.data())
    def prop(data):
        name = data.draw(st.sampled_from(SCALARS))
        fmt = golden.get_format(name)
        shape = data.draw(shapes())
        codes = np.array(data.draw(st.lists(st.integers(0, (1 << fmt.bits) - 1), min_size=int(np.prod(shape)),
                                            max_size=int(np.prod(shape)))), np.int64).reshape(shape)
        kw = {"bias": b} if (b := _bias_for(fmt, data.draw)) is not None else {}
        want = golden.decode(name, codes.astype(np.uint64), **kw)
        got = golden.decode(name, data.draw(int_representation(codes)), **kw)
        same_bits(got, want)
        words = want.reshape(-1).view(np.uint32).reshape(shape)  # decode_bits: NaNs canonical, sign kept
        words = np.where(np.isnan(want), words & np.uint32(0x80000000) | np.uint32(0x7FC00000), words)
        same_bits(golden.decode_bits(name, codes, "fp32", **kw), words.astype(np.uint32))
    run(examples, prop)


@pytest.mark.parametrize("examples", PROFILES)
def test_decode_refuses_codes_that_are_not_integers_in_range(examples):
    @given(st.data())
    def prop(data):
        name = data.draw(st.sampled_from(SCALARS))
        fmt = golden.get_format(name)
        kw = {"bias": 0} if getattr(fmt, "runtime_bias", False) else {}
        bad = data.draw(st.one_of(
            st.sampled_from(BAD_DTYPES).map(lambda d: np.ones(3, d)),
            st.just([1.5]), st.just([True]), st.just("1"), st.just([[1], [1, 2]]),
            st.integers(1 << fmt.bits, 1 << 70).map(lambda v: [0, v]), st.integers(-(1 << 70), -1).map(lambda v: [v]),
            st.sampled_from(INT_DTYPES).filter(lambda d: np.iinfo(d).min < 0).map(lambda d: np.array([-1], d))))
        with pytest.raises((TypeError, ValueError)) as e:
            golden.decode(name, bad, **kw)
        clear_error(e.value, "codes")
    run(examples, prop)


@pytest.mark.parametrize("examples", PROFILES)
def test_encode_is_layout_independent_and_refuses_other_dtypes(examples):
    @given(st.data())
    def prop(data):
        name = data.draw(st.sampled_from(SCALARS))
        fmt = golden.get_format(name)
        x = data.draw(source_values(data.draw(shapes())))
        rounding = data.draw(st.sampled_from(fmt.roundings))
        kw = dict(rounding=rounding, saturate=data.draw(st.booleans()), nan_to_zero=data.draw(st.booleans()),
                  seed=data.draw(st.integers(0, 2**32 - 1)))
        if (b := _bias_for(fmt, data.draw)) is not None:
            kw["bias"] = b
        codes, flags = golden.encode_with_flags(name, x, **kw)
        assert codes.shape == x.shape and flags.shape == x.shape
        got = golden.encode_with_flags(name, other_layout(data.draw, x), **kw)
        same_bits(got[0], codes)
        same_bits(got[1], flags)
        same_bits(golden.encode(name, x, **kw), codes)
        same_bits(golden.encode_flags(name, x, **kw), flags)
        bad = data.draw(st.one_of(st.sampled_from([np.float64, np.int32, np.bool_, object, np.complex64]).map(
            lambda d: np.zeros(x.shape, d)), st.just(x.tolist()), st.just(1.0)))
        with pytest.raises(TypeError) as e:
            golden.encode(name, bad, **kw)
        clear_error(e.value, "x", "source dtype")
    run(examples, prop)


# -- block formats --------------------------------------------------------------------------------------
@st.composite
def block_formats(draw):
    if draw(st.booleans()):
        return golden.get_format(draw(st.sampled_from(BLOCKS)))
    k2 = draw(st.sampled_from([1, 2, 4]))
    return golden.bdr(draw(st.integers(1, 12)), k2 * draw(st.integers(1, 4)), draw(st.integers(1, 8)), k2,
                      draw(st.integers(0, 3)))


@pytest.mark.parametrize("examples", PROFILES)
def test_block_round_trips_and_representations(examples):
    @given(st.data())
    def prop(data):
        fmt = data.draw(block_formats())
        x = data.draw(source_values(data.draw(shapes(fmt.k1, 2, scalar=False))))
        rounding = data.draw(st.sampled_from(fmt.roundings))
        seed = data.draw(st.integers(0, 2**32 - 1))
        enc = golden.encode_block(fmt, x, rounding=rounding, seed=seed)
        same = golden.encode_block(fmt, other_layout(data.draw, x), rounding=rounding, seed=seed)
        for field in ("scale", "shift", "elem"):
            same_bits(getattr(same, field), getattr(enc, field))
        values = golden.decode_block(fmt, enc)
        same_bits(golden.quantize(fmt, x, rounding=rounding, seed=seed), values)
        data_bytes = golden.pack(fmt, enc)
        as_ints = np.frombuffer(data_bytes, np.uint8).astype(np.int64)
        for packed in (data_bytes, data.draw(int_representation(as_ints)) if as_ints.size else data_bytes):
            back = golden.unpack(fmt, packed, x.shape)
            same_bits(golden.decode_block(fmt, back), values)
        if enc.n_blocks:
            words = golden.block_words(fmt, enc)
            back = golden.from_block_words(fmt, words, x.shape)
            same_bits(golden.decode_block(fmt, back), values)
            same_bits(golden.decode_block_bits(fmt, back), golden.decode_block_bits(fmt, enc))
            field = data.draw(st.sampled_from(["scale", "elem"]))
            with pytest.raises((TypeError, ValueError)) as e:  # a float field: never cast
                golden.BlockEncoding(fmt, **{f: getattr(enc, f) for f in ("scale", "shift", "elem")} | {
                    field: getattr(enc, field).astype(np.float64)})
            clear_error(e.value, field)
            with pytest.raises(ValueError) as e:  # a byte beyond 255: never wrapped
                golden.unpack(fmt, np.full(len(data_bytes), 300, np.int16), x.shape)
            clear_error(e.value, "data")
    run(examples, prop)


# -- dot products ---------------------------------------------------------------------------------------
DOT_FORMATS = ["mx9", "mx4", "msfp12", "mxfp8_e4m3", "mxint8", "mxfp4_e2m1", "e4m3", "e5m2", "fp8"]


@pytest.mark.parametrize("examples", PROFILES)
def test_dot_operands_in_any_valid_form_give_the_same_result(examples):
    @given(st.data())
    def prop(data):
        name = data.draw(st.sampled_from(DOT_FORMATS))
        cfg = gdot.DotConfig(name, gdot.operand_format(name).k1 * data.draw(st.integers(1, 2)),
                             data.draw(st.sampled_from([8, 16, 32, 64])))
        n = data.draw(st.integers(1, 3))
        x = data.draw(source_values((n, cfg.r))).astype(np.float32)
        x = np.where(np.isfinite(x), x, np.float32(1))
        a, b = gdot.quantized_operands(cfg, x), gdot.quantized_operands(cfg, x[::-1].copy(), side="b")
        want = gdot.dot(cfg, a, None, b)
        if isinstance(cfg.a, gdot.ScalarSet):
            a2 = data.draw(int_representation(np.asarray(a).astype(np.int64)))
            same_bits(gdot.dot(cfg, a2, None, b).y, want.y)
            back = gdot.from_operand_words(name, gdot.operand_words(name, a), cfg.r)
            same_bits(gdot.dot(cfg, back, None, b).y, want.y)
            with pytest.raises(TypeError) as e:
                gdot.dot(cfg, np.asarray(a).astype(np.float64) + 0.5, None, b)
            clear_error(e.value, "operand A")
        else:
            back = gdot.from_operand_words(name, gdot.operand_words(name, a), cfg.r)
            same_bits(gdot.dot(cfg, back, None, b).y, want.y)
            same_bits(gdot.dot(cfg, golden.pack(cfg.a, a), None, b).y, want.y)
        assert gdot.dot_exact(cfg, a, None, b).y.shape == want.y.shape
    run(examples, prop)


# -- junk in every argument of every public function -------------------------------------------------------
MODULES = (golden, gdot, gqsnr, gscaling)  # the two, and the QSNR and scaling modules beside them


def _public_functions():
    out = []
    for mod in MODULES:
        for name in mod.__all__:
            obj = getattr(mod, name)
            constructor = inspect.isclass(obj) and name in ("BlockEncoding", "DotConfig", "ScalarSet", "FloatFormat",
                                                            "BlockFormat", "MXFormat")
            if inspect.isfunction(obj) or constructor:
                out.append((f"{mod.__name__.rsplit('.', 1)[-1]}.{name}", obj))
    return out


FUNCTIONS = _public_functions()

VALID_ENC = golden.encode_block("mx9", np.ones(32, np.float32))
VALID = {  # a valid value per parameter name, to fill the arguments that are not under test
    "fmt": "e4m3", "fmt_a": "mx9", "fmt_b": None, "name": "e4m3", "x": np.ones(32, np.float32),
    "codes": [0, 1], "enc": golden.encode_block("mx9", np.ones(32, np.float32)), "data": b"\x00" * 36,
    "shape": (32,), "words": [0, 0], "a": golden.encode_block("mx9", np.ones(32, np.float32)),
    "b": golden.encode_block("mx9", np.ones(32, np.float32)), "f": 16, "r": 32, "bits": 8, "seed": 0, "n": 4,
    "m": 7, "k1": 16, "d1": 8, "k2": 2, "d2": 1, "cfg": gdot.DotConfig("mx9", 32, 16), "T": [1], "exp": [0],
    "formats": ("e4m3",), "fs": (16,), "target": "fp32", "kind": None, "kwargs": {},
    "format": golden.get_format("mx9"), "scale": VALID_ENC.scale, "shift": VALID_ENC.shift, "elem": VALID_ENC.elem,
    "element": golden.get_format("e4m3"), "ebits": 4, "mbits": 3, "bias": 7,
}


@pytest.mark.parametrize("examples", PROFILES)
@pytest.mark.parametrize("label, func", FUNCTIONS, ids=[f[0] for f in FUNCTIONS])
def test_junk_in_any_argument_is_a_clear_error_or_a_result(label, func, examples):
    params = [p for p in inspect.signature(func).parameters.values()
              if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    if not params:
        pytest.skip(f"{label} takes no arguments")

    @given(st.sampled_from(params), JUNK)
    def prop(param, junk):
        kwargs = {}
        for p in params:
            if p is param:
                kwargs[p.name] = junk
            elif p.default is not inspect.Parameter.empty:
                continue
            elif p.name in VALID:
                kwargs[p.name] = VALID[p.name]
            else:
                pytest.skip(f"no valid value for {label}({p.name})")
        try:
            func(**kwargs)
        except (TypeError, ValueError) as e:
            clear_error(e)
        except Exception as e:  # noqa: BLE001 - the property: no other exception type escapes
            raise AssertionError(f"{label}({param.name}={junk!r}) raised {type(e).__name__}: {e}") from e
    run(examples, prop)


def test_every_public_function_is_fuzzed():
    """A public function or class added to fpforge.golden or fpforge.golden.dot is fuzzed by the junk property
    (it is listed by _public_functions); constants and types are the only exceptions."""
    covered = {label for label, _ in FUNCTIONS}
    for mod in MODULES:
        for name in mod.__all__:
            obj = getattr(mod, name)
            if inspect.isfunction(obj):
                assert f"{mod.__name__.rsplit('.', 1)[-1]}.{name}" in covered, f"{mod.__name__}.{name} is not fuzzed"
