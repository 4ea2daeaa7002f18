"""Named cell libraries: ``--liberty osu018`` (and ``fpforge45``) instead of a path.

``osu018`` is the OSU 0.18 um standard-cell library of Debian's ``qflow-tech-osu018`` package: 32 cells with
NLDM delay and transition tables, ``internal_power`` tables and leakage, so static timing and power can be
measured on it (``fpforge synth --clock-ns``, docs/ppa.md). ``make setup`` fetches the package with
``apt-get download`` and unpacks it with ``dpkg -x`` into the checkout's ``.tech/`` directory (installing the
package would drag in qflow and ~47 other packages); ``FPFORGE_TECH`` names another directory that holds the
same layout (``osu018/osu018_stdcells.lib``). A system-wide install of the package
(``/usr/share/qflow/tech/osu018``) is used too.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from ..golden.errors import ToolMissing, UnknownName

__all__ = ["DEFAULT_LIBERTY", "LIBRARIES", "resolve_liberty", "tech_dirs"]

#: fpforge's own area-only library (Nangate45 cell areas, no timing): the default of every flow.
DEFAULT_LIBERTY: Path = Path(__file__).resolve().with_name("fpforge45.lib")

#: name -> (path under a tech directory, what it is, how to get it)
LIBRARIES: dict[str, tuple[str, str]] = {
    "osu018": ("osu018/osu018_stdcells.lib", "the OSU 0.18 um cells of Debian's qflow-tech-osu018"),
}

_FETCH = ("run `make tech` (part of `make setup`) where apt-get is usable: it fetches Debian's qflow-tech-osu018 "
          "with apt-get download and unpacks it into .tech/")
_SYSTEM = Path("/usr/share/qflow/tech")


def tech_dirs() -> list[Path]:
    """Where named libraries are looked up, in order: ``$FPFORGE_TECH`` when set (only there), else the
    checkout's ``.tech`` and the system's ``/usr/share/qflow/tech``."""
    forced = os.environ.get("FPFORGE_TECH", "").strip()
    if forced:
        return [Path(forced)]
    root = Path(__file__).resolve().parent.parent  # the checkout (editable install): synth/ is beside .tech/
    return [root / ".tech", _SYSTEM]


def _names() -> str:
    return ", ".join(["fpforge45", *LIBRARIES])


def resolve_liberty(liberty):
    """The liberty file ``liberty`` names: a named library (``fpforge45``, ``osu018``) becomes its path; any
    other value is returned unchanged (a path, checked by :func:`~fpforge.synth.liberty.check_liberty`).

    Raises
    ------
    ToolMissing
        A named library that is not installed (the message says how to install it).
    UnknownName
        A bare word (no ``/``, no ``.``) that is neither a named library nor an existing file.
    """
    if liberty is None or not isinstance(liberty, str):
        return liberty
    if liberty == "fpforge45":
        return DEFAULT_LIBERTY
    if liberty in LIBRARIES:
        rel, what = LIBRARIES[liberty]
        dirs = tech_dirs()
        for d in dirs:
            if (d / rel).is_file():
                return d / rel
        where = f"FPFORGE_TECH={os.environ['FPFORGE_TECH'].strip()}" if os.environ.get("FPFORGE_TECH", "").strip() \
            else "the checkout's .tech/ and /usr/share/qflow/tech"
        raise ToolMissing(f"liberty {liberty} ({what}) is not installed: no {rel} under {where}; {_FETCH}")
    if re.fullmatch(r"[A-Za-z][A-Za-z0-9_\-]*", liberty) and not Path(liberty).exists():
        raise UnknownName(f"unknown liberty {liberty!r}; valid names: {_names()} (or the path of a liberty file)")
    return liberty
