"""Batch clusters through dask-jobqueue (``--cluster slurm|pbs|sge``; fpforge.jobs.cluster): the dry run's job
script carries the options given and the worker command, contacts no network; a batch system that refuses the
job is one line; a fake ``sbatch`` that runs the job script here gives a real sweep on a real Dask worker."""

from __future__ import annotations

import os
import signal
import socket
import stat
import sys

import pytest

from fpforge.cli import main
from fpforge.jobs.cluster import DEFAULTS, job_script, parse_cluster_options


@pytest.fixture
def no_network(monkeypatch):
    """Any socket bind or connect fails the test: a dry run starts and contacts no scheduler."""
    def refuse(self, *a, **k):
        raise AssertionError(f"network use in a dry run: {a}")

    monkeypatch.setattr(socket.socket, "bind", refuse)
    monkeypatch.setattr(socket.socket, "connect", refuse)


def _dry(argv, capsys):
    status = main(argv)
    out, err = capsys.readouterr()
    assert status == 0, err
    return out


def _worker_line(script):
    lines = [ln for ln in script.splitlines() if "distributed.cli.dask_worker" in ln]
    assert len(lines) == 1, script
    return lines[0]


def test_slurm_dry_run_script_has_the_options_and_the_worker_command(tmp_path, monkeypatch, capsys, no_network):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path))  # no sbatch: a dry run does not need one
    out = _dry(["sweep", "small", "--cluster", "slurm", "--cluster-dry-run",
                "--cluster-option", "queue=cpu", "--cluster-option", "account=hwteam",
                "--cluster-option", "walltime=03:30:00", "--cluster-option", "memory=8GB",
                "--cluster-option", "job_extra_directives=--exclusive",
                "--cluster-option", "job_extra_directives=--constraint=avx2",
                "--cluster-option", "job_script_prologue=module load yosys"], capsys)
    lines = out.splitlines()
    assert lines[0].startswith("#!")
    for want in ("#SBATCH -p cpu", "#SBATCH -A hwteam", "#SBATCH -t 03:30:00", "#SBATCH --mem=8G",
                 "#SBATCH --cpus-per-task=1", "#SBATCH --exclusive", "#SBATCH --constraint=avx2",
                 "#SBATCH -J fpforge-worker", "module load yosys"):
        assert want in lines, (want, out)
    worker = _worker_line(out)
    assert worker.startswith(f"{sys.executable} -m distributed.cli.dask_worker tcp://SCHEDULER:8786")
    assert "--nthreads 1" in worker and "--nworkers" not in worker  # one single-threaded worker per job
    assert lines.index("module load yosys") < lines.index(worker)  # the prologue runs before the worker
    assert os.listdir(tmp_path) == []


def test_pbs_dry_run_for_prove(tmp_path, monkeypatch, capsys, no_network):
    monkeypatch.chdir(tmp_path)
    out = _dry(["prove", "encoder", "-f", "e4m3", "--cluster", "pbs", "--cluster-dry-run", "--workers", "4",
                "--cluster-option", "queue=long", "--cluster-option", "resource_spec=select=1:ncpus=2:mem=6GB",
                "--cluster-option", "cores=2", "--cluster-option", "walltime=12:00:00"], capsys)
    lines = out.splitlines()
    for want in ("#PBS -q long", "#PBS -l select=1:ncpus=2:mem=6GB", "#PBS -l walltime=12:00:00",
                 "#PBS -N fpforge-worker"):
        assert want in lines, (want, out)
    assert "--nthreads 2" in _worker_line(out)  # cores=2, processes=1: one worker with 2 threads
    assert "proving" not in out  # nothing built or proved


def test_sge_dry_run_for_prove_all_leaves_no_log_directory(tmp_path, monkeypatch, capsys, no_network):
    monkeypatch.chdir(tmp_path)
    out = _dry(["prove", "all", "--cluster", "sge", "--cluster-dry-run", "--cluster-option", "queue=all.q",
                "--cluster-option", "project=fp", "--cluster-option", "log_directory=logs/dask",
                "--cluster-option", "worker_extra_args=--lifetime=50m"], capsys)
    lines = out.splitlines()
    for want in ("#$ -q all.q", "#$ -P fp", "#$ -N fpforge-worker"):
        assert want in lines, (want, out)
    assert any(ln.startswith("#$ -e ") and ln.rstrip("/").endswith("logs/dask") for ln in lines), out
    assert _worker_line(out).endswith("--lifetime=50m")
    assert not (tmp_path / "logs").exists()  # the job class makes log_directory; a dry run removes it


