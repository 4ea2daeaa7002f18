"""Wrapper kept for old habits: the cfloat area table is the sweep space `area-cfloat` (`fpforge sweep area-cfloat`)."""

import sys

from fpforge.cli import main

if __name__ == "__main__":
    sys.exit(main(["sweep", "area-cfloat", *sys.argv[1:]]))
