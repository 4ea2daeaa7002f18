"""Wrapper kept beside the others: the P3109 area table is the sweep space `area-p3109` (`fpforge sweep area-p3109`)."""

import sys

from fpforge.cli import main

if __name__ == "__main__":
    sys.exit(main(["sweep", "area-p3109", *sys.argv[1:]]))
