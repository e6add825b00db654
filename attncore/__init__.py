"""attncore: simulations and symbolic derivations for the book on scaling attention logits.

The names below are the public face; each lives in one module (``attncore.<module>``), which
is where its documentation and tests are.

Softmax and its metrics (:mod:`attncore.softmax`, :mod:`attncore.measures`)
    jacobian, jacobian_frobenius, entropy, effective_keys, max_probability, saturated_share,
    SATURATION_THRESHOLD, query_gradient_norm, distortion; the softmax itself is
    ``attncore.softmax.softmax`` (a top-level ``softmax`` would hide the module of that name)

Rescalings (:mod:`attncore.rescalings`): the one registry
    RESCALINGS, Rescaling, register, get_rescaling, from_callable

Queries and keys (:mod:`attncore.distributions`)
    Independent, Correlated, Projected, Normal, Uniform, Laplace, StudentT

Random streams (:mod:`attncore.random`) and argument checks (:mod:`attncore.checks`)
    make_rng, spawn, stream, ParameterError

Density estimates as R draws them (:mod:`attncore.density`)
    bw_nrd0, kde_values, kde_curve

Simulation (:mod:`attncore.simulate`)
    attention_metrics (the chunked engine), saturation_curve, rescaling_sweep,
    compare_with_closed_form, run_tasks (sweeps as tasks, serially or on Dask)

What the sources print and do (:mod:`attncore.sources`), symbolic derivations
(:mod:`attncore.symbolic`), the string-reversal transformer (:mod:`attncore.training`), the
claims and their verdicts (:mod:`attncore.claims`) and the book machinery (:mod:`attncore.book`)
are subpackages, imported by name.

>>> import attncore
>>> attncore.__version__
'0.1.0'
>>> attncore.softmax.softmax([0.0, 0.0]).tolist()
[0.5, 0.5]
>>> attncore.get_rescaling("sqrt_d").factor_for(attncore.make_rng(0).standard_normal((4, 16)))
0.25
"""

from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _version

from attncore.checks import ParameterError
from attncore.density import bw_nrd0, kde_curve, kde_values
from attncore.distributions import (
    Correlated,
    Independent,
    Laplace,
    Normal,
    Projected,
    StudentT,
    Uniform,
)
from attncore.measures import (
    SATURATION_THRESHOLD,
    distortion,
    max_probability,
    query_gradient_norm,
    saturated_share,
)
from attncore.random import make_rng, spawn, stream
from attncore.rescalings import RESCALINGS, Rescaling, from_callable, get_rescaling, register
from attncore.simulate.engine import attention_metrics
from attncore.simulate.montecarlo import compare_with_closed_form
from attncore.simulate.saturation import saturation_curve
from attncore.simulate.sweep import rescaling_sweep
from attncore.simulate.tasks import run_tasks
from attncore.softmax import effective_keys, entropy, jacobian, jacobian_frobenius

try:
    __version__ = _version("attncore")
except PackageNotFoundError:  # a plain source checkout, not installed
    __version__ = "0.1.0+source"

__all__ = [
    "RESCALINGS",
    "SATURATION_THRESHOLD",
    "Correlated",
    "Independent",
    "Laplace",
    "Normal",
    "ParameterError",
    "Projected",
    "Rescaling",
    "StudentT",
    "Uniform",
    "attention_metrics",
    "bw_nrd0",
    "compare_with_closed_form",
    "distortion",
    "effective_keys",
    "entropy",
    "from_callable",
    "get_rescaling",
    "jacobian",
    "jacobian_frobenius",
    "kde_curve",
    "kde_values",
    "make_rng",
    "max_probability",
    "query_gradient_norm",
    "register",
    "rescaling_sweep",
    "run_tasks",
    "saturated_share",
    "saturation_curve",
    "spawn",
    "stream",
]
