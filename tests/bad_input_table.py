"""The closing table of the reliability issue, regenerated: how fpforge answers every bad input of
tests/bad_inputs.py (CLI command lines and Python API calls).

    .venv/bin/python tests/bad_input_table.py             # the table (markdown) and the cases that are not clear
    .venv/bin/python tests/bad_input_table.py --results   # also into docs/results.md (section bad-inputs)
    .venv/bin/python tests/bad_input_table.py --lenient   # any one-line error counts as clear

Run it with another checkout's interpreter (e.g. ``/work/main/.venv/bin/python tests/bad_input_table.py``) to
measure that checkout on the same cases: an old checkout may accept a bad option and do the work (a
simulation, a synthesis), so each case gets at most ``--timeout`` seconds (default 300; a case cut short is
*unclear*), and a case that asks for unbounded memory should run under ``ulimit -v``.

Classes. CLI: *clear error* = exit status 2 and exactly one stderr line ``fpforge: error: ...`` containing the
expected words; *traceback* = a traceback or exit status 70; *silent* = exit status 0; *unclear* = the rest
(several lines, other words, another status, still running after the time limit). API: *clear error* = an
FpforgeError of the expected type (TypeError/ValueError) whose message names the parameter; *traceback* = any
other exception type; *silent* = the call returned; *unclear* = a TypeError/ValueError that is not fpforge's
or does not name the parameter. ``--lenient`` counts any one-line ``fpforge: error:`` with exit status 2, and
any one-line TypeError/ValueError, as clear (for comparing with a checkout whose wording differs).
"""

from __future__ import annotations

import contextlib
import io
import os
import signal
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

CLASSES = ("clear error", "traceback", "silent", "unclear")
TIMEOUT = 300
LENIENT = False


class _TimedOut(BaseException):
    pass


@contextlib.contextmanager
def _limit(seconds):
    def stop(signum, frame):
        raise _TimedOut()

    old = signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def _cli_case(main, argv, expected, env, places):
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update({k: v.format(**places) for k, v in env.items()})
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                with _limit(TIMEOUT):
                    status = main([a.format(**places) for a in argv])
            except _TimedOut:
                return "unclear", f"still running after {TIMEOUT} s"
            except SystemExit as e:  # an old main() may let argparse exit
                status = e.code if isinstance(e.code, int) else 1
            except BaseException as e:  # noqa: BLE001 - counted as a traceback
                print(f"Traceback (escaped main): {type(e).__name__}: {e}", file=err)
                status = 1
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    text = err.getvalue()
    lines = text.strip().splitlines()
    if "Traceback" in text or status == 70:
        return "traceback", text
    if status == 0:
        return "silent", out.getvalue()[-200:]
    if status == 2 and len(lines) == 1 and lines[0].startswith("fpforge: error: ") and \
            (LENIENT or expected.format(**places) in lines[0]):
        return "clear error", lines[0]
    return "unclear", f"exit {status}: " + " | ".join(lines)[:300]


def run_cli():
    from fpforge.cli import main

    import bad_inputs
    from bad_inputs import CLI_CASES

    results = []
    with tempfile.TemporaryDirectory(prefix="fpforge-bad-inputs-") as tmp:
        root = Path(tmp)
        for d in ("adir", "adir.png", "empty"):
            (root / d).mkdir()
        (root / "afile.txt").write_text("not verilog\n")
        (root / "bad.lib").write_text("this is not a liberty file\n")
        places = {"dir": str(root / "adir"), "file": str(root / "afile.txt"), "badlib": str(root / "bad.lib"),
                  "empty": str(root / "empty")}
        for key, text in getattr(bad_inputs, "PLACE_FILES", {}).items():
            (root / f"{key}.lib").write_text(text)
            places[key] = str(root / f"{key}.lib")
        cwd = os.getcwd()
        os.chdir(root)
        os.environ["FPFORGE_CACHE"] = str(root / ".cache")
        try:
            for ident, argv, expected, env in CLI_CASES:
                results.append((ident, *_cli_case(main, argv, expected, env, places)))
        finally:
            os.chdir(cwd)
    return results


