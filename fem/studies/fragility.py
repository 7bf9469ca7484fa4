"""The lognormal fragility function of a study's binomial outcomes (a study of the shaking table's
block: cases/fragility.py):

    P(exceed | IM = x) = Phi(ln(x / theta) / beta),

theta (the median capacity, in the IM's units) and beta (the logarithmic standard deviation) by
maximum likelihood on "multiple stripes" (Baker 2015, "Efficient analytical fragility function fitting
using dynamic structural analysis", Earthquake Spectra 31(1): 579-599, eqs. 10-11): at each IM level
x_j, z_j of n_j analyses exceeded, the likelihood is the product of the binomial probabilities

    L(theta, beta) = prod_j C(n_j, z_j) p_j^z_j (1 - p_j)^(n_j - z_j),   p_j = Phi(ln(x_j / theta) / beta).

It is a probit regression on ln x, p_j = Phi(a + b ln x_j) with b = 1 / beta, a = -ln(theta) / beta,
whose log-likelihood is concave in (a, b): it is maximised by Fisher scoring with step halving (on ln x
centred and scaled). Its maximum is finite only when the outcomes overlap: some analysis that did not
exceed lies at an IM above one that did. Otherwise the fit is undetermined and :func:`fit_lognormal`
says so instead of inventing a theta (``status``, ``message``):

* ``no exceedance``: every outcome 0, theta is above the largest IM tested, beta unknown;
* ``all exceeded``: every outcome 1, theta is below the smallest IM tested;
* ``separated``: every 0 at an IM at or below every 1 (perfect separation: the likelihood grows without
  bound as beta -> 0 with theta anywhere in ``theta_bracket``, the largest IM without an exceedance to
  the smallest with one; a single mixed stripe between them is the quasi-complete case);
* ``decreasing``: every 1 at or below every 0 (separation the other way), or a maximum with b <= 0: a
  probability that does not rise with the IM is not a fragility;
* ``no data``: no analysis; ``not converged``: the maximisation failed (never seen; said if it happens).

A fitted result has the standard errors of ln(theta) and beta from the inverse Fisher information at
the maximum (delta method), ``se_ln_theta`` and ``se_beta``: the asymptotic scatter of the estimates.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np
from scipy.special import log_ndtr, ndtr

FITTED = "fitted"
NO_EXCEEDANCE = "no exceedance"
ALL_EXCEEDED = "all exceeded"
SEPARATED = "separated"
DECREASING = "decreasing"
NO_DATA = "no data"
NOT_CONVERGED = "not converged"
MAX_ITERATIONS = 200
TOLERANCE = 1e-12  # Fisher scoring stops when its step in (a, b) is below this (on the scaled ln x)


@dataclass(frozen=True)
class Fit:
    """A fragility fit: ``theta`` [IM units], ``beta`` [-] (None unless ``status`` is ``fitted``),
    their standard errors, the log-likelihood at the maximum, the analyses it used (``trials``,
    ``exceedances``, ``stripes``), ``theta_bracket`` where theta is known to lie when it is
    undetermined (None at an open end), and ``message``: what the result is, in words."""

    status: str
    message: str
    theta: float | None = None
    beta: float | None = None
    se_ln_theta: float | None = None
    se_beta: float | None = None
    log_likelihood: float | None = None
    trials: int = 0
    exceedances: int = 0
    stripes: int = 0
    theta_bracket: tuple | None = None
    iterations: int = 0

    @property
    def fitted(self) -> bool:
        return self.status == FITTED

    def probability(self, x) -> np.ndarray:
        """P(exceed | IM = x) of the fitted function (ValueError if not fitted)."""
        if not self.fitted:
            raise ValueError(f"no fitted fragility ({self.status}): {self.message}")
        return lognormal_cdf(x, self.theta, self.beta)

    def record(self) -> dict:
        out = asdict(self)
        out["theta_bracket"] = list(self.theta_bracket) if self.theta_bracket is not None else None
        return out


def lognormal_cdf(x, theta: float, beta: float) -> np.ndarray:
    """Phi(ln(x / theta) / beta)."""
    return ndtr(np.log(np.asarray(x, dtype=float) / theta) / beta)


def stripes(x, outcomes) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(levels, n, z) from one IM value and one outcome (True, False, or None: not decided, left
    out) per analysis: the distinct levels ascending, the analyses decided at each, the exceedances."""
    pairs = [(float(v), bool(o)) for v, o in zip(x, outcomes) if o is not None]
    levels = np.array(sorted({v for v, _ in pairs}), dtype=float)
    n = np.array([sum(1 for v, _ in pairs if v == level) for level in levels], dtype=int)
    z = np.array([sum(1 for v, o in pairs if v == level and o) for level in levels], dtype=int)
    return levels, n, z


