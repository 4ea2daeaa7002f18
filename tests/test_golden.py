"""Semantics of the golden FP8 encoder/decoder: directed values with hand-derived codes and flags,
the memoised path against the exact model, properties, and the error messages.

Every expected code below is written out from the OCP / SPEC-NOTES §2 rules, not computed by the code
under test. The formats (value of a normal code ``S.E.M`` is ``2**(E - bias) * (1 + M / 2**mbits)``):

=========  ====  =========  ===========  ==========  ==============  ===============
format     bias  1.0        max          min normal  min subnormal   NaN / Inf
=========  ====  =========  ===========  ==========  ==============  ===============
e4m3       7     0x38       0x7E = 448   0x08 2^-6   0x01 2^-9       0x7F/0xFF, none
e5m2       15    0x3C       0x7B = 57344 0x04 2^-14  0x01 2^-16      0x7E (canonical), 0x7C/0xFC
e4m3fnuz   8     0x40       0x7F = 240   0x08 2^-7   0x01 2^-10      0x80, none
e5m2fnuz   16    0x40       0x7F = 57344 0x04 2^-15  0x01 2^-17      0x80, none
=========  ====  =========  ===========  ==========  ==============  ===============

Flags: bit 0 invalid (NV), 1 denormal source (DN), 2 overflow (OF), 3 underflow (UF: non-zero operand,
delivered result below the smallest normal, inexact), 4 inexact (NX).

Negative operands: the tables list positive operands; the negative operand gives the same flags and the
mirrored code ``code | 0x80``, except in the FNUZ formats, where 0x00 (there is no -0) and 0x80 (the
only NaN) stay as they are.
"""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fpforge.golden import (
    decode,
    decode_bits,
    encode,
    encode_flags,
    encode_with_flags,
    get_format,
    minifloat,
    random_bits,
)
from fpforge.golden.errors import FpforgeValueError
from fpforge.golden.formats import SOURCES

from helpers import all_patterns

__all__: list[str] = []

NV, DN, OF, UF, NX = 1, 2, 4, 8, 16

FP8 = ["e4m3", "e5m2", "e4m3fnuz", "e5m2fnuz"]
FNUZ = {"e4m3fnuz", "e5m2fnuz"}
DTYPES = {"fp32": np.float32, "fp16": np.float16, "bf16": ml_dtypes.bfloat16}
UINT = {"fp32": np.uint32, "fp16": np.uint16, "bf16": np.uint16}
#: Smallest positive normal of each source (below it, a non-zero operand raises the denormal flag).
SRC_MIN_NORMAL = {"fp32": 2.0**-126, "fp16": 2.0**-14, "bf16": 2.0**-126}
DETERMINISTIC = ["rne", "ta", "rtz"]
LUT_MIN = minifloat._LUT_MIN_SIZE
HYPOTHESIS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def mirror(fmt: str, code: int) -> int:
    """The code of the negated operand (see the module docstring)."""
    if fmt in FNUZ and code in (0x00, 0x80):
        return code
    return code | 0x80


def run(fmt, x, *, path="exact", **kwargs):
    """``encode_with_flags`` through the exact path (small array) or the memoised one (padded array)."""
    x = np.asarray(x)
    if path == "lut":
        padded = np.resize(x.ravel(), max(LUT_MIN, x.size))
        codes, flags = encode_with_flags(fmt, padded, **kwargs)
        return codes[: x.size], flags[: x.size]
    assert x.size < LUT_MIN
    return encode_with_flags(fmt, x, **kwargs)


def from_bits(src: str, bits) -> np.ndarray:
    return np.asarray(bits, dtype=UINT[src]).view(DTYPES[src])


# -- directed tables -------------------------------------------------------------------------------
# A row: positive operand ``x`` (exact in the sources it is used with), an offset of ``ulp`` source
# ulps (the neighbouring source values: -1 just below, +1 just above), the expected (code, flags) for
# rne / ta / rtz, and the saturating results where they differ.
def row(x, ulp=0, *, all=None, rne=None, ta=None, rtz=None, sat=None):
    exp = {"rne": rne or all, "ta": ta or all, "rtz": rtz or all}
    assert None not in exp.values(), x
    return dict(x=float(x), ulp=ulp, exp=exp, sat={**exp, **(sat or {})})


def tie_rows(x, *, below, tie, above, sat_tie=None, sat_above=None):
    """A target midpoint ``x`` and its two source neighbours; ``below``/``above`` are (rne, ta, rtz)."""
    m = ("rne", "ta", "rtz")
    return [
        row(x, -1, **dict(zip(m, below))),
        row(x, 0, **dict(zip(m, tie)), sat=sat_tie),
        row(x, +1, **dict(zip(m, above)), sat=sat_above),
    ]


F32_MAX = float(np.finfo(np.float32).max)
F16_MAX = 65504.0
u4 = 2.0**-9  # e4m3 min subnormal
u5 = 2.0**-16  # e5m2 min subnormal
u4z = 2.0**-10  # e4m3fnuz
u5z = 2.0**-17  # e5m2fnuz
ON, OX = (lambda c: (c, NX)), (lambda c: (c, OF | NX))
UX = lambda c: (c, UF | NX)  # noqa: E731

