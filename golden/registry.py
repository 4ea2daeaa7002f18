"""The format registry: names, variants, and the constants every descriptor shares.

A **variant** of a format is its own frozen descriptor, registered under ``<base>_<variant>``:
``cfloat8_143_ieee`` (IEEE denormals instead of the Tesla guide's), ``hif8_literal`` (hybrid rounding read
to the letter). It is found by name (``get_format("cfloat8_143_ieee")``) or from its base
(``get_format("cfloat8_143").variant("ieee")``); ``fmt.base`` goes back. A descriptor registered under a
name whose prefix before the last ``_`` is already registered *is* a variant of that format (so
``register(TaperedFormat("hif8_ascend", ...))`` makes ``hif8.variant("ascend")`` work with nothing else).
Variants do not compose: a variant of a variant is a variant of the base.

API keywords and command-line flags (``ieee_denormals=True``, ``paper_literal=True``, ``--ieee-denormals``,
``--paper-literal``) are sugar: :func:`resolve_variant` turns them into the variant descriptor at the API
boundary, and nothing below that boundary takes them.
"""

from __future__ import annotations

from enum import IntFlag

from .contract import BlockFormatLike, ScalarFormat
from .errors import FpforgeTypeError, FpforgeValueError, UnknownName
from .variants import _BASE, REGISTRY, Registered, base_of, variants_of

__all__ = [
    "Flag",
    "ROUNDING_MODES",
    "RUNTIME_BIASES",
    "RUNTIME_BIAS_BITS",
    "VARIANT_FLAGS",
    "Registered",
    "base_of",
    "get_format",
    "list_formats",
    "list_variants",
    "register",
    "resolve_variant",
    "REGISTRY",
    "RESOLVERS",
]


class Flag(IntFlag):
    """Exception flags; the same bit layout in the golden model and in the RTL ``flags`` port."""

    INVALID = 1  #: NaN operand, or no definable result (an infinity the format cannot hold, a negative UHP operand)
    DENORMAL = 2  #: the source operand was subnormal
    OVERFLOW = 4  #: a finite operand rounded beyond the largest finite value
    UNDERFLOW = 8  #: non-zero operand, delivered result below the smallest normal, and inexact
    INEXACT = 16  #: the delivered result differs from the operand


#: Rounding mode names and the code each has on a runtime ``mode`` port (stable across formats).
ROUNDING_MODES = {"rne": 0, "ta": 1, "rtz": 2, "sr": 3, "hr": 4}

#: Width of a run-time exponent bias (Tesla CFloat8/SHP: an unsigned 6-bit integer) and its values.
RUNTIME_BIAS_BITS = 6
RUNTIME_BIASES = range(1 << RUNTIME_BIAS_BITS)

#: The API keywords that are sugar for a variant: ``flag: (variant, what the formats that have it are, the
#: descriptor data that already has what the flag asks for)``.
VARIANT_FLAGS = {"ieee_denormals": ("ieee", "the formats with the CFloat guide's denormals",
                                    lambda f: getattr(f, "denormals", None) == "ieee"),
                 "paper_literal": ("literal", "HiF8 hybrid rounding", lambda f: getattr(f, "hr_literal", False))}

#: Callables ``name -> descriptor or None`` consulted for names not in the registry (parametric families:
#: ``bdr_m7_k16_d8_k2_d1`` is resolved by ``fpforge.golden.block``).
RESOLVERS: list = []


def register(fmt, *, variant_of: str | None = None):
    """Add a descriptor to the registry (names are unique) and return it.

    ``variant_of`` names the base of a variant; by default a name ``<base>_<suffix>`` whose ``<base>`` is
    registered makes the descriptor a variant of it.
    """
    if not (isinstance(getattr(fmt, "name", None), str) and hasattr(fmt, "bits") and hasattr(fmt, "roundings")):
        raise FpforgeTypeError(f"register takes a format descriptor (a ScalarFormat, BlockFormatLike or "
                               f"TaperedFormat with a name), not {type(fmt).__name__} {fmt!r:.60}")
    if variant_of is not None and not isinstance(variant_of, str):
        raise FpforgeTypeError(f"variant_of must be a registered format's name (str) or None, not {variant_of!r:.60}")
    name = fmt.name
    if not name.isidentifier() or name != name.lower():
        raise FpforgeValueError(f"a format's name is a lower-case identifier (e4m3, cfloat8_143), not {name!r}")
    if name in REGISTRY:
        raise FpforgeValueError(f"format {name!r} is already registered")
    if variant_of is None and "_" in name and name.rsplit("_", 1)[0] in REGISTRY:
        variant_of = name.rsplit("_", 1)[0]
    if variant_of is not None:
        if variant_of not in REGISTRY or not name.startswith(variant_of + "_"):
            raise FpforgeValueError(f"a variant of {variant_of!r} is registered as {variant_of}_<variant>, "
                                    f"not {name!r}")
        _BASE[name] = _BASE.get(variant_of, variant_of)
    REGISTRY[name] = fmt
    return fmt


