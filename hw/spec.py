"""Typed unit specs: one frozen dataclass per unit kind, validated once, with a stable JSON form and a hash.

A spec holds exactly the options its unit takes, with the defaults resolved and the names canonical. The
variant sugar (``ieee_denormals``, ``paper_literal``, ``compat``) is no field: :func:`spec_from_options`,
the one route from the keyword style of :func:`fpforge.hw.build_unit`, resolves it into the format's
registered variant (``cfloat8_143`` with ``ieee_denormals=True`` is ``format="cfloat8_143_ieee"``). So two
spellings of one unit give one spec, one JSON form and one hash.

Fields are keyword-only; each class's are listed in docs/architecture.md ("Typed unit specs").
``format`` is a registered name (:func:`fpforge.golden.get_format`; a BDR point is ``bdr_m<M>_k<K1>_...``)
or, for a descriptor that is not registered (a run-time-bias format fixed at one bias, a field changed),
a :class:`FormatRef`: ``{"name": base, "at": bias, "with": {field: value}}`` in JSON.

JSON form (:meth:`UnitSpec.to_dict`): every field, plus ``"unit"`` (``encoder``, ``decoder``,
``block-encoder``, ``block-decoder``, ``dot``, ``scaled-encoder``) and ``"schema"``
(:data:`SCHEMA_VERSION`); tuples become lists. :meth:`UnitSpec.from_dict` is strict: an unknown or
missing key, a wrong type or an invalid value is a one-line fpforge error.

Hash (:attr:`UnitSpec.sha256`, short form :attr:`UnitSpec.key`): SHA-256 of the canonical JSON (sorted
keys, no spaces, ASCII) of ``to_dict()``. It covers the unit's configuration only — not the Verilog
module name, fpforge's source, the Amaranth version or any tool: the caches that need those add them
(the sweep adds the generator's source hash to its Verilog key, the Verilog's SHA-256 and the yosys
build to its area key). It is stable across runs, machines and Python versions.

Adding an option to a unit is one line: a field declared with :func:`option` (default and the function
that checks and canonicalises its value); rules between fields live in the spec's ``_check``.
"""

from __future__ import annotations

import contextvars
import dataclasses
import hashlib
import json
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from ..golden.checks import as_bool, as_int, describe
from ..golden.contract import BlockFormatLike
from ..golden.errors import FpforgeError, FpforgeTypeError, FpforgeValueError, UnknownName
from ..golden.formats import SOURCES, get_format, resolve_variant
from ..golden.rng import DEFAULT_RAND_BITS
from ..golden.tapered import with_compat
from .epilogue_options import EpilogueOptions
from .spec_fields import (
    BLOCK_DECODER_TARGETS,
    MAX_LATENCY,
    MAX_PORT_BITS,
    check_block_decodable,
    check_block_encodable,
    check_choice,
    check_decodable,
    check_port_bits,
    field_datapath,
    field_dot_rounding,
    field_dot_saturate,
    field_flag,
    field_lanes,
    field_latency,
    field_operand,
    field_rand_bits,
    field_rounding,
    field_saturate,
    field_scaled_source,
    field_scaling,
    field_seed,
    field_source,
    field_stages,
    field_target,
    resolve_datapath,
)

__all__ = ["MAX_LATENCY", "MAX_PORT_BITS", "SCHEMA_VERSION", "SPECS", "UNITS", "BlockDecoderSpec",
           "BlockEncoderSpec", "DecoderSpec", "DotSpec", "EncoderSpec", "FormatRef", "ScaledEncoderSpec",
           "UnitSpec", "as_spec", "descriptor_of", "option", "spec_from_options"]

#: Version of the JSON form; a change of the fields' meaning or canonical values bumps it.
SCHEMA_VERSION = 1

UNITS = ("encoder", "decoder", "block-encoder", "block-decoder", "dot", "scaled-encoder")


#: Keywords of :func:`spec_from_options` that are sugar for a format variant (never spec fields).
VARIANT_SUGAR = ("paper_literal", "ieee_denormals", "compat")


