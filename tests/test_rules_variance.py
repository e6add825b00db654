"""Every branch of the verdict rules of "Why sqrt(d)", driven by small synthetic inputs."""

from __future__ import annotations

import sympy as sp
from drivers import Branches, C, Driver, Drivers, F, H, U

from attncore.claims import Verdict
from attncore.claims.rules import variance as rules
from attncore.evidence.variance import Counterexample

d = sp.Symbol("d", positive=True, integer=True)


# --- footnote_variance --------------------------------------------------------------------------


def test_footnote_variance_holds_when_both_routes_agree() -> None:
    f = rules.footnote_variance("vaswani-variance", d - d, {1: 0.5, 64: -2.0}, 4.0, 1000)
    assert f.verdict is Verdict.HOLDS and f.branch == "holds"
    assert f.values == {"ds": (1, 64), "pairs": 1000, "worst": 2.0, "z_limit": 4.0}


def test_footnote_variance_fails_when_the_identity_does_not() -> None:
    f = rules.footnote_variance("vaswani-variance", d / 2, {1: 0.5}, 4.0, 1000)
    assert f.verdict is Verdict.FAILS and f.values["residual"] == "d/2"


def test_footnote_variance_untestable_when_the_routes_disagree() -> None:
    f = rules.footnote_variance("blog-scaled-variance", sp.Integer(0), {4: 9.0}, 4.0, 1000)
    assert f.verdict is Verdict.UNTESTABLE and f.values["worst"] == 9.0


def test_footnote_variance_simplifies_the_residual() -> None:
    residual = sp.sin(d) ** 2 + sp.cos(d) ** 2 - 1
    assert rules.footnote_variance("vaswani-variance", residual, {1: 0}, 4, 10).verdict is (
        Verdict.HOLDS
    )


# --- chuang_proposition -------------------------------------------------------------------------


def test_chuang_proposition_holds_fails_and_untestable() -> None:
    a = sp.Symbol("a")
    holds = rules.chuang_proposition(3, {"x": (a + 1) ** 2 - a**2 - 2 * a - 1})
    assert holds.verdict is Verdict.HOLDS and holds.values["lines"] == (1, 1)
    two = rules.chuang_proposition(3, {"x": sp.Integer(0), "y, any z": sp.Integer(0)})
    assert two.values == {"lines": (2, 2), "names": [{"name": "x"}, {"name": "y, any z"}]}
    fails = rules.chuang_proposition(4, {"x": sp.Integer(0), "y": a})
    assert fails.verdict is Verdict.FAILS
    assert fails.values["failed"] == [{"name": "y", "residual": "a"}]
    assert rules.chuang_proposition(1, {}).verdict is Verdict.UNTESTABLE


def test_measured_texts_are_plain_language() -> None:
    from attncore.claims.saying import sentence
    from attncore.symbolic import chuang_propositions

    for number, p in enumerate(chuang_propositions()[:4], start=1):
        said = sentence(rules.chuang_proposition(number, p.residuals()))
        assert "Eq(" not in said and "True" not in said and "E[X]**2" not in said
    f = rules.footnote_variance("vaswani-variance", d - d, {1: 0.5}, 4.0, 1000)
    assert "Eq(" not in sentence(f)


def test_chuang_proposition_from_the_real_derivations() -> None:
    from attncore.symbolic import chuang_propositions

    for number, p in enumerate(chuang_propositions()[:4], start=1):
        assert rules.chuang_proposition(number, p.residuals()).verdict is Verdict.HOLDS


# --- chuang_proposition_5 -----------------------------------------------------------------------

DEPENDENT = Counterexample("own signs", False, True, 48.0, 48.5, 0.4, 30.0)
INDEPENDENT = Counterexample("pair swap", True, False, 32.0, 31.7, -0.6, 20.0)
HARMLESS = Counterexample("harmless", True, True, 16.0, 16.1, 0.2, 0.2)
BAD = Counterexample("bad", True, False, 32.0, 40.0, 9.0, 20.0)


def test_proposition_5_fails_on_a_counterexample_with_independent_pairs() -> None:
    f = rules.chuang_proposition_5([DEPENDENT, INDEPENDENT], 16, 4.0)
    assert f.verdict is Verdict.FAILS
    assert [law["independent"] for law in f.values["laws"]] == [False, True]


