"""Training small transformers on sequence tasks, Chuang's string reversal first (needs the
``torch`` extra).

One concern per module:

- :mod:`~attncore.training.data`: sequence tasks (targets per position, some ignored) and the
  reversal data set from a seed;
- :mod:`~attncore.training.model`: the model, with the attention scalings as modules;
- :mod:`~attncore.training.init`: PyTorch's and a Keras-like initialization;
- :mod:`~attncore.training.train`: one run alone (the reference loop), evaluation and attention
  measurements;
- :mod:`~attncore.training.engine`: the arithmetic of many stacked models, compiled or eager;
- :mod:`~attncore.training.ensemble`: runs of one shape trained together, and a cache of runs;
- :mod:`~attncore.training.search`: Chuang's beta search with a short training budget;
- :mod:`~attncore.training.experiment`: methods x seeds, and tables of the results.

>>> from attncore.training import ModelConfig, parameter_count
>>> parameter_count(ModelConfig())
4741
"""

from __future__ import annotations

try:
    import torch  # noqa: F401
except ImportError as error:  # pragma: no cover - depends on the installation
    raise ImportError(
        "attncore.training needs PyTorch: pip install 'attncore[torch]' (torch==2.13.0)"
    ) from error

from attncore.training.data import (
    IGNORE,
    ReversalData,
    SequenceData,
    check_reversed,
    reversal_data,
    shared_strings,
)
from attncore.training.engine import ENGINES, Engine, resolve_engine
from attncore.training.ensemble import RunSpec, train_runs
from attncore.training.experiment import (
    METHODS,
    SETUPS,
    curves_frame,
    evaluations_frame,
    init_table,
    method_configs,
    parameter_table,
    run_methods,
    runs_frame,
    scan_table,
    search_table,
    summary_frame,
    train_setups,
    training_cost,
)
from attncore.training.init import INITS, initialize, predicted_logit_spread
from attncore.training.model import (
    ModelConfig,
    ModelScaling,
    ReversalTransformer,
    make_scaling,
    model_scalings,
    parameter_count,
)
from attncore.training.search import STRATEGIES, BetaSearchRun, search_beta, search_betas
from attncore.training.train import (
    DEVICES,
    TrainResult,
    accuracy,
    attention_summary,
    build_model,
    learned_scales,
    resolve_device,
    train_reversal,
    weight_sds,
)

__all__ = [
    "DEVICES",
    "ENGINES",
    "IGNORE",
    "INITS",
    "METHODS",
    "SETUPS",
    "STRATEGIES",
    "BetaSearchRun",
    "Engine",
    "ModelConfig",
    "ModelScaling",
    "ReversalData",
    "ReversalTransformer",
    "RunSpec",
    "SequenceData",
    "TrainResult",
    "accuracy",
    "attention_summary",
    "build_model",
    "check_reversed",
    "curves_frame",
    "evaluations_frame",
    "init_table",
    "initialize",
    "learned_scales",
    "make_scaling",
    "method_configs",
    "model_scalings",
    "parameter_count",
    "parameter_table",
    "predicted_logit_spread",
    "resolve_device",
    "resolve_engine",
    "reversal_data",
    "run_methods",
    "runs_frame",
    "scan_table",
    "search_beta",
    "search_betas",
    "search_table",
    "shared_strings",
    "summary_frame",
    "train_reversal",
    "train_runs",
    "train_setups",
    "training_cost",
    "weight_sds",
]