ROWS = {
    "e4m3": [
        row(1.0, all=(0x38, 0)),
        row(3.0, all=(0x44, 0)),
        row(448.0, all=(0x7E, 0)),  # max
        row(448.0, +1, all=ON(0x7E)),
        row(448.0, -1, rne=ON(0x7E), ta=ON(0x7E), rtz=ON(0x7D)),
        # overflow threshold: 464 is the midpoint to the (missing) 480; 448 has an even mantissa (110)
        *tie_rows(
            464.0,
            below=(ON(0x7E), ON(0x7E), ON(0x7E)),
            tie=(ON(0x7E), OX(0x7F), ON(0x7E)),
            above=(OX(0x7F), OX(0x7F), ON(0x7E)),
            sat_tie={"ta": OX(0x7E)},
            sat_above={"rne": OX(0x7E), "ta": OX(0x7E)},
        ),
        row(465.0, rne=OX(0x7F), ta=OX(0x7F), rtz=ON(0x7E), sat={"rne": OX(0x7E), "ta": OX(0x7E)}),
        # 480 = 1.111b x 2^8 would be code 0x7F, which is NaN: rtz clamps to max and flags overflow
        row(480.0, rne=OX(0x7F), ta=OX(0x7F), rtz=OX(0x7E), sat={"rne": OX(0x7E), "ta": OX(0x7E)}),
        row(512.0, rne=OX(0x7F), ta=OX(0x7F), rtz=OX(0x7E), sat={"rne": OX(0x7E), "ta": OX(0x7E)}),
        row(1000.0, rne=OX(0x7F), ta=OX(0x7F), rtz=OX(0x7E), sat={"rne": OX(0x7E), "ta": OX(0x7E)}),
        row(F16_MAX, rne=OX(0x7F), ta=OX(0x7F), rtz=OX(0x7E), sat={"rne": OX(0x7E), "ta": OX(0x7E)}),
        row(F32_MAX, rne=OX(0x7F), ta=OX(0x7F), rtz=OX(0x7E), sat={"rne": OX(0x7E), "ta": OX(0x7E)}),
        # midpoints at 1.0 (grid 1/8): 1.0625 between 0x38 (even) and 0x39; 1.1875 between 0x39 (odd), 0x3A
        *tie_rows(1.0625, below=(ON(0x38),) * 3, tie=(ON(0x38), ON(0x39), ON(0x38)), above=(ON(0x39), ON(0x39), ON(0x38))),
        *tie_rows(1.1875, below=(ON(0x39),) * 3, tie=(ON(0x3A), ON(0x3A), ON(0x39)), above=(ON(0x3A), ON(0x3A), ON(0x39))),
        # 1.9375: the carry out of the mantissa moves into the exponent (0x3F -> 0x40)
        *tie_rows(1.9375, below=(ON(0x3F),) * 3, tie=(ON(0x40), ON(0x40), ON(0x3F)), above=(ON(0x40), ON(0x40), ON(0x3F))),
        # in the top binade: 400 between 0x7C = 384 (even) and 0x7D = 416; 432 between 0x7D (odd) and 0x7E
        row(400.0, rne=ON(0x7C), ta=ON(0x7D), rtz=ON(0x7C)),
        row(432.0, rne=ON(0x7E), ta=ON(0x7E), rtz=ON(0x7D)),
        # subnormal results (grid 2^-9); 0.5 u is the underflow threshold
        *tie_rows(0.5 * u4, below=(UX(0x00),) * 3, tie=(UX(0x00), UX(0x01), UX(0x00)), above=(UX(0x01), UX(0x01), UX(0x00))),
        row(0.25 * u4, all=UX(0x00)),
        row(1.5 * u4, rne=UX(0x02), ta=UX(0x02), rtz=UX(0x01)),
        *tie_rows(2.5 * u4, below=(UX(0x02),) * 3, tie=(UX(0x02), UX(0x03), UX(0x02)), above=(UX(0x03), UX(0x03), UX(0x02))),
        row(7 * u4, all=(0x07, 0)),  # largest subnormal, exact: no underflow
        # 7.5 u rounds (rne, ta) to the smallest normal: the delivered result is normal, no underflow
        *tie_rows(7.5 * u4, below=(UX(0x07),) * 3, tie=(ON(0x08), ON(0x08), UX(0x07)), above=(ON(0x08), ON(0x08), UX(0x07))),
        row(2.0**-149, all=UX(0x00)),  # smallest FP32 subnormal
        row(2.0**-133, all=UX(0x00)),  # smallest BF16 subnormal
        row(2.0**-24, all=UX(0x00)),  # smallest FP16 subnormal
    ],
    "e5m2": [
        row(1.0, all=(0x3C, 0)),
        row(3.0, all=(0x42, 0)),
        row(57344.0, all=(0x7B, 0)),  # max
        row(57344.0, +1, all=ON(0x7B)),
        row(57344.0, -1, rne=ON(0x7B), ta=ON(0x7B), rtz=ON(0x7A)),
        # overflow threshold 61440 = 1.111b x 2^15: max has an odd mantissa (11), so the tie goes to Inf
        *tie_rows(
            61440.0,
            below=(ON(0x7B),) * 3,
            tie=(OX(0x7C), OX(0x7C), ON(0x7B)),
            above=(OX(0x7C), OX(0x7C), ON(0x7B)),
            sat_tie={"rne": OX(0x7B), "ta": OX(0x7B)},
            sat_above={"rne": OX(0x7B), "ta": OX(0x7B)},
        ),
        row(F16_MAX, rne=OX(0x7C), ta=OX(0x7C), rtz=ON(0x7B), sat={"rne": OX(0x7B), "ta": OX(0x7B)}),
        row(65536.0, rne=OX(0x7C), ta=OX(0x7C), rtz=OX(0x7B), sat={"rne": OX(0x7B), "ta": OX(0x7B)}),
        row(2.0**20, rne=OX(0x7C), ta=OX(0x7C), rtz=OX(0x7B), sat={"rne": OX(0x7B), "ta": OX(0x7B)}),
        row(F32_MAX, rne=OX(0x7C), ta=OX(0x7C), rtz=OX(0x7B), sat={"rne": OX(0x7B), "ta": OX(0x7B)}),
        # midpoints at 1.0 (grid 1/4)
        *tie_rows(1.125, below=(ON(0x3C),) * 3, tie=(ON(0x3C), ON(0x3D), ON(0x3C)), above=(ON(0x3D), ON(0x3D), ON(0x3C))),
        *tie_rows(1.375, below=(ON(0x3D),) * 3, tie=(ON(0x3E), ON(0x3E), ON(0x3D)), above=(ON(0x3E), ON(0x3E), ON(0x3D))),
        *tie_rows(1.875, below=(ON(0x3F),) * 3, tie=(ON(0x40), ON(0x40), ON(0x3F)), above=(ON(0x40), ON(0x40), ON(0x3F))),
        # top binade: 36864 between 0x78 = 32768 (even) and 0x79; 53248 between 0x7A (even) and 0x7B
        row(36864.0, rne=ON(0x78), ta=ON(0x79), rtz=ON(0x78)),
        row(53248.0, rne=ON(0x7A), ta=ON(0x7B), rtz=ON(0x7A)),
        # subnormal results (grid 2^-16)
        *tie_rows(0.5 * u5, below=(UX(0x00),) * 3, tie=(UX(0x00), UX(0x01), UX(0x00)), above=(UX(0x01), UX(0x01), UX(0x00))),
        row(0.25 * u5, all=UX(0x00)),
        row(1.5 * u5, rne=UX(0x02), ta=UX(0x02), rtz=UX(0x01)),
        *tie_rows(2.5 * u5, below=(UX(0x02),) * 3, tie=(UX(0x02), UX(0x03), UX(0x02)), above=(UX(0x03), UX(0x03), UX(0x02))),
        row(3 * u5, all=(0x03, 0)),  # largest subnormal
        *tie_rows(3.5 * u5, below=(UX(0x03),) * 3, tie=(ON(0x04), ON(0x04), UX(0x03)), above=(ON(0x04), ON(0x04), UX(0x03))),
        row(2.0**-149, all=UX(0x00)),
        row(2.0**-133, all=UX(0x00)),
        row(2.0**-24, all=UX(0x00)),
    ],
    "e4m3fnuz": [
        row(1.0, all=(0x40, 0)),
        row(3.0, all=(0x4C, 0)),
        row(240.0, all=(0x7F, 0)),  # max
        row(240.0, +1, all=ON(0x7F)),
        row(240.0, -1, rne=ON(0x7F), ta=ON(0x7F), rtz=ON(0x7E)),
        # overflow threshold 248: max 1.111b x 2^7 has an odd mantissa, so the tie overflows to NaN 0x80
        *tie_rows(
            248.0,
            below=(ON(0x7F),) * 3,
            tie=(OX(0x80), OX(0x80), ON(0x7F)),
            above=(OX(0x80), OX(0x80), ON(0x7F)),
            sat_tie={"rne": OX(0x7F), "ta": OX(0x7F)},
            sat_above={"rne": OX(0x7F), "ta": OX(0x7F)},
        ),
        row(256.0, rne=OX(0x80), ta=OX(0x80), rtz=OX(0x7F), sat={"rne": OX(0x7F), "ta": OX(0x7F)}),
        row(1000.0, rne=OX(0x80), ta=OX(0x80), rtz=OX(0x7F), sat={"rne": OX(0x7F), "ta": OX(0x7F)}),
        row(F16_MAX, rne=OX(0x80), ta=OX(0x80), rtz=OX(0x7F), sat={"rne": OX(0x7F), "ta": OX(0x7F)}),
        row(F32_MAX, rne=OX(0x80), ta=OX(0x80), rtz=OX(0x7F), sat={"rne": OX(0x7F), "ta": OX(0x7F)}),
        *tie_rows(1.0625, below=(ON(0x40),) * 3, tie=(ON(0x40), ON(0x41), ON(0x40)), above=(ON(0x41), ON(0x41), ON(0x40))),
        *tie_rows(1.1875, below=(ON(0x41),) * 3, tie=(ON(0x42), ON(0x42), ON(0x41)), above=(ON(0x42), ON(0x42), ON(0x41))),
        *tie_rows(1.9375, below=(ON(0x47),) * 3, tie=(ON(0x48), ON(0x48), ON(0x47)), above=(ON(0x48), ON(0x48), ON(0x47))),
        # top binade: 232 between 0x7E = 224 (even) and 0x7F = 240
        row(232.0, rne=ON(0x7E), ta=ON(0x7F), rtz=ON(0x7E)),
        *tie_rows(0.5 * u4z, below=(UX(0x00),) * 3, tie=(UX(0x00), UX(0x01), UX(0x00)), above=(UX(0x01), UX(0x01), UX(0x00))),
        row(0.25 * u4z, all=UX(0x00)),
        row(1.5 * u4z, rne=UX(0x02), ta=UX(0x02), rtz=UX(0x01)),
        *tie_rows(2.5 * u4z, below=(UX(0x02),) * 3, tie=(UX(0x02), UX(0x03), UX(0x02)), above=(UX(0x03), UX(0x03), UX(0x02))),
        row(7 * u4z, all=(0x07, 0)),
        *tie_rows(7.5 * u4z, below=(UX(0x07),) * 3, tie=(ON(0x08), ON(0x08), UX(0x07)), above=(ON(0x08), ON(0x08), UX(0x07))),
        row(2.0**-149, all=UX(0x00)),
        row(2.0**-133, all=UX(0x00)),
        row(2.0**-24, all=UX(0x00)),
    ],
    "e5m2fnuz": [
        row(1.0, all=(0x40, 0)),
        row(3.0, all=(0x46, 0)),
        row(57344.0, all=(0x7F, 0)),  # max
        row(57344.0, +1, all=ON(0x7F)),
        row(57344.0, -1, rne=ON(0x7F), ta=ON(0x7F), rtz=ON(0x7E)),
        *tie_rows(
            61440.0,
            below=(ON(0x7F),) * 3,
            tie=(OX(0x80), OX(0x80), ON(0x7F)),
            above=(OX(0x80), OX(0x80), ON(0x7F)),
            sat_tie={"rne": OX(0x7F), "ta": OX(0x7F)},
            sat_above={"rne": OX(0x7F), "ta": OX(0x7F)},
        ),
        row(F16_MAX, rne=OX(0x80), ta=OX(0x80), rtz=ON(0x7F), sat={"rne": OX(0x7F), "ta": OX(0x7F)}),
        row(65536.0, rne=OX(0x80), ta=OX(0x80), rtz=OX(0x7F), sat={"rne": OX(0x7F), "ta": OX(0x7F)}),
        row(F32_MAX, rne=OX(0x80), ta=OX(0x80), rtz=OX(0x7F), sat={"rne": OX(0x7F), "ta": OX(0x7F)}),
        *tie_rows(1.125, below=(ON(0x40),) * 3, tie=(ON(0x40), ON(0x41), ON(0x40)), above=(ON(0x41), ON(0x41), ON(0x40))),
        *tie_rows(1.375, below=(ON(0x41),) * 3, tie=(ON(0x42), ON(0x42), ON(0x41)), above=(ON(0x42), ON(0x42), ON(0x41))),
        *tie_rows(1.875, below=(ON(0x43),) * 3, tie=(ON(0x44), ON(0x44), ON(0x43)), above=(ON(0x44), ON(0x44), ON(0x43))),
        row(53248.0, rne=ON(0x7E), ta=ON(0x7F), rtz=ON(0x7E)),
        *tie_rows(0.5 * u5z, below=(UX(0x00),) * 3, tie=(UX(0x00), UX(0x01), UX(0x00)), above=(UX(0x01), UX(0x01), UX(0x00))),
        row(0.25 * u5z, all=UX(0x00)),
        row(1.5 * u5z, rne=UX(0x02), ta=UX(0x02), rtz=UX(0x01)),
        *tie_rows(2.5 * u5z, below=(UX(0x02),) * 3, tie=(UX(0x02), UX(0x03), UX(0x02)), above=(UX(0x03), UX(0x03), UX(0x02))),
        row(3 * u5z, all=(0x03, 0)),
        *tie_rows(3.5 * u5z, below=(UX(0x03),) * 3, tie=(ON(0x04), ON(0x04), UX(0x03)), above=(ON(0x04), ON(0x04), UX(0x03))),
        row(2.0**-149, all=UX(0x00)),
        row(2.0**-133, all=UX(0x00)),
        row(2.0**-24, all=UX(0x00)),
    ],
}

