#!/usr/bin/env python3
"""Runs test modules of simlab's Python package (ctest: one entry per
module); exits 77 (skipped) when numpy is missing.
Usage: run.py MODULE..."""
import os
import sys
import unittest

sys.dont_write_bytecode = True
try:
    import numpy  # noqa: F401
except ImportError:
    print("skipped: numpy is not installed for %s (Debian: python3-numpy, "
          "which scripts/setup.sh installs)" % sys.executable)
    sys.exit(77)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
suite = unittest.defaultTestLoader.loadTestsFromNames(sys.argv[1:])
result = unittest.TextTestRunner(verbosity=2).run(suite)
sys.exit(0 if result.wasSuccessful() else 1)
