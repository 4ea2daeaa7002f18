"""The environment is input too: an unusable cache root from FPFORGE_CACHE, XDG_CACHE_HOME or HOME, or an
unusable TMPDIR, is one line ``fpforge: error: VAR=...: cannot use PATH as ...: what is wrong; what to do``,
exit 2, checked before any work and leaving nothing behind, for every command that uses a cache (fpforge's,
wasmtime's for Amaranth's built-in yosys); a damaged cache entry is a miss, rebuilt, said once on stderr.

The fuzz below runs every bad environment kind against every such command in-process (``fpforge.cli.main``,
the console script's code path): the check comes first, so each case takes milliseconds."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from fpforge.cli import main
from fpforge.jobs import MISSING, Store, cache, digest
from fpforge.jobs.cache import CacheUnusable, cache_dir, cache_root

#: The commands that use a cache, as command lines that would do real work if the check let them through.
#: ``own``: they use fpforge's cache (FPFORGE_CACHE); all of them convert Amaranth designs to Verilog, which
#: needs wasmtime's cache (XDG_CACHE_HOME or HOME), and run tools (TMPDIR).
COMMANDS = {
    "sim": (["sim", "decoder", "--format", "e4m3"], True),
    "sim-icarus": (["sim", "encoder", "--format", "e5m2", "--simulator", "icarus"], True),
    "sweep": (["sweep", "small"], True),
    "sweep-no-synth": (["sweep", "small", "--no-synth"], True),
    "sweep-area": (["sweep", "area-fp8"], True),
    "prove": (["prove", "encoder", "--format", "e4m3"], True),
    "prove-netlist": (["prove", "decoder", "--format", "e4m3", "--netlist"], True),
    "prove-all": (["prove", "all"], True),
    "prove-all-list": (["prove", "all", "--list"], True),
    "report": (["report", "proofs"], True),
    "synth": (["synth", "decoder", "--format", "e4m3"], False),
    "verilog": (["verilog", "decoder", "--format", "e4m3"], False),
    "scaling-demo-area": (["scaling-demo", "--area", "--steps", "2"], False),
}

#: Bad environments: ``(variables, the variable named, what is wrong, fpforge's own cache only)``. ``{file}``
#: is an existing file, ``{link}`` a dangling symbolic link, ``{tmp}`` the test's directory.
BAD_ENVIRONMENTS = {
    "fpforge-cache-is-file": ({"FPFORGE_CACHE": "{file}"}, "FPFORGE_CACHE", "is not a directory", True),
    "fpforge-cache-under-file": ({"FPFORGE_CACHE": "{file}/cache"}, "FPFORGE_CACHE", "is not a directory", True),
    "fpforge-cache-missing-parent": ({"FPFORGE_CACHE": "{tmp}/nodir/deeper/cache"}, "FPFORGE_CACHE", "does not exist",
                                     True),
    "fpforge-cache-dangling-link": ({"FPFORGE_CACHE": "{link}"}, "FPFORGE_CACHE", "broken link", True),
    "xdg-is-file": ({"FPFORGE_CACHE": "", "XDG_CACHE_HOME": "{file}"}, "XDG_CACHE_HOME", "is not a directory",
                    False),
    "xdg-missing-parent": ({"FPFORGE_CACHE": "", "XDG_CACHE_HOME": "{tmp}/nodir/cache"}, "XDG_CACHE_HOME",
                           "does not exist", False),
    "home-missing": ({"FPFORGE_CACHE": "", "XDG_CACHE_HOME": "", "HOME": "{tmp}/nohome"}, "HOME", "does not exist",
                     False),
    "home-is-file": ({"FPFORGE_CACHE": "", "XDG_CACHE_HOME": "", "HOME": "{file}"}, "HOME", "is not a directory",
                     False),
    "home-relative": ({"FPFORGE_CACHE": "", "XDG_CACHE_HOME": "", "HOME": "relative/home"}, "HOME",
                      "not an absolute path", False),
    "tmpdir-is-file": ({"TMPDIR": "{file}"}, "TMPDIR", "is not a directory", False),
    "tmpdir-missing": ({"TMPDIR": "{tmp}/notmp"}, "TMPDIR", "does not exist", False),
}


def _tree(root):
    return {str(p.relative_to(root)) for p in Path(root).rglob("*")}


@pytest.fixture
def places(tmp_path, monkeypatch):
    (tmp_path / "afile").write_text("not a directory\n")
    os.symlink(tmp_path / "gone", tmp_path / "alink")
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return {"file": str(tmp_path / "afile"), "link": str(tmp_path / "alink"), "tmp": str(tmp_path)}


_CASES = [pytest.param(argv, env, var, problem, id=f"{cmd}-{kind}")
          for cmd, (argv, own) in COMMANDS.items() for kind, (env, var, problem, only_own) in BAD_ENVIRONMENTS.items()
          if own or not only_own]


def test_the_fuzz_covers_every_command_and_kind():
    assert len(_CASES) >= 120
    assert {c.id.split("-", 1)[0] for c in _CASES} >= {"sim", "sweep", "prove", "report", "synth", "verilog"}


@pytest.mark.parametrize("argv, env, var, problem", _CASES)
def test_unusable_environment_is_one_clear_line_before_any_work(argv, env, var, problem, places, monkeypatch,
                                                                capsys):
    values = {k: v.format(**places) for k, v in env.items()}
    for k, v in values.items():
        monkeypatch.setenv(k, v)
    before = _tree(places["tmp"])
    status = main(argv)
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert "Traceback" not in err, err
    assert status == 2, f"exit {status}\nstdout: {out}\nstderr: {err}"
    assert len(lines) == 1 and lines[0].startswith("fpforge: error: "), err
    assert f"{var}={values[var]}" in lines[0] and problem in lines[0], lines[0]
    assert out == "", "work started before the check: " + out
    assert _tree(places["tmp"]) == before, "left behind: " + ", ".join(sorted(_tree(places["tmp"]) - before))


def _drop_write_permission():
    """``(argv prefix, how)`` to run a command without the power to write a read-only directory: as root,
    without the capability that overrides permission bits; else as we are."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: a read-only directory cannot be made here")
    caps = "-dac_override,-dac_read_search"
    return [setpriv, f"--bounding-set={caps}", f"--inh-caps={caps}"]


