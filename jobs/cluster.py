"""Dask workers on a batch system (SLURM, PBS, SGE) through dask-jobqueue: ``fpforge sweep`` and
``fpforge prove`` with ``--cluster KIND --workers N [--cluster-option KEY=VALUE ...]``.

::

    print(job_script("slurm", {"queue": "cpu", "walltime": "02:00:00"}))   # what would be submitted
    with start_cluster("slurm", 8, {"account": "hw"}) as client:            # 8 worker jobs
        with executor(scheduler=client) as ex:
            ...

Each worker job runs ONE Dask worker process with ONE thread (``cores=1, processes=1``) and 4 GB
(``memory="4GB"``): yosys and the Verilator harness are single-threaded, and a synthesis of a large dot
unit takes a few GB, so a worker per core with its own memory limit is the unit a batch system schedules
best (more threads per worker would share one memory limit and run yosys side by side). The keys of
:data:`OPTION_TYPES` override those defaults and map onto the dask-jobqueue cluster class's keywords.

No scheduler is contacted or started by :func:`job_script` (the script is built from the job class with the
placeholder address ``tcp://SCHEDULER:8786``); :func:`start_cluster` starts the Dask scheduler in this process
(the compute nodes connect to it) and submits the jobs with the batch system's command (``sbatch``, ``qsub``),
cancelling them (``scancel``, ``qdel``) on exit, Ctrl-C included.
"""

from __future__ import annotations

import contextlib
import inspect
import os
import shutil
import time

from ..golden.errors import FpforgeTypeError, FpforgeValueError, ToolError, ToolMissing, UnknownName

__all__ = ["CLUSTER_KINDS", "DEFAULTS", "cluster_options", "job_script", "parse_cluster_options", "start_cluster",
           "submit_command"]

#: ``--cluster`` names -> the dask-jobqueue class.
CLUSTER_KINDS = {"slurm": "SLURMCluster", "pbs": "PBSCluster", "sge": "SGECluster"}

#: fpforge's defaults (see the module docstring for why): one single-threaded worker per job.
DEFAULTS = {"cores": 1, "processes": 1, "memory": "4GB", "job_name": "fpforge-worker"}

#: Seconds to wait for the batch system's submit command to accept every job.
SUBMIT_TIMEOUT_S = 120

#: Placeholder scheduler address of a dry run's script.
PLACEHOLDER = "tcp://SCHEDULER:8786"

# Keywords of the cluster classes that make no sense from a command line (Python objects, the event loop,
# the worker count, which --workers sets) or that dask-jobqueue deprecated (their new names are accepted).
_EXCLUDED = {"self", "scheduler", "name", "loop", "security", "asynchronous", "job_cls", "n_workers", "silence_logs",
             "scheduler_cls", "scheduler_options", "dashboard_address", "host", "config_name", "base_class_kwargs",
             "job_kwargs", "extra", "job_extra", "env_extra", "header_skip", "shared_temp_directory"}
_INTS = {"cores", "processes", "job_cpu", "death_timeout"}
_BOOLS = {"nanny"}
_LISTS = {"job_extra_directives", "job_script_prologue", "worker_extra_args", "job_directives_skip"}


def _module():
    try:
        import dask_jobqueue
    except ImportError:
        raise ToolMissing("--cluster needs dask-jobqueue: pip install dask-jobqueue") from None
    return dask_jobqueue


def _kind(kind):
    if not isinstance(kind, str):
        raise FpforgeTypeError(f"cluster kind must be a string ({', '.join(CLUSTER_KINDS)}), not {kind!r}")
    if kind not in CLUSTER_KINDS:
        raise UnknownName(f"unknown cluster {kind!r}; valid: {', '.join(CLUSTER_KINDS)}")
    return kind


def _cluster_class(kind):
    return getattr(_module(), CLUSTER_KINDS[_kind(kind)])


def _accepted(cls) -> list:
    from dask_jobqueue.core import Job, JobQueueCluster

    names = set()
    for fn in (cls.__init__, cls.job_cls.__init__, Job.__init__, JobQueueCluster.__init__):
        names |= {n for n, p in inspect.signature(fn).parameters.items()
                  if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)}
    if "account" in names:  # SLURM, PBS: `project` is the deprecated name of `account`
        names.discard("project")
    return sorted(names - _EXCLUDED)


