"""Wrapper kept for old habits: the fp8 area table is the sweep space `area-fp8` (`fpforge sweep area-fp8`)."""

import sys

from fpforge.cli import main

if __name__ == "__main__":
    sys.exit(main(["sweep", "area-fp8", *sys.argv[1:]]))
