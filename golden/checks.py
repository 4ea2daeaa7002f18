"""Argument checks shared by every public function: one rule per kind of argument, one wording.

fpforge never casts an argument silently. Integer codes must already be integers (an integer numpy
dtype, a Python int, or a nest of lists/tuples of ints — ``bool`` is not an integer here); source values
must already be FP32, FP16 or BF16; switches must be ``True``/``False``. Anything else raises
:class:`~fpforge.golden.errors.FpforgeTypeError` (a ``TypeError``) or, for a value outside its range,
:class:`~fpforge.golden.errors.FpforgeValueError` (a ``ValueError``), with a message that names the
parameter, what it must be (dtype and range) and what it was.

What is accepted is normalised without changing any value: non-native byte order becomes native, Python
ints and lists become numpy arrays; a well-formed argument is returned as it came.
"""

from __future__ import annotations

import numbers

import ml_dtypes
import numpy as np

from .errors import FpforgeTypeError, FpforgeValueError, UnknownName

__all__ = ["check_descriptor_fields", "SOURCE_DTYPES", "as_bool", "as_choice", "as_codes", "as_int", "as_int_array", "as_seed", "MAX_SEED", "as_source",
           "broadcast", "describe"]

#: The dtypes a source operand (``x`` of the encoders) may have, by source format name.
SOURCE_DTYPES = {"fp32": np.dtype(np.float32), "fp16": np.dtype(np.float16), "bf16": np.dtype(ml_dtypes.bfloat16)}


def describe(value) -> str:
    """Short description of an argument for error messages: ``an array of float64``, ``'abc'``, ``2.5``."""
    if isinstance(value, np.ndarray):
        return f"an array of {value.dtype}" + (f" (shape {value.shape})" if value.ndim else " (0-d)")
    if isinstance(value, np.generic):
        return f"a numpy {value.dtype} ({value.item()!r})"
    if isinstance(value, (list, tuple)):
        return f"a {type(value).__name__} of {len(value)} items"
    if isinstance(value, (bool, int, float, complex, str, bytes, type(None))):
        text = repr(value)
        return text if len(text) <= 40 else text[:37] + "..."
    return f"a {type(value).__name__}"