def test_defaults_are_one_single_threaded_worker_per_job():
    opts = parse_cluster_options("slurm", [])
    assert opts == DEFAULTS
    script = job_script("slurm", opts)
    assert "#SBATCH --cpus-per-task=1" in script.splitlines() and "#SBATCH --mem=4G" in script.splitlines()


def test_options_override_defaults_and_convert():
    opts = parse_cluster_options("pbs", ["cores=4", "processes=2", "nanny=false", "memory=16GiB"])
    assert opts["cores"] == 4 and opts["processes"] == 2 and opts["nanny"] is False and opts["memory"] == "16GiB"
    worker = _worker_line(job_script("pbs", opts))
    assert "--nworkers 2" in worker and "--nthreads 2" in worker and "--no-nanny" in worker


def _fake_batch(bin_dir, *, refuse=None):
    """sbatch/scancel stand-ins: sbatch refuses with ``refuse`` on stderr, or copies the script (dask-jobqueue
    deletes it on return) and starts it in its own session, the pid being the job id; scancel kills the group."""
    bin_dir.mkdir()
    if refuse:
        sbatch = f'#!/bin/sh\necho "{refuse}" >&2\nexit 1\n'
    else:
        sbatch = ('#!/bin/sh\nd=$(dirname "$0")\ncp "$1" "$d/job-$$.sh"\n'
                  'setsid sh "$d/job-$$.sh" > "$d/job-$$.log" 2>&1 < /dev/null &\n'
                  'echo $! >> "$d/pids"\necho "Submitted batch job $!"\n')
    (bin_dir / "sbatch").write_text(sbatch)
    (bin_dir / "scancel").write_text('#!/bin/sh\nkill -TERM -- "-$1" 2>/dev/null\nexit 0\n')
    for name in ("sbatch", "scancel"):
        (bin_dir / name).chmod(stat.S_IRWXU)


def test_a_refused_job_is_one_line_and_nothing_is_cached(tmp_path, monkeypatch, capfd):
    _fake_batch(tmp_path / "bin", refuse="sbatch: error: Batch job submission failed: Invalid account")
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FPFORGE_CACHE", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    status = main(["sweep", "small", "--no-synth", "--cluster", "slurm", "--workers", "2",
                   "--cluster-option", "interface=lo", "--cluster-option", "account=nope"])
    err = capfd.readouterr().err  # the file descriptor: dask's logging too
    assert status == 2, err
    assert err.splitlines() == ["fpforge: error: --cluster slurm: sbatch failed: sbatch: error: Batch job submission failed: "
                      "Invalid account"], err
    assert "Traceback" not in err
    assert not any((tmp_path / "cache").rglob("*.json"))


def test_sweep_runs_on_a_worker_the_fake_sbatch_started(tmp_path, monkeypatch, capsys):
    """The whole path: scheduler on 127.0.0.1 (interface=lo), a job script run by a fake sbatch starts a real
    Dask worker, the sweep's tasks run there, scancel stops it on exit."""
    bin_dir = tmp_path / "bin"
    _fake_batch(bin_dir)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FPFORGE_CACHE", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    try:
        status = main(["sweep", "small", "--no-synth", "--cluster", "slurm", "--workers", "1", "--no-cache",
                       "--cluster-option", "interface=lo", "--cluster-option", "death_timeout=20"])
        out, err = capsys.readouterr()
        assert status == 0, err
        assert "6 points" in out and "0 point(s) failed" in out, out
        assert "on Dask scheduler tcp://127.0.0.1:" in out, out  # interface=lo: the scheduler on loopback only
        log = "".join(p.read_text() for p in bin_dir.glob("job-*.log"))
        assert "Registered to:" in log and "tcp://127.0.0.1:" in log, log  # the task ran on the batch job's worker
    finally:
        pids = (bin_dir / "pids").read_text().split() if (bin_dir / "pids").exists() else []
        for pid in pids:  # the jobs this test started, should scancel not have stopped them
            try:
                os.killpg(int(pid), signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass


def test_without_dask_jobqueue_the_error_says_how_to_install_it(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "dask_jobqueue", None)  # `import dask_jobqueue` raises ImportError
    monkeypatch.chdir(tmp_path)
    status = main(["sweep", "small", "--cluster", "slurm", "--cluster-dry-run"])
    err = capsys.readouterr().err
    assert status == 2
    assert err.splitlines() == ["fpforge: error: --cluster needs dask-jobqueue: pip install dask-jobqueue"], err
