"""Static timing and power of a mapped netlist with OpenSTA (``sta``; Debian's ``opensta``, 2.0.17).

One ``sta -no_init -exit`` run per netlist, in the flow's private work directory::

    read_liberty cells.lib; read_verilog netlist.v; link_design TOP
    create_clock -period T [get_ports clk]      (a virtual clock when the design has no clock port)
    set_input_delay 0 / set_output_delay 0      (every input and output, against that clock)
    set_driving_cell -lib_cell CELL / set_load L
    worst_slack -max; report_checks -path_delay max
    set_power_activity -input -activity 0.1; report_power     (with power)

No wire parasitics are read (no SPEF, no wire-load model): net capacitance is the pins' only. Debian's 2.0.17
has no ``read_vcd``/``read_saif``, its ``set_power_activity -pins`` is broken and its propagation overwrites
``sta::set_power_pin_activity`` on every pin but a primary input: workload activities (``activities=``) go
through per-instance power reports instead (:func:`run_sta`). ``FPFORGE_STA`` names another ``sta`` binary.
"""

from __future__ import annotations

import math
import os
import re
import shutil
import subprocess
from pathlib import Path

from ..golden.errors import ToolError, ToolMissing
from ..jobs.lifeline import popen_kwargs

__all__ = ["ACTIVITIES", "DEFAULT_INPUT_ACTIVITY", "run_sta", "sta_command"]

#: ``activity=`` choices: OpenSTA's vectorless propagation, or toggles of a gate-level simulation of a workload.
ACTIVITIES = ("vectorless", "workload")
#: Transitions per clock period at every primary input (OpenSTA's own default, set explicitly), duty 0.5.
DEFAULT_INPUT_ACTIVITY = 0.1


def sta_command() -> str:
    """The ``sta`` binary: ``$FPFORGE_STA`` or ``sta`` on PATH. Raises ToolMissing (one line) without it."""
    forced = os.environ.get("FPFORGE_STA", "").strip()
    if forced:
        exe = shutil.which(forced)
        if exe is None:
            raise ToolMissing(f"FPFORGE_STA={forced!r} is not an executable OpenSTA `sta` (unset it to use the "
                              "sta on PATH)")
        return exe
    exe = shutil.which("sta")
    if exe is None:
        raise ToolMissing("static timing and power need OpenSTA, and `sta` is not on PATH: apt-get install opensta "
                          "(.ci/run installs it where apt-get is usable)")
    return exe


def sta_version() -> str:
    try:
        out = subprocess.run([sta_command(), "-version"], capture_output=True, text=True, timeout=30, check=False,
                             **popen_kwargs()).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return f"OpenSTA {out}" if re.fullmatch(r"[\w.\-]+", out) else "unknown"


def _tcl_name(name: str) -> str:
    return "{" + name + "}"


