"""Monte Carlo estimates of the moments of q.k, with standard errors, to set beside closed forms.

:func:`pair_dot_products` draws independent query-key pairs from a model of
:mod:`attncore.distributions`; :func:`estimate_moments` returns the sample mean, variance
and kurtosis with their standard errors, so a closed form can be judged by how many
standard errors it lies from the estimate (:attr:`MomentEstimate.z_mean` and friends).
:func:`compare_with_closed_form` does the whole round, simulate (or take a sample), estimate,
compare, z-score, and is what the chapters and the tests use.

>>> from attncore.distributions import Independent
>>> sample = pair_dot_products(Independent(), d=16, n_pairs=20_000, seed=0)
>>> est = estimate_moments(sample)
>>> abs(est.var - 16) < 4 * est.var_se
True
>>> compare_with_closed_form(sample, mean=0.0, var=16.0).within(4.0)
True

The other samplers draw what the book compares with a closed form and no engine model
gives: Chuang's Proposition 5 counterexamples (:func:`proposition_5_pairs`), the ratio
``k_total / (n sqrt d)`` (:func:`k_total_ratios`), Bernhard's Cauchy-Schwarz ratio
(:func:`cauchy_schwarz_ratios`), and a histogram against an exact density
(:func:`histogram_chi_square`).
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from attncore.checks import ParameterError, finite_array, positive_int
from attncore.distributions import Independent, QueryKeyModel
from attncore.random import SeedLike, make_rng
from attncore.simulate.tasks import run_tasks

__all__ = [
    "ClosedFormComparison",
    "HistogramFit",
    "MomentEstimate",
    "cauchy_schwarz_ratios",
    "compare_with_closed_form",
    "comparison_table",
    "estimate_moments",
    "histogram_chi_square",
    "k_total_ratios",
    "largest_listed_covariance",
    "pair_dot_products",
    "proposition_5_pairs",
    "proposition_5_table",
    "scaled_second_moment",
]

_PAIRS_PER_CHUNK = 1 << 21  # query and key components held at once (16 MiB each in float64)


def pair_dot_products(model: QueryKeyModel, d: int, n_pairs: int, seed: SeedLike) -> np.ndarray:
    """``n_pairs`` independent draws of ``q.k`` from ``model`` in dimension ``d``.

    For :class:`~attncore.distributions.Independent` models the pairs are drawn in chunks
    (row ``i`` of the queries with row ``i`` of the keys). Other models share a draw
    across the vectors of one ``sample`` call (the common component of ``Correlated``,
    the weights of ``Projected``), so each pair comes from its own call: the pairs are then
    independent and the moments are the unconditional ones the closed forms state.

    >>> from attncore.distributions import Projected
    >>> pair_dot_products(Projected(d_x=4, self_attention=True), 8, 3, seed=1).shape
    (3,)
    """
    d = positive_int("d", d)
    n_pairs = positive_int("n_pairs", n_pairs)
    rng = make_rng(seed)
    if isinstance(model, Independent):
        chunk = max(1, _PAIRS_PER_CHUNK // d)
        parts = []
        for start in range(0, n_pairs, chunk):
            count = min(chunk, n_pairs - start)
            q, k = model.sample(rng, count, count, d)
            parts.append(np.einsum("ij,ij->i", q, k))
        return np.concatenate(parts)
    out = np.empty(n_pairs)
    for i in range(n_pairs):
        q, k = model.sample(rng, 1, 1, d)
        out[i] = q[0] @ k[0]
    return out


@dataclass(frozen=True)
class MomentEstimate:
    """Sample mean, variance and kurtosis (Pearson, 3 for a normal law) with standard errors.

    The mean's error is ``sd / sqrt(N)``; the variance's is ``sqrt((m4 - m2^2) / N)`` with
    the sample central moments; the kurtosis error comes from ``batches`` batch means, which
    needs no further moment assumptions.
    """

    n: int
    mean: float
    mean_se: float
    var: float
    var_se: float
    kurtosis: float
    kurtosis_se: float

    def z_mean(self, exact: float) -> float:
        """How many standard errors the estimated mean lies from ``exact``."""
        return (self.mean - exact) / self.mean_se

    def z_var(self, exact: float) -> float:
        """How many standard errors the estimated variance lies from ``exact``."""
        return (self.var - exact) / self.var_se

    def z_kurtosis(self, exact: float) -> float:
        """How many standard errors the estimated kurtosis lies from ``exact``."""
        return (self.kurtosis - exact) / self.kurtosis_se


def estimate_moments(sample: np.ndarray, batches: int = 20) -> MomentEstimate:
    """Moments of ``sample`` with standard errors (see :class:`MomentEstimate`).

    >>> est = estimate_moments(np.random.default_rng(0).standard_normal(40_000))
    >>> round(est.var, 2), round(est.kurtosis, 1)
    (1.0, 3.0)
    """
    x = finite_array("sample", sample, ndim=1)
    batches = positive_int("batches", batches, minimum=2)
    if x.size < 10 * batches:
        raise ParameterError(f"sample must hold at least {10 * batches} values, got {x.size}")
    centred = x - x.mean()
    m2, m4 = np.mean(centred**2), np.mean(centred**4)
    if m2 == 0:
        raise ParameterError("sample must not be constant: its standard errors would be 0")
    var = float(np.var(x, ddof=1))
    per_batch = [stats.kurtosis(b, fisher=False) for b in np.array_split(x, batches)]
    return MomentEstimate(
        n=x.size,
        mean=float(x.mean()),
        mean_se=math.sqrt(var / x.size),
        var=var,
        var_se=math.sqrt(max(m4 - m2 * m2, 0.0) / x.size),
        kurtosis=float(stats.kurtosis(x, fisher=False)),
        kurtosis_se=float(np.std(per_batch, ddof=1) / math.sqrt(batches)),
    )


@dataclass(frozen=True)
class ClosedFormComparison:
    """An estimate beside the closed forms it is checked against, with z-scores.

    A closed form left as ``None`` is not compared (its z-score is ``nan``). ``others`` are
    further values the variance is scored against (a source's formula beside the derived
    one, say), by name; they enter :meth:`row` but not :meth:`worst_z`.
    """

    estimate: MomentEstimate
    mean: float | None = None
    var: float | None = None
    kurtosis: float | None = None
    others: Mapping[str, float] = field(default_factory=dict)

    @property
    def z_mean(self) -> float:
        """Standard errors between the estimated and the closed-form mean."""
        return math.nan if self.mean is None else self.estimate.z_mean(self.mean)

    @property
    def z_var(self) -> float:
        """Standard errors between the estimated and the closed-form variance."""
        return math.nan if self.var is None else self.estimate.z_var(self.var)

    @property
    def z_kurtosis(self) -> float:
        """Standard errors between the estimated and the closed-form kurtosis."""
        return math.nan if self.kurtosis is None else self.estimate.z_kurtosis(self.kurtosis)

    def worst_z(self, kurtosis: bool = False) -> float:
        """The largest ``|z|`` of the mean and the variance (and the kurtosis if asked)."""
        zs = [self.z_mean, self.z_var] + ([self.z_kurtosis] if kurtosis else [])
        given = [abs(z) for z in zs if not math.isnan(z)]
        return max(given) if given else math.nan

    def within(self, z_limit: float, kurtosis: bool = False) -> bool:
        """Every compared moment lies within ``z_limit`` standard errors of its closed form."""
        return bool(self.worst_z(kurtosis) <= z_limit)

    def row(self) -> dict[str, float]:
        """Estimates, standard errors, closed forms and z-scores, for a table."""
        est, out = self.estimate, {}
        for name, value, se, exact, z in (
            ("mean", est.mean, est.mean_se, self.mean, self.z_mean),
            ("variance", est.var, est.var_se, self.var, self.z_var),
            ("kurtosis", est.kurtosis, est.kurtosis_se, self.kurtosis, self.z_kurtosis),
        ):
            if exact is not None:
                out |= {
                    name: value,
                    f"{name} se": se,
                    f"{name} closed form": exact,
                    f"z ({name})": z,
                }
        for name, value in self.others.items():
            out |= {name: value, f"z ({name})": self.estimate.z_var(value)}
        return out


def compare_with_closed_form(
    sample_or_model: np.ndarray | QueryKeyModel,
    mean: float | None = None,
    var: float | None = None,
    kurtosis: float | None = None,
    *,
    d: int | None = None,
    n_pairs: int | None = None,
    seed: SeedLike | None = None,
    batches: int = 20,
    others: Mapping[str, float] | None = None,
) -> ClosedFormComparison:
    """Simulate (or take ``sample``), estimate, and compare with the closed forms.

    Given a model of :mod:`attncore.distributions`, ``n_pairs`` values of ``q.k`` in
    dimension ``d`` are drawn with ``seed`` (:func:`pair_dot_products`); given an array, it
    is the sample. The z-scores use the standard errors of :func:`estimate_moments`;
    ``others`` are further values to score the variance against (:class:`ClosedFormComparison`).

    >>> from attncore.distributions import Independent
    >>> c = compare_with_closed_form(Independent(), 0.0, 8.0, d=8, n_pairs=10_000, seed=1)
    >>> c.within(4.0), sorted(c.row())[:2]
    (True, ['mean', 'mean closed form'])
    """
    if isinstance(sample_or_model, np.ndarray):
        sample = sample_or_model
    else:
        if d is None or n_pairs is None or seed is None:
            raise ParameterError("a model needs d, n_pairs and seed")
        sample = pair_dot_products(sample_or_model, d, n_pairs, seed)
    est = estimate_moments(sample, batches=batches)
    as_float = [None if v is None else float(v) for v in (mean, var, kurtosis)]
    extra = {name: float(value) for name, value in (others or {}).items()}
    return ClosedFormComparison(est, *as_float, others=extra)


def comparison_table(
    cases: Mapping[Hashable, Mapping[str, Any]],
    n_pairs: int | None = None,
    seeds: Iterator[SeedLike] | None = None,
    *,
    scheduler: object = None,
) -> pd.DataFrame:
    """One :func:`compare_with_closed_form` per case, as a table indexed by the case keys.

    Each case holds the keyword arguments of :func:`compare_with_closed_form`
    (``sample_or_model``, ``mean``, ``var``, ``kurtosis``, ``d``); a model is drawn with
    ``n_pairs`` pairs and the next of ``seeds`` (one per model, in the order of ``cases``).
    The columns are those of :meth:`ClosedFormComparison.row`, then ``worst |z|`` of the
    mean and the variance. Each case is one task of :func:`attncore.simulate.tasks.run_tasks`
    (``scheduler``) with its own copy of its generator (the caller's are left as they were).

    >>> from attncore.distributions import Independent
    >>> case = {"sample_or_model": Independent(), "mean": 0.0}
    >>> cases = {d: {**case, "var": d, "d": d} for d in (2, 8)}
    >>> table = comparison_table(cases, 5_000, iter([1, 2]))
    >>> list(table.index), bool((table["worst |z|"] < 4).all())
    ([2, 8], True)
    """
    tasks = []
    for case in cases.values():
        model = case["sample_or_model"]
        if isinstance(model, np.ndarray):
            tasks.append(dict(case))
        else:
            seed = next(seeds)  # type: ignore[arg-type]
            seed = copy.deepcopy(seed) if isinstance(seed, np.random.Generator) else seed
            tasks.append({**case, "n_pairs": n_pairs, "seed": seed})
    rows = run_tasks(_comparison_row, tasks, keys=list(cases), scheduler=scheduler)
    return pd.DataFrame.from_dict(dict(zip(cases, rows, strict=True)), orient="index")


def _comparison_row(case: dict[str, Any]) -> dict[str, float]:
    c = compare_with_closed_form(**case)
    return {**c.row(), "worst |z|": c.worst_z()}


_LAWS = ("shared sign", "own signs", "pair swap")


def proposition_5_pairs(
    d_k: int, n_pairs: int, seed: SeedLike
) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Queries ``q ~ N(0, I)`` and the keys of the three counterexamples to Chuang's
    Proposition 5 (:func:`attncore.symbolic.chuang.proposition_5_counterexamples`).

    ``shared sign``: ``k = S q`` with one random sign per pair; ``own signs``:
    ``k_i = S_i q_i``; ``pair swap``: ``k_{2m-1} = q_{2m}``, ``k_{2m} = q_{2m-1}``
    (``d_k`` even). Row ``a`` of the queries goes with row ``a`` of each key matrix.

    >>> q, keys = proposition_5_pairs(4, 3, seed=0)
    >>> sorted(keys), bool((keys["pair swap"][:, 0] == q[:, 1]).all())
    (['own signs', 'pair swap', 'shared sign'], True)
    """
    d_k = positive_int("d_k", d_k, minimum=2)
    if d_k % 2:
        raise ParameterError(f"d_k must be even for the pair swap, got {d_k}")
    n_pairs = positive_int("n_pairs", n_pairs)
    rng = make_rng(seed)
    q = rng.standard_normal((n_pairs, d_k))
    shared = rng.choice([-1.0, 1.0], size=(n_pairs, 1))
    own = rng.choice([-1.0, 1.0], size=(n_pairs, d_k))
    swap = np.arange(d_k).reshape(-1, 2)[:, ::-1].ravel()
    return q, dict(zip(_LAWS, (shared * q, own * q, q[:, swap]), strict=True))


def proposition_5_table(
    d_k: int, n_pairs: int, seed: SeedLike, laws: Sequence[Any]
) -> pd.DataFrame:
    """Each counterexample of ``laws`` simulated (:func:`proposition_5_pairs`) beside its
    closed form, with the z-score against Chuang's ``d_k`` and the largest listed covariance.

    ``laws`` are :class:`attncore.symbolic.chuang.Counterexample` s (``label``, ``law``,
    ``independent_pairs``, ``uncorrelated_vectors``, ``evaluate(d_k)``). Indexed by label; the
    columns ``independent_pairs, uncorrelated_vectors, closed_form, simulated, z_closed_form,
    z_claim`` are those of
    :class:`attncore.evidence.variance.Counterexample`.

    >>> from attncore.symbolic.chuang import proposition_5_counterexamples
    >>> t = proposition_5_table(8, 4_000, 0, proposition_5_counterexamples())
    >>> t["closed_form"].tolist(), bool((t["z_closed_form"].abs() < 4).all())
    ([80.0, 24.0, 16.0], True)
    """
    q, keys = proposition_5_pairs(d_k, n_pairs, seed)
    rows = {}
    for law in laws:
        c = compare_with_closed_form(np.einsum("ij,ij->i", q, keys[law.law]), var=law.evaluate(d_k))
        rows[law.label] = {
            "independent_pairs": law.independent_pairs,
            "uncorrelated_vectors": law.uncorrelated_vectors,
            "closed_form": c.var,
            "simulated": c.estimate.var,
            "se": c.estimate.var_se,
            "z_closed_form": c.z_var,
            "z_claim": c.estimate.z_var(d_k),
            "largest listed |Cov|": largest_listed_covariance(q, keys[law.law]),
        }
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis("law")


def largest_listed_covariance(q: np.ndarray, k: np.ndarray) -> float:
    """The largest ``|sample covariance|`` among the pairs Chuang's Proposition 5 lists:
    ``(q_i, k_i)`` for every ``i``, and ``(q_i, q_j)``, ``(k_i, k_j)`` for ``i != j``.

    >>> q, keys = proposition_5_pairs(4, 20_000, seed=0)
    >>> bool(largest_listed_covariance(q, keys["pair swap"]) < 0.05)
    True
    """
    q = finite_array("q", q, ndim=2)
    k = finite_array("k", k, ndim=2)
    size = q.shape[1]
    joint = np.cov(np.hstack([q, k]), rowvar=False)
    off = ~np.eye(size, dtype=bool)
    cross = np.abs(np.diag(joint[:size, size:]))
    within = np.abs(np.concatenate([joint[:size, :size][off], joint[size:, size:][off]]))
    return float(max(cross.max(), within.max()))


def k_total_ratios(n_keys: int, d: int, budget: int, seed: SeedLike) -> np.ndarray:
    """``k_total / (n sqrt d)`` for independent sets of ``n_keys`` standard normal keys.

    About ``budget / d`` sets (at least 200), and 200 beyond ``d = 256`` to bound memory.

    >>> r = k_total_ratios(8, 16, 4_000, seed=0)
    >>> r.shape, bool(abs(r.mean() - 0.985) < 0.01)
    ((250,), True)
    """
    n_keys, d = positive_int("n_keys", n_keys), positive_int("d", d)
    budget = positive_int("budget", budget)
    sets = max(budget // d, 200) if d <= 256 else 200
    keys = make_rng(seed).standard_normal((sets, n_keys, d))
    return np.linalg.norm(keys, axis=-1).sum(axis=-1) / (n_keys * math.sqrt(d))


def cauchy_schwarz_ratios(queries: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """``|q . k_i| / (k_total ||q||)`` for every query (row) and key: Bernhard bounds it by 1.

    >>> cauchy_schwarz_ratios(np.array([[1.0, 0.0]]), np.array([[2.0, 0.0], [0.0, 1.0]]))
    array([[0.66666667, 0.        ]])
    """
    q = finite_array("queries", queries, ndim=2)
    k = finite_array("keys", keys, ndim=2)
    k_total = np.linalg.norm(k, axis=1).sum()
    return np.abs(q @ k.T) / k_total / np.linalg.norm(q, axis=1)[:, None]


@dataclass(frozen=True)
class HistogramFit:
    """A histogram against the bin probabilities of an exact density (chi-square test)."""

    centres: np.ndarray
    density: np.ndarray
    width: float
    chi_square: float
    bins: int

    @property
    def per_bin(self) -> float:
        """Chi-square per bin used: near 1 when the histogram fits within sampling noise."""
        return self.chi_square / self.bins

    def row(self) -> dict[str, float]:
        """Bins used, chi-square and chi-square per bin, for a table."""
        return {"bins": self.bins, "chi-square": self.chi_square, "chi-square / bins": self.per_bin}


def histogram_chi_square(
    sample: np.ndarray,
    pdf: Callable[[np.ndarray], np.ndarray],
    edges: np.ndarray,
    subdivisions: int = 50,
    min_expected: float = 5.0,
) -> HistogramFit:
    """Histogram of ``sample`` on ``edges`` and its chi-square against ``pdf``.

    Bin probabilities integrate ``pdf`` over each bin by the midpoint rule on
    ``subdivisions`` points per bin (never at a bin edge, where a density may be infinite);
    bins expecting fewer than ``min_expected`` values are left out.

    >>> x = np.random.default_rng(0).standard_normal(20_000)
    >>> fit = histogram_chi_square(x, lambda v: np.exp(-v * v / 2) / np.sqrt(2 * np.pi),
    ...                            np.linspace(-4, 4, 41))
    >>> bool(0.5 < fit.per_bin < 1.6)
    True
    """
    x = finite_array("sample", sample, ndim=1)
    edges = finite_array("edges", edges, ndim=1)
    counts, _ = np.histogram(x, bins=edges)
    width = float(edges[1] - edges[0])
    fine = np.linspace(edges[0], edges[-1], (edges.size - 1) * subdivisions + 1)
    middles = 0.5 * (fine[1:] + fine[:-1])
    probs = np.add.reduceat(pdf(middles) * np.diff(fine), np.arange(0, middles.size, subdivisions))
    expected = probs * x.size
    keep = expected > min_expected
    chi2 = float(((counts[keep] - expected[keep]) ** 2 / expected[keep]).sum())
    return HistogramFit(
        0.5 * (edges[1:] + edges[:-1]), counts / (x.size * width), width, chi2, int(keep.sum())
    )


def scaled_second_moment(table: pd.DataFrame, dim: int) -> pd.Series:
    """``E[(q.k / sqrt(dim))^2] = (mean^2 + variance) / dim`` from the closed-form columns of a
    :func:`comparison_table` (a mean of 0 when the table has no mean column); 1 in the
    footnote's setting.

    >>> t = pd.DataFrame({"mean closed form": [0.0, 8.0], "variance closed form": [64.0, 80.0]})
    >>> scaled_second_moment(t, 64).tolist()
    [1.0, 2.25]
    """
    mean = table["mean closed form"] if "mean closed form" in table else 0.0
    return (mean**2 + table["variance closed form"]) / dim
