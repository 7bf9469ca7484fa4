"""Write ``synthetic_h_v.csv``: a synthetic two-component ground motion (horizontal and vertical), for
the examples and tests (no licence question: it is generated here); and ``synthetic_10s_h_v.csv``, the
same method over 10 s (seed 2027, strong phase to 6 s), the masonry wall's.

Method (stated so that it can be reproduced and judged):
* white Gaussian noise, numpy's default generator seeded with ``SEED``, one sample every ``DT`` s;
* filtered by the Kanai-Tajimi ground filter (Kanai 1957; Tajimi 1960), the absolute acceleration
  of a ground layer of frequency w_g and damping z_g over a white-noise bedrock::

      H(s) = (2 z_g w_g s + w_g^2) / (s^2 + 2 z_g w_g s + w_g^2)

  horizontal w_g = 15 rad/s, z_g = 0.6; vertical w_g = 30 rad/s, z_g = 0.6 (stiffer in compression);
* shaped by the Jennings, Housner and Tsai (1968) envelope: (t / t1)^2 up to t1 = 1 s, 1 up to
  t2 = 3 s, exp(-(t - t2)) after, over 6 s;
* scaled to a horizontal peak of 0.35 g and a vertical peak of 2/3 of it (the common vertical-to-
  horizontal ratio of design spectra).

The records are baseline-corrected when read (fem.loads.base_motion.read_record).

    python examples/records/make_synthetic.py      # rewrites the CSV next to this script
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
from scipy import signal

from fem.constants import GRAVITY

SEED = 2026
DT = 0.01  # [s]
DURATION = 6.0  # [s]
PEAK_H = 0.35 * GRAVITY  # [m/s^2]
PEAK_V = 2.0 / 3.0 * PEAK_H


def kanai_tajimi(noise: np.ndarray, t: np.ndarray, w: float, z: float) -> np.ndarray:
    """The filter's output [same units as the noise] for the noise sampled at t."""
    system = signal.lti([2 * z * w, w * w], [1.0, 2 * z * w, w * w])
    return signal.lsim(system, noise, t)[1]


def envelope(t: np.ndarray, t1: float = 1.0, t2: float = 3.0, decay: float = 1.0) -> np.ndarray:
    """Jennings, Housner and Tsai's envelope (dimensionless, peak 1)."""
    return np.where(t < t1, (t / t1) ** 2, np.where(t < t2, 1.0, np.exp(-decay * (t - t2))))


def synthetic(seed: int = SEED, duration: float = DURATION, t2: float = 3.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(t, a_h, a_v) [s, m/s^2, m/s^2]: the record of ``seed`` over ``duration`` [s], its strong phase to ``t2``."""
    rng = np.random.default_rng(seed)
    t = np.arange(0.0, duration + DT / 2, DT)
    shape = envelope(t, t2=t2)
    h = kanai_tajimi(rng.standard_normal(t.size), t, 15.0, 0.6) * shape
    v = kanai_tajimi(rng.standard_normal(t.size), t, 30.0, 0.6) * shape
    return t, h * PEAK_H / np.max(np.abs(h)), v * PEAK_V / np.max(np.abs(v))


def write(path: Path, seed: int = SEED, duration: float = DURATION, t2: float = 3.0) -> Path:
    t, h, v = synthetic(seed, duration, t2)
    np.savetxt(path, np.column_stack([t, h, v]), delimiter=",", fmt="%.6g",
               header=f"t_s,ah_m_s2,av_m_s2  synthetic (examples/records/make_synthetic.py, seed {seed})", comments="")
    return path


if __name__ == "__main__":
    print(f"wrote {write(Path(__file__).with_name('synthetic_h_v.csv'))}")
    # the masonry wall's (examples/masonry_wall.py): 10 s, the strong phase from 1 to 6 s
    print(f"wrote {write(Path(__file__).with_name('synthetic_10s_h_v.csv'), seed=2027, duration=10.0, t2=6.0)}")