def option(default, check=None):
    """A spec field: its ``default`` and ``check(value, spec) -> canonical value`` (raises on bad input);
    fields are checked in declaration order, so a check may read the fields declared before it."""
    return field(default=default, metadata={"check": check})


# -- formats ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class FormatRef:
    """A descriptor that is not registered, named by its registered base: ``get_format(name)``, fixed at
    bias ``at`` (run-time-bias formats) and with the descriptor fields ``with_`` (sorted ``(field, value)``
    pairs) changed. JSON: ``{"name": ..., "at": ..., "with": {...}}`` (``at``/``with`` only when set)."""

    name: str
    at: int | None = None
    with_: tuple = ()

    @classmethod
    def of(cls, desc) -> str | FormatRef:
        """The registered name of ``desc``, or a FormatRef that rebuilds it."""
        base = get_format(desc.name)
        if base == desc:
            return base.name
        at = desc.bias if getattr(base, "bias", 0) is None and getattr(desc, "bias", None) is not None else None
        start = base if at is None else base.at(at)
        changes = {} if not dataclasses.is_dataclass(desc) else {
            f.name: getattr(desc, f.name) for f in dataclasses.fields(desc)
            if f.compare and f.name not in ("name", "title") and getattr(desc, f.name) != getattr(start, f.name)}
        if any(not isinstance(v, (str, int, bool, type(None))) for v in changes.values()) or \
                (changes and not hasattr(start, "with_")):
            raise FpforgeValueError(f"the descriptor {desc.name!r} is neither registered nor its base with plain "
                                    "fields changed; register it (fpforge.golden.register) to use it in a unit")
        ref = cls(base.name, at, tuple(sorted(changes.items())))
        if ref.descriptor() != desc:
            raise FpforgeValueError(f"the descriptor {desc.name!r} differs from every registered one; register it "
                                    "(fpforge.golden.register) to use it in a unit")
        return ref

    def descriptor(self):
        d = get_format(self.name)
        if self.at is not None:
            d = d.at(self.at)
        if not self.with_:
            return d
        try:
            return d.with_(**dict(self.with_))
        except FpforgeError:
            raise
        except (TypeError, ValueError) as e:  # a field the descriptor does not have, ...
            raise FpforgeValueError(f"format {self.name!r} with {dict(self.with_)!r}: {e}"[:300]) from None

    def to_dict(self) -> dict:
        out = {"name": self.name}
        if self.at is not None:
            out["at"] = self.at
        if self.with_:
            out["with"] = dict(self.with_)
        return out

    @classmethod
    def from_dict(cls, d) -> FormatRef:
        if not isinstance(d, dict):
            raise FpforgeTypeError(f"a format reference is a mapping {{'name': str, 'at': int, 'with': {{...}}}}, not "
                                   f"{describe(d)}")
        unknown = sorted(str(k) for k in set(d) - {"name", "at", "with"})
        if unknown or not isinstance(d.get("name"), str):
            raise FpforgeValueError(f"a format reference is {{'name': str, 'at': int, 'with': {{...}}}}, not {d!r}"
                                    [:300])
        at = None if d.get("at") is None else as_int(d["at"], "format 'at' (bias)")
        w = {} if d.get("with") is None else d["with"]
        if not isinstance(w, dict):
            raise FpforgeTypeError(f"format 'with' must be a mapping of descriptor fields, not {describe(w)}")
        if w:
            base = get_format(d["name"])
            fields = sorted(f.name for f in dataclasses.fields(base) if f.compare and f.name not in ("name", "title")) \
                if dataclasses.is_dataclass(base) and hasattr(base, "with_") else []
            unknown = sorted(str(k) for k in w if k not in fields)
            if unknown:
                raise FpforgeValueError(f"format 'with' names unknown field(s) {', '.join(unknown)} of {base.name}; "
                                        f"its fields: {', '.join(fields) or 'none (it cannot be changed)'}")
        return cls(d["name"], at, tuple(sorted(w.items())))