#: Code of every power of two the format holds, from the smallest subnormal up to the top binade.
POWERS = {
    "e4m3": {
        -9: 0x01, -8: 0x02, -7: 0x04, -6: 0x08, -5: 0x10, -4: 0x18, -3: 0x20, -2: 0x28, -1: 0x30,
        0: 0x38, 1: 0x40, 2: 0x48, 3: 0x50, 4: 0x58, 5: 0x60, 6: 0x68, 7: 0x70, 8: 0x78,
    },
    "e4m3fnuz": {
        -10: 0x01, -9: 0x02, -8: 0x04, -7: 0x08, -6: 0x10, -5: 0x18, -4: 0x20, -3: 0x28, -2: 0x30,
        -1: 0x38, 0: 0x40, 1: 0x48, 2: 0x50, 3: 0x58, 4: 0x60, 5: 0x68, 6: 0x70, 7: 0x78,
    },
    "e5m2": {
        -16: 0x01, -15: 0x02, -14: 0x04, -13: 0x08, -12: 0x0C, -11: 0x10, -10: 0x14, -9: 0x18,
        -8: 0x1C, -7: 0x20, -6: 0x24, -5: 0x28, -4: 0x2C, -3: 0x30, -2: 0x34, -1: 0x38, 0: 0x3C,
        1: 0x40, 2: 0x44, 3: 0x48, 4: 0x4C, 5: 0x50, 6: 0x54, 7: 0x58, 8: 0x5C, 9: 0x60, 10: 0x64,
        11: 0x68, 12: 0x6C, 13: 0x70, 14: 0x74, 15: 0x78,
    },
    "e5m2fnuz": {
        -17: 0x01, -16: 0x02, -15: 0x04, -14: 0x08, -13: 0x0C, -12: 0x10, -11: 0x14, -10: 0x18,
        -9: 0x1C, -8: 0x20, -7: 0x24, -6: 0x28, -5: 0x2C, -4: 0x30, -3: 0x34, -2: 0x38, -1: 0x3C,
        0: 0x40, 1: 0x44, 2: 0x48, 3: 0x4C, 4: 0x50, 5: 0x54, 6: 0x58, 7: 0x5C, 8: 0x60, 9: 0x64,
        10: 0x68, 11: 0x6C, 12: 0x70, 13: 0x74, 14: 0x78, 15: 0x7C,
    },
}
#: Exponent of the smallest normal.
EMIN = {"e4m3": -6, "e4m3fnuz": -7, "e5m2": -14, "e5m2fnuz": -15}


def power_rows(fmt):
    """Binade boundaries: 2**k exactly, and its two source neighbours.

    Just above 2**k every mode keeps the code of 2**k (inexact). Just below, rne and ta round up to it,
    rtz gives the next code down (the largest value of the binade below). Underflow is raised when the
    delivered result is below the smallest normal 2**EMIN.
    """
    rows = []
    emin = EMIN[fmt]
    for k, code in POWERS[fmt].items():
        up_flags = NX | (UF if k < emin else 0)
        down_flags = NX | (UF if k <= emin else 0)
        rows.append(row(2.0**k, all=(code, 0)))
        rows.append(row(2.0**k, +1, all=(code, up_flags)))
        rows.append(row(2.0**k, -1, rne=(code, up_flags), ta=(code, up_flags), rtz=(code - 1, down_flags)))
    return rows


