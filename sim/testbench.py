"""The one cocotb testbench for every fpforge unit and configuration.

The case (stimulus, golden expectations computed per batch in numpy, port layout) arrives in the file
named by ``FPFORGE_CASE``. Two shapes:

* ``comb``: L lanes of a combinational unit; each step drives L vectors on the wide lane ports, waits
  1 ns and reads the outputs. No clock.
* ``stream``: a valid/ready unit. A driver feeds payloads (holding valid and payload until accepted), a
  monitor takes results when ``o.valid & o.ready``, output backpressure and input gaps come from a seeded
  pattern. The first ``unstalled`` values run with no stalls and must leave exactly ``latency`` cycles
  after they entered; the rest run with random stalls and are checked in order.

An in-order checker compares every bit; the first mismatches are logged as input bits, expected and actual
outputs in hex, with the seed to replay. The test asserts once, on the mismatch count.

Progress: when ``FPFORGE_PROGRESS`` names a file, the testbench rewrites it with ``done total`` (vectors)
about twice a second; the parent process (:func:`fpforge.sim.run.run_case`) polls it for its progress bar.
"""

import json
import os
import time
from pathlib import Path

import cocotb
import numpy as np
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, ReadOnly, Timer

from fpforge.golden.layout import ints_to_words, pack_lanes, pack_payload, unpack_lanes, words_to_ints

__all__ = ["run_unit"]

_SHOW = 10


class _Progress:
    """Writes ``done total`` to the file named by ``FPFORGE_PROGRESS`` at most every ``interval`` seconds."""

    def __init__(self, total, interval=0.5):
        path = os.environ.get("FPFORGE_PROGRESS")
        self.path = Path(path) if path else None
        self.total, self.interval, self.next = total, interval, 0.0

    def __call__(self, done, force=False):
        if self.path is None:
            return
        now = time.monotonic()
        if force or now >= self.next:
            self.next = now + self.interval
            tmp = self.path.with_suffix(".tmp")
            tmp.write_text(f"{done} {self.total}\n")
            os.replace(tmp, self.path)


def _load():
    path = Path(os.environ["FPFORGE_CASE"])
    data = np.load(path)
    meta = json.loads(str(data["meta"]))
    ins = {k[3:]: data[k] for k in data.files if k.startswith("in_")}
    exp = {k[4:]: data[k] for k in data.files if k.startswith("exp_")}
    return path, meta, ins, exp


