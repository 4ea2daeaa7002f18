"""The batch-cluster options of ``fpforge sweep`` and ``fpforge prove`` (``--cluster``, ``--workers``,
``--cluster-option``, ``--cluster-dry-run``): one parser, one check, one way to get the Dask client
(``fpforge.jobs.cluster``; docs/sweep.md, "Clusters")."""

from __future__ import annotations

import contextlib

from .golden.errors import FpforgeValueError

__all__ = ["CLUSTER_DESTS", "add_cluster_options", "check_cluster", "cluster_client", "dry_run"]

#: The argparse dests these options add (`prove all` accepts them).
CLUSTER_DESTS = {"cluster", "workers", "cluster_option", "cluster_dry_run"}


def add_cluster_options(group):
    from .jobs.cluster import CLUSTER_KINDS

    kinds = "|".join(CLUSTER_KINDS)
    group.add_argument("--cluster", default=None, metavar=kinds.upper(),
                       help=f"start Dask workers as batch jobs ({kinds}; dask-jobqueue) instead of --jobs/--scheduler")
    group.add_argument("--workers", type=int, default=None, metavar="N",
                       help="--cluster: worker jobs to submit (one single-threaded worker, 1 core and 4 GB each)")
    group.add_argument("--cluster-option", action="append", default=None, metavar="KEY=VALUE",
                       help="--cluster: a keyword of the dask-jobqueue cluster (queue, account, walltime, memory, "
                            "job_extra_directives, job_script_prologue, ...; repeat)")
    group.add_argument("--cluster-dry-run", action="store_true",
                       help="--cluster: print the job script it would submit and exit (submits nothing)")


def check_cluster(args) -> dict | None:
    """Check the cluster options (before any work): None without --cluster, else the cluster's keywords."""
    given = [opt for opt, on in (("--workers", args.workers is not None), ("--cluster-option", args.cluster_option),
                                 ("--cluster-dry-run", args.cluster_dry_run)) if on]
    if args.cluster is None:
        if given:
            raise FpforgeValueError(f"{given[0]} applies to --cluster slurm|pbs|sge")
        return None
    from .jobs.cluster import CLUSTER_KINDS, parse_cluster_options, submit_command

    if args.cluster not in CLUSTER_KINDS:
        raise FpforgeValueError(f"unknown --cluster {args.cluster!r}; valid: {', '.join(CLUSTER_KINDS)}")
    for opt, other in (("--jobs", getattr(args, "jobs", None)), ("--scheduler", getattr(args, "scheduler", None))):
        if other is not None:
            raise FpforgeValueError(f"--cluster {args.cluster} starts its own Dask workers: drop {opt}")
    if args.workers is not None and args.workers < 1:
        raise FpforgeValueError(f"--workers must be a positive integer (worker jobs to submit), not {args.workers}")
    options = parse_cluster_options(args.cluster, args.cluster_option or [])
    if not args.cluster_dry_run:
        if args.workers is None:
            raise FpforgeValueError(f"--cluster {args.cluster} needs --workers N (the worker jobs to submit)")
        import shutil

        from .golden.errors import ToolMissing

        submit = submit_command(args.cluster)
        if shutil.which(submit) is None:
            raise ToolMissing(f"--cluster {args.cluster} submits its workers with {submit}, which is not on PATH "
                              "(run fpforge on the cluster's login node; --cluster-dry-run prints the job script)")
    return options


def dry_run(args, options) -> int:
    """--cluster-dry-run: print the job script; 0."""
    from .jobs.cluster import job_script

    print(job_script(args.cluster, options), end="")
    return 0


@contextlib.contextmanager
def cluster_client(args, options):
    """The scheduler to hand to ``fpforge.jobs.executor``: ``args.scheduler`` without --cluster, else a
    Client on freshly submitted worker jobs (cancelled on exit)."""
    if args.cluster is None:
        yield getattr(args, "scheduler", None)
        return
    import sys

    from .jobs.cluster import start_cluster

    with start_cluster(args.cluster, args.workers, options) as client:
        print(f"fpforge: {args.workers} Dask worker{'s' * (args.workers != 1)} submitted to {args.cluster}; the work "
              "starts as they connect", file=sys.stderr, flush=True)
        yield client
