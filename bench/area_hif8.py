"""Wrapper kept for old habits: the hif8 area table is the sweep space `area-hif8` (`fpforge sweep area-hif8`)."""

import sys

from fpforge.cli import main

if __name__ == "__main__":
    sys.exit(main(["sweep", "area-hif8", *sys.argv[1:]]))
