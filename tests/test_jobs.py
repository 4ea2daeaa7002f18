"""fpforge.jobs: the content-addressed store and run_tasks on local processes and a real Dask LocalCluster
(127.0.0.1 only): results, failures, resume from the store, corrupt entries, workers that die."""

import json
import os
import signal
from pathlib import Path

import pytest

from fpforge.golden.errors import FpforgeTypeError, FpforgeValueError
from fpforge.jobs import MISSING, Store, TaskFailure, digest, executor, run_tasks


# -- task functions (module level: pickled to the workers by reference) ---------------------------------
def square(task):
    """task = (x, log directory): records each call in the log directory, fails on x == 3."""
    x, log = task
    Path(log, f"{x}.{os.getpid()}.{os.urandom(4).hex()}").touch()
    if x == 3:
        raise ValueError("three is\nnot allowed")
    return {"x": x, "y": x * x}


def die_once(task):
    """Kills its own worker process the first time it sees x == 2 (a marker file remembers)."""
    x, marker = task
    if x == 2 and not os.path.exists(marker):
        Path(marker).touch()
        os.kill(os.getpid(), signal.SIGKILL)
    return x + 100


def always_die(task):
    if task == 1:
        os.kill(os.getpid(), signal.SIGKILL)
    return task


def _calls(log):
    return sorted(int(p.name.split(".")[0]) for p in Path(log).iterdir())


# -- store ----------------------------------------------------------------------------------------------
def test_store_round_trip_and_keys(tmp_path):
    st = Store(tmp_path / "s")
    k = digest({"a": 1})
    assert st.get(k) is MISSING and k not in st
    st.put(k, {"y": [1, 2.5, None]})
    assert st.get(k) == {"y": [1, 2.5, None]}
    assert st.keys() == [k] and len(st) == 1
    st.put(digest("none"), None)  # None is a result, not a miss
    assert st.get(digest("none")) is None
    assert digest({"b": 2, "a": 1}) == digest({"a": 1, "b": 2})
    with pytest.raises(ValueError, match="64 lower-case hex"):
        st.get("../etc/passwd")


