# fpforge: thin wrappers around the CLI and pytest. `make setup` then `make test` on a fresh machine.
PYTHON ?= python3.11
VENV   := .venv
PY     := $(VENV)/bin/python
JOBS   ?= 2

.PHONY: setup test regress prove bench area sweep-paper clean

setup:
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[test,native]"
	$(PY) -m fpforge formats > /dev/null

# Fast tier: ruff (pyflakes + isort), then the golden model, gateware, synthesis, the bulk checks on the prove
# harness and the cocotb regressions on both simulators (Icarus is skipped, visibly, where iverilog is missing).
test:
	$(VENV)/bin/ruff check --quiet .
	$(PY) -m pytest -n $(JOBS) --dist worksteal -m "not slow" tests

# Long tier: >= 10M random FP32 patterns per configuration and the other exhaustive sweeps.
regress:
	$(PY) -m pytest -n $(JOBS) --dist worksteal -m slow tests

# Exhaustive tier: every FP32 -> 8-bit encoder on all 2^32 inputs in every (mode, sat) pair (hours on 2 cores;
# resumable: rerun after an interruption). Writes the proof table to docs/results.md (section `proofs`).
prove:
	$(PY) -m fpforge prove all --jobs $(JOBS)

bench:
	$(PY) bench/bench_golden.py
	$(PY) bench/bench_fastpath.py
	$(PY) bench/bench_hif8.py
	$(PY) bench/bench_block.py
	$(PY) bench/bench_sim.py
	$(PY) bench/bench_dot.py
	$(PY) bench/bench_prove.py
	$(PY) bench/bench_sweep.py

clean:
	rm -rf build .pytest_cache

# The docs' area tables: named sweep spaces, written to docs/results.md (cached: a rerun is quick).
area:
	$(PY) -m fpforge sweep area-fp8 --results
	$(PY) -m fpforge sweep area-hif8 --results
	$(PY) -m fpforge sweep area-cfloat --results
	$(PY) -m fpforge sweep area-block --results
	$(PY) -m fpforge sweep area-dot --results
	$(PY) -m fpforge sweep area-p3109 --results

# The MX paper's Fig. 7: 811 points (the space's reuse flow; cold: long, see docs/sweep.md), figure, CSV and claims
# in docs/results.md.
sweep-paper:
	$(PY) -m fpforge sweep paper --claims --results