def submit_command(kind) -> str:
    """The command that submits ``kind``'s jobs (``sbatch``, ``qsub``)."""
    return _cluster_class(kind).job_cls.submit_command.split()[0]


def parse_cluster_options(kind, items) -> dict:
    """``KEY=VALUE`` strings (``--cluster-option``) -> the keywords of ``kind``'s cluster class: integers for
    cores/processes/job_cpu/death_timeout, true/false for nanny, a list for the ``*_directives``,
    ``job_script_prologue`` and ``worker_extra_args`` keys (each repetition adds an item), strings otherwise."""
    cls = _cluster_class(kind)
    valid = _accepted(cls)
    if isinstance(items, str) or not isinstance(items, (list, tuple)):
        raise FpforgeTypeError(f"cluster options must be a list of KEY=VALUE strings, not {items!r}")
    out: dict = {}
    for item in items:
        if not isinstance(item, str) or "=" not in item or not item.split("=", 1)[0].strip():
            raise FpforgeValueError(f"--cluster-option takes KEY=VALUE (e.g. queue=cpu, walltime=02:00:00), "
                                    f"not {item!r}")
        key, value = (s.strip() for s in item.split("=", 1))
        key = key.replace("-", "_")
        if key not in valid:
            raise UnknownName(f"--cluster-option {key!r} is not an option of --cluster {kind} "
                              f"(dask-jobqueue {CLUSTER_KINDS[kind]}); valid: {', '.join(valid)}")
        if key in _LISTS:
            out.setdefault(key, []).append(value)
        elif key in out:
            raise FpforgeValueError(f"--cluster-option {key} given twice ({out[key]!r} and {value!r})")
        else:
            out[key] = value
    return cluster_options(kind, out)


def cluster_options(kind, options=None) -> dict:
    """``options`` (keywords of ``kind``'s dask-jobqueue class; strings are converted as from the command
    line) checked and merged over :data:`DEFAULTS`."""
    cls = _cluster_class(kind)
    valid = _accepted(cls)
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise FpforgeTypeError(f"cluster options must be a dict of keywords, not {options!r}")
    out = dict(DEFAULTS)
    for key, value in options.items():
        if key not in valid:
            raise UnknownName(f"{key!r} is not an option of cluster {kind} (dask-jobqueue {CLUSTER_KINDS[kind]}); "
                              f"valid: {', '.join(valid)}")
        out[key] = _convert(key, value)
    threads = out["cores"] // out["processes"]
    if threads < 1:
        raise FpforgeValueError(f"cluster option processes={out['processes']} is more than cores={out['cores']} "
                                "(each worker process needs a core)")
    from dask.utils import parse_bytes

    try:
        amount = parse_bytes(out["memory"])
    except (ValueError, TypeError):
        amount = 0
    if amount <= 0:
        raise FpforgeValueError(f"cluster option memory must be an amount like 4GB or 16GiB, "
                                f"not {out['memory']!r}")
    return out


def _convert(key, value):
    if key in _LISTS:
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
            raise FpforgeTypeError(f"cluster option {key} must be a list of strings, not {value!r}")
        return list(value)
    if key in _INTS:
        if isinstance(value, str):
            try:
                value = int(value, 10)
            except ValueError:
                raise FpforgeValueError(f"cluster option {key} must be a positive integer, not {value!r}") from None
        if not isinstance(value, int) or isinstance(value, bool):
            raise FpforgeTypeError(f"cluster option {key} must be a positive integer, not {value!r}")
        if value < 1:
            raise FpforgeValueError(f"cluster option {key} must be a positive integer, not {value}")
        return value
    if key in _BOOLS:
        if isinstance(value, str) and value.lower() in ("true", "false", "yes", "no", "1", "0"):
            return value.lower() in ("true", "yes", "1")
        if not isinstance(value, bool):
            raise FpforgeValueError(f"cluster option {key} must be true or false, not {value!r}")
        return value
    if not isinstance(value, str):
        raise FpforgeTypeError(f"cluster option {key} must be a string, not {value!r}")
    if not value:
        raise FpforgeValueError(f"cluster option {key} is empty; give a value or leave the option out")
    return value


def _check_workers(workers):
    if not isinstance(workers, int) or isinstance(workers, bool):
        raise FpforgeTypeError(f"workers must be a positive integer (Dask workers to start), not {workers!r}")
    if workers < 1:
        raise FpforgeValueError(f"workers must be a positive integer (Dask workers to start), not {workers}")