def _pack(values: np.ndarray, width: int, lanes: int) -> list:
    """Python ints, one per batch of ``lanes`` values (lane 0 least significant)."""
    batches = -(-len(values) // lanes)
    padded = np.zeros(batches * lanes, np.uint64)
    padded[: len(values)] = values
    return words_to_ints(pack_lanes(padded.reshape(batches, lanes), width))


def _unpack(words: list, width: int, lanes: int) -> np.ndarray:
    return unpack_lanes(words, width, lanes).reshape(-1)


def _hex(arr, i):
    return f"0x{words_to_ints(arr[i : i + 1])[0]:x}"


def _describe(i, ins, exp, got, labels):
    block = ""
    for start, text in labels:
        if i >= start:
            block = text
    inputs = " ".join(f"{k}={_hex(v, i)}" for k, v in ins.items())
    outs = " ".join(f"{k}: expected {_hex(exp[k], i)} got {_hex(got[k], i)}" for k in exp)
    return f"vector {i} ({block}): {inputs} -> {outs}"


def _report(dut, path, meta, ins, exp, got, seconds, errors=()):
    n = len(next(iter(exp.values())))
    bad = np.zeros(n, bool)
    for k in exp:
        bad |= (got[k][:n].reshape(n, -1) != exp[k].reshape(n, -1)).any(axis=1)
    idx = np.nonzero(bad)[0]
    lines = [_describe(int(i), ins, exp, got, meta["labels"]) for i in idx[:_SHOW]]
    for line in list(errors) + lines:
        dut._log.error(line)
    if len(idx) or errors:
        dut._log.error(f"{len(idx)} mismatches in {n} vectors; replay: FPFORGE_CASE={path.name} seed {meta['seed']}")
    summary = {"vectors": n, "mismatch_count": int(len(idx)), "mismatches": lines, "errors": list(errors),
               "seconds": seconds}
    (path.parent / "summary.json").write_text(json.dumps(summary))
    return len(idx) + len(errors)


async def _comb(dut, meta, ins, exp):
    lanes = meta["lanes"]
    ports = meta["ports"]
    n = len(next(iter(exp.values())))
    if lanes == 1:  # one unit: ports of any width, as Python ints
        packed = {k: words_to_ints(v) for k, v in ins.items()}
    else:
        packed = {k: _pack(v, ports[k][1], lanes) for k, v in ins.items()}
    handles_in = {k: getattr(dut, f"{k}_l") for k in ins}
    handles_out = {k: getattr(dut, f"{k}_l") for k in exp}
    words = {k: [] for k in exp}
    report = _Progress(n)
    for b in range(len(next(iter(packed.values())))):
        for k, h in handles_in.items():
            h.value = packed[k][b]
        await Timer(1, "ns")
        for k, h in handles_out.items():
            words[k].append(h.value.to_unsigned())
        if not b & 63:
            report(min(b * lanes, n))
    report(n, force=True)
    if lanes == 1:
        return {k: ints_to_words(w, ports[k][1])[:n] for k, w in words.items()}, []
    return {k: _unpack(w, ports[k][1], lanes)[:n] for k, w in words.items()}, []


async def _stream(dut, meta, ins, exp):
    latency, seed = meta["latency"], meta["seed"]
    n = len(next(iter(exp.values())))
    payloads = pack_payload(ins, meta["payload_in"])
    rng = np.random.default_rng(seed)
    stall = meta["stall"]
    unstalled = min(meta["unstalled"], n)
    gaps = rng.random(4 * n + 64) < stall
    holds = rng.random(4 * n + 67) < stall

    names = meta.get("names") or {}  # a VHDL wrapper spells i__valid as i_valid
    port = {n: getattr(dut, names.get(n, n)) for n in ("clk", "rst", "i__valid", "i__ready", "i__payload",
                                                      "o__valid", "o__ready", "o__payload")}
    cocotb.start_soon(Clock(port["clk"], 10, unit="ns").start())
    port["rst"].value = 1
    port["i__valid"].value = 0
    port["o__ready"].value = 0
    for _ in range(3):
        await FallingEdge(port["clk"])
    port["rst"].value = 0

    sent_at, got_at, outs = [], [], []
    i = cycle = 0
    offered = False  # valid was up and not yet taken: keep it (and the payload) up
    errors = []
    limit = 50 * n + 1000
    report = _Progress(n)
    while len(outs) < n and cycle < limit:
        if not cycle & 255:
            report(len(outs))
        await FallingEdge(port["clk"])
        stalled_phase = len(outs) >= unstalled and i >= unstalled
        valid = i < n and (offered or not (stalled_phase and gaps[cycle % len(gaps)]))
        ready = not (stalled_phase and holds[cycle % len(holds)])
        port["i__valid"].value = int(valid)
        if i < n:
            port["i__payload"].value = payloads[i]
        port["o__ready"].value = int(ready)
        await ReadOnly()
        if ready and int(port["o__valid"].value):
            outs.append(port["o__payload"].value.to_unsigned())
            got_at.append(cycle)
        offered = valid
        if valid and int(port["i__ready"].value):
            sent_at.append(cycle)
            i += 1
            offered = False
        cycle += 1
    report(len(outs), force=True)
    if len(outs) < n:
        errors.append(f"only {len(outs)} of {n} results within {limit} cycles")
    late = [(k, got_at[k] - sent_at[k]) for k in range(min(unstalled, len(got_at)))
            if got_at[k] - sent_at[k] != latency]
    if late:
        k, d = late[0]
        errors.append(f"latency: value {k} left {d} cycles after it entered, not {latency} "
                      f"({len(late)} of the first {unstalled} unstalled values)")
    got = {}
    raw = outs + [0] * (n - len(outs))
    for name, offset, width in meta["payload_out"]:
        mask = (1 << width) - 1
        got[name] = ints_to_words([(v >> offset) & mask for v in raw], width)
    return got, errors


@cocotb.test()
async def run_unit(dut):
    """Drive the case, check every output bit against the golden expectations."""
    path, meta, ins, exp = _load()
    dut._log.info(f"case {path.name}: {meta['kind']}, {len(next(iter(exp.values())))} vectors, seed {meta['seed']}")
    t0 = time.monotonic()
    if meta["kind"] == "comb":
        got, errors = await _comb(dut, meta, ins, exp)
    else:
        got, errors = await _stream(dut, meta, ins, exp)
    failures = _report(dut, path, meta, ins, exp, got, time.monotonic() - t0, errors)
    assert failures == 0, f"{failures} mismatches or errors; see the log above"  # not user input: the verdict
