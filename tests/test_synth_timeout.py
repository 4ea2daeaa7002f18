"""A yosys run that times out leaves nothing running (synth/yosys.py ``run_script``; real yosys and ABC): the
``yosys-abc`` it started is killed with it, not orphaned."""

from __future__ import annotations

import os
import threading
import time

import pytest

from fpforge.synth import SynthError
from fpforge.synth.yosys import run_script

pytestmark = pytest.mark.synth

MUL_V = "module m(input [63:0] a, b, output [127:0] p); assign p = a * b; endmodule\n"


def _abc_running(work) -> list[int]:
    """Pids of the yosys-abc processes running in the directory ``work`` (yosys runs ABC in its own)."""
    out = []
    for name in os.listdir("/proc"):
        try:
            with open(f"/proc/{name}/cmdline", "rb") as fh:
                cmd = fh.read().decode(errors="replace")
            cwd = os.readlink(f"/proc/{name}/cwd")
        except OSError:
            continue
        if "yosys-abc" in cmd and cwd == str(work):
            out.append(int(name))
    return out


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="finds processes through /proc")
def test_a_timeout_kills_yosys_and_its_abc(tmp_path):
    (tmp_path / "m.v").write_text(MUL_V)
    (tmp_path / "t.ys").write_text("read_verilog m.v\nsynth -top m -run begin:fine\ntechmap\nabc\n")
    seen = []

    def watch():  # the ABC run must have started before the timeout, or the test shows nothing
        t0 = time.monotonic()
        while time.monotonic() - t0 < 20 and not seen:
            seen.extend(_abc_running(tmp_path))
            time.sleep(0.05)

    w = threading.Thread(target=watch)
    w.start()
    with pytest.raises(SynthError, match="yosys timed out after 8 s"):
        run_script(tmp_path, "t.ys", 8.0)
    w.join()
    assert seen, "yosys-abc never started: the timeout came too early to test anything"
    time.sleep(0.2)
    assert _abc_running(tmp_path) == []