def descriptor_of(fmt):
    """The descriptor a spec's ``format`` (or ``format_b``) names."""
    return fmt.descriptor() if isinstance(fmt, FormatRef) else get_format(fmt)


def _format_name(value):
    """A registered name for ``value`` (a name, a descriptor, a FormatRef or its dict)."""
    if isinstance(value, FormatRef):
        return value
    if isinstance(value, dict):
        return FormatRef.of(FormatRef.from_dict(value).descriptor())
    if isinstance(value, str):
        return get_format(value).name
    return FormatRef.of(get_format(value))


def _scalar_format(value, spec):
    name = _format_name(value)
    fmt = descriptor_of(name)
    if fmt.name in SOURCES:
        raise FpforgeValueError(f"{fmt.name!r} is a source/target format: encoders convert from it (source=) and "
                                "decoders to it (target=); format takes a narrow format (see `fpforge formats`)")
    if isinstance(fmt, BlockFormatLike) != spec.unit.startswith("block-"):
        block = isinstance(fmt, BlockFormatLike)
        kind = "block" if block else "scalar"
        valid = "block-encoder, block-decoder" if block else "encoder, decoder"
        raise FpforgeValueError(f"{fmt.name!r} is a {kind} format; its units are {valid}")
    if isinstance(fmt, BlockFormatLike):
        check_port_bits(f"a block of {fmt.name}", max(fmt.block_bits, fmt.k1 * 32))
    return name