def test_proposition_5_caveat_when_only_dependent_pairs_break_it() -> None:
    f = rules.chuang_proposition_5([DEPENDENT, HARMLESS], 16, 4.0)
    assert f.verdict is Verdict.CAVEAT and f.branch == "caveat"


def test_proposition_5_holds_when_nothing_breaks_it() -> None:
    assert rules.chuang_proposition_5([HARMLESS], 16, 4.0).verdict is Verdict.HOLDS


def test_proposition_5_untestable_when_a_simulation_misses_its_closed_form() -> None:
    assert rules.chuang_proposition_5([BAD, DEPENDENT], 16, 4.0).verdict is Verdict.UNTESTABLE


def test_counterexample_breaks_needs_all_three_conditions() -> None:
    assert INDEPENDENT.breaks(16, 4.0)
    assert not HARMLESS.breaks(16, 4.0)  # closed form equals the claim
    assert not Counterexample("x", True, False, 32.0, 31.0, 5.0, 20.0).breaks(16, 4.0)
    assert not Counterexample("x", True, False, 32.0, 31.0, 0.1, 3.0).breaks(16, 4.0)


# --- relaxed_variance ---------------------------------------------------------------------------


def test_relaxed_variance_holds_with_the_self_factor_as_a_note() -> None:
    f = rules.relaxed_variance([0.5, -1.0], [0.3, 5.0], 1.125, 16, 16, 4.0)
    assert f.verdict is Verdict.HOLDS
    assert f.values["self_factor"] == 1.125 and f.values["worst_self"] == 5.0


def test_relaxed_variance_fails_when_two_tokens_miss_the_formula() -> None:
    f = rules.relaxed_variance([0.5, 6.0], [0.3], 1.125, 16, 16, 4.0)
    assert f.verdict is Verdict.FAILS


# --- cauchy_schwarz -----------------------------------------------------------------------------


def test_cauchy_schwarz_holds_and_fails() -> None:
    ok = rules.cauchy_schwarz({"a": 0.2, "b": 1.0}, {"a": 0.01, "b": 0.02}, 0.01, 64)
    assert ok.verdict is Verdict.HOLDS
    assert ok.values["laws"][0] == {"law": "a", "largest": 0.2, "mean": 0.01}
    bad = rules.cauchy_schwarz({"a": 1.01}, {"a": 0.01}, 0.01, 64)
    assert bad.verdict is Verdict.FAILS


# --- n_sqrt_d_normal ----------------------------------------------------------------------------


def test_n_sqrt_d_every_branch() -> None:
    z = {1: 0.1, 16: 0.2, 64: -0.3}
    holds = rules.n_sqrt_d_normal({1: 0.97, 16: 0.99, 64: 1.0}, z, 32, 4.0)
    assert holds.verdict is Verdict.HOLDS
    caveat = rules.n_sqrt_d_normal({1: 0.80, 16: 0.985, 64: 0.996}, z, 32, 4.0)
    assert caveat.verdict is Verdict.CAVEAT and caveat.values["off"] == [1]
    fails = rules.n_sqrt_d_normal({1: 0.80, 16: 0.90, 64: 0.996}, z, 32, 4.0)
    assert fails.verdict is Verdict.FAILS
    untestable = rules.n_sqrt_d_normal({16: 0.985}, {16: 7.0}, 32, 4.0)
    assert untestable.verdict is Verdict.UNTESTABLE


# --- readings ----------------------------------------------------------------------------------


def test_moments_fit_both_ways() -> None:
    assert rules.moments_fit(1.0, 4.0).branch == "within"
    assert rules.moments_fit(5.0, 4.0).branch == "beyond"


def test_counterexample_reading_every_branch() -> None:
    broken = rules.counterexample_reading([DEPENDENT, INDEPENDENT], 16, 4.0)
    assert broken.branch == "including" and broken.values["broken"] == (2, 2)
    only_dependent = rules.counterexample_reading([DEPENDENT, HARMLESS], 16, 4.0)
    assert only_dependent.branch == "dependent" and only_dependent.values["broken"] == (1, 2)
    assert rules.counterexample_reading([INDEPENDENT], 16, 4.0).branch == "one-law"
    assert rules.counterexample_reading([HARMLESS], 16, 4.0).branch == "none"