def representable(x: float, src: str) -> bool:
    with np.errstate(over="ignore"):
        y = np.array([x], np.float64).astype(DTYPES[src])
    return bool(np.isfinite(y[0]) and float(y[0]) == x)


def source_value(x: float, ulp: int, src: str) -> np.ndarray:
    """The source value ``ulp`` steps from positive ``x`` (adjacent bit patterns are adjacent values)."""
    bits = np.array([x], np.float64).astype(DTYPES[src]).view(UINT[src]).astype(np.int64) + ulp
    return bits.astype(UINT[src]).view(DTYPES[src])


def directed_cases(fmt, src):
    """(x values, expected codes and flags per (rounding, saturate)) for the rows ``src`` holds, ±."""
    rows = [r for r in ROWS[fmt] + power_rows(fmt) if representable(r["x"], src)]
    xs = np.concatenate([source_value(r["x"], r["ulp"], src) for r in rows])
    assert np.all(np.isfinite(xs.astype(np.float64))) and np.all(xs.astype(np.float64) > 0)
    # the denormal flag depends on the source, not on the target
    dn = np.where(xs.astype(np.float64) < SRC_MIN_NORMAL[src], DN, 0)
    expected = {}
    for rounding in DETERMINISTIC:
        for saturate in (False, True):
            pos = [r["sat" if saturate else "exp"][rounding] for r in rows]
            codes = [c for c, _ in pos] + [mirror(fmt, c) for c, _ in pos]
            flags = np.array([f for _, f in pos] * 2) | np.concatenate([dn, dn])
            expected[rounding, saturate] = (np.array(codes), flags)
    x = np.concatenate([xs, -xs])
    return rows, x, expected


def check(fmt, x, codes, flags, want_codes, want_flags, label):
    bad = np.flatnonzero((codes != want_codes) | (flags != want_flags))
    if bad.size:
        lines = [
            f"  x={float(x[i])!r}: expected 0x{int(want_codes[i]):02X}/flags 0x{int(want_flags[i]):02X}, "
            f"got 0x{int(codes[i]):02X}/flags 0x{int(flags[i]):02X}"
            for i in bad[:12]
        ]
        pytest.fail(f"{label}: {bad.size} of {x.size} wrong:\n" + "\n".join(lines))


@pytest.mark.parametrize("path", ["exact", "lut"])
@pytest.mark.parametrize("saturate", [False, True], ids=["nosat", "sat"])
@pytest.mark.parametrize("rounding", DETERMINISTIC)
@pytest.mark.parametrize("src", list(DTYPES))
@pytest.mark.parametrize("fmt", FP8)
def test_directed_values(fmt, src, rounding, saturate, path):
    rows, x, expected = directed_cases(fmt, src)
    assert len(rows) > 40
    codes, flags = run(fmt, x, path=path, rounding=rounding, saturate=saturate)
    want_codes, want_flags = expected[rounding, saturate]
    check(fmt, x, codes, flags, want_codes, want_flags, f"{src}->{fmt} {rounding} sat={saturate} {path}")
    # nan_to_zero changes nothing for non-NaN operands
    codes2, flags2 = run(fmt, x, path=path, rounding=rounding, saturate=saturate, nan_to_zero=True)
    check(fmt, x, codes2, flags2, want_codes, want_flags, f"{src}->{fmt} {rounding} nan_to_zero")


def test_directed_tables_cover_every_source():
    """Sanity of the tables themselves: most rows hold in every source, FP16 misses only the huge ones."""
    for fmt in FP8:
        for src in DTYPES:
            rows, _, _ = directed_cases(fmt, src)
            assert len(rows) >= (40 if src != "fp32" else 70), (fmt, src, len(rows))


ALL_MODES = ["rne", "ta", "rtz", "sr"]
#: (path, rounding) pairs: stochastic rounding never takes the memoised path.
PATH_MODES = [(p, r) for p in ("exact", "lut") for r in ALL_MODES if (p, r) != ("lut", "sr")]


@pytest.mark.parametrize("path, rounding", PATH_MODES)
@pytest.mark.parametrize("src", list(DTYPES))
def test_signed_zeros(src, rounding, path):
    x = np.array([0.0, -0.0], DTYPES[src])
    for fmt, neg in [("e4m3", 0x80), ("e5m2", 0x80), ("e4m3fnuz", 0x00), ("e5m2fnuz", 0x00)]:
        for saturate in (False, True):
            codes, flags = run(fmt, x, path=path, rounding=rounding, saturate=saturate, seed=7)
            assert codes.tolist() == [0x00, neg] and flags.tolist() == [0, 0], (fmt, saturate)


#: (code of +Inf, code of -Inf, flags) without and with saturation.
INF = {
    "e4m3": ((0x7F, 0xFF, NV), (0x7E, 0xFE, NX)),
    "e5m2": ((0x7C, 0xFC, 0), (0x7B, 0xFB, NX)),
    "e4m3fnuz": ((0x80, 0x80, NV), (0x7F, 0xFF, NX)),
    "e5m2fnuz": ((0x80, 0x80, NV), (0x7F, 0xFF, NX)),
}
INF_BITS = {"fp32": [0x7F800000, 0xFF800000], "fp16": [0x7C00, 0xFC00], "bf16": [0x7F80, 0xFF80]}


@pytest.mark.parametrize("path, rounding", PATH_MODES)
@pytest.mark.parametrize("src", list(DTYPES))
@pytest.mark.parametrize("fmt", FP8)
def test_infinities(fmt, src, rounding, path):
    x = from_bits(src, INF_BITS[src])
    for saturate in (False, True):
        pos, neg, fl = INF[fmt][saturate]
        for nan_to_zero in (False, True):
            codes, flags = run(fmt, x, path=path, rounding=rounding, saturate=saturate, nan_to_zero=nan_to_zero)
            assert codes.tolist() == [pos, neg], (saturate, nan_to_zero)
            assert flags.tolist() == [fl, fl], (saturate, nan_to_zero)


#: NaN operands: quiet and signalling, with payloads, both signs (the sign is bit 31 / 15).
NAN_BITS = {
    "fp32": [0x7FC00000, 0xFFC00000, 0x7F800001, 0xFF800001, 0x7FBFFFFF, 0x7FC12345, 0xFFFFFFFF, 0x7FFFFFFF],
    "fp16": [0x7E00, 0xFE00, 0x7C01, 0xFC01, 0x7DFF, 0x7E55, 0xFFFF, 0x7FFF],
    "bf16": [0x7FC0, 0xFFC0, 0x7F81, 0xFF81, 0x7FBF, 0x7FD5, 0xFFFF, 0x7FFF],
}
#: Canonical NaN of each format for a positive / negative NaN operand.
NAN = {"e4m3": (0x7F, 0xFF), "e5m2": (0x7E, 0xFE), "e4m3fnuz": (0x80, 0x80), "e5m2fnuz": (0x80, 0x80)}


@pytest.mark.parametrize("path, rounding", PATH_MODES)
@pytest.mark.parametrize("src", list(DTYPES))
@pytest.mark.parametrize("fmt", FP8)
def test_nan_operands(fmt, src, rounding, path):
    bits = NAN_BITS[src]
    x = from_bits(src, bits)
    negative = [b >> (8 * np.dtype(UINT[src]).itemsize - 1) for b in bits]
    for saturate in (False, True):
        codes, flags = run(fmt, x, path=path, rounding=rounding, saturate=saturate)
        assert codes.tolist() == [NAN[fmt][n] for n in negative], saturate
        assert flags.tolist() == [NV] * len(bits)
        codes, flags = run(fmt, x, path=path, rounding=rounding, saturate=saturate, nan_to_zero=True)
        assert codes.tolist() == [0x00] * len(bits) and flags.tolist() == [NV] * len(bits)