# -- the specs ----------------------------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class UnitSpec:
    """What every unit spec shares: the unit kind (``unit``), the JSON form, the hash, validation."""

    unit: ClassVar[str] = ""
    format: object = option(None, _scalar_format)

    def __post_init__(self):
        if self.format is None:
            raise FpforgeValueError(f"a{'n' if self.unit[0] in 'e' else ''} {self.unit} unit needs a format")
        for f in dataclasses.fields(self):
            check = f.metadata.get("check")
            if check is not None:
                value = getattr(self, f.name)
                try:
                    object.__setattr__(self, f.name, check(value, self))
                except FpforgeError:
                    raise
                except (TypeError, ValueError, KeyError, AttributeError):  # junk a check did not foresee
                    raise FpforgeTypeError(f"a{'n' if self.unit[0] in 'e' else ''} {self.unit} unit's {f.name} "
                                           f"cannot be {describe(value)}") from None
        self._check()

    def _check(self):
        """Rules between fields (after each field is checked)."""
        rounding = getattr(self, "rounding", None)
        if rounding is not None:
            sr = "sr" in rounding
            for name, default in (("rand_bits", DEFAULT_RAND_BITS), ("seed", 0)):
                value = getattr(self, name)
                if not sr and value is not None:
                    raise FpforgeValueError(f"{name} applies to encoders with stochastic rounding (sr); this "
                                            f"{self.unit} has rounding {','.join(rounding)}")
                if sr and value is None:
                    object.__setattr__(self, name, default)

    # -- facts ----------------------------------------------------------------------------------------------
    @property
    def descriptor(self):
        """The format descriptor (operand A's for a dot unit)."""
        return descriptor_of(self.format)

    @classmethod
    def options(cls) -> tuple:
        """The field names, in declaration order."""
        return tuple(f.name for f in dataclasses.fields(cls))

    def as_options(self) -> dict:
        """The keyword form: ``unit`` and every field that is not None (``spec_from_options(**spec.as_options())
        == spec``); what code written for :func:`fpforge.hw.build_unit`'s keywords reads."""
        out = {"unit": self.unit}
        out.update({n: getattr(self, n) for n in self.options() if getattr(self, n) is not None})
        return out

    # -- JSON and hash ----------------------------------------------------------------------------------------
    def to_dict(self) -> dict:
        """The JSON form: ``unit``, ``schema`` and every field (tuples as lists)."""
        out = {"unit": self.unit, "schema": SCHEMA_VERSION}
        for name in self.options():
            v = getattr(self, name)
            out[name] = v.to_dict() if isinstance(v, FormatRef) else list(v) if isinstance(v, tuple) else v
        return out

    def to_json(self, indent=None) -> str:
        """The canonical JSON text (what the hash covers; ``indent`` only for reading)."""
        return json.dumps(self.to_dict(), sort_keys=True, indent=indent,
                          separators=(",", ": ") if indent else (",", ":"), ensure_ascii=True)

    @property
    def sha256(self) -> str:
        """SHA-256 (hex) of :meth:`to_json`."""
        return hashlib.sha256(self.to_json().encode("ascii")).hexdigest()

    @property
    def key(self) -> str:
        """The first 16 hex digits of :attr:`sha256` (file and directory names)."""
        return self.sha256[:16]

    @classmethod
    def from_dict(cls, d) -> UnitSpec:
        """The spec of a JSON form (strict: every key present, none unknown, values of the right type). An
        optional ``sha256`` key (what ``--spec-json`` prints) must be the spec's :attr:`sha256`.

        Raises
        ------
        FpforgeTypeError
            ``d`` is not a mapping, or a value of the wrong type.
        FpforgeValueError
            Unknown unit, missing or unknown keys, another schema version, an invalid value.
        """
        if not isinstance(d, dict):
            raise FpforgeTypeError(f"a unit spec's JSON form must be a mapping, not {describe(d)}")
        unit = d.get("unit")
        if not isinstance(unit, str) or unit not in SPECS:
            raise UnknownName(f"unknown unit {unit!r}; valid units: {', '.join(UNITS)}")
        kind = SPECS[unit]
        if cls is not UnitSpec and kind is not cls:
            raise FpforgeValueError(f"{cls.__name__}.from_dict got a {unit} spec")
        schema = d.get("schema")
        if not isinstance(schema, int) or isinstance(schema, bool) or schema != SCHEMA_VERSION:
            raise FpforgeValueError(f"unit spec schema {describe(schema)} is not this fpforge's "
                                    f"({SCHEMA_VERSION}); regenerate the spec")
        names = kind.options()
        unknown = sorted(set(d) - set(names) - {"unit", "schema", "sha256"})
        missing = [n for n in names if n not in d]
        if unknown or missing:
            what = "; ".join(p for p in (f"unknown key(s) {', '.join(unknown)}" if unknown else "",
                                         f"missing key(s) {', '.join(missing)}" if missing else "") if p)
            raise FpforgeValueError(f"{unit} spec: {what}; its keys: unit, schema, {', '.join(names)}")
        values = {}
        for n in names:
            v = d[n]
            if isinstance(v, list):
                v = tuple(v)
            elif isinstance(v, dict) and n.startswith("format"):
                v = FormatRef.from_dict(v)
            elif isinstance(v, (dict, tuple, set, float)):
                raise FpforgeTypeError(f"{unit} spec: {n} must be a JSON scalar or list, not {describe(v)}")
            values[n] = v
        spec = kind(**values)
        if "sha256" in d and (not isinstance(d["sha256"], str) or d["sha256"] != spec.sha256):  # (`--spec-json` writes it; optional)
            raise FpforgeValueError(f"{unit} spec: its sha256 {str(d['sha256'])[:70]!r} is not the hash of its fields "
                                    f"({spec.sha256}); the JSON was edited: regenerate it or remove the sha256 key")
        return spec

    @classmethod
    def from_json(cls, text) -> UnitSpec:
        """The spec of a JSON text (:meth:`to_json`, or ``fpforge ... --spec-json``'s output); see :meth:`from_dict`."""
        if not isinstance(text, (str, bytes, bytearray)):
            raise FpforgeTypeError(f"from_json takes the JSON text (str or bytes), not {describe(text)}")
        try:
            d = json.loads(text)
        except (TypeError, ValueError) as e:
            raise FpforgeValueError(f"not a unit spec's JSON: {e}") from None
        return cls.from_dict(d)