def test_projection_reading_both_ways() -> None:
    assert rules.projection_reading(1.0, 4.0).branch == "exact"
    assert rules.projection_reading(6.0, 4.0).branch == "off"


def test_other_reasons_reading_every_branch() -> None:
    both = rules.other_reasons_reading({"means": 5.5, "weights": 256.0})
    assert both.branch == "each" and both.values["reasons"] == 2
    assert rules.other_reasons_reading({"means": 5.5}).branch == "one"
    assert rules.other_reasons_reading({"means": 1.0}).branch == "none"
    some = rules.other_reasons_reading({"means": 5.5, "alignment": 1.0})
    assert some.branch == "some" and some.values["flat"] == ["alignment"]


def test_key_length_reading_picks_the_smallest_d_from_16() -> None:
    assert rules.key_length_reading({4: 0.9, 32: 0.99}, {4: 0.1, 32: 0.01}).values["d"] == 32
    assert rules.key_length_reading({4: 0.9}, {4: 0.1}).values["d"] == 4


def test_bound_reading_both_ways() -> None:
    assert rules.bound_reading(0.1, 0.003, 0.003).branch == "within"
    above = rules.bound_reading(1.2, 0.01, 0.003)
    assert above.branch == "exceeds" and not above.values["near"]


# --- the blog's derivation --------------------------------------------------------------------


def test_blog_derivation_holds_on_the_real_lines_and_fails_on_a_wrong_one() -> None:
    from attncore.symbolic.variance import blog_derivation_checks

    residuals = {c.name: c.residual for c in blog_derivation_checks()}
    assert rules.proof_lines("blog-variance-derivation", residuals).verdict is Verdict.HOLDS
    wrong = {**residuals, "the mean stays 0": d}
    fails = rules.proof_lines("blog-variance-derivation", wrong)
    assert fails.verdict is Verdict.FAILS
    assert [line["name"] for line in fails.values["failed"]] == ["the mean stays 0"]
    assert rules.proof_lines("blog-variance-derivation", {}).verdict is Verdict.UNTESTABLE


# --- Chuang's any scalar product ----------------------------------------------------------------


def test_any_scalar_product_every_branch() -> None:
    assert rules.any_scalar_product(0.5, 1.0, 8.0, 1.125, 16, 4.0).verdict is Verdict.HOLDS
    caveat = rules.any_scalar_product(0.5, 9.0, 0.3, 1.125, 16, 4.0)
    assert caveat.verdict is Verdict.CAVEAT and caveat.branch == "caveat-itself"
    assert rules.any_scalar_product(6.0, 1.0, 1.0, 1.125, 16, 4.0).verdict is Verdict.FAILS
    assert rules.any_scalar_product(0.5, 9.0, 7.0, 1.125, 16, 4.0).verdict is Verdict.UNTESTABLE


def test_any_scalar_product_reads_the_counterexamples_against_assumption_iv() -> None:
    # The pair swap correlates q_i with k_j: assumption (iv) excludes it, whatever it gives.
    excluded = rules.any_scalar_product(0.5, 1.0, 8.0, 1.125, 16, 4.0, [INDEPENDENT, HARMLESS])
    assert excluded.verdict is Verdict.HOLDS
    assert excluded.values["excluded"] == [{"labels": ["pair swap"]}]
    # Uncorrelated but dependent laws meet (iv) only under the covariance reading.
    dependent = rules.any_scalar_product(0.5, 1.0, 8.0, 1.125, 16, 4.0, [DEPENDENT])
    assert dependent.verdict is Verdict.CAVEAT
    assert dependent.branch == "caveat" and not dependent.values["itself"]
    assert dependent.values["laws"] == [{"label": "own signs", "simulated": 48.5}]
    # Different tokens missing d_k fail whatever the counterexamples say.
    failed = rules.any_scalar_product(6.0, 1.0, 8.0, 1.125, 16, 4.0, [HARMLESS])
    assert failed.verdict is Verdict.FAILS


# --- Chuang's necessary assumptions -------------------------------------------------------------