def fit_lognormal(x, n, z) -> Fit:
    """The maximum-likelihood lognormal fragility of stripes at IM levels ``x`` (> 0) with ``n``
    analyses and ``z`` exceedances each (module docstring); stripes of no analysis are left out.
    ValueError for impossible input (x <= 0 or not finite, z outside [0, n], shapes that differ)."""
    x, n, z = (np.atleast_1d(np.asarray(v, dtype=float)) for v in (x, n, z))
    if not (x.shape == n.shape == z.shape and x.ndim == 1):
        raise ValueError(f"x, n, z must be 1-D of one length, got shapes {x.shape}, {n.shape}, {z.shape}")
    if not np.all(np.isfinite(x) & (x > 0)):
        raise ValueError("every IM level x must be a finite number > 0")
    if not np.all((n >= 0) & (n == np.round(n)) & (z >= 0) & (z <= n) & (z == np.round(z))):
        raise ValueError("n must be counts >= 0 and z counts in [0, n]")
    keep = n > 0
    x, n, z = x[keep], n[keep], z[keep]
    total, hits = int(n.sum()), int(z.sum())
    counts = {"trials": total, "exceedances": hits, "stripes": int(x.size)}
    if total == 0:
        return Fit(NO_DATA, "no decided analysis: nothing to fit", **counts)
    if hits == 0:
        return Fit(NO_EXCEEDANCE, f"no analysis exceeded (0 of {total}): theta is above the largest level tested, "
                                  f"{x.max():.4g}, beta undetermined", theta_bracket=(float(x.max()), None), **counts)
    if hits == total:
        return Fit(ALL_EXCEEDED, f"every analysis exceeded ({total} of {total}): theta is below the smallest level "
                                 f"tested, {x.min():.4g}, beta undetermined", theta_bracket=(None, float(x.min())),
                   **counts)
    below = float(x[n > z].max())  # the largest level with an analysis that did not exceed
    above = float(x[z > 0].min())  # the smallest level with one that did
    if below <= above:
        where = (f"at {below:.4g} (one mixed stripe, every level below it none, above it all)" if below == above
                 else f"between {below:.4g} and {above:.4g}")
        return Fit(SEPARATED, f"perfect separation: no exceedance up to {below:.4g}, all from {above:.4g} on; the "
                              f"likelihood grows without bound as beta -> 0 with theta {where}: theta and beta are "
                              f"undetermined (more analyses near the threshold)", theta_bracket=(below, above),
                   **counts)
    if float(x[z > 0].max()) <= float(x[n > z].min()):  # every 1 at or below every 0: b -> -inf
        return Fit(DECREASING, f"reversed separation: every exceedance at or below {x[z > 0].max():.4g}, none from "
                               f"{x[n > z].min():.4g} on: a probability that falls with the level is not a fragility, "
                               f"theta and beta undetermined", **counts)
    u0 = np.log(x)
    m = float(np.average(u0, weights=n))
    s = float(np.sqrt(np.average((u0 - m) ** 2, weights=n))) or 1.0
    u = (u0 - m) / s
    X = np.column_stack([np.ones_like(u), u])
    try:
        coef, loglik, iterations = _maximise(X, n, z)
    except np.linalg.LinAlgError:
        iterations = MAX_ITERATIONS + 1
    if iterations > MAX_ITERATIONS:
        return Fit(NOT_CONVERGED, f"the likelihood's maximum was not found in {MAX_ITERATIONS} Fisher-scoring "
                                  f"iterations: theta and beta undetermined", **counts)
    a, b = coef
    if not b > 0:
        return Fit(DECREASING, f"the maximum-likelihood probability does not rise with the level (slope {b / s:.3g} "
                               f"per unit of ln x): not a fragility, theta and beta undetermined",
                   log_likelihood=loglik, iterations=iterations, **counts)
    info = _fisher(X, n, coef)
    cov = np.linalg.inv(info)
    grad_ln_theta = np.array([-s / b, s * a / b**2])  # ln theta = m - s a / b
    grad_beta = np.array([0.0, -s / b**2])  # beta = s / b
    ln_theta, beta = m - s * a / b, s / b
    se_t = float(math.sqrt(grad_ln_theta @ cov @ grad_ln_theta))
    se_b = float(math.sqrt(grad_beta @ cov @ grad_beta))
    return Fit(FITTED, f"theta = {math.exp(ln_theta):.4g}, beta = {beta:.3g} (maximum likelihood on {total} analyses "
                       f"at {x.size} levels)", theta=float(math.exp(ln_theta)), beta=float(beta),
               se_ln_theta=se_t, se_beta=se_b, log_likelihood=loglik, iterations=iterations, **counts)