#: Source subnormals, flags written out in full (DN = the operand was subnormal).
#: (source, bits, format, {rounding: (code, flags)})
DENORMAL_CASES = [
    # FP16 subnormals land in the normal range of e5m2fnuz (min normal 2^-15) ...
    ("fp16", 0x0200, "e5m2fnuz", dict(rne=(0x04, DN), ta=(0x04, DN), rtz=(0x04, DN))),  # 2^-15
    ("fp16", 0x0300, "e5m2fnuz", dict(rne=(0x06, DN), ta=(0x06, DN), rtz=(0x06, DN))),  # 1.5 x 2^-15
    # 0x03FF = 2^-14 (1 - 2^-10): 2^-15 x 1.11111111... rounds up into the next binade
    ("fp16", 0x03FF, "e5m2fnuz", dict(rne=(0x08, DN | NX), ta=(0x08, DN | NX), rtz=(0x07, DN | NX))),
    ("fp16", 0x0100, "e5m2fnuz", dict(rne=(0x02, DN), ta=(0x02, DN), rtz=(0x02, DN))),  # 2^-16: subnormal
    # ... and its subnormal range in e5m2 (2^-15 = 2 x 2^-16)
    ("fp16", 0x0200, "e5m2", dict(rne=(0x02, DN), ta=(0x02, DN), rtz=(0x02, DN))),
    ("fp16", 0x0300, "e5m2", dict(rne=(0x03, DN), ta=(0x03, DN), rtz=(0x03, DN))),
    ("fp16", 0x03FF, "e5m2", dict(rne=(0x04, DN | NX), ta=(0x04, DN | NX), rtz=(0x03, DN | UF | NX))),
    ("fp16", 0x8300, "e5m2", dict(rne=(0x83, DN), ta=(0x83, DN), rtz=(0x83, DN))),
    ("fp16", 0x8300, "e5m2fnuz", dict(rne=(0x86, DN), ta=(0x86, DN), rtz=(0x86, DN))),
    # e4m3's smallest subnormal is 2^-9: FP16 subnormals underflow
    ("fp16", 0x0200, "e4m3", dict(rne=(0x00, DN | UF | NX), ta=(0x00, DN | UF | NX), rtz=(0x00, DN | UF | NX))),
    ("fp16", 0x0001, "e5m2fnuz", dict(rne=(0x00, DN | UF | NX), ta=(0x00, DN | UF | NX), rtz=(0x00, DN | UF | NX))),
    ("fp16", 0x8001, "e5m2", dict(rne=(0x80, DN | UF | NX), ta=(0x80, DN | UF | NX), rtz=(0x80, DN | UF | NX))),
    ("fp16", 0x8001, "e4m3fnuz", dict(rne=(0x00, DN | UF | NX), ta=(0x00, DN | UF | NX), rtz=(0x00, DN | UF | NX))),
    ("fp32", 0x00000001, "e4m3", dict(rne=(0x00, DN | UF | NX), ta=(0x00, DN | UF | NX), rtz=(0x00, DN | UF | NX))),
    ("fp32", 0x80000001, "e4m3", dict(rne=(0x80, DN | UF | NX), ta=(0x80, DN | UF | NX), rtz=(0x80, DN | UF | NX))),
    ("fp32", 0x807FFFFF, "e5m2fnuz", dict(rne=(0x00, DN | UF | NX), ta=(0x00, DN | UF | NX), rtz=(0x00, DN | UF | NX))),
    ("fp32", 0x00800000, "e5m2", dict(rne=(0x00, UF | NX), ta=(0x00, UF | NX), rtz=(0x00, UF | NX))),  # normal
    ("bf16", 0x0001, "e5m2", dict(rne=(0x00, DN | UF | NX), ta=(0x00, DN | UF | NX), rtz=(0x00, DN | UF | NX))),
    ("bf16", 0x807F, "e4m3", dict(rne=(0x80, DN | UF | NX), ta=(0x80, DN | UF | NX), rtz=(0x80, DN | UF | NX))),
]


@pytest.mark.parametrize("path", ["exact", "lut"])
@pytest.mark.parametrize("src, bits, fmt, expected", DENORMAL_CASES)
def test_source_subnormals(src, bits, fmt, expected, path):
    x = from_bits(src, [bits])
    for rounding, (code, fl) in expected.items():
        for saturate in (False, True):
            codes, flags = run(fmt, x, path=path, rounding=rounding, saturate=saturate)
            assert (int(codes[0]), int(flags[0])) == (code, fl), (rounding, saturate)


# -- stochastic rounding, directed -------------------------------------------------------------------
#: (format, x, rand_bits, rand, saturate, code, flags). With R random bits, a value whose discarded
#: fraction is d rounds up when floor(d * 2**R) + rand >= 2**R.
SR_CASES = [
    # 1 + 1/16 + 1/64 in e4m3: grid 1/8, d = 5/8 = 40960 / 2**16, so up from rand = 24576
    ("e4m3", 1.078125, 16, 0, False, 0x38, NX),
    ("e4m3", 1.078125, 16, 24575, False, 0x38, NX),
    ("e4m3", 1.078125, 16, 24576, False, 0x39, NX),
    ("e4m3", 1.078125, 16, 65535, False, 0x39, NX),
    ("e4m3", -1.078125, 16, 24575, False, 0xB8, NX),
    ("e4m3", -1.078125, 16, 24576, False, 0xB9, NX),
    ("e4m3", 1.078125, 4, 5, False, 0x38, NX),  # floor(5/8 * 16) = 10: up from 6
    ("e4m3", 1.078125, 4, 6, False, 0x39, NX),
    ("e4m3", 1.078125, 1, 0, False, 0x38, NX),  # floor(5/8 * 2) = 1: up from 1
    ("e4m3", 1.078125, 1, 1, False, 0x39, NX),
    ("e4m3", 1.078125, 32, 1610612735, False, 0x38, NX),  # R = 32: up from 0.375 * 2**32 = 1610612736
    ("e4m3", 1.078125, 32, 1610612736, False, 0x39, NX),
    ("e4m3", 1.078125, 32, 2**32 - 1, False, 0x39, NX),
    # exact values never move
    ("e4m3", 1.0, 16, 65535, False, 0x38, 0),
    ("e5m2", 57344.0, 16, 65535, False, 0x7B, 0),
    # the overflow midpoint (d = 1/2): up from rand = 32768, to NaN / Inf, or max when saturating
    ("e4m3", 464.0, 16, 32767, False, 0x7E, NX),
    ("e4m3", 464.0, 16, 32768, False, 0x7F, OF | NX),
    ("e4m3", 464.0, 16, 32768, True, 0x7E, OF | NX),
    ("e5m2", 61440.0, 16, 32767, False, 0x7B, NX),
    ("e5m2", 61440.0, 16, 32768, False, 0x7C, OF | NX),
    ("e5m2", -61440.0, 16, 32768, True, 0xFB, OF | NX),
    ("e4m3fnuz", -248.0, 16, 32768, False, 0x80, OF | NX),
    ("e5m2fnuz", 61440.0, 16, 32768, True, 0x7F, OF | NX),
    # beyond the largest finite value both neighbours overflow (no rtz-style clamp for sr)
    ("e4m3", 1000.0, 16, 0, False, 0x7F, OF | NX),
    ("e4m3", 1000.0, 16, 0, True, 0x7E, OF | NX),
    ("e5m2", 65536.0, 16, 0, False, 0x7C, OF | NX),
    # the underflow threshold (half the smallest subnormal)
    ("e4m3", 2.0**-10, 16, 32767, False, 0x00, UF | NX),
    ("e4m3", 2.0**-10, 16, 32768, False, 0x01, UF | NX),
    ("e4m3", -(2.0**-10), 16, 32767, False, 0x80, UF | NX),
    ("e4m3fnuz", -(2.0**-11), 16, 32767, False, 0x00, UF | NX),
    ("e4m3fnuz", -(2.0**-11), 16, 32768, False, 0x81, UF | NX),
    # into the smallest normal from below: the delivered result is normal, no underflow
    ("e4m3", 7.5 * 2.0**-9, 16, 32767, False, 0x07, UF | NX),
    ("e4m3", 7.5 * 2.0**-9, 16, 32768, False, 0x08, NX),
    # a fraction below 2**-R never rounds up
    ("e4m3", 1.0 + 2.0**-23, 16, 65535, False, 0x38, NX),
    ("e4m3", 1.0 + 2.0**-19, 16, 65534, False, 0x38, NX),  # d = 2**-16: floor(d * 2**16) = 1
    ("e4m3", 1.0 + 2.0**-19, 16, 65535, False, 0x39, NX),
]


