"""Wrapper kept for old habits: the dot area table is the sweep space `area-dot` (`fpforge sweep area-dot`)."""

import sys

from fpforge.cli import main

if __name__ == "__main__":
    sys.exit(main(["sweep", "area-dot", *sys.argv[1:]]))