def log_likelihood(X: np.ndarray, n: np.ndarray, z: np.ndarray, coef: np.ndarray) -> float:
    """sum_j z_j ln Phi(eta_j) + (n_j - z_j) ln Phi(-eta_j), eta = X coef (the binomial
    coefficients, constant, left out)."""
    eta = X @ coef
    return float(np.sum(z * log_ndtr(eta) + (n - z) * log_ndtr(-eta)))


def _ratio(eta: np.ndarray) -> np.ndarray:
    """phi(eta) / (Phi(eta) (1 - Phi(eta))), without underflow in the tails."""
    log_phi = -0.5 * eta**2 - 0.5 * math.log(2 * math.pi)
    return np.exp(log_phi - log_ndtr(eta) - log_ndtr(-eta))


def _fisher(X: np.ndarray, n: np.ndarray, coef: np.ndarray) -> np.ndarray:
    """The Fisher information of (a, b): X^T diag(n phi^2 / (Phi (1 - Phi))) X."""
    eta = X @ coef
    log_phi = -0.5 * eta**2 - 0.5 * math.log(2 * math.pi)
    w = n * np.exp(2 * log_phi - log_ndtr(eta) - log_ndtr(-eta))
    return X.T @ (w[:, None] * X)


def _maximise(X: np.ndarray, n: np.ndarray, z: np.ndarray) -> tuple[np.ndarray, float, int]:
    """Fisher scoring from (0, 1) with step halving: the concave log-likelihood rises at every step."""
    coef = np.array([0.0, 1.0])
    current = log_likelihood(X, n, z, coef)
    for iteration in range(1, MAX_ITERATIONS + 1):
        eta = X @ coef
        score = X.T @ ((z - n * ndtr(eta)) * _ratio(eta))
        step = np.linalg.solve(_fisher(X, n, coef), score)
        scale = 1.0
        while True:
            trial = coef + scale * step
            value = log_likelihood(X, n, z, trial)
            if value >= current - 1e-12 * abs(current) or scale < 1e-10:
                break
            scale /= 2
        coef, current = trial, value
        if np.max(np.abs(scale * step)) < TOLERANCE:
            return coef, current, iteration
    return coef, current, MAX_ITERATIONS + 1  # not converged
