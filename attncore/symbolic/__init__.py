"""Symbolic derivations of the book: every result derived with its assumptions explicit.

Each function returns a :class:`Derivation` (statement, LaTeX, assumptions, named
steps, and for a claim of a source text a verdict); dimensions such as ``d`` stay
symbols. Results are cached, so a notebook can call them freely.

=========================================  ==========================================
item of the issue                          functions
=========================================  ==========================================
1. Var(q.k) = d                            :func:`dot_product_variance`
2. general moments, scaled logit, blog     :func:`dot_product_mean`,
                                           :func:`dot_product_variance_general`,
                                           :func:`scaled_logit_variance`,
                                           :func:`blog_derivation_checks`
3. normal components                       :func:`normal_dot_product_mgf`,
                                           :func:`normal_dot_product_kurtosis`,
                                           :func:`normal_dot_product_characteristic_function`,
                                           :func:`normal_dot_product_density`,
                                           :func:`normal_dot_product_pdf` (numeric)
4. Chuang                                  :func:`chuang_propositions`,
                                           :func:`projected_dot_variance`,
                                           :func:`self_attention_variance_ratio`,
                                           :func:`projected_dot_variance_given_weights`,
                                           :func:`projected_logit_moments` (numeric)
5. key length, k_total                     :func:`expected_key_length`,
                                           :func:`key_length_expansion`,
                                           :func:`key_length_variance`,
                                           :func:`k_total_approximation`
6. softmax Jacobian, Cauchy-Schwarz        :func:`softmax_jacobian`,
                                           :func:`softmax_jacobian_trace`,
                                           :func:`softmax_jacobian_frobenius`,
                                           :func:`cauchy_schwarz_bound`
7. correlated queries and keys (muP)       :func:`correlated_dot_mean`,
                                           :func:`correlated_dot_variance`,
                                           :func:`correlated_logit_scaling`
8. critical scale (exact simplex)          :func:`simplex_self_weight`,
                                           :func:`critical_self_weight`,
                                           :func:`critical_gamma`,
                                           :func:`limit_angle_cosine`,
                                           :func:`limit_angle_ratio`
=========================================  ==========================================

>>> from attncore.symbolic import dot_product_variance
>>> print(dot_product_variance().latex)
\\operatorname{Var}\\left(\\sum_{i=1}^{d} {k}_{i} {q}_{i}\\right) = d
"""

from attncore.symbolic.chuang import chuang_propositions, proposition_5_counterexamples
from attncore.symbolic.correlated import (
    correlated_dot_mean,
    correlated_dot_variance,
    correlated_logit_scaling,
    correlated_moments,
)
from attncore.symbolic.critical import (
    critical_gamma,
    critical_self_weight,
    limit_angle_cosine,
    limit_angle_ratio,
    simplex_self_weight,
)
from attncore.symbolic.derivation import Check, Derivation, Step
from attncore.symbolic.jacobian import (
    cauchy_schwarz_bound,
    softmax_jacobian,
    softmax_jacobian_frobenius,
    softmax_jacobian_trace,
)
from attncore.symbolic.key_length import (
    expected_key_length,
    k_total_approximation,
    key_length_expansion,
    key_length_variance,
)
from attncore.symbolic.normal_product import (
    normal_dot_product_characteristic_function,
    normal_dot_product_density,
    normal_dot_product_kurtosis,
    normal_dot_product_mgf,
    normal_dot_product_pdf,
    normal_scaled_logit_pdf,
)
from attncore.symbolic.projected import (
    projected_dot_variance,
    projected_dot_variance_given_weights,
    projected_logit_moments,
    self_attention_variance_ratio,
)
from attncore.symbolic.variance import (
    blog_derivation_checks,
    dot_product_mean,
    dot_product_variance,
    dot_product_variance_general,
    general_moments,
    scaled_logit_variance,
)

__all__ = [
    "Check",
    "Derivation",
    "Step",
    "blog_derivation_checks",
    "cauchy_schwarz_bound",
    "chuang_propositions",
    "correlated_dot_mean",
    "correlated_dot_variance",
    "correlated_logit_scaling",
    "correlated_moments",
    "critical_gamma",
    "critical_self_weight",
    "dot_product_mean",
    "dot_product_variance",
    "dot_product_variance_general",
    "expected_key_length",
    "general_moments",
    "k_total_approximation",
    "key_length_expansion",
    "key_length_variance",
    "limit_angle_cosine",
    "limit_angle_ratio",
    "normal_dot_product_characteristic_function",
    "normal_dot_product_density",
    "normal_dot_product_kurtosis",
    "normal_dot_product_mgf",
    "normal_dot_product_pdf",
    "normal_scaled_logit_pdf",
    "projected_dot_variance",
    "projected_dot_variance_given_weights",
    "projected_logit_moments",
    "proposition_5_counterexamples",
    "scaled_logit_variance",
    "self_attention_variance_ratio",
    "simplex_self_weight",
    "softmax_jacobian",
    "softmax_jacobian_frobenius",
    "softmax_jacobian_trace",
]