@pytest.mark.parametrize("damage", ["truncate", "garbage", "edit_result", "other_key"])
def test_store_corrupt_entry_is_detected_and_removed(tmp_path, damage):
    st = Store(tmp_path)
    k = digest("task")
    path = st.put(k, {"area": 123.5})
    text = path.read_text()
    if damage == "truncate":
        path.write_text(text[: len(text) // 2])
    elif damage == "garbage":
        path.write_bytes(b"\x00\xff" * 10)
    elif damage == "edit_result":
        path.write_text(text.replace("123.5", "99.0"))
    else:
        entry = json.loads(text)
        entry["key"] = digest("another")
        path.write_text(json.dumps(entry))
    assert st.get(k) is MISSING
    assert st.corrupt == 1 and not path.exists()


# -- run_tasks ------------------------------------------------------------------------------------------
def test_local_results_failures_and_resume(tmp_path):
    log = tmp_path / "log"
    log.mkdir()
    st = Store(tmp_path / "store")
    tasks = [(x, str(log)) for x in range(6)]
    key = lambda t: t[0]  # noqa: E731 - the log directory does not change the result
    with executor(jobs=2) as ex:
        first = dict(run_tasks(square, tasks, executor=ex, store=st, key=key))
    assert {t[0]: v for t, v in first.items()} == {
        0: {"x": 0, "y": 0}, 1: {"x": 1, "y": 1}, 2: {"x": 2, "y": 4},
        3: TaskFailure("ValueError: three is not allowed"), 4: {"x": 4, "y": 16}, 5: {"x": 5, "y": 25}}
    assert _calls(log) == [0, 1, 2, 3, 4, 5]
    assert len(st) == 5  # the failure is not stored
    # A rerun takes the five results from the store and retries only the failure.
    with executor(jobs=0) as ex:
        second = dict(run_tasks(square, tasks, executor=ex, store=st, key=key))
    assert second == first
    assert _calls(log) == [0, 1, 2, 3, 3, 4, 5]


def test_equal_tasks_run_once(tmp_path):
    log = tmp_path / "log"
    log.mkdir()
    tasks = [(5, str(log))] * 4 + [(6, str(log))]
    out = list(run_tasks(square, tasks, executor=None, key=lambda t: t[0]))
    assert [o["y"] for _, o in out] == [25, 25, 25, 25, 36]
    assert _calls(log) == [5, 6]


def test_killed_worker_loses_and_duplicates_nothing(tmp_path):
    st = Store(tmp_path / "store")
    marker = str(tmp_path / "killed")
    tasks = [(x, marker) for x in range(8)]
    with executor(jobs=2) as ex:
        out = list(run_tasks(die_once, tasks, executor=ex, store=st, key=lambda t: t[0]))
    assert os.path.exists(marker)  # a worker really died
    assert sorted(t[0] for t, _ in out) == list(range(8))  # every task reported exactly once
    assert sorted(o for _, o in out) == [x + 100 for x in range(8)]
    assert len(st) == 8 and st.corrupt == 0


def test_task_that_always_kills_its_worker_fails_after_retries(tmp_path):
    with executor(jobs=2) as ex:
        out = dict(run_tasks(always_die, [0, 1, 2, 3], executor=ex))
    assert out[0] == 0 and out[2] == 2 and out[3] == 3
    assert isinstance(out[1], TaskFailure) and "worker process died (3 attempts" in out[1].message


def nap(task):
    import time

    time.sleep(task)
    return task


def test_a_local_executor_left_mid_run_ends_its_pool_manager_thread():
    """Leaving a run mid-way (Ctrl-C does) ends the pool's manager thread before close() returns: at interpreter
    exit Python 3.11 writes to a live manager's wake-up pipe without a lock, and a close racing that write printed
    a traceback (OSError: Bad file descriptor) after "fpforge: interrupted" (tests/test_lifeline.py)."""
    import threading
    from concurrent.futures import process

    with executor(jobs=2) as ex:
        results = ex.run(nap, [(0, 0.0), (1, 30.0), (2, 30.0)])
        assert next(results) == (0, 0.0)  # the other two are running
        managers = [t for t in threading.enumerate() if isinstance(t, process._ExecutorManagerThread)]
        assert managers
        results.close()
    assert not any(t.is_alive() for t in managers)
    assert all(w._closed for t, w in process._threads_wakeups.items() if t in managers)


def test_executor_argument_errors():
    with pytest.raises(FpforgeValueError, match="not both"):
        with executor(jobs=2, scheduler="tcp://127.0.0.1:1"):
            pass
    with pytest.raises(FpforgeValueError, match="jobs must be an integer >= 0"):
        with executor(jobs=-1):
            pass
    with pytest.raises(FpforgeTypeError, match="jobs must be an integer"):
        with executor(jobs="2"):
            pass
    with pytest.raises(FpforgeTypeError, match="executor must come from"):
        list(run_tasks(square, [], executor="local"))


@pytest.fixture(scope="module")
def cluster():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None, protocol="tcp") as c:
        yield c


def test_dask_results_equal_local(tmp_path, cluster):
    log = tmp_path / "log"
    log.mkdir()
    tasks = [(x, str(log)) for x in range(6)]
    with executor(jobs=0) as ex:
        local = dict(run_tasks(square, tasks, executor=ex))
    with executor(scheduler=cluster.scheduler_address) as ex:
        assert ex.kind == "dask" and ex.workers == 2
        st = Store(tmp_path / "store")
        dask = dict(run_tasks(square, tasks, executor=ex, store=st, key=lambda t: t[0]))
    assert dask == local
    assert len(st) == 5


def test_unreachable_scheduler_is_one_clear_error(monkeypatch):
    import importlib

    from fpforge.golden.errors import ToolError

    monkeypatch.setattr(importlib.import_module("fpforge.jobs.executor"), "CONNECT_TIMEOUT_S", 1)

    with pytest.raises(ToolError, match="cannot reach the Dask scheduler"):
        with executor(scheduler="tcp://127.0.0.1:9"):
            pass
