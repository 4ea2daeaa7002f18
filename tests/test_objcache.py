"""The Verilator runtime-object cache (``fpforge.sim.objcache``) with a stand-in compiler."""

import sys

import pytest

from fpforge.sim import objcache

_FAKE_CXX = """import sys, pathlib
args = sys.argv[1:]
out = pathlib.Path(args[args.index("-o") + 1])
src = pathlib.Path(args[-1])
out.write_text("obj of " + src.read_text())
out.with_suffix(".d").write_text(f"{out.name}: {src}\\n")
log = pathlib.Path(__file__).with_name("calls")
log.write_text(log.read_text() + "x" if log.exists() else "x")
"""


@pytest.fixture
def tree(tmp_path, monkeypatch):
    include = tmp_path / "vroot" / "include"
    include.mkdir(parents=True)
    (include / "verilated_config.h").write_text("#define VERILATOR_VERSION 5048\n")
    (include / "verilated.cpp").write_text("runtime v1")
    cxx = tmp_path / "cxx.py"
    cxx.write_text(_FAKE_CXX)
    work = tmp_path / "model"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setenv("VERILATOR_ROOT", str(tmp_path / "vroot"))
    monkeypatch.setenv("FPFORGE_OBJCACHE", str(tmp_path / "cache"))
    return include, cxx, tmp_path


def _compile(cxx, source, flags=("-O0",)):
    with pytest.raises(SystemExit) as e:
        objcache.main([sys.executable, str(cxx), *flags, "-c", "-o", "verilated.o", str(source)])
        raise SystemExit(0)  # a cache hit returns without exiting
    return e.value.code


def test_runtime_objects_are_compiled_once_and_copied_afterwards(tree):
    include, cxx, root = tree
    assert _compile(cxx, include / "verilated.cpp") == 0
    assert _compile(cxx, include / "verilated.cpp") == 0
    assert (root / "calls").read_text() == "x"  # second compile came from the cache
    assert (root / "model" / "verilated.o").read_text() == "obj of runtime v1"
    assert (root / "model" / "verilated.d").exists()


def test_other_flags_other_sources_and_model_files_miss_the_cache(tree):
    include, cxx, root = tree
    _compile(cxx, include / "verilated.cpp")
    _compile(cxx, include / "verilated.cpp", flags=("-O2",))  # other flags
    (include / "verilated.cpp").write_text("runtime v2")  # other source text
    _compile(cxx, include / "verilated.cpp")
    assert (root / "model" / "verilated.o").read_text() == "obj of runtime v2"
    model = root / "model" / "Vtop.cpp"  # the model's own files are never cached
    model.write_text("model")
    _compile(cxx, model)
    _compile(cxx, model)
    assert (root / "calls").read_text() == "xxxxx"
