"""A semicircular arch of N voussoirs under its own weight stands above the minimum thickness of
its limit analysis and collapses below it (issue 42, 4a): at 1.02 times the minimum t/R it stands 3 s
(its largest block motion its elastic settlement, about 1e-4 of a voussoir's size), at 0.98 times it
the collapse verdict comes within the first second, for N = 15 and 27.

The reference (contact.references.limit_analysis.of_assembly): the equilibrium LP of the voussoirs'
own polygons (one chord each side, as meshed) on fixed abutments, minimum t/R 0.10607 for N = 15 and
0.10672 for N = 27; the annular sectors' 0.10627 and 0.10678 (tests/test_limit_analysis.py) lie within
0.2 %, and the continuous arch's Milankovitch value 0.1075 (Makris and Alexakis 2013) above both.
Measured (python cases/masonry_arch.py --voussoirs 15 --thickness-ratio 0.10660, and 0.10554): 0.5 %
above the minimum it stands, largest motion 9.8e-5 of a voussoir's size; 0.5 % below it collapses at 0.56 s."""
from __future__ import annotations

import pytest

from cases.masonry_arch import arch, arch_problem, arch_stages
from contact.references import limit_analysis as la
from fem import Uniform, simulate
from fem.problem import Collapse

pytestmark = pytest.mark.slow
MU = 0.8


@pytest.mark.parametrize("n,expected", [(15, 0.10607), (27, 0.10672)])
def test_arch_stands_above_its_minimum_thickness_and_collapses_below(tmp_path, n, expected):
    minimum = la.thinnest(lambda r: la.of_assembly(arch(n, 1.0, r, base=False), MU), bracket=(0.05, 0.3))
    assert minimum == pytest.approx(expected, abs=2e-5)
    assert abs(minimum / la.minimum_thickness(n, mu=MU) - 1) < 0.003
    verdicts = {}
    for factor in (1.02, 0.98):
        _, problem = arch_problem(tmp_path, n, 1.0, factor * minimum, MU)
        out = simulate(problem, arch_stages(), steps=Uniform(2e-3), collapse=Collapse())
        assert out.status == "complete", out.message
        verdicts[factor] = out.collapse
        assert out.energy["relative_error"] < 0.01
    stands, falls = verdicts[1.02], verdicts[0.98]
    assert stands["collapsed"] is False and stands["largest_motion"] < 1e-3  # below the onset: no mechanism
    assert falls["collapsed"] is True and falls["collapsed_at"] < 1.5
