"""The checked epilogue options of a dot unit (:class:`EpilogueOptions`): plain data that the dot spec
(:mod:`fpforge.hw.spec`) validates with and :mod:`fpforge.hw.epilogue`'s gateware reads; no gateware here."""

from amaranth import unsigned

from ..golden.contract import ScalarFormat
from ..golden.errors import FpforgeTypeError, FpforgeValueError, UnknownName
from ..golden.formats import RUNTIME_BIAS_BITS, SOURCES, Flag, get_format

__all__ = ["EpilogueOptions"]


class EpilogueOptions:
    """The checked epilogue keywords of a :class:`~fpforge.hw.dot.DotProduct` (all off: no epilogue).

    Parameters
    ----------
    scale, amax : bool
    out_format : str or descriptor, optional
        A scalar format of at most 8 bits (``bias`` input for run-time-bias formats).
    out_rounding : str, optional
        One rounding mode of ``out_format`` (default its first); ``sr`` is not offered (no generator).
    saturate : bool
        The cast's overflow (and ±Inf) gives ±max (default True, as the RFC asks).
    stages : int
        The unit's stages: ``amax`` needs a stream (its running value is a register).
    """

    def __init__(self, scale=False, amax=False, out_format=None, out_rounding=None, saturate=True, stages=0, *,
                 rounding_name="out_rounding"):
        # rounding_name: the keyword the caller gave the mode as (build_unit's and the CLI's is `rounding`)
        for name, value in (("scale", scale), ("amax", amax), ("saturate", saturate)):
            if not isinstance(value, bool):
                raise FpforgeTypeError(f"{name} must be True or False, not {value!r}")
        if amax and stages == 0:
            raise FpforgeValueError("amax is a running maximum over a stream (a register): give stages >= 1")
        fmt = None
        if out_format is not None:
            fmt = get_format(out_format)
            if not isinstance(fmt, ScalarFormat) or fmt.name in SOURCES or fmt.bits > 8:
                raise FpforgeValueError(f"out_format must be a scalar format of at most 8 bits (e4m3, e5m2, "
                                        f"e4m3fnuz, hif8, cfloat8_143, e2m1, binary8p3se, ...), not "
                                        f"{getattr(fmt, 'name', fmt)!r}")
        if out_rounding is not None:
            if fmt is None:
                raise FpforgeValueError(f"{rounding_name} applies to the cast: give out_format")
            if not isinstance(out_rounding, str):
                raise FpforgeTypeError(f"{rounding_name} must be one mode name, not {out_rounding!r}")
            if out_rounding not in fmt.roundings:
                raise UnknownName(f"unknown rounding {out_rounding!r} for {fmt.name} ({rounding_name}); valid: "
                                  f"{', '.join(m for m in fmt.roundings if m != 'sr')}")
            if out_rounding == "sr":
                raise FpforgeValueError(f"the dot epilogue's cast has no random source: {rounding_name} must be one "
                                        f"of {', '.join(m for m in fmt.roundings if m != 'sr')}, not 'sr'")
        if not saturate and fmt is None:
            raise FpforgeValueError("saturate applies to the cast: give out_format")
        self.scale, self.amax, self.format, self.saturate = scale, amax, fmt, saturate
        self.rounding = None if fmt is None else (out_rounding or fmt.roundings[0])

    @property
    def enabled(self) -> bool:
        return self.scale or self.amax or self.format is not None

    @property
    def flags(self) -> bool:
        """The unit has a ``flags`` output (a multiply or a cast behind the result)."""
        return self.scale or self.format is not None

    def inputs(self) -> dict:
        """``{name: shape}`` of the input payload fields the epilogue adds (payload order)."""
        ins = {}
        if self.scale:
            ins.update(scale_a=unsigned(32), scale_b=unsigned(32), inv_scale_out=unsigned(32))
        if self.amax:
            ins["first"] = unsigned(1)
        if self.format is not None and self.format.runtime_bias:
            ins["bias"] = unsigned(RUNTIME_BIAS_BITS)
        return ins

    def outputs(self) -> dict:
        """``{name: shape}`` of the outputs the epilogue adds after ``y`` (and ``sum``/``exp``)."""
        outs = {}
        if self.format is not None:
            outs["code"] = unsigned(self.format.bits)
        if self.flags:
            outs["flags"] = unsigned(len(Flag))
        if self.amax:
            outs["amax"] = unsigned(32)
        return outs

    def describe(self) -> str:
        parts = []
        if self.scale:
            parts.append("scales a*b*inv_out")
        if self.amax:
            parts.append("output amax")
        if self.format is not None:
            parts.append(f"cast to {self.format.name} {self.rounding}{'' if self.saturate else ' no'} saturate")
        return "epilogue: " + ", ".join(parts)

    def suffix(self) -> str:
        """Module name suffix (empty without an epilogue)."""
        text = ("_sc" if self.scale else "") + ("_amax" if self.amax else "")
        if self.format is not None:
            text += f"_{self.format.name}"
            if self.rounding != self.format.roundings[0]:
                text += f"_{self.rounding}"
            if not self.saturate:
                text += "_nosat"
        return text