@pytest.mark.parametrize("fmt, x, rand_bits, rand, saturate, code, fl", SR_CASES)
def test_stochastic_rounding_directed(fmt, x, rand_bits, rand, saturate, code, fl):
    xs = np.array([x, x], np.float32)
    codes, flags = encode_with_flags(
        fmt, xs, rounding="sr", saturate=saturate, rand=[rand, rand], rand_bits=rand_bits, seed=123
    )
    assert codes.tolist() == [code, code] and flags.tolist() == [fl, fl]


# -- the memoised path against the exact model ---------------------------------------------------
def _exact(fmt, x, rounding, saturate, nan_to_zero):
    src = next(s for s in SOURCES.values() if s.dtype == x.dtype)
    return minifloat._exact(get_format(fmt), src, x, (rounding, saturate, nan_to_zero), None)


def _all16(src):
    return all_patterns(src)


def assert_paths_agree(fmt, x, rounding, saturate, nan_to_zero):
    assert x.size >= LUT_MIN
    fast = encode_with_flags(fmt, x, rounding=rounding, saturate=saturate, nan_to_zero=nan_to_zero)
    exact = _exact(fmt, x, rounding, saturate, nan_to_zero)
    for what, got, want in zip(("codes", "flags"), fast, exact):
        assert got.dtype == want.dtype == np.uint8
        bad = np.flatnonzero(got != want)
        if bad.size:
            bits = x.view(UINT["fp32"] if x.dtype.itemsize == 4 else np.uint16)
            first = ", ".join(f"x=0x{int(bits[i]):X}: 0x{int(want[i]):02X} != 0x{int(got[i]):02X}" for i in bad[:8])
            pytest.fail(f"{x.dtype}->{fmt} {rounding} sat={saturate} ntz={nan_to_zero}: {bad.size} {what} differ: {first}")


@pytest.mark.parametrize("nan_to_zero", [False, True], ids=["keepnan", "nan2zero"])
@pytest.mark.parametrize("saturate", [False, True], ids=["nosat", "sat"])
@pytest.mark.parametrize("rounding", DETERMINISTIC)
@pytest.mark.parametrize("fmt", FP8)
def test_memoised_path_equals_exact_model(fmt, rounding, saturate, nan_to_zero, golden_fp32_sample):
    """1M random FP32 values and every FP16 and BF16 pattern: codes and flags identical."""
    x32 = golden_fp32_sample(get_format(fmt), 1_000_000, [99, FP8.index(fmt)])
    for x in (x32, _all16("fp16"), _all16("bf16")):
        assert_paths_agree(fmt, x, rounding, saturate, nan_to_zero)


@pytest.mark.slow
@pytest.mark.parametrize("nan_to_zero", [False, True], ids=["keepnan", "nan2zero"])
@pytest.mark.parametrize("saturate", [False, True], ids=["nosat", "sat"])
@pytest.mark.parametrize("rounding", DETERMINISTIC)
@pytest.mark.parametrize("fmt", FP8)
def test_memoised_path_equals_exact_model_10M(fmt, rounding, saturate, nan_to_zero, golden_fp32_sample):
    for chunk in range(10):
        x = golden_fp32_sample(get_format(fmt), 1_000_000, [100, FP8.index(fmt), chunk])
        assert_paths_agree(fmt, x, rounding, saturate, nan_to_zero)


def test_memoised_path_is_taken_from_the_threshold_on(monkeypatch):
    calls = []
    real = minifloat._lut_index
    monkeypatch.setattr(minifloat, "_lut_index", lambda src, x: calls.append(x.size) or real(src, x))
    x = np.ones(LUT_MIN, np.float32)
    encode("e4m3", x[:-1])
    assert calls == []
    encode("e4m3", x)
    assert calls == [LUT_MIN]
    encode("e4m3", x.astype(np.float16).reshape(256, -1), rounding="ta")
    assert calls == [LUT_MIN, LUT_MIN]
    encode("e4m3", x, rounding="sr", seed=1)  # stochastic rounding: always the exact model
    assert calls == [LUT_MIN, LUT_MIN]


# -- shapes, layouts, dtypes ---------------------------------------------------------------------
@pytest.mark.parametrize("path, rounding", PATH_MODES)
def test_shape_and_memory_layout_do_not_matter(rounding, path, golden_fp32_sample):
    n = 2 * LUT_MIN if path == "lut" else 4096
    flat = golden_fp32_sample(get_format("e4m3"), n, 5)
    kw = dict(rounding=rounding, seed=11)
    want_codes, want_flags = encode_with_flags("e4m3", flat, **kw)
    assert want_codes.dtype == np.uint8 and want_flags.dtype == np.uint8
    grid = flat.reshape(64, -1)
    for x in (grid, np.asfortranarray(grid)):  # draws go to the values in C order, whatever the layout
        codes, flags = encode_with_flags("e4m3", x, **kw)
        assert codes.shape == flags.shape == x.shape
        assert np.array_equal(codes.ravel(), want_codes) and np.array_equal(flags.ravel(), want_flags)
    strided = flat[::2]
    if rounding != "sr":  # (sr draws depend on the position, not the value)
        codes, flags = encode_with_flags("e4m3", strided, **kw)
        assert np.array_equal(codes, want_codes[::2]) and np.array_equal(flags, want_flags[::2])


def test_scalar_and_empty_inputs():
    assert encode("e4m3", np.float32(1.0)).shape == ()
    assert int(encode("e4m3", np.float32(1.0))) == 0x38
    assert int(encode_flags("e5m2", np.float16(-0.0))) == 0
    assert encode("e5m2", np.zeros(0, np.float32)).shape == (0,)
    assert decode("e4m3", np.zeros((0,), np.uint8)).shape == (0,)
    assert decode("e4m3", 0x38) == 1.0
    assert decode("e4m3", [[0x38, 0xB8]]).tolist() == [[1.0, -1.0]]


def test_encode_and_encode_flags_are_the_two_halves_of_encode_with_flags(golden_fp32_sample):
    x = golden_fp32_sample(get_format("e5m2"), 1000, 1)
    codes, flags = encode_with_flags("e5m2", x, rounding="sr", seed=3)
    assert np.array_equal(encode("e5m2", x, rounding="sr", seed=3), codes)
    assert np.array_equal(encode_flags("e5m2", x, rounding="sr", seed=3), flags)


# -- properties ----------------------------------------------------------------------------------
#: Magnitude code of the largest finite value (written out; see the module docstring).
MAXMAG = {"e4m3": 0x7E, "e5m2": 0x7B, "e4m3fnuz": 0x7F, "e5m2fnuz": 0x7F}


