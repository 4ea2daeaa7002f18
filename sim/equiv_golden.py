"""The golden model's outputs on one input of a unit, given as port values: what ``fpforge equiv`` prints beside
both designs' outputs on a counterexample (:mod:`fpforge.sim.equiv`). Scalar encoders and decoders are
:func:`fpforge.sim.equiv_core._golden`'s; this module adds block encoders and decoders
(:func:`fpforge.golden.block.encode_block`, :func:`~fpforge.golden.block.decode_block_bits`) and dot-product
units (:func:`fpforge.golden.dot.dot`, and the FP8 RFC epilogue's formula for ``scale``/``out_format``)."""

from __future__ import annotations

import numpy as np

from ..golden.errors import FpforgeError

__all__ = ["golden_outputs"]


def golden_outputs(spec, ports, inputs) -> dict:
    """``{output port: value}`` of the golden model on ``inputs`` (``{input port: int}``) of the combinational
    unit ``spec``; empty where the golden model has no value (a ``mode`` code the unit does not have)."""
    from ..hw.spec import BlockDecoderSpec, BlockEncoderSpec, DecoderSpec, DotSpec, EncoderSpec

    golden = {EncoderSpec: _scalar, DecoderSpec: _scalar, BlockEncoderSpec: _block_encoder,
              BlockDecoderSpec: _block_decoder, DotSpec: _dot}.get(type(spec))
    return {} if golden is None else golden(spec, inputs, ports)


def _scalar(spec, inputs, ports):
    from ..hw.spec import DecoderSpec
    from .equiv_core import _golden
    from .prove_unit import unit_config

    return _golden(unit_config(spec), ports, inputs, decoder=isinstance(spec, DecoderSpec))


def _block_encoder(spec, inputs, ports=None):
    from ..golden import DEFAULT_RAND_BITS, ROUNDING_MODES, SOURCES
    from ..golden.block import block_words, encode_block
    from ..golden.layout import unpack_lanes

    fmt = spec.descriptor
    roundings = tuple(spec.rounding or fmt.roundings[:1])
    if "mode" in inputs:
        names = {v: k for k, v in ROUNDING_MODES.items()}
        mode = names.get(inputs["mode"])
        if mode not in roundings:
            return {}
    else:
        mode = roundings[0]
    src = SOURCES[spec.source]
    bits = unpack_lanes([inputs["a"]], src.bits, fmt.k1)[0]
    x = bits.astype(np.uint32 if src.bits == 32 else np.uint16).view(src.dtype).reshape(1, fmt.k1)
    rand_bits = spec.rand_bits or DEFAULT_RAND_BITS
    rand = None
    if mode == "sr":
        rand = unpack_lanes([inputs["rand"]], rand_bits, fmt.k1)[0].astype(np.uint32)
    enc = encode_block(fmt, x, rounding=mode, rand=rand, rand_bits=rand_bits)
    return {"y": int(block_words(fmt, enc)[0])}


def _block_decoder(spec, inputs, ports=None):
    from ..golden.block import decode_block_bits, from_block_words

    fmt = spec.descriptor
    y = decode_block_bits(fmt, from_block_words(fmt, [inputs["a"]])).reshape(fmt.k1)
    return {"y": sum(int(v) << (32 * k) for k, v in enumerate(y))}


def _dot(spec, inputs, ports=None):
    from ..golden.dot import dot, from_operand_words
    from ..golden.layout import twos_words, words_to_ints

    cfg = spec.config
    a = from_operand_words(cfg.a, [inputs["a"]], cfg.r)
    b = from_operand_words(cfg.b, [inputs["b"]], cfg.r)
    kwargs = {}
    for name, fmt in (("a", cfg.a), ("b", cfg.b)):
        if f"sel_{name}" in inputs:
            kwargs[f"select_{name}"] = np.array([inputs[f"sel_{name}"]])
        if f"bias_{name}" in inputs:
            kwargs[f"bias_{name}"] = np.array([inputs[f"bias_{name}"]], np.int64)
    res = dot(cfg, a, None, b, **kwargs)
    out = {"y": int(res.y[0])}
    if spec.raw:
        out["sum"] = words_to_ints(twos_words(res.sum, cfg.acc_bits))[0]
        out["exp"] = words_to_ints(twos_words(res.exp, cfg.exp_bits))[0]
    if spec.scale or spec.out_format is not None:
        from ..golden import get_format
        from .epilogue import _formula

        fmt = None if spec.out_format is None else get_format(spec.out_format)
        r = res.y.astype(np.uint32).view(np.float32)
        scales = [np.float32(np.uint32(inputs.get(n, 0x3F800000)).view(np.float32))
                  for n in ("scale_a", "scale_b", "inv_scale_out")]
        y, codes, flags = _formula(r, *scales, fmt, spec.rounding, spec.saturate is not False,
                                   inputs.get("bias"), bool(spec.scale))
        out["y"] = int(np.asarray(y, np.float32).view(np.uint32)[0])
        if codes is not None:
            out["code"] = int(codes[0])
        out["flags"] = int(flags[0])
    return out


def _floats(bits, n_show=64) -> str:
    vals = np.asarray(bits, np.uint32).view(np.float32).ravel()
    text = ", ".join(f"{float(v):.6g}" for v in vals[:n_show])
    return f"[{text}{', ...' if len(vals) > n_show else ''}]"


def port_values(spec, inputs, outputs=None) -> dict:
    """``{port: text}``: the values some ports carry, as numbers (a block's or an operand's elements, an FP32
    result), for the counterexample's printout; ports with no such reading are left out. Best effort: a
    pattern the golden model refuses to decode is left out too."""
    from ..golden.block import decode_block_bits, from_block_words
    from ..golden.layout import unpack_lanes

    out = {}
    try:
        if spec.unit == "block-encoder":
            from ..golden import SOURCES

            src = SOURCES[spec.source]
            bits = unpack_lanes([inputs["a"]], src.bits, spec.descriptor.k1)[0]
            word = bits.astype(np.uint32 if src.bits == 32 else np.uint16).view(src.dtype).astype(np.float32)
            out["a"] = _floats(word.view(np.uint32))
            for name, value in (outputs or {}).items():
                if name == "y":
                    fmt = spec.descriptor
                    out[f"{name}"] = _floats(decode_block_bits(fmt, from_block_words(fmt, [value])))
        elif spec.unit == "block-decoder":
            fmt = spec.descriptor
            out["a"] = _floats(decode_block_bits(fmt, from_block_words(fmt, [inputs["a"]])))
            for name, value in (outputs or {}).items():
                if name == "y":
                    out[name] = _floats(unpack_lanes([value], 32, fmt.k1)[0])
        elif spec.unit == "dot":
            from ..golden.dot import from_operand_words

            cfg = spec.config
            for side, fmt in (("a", cfg.a), ("b", cfg.b)):
                ops = from_operand_words(fmt, [inputs[side]], cfg.r)
                if fmt.dot_side.family == "scalar":
                    from ..golden import decode_bits

                    elem = fmt.formats[inputs.get(f"sel_{side}", 0)] if len(fmt.formats) > 1 else fmt.formats[0]
                    bias = inputs.get(f"bias_{side}")
                    kw = {} if bias is None else {"bias": bias}
                    out[side] = _floats(decode_bits(elem, ops.astype(np.uint16).ravel(), **kw))
                else:
                    out[side] = _floats(decode_block_bits(fmt, ops))
            for name, value in (outputs or {}).items():
                if name == "y":
                    out[name] = _floats([value])[1:-1]
    except (FpforgeError, ValueError, IndexError):  # a reading for the eye only; the hex values are printed
        return out
    return out