@pytest.mark.parametrize("env, var", [
    pytest.param({"FPFORGE_CACHE": "{ro}"}, "FPFORGE_CACHE", id="fpforge-cache-read-only"),
    pytest.param({"FPFORGE_CACHE": "{ro}/cache"}, "FPFORGE_CACHE", id="fpforge-cache-in-read-only-dir"),
    pytest.param({"FPFORGE_CACHE": "", "XDG_CACHE_HOME": "{ro}"}, "XDG_CACHE_HOME", id="xdg-read-only"),
    pytest.param({"FPFORGE_CACHE": "", "XDG_CACHE_HOME": "", "HOME": "{ro}"}, "HOME", id="read-only-home"),
])
def test_read_only_cache_root_is_one_clear_line(env, var, tmp_path):
    """A read-only $HOME in a container, a cache nobody may write: refused before any work (a real
    permission check in a child process: run as root, it drops the capability that ignores permissions)."""
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    values = {k: v.format(ro=ro) for k, v in env.items()}
    try:
        proc = subprocess.run([*_drop_write_permission(), sys.executable, "-m", "fpforge", "prove", "encoder",
                               "--format", "e4m3"], env={**os.environ, **values}, cwd=tmp_path, capture_output=True,
                              text=True, timeout=120)
    finally:
        ro.chmod(0o755)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1, proc.stderr
    assert lines[0].startswith(f"fpforge: error: {var}={values[var]}: ") and "is not writable" in lines[0], lines[0]
    assert proc.stdout == "" and list(ro.iterdir()) == []


def test_cache_root_order_and_rules(tmp_path, monkeypatch):
    monkeypatch.setenv("FPFORGE_CACHE", "rel/cache")
    monkeypatch.chdir(tmp_path)
    assert cache_root()[0] == tmp_path / "rel" / "cache"  # relative to the working directory
    monkeypatch.setenv("FPFORGE_CACHE", "")
    monkeypatch.setenv("XDG_CACHE_HOME", "relative")  # the XDG spec: a relative path is ignored
    monkeypatch.setenv("HOME", str(tmp_path / "h"))
    assert cache_root()[0] == tmp_path / "h" / ".cache" / "fpforge"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "x"))
    assert cache_root()[0] == tmp_path / "x" / "fpforge"
    # The variable's own directory may be created (XDG: "an attempt should be made to create it"), not its parent.
    assert cache_dir("sim") == tmp_path / "x" / "fpforge" / "sim" and (tmp_path / "x" / "fpforge" / "CACHEDIR.TAG").exists()


