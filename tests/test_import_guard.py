"""The role folders are installed as ``fpforge.<role>``; importing one as a top-level package (``import
golden.formats`` from the repository root) would load a second copy with its own format registry, so it
fails at once with a one-line ImportError naming the right package (issue 12, item 9)."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("role, module", [("golden", "golden.formats"), ("hw", "hw.convert"), ("sim", "sim.cases"),
                                          ("synth", "synth.flow"), ("jobs", "jobs.cache"), ("sweep", "sweep.space")])
def test_top_level_import_of_a_role_folder_fails_naming_the_package(role, module):
    run = subprocess.run([sys.executable, "-c", f"import {module}"], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode != 0
    last = run.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: ") and f"fpforge.{role}" in last, run.stderr


def test_the_installed_packages_import():
    run = subprocess.run([sys.executable, "-c", "import fpforge.golden, fpforge.hw, fpforge.sim, fpforge.synth, "
                          "fpforge.jobs, fpforge.sweep"], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