@dataclass(frozen=True, kw_only=True)
class _Converter(UnitSpec):
    """The fields every encoder has, scalar or block: its source, rounding modes, latency and the
    stochastic-rounding source."""

    source: str = option("fp32", field_source)
    rounding: tuple = option(None, field_rounding)
    latency: int = option(0, field_latency())
    rand_bits: int | None = option(None, field_rand_bits)
    seed: int | None = option(None, field_seed)


@dataclass(frozen=True, kw_only=True)
class _Expander(UnitSpec):
    """The fields every decoder has, scalar or block: its target and latency."""

    target: str = option("fp32", field_target)
    latency: int = option(0, field_latency())


@dataclass(frozen=True, kw_only=True)
class EncoderSpec(_Converter):
    """A scalar encoder (source float → narrow format); :class:`fpforge.hw.Encoder` / ``HiF8Encoder``."""

    unit: ClassVar[str] = "encoder"
    saturate: bool | str = option(False, field_saturate)
    nan_to_zero: bool = option(False, field_flag("nan_to_zero"))


@dataclass(frozen=True, kw_only=True)
class DecoderSpec(_Expander):
    """A scalar decoder (narrow format → target float); :class:`fpforge.hw.Decoder` / ``HiF8Decoder``."""

    unit: ClassVar[str] = "decoder"

    def _check(self):
        super()._check()
        check_decodable(self.descriptor, self.target)


@dataclass(frozen=True, kw_only=True)
class BlockEncoderSpec(_Converter):
    """A block encoder (k1 source floats → one block); :class:`fpforge.hw.BlockEncoder`."""

    unit: ClassVar[str] = "block-encoder"

    def _check(self):
        super()._check()
        check_block_encodable(self.descriptor)


@dataclass(frozen=True, kw_only=True)
class BlockDecoderSpec(_Expander):
    """A block decoder (one block → k1 FP32 values); :class:`fpforge.hw.BlockDecoder`."""

    unit: ClassVar[str] = "block-decoder"

    def _check(self):
        super()._check()
        check_choice(self.target, BLOCK_DECODER_TARGETS, "block decoder target", unknown=True)
        check_block_decodable(self.descriptor)


@dataclass(frozen=True, kw_only=True)
class DotSpec(UnitSpec):
    """A dot-product unit (:class:`fpforge.hw.DotProduct`): operands ``format`` (A) and ``format_b`` (B,
    default A's; names as :func:`fpforge.golden.dot.operand_format` gives them), ``r`` elements, an
    ``f``-bit window, ``stages`` register stages (0: combinational), ``raw`` outputs, ``io_registers``
    (the combinational unit with registered inputs and outputs)."""

    unit: ClassVar[str] = "dot"
    format: object = option(None, field_operand)
    format_b: str | None = option(None, field_operand)
    r: int = option(None)  # r and f: checked by DotConfig in _check (its messages)
    f: int = option(None)
    stages: int = option(0, field_stages)
    raw: bool = option(False, field_flag("raw"))
    io_registers: bool = option(False, field_flag("io_registers"))
    # The FP8 RFC's epilogue (docs/scaling.md): scales, running amax, a cast of the result to out_format with
    # one rounding mode (default the format's first) that saturates unless saturate is False.
    scale: bool = option(False, field_flag("scale"))
    amax: bool = option(False, field_flag("amax"))
    out_format: str | None = option(None)
    rounding: str | None = option(None, field_dot_rounding)
    saturate: bool | None = option(None, field_dot_saturate)
    # aligned (the paper's), anchored (exact windows) or auto (the smaller); hw/dot.py resolve_datapath
    datapath: str = option("auto", field_datapath)

    def _check(self):
        ep = EpilogueOptions(self.scale, self.amax, self.out_format, self.rounding,
                             True if self.saturate is None else self.saturate, self.stages,
                             rounding_name=ROUNDING_NAME.get())
        if ep.format is not None:  # canonical: the cast's format name, mode and saturation spelt out
            object.__setattr__(self, "out_format", ep.format.name)
            object.__setattr__(self, "rounding", ep.rounding)
            object.__setattr__(self, "saturate", ep.saturate)
        cfg = self.config
        object.__setattr__(self, "format_b", cfg.b.name)
        object.__setattr__(self, "r", cfg.r)
        object.__setattr__(self, "f", cfg.f)
        for side, bits in zip("AB", cfg.operand_bits):
            check_port_bits(f"operand {side} ({cfg.r} elements of {cfg.a.name if side == 'A' else cfg.b.name})",
                             bits)
        resolve_datapath(cfg, self.datapath, raw=self.raw)
        if self.io_registers and self.stages:
            raise FpforgeValueError("io_registers wraps the combinational unit: use stages=0 with it")

    @property
    def config(self):
        """The :class:`fpforge.golden.dot.DotConfig` of the unit."""
        from ..golden.dot import DotConfig

        return DotConfig(self.format, self.r, self.f, self.format_b)

    @property
    def descriptor(self):
        return self.config.a