def _is_int(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def as_int(value, name: str, lo: int | None = None, hi: int | None = None) -> int:
    """``value`` as a Python int, checked against ``lo..hi`` (either bound may be None).

    Raises
    ------
    FpforgeTypeError
        Not an integer (``bool``, float, string, array, ...).
    FpforgeValueError
        Outside the range.
    """
    if lo is not None and hi is not None:
        want = f"an integer in {lo}..{hi}"
    elif lo is not None:
        want = f"an integer >= {lo}"
    elif hi is not None:
        want = f"an integer <= {hi}"
    else:
        want = "an integer"
    if not _is_int(value):
        raise FpforgeTypeError(f"{name} must be {want}, not {describe(value)}")
    value = int(value)
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise FpforgeValueError(f"{name} must be {want}, not {value}")
    return value


#: Largest seed: the generator's state is 32 bits, so a larger seed would alias a smaller one (seed and
#: seed + 2**32 drew the same numbers while reports showed two different seeds).
MAX_SEED = (1 << 32) - 1


def as_seed(value, name: str = "seed", *, allow_none: bool = True):
    """A generator seed: None (where allowed) or an integer in ``0 .. 2**32 - 1`` (:data:`MAX_SEED`).

    Seeds outside that range are refused rather than reduced mod 2**32: two seeds that select the same
    generator state would give the same draws under two names.
    """
    if value is None and allow_none:
        return None
    want = f"an integer in 0..{MAX_SEED}{' or None' if allow_none else ''}"
    if not _is_int(value):
        raise FpforgeTypeError(f"{name} must be {want}, not {describe(value)}")
    if not 0 <= int(value) <= MAX_SEED:
        raise FpforgeValueError(f"{name} must be {want} (the generator's state is 32 bits: a larger seed would "
                                f"alias a smaller one), not {int(value)}")
    return int(value)


def as_bool(value, name: str) -> bool:
    """``value`` as a bool; only ``True``/``False`` (and numpy bools) are accepted."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise FpforgeTypeError(f"{name} must be True or False, not {describe(value)}")


def as_choice(value, name: str, choices, *, what: str | None = None) -> str:
    """``value`` if it is one of the strings ``choices``, else :class:`UnknownName` naming them."""
    choices = tuple(choices)
    if not isinstance(value, str):
        raise FpforgeTypeError(f"{name} must be one of {', '.join(choices)}, not {describe(value)}")
    if value not in choices:
        raise UnknownName(f"unknown {what or name} {value!r}; valid choices: {', '.join(choices)}")
    return value


def _nested_ints(value, name, want):
    """A nest of lists/tuples of Python/numpy ints -> int64 (or object for huge ints) array; anything else
    (floats, bools, strings, ragged nests) raises."""
    try:
        arr = np.array(value, dtype=object)
    except ValueError:
        raise FpforgeValueError(f"{name} must be {want}, not a ragged nest of lists") from None
    flat = arr.reshape(-1)
    for v in flat:
        if not _is_int(v):
            raise FpforgeTypeError(f"{name} must be {want}, not a {type(value).__name__} holding {describe(v)}")
    if flat.size == 0:
        return np.zeros(arr.shape, np.int64)
    try:
        return arr.astype(np.int64)
    except OverflowError:
        return arr  # beyond int64: the range check names the value


def as_codes(codes, bits: int, *, name: str = "codes", of: str | None = None, hi: int | None = None,
             what: str = "integer codes") -> np.ndarray:
    """Integer codes of ``bits`` bits (``0 .. 2**bits - 1``, or ``0 .. hi``) as a numpy integer array.

    Accepted: an array (or numpy scalar) of an integer dtype, any byte order and layout; a Python int;
    a (nested) list or tuple of ints. The result has the input's shape and a native integer dtype (the
    input array itself when it already is one).

    Parameters
    ----------
    codes : array_like of int
    bits : int
        Code width.
    name : str
        Parameter name for messages.
    of : str, optional
        Format name for messages (``codes of e4m3 must be ...``).
    hi : int, optional
        Largest valid code when it is not ``2**bits - 1``.

    Raises
    ------
    FpforgeTypeError
        Not integers (floats, bools, strings, object arrays, ...).
    FpforgeValueError
        A code outside the range (the message names the first offending one), or a ragged list.
    """
    hi = (1 << bits) - 1 if hi is None else hi
    label = f"{name} of {of}" if of else name
    want = f"{what} in 0..{hi} (an integer numpy array, a Python int or a list of ints)"
    if isinstance(codes, (np.ndarray, np.generic)):
        arr = np.asarray(codes)
        if arr.dtype.kind not in "iu":
            raise FpforgeTypeError(f"{label} must be {want}, not {describe(codes)}")
        if not arr.dtype.isnative:
            arr = arr.astype(arr.dtype.newbyteorder("="))
    elif _is_int(codes):
        arr = np.asarray(int(codes)) if -(1 << 63) <= int(codes) < (1 << 63) else np.asarray(int(codes), object)
    elif isinstance(codes, (list, tuple)):
        arr = _nested_ints(codes, label, want)
    else:
        raise FpforgeTypeError(f"{label} must be {want}, not {describe(codes)}")
    if arr.size == 0:
        return arr if arr.dtype.kind in "iu" else arr.astype(np.int64)
    kind, width = arr.dtype.kind, arr.dtype.itemsize * 8
    if kind == "u" and (hi + 1).bit_length() > width:
        return arr  # every value of the dtype is a valid code
    lo_v, hi_v = arr.min(), arr.max()
    if lo_v < 0 or hi_v > hi:
        bad = arr.reshape(-1)[np.argmax((arr.reshape(-1) < 0) | (arr.reshape(-1) > hi))]
        raise FpforgeValueError(f"{label} must be {want}, not {int(bad)}")
    if arr.dtype == object:  # in range, hence small: a plain integer array
        arr = arr.astype(np.int64)
    return arr


def as_source(x, name: str = "x") -> np.ndarray:
    """Source operands: an array (or numpy scalar) of float32, float16 or bfloat16, returned in native byte
    order. Python floats and float64 arrays are refused (converting them would round)."""
    want = "source dtype must be float32, float16 or bfloat16 (ml_dtypes.bfloat16)"
    if isinstance(x, (np.ndarray, np.generic)):
        arr = np.asarray(x)
        dt = arr.dtype.newbyteorder("=") if arr.dtype.kind == "f" else arr.dtype
        if dt in SOURCE_DTYPES.values():
            return arr if arr.dtype.isnative else arr.astype(dt)
    elif isinstance(x, (list, tuple, numbers.Number)) and not isinstance(x, (bool, np.bool_)):
        raise FpforgeTypeError(f"{name}: {want}, not {describe(x)} (converting would round: make the array "
                               f"with np.asarray(..., np.float32))")
    raise FpforgeTypeError(f"{name}: {want}, not {describe(x)}")


def as_int_array(values, name: str) -> np.ndarray:
    """Signed integers of any size: an integer array, an object array or nest of lists of Python ints, or
    one int; returned as int64 where they fit, else as an object array of Python ints."""
    want = "integers (an integer numpy array, Python ints or a list of them)"
    if isinstance(values, np.ndarray) and values.dtype.kind in "iu":
        return values if values.dtype.isnative else values.astype(values.dtype.newbyteorder("="))
    if isinstance(values, np.generic) and values.dtype.kind in "iu":
        return np.asarray(values)
    if _is_int(values):
        v = int(values)
        return np.asarray(v) if -(1 << 63) <= v < (1 << 63) else np.asarray(v, object)
    if isinstance(values, (list, tuple)) or (isinstance(values, np.ndarray) and values.dtype == object):
        arr = _nested_ints(values.tolist() if isinstance(values, np.ndarray) else values, name, want)
        return arr.reshape(np.shape(values)) if isinstance(values, np.ndarray) else arr
    raise FpforgeTypeError(f"{name} must be {want}, not {describe(values)}")


def broadcast(*named):
    """``np.broadcast_arrays`` of ``(name, array)`` pairs; shapes that do not broadcast are one
    FpforgeValueError naming both parameters and shapes (numpy's own message names neither)."""
    arrays = [np.asarray(a) for _, a in named]
    try:
        return np.broadcast_arrays(*arrays)
    except ValueError:
        shapes = ", ".join(f"{n} {a.shape}" for (n, _), a in zip(named, arrays))
        raise FpforgeValueError(f"shapes do not broadcast together: {shapes}") from None


def check_descriptor_fields(desc, strings=(), ints=(), bools=(), tuples=("roundings",)):
    """Types of a format descriptor's fields (a wrong type is a TypeError naming the field, never a crash
    later)."""
    kind = type(desc).__name__
    for name in strings:
        if not isinstance(getattr(desc, name), str):
            raise FpforgeTypeError(f"{kind} {name} must be a string, not {getattr(desc, name)!r}")
    for name in ints:
        value = getattr(desc, name)
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise FpforgeTypeError(f"{kind} {name} must be an integer, not {value!r}")
    for name in bools:
        if not isinstance(getattr(desc, name), bool):
            raise FpforgeTypeError(f"{kind} {name} must be True or False, not {getattr(desc, name)!r}")
    for name in tuples:
        value = getattr(desc, name)
        if not isinstance(value, tuple) or not value or not all(isinstance(v, str) for v in value):
            raise FpforgeTypeError(f"{kind} {name} must be a non-empty tuple of mode names, not {value!r}")
