"""A semicircular arch of 27 voussoirs under a slowly ramped horizontal acceleration of its base
(issue 42, 4b): its collapse multiplier |a_x| / g at the onset of collapse (fem.problem.collapse)
within 3 % of the limit analysis of its rigid blocks, for t/R = 0.15, 0.20 and 0.25, and hinged at the
same four joints.

The ramp: from 0 to twice the limit multiplier lambda over 10 s (Ramp's smooth step: 0.3 lambda per
second at mid-ramp, where it crosses lambda), after the self-weight (cases/masonry_arch.arch_stages); dt
5e-3 s; the joints one merged Lagrange term. The
reference (contact.references.limit_analysis.of_assembly, the voussoirs' own polygons on fixed
abutments): lambda 0.1453, 0.2843, 0.4082 under inertia along -x (the base accelerated along +x).
Measured: 0.9866, 0.9879 and 0.9953 lambda (python cases/masonry_arch.py --thickness-ratio 0.15 --ramp-g
0.2907, and 0.20 / 0.5686, 0.25 / 0.8163); the first instant a block moved by 1e-3 of its size, without the
back-extrapolation, gave 1.03 lambda."""
from __future__ import annotations

import pytest

from cases.masonry_arch import arch_problem, arch_stages
from contact.references import limit_analysis as la
from fem import Uniform, simulate
from fem.problem import Collapse

pytestmark = pytest.mark.slow
MU = 0.8


@pytest.mark.parametrize("ratio,expected", [(0.15, 0.14534), (0.20, 0.28430), (0.25, 0.40816)])
def test_arch_collapse_multiplier_and_hinges_under_a_ramp(tmp_path, ratio, expected):
    assembly, problem = arch_problem(tmp_path, 27, 1.0, ratio, MU)
    blocks, joints, _, labels = la.of_assembly(assembly, MU)
    limit = la.collapse_multiplier(blocks, joints, direction=-1.0)
    assert limit.multiplier == pytest.approx(expected, abs=1e-4)
    out = simulate(problem, arch_stages(ramp_g=2 * limit.multiplier, ramp_time=10.0), steps=Uniform(5e-3),
                   collapse=Collapse())
    c = out.collapse
    assert out.status == "complete" and c["collapsed"] is True, out.message
    assert c["collapse_multiplier"] == pytest.approx(limit.multiplier, rel=0.03)
    assert sorted(c["hinges"]) == sorted(labels[k] for k, _ in limit.hinges)
    assert out.energy["relative_error"] < 0.01
