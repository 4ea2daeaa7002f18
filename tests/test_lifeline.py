"""A killed run leaves nothing running: a real `fpforge sweep` (yosys) and `fpforge prove` (the Verilator
harness) on 2 local workers, started in their own session, are killed (SIGKILL of the main process, SIGTERM,
Ctrl-C's SIGINT to the process group) while their workers run tools; within a few seconds no process of the
tree is left — forkserver, workers, resource tracker, yosys, harness — found by walking /proc (the recorded
pids, and every process of the session)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers import TINY

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="walks /proc (Linux)")

ROOT = Path(__file__).resolve().parents[1]


#: An FP32 -> E4M3 encoder in every (mode, sat) pair over 2^26 patterns (4 chunks per pair): the harness is
#: tests/test_prove.py's (built once in the user cache), --fresh so that no chunk comes from the store.
PROVE = ["prove", "encoder", "-f", "e4m3", "--rounding", "all", "--sat-port", "--range", "0x3c000000:0x40000000",
         "--jobs", "2", "--fresh"]


def _stat(pid):
    """``(ppid, state, session, start time)`` of ``pid``, or None when it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    f = text[text.rindex(")") + 2 :].split()
    return int(f[1]), f[0], int(f[3]), int(f[19])


def _cmdline(pid):
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _session(sid):
    """``{pid: (ppid, start time, command line)}`` of the live (not zombie) processes of session ``sid``."""
    out = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            st = _stat(int(d))
            if st is not None and st[2] == sid and st[1] not in "ZX":
                out[int(d)] = (st[0], st[3], _cmdline(int(d)))
    return out


def _alive(pid, start):
    st = _stat(pid)
    return st is not None and st[1] not in "ZX" and st[3] == start


def _descendants(procs, root):
    kids = {root}
    changed = True
    while changed:
        changed = False
        for pid, (ppid, _, _) in procs.items():
            if ppid in kids and pid not in kids:
                kids.add(pid)
                changed = True
    return kids - {root}


def _start(argv, tmp_path, env=None):
    log = open(tmp_path / "stderr.txt", "w+")
    # SIGINT at its default disposition, as in a terminal: a run started in the background without job control
    # (sh -c '... &', GNU time) inherits SIGINT ignored, and then rightly ignores the Ctrl-C this test sends.
    proc = subprocess.Popen([sys.executable, "-m", "fpforge", *argv], cwd=tmp_path, env=dict(os.environ, **(env or {})),
                            stdout=subprocess.DEVNULL, stderr=log, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    return proc, log


def _wait_for_tools(proc, log, tool, timeout=120):
    """The session's processes once both workers exist and one of them runs a ``tool`` process."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        procs = _session(proc.pid)
        forkservers = [p for p, v in procs.items() if v[0] == proc.pid and "multiprocessing.forkserver" in v[2]]
        workers = [p for p, v in procs.items() if forkservers and v[0] == forkservers[0]]
        tools = [p for p in procs if any(p in _descendants(procs, w) for w in workers) and tool in procs[p][2]]
        if len(workers) == 2 and tools:
            return procs, forkservers, workers, tools
        if proc.poll() is not None:
            log.seek(0)
            err = log.read()
            if proc.returncode == 2 and ("needs" in err or "no yosys available" in err):  # ToolMissing
                pytest.skip(err.strip().splitlines()[-1])
            pytest.fail(f"fpforge exited ({proc.returncode}) before its workers ran {tool!r}: {err[-2000:]}")
        time.sleep(0.05)
    for pid in _session(proc.pid):
        os.kill(pid, signal.SIGKILL)
    proc.wait()
    pytest.fail(f"no worker ran {tool!r} within {timeout} s")


def _kill_and_check(proc, log, tool, how):
    procs, forkservers, workers, tools = _wait_for_tools(proc, log, tool)
    tracker = [p for p, v in procs.items() if v[0] == proc.pid and "multiprocessing.resource_tracker" in v[2]]
    assert tracker and forkservers and len(workers) == 2 and tools  # the tree the run is expected to leave
    if how == "SIGINT":  # Ctrl-C: the terminal signals the whole foreground process group
        os.killpg(proc.pid, signal.SIGINT)
    else:
        os.kill(proc.pid, getattr(signal, how))
    rc = proc.wait(timeout=30)
    deadline = time.monotonic() + 5
    while True:
        left = {p: v for p, v in procs.items() if _alive(p, v[1])}
        left.update(_session(proc.pid))  # and anything started since the snapshot
        if not left or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    for pid, (_, start, _) in left.items():  # leave the machine clean even when the test fails
        if _alive(pid, start):
            os.kill(pid, signal.SIGKILL)
    assert not left, f"left running after {how}: " + "; ".join(f"{p}: {v[2][:120]}" for p, v in left.items())
    log.seek(0)
    err = log.read()
    assert rc == {"SIGKILL": -9, "SIGTERM": 143, "SIGINT": 130}[how], err
    if how != "SIGKILL":
        assert "Traceback" not in err and ("terminated" in err or "interrupted" in err), err


@pytest.mark.synth
@pytest.mark.parametrize("how", ["SIGKILL", "SIGTERM", "SIGINT"])
def test_killed_sweep_leaves_nothing_running(tmp_path, how):
    (tmp_path / "tiny.toml").write_text(TINY)
    proc, log = _start(["sweep", "tiny.toml", "--no-cache", "--jobs", "2"], tmp_path,
                       env={"FPFORGE_CACHE": str(tmp_path / "cache")})
    _kill_and_check(proc, log, "-l yosys.log", how)  # a synthesis run (pyosys, yowasp or a yosys binary)


@pytest.mark.sim
@pytest.mark.parametrize("how", ["SIGKILL", "SIGTERM", "SIGINT"])
def test_killed_proof_leaves_nothing_running(tmp_path, how):
    proc, log = _start(PROVE, tmp_path)
    _kill_and_check(proc, log, "/harness ", how)


# A parent that starts a long child the way fpforge starts its tools, prints the child's pid, and waits.
_PARENT = """
import subprocess, sys
from fpforge.jobs.lifeline import popen_kwargs
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], **popen_kwargs())
print(child.pid, flush=True)
child.wait()
"""


def test_a_tool_dies_with_the_process_that_started_it():
    parent = subprocess.Popen([sys.executable, "-c", _PARENT], stdout=subprocess.PIPE, text=True,
                              start_new_session=True)
    child = int(parent.stdout.readline())
    start = _stat(child)[3]
    assert _alive(child, start)
    os.kill(parent.pid, signal.SIGKILL)
    parent.wait()
    deadline = time.monotonic() + 5
    while _alive(child, start) and time.monotonic() < deadline:
        time.sleep(0.05)
    alive = _alive(child, start)
    if alive:
        os.kill(child, signal.SIGKILL)
    assert not alive, "the tool outlived the process that started it"
