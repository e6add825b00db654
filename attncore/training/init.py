"""The two initializations of the reversal model: PyTorch's defaults and a Keras-like one.

Chuang (chuang2023scaling) gives no code; a small model of 2023 written with Keras would
start from Keras's defaults, which are much smaller than PyTorch's:

============  ===============================  ======================================
part          ``"pytorch"``                    ``"keras"``
============  ===============================  ======================================
embeddings    N(0, 1)                          uniform in [-0.05, 0.05]
linear        uniform +-1/sqrt(fan_in)          Glorot uniform +-sqrt(6/(fan_in+fan_out))
biases        uniform +-1/sqrt(fan_in)          0
LayerNorm     gain 1, bias 0                    gain 1, bias 0
============  ===============================  ======================================

The scale matters for attention: with Keras-like embeddings of standard deviation
``0.05/sqrt(3)`` the queries and keys are tiny, so the logits ``q . k / sqrt(d_k)`` are
of order 1e-3 and every attention row starts almost uniform.

>>> import torch
>>> from attncore.training.model import ModelConfig, ReversalTransformer
>>> model = initialize(ReversalTransformer(ModelConfig()), "keras")
>>> bool(model.tokens.weight.abs().max() <= 0.05), model.classifier.bias.abs().max().item()
(True, 0.0)
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
from torch import nn

from attncore.checks import ParameterError

if TYPE_CHECKING:  # pragma: no cover
    from attncore.training.model import ModelConfig

__all__ = ["INITS", "initialize", "predicted_logit_spread"]

INITS = ("pytorch", "keras")
"""The initialization schemes :func:`initialize` knows."""


def initialize(model: nn.Module, scheme: str) -> nn.Module:
    """(Re)initialize every parameter of ``model`` in place with ``scheme``; return it.

    The draws come from torch's global generator: seed it (``torch.manual_seed``) first.
    Modules are visited in registration order, so one seed gives one set of weights.
    Learned scaling parameters (beta, gain) are reset to their starting values, and
    σReparam's gains start at the spectral norms of the fresh weights.

    >>> initialize(nn.Linear(2, 2), "glorot")
    Traceback (most recent call last):
    ...
    attncore.checks.ParameterError: scheme must be one of pytorch, keras, got 'glorot'
    """
    if scheme not in INITS:
        raise ParameterError(f"scheme must be one of {', '.join(INITS)}, got {scheme!r}")
    for module in model.modules():
        if scheme == "keras" and isinstance(module, nn.Embedding):
            nn.init.uniform_(module.weight, -0.05, 0.05)
        elif scheme == "keras" and isinstance(module, nn.Linear):
            nn.init.xavier_uniform_(module.weight)
            if module.bias is not None:
                nn.init.zeros_(module.bias)
        elif hasattr(module, "reset_parameters"):
            module.reset_parameters()
    for module in model.modules():
        if hasattr(module, "start_reparam"):
            module.start_reparam()
    return model


def predicted_logit_spread(config: ModelConfig) -> float:
    """Rough standard deviation of the first layer's scaled logits at initialization.

    Treat every entry as independent with mean 0. A token vector ``x`` (token plus
    position embedding) has entry variance ``v_x = 2 v_e`` (``v_e`` the embedding variance:
    0.05^2/3 Keras-like, 1 PyTorch), or 1 after a LayerNorm. A query or key entry then has
    variance ``v_q = d_model v_x v_W + v_b`` (``v_W``: 2/(fan_in + fan_out) Glorot, 1/(3
    fan_in) PyTorch; ``v_b``: 0 or 1/(3 fan_in)), and ``q . k`` has standard deviation
    ``sqrt(d_k) v_q``. The scaling multiplies it by the registry's factor for ``L`` keys of
    the typical length ``sqrt(d_k v_q)`` (``1/sqrt(d_k)``, ``beta``, ``1/d_k``; ``1/k_total``
    gives about ``sqrt(v_q) / L``); QK-norm gives ``g / sqrt(d_k)`` (the spread of a cosine of
    random vectors). Shared biases and positions correlate the entries, so this is a guide
    to the order of magnitude, to be compared with the measured spread.

    >>> from attncore.training.model import ModelConfig
    >>> round(predicted_logit_spread(ModelConfig(init="keras")), 5)
    0.00167
    >>> round(predicted_logit_spread(ModelConfig(init="pytorch", layer_norm=True)), 3)
    0.354
    """
    d, d_k = config.d_model, config.d_k
    var_embedding = 0.05**2 / 3 if config.init == "keras" else 1.0
    var_x = 1.0 if config.layer_norm else 2 * var_embedding
    if config.init == "keras":
        var_weight, var_bias = 2 / (d + d), 0.0
    else:
        var_weight = var_bias = 1 / (3 * d)
    var_q = d * var_x * var_weight + var_bias
    dot_sd = math.sqrt(d_k) * var_q
    if config.scaling == "learned":
        return (config.beta or 1 / math.sqrt(d_k)) * dot_sd
    # the registry's factor for keys of the typical length sqrt(d_k v_q)
    keys = np.full((config.length, d_k), math.sqrt(var_q))
    factor = config.rescaling.factor_for(keys)
    if config.rescaling.cosine:
        return factor / math.sqrt(d_k)
    return factor * dot_sd