def test_home_unset_falls_back_to_the_password_database(tmp_path, monkeypatch):
    import pwd

    monkeypatch.delenv("FPFORGE_CACHE", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.delenv("HOME", raising=False)
    home = pwd.getpwuid(os.getuid()).pw_dir
    assert cache_root()[0] == Path(home) / ".cache" / "fpforge"


def test_api_raises_the_same_clear_error(tmp_path, monkeypatch):
    (tmp_path / "f").write_text("")
    monkeypatch.setenv("FPFORGE_CACHE", str(tmp_path / "f"))
    with pytest.raises(CacheUnusable, match="FPFORGE_CACHE=.*is not a directory") as e:
        cache_dir("sweep")
    assert isinstance(e.value, ValueError)


# -- damaged cache entries: a miss, rebuilt, said once ------------------------------------------------------
@pytest.fixture
def fresh_notes(monkeypatch, tmp_path):
    """A private cache, and the once-per-process note not yet given."""
    monkeypatch.setattr(cache, "_noted", set())
    monkeypatch.setenv("FPFORGE_CACHE", str(tmp_path / "cache"))
    return tmp_path


def test_directory_where_a_store_entry_belongs_is_a_miss_then_rewritten(fresh_notes, capsys):
    store = Store(fresh_notes / "store")
    key = digest("task")
    store.path(key).mkdir(parents=True)  # a directory where the entry's file belongs
    (store.path(key) / "junk").write_text("x")
    assert store.get(key) is MISSING and store.corrupt == 1
    store.path(key).mkdir(parents=True)
    store.put(key, {"x": 1})  # the rerun's put, after the work was redone
    assert store.get(key) == {"x": 1}
    err = capsys.readouterr().err
    assert err.count("fpforge: note: cache entry") == 1 and "directory where a file belongs" in err


def test_file_where_a_store_folder_belongs_and_truncated_entries_are_misses(fresh_notes, capsys):
    store = Store(fresh_notes / "store")
    key = digest("task")
    store.path(key).parent.write_text("not a folder")
    assert store.get(key) is MISSING
    store.put(key, [1, 2, 3])
    text = store.path(key).read_text()
    store.path(key).write_text(text[: len(text) // 2])  # truncated
    assert store.get(key) is MISSING and store.corrupt == 2
    store.put(key, [1, 2, 3])
    assert store.get(key) == [1, 2, 3]
    assert capsys.readouterr().err.count("fpforge: note:") == 1  # once per process


def test_file_where_a_cache_folder_belongs_is_replaced(fresh_notes, capsys):
    root = cache_dir()
    (root / "prove").write_text("stray file")
    assert cache_dir("prove/harness").is_dir()
    assert "a file where a directory belongs" in capsys.readouterr().err


def _fake_entry(tmp_path, monkeypatch):
    """A harness cache entry as build_harness leaves it (an executable and its checksum), for a spec whose
    key is fixed: the validity checks read only the entry."""
    from fpforge.sim import harness

    spec = harness.HarnessSpec(sources=("module m(input [3:0] a, output [3:0] y); endmodule",), top="m",
                               ports=(("a", "in", 4), ("y", "out", 4)))
    exe = harness._harness_path(spec)
    exe.parent.mkdir(parents=True)
    exe.write_bytes(b"#!/bin/sh\necho harness\n" * 100)
    exe.chmod(0o755)
    (exe.parent / "harness.sha256").write_text(hashlib.sha256(exe.read_bytes()).hexdigest() + "\n")
    return harness, spec, exe


@pytest.mark.parametrize("damage", ["truncated", "not-executable", "directory", "no-checksum", "entry-is-file"])
def test_damaged_harness_entry_is_not_taken_as_cached(damage, fresh_notes, monkeypatch):
    harness, spec, exe = _fake_entry(fresh_notes, monkeypatch)
    assert harness.harness_cached(spec)
    if damage == "truncated":
        exe.write_bytes(exe.read_bytes()[:100])
    elif damage == "not-executable":
        exe.chmod(0o644)
    elif damage == "directory":
        exe.unlink()
        exe.mkdir()
    elif damage == "no-checksum":
        (exe.parent / "harness.sha256").unlink()
    else:
        shutil.rmtree(exe.parent)
        exe.parent.write_text("x")
    assert not harness.harness_cached(spec)


def test_a_harness_that_cannot_start_is_a_clear_tool_error(fresh_notes, monkeypatch):
    from fpforge.golden.errors import ToolError

    harness, spec, exe = _fake_entry(fresh_notes, monkeypatch)
    exe.write_bytes(b"\x7fELF\x02\x01")  # a truncated binary: Exec format error
    with pytest.raises(ToolError, match="cannot run the prove harness .*--fresh"):
        harness.HarnessRun(exe, spec, [(0, 4, 1, ())])


@pytest.mark.slow
@pytest.mark.parametrize("damage", ["truncate", "fresh"])
def test_prove_rebuilds_a_truncated_harness_and_on_fresh(damage, fresh_notes, capsys):
    """End to end: a real harness, truncated in the cache (or --fresh), is built again and the proof passes."""
    from fpforge.sim.run import available_simulators

    if available_simulators()["verilator"]:
        pytest.skip(available_simulators()["verilator"])
    argv = ["prove", "decoder", "--format", "e2m1"]
    assert main(argv) == 0
    exe = next((fresh_notes / "cache" / "prove" / "harness").glob("*/harness"))
    if damage == "truncate":
        exe.write_bytes(exe.read_bytes()[:4096])
    else:
        argv.append("--fresh")
    stamp = exe.stat().st_mtime_ns
    capsys.readouterr()
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert "harness: built in" in out and exe.stat().st_mtime_ns != stamp
    assert ("truncated or altered" in err) == (damage == "truncate")


def test_damaged_runtime_object_is_compiled_again(tmp_path, monkeypatch, capsys):
    from fpforge.sim import objcache

    include = tmp_path / "vroot" / "include"
    include.mkdir(parents=True)
    (include / "verilated_config.h").write_text("#define VERILATOR_VERSION 5048\n")
    (include / "verilated.cpp").write_text("runtime")
    cxx = tmp_path / "cxx.py"
    cxx.write_text("import sys, pathlib\na = sys.argv[1:]\nout = pathlib.Path(a[a.index('-o') + 1])\n"
                   "out.write_text('object ' * 100)\nout.with_suffix('.d').write_text('dep')\n"
                   "log = pathlib.Path(__file__).with_name('calls')\nlog.write_text(log.read_text() + 'x' "
                   "if log.exists() else 'x')\n")
    (tmp_path / "model").mkdir()
    monkeypatch.chdir(tmp_path / "model")
    monkeypatch.setenv("VERILATOR_ROOT", str(tmp_path / "vroot"))
    monkeypatch.setenv("FPFORGE_OBJCACHE", str(tmp_path / "objs"))

    def compile_():
        try:
            objcache.main([sys.executable, str(cxx), "-c", "-o", "verilated.o", str(include / "verilated.cpp")])
        except SystemExit as e:
            assert e.code == 0

    compile_()
    compile_()
    assert (tmp_path / "calls").read_text() == "x"
    (obj,) = (tmp_path / "objs").glob("*.o")
    obj.write_text("obj")  # truncated
    compile_()
    assert (tmp_path / "calls").read_text() == "xx" and (tmp_path / "model" / "verilated.o").read_text().startswith(
        "object object")
    obj.unlink()
    obj.mkdir()  # a directory where the object belongs
    compile_()
    compile_()
    assert (tmp_path / "calls").read_text() == "xxx" and obj.is_file()
    assert "damaged" in capsys.readouterr().err


@pytest.mark.parametrize("which", ["sim", "harness"])
def test_directory_where_a_lock_file_belongs_is_replaced(which, fresh_notes, capsys):
    if which == "sim":
        from fpforge.sim.run import _locked

        (fresh_notes / "build" / ".lock").mkdir(parents=True)
        target, lock = fresh_notes / "build", fresh_notes / "build" / ".lock"
    else:
        from fpforge.sim.harness import _locked

        lock = target = fresh_notes / "k.lock"
        lock.mkdir()
    with _locked(target):
        assert lock.is_file()
    assert "directory where a file belongs" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.parametrize("damage", ["truncated", "directory"])
def test_sim_rebuilds_a_damaged_model(damage, fresh_notes, capsys):
    """End to end on Icarus: a truncated model (or a directory in its place) in the cached build is rebuilt,
    said once, and the regression passes."""
    from fpforge.sim.run import available_simulators

    if available_simulators()["icarus"]:
        pytest.skip(available_simulators()["icarus"])
    argv = ["sim", "decoder", "--format", "e2m1", "--simulator", "icarus"]
    assert main(argv) == 0
    (model,) = (fresh_notes / "cache" / "sim").glob("*/icarus/sim.vvp")
    if damage == "truncated":
        model.write_bytes(model.read_bytes()[:200])
    else:
        model.unlink()
        model.mkdir()
    capsys.readouterr()
    assert main(argv) == 0, capsys.readouterr()
    err = capsys.readouterr().err
    assert err.count("fpforge: note: cache entry") == 1 and model.is_file() and model.stat().st_size > 200