def job_script(kind, options=None) -> str:
    """The job script ``start_cluster(kind, n, options)`` submits once per worker job, with the scheduler's
    address as ``tcp://SCHEDULER:8786``; starts and contacts nothing, needs no batch system installed."""
    cls = _cluster_class(kind)
    opts = cluster_options(kind, options)
    log_dir = opts.get("log_directory")
    created = _missing_top(log_dir) if log_dir else None
    try:
        job = cls.job_cls(PLACEHOLDER, name="fpforge-worker", **opts)
        return job.job_script()
    except (ValueError, TypeError) as e:
        raise FpforgeValueError(f"--cluster {kind}: {' '.join(str(e).split())}") from None
    finally:
        if created:  # the job class creates log_directory: a dry run leaves nothing behind
            d = os.path.abspath(log_dir)
            while len(d) >= len(created):
                with contextlib.suppress(OSError):
                    os.rmdir(d)
                d = os.path.dirname(d)


def _missing_top(path):
    """The topmost directory of ``path`` that does not exist yet (None if it exists)."""
    path = os.path.abspath(path)
    top = None
    while not os.path.exists(path):
        top, path = path, os.path.dirname(path)
    return top


@contextlib.contextmanager
def start_cluster(kind, workers, options=None):
    """Start a Dask scheduler here, submit ``workers`` worker processes as batch jobs, and yield a
    ``dask.distributed.Client`` on them (for ``fpforge.jobs.executor(scheduler=client)``); on exit the
    client and scheduler close and the jobs are cancelled.

    Raises
    ------
    UnknownName, FpforgeValueError, FpforgeTypeError
        An unknown kind or option, a bad value, ``workers`` not a positive integer.
    ToolMissing
        dask-jobqueue, or the batch system's submit command (``sbatch``, ``qsub``), is not installed.
    ToolError
        The submit command refused the job (its last error line).
    """
    cls = _cluster_class(kind)
    _check_workers(workers)
    opts = cluster_options(kind, options)
    submit = submit_command(kind)
    if shutil.which(submit) is None:
        raise ToolMissing(f"--cluster {kind} submits its workers with {submit}, which is not on PATH (run fpforge on "
                          f"the cluster's login node; --cluster-dry-run prints the job script)")
    from distributed import Client
    from distributed.deploy.spec import ProcessInterface

    refused = []

    class Job(cls.job_cls):  # records why the batch system refused a job (dask-jobqueue logs a traceback)
        async def start(self):
            try:
                await super().start()
            except RuntimeError as e:
                refused.append(str(e))  # _wait_submitted raises it, in one line
                await ProcessInterface.start(self)  # "started" without a job id: nothing to cancel

    try:
        cluster = cls(job_cls=Job, **opts)
    except (ValueError, TypeError) as e:
        raise FpforgeValueError(f"--cluster {kind}: {' '.join(str(e).split())}") from None
    try:
        client = Client(cluster)
        try:
            cluster.scale(workers)  # worker processes: ceil(workers / processes) jobs
            _wait_submitted(cluster, refused, f"--cluster {kind}: {submit}")
            yield client
        finally:
            with contextlib.suppress(Exception):
                client.close()
    finally:
        with contextlib.suppress(Exception):
            cluster.close()


def _wait_submitted(cluster, refused, what):
    """Wait until every job of ``cluster`` is submitted (it has a job id); a refused one is a ToolError."""
    deadline = time.monotonic() + SUBMIT_TIMEOUT_S
    while not refused:
        jobs = list(cluster.workers.values())
        if len(jobs) >= len(cluster.worker_spec) and all(getattr(j, "job_id", None) for j in jobs):
            return
        if time.monotonic() > deadline:
            raise ToolError(f"{what} did not return a job id within {SUBMIT_TIMEOUT_S} s")
        time.sleep(0.05)
    raise ToolError(f"{what} failed: {_last_line(refused[0])}")


def _last_line(text):
    """The useful line of dask-jobqueue's multi-line command error: the last stderr line, else its last."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    if "stderr:" in lines and lines[-1] != "stderr:":
        return lines[-1]
    code = next((ln for ln in lines if ln.startswith("Exit code")), "")
    return f"{code}; {lines[-1]}" if code else (lines[-1] if lines else "no output")