@pytest.mark.parametrize("path, rounding", PATH_MODES)
@pytest.mark.parametrize("src", list(DTYPES))
@pytest.mark.parametrize("fmt", FP8)
def test_encode_decode_is_identity_on_every_finite_code(fmt, src, rounding, path):
    codes = np.arange(256)
    vals = decode(fmt, codes)
    finite = np.isfinite(vals)
    # 0x00..0x7E/0x7B/0x7F and their negatives: 254, 248, 255, 255 finite codes
    assert finite.sum() == {"e4m3": 254, "e5m2": 248, "e4m3fnuz": 255, "e5m2fnuz": 255}[fmt]
    x = vals[finite].astype(DTYPES[src])
    assert np.array_equal(x.astype(np.float32).view(np.uint32), vals[finite].view(np.uint32))  # exact, -0 kept
    dn = np.where((x != 0) & (np.abs(x.astype(np.float64)) < SRC_MIN_NORMAL[src]), DN, 0)
    for saturate in (False, True):
        got, flags = run(fmt, x, path=path, rounding=rounding, saturate=saturate, seed=42)
        assert np.array_equal(got, codes[finite]), saturate
        assert np.array_equal(flags, dn), saturate


finite_f32 = st.floats(width=32, allow_nan=False, allow_infinity=False)
in_range_f32 = st.floats(min_value=-70000.0, max_value=70000.0, width=32)
tiny_f32 = st.floats(min_value=-(2.0**-5), max_value=2.0**-5, width=32)
any_finite = st.one_of(finite_f32, in_range_f32, tiny_f32)


def _signed_value(fmt, codes, flags, x):
    """Decoded values; an overflow to NaN (no Inf in the format) counts as ±Inf for ordering."""
    v = decode(fmt, codes).astype(np.float64)
    nan = np.isnan(v)
    assert np.all(flags[nan] & OF), "a finite operand gave NaN without overflowing"
    return np.where(nan, np.copysign(np.inf, x), v)


@HYPOTHESIS
@given(xs=st.lists(any_finite, min_size=2, max_size=64), fmt=st.sampled_from(FP8),
       rounding=st.sampled_from(DETERMINISTIC), saturate=st.booleans())
def test_deterministic_rounding_is_monotonic(xs, fmt, rounding, saturate):
    x = np.sort(np.array(xs, np.float32))
    codes, flags = encode_with_flags(fmt, x, rounding=rounding, saturate=saturate)
    v = _signed_value(fmt, codes, flags, x.astype(np.float64))
    assert np.all(v[1:] >= v[:-1]), list(zip(x.tolist(), v.tolist()))


@pytest.mark.parametrize("fmt", FP8)
def test_deterministic_rounding_is_monotonic_on_sorted_sample(fmt, golden_fp32_sample):
    x = golden_fp32_sample(get_format(fmt), 400_000, 8)
    x = np.sort(x[np.isfinite(x)])
    for rounding in DETERMINISTIC:
        for saturate in (False, True):
            codes, flags = encode_with_flags(fmt, x, rounding=rounding, saturate=saturate)
            v = _signed_value(fmt, codes, flags, x.astype(np.float64))
            assert np.all(v[1:] >= v[:-1]), (rounding, saturate)


@HYPOTHESIS
@given(xs=st.lists(any_finite, min_size=1, max_size=64), fmt=st.sampled_from(FP8),
       seed=st.integers(0, 2**32 - 1), rand_bits=st.sampled_from([1, 3, 8, 16, 24, 32]))
def test_stochastic_rounding_gives_one_of_the_two_neighbours(xs, fmt, seed, rand_bits):
    x = np.array(xs, np.float32)
    lo, lo_flags = encode_with_flags(fmt, x, rounding="rtz", saturate=True)
    sr, sr_flags = encode_with_flags(fmt, x, rounding="sr", saturate=True, seed=seed, rand_bits=rand_bits)
    lo_mag, sr_mag = lo.astype(int) & 0x7F, sr.astype(int) & 0x7F
    hi_mag = np.minimum(lo_mag + 1, MAXMAG[fmt])
    assert np.all((sr_mag == lo_mag) | (sr_mag == hi_mag))
    assert np.all((sr_mag == 0) | ((sr >> 7) == np.signbit(x)))  # the sign is kept
    exact = (lo_flags & NX) == 0
    assert np.array_equal(sr[exact], lo[exact]) and np.all(sr_flags[exact] == lo_flags[exact])


def test_stochastic_rounding_mean_approaches_the_input():
    """x = 1 + 1/16 + 1/64 into e4m3 rounds up to 1.125 with p = 5/8: mean within 4 standard errors."""
    x, n = 1.078125, 20_000
    p, ulp = 5 / 8, 1 / 8
    se = ulp * math.sqrt(p * (1 - p) / n)
    one_stream = decode("e4m3", encode("e4m3", np.full(n, x, np.float32), rounding="sr", seed=2024))
    assert set(one_stream.tolist()) == {1.0, 1.125}
    assert abs(one_stream.astype(np.float64).mean() - x) < 4 * se
    many_seeds = np.concatenate(  # 200 seeds x 100 values
        [decode("e4m3", encode("e4m3", np.full(100, x, np.float32), rounding="sr", seed=s)) for s in range(200)]
    )
    assert abs(many_seeds.astype(np.float64).mean() - x) < 4 * se
    assert abs(-decode("e4m3", encode("e4m3", np.full(n, -x, np.float32), rounding="sr", seed=7)).mean() - x) < 4 * se


@settings(max_examples=20, deadline=None, derandomize=True)
@given(x=st.floats(min_value=2.0**-9, max_value=400.0, width=32), seed=st.integers(0, 2**32 - 1),
       negative=st.booleans())
def test_stochastic_rounding_is_unbiased(x, seed, negative):
    n = 20_000
    lo = float(decode("e4m3", encode("e4m3", np.float32(x), rounding="rtz")))
    hi = float(decode("e4m3", (encode("e4m3", np.float32(x), rounding="rtz") + 1) & 0x7F))
    frac = (x - lo) / (hi - lo)  # P(up) = floor(frac * 2**16) / 2**16 with 16 random bits
    p = math.floor(frac * 2**16) / 2**16
    xs = np.full(n, -x if negative else x, np.float32)
    mean = abs(decode("e4m3", encode("e4m3", xs, rounding="sr", seed=seed)).astype(np.float64).mean())
    se = (hi - lo) * math.sqrt(p * (1 - p) / n)
    assert abs(mean - (lo + p * (hi - lo))) <= 5 * se + 1e-12
    assert abs(mean - x) <= 5 * se + (hi - lo) * 2.0**-16 + 1e-12


def test_stochastic_rounding_is_reproducible_from_the_seed():
    x = np.full(1000, 1.0625, np.float32)  # a midpoint: up with probability 1/2
    a = encode("e4m3", x, rounding="sr", seed=1)
    assert np.array_equal(a, encode("e4m3", x, rounding="sr", seed=1))
    b = encode("e4m3", x, rounding="sr", seed=2)
    assert 350 < np.count_nonzero(a != b) < 650
    for alias in (5 + 2**32, -1):  # seeds are 0..2**32-1: no second name for a generator state
        with pytest.raises(FpforgeValueError, match=r"seed must be an integer in 0\.\.4294967295"):
            encode("e4m3", x, rounding="sr", seed=alias)
    # seed None means 0, and 0 is as good a seed as any other (not the stuck all-zero state)
    zero = encode("e4m3", x, rounding="sr", seed=0)
    assert np.array_equal(encode("e4m3", x, rounding="sr"), zero)
    assert 350 < np.count_nonzero(zero == 0x39) < 650


def test_stochastic_rounding_uses_draw_i_for_value_i():
    x = np.full(300, 1.0625, np.float32)  # d = 1/2: up exactly when the 16-bit draw >= 2**15
    for seed in (0, 9, 2**32 - 1):
        want = np.where(random_bits(seed, 300, 16) >= 2**15, 0x39, 0x38)
        assert np.array_equal(encode("e4m3", x, rounding="sr", seed=seed), want)
        want4 = np.where(random_bits(seed, 300, 4) >= 8, 0x39, 0x38)
        assert np.array_equal(encode("e4m3", x, rounding="sr", seed=seed, rand_bits=4), want4)


