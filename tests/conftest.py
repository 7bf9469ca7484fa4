"""One BLAS kernel for every test run, whatever the machine: OpenBLAS picks its kernels by CPU (AVX2 or
AVX-512), whose sums round differently, and the chaotic runs the slow tests check against stored values
(a harmonic run's end state, a fragility point, SDNV105's round-off ensemble) follow the last bits of
their LU solves: measured on an AVX-512 machine, the 3-cycle harmonic run ends at -0.25 rad with the
AVX-512 kernel and at -0.61 rad with the AVX2 one. OPENBLAS_CORETYPE must be set before numpy or scipy
load OpenBLAS; the tests' subprocesses (the case scripts, rockfem) inherit it. docs/performance.md says
how a user reproduces the stored values the same way."""
import os
import sys

os.environ.setdefault("OPENBLAS_CORETYPE", "Haswell")
if "numpy" in sys.modules and os.environ["OPENBLAS_CORETYPE"] == "Haswell":  # too late for this process
    sys.stderr.write("warning: numpy was loaded before tests/conftest.py: the BLAS kernel is the machine's\n")