def test_assumptions_necessary_every_branch() -> None:
    exact, off = sp.Integer(0), d / 3
    assert rules.assumptions_necessary({"law": (exact, 0.5)}, 4.0).verdict is Verdict.FAILS
    assert rules.assumptions_necessary({"law": (off, 30.0)}, 4.0).verdict is Verdict.HOLDS
    assert rules.assumptions_necessary({"law": (exact, 9.0)}, 4.0).verdict is Verdict.UNTESTABLE
    assert rules.assumptions_necessary({}, 4.0).verdict is Verdict.UNTESTABLE


# --- Bernhard's other reasons -------------------------------------------------------------------


def test_other_reasons_every_branch() -> None:
    z = {"means": 0.1, "weights": 0.2}
    assert rules.other_reasons({"means": 1.5, "weights": 16.0}, z, 4).verdict is Verdict.HOLDS
    caveat = rules.other_reasons({"means": 1.0, "weights": 16.0}, z, 4)
    assert caveat.verdict is Verdict.CAVEAT and caveat.values["flat"] == ["means"]
    assert rules.other_reasons({"means": 1.0, "weights": 1.02}, z, 4).verdict is Verdict.FAILS
    bad = rules.other_reasons({"means": 1.5}, {"means": 7.0}, 4)
    assert bad.verdict is Verdict.UNTESTABLE
    assert rules.other_reasons({}, {}, 4).verdict is Verdict.UNTESTABLE


# --- propositions_reading, density_fit ---------------------------------------------------------


def test_propositions_reading_holds_when_every_proof_does() -> None:
    ok = rules.proof_lines("chuang-proposition-1", {"line": sp.Integer(0)})
    held = rules.propositions_reading({n: ok for n in (1, 2, 3, 4)})
    assert held.branch == "hold" and held.values == {"span": (1, 4)}


def test_propositions_reading_names_the_one_that_fails() -> None:
    ok = rules.proof_lines("chuang-proposition-1", {"line": sp.Integer(0)})
    bad = rules.proof_lines("chuang-proposition-3", {"line": d})
    held = rules.propositions_reading({1: ok, 2: ok, 3: bad, 4: ok})
    assert held.branch == "not-all"
    assert held.values["failed"] == [{"number": 3, "verdict": "does not hold"}]


def test_density_fit_fits_within_noise() -> None:
    fit = rules.density_fit({1: (42.0, 40), 64: (35.0, 40)}, 4.0)
    assert fit.branch == "fits" and [f["d"] for f in fit.values["fits"]] == [1, 64]


def test_density_fit_names_the_misfit() -> None:
    # 40 bins: standard deviation sqrt(80) ~ 8.9; 80 is 4.5 of them above 40
    fit = rules.density_fit({1: (80.0, 40), 64: (41.0, 40)}, 4.0)
    assert fit.branch == "departs" and [f["d"] for f in fit.values["misfits"]] == [1]


# --- reachability drivers ---------------------------------------------------------------------


def footnote(claim: str) -> dict[Verdict, Driver]:
    return {
        H: lambda: rules.footnote_variance(claim, sp.Integer(0), {4: 0.5}, 4.0, 100),
        F: lambda: rules.footnote_variance(claim, d - 1, {4: 0.5}, 4.0, 100),
        U: lambda: rules.footnote_variance(claim, sp.Integer(0), {4: 9.0}, 4.0, 100),
    }


def proposition(number: int) -> dict[Verdict, Driver]:
    return {
        H: lambda: rules.chuang_proposition(number, {"line": sp.Integer(0)}),
        F: lambda: rules.chuang_proposition(number, {"line": d}),
        U: lambda: rules.chuang_proposition(number, {}),
    }


