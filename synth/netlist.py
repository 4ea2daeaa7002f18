"""Measures of a mapped netlist (yosys ``write_json`` of the flattened design)."""

from __future__ import annotations

from .errors import SynthError
from .liberty import Liberty

__all__ = ["logic_depth"]


def logic_depth(netlist: dict, top: str, lib: Liberty) -> int:
    """Longest combinational path, in cells, of the flattened top module."""
    modules = netlist.get("modules", {})
    mod = modules.get(top)
    if mod is None:
        # yosys may escape names; fall back to the module flagged as top
        for name, m in modules.items():
            if str(m.get("attributes", {}).get("top", "0")).strip("0") == "1":
                mod, top = m, name
                break
    if mod is None:
        raise SynthError(f"top module {top!r} missing from the mapped netlist")

    driver: dict[int, str] = {}  # net bit -> combinational cell name
    comb_inputs: dict[str, list] = {}
    endpoints: list = []

    for pname, port in mod.get("ports", {}).items():
        if port.get("direction") in ("output", "inout"):
            endpoints.extend(port.get("bits", []))

    for cname, cell in mod.get("cells", {}).items():
        ctype = cell.get("type", "")
        conns = cell.get("connections", {})
        if not conns:
            continue  # e.g. $scopeinfo
        dirs = cell.get("port_directions")
        if dirs is None:
            raise SynthError(f"cannot compute logic depth: no port directions for cell type {ctype!r}")
        info = lib.cells.get(ctype)
        sequential = info.sequential if info is not None else False
        ins: list = []
        for port, bits in conns.items():
            d = dirs.get(port, "input")
            if d in ("input", "inout"):
                ins.extend(bits)
            if d in ("output", "inout") and not sequential:
                for b in bits:
                    if isinstance(b, int):
                        driver[b] = cname
        if sequential:
            endpoints.extend(ins)
        else:
            comb_inputs[cname] = ins

    level: dict[str, int] = {}

    def cell_level(start: str) -> int:
        # iterative DFS; level(c) = 1 + max(level of drivers of c's inputs)
        if start in level:
            return level[start]
        on_path: set[str] = {start}
        stack: list[tuple[str, int, int]] = [(start, 0, 0)]  # cell, next input idx, best
        while stack:
            c, idx, best = stack[-1]
            ins = comb_inputs[c]
            descended = False
            while idx < len(ins):
                b = ins[idx]
                idx += 1
                d = driver.get(b) if isinstance(b, int) else None
                if d is None:
                    continue
                if d in level:
                    best = max(best, level[d])
                    continue
                if d in on_path:
                    raise SynthError(f"combinational loop through cell {d!r} ({mod['cells'][d].get('type')})")
                stack[-1] = (c, idx, best)
                stack.append((d, 0, 0))
                on_path.add(d)
                descended = True
                break
            if descended:
                continue
            level[c] = best + 1
            on_path.discard(c)
            stack.pop()
            if stack:
                pc, pidx, pbest = stack[-1]
                stack[-1] = (pc, pidx, max(pbest, level[c]))
        return level[start]

    depth = 0
    for b in endpoints:
        d = driver.get(b) if isinstance(b, int) else None
        if d is not None:
            depth = max(depth, cell_level(d))
    return depth
