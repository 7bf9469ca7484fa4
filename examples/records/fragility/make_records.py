"""Write the five synthetic horizontal ground motions of the fragility study (cases/fragility.py):
``kt_1.csv`` ... ``kt_5.csv`` next to this script (no licence question: they are generated here).

Method: the one of ../make_synthetic.py, stated here so that it can be reproduced and judged:

* white Gaussian noise, numpy's default generator (PCG64) seeded with the record's seed, one sample
  every ``DT`` = 0.01 s;
* filtered by the Kanai-Tajimi ground filter (Kanai 1957; Tajimi 1960), the absolute acceleration of a
  ground layer of frequency w_g and damping z_g over a white-noise bedrock::

      H(s) = (2 z_g w_g s + w_g^2) / (s^2 + 2 z_g w_g s + w_g^2)

  z_g = 0.6 for all, w_g varied per record (a soft to a stiff site): 8, 10, 12.5, 15, 19 rad/s
  (1.3 to 3.0 Hz; the SDNV105 block's rocking frequency parameter p is 4.1 rad/s);
* shaped by the Jennings, Housner and Tsai (1968) envelope, (t / t1)^2 up to t1 = 0.5 s, 1 up to
  t2 = 2 s, exp(-1.5 (t - t2)) after, over ``DURATION`` = 4 s (a short strong phase keeps the FE
  runs of the study affordable: 4 s of motion + 1 s after it);
* scaled to a peak of 1 g (the study scales each record to the PGA of its stripe: the shaking table's
  --amplitude-g, after the baseline correction that fem.loads.base_motion.read_record applies).

Columns: t [s], a_h [m/s^2] (one horizontal component: the table moves along x).

    python examples/records/fragility/make_records.py     # rewrites the five CSV files
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
from scipy import signal

from fem.constants import GRAVITY

DT = 0.01  # [s]
DURATION = 4.0  # [s]
Z_G = 0.6
T1, T2, DECAY = 0.5, 2.0, 1.5  # envelope [s, s, 1/s]
PEAK = 1.0 * GRAVITY  # [m/s^2]
#: (file name, seed, w_g [rad/s])
RECORDS = (("kt_1.csv", 2901, 8.0), ("kt_2.csv", 2902, 10.0), ("kt_3.csv", 2903, 12.5),
           ("kt_4.csv", 2904, 15.0), ("kt_5.csv", 2905, 19.0))


def kanai_tajimi(noise: np.ndarray, t: np.ndarray, w: float, z: float) -> np.ndarray:
    """The filter's output [same units as the noise] for the noise sampled at t."""
    system = signal.lti([2 * z * w, w * w], [1.0, 2 * z * w, w * w])
    return signal.lsim(system, noise, t)[1]


def envelope(t: np.ndarray) -> np.ndarray:
    """Jennings, Housner and Tsai's envelope (dimensionless, peak 1)."""
    return np.where(t < T1, (t / T1) ** 2, np.where(t < T2, 1.0, np.exp(-DECAY * (t - T2))))


def synthetic(seed: int, w_g: float) -> tuple[np.ndarray, np.ndarray]:
    """(t, a_h) [s, m/s^2]."""
    rng = np.random.default_rng(seed)
    t = np.arange(0.0, DURATION + DT / 2, DT)
    a = kanai_tajimi(rng.standard_normal(t.size), t, w_g, Z_G) * envelope(t)
    return t, a * PEAK / np.max(np.abs(a))


def write(folder: Path) -> list[Path]:
    paths = []
    for name, seed, w_g in RECORDS:
        t, a = synthetic(seed, w_g)
        path = folder / name
        np.savetxt(path, np.column_stack([t, a]), delimiter=",", fmt="%.6g",
                   header=f"t_s,ah_m_s2  Kanai-Tajimi w_g={w_g:g} rad/s z_g={Z_G:g}, Jennings envelope, seed {seed} "
                          f"(examples/records/fragility/make_records.py)", comments="")
        paths.append(path)
    return paths


if __name__ == "__main__":
    for p in write(Path(__file__).resolve().parent):
        print(f"wrote {p}")
