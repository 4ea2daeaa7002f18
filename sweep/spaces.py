"""The built-in spaces: ``paper`` (the MX paper's Fig. 7 sweep), ``paper-rf`` (its points at several r and f),
``named-ppa`` (its named formats and INT-like points: the PPA section), ``small`` (a quick check) and the area
tables of the docs (``area-fp8``, ``area-hif8``, ``area-cfloat``, ``area-block``, ``area-dot``)."""

from __future__ import annotations

from .space import OCP_PRESETS, Space, grid_points, preset_points, register_spaces

__all__ = ["SPACES", "flows_sample", "named_ppa", "paper", "paper_rf", "paper_sample", "small"]

#: The OCP MX formats and the FP8/INT baselines every Fig. 7 space shows.
_REFERENCE = ("fp8", *OCP_PRESETS)


def _presets(*names):
    return [p for n in names for p in preset_points(n)]


#: Magnitude bits of the paper space's BDR and INT-like points.
PAPER_M = tuple(range(1, 13))


def small() -> Space:
    """Six cheap points at r = 8: MX4-like, BFP and INT-like, and FP8 (tests, a first try)."""
    pts = grid_points(dict(family="bdr", m=[1, 2], k1=[8], d1=[8], k2=[2, 8], d2=[0, 1]), "small: ")
    pts += grid_points(dict(family="int", m=[3]), "small: ")
    return Space("small", pts + _presets("e4m3"), r=8, f=16, vectors=2000,
                 description="a few cheap BDR, INT-like and FP8 points (a smoke test)")


def paper() -> Space:
    """The MX paper's design space (seed 004 §IV-C, Fig. 7); see docs/sweep.md for the choice."""
    pts = _presets("mx9", "mx6", "mx4", "msfp12", "msfp16", *_REFERENCE)
    for m in PAPER_M:
        pts += grid_points(dict(family="bdr", m=m, k1=[2, 4, 8, 16, 32], d1=8, k2=[1, 2, 4, 8, 16],
                                 d2=[1, 2, 3, 4]), "paper: ")
        pts += grid_points(dict(family="bdr", m=m, k1=[2, 4, 8, 16, 32, 64], d1=8, k2=1, d2=0), "paper: ")
    pts += grid_points(dict(family="int", m=list(PAPER_M[1:])), "paper: ")
    # flow "lean": the flat flow with a lighter generic ABC pass, ~1.5x less yosys CPU, areas unbiased against the
    # flat flow's (median within fpforge.synth.flow.LEAN_MEDIAN_TOLERANCE; docs/sweep.md, "The lean flow")
    return Space("paper", pts, r=16, f=24, flow="lean", description="the MX paper's Fig. 7 sweep: BDR over m, k1, "
                 "k2, d2 (d1 = 8), BFP/MSFP, INT-like, FP8 and OCP MX")


def paper_sample() -> Space:
    """Every 10th point of ``paper``, its named formats and the neighbours the claims compare (~110
    points): the per-point times of ``make bench``, a quick look at the figure and the claims."""
    full = paper()
    named = [p for p in full.points if not p["name"].startswith("bdr_")]
    claims = {f"bdr_m{m}_k16_d8_k{k2}_d{d2}" for m in (7, 4, 2) for k2, d2 in ((2, 2), (8, 1), (1, 1))}
    pairs = [p for p in full.points if p["name"] in claims]
    return Space("paper-sample", named + pairs + full.points[::10], r=full.r, f=full.f, flow=full.flow,
                 description="every 10th point of the paper space, its named formats and the claims' pairs")


#: The r and f the ``paper-rf`` space sweeps.
PAPER_RF_R = (16, 32)
PAPER_RF_F = (16, 24, 32)


def flows_sample(vectors=500) -> Space:
    """Every 19th point of ``paper`` at r <= 32 (43 points across m, k1, k2, d2 and the kinds; the r = 64 units
    take minutes each in the flat flow), in ``paper``'s flow: the flows compared with the flat one (the regress
    test of tests/test_sweep_flows.py, bench/sweep_flows.py)."""
    full = paper()
    pts = [p for p in full.points if full.r_of(p) <= 32][::19]
    return Space("flows-sample", pts, r=full.r, f=full.f, vectors=vectors, flow=full.flow)


def paper_rf() -> Space:
    """The paper's points at r in {16, 32} and f in {16, 24, 32}: how the frontier and the named formats move
    with the dot-product length and the window (``make sweep-paper-rf``; thousands of units: long)."""
    full = paper()
    return Space("paper-rf", full.points, r=list(PAPER_RF_R), f=list(PAPER_RF_F), flow=full.flow,
                 description="the paper's Fig. 7 points at r = 16, 32 and f = 16, 24, 32 (a frontier per r and f)")


def named_ppa() -> Space:
    """The paper space's named formats (MX9/6/4, MSFP12/16, the FP8 baseline, the OCP MX formats) and its INT-like
    points INT3..INT8 at the paper's r = 16, f = 24, through the standard flow (PPA times the flat netlist; the
    reuse flow's is hierarchical): the PPA section of docs/results.md in a minute or two (``fpforge sweep named-ppa
    --ppa --liberty osu018 --clock-ns 10 --results``) where the whole ``paper`` space with ``--ppa`` is hours."""
    full = paper()
    pts = [p for p in full.points if not p["name"].startswith("bdr_") and (p["family"] != "int" or p["m"] <= 7)]
    return Space("named-ppa", pts, r=full.r, f=full.f, flow="standard",
                 description="the paper's named formats and INT3..INT8 at r = 16, f = 24 (the PPA section)")


SPACES = register_spaces({"paper": paper, "paper-sample": paper_sample, "paper-rf": paper_rf, "named-ppa": named_ppa,
                          "small": small})