DRIVERS: Drivers = {
    "vaswani-variance": footnote("vaswani-variance"),
    "blog-scaled-variance": footnote("blog-scaled-variance"),
    "chuang-temperature-sd": footnote("chuang-temperature-sd"),
    "blog-variance-derivation": {
        H: lambda: rules.proof_lines("blog-variance-derivation", {"l": sp.Integer(0)}),
        F: lambda: rules.proof_lines("blog-variance-derivation", {"l": d}),
        U: lambda: rules.proof_lines("blog-variance-derivation", {}),
    },
    **{f"chuang-proposition-{n}": proposition(n) for n in (1, 2, 3, 4)},
    "chuang-proposition-5": {
        H: lambda: rules.chuang_proposition_5([HARMLESS], 16, 4.0),
        C: lambda: rules.chuang_proposition_5([DEPENDENT], 16, 4.0),
        F: lambda: rules.chuang_proposition_5([INDEPENDENT], 16, 4.0),
        U: lambda: rules.chuang_proposition_5([BAD], 16, 4.0),
    },
    "chuang-relaxed-variance": {
        H: lambda: rules.relaxed_variance([0.3], [0.2], 1.125, 16, 16, 4.0),
        F: lambda: rules.relaxed_variance([9.0], [0.2], 1.125, 16, 16, 4.0),
        U: lambda: rules.relaxed_variance([], [], 1.125, 16, 16, 4.0),
    },
    "chuang-any-scalar-product-dk": {
        H: lambda: rules.any_scalar_product(0.5, 0.3, 9.0, 1.125, 16, 4.0),
        C: lambda: rules.any_scalar_product(0.5, 9.0, 0.3, 1.125, 16, 4.0),
        F: lambda: rules.any_scalar_product(9.0, 0.3, 0.3, 1.125, 16, 4.0),
        U: lambda: rules.any_scalar_product(0.5, 9.0, 9.0, 1.125, 16, 4.0),
    },
    "chuang-assumptions-necessary": {
        H: lambda: rules.assumptions_necessary({"law": (d, 0.5)}, 4.0),
        F: lambda: rules.assumptions_necessary({"law": (sp.Integer(0), 0.5)}, 4.0),
        U: lambda: rules.assumptions_necessary({}, 4.0),
    },
    "bernhard-other-reasons-large-dots": {
        H: lambda: rules.other_reasons({"a": 1.5, "b": 16.0}, {"a": 0.1, "b": 0.1}, 4.0),
        C: lambda: rules.other_reasons({"a": 1.5, "b": 1.0}, {"a": 0.1, "b": 0.1}, 4.0),
        F: lambda: rules.other_reasons({"a": 1.0}, {"a": 0.1}, 4.0),
        U: lambda: rules.other_reasons({}, {}, 4.0),
    },
    "bernhard-cauchy-schwarz": {
        H: lambda: rules.cauchy_schwarz({"n": 0.02}, {"n": 0.003}, 0.003, 64),
        F: lambda: rules.cauchy_schwarz({"n": 1.5}, {"n": 0.003}, 0.003, 64),
        U: lambda: rules.cauchy_schwarz({}, {}, 0.003, 64),
    },
    "bernhard-n-sqrt-d-normal": {
        H: lambda: rules.n_sqrt_d_normal({16: 0.99, 64: 1.0}, {16: 0.1, 64: 0.1}, 32, 4.0),
        C: lambda: rules.n_sqrt_d_normal({1: 0.8, 16: 0.99}, {1: 0.1, 16: 0.1}, 32, 4.0),
        F: lambda: rules.n_sqrt_d_normal({16: 0.8}, {16: 0.1}, 32, 4.0),
        U: lambda: rules.n_sqrt_d_normal({16: 0.99}, {16: 9.0}, 32, 4.0),
    },
}
"""Per claim of the chapters "Why sqrt(d)" and its appendix: for each verdict its rule can
return, an input that returns it (collected by ``tests/test_reachability.py``)."""

BRANCHES: Branches = {
    "chuang-any-scalar-product-dk": {
        "caveat": lambda: rules.any_scalar_product(
            0.5, 9.0, 0.3, 1.125, 16, 4.0, [DEPENDENT, INDEPENDENT]
        ),
    },
    "chuang-assumptions-necessary": {
        "untestable": lambda: rules.assumptions_necessary({"law": (sp.Integer(0), 9.0)}, 4.0),
    },
    "bernhard-other-reasons-large-dots": {
        "untestable": lambda: rules.other_reasons({"a": 1.5}, {"a": 9.0}, 4.0),
    },
}
"""Per claim of the same chapters: for each branch of its rule that no verdict's driver
takes, an input that takes it (a counterexample that breaks it, a simulation that disagrees
with its closed form)."""