def test_explicit_draws_override_the_seed():
    x = np.array([1.078125, 1.078125, -1.078125, 464.0], np.float32)
    rand = np.array([24575, 24576, 24576, 32768])
    for seed in (None, 0, 1, 77):
        codes = encode("e4m3", x, rounding="sr", seed=seed, rand=rand)
        assert codes.tolist() == [0x38, 0x39, 0xB9, 0x7F]
    seeded = encode("e4m3", np.full(50, 1.0625, np.float32), rounding="sr", seed=31)
    via_rand = encode("e4m3", np.full(50, 1.0625, np.float32), rounding="sr", seed=0, rand=random_bits(31, 50))
    assert np.array_equal(seeded, via_rand)
    with pytest.raises(ValueError, match=r"rand must hold one draw per value \(4\)"):
        encode("e4m3", x, rounding="sr", rand=rand[:3])


@pytest.mark.parametrize("rand_bits", [0, -1, 33, 64])
def test_rand_bits_out_of_range_is_rejected(rand_bits):
    with pytest.raises(ValueError, match=r"rand_bits \(random bits per value\) must be an integer in 1\.\.32"):
        encode("e4m3", np.ones(4, np.float32), rounding="sr", seed=1, rand_bits=rand_bits)


@pytest.mark.parametrize("rand, rand_bits", [([65536], 16), ([-1], 16), ([0], 0), ([0], 33)])
def test_explicit_draws_out_of_range_are_rejected(rand, rand_bits):
    with pytest.raises(ValueError):
        encode("e4m3", np.ones(1, np.float32), rounding="sr", rand=rand, rand_bits=rand_bits)


# -- descriptors, decoding -----------------------------------------------------------------------
@pytest.mark.parametrize("fmt, dtype", [("e4m3", ml_dtypes.float8_e4m3fn), ("e5m2", ml_dtypes.float8_e5m2),
                                         ("e4m3fnuz", ml_dtypes.float8_e4m3fnuz),
                                         ("e5m2fnuz", ml_dtypes.float8_e5m2fnuz)])
def test_fp8_descriptors_agree_with_ml_dtypes(fmt, dtype):
    """Limits and special codes against ml_dtypes (the independent implementation of the four FP8 types)."""
    f, info = get_format(fmt), ml_dtypes.finfo(dtype)

    def code(v):
        return int(np.array(v, dtype=dtype).view(np.uint8))

    assert (f.bits, f.bias) == (info.bits, 1 - info.minexp)
    assert (f.max_value, f.min_normal, f.min_subnormal) == (float(info.max), float(info.smallest_normal),
                                                            float(info.smallest_subnormal))
    assert f.max_code == code(info.max) and code(-info.max) == f.max_code | f.sign_mask
    assert (f.nan_code(False), f.nan_code(True)) == (code(np.nan), code(-np.nan))
    if f.has_inf:
        assert f.inf_code == code(np.inf)
    else:
        assert f.inf_code is None and np.isnan(np.array(np.inf, np.float32).astype(dtype).astype(np.float32))


@pytest.mark.parametrize(
    "fmt, code, value",
    [
        ("e4m3", 0x38, 1.0), ("e4m3", 0x7E, 448.0), ("e4m3", 0xFE, -448.0), ("e4m3", 0x01, 2.0**-9),
        ("e4m3", 0x08, 2.0**-6), ("e4m3", 0x07, 7 * 2.0**-9), ("e4m3", 0x44, 3.0), ("e4m3", 0x80, -0.0),
        ("e5m2", 0x3C, 1.0), ("e5m2", 0x7B, 57344.0), ("e5m2", 0x7C, math.inf), ("e5m2", 0xFC, -math.inf),
        ("e5m2", 0x01, 2.0**-16), ("e5m2", 0x04, 2.0**-14), ("e5m2", 0x80, -0.0),
        ("e4m3fnuz", 0x40, 1.0), ("e4m3fnuz", 0x7F, 240.0), ("e4m3fnuz", 0xFF, -240.0), ("e4m3fnuz", 0x01, 2.0**-10),
        ("e5m2fnuz", 0x40, 1.0), ("e5m2fnuz", 0x7F, 57344.0), ("e5m2fnuz", 0x01, 2.0**-17), ("e5m2fnuz", 0x04, 2.0**-15),
    ],
)
def test_decode_directed(fmt, code, value):
    got = decode(fmt, np.array([code], np.uint8))[0]
    assert got == value and math.copysign(1, got) == math.copysign(1, value)


@pytest.mark.parametrize(
    "fmt, code, bits",
    [
        ("e4m3", 0x7F, 0x7FC00000), ("e4m3", 0xFF, 0xFFC00000), ("e5m2", 0x7D, 0x7FC00000),
        ("e5m2", 0x7F, 0x7FC00000), ("e5m2", 0xFD, 0xFFC00000), ("e4m3fnuz", 0x80, 0xFFC00000),
        ("e5m2fnuz", 0x80, 0xFFC00000),
    ],
)
def test_decode_nan_codes_give_quiet_nan_with_the_code_sign(fmt, code, bits):
    assert int(decode(fmt, [code]).view(np.uint32)[0]) == bits
    assert int(decode_bits(fmt, [code], "fp32")[0]) == bits
    assert int(decode_bits(fmt, [code], "fp16")[0]) == (bits >> 16) & 0xFE00 | 0x7E00
    assert int(decode_bits(fmt, [code], "bf16")[0]) == bits >> 16


# -- errors --------------------------------------------------------------------------------------
def test_unknown_format_names_the_valid_ones():
    x = np.ones(2, np.float32)
    for call in (lambda: encode("e9m9", x), lambda: decode("e9m9", [0]), lambda: get_format("e9m9")):
        with pytest.raises(KeyError, match=r"unknown format 'e9m9'; valid formats: .*e4m3.*e5m2.*e4m3fnuz"):
            call()


@pytest.mark.parametrize("rounding", ["hr", "nearest", "RNE", ""])
def test_rounding_not_offered_names_the_valid_choices(rounding):
    with pytest.raises(ValueError, match=rf"format 'e4m3' has no rounding '{rounding}'; valid choices: rne, ta, rtz, sr"):
        encode("e4m3", np.ones(2, np.float32), rounding=rounding)


@pytest.mark.parametrize("x", [np.ones(3), np.ones(3, np.int32), [1.0, 2.0], 1.0, np.ones(3, ml_dtypes.float8_e4m3fn)])
def test_source_must_be_fp32_fp16_or_bf16(x):
    with pytest.raises(TypeError, match="source dtype must be float32, float16 or bfloat16"):
        encode("e4m3", x)


def test_fixed_bias_formats_reject_a_bias():
    x = np.ones(2, np.float32)
    with pytest.raises(ValueError, match="has a fixed bias; bias must be None, not 3"):
        encode("e4m3", x, bias=3)
    with pytest.raises(ValueError, match="has a fixed bias"):
        encode_flags("e5m2", x, bias=0)
    with pytest.raises(ValueError, match="has a fixed bias"):
        decode("e4m3fnuz", [0], bias=8)


def test_decode_rejects_codes_out_of_range_and_unknown_targets():
    with pytest.raises(ValueError, match=r"codes of e4m3 must be integer codes in 0\.\.255 .*, not 256"):
        decode("e4m3", [256])
    with pytest.raises(ValueError, match=r"codes of e4m3 must be integer codes in 0\.\.255 .*, not -1"):
        decode("e4m3", [-1])
    with pytest.raises(ValueError, match="unknown target 'fp8'"):
        decode_bits("e4m3", [0], "fp8")
