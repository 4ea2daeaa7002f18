"""Wrapper kept for old habits: the block area table is the sweep space `area-block` (`fpforge sweep area-block`)."""

import sys

from fpforge.cli import main

if __name__ == "__main__":
    sys.exit(main(["sweep", "area-block", *sys.argv[1:]]))