@dataclass(frozen=True, kw_only=True)
class ScaledEncoderSpec(UnitSpec):
    """A scaled encoder (``lanes`` values × an FP32 or power-of-two scale → a narrow format, with a running
    amax); :class:`fpforge.hw.ScaledEncoder`. ``latency`` is at least 1."""

    unit: ClassVar[str] = "scaled-encoder"
    source: str = option("fp32", field_scaled_source)
    rounding: tuple = option(None, field_rounding)
    saturate: bool | str = option(False, field_saturate)
    nan_to_zero: bool = option(False, field_flag("nan_to_zero"))
    latency: int = option(1, field_latency(1))
    lanes: int = option(1, field_lanes)
    scaling: str = option("fp32", field_scaling)
    rand_bits: int | None = option(None, field_rand_bits)
    seed: int | None = option(None, field_seed)


SPECS = {s.unit: s for s in (EncoderSpec, DecoderSpec, BlockEncoderSpec, BlockDecoderSpec, DotSpec,
                             ScaledEncoderSpec)}

#: Why a unit refuses options it does not take (the end of the error message).
_WHY = {"dot": " (its depth is stages; it rounds once to FP32, nearest even; rounding and saturate apply to the "
               "cast of out_format)", "decoder": " (a decoder is exact)",
        "block-decoder": " (a decoder is exact)", "block-encoder": " (block units always saturate)"}
#: The variant sugar each unit takes.
_SUGAR = {"encoder": VARIANT_SUGAR, "decoder": ("ieee_denormals", "compat"), "scaled-encoder": VARIANT_SUGAR}


def as_spec(spec) -> UnitSpec:
    """``spec`` itself, or the spec of a keyword dict (``{"unit": ..., "format": ..., ...}``, the keyword style
    of :func:`spec_from_options`)."""
    if isinstance(spec, UnitSpec):
        return spec
    if not isinstance(spec, dict):
        raise FpforgeTypeError(f"a unit must be a spec (fpforge.hw.spec) or a dict of build_unit keywords, not "
                               f"{describe(spec)}")
    return spec_from_options(**spec)


#: The keyword a dot unit's cast rounding was given as (``rounding``, or its alias ``out_rounding``), for
#: the messages of the spec's checks.
ROUNDING_NAME = contextvars.ContextVar("fpforge_dot_rounding_name", default="rounding")