def run_api():
    from bad_inputs import API_CASES

    try:
        from fpforge.golden.errors import FpforgeError
    except ImportError:
        FpforgeError = ()  # an older checkout: no fpforge error classes
    results = []
    for ident, call, kind, words in API_CASES:
        try:
            with _limit(TIMEOUT):
                value = call()
        except _TimedOut:
            results.append((ident, "unclear", f"still running after {TIMEOUT} s"))
        except (TypeError, ValueError) as e:
            strict = isinstance(e, kind) and FpforgeError and isinstance(e, FpforgeError) and words in str(e)
            if strict or (LENIENT and "\n" not in str(e)):
                results.append((ident, "clear error", str(e)[:200]))
            else:
                results.append((ident, "unclear", f"{type(e).__name__}: {str(e)[:200]}"))
        except Exception as e:  # noqa: BLE001 - counted as a traceback
            results.append((ident, "traceback", f"{type(e).__name__}: {str(e)[:200]}"))
        else:
            results.append((ident, "silent", repr(value)[:200]))
    return results


def table(cli, api) -> str:
    from fpforge.jobs.results import markdown_table

    rows = [[label, len(results), *(sum(1 for r in results if r[1] == c) for c in CLASSES)]
            for label, results in (("CLI (command lines)", cli), ("API (Python calls)", api))]
    return markdown_table(["", "bad inputs tried", *CLASSES], rows) + "\n"


def class_table(cli, api) -> str:
    """The same counts for the cases added for each class of issue 30 (``bad_inputs.ISSUE30_CLASSES``)."""
    from fpforge.jobs.results import markdown_table

    from bad_inputs import ISSUE30_CLASSES

    outcome = {ident: cls for ident, cls, _ in cli + api}
    rows = []
    for label, ids in ISSUE30_CLASSES.items():
        got = [outcome[i] for i in ids if i in outcome]
        rows.append([label, len(got), *(sum(1 for c in got if c == k) for k in CLASSES)])
    return markdown_table(["issue 30 class", "bad inputs tried", *CLASSES], rows) + "\n"


def main(argv=None):
    global TIMEOUT, LENIENT
    argv = sys.argv[1:] if argv is None else argv
    if "--timeout" in argv:
        TIMEOUT = int(argv[argv.index("--timeout") + 1])
    LENIENT = "--lenient" in argv
    import warnings

    warnings.simplefilter("ignore")  # Amaranth's unused-elaboratable notes of half-built units
    cli, api = run_cli(), run_api()
    text = table(cli, api)
    by_class = class_table(cli, api)
    print(text)
    print(by_class)
    for label, results in (("CLI", cli), ("API", api)):
        for ident, cls, detail in results:
            if cls != "clear error":
                print(f"{label} {cls:10} {ident}: {detail}")
    if "--results" in argv:
        from fpforge.jobs.results import write_section

        md = ("## Bad inputs: clear errors, tracebacks, silent results\n" + text + "\nThe cases are "
              "tests/bad_inputs.py (every subcommand x every option class, and the public golden/dot/qsnr/hw API); "
              "the classes are defined in tests/bad_input_table.py. Among them, the cases added for each class of "
              "the third reliability pass (issue 30). Beside them, tests/test_env_cache.py fuzzes every bad cache root "
              "against every command that uses a cache, tests/test_space_files.py breaks a valid space file in "
              "hundreds of ways, tests/test_fuzz_hw_api.py throws junk at the hardware API, and class 3 (a killed "
              "run leaves nothing running) is tests/test_lifeline.py:\n\n"
              + by_class)
        data = {label: [dict(id=i, outcome=cls, detail=detail) for i, cls, detail in results]
                for label, results in (("cli", cli), ("api", api))}
        write_section("bad-inputs", md, command="python tests/bad_input_table.py --results", data=data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