def run_sta(work: Path, netlist: str, top: str, liberty: str, *, clock_ns: float, clock_port: str | None,
            driving_cell: str, driving_pin: str, load: float, power: bool, timeout: float | None,
            activities: dict | None = None) -> dict:
    """Run OpenSTA on ``work/netlist`` (mapped onto ``work/liberty``); ``load`` is in the library's capacitance
    unit. Returns ``slack_ns``, ``delay_ns`` (``clock_ns - slack``: the critical path's delay including a flop's
    setup time), ``critical_path`` ("from -> to" or None without a constrained path) and, with ``power``,
    ``internal_mw``, ``switching_mw``, ``leakage_mw`` and ``power_mw``.

    ``activities`` ({instance: toggles of its output per clock period}, from a workload simulation): power
    from those activities instead of the vectorless propagation. OpenSTA 2.0.17 overwrites a
    ``sta::set_power_pin_activity`` annotation of any pin but a primary input with its own propagation (its
    ``PropActivityVisitor`` visits every pin the inputs reach), so the annotation goes per instance through
    OpenSTA's power tables instead: two ``report_power -instances`` at a global activity of 0 and of 1
    transition per clock period (duty 0.5; global activity switches the propagation off) give each instance
    its power at rest (leakage, and a flop's clock pin, which toggles twice a period) and its power per output
    transition; the instance's power is ``rest + activity * (per transition - rest)``. Exact for switching
    power (½·C·V²·activity/T) and for internal power up to the state-dependent ``when`` weights (taken at
    duty 0.5): see docs/ppa.md."""
    clock = "clk" if clock_port else "vclk"
    lines = [
        f"read_liberty {liberty}",
        f"read_verilog {netlist}",
        f"link_design {_tcl_name(top)}",
        f"create_clock -name {clock} -period {clock_ns!r}" + (f" [get_ports {_tcl_name(clock_port)}]"
                                                               if clock_port else ""),
        "set fpforge_inputs [all_inputs]",
        *([f"set fpforge_inputs [delete_from_list $fpforge_inputs [get_ports {_tcl_name(clock_port)}]]"]
          if clock_port else []),
        f"set_input_delay 0 -clock {clock} $fpforge_inputs",
        f"set_output_delay 0 -clock {clock} [all_outputs]",
        f"set_driving_cell -lib_cell {_tcl_name(driving_cell)} -pin {_tcl_name(driving_pin)} $fpforge_inputs",
        f"set_load {load!r} [all_outputs]",
        'puts "fpforge-slack [worst_slack -max]"',
        "report_checks -path_delay max -digits 4",
    ]
    if power and activities is not None:
        for level in (0.0, 1.0):
            lines += [f'puts "fpforge-power-at {level!r}"', f"sta::set_power_global_activity {level!r} 0.5",
                      "report_power -instances [get_cells *] -digits 10"]
    elif power:
        lines += [f"set_power_activity -input -activity {DEFAULT_INPUT_ACTIVITY!r}", "report_power -digits 8"]
    (work / "sta.tcl").write_text("\n".join(lines) + "\n")
    try:
        proc = subprocess.run([sta_command(), "-no_init", "-exit", "sta.tcl"], cwd=work, capture_output=True,
                              text=True, errors="replace", timeout=timeout, check=False, **popen_kwargs())
    except subprocess.TimeoutExpired:
        raise ToolError(f"OpenSTA timed out after {timeout:g} s on {top!r}") from None
    except OSError as exc:
        raise ToolError(f"could not start OpenSTA: {exc.strerror or exc}") from None
    text = proc.stdout + "\n" + proc.stderr
    errors = [ln.strip() for ln in text.splitlines() if ln.strip().startswith("Error")]
    m = re.search(r"^fpforge-slack (\S+)$", text, re.MULTILINE)
    if errors or proc.returncode != 0 or m is None:
        why = errors[0] if errors else f"exit status {proc.returncode}, no timing report"
        why = why.replace(str(work) + os.sep, "")
        raise ToolError(" ".join(f"OpenSTA failed on {top!r}: {why}".split()))
    slack = float(m.group(1))
    start = re.search(r"^Startpoint: (\S+)", text, re.MULTILINE)
    end = re.search(r"^Endpoint: (\S+)", text, re.MULTILINE)
    out: dict = {}
    if not math.isfinite(slack) or abs(slack) > 1e20 or start is None or end is None:  # no constrained path
        out.update(slack_ns=round(clock_ns, 4), delay_ns=0.0, critical_path=None)
    else:
        out.update(slack_ns=round(slack, 4), delay_ns=round(clock_ns - slack, 4),
                   critical_path=f"{start.group(1)} -> {end.group(1)}")
    if power and activities is not None:
        out.update(_workload_power(text, activities, top))
    elif power:
        p = re.search(r"^Total\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)", text, re.MULTILINE)
        if p is None:
            raise ToolError(f"OpenSTA printed no power report for {top!r}")
        internal, switching, leakage, total = (float(v) * 1e3 for v in p.groups())  # W -> mW
        out.update(internal_mw=_sig(internal), switching_mw=_sig(switching), leakage_mw=_sig(leakage),
                   power_mw=_sig(total))
    return out


_INSTANCE_ROW = re.compile(r"^\s*(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s*$", re.MULTILINE)


def _instance_powers(section: str) -> dict:
    """``{instance: (internal, switching, leakage)}`` (W) of a ``report_power -instances`` listing."""
    out = {}
    for m in _INSTANCE_ROW.finditer(section):
        try:
            internal, switching, leakage, _ = (float(v) for v in m.groups()[:4])
        except ValueError:
            continue  # a header line
        out[m.group(5)] = (internal, switching, leakage)
    return out


def _workload_power(text: str, activities: dict, top: str) -> dict:
    """The power keys from the two per-instance listings of :func:`run_sta` and the workload's activities."""
    parts = re.split(r"^fpforge-power-at (\S+)$", text, flags=re.MULTILINE)
    if len(parts) != 5:
        raise ToolError(f"OpenSTA printed no per-instance power report for {top!r}")
    rest, per = _instance_powers(parts[2]), _instance_powers(parts[4])
    missing = sorted(set(activities) - set(rest))[:3]
    if missing or set(rest) != set(per):
        raise ToolError(f"OpenSTA's power report of {top!r} lacks instances {', '.join(missing) or '(some)'}")
    internal = switching = leakage = 0.0
    for name, (i0, s0, l0) in rest.items():
        i1, s1, _ = per[name]
        a = activities.get(name, 0.0)
        internal += i0 + a * (i1 - i0)
        switching += s0 + a * (s1 - s0)
        leakage += l0
    internal, switching, leakage = (v * 1e3 for v in (internal, switching, leakage))  # W -> mW
    return dict(internal_mw=_sig(internal), switching_mw=_sig(switching), leakage_mw=_sig(leakage),
                power_mw=_sig(internal + switching + leakage))


def _sig(x: float, digits: int = 6) -> float:
    """``x`` to ``digits`` significant digits."""
    return float(f"{x:.{digits}g}")