def get_format(name):
    """Return the descriptor registered as ``name`` (a descriptor is passed through).

    Raises
    ------
    UnknownName
        With a message naming the valid choices (a KeyError and a ValueError).
    """
    if not isinstance(name, str):
        if hasattr(name, "name") and hasattr(name, "bits") and hasattr(name, "roundings"):
            return name  # a descriptor
        raise FpforgeTypeError(f"format must be a format name (see list_formats()) or a descriptor, not "
                               f"{type(name).__name__} {name!r}"[:200])
    try:
        return REGISTRY[name.lower()]
    except KeyError:
        pass
    for resolve in RESOLVERS:
        fmt = resolve(name.lower())
        if fmt is not None:
            return fmt
    raise UnknownName(f"unknown format {name!r}; valid formats: {', '.join(list_formats())}, "
                      "or bdr_m<M>_k<K1>_d<D1>_k<K2>_d<D2>")


def list_formats(kind: str | None = None) -> list[str]:
    """Names of the registered formats (variants included), in registration order.

    ``kind``: ``"source"`` (fp32, fp16, bf16), ``"scalar"`` (scalar formats that are not sources), ``"block"``
    (block formats), ``"variant"`` (the variants); None for all.
    """
    if kind is None:
        return list(REGISTRY)
    tests = {"source": lambda n, f: getattr(f, "dtype", None) is not None,
             "scalar": lambda n, f: isinstance(f, ScalarFormat) and f.dtype is None,
             "block": lambda n, f: isinstance(f, BlockFormatLike),
             "variant": lambda n, f: n in _BASE}
    if not isinstance(kind, str) or kind not in tests:
        raise UnknownName(f"unknown kind {kind!r}; valid kinds: {', '.join(tests)}")
    return [n for n, f in REGISTRY.items() if tests[kind](n, f)]


def list_variants(fmt) -> dict[str, str]:
    """``{variant: registered name}`` of a format's variants (those of its base, for a variant)."""
    return variants_of(get_format(fmt))


def resolve_variant(fmt, **flags):
    """The descriptor that ``fmt`` with the sugar keywords ``flags`` (:data:`VARIANT_FLAGS`) names:
    ``resolve_variant("cfloat8_143", ieee_denormals=True)`` is ``cfloat8_143_ieee``. False flags change
    nothing, nor does a flag a variant already satisfies (``hif8_ascend`` with ``paper_literal``); a flag the
    format has no variant for is an error naming the formats that have one.

    Raises
    ------
    FpforgeValueError
        A flag for a format without that variant, or an unknown flag.
    """
    fmt = get_format(fmt)
    for flag, on in flags.items():
        if flag not in VARIANT_FLAGS:
            raise FpforgeValueError(f"unknown variant option {flag!r}; valid: {', '.join(VARIANT_FLAGS)}")
        if not on:
            continue
        suffix, what, has = VARIANT_FLAGS[flag]
        if getattr(fmt, "variant_name", None) == suffix:
            continue
        if getattr(fmt, "variant_name", None) and has(fmt):  # a variant that already does it (hif8_ascend is literal)
            continue
        if not isinstance(fmt, Registered) or suffix not in list_variants(fmt):
            have = [b for b in dict.fromkeys(_BASE.values()) if suffix in list_variants(REGISTRY[b])]
            raise FpforgeValueError(f"{flag} applies to {what} ({', '.join(have)}), not {getattr(fmt, 'name', fmt)!r}")
        fmt = fmt.variant(suffix)
    return fmt