def spec_from_options(unit, **options) -> UnitSpec:
    """The spec of a unit given in :func:`fpforge.hw.build_unit`'s keyword style: ``unit`` (a name of
    :data:`UNITS`), ``format`` and the options; the sugar ``ieee_denormals``, ``paper_literal`` and
    ``compat`` resolve to the format's variant. An option the unit does not take is an error (None,
    False and 0 count as not given), as is ``rand_bits``/``seed`` without ``sr``.

    Raises
    ------
    UnknownName
        An unknown unit (or format, compat, ...).
    FpforgeValueError, FpforgeTypeError
        What the spec's checks raise, or an option the unit does not take.
    """
    if not isinstance(unit, str) or unit not in UNITS:
        raise UnknownName(f"unknown unit {unit!r}; valid units: {', '.join(UNITS)}")
    if "out_rounding" in options:  # DotProduct's (and docs/scaling.md's) name of a dot unit's `rounding`
        if unit != "dot":
            raise FpforgeValueError(f"out_rounding is the rounding of a dot unit's cast to out_format; "
                                    f"a{'n' if unit[0] in 'e' else ''} {unit} unit takes rounding")
        if options.get("rounding") is not None:
            raise FpforgeValueError("give the dot unit's rounding once: rounding and out_rounding are one option")
        options = dict(options)
        options["rounding"] = options.pop("out_rounding")
        token = ROUNDING_NAME.set("out_rounding")
        try:
            return spec_from_options(unit, **options)
        finally:
            ROUNDING_NAME.reset(token)
    kind = SPECS[unit]
    fields = kind.options()
    sugar = _SUGAR.get(unit, ())
    every = {n for k in SPECS.values() for n in k.options()} | set(VARIANT_SUGAR)
    for name in options:
        if name not in every:
            raise FpforgeTypeError(f"build_unit() got an unexpected keyword argument {name!r}")
    for name in ("paper_literal", "ieee_denormals"):
        as_bool(options.get(name, False), name)
    compat = options.get("compat")
    if compat is not None and not isinstance(compat, str):
        raise FpforgeTypeError(f"compat must be a name (None, 'default' or 'ascend'), not {compat!r}")
    if "rand_bits" not in fields:  # (units with sr check it in the spec)
        for name in ("rand_bits", "seed"):
            if options.get(name) is not None:
                field_rand_bits(options.get("rand_bits"), None), field_seed(options.get("seed"), None)
                raise FpforgeValueError(f"{name} applies to encoders with stochastic rounding (sr); this {unit} "
                                        "has no sr rounding")
    given = {k for k, v in options.items() if not _unset(k, v)}
    if unit == "dot" and options.get("saturate") is not None:
        given.add("saturate")  # (False is a choice for the cast, and no option without one)
    uses = (set(fields) - {"format", "rand_bits", "seed"}) | set(sugar)
    if unit == "dot" and options.get("out_format") is None:
        uses -= {"rounding", "saturate"}
    unused = sorted(given - uses - {"format", "rand_bits", "seed"})
    unused = [ROUNDING_NAME.get() if n == "rounding" else n for n in unused]  # as the caller spelt it
    if unused:
        raise FpforgeValueError(f"a{'n' if unit[0] in 'e' else ''} {unit} unit does not take {', '.join(unused)}"
                                f"{_WHY.get(unit, '')}; its options: format, {', '.join(sorted(uses))}")
    values = {k: v for k, v in options.items() if k in fields and v is not None}
    if sugar and "format" in values:
        # (one line for an unknown compat, or a format without the variant)
        fmt = with_compat(descriptor_of(_format_name(values["format"])), compat)
        fmt = resolve_variant(fmt, ieee_denormals=options.get("ieee_denormals", False),
                              paper_literal=options.get("paper_literal", False))
        if unit == "encoder" and options.get("paper_literal") and "hr" not in _modes(values.get("rounding")):
            raise FpforgeValueError("paper_literal applies to hybrid rounding: enable rounding 'hr'")
        values["format"] = fmt
    return kind(**values)


def _unset(name, value) -> bool:
    """The keyword-style value means "not given": None, False, an integer 0, ``"off"``, compat ``"default"``
    (compared by type first: an array or other junk is "given", and its field's check names it)."""
    if value is None or (isinstance(value, (bool, np.bool_)) and not value):
        return True
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return value == 0
    return isinstance(value, str) and (value == "off" or (name == "compat" and value == "default"))


def _modes(rounding):
    if rounding is None or isinstance(rounding, str):
        return () if rounding is None else (rounding,)
    return tuple(rounding) if isinstance(rounding, (tuple, list)) else ()
