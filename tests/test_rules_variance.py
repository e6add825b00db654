"""Every branch of the verdict rules of "Why sqrt(d)", driven by small synthetic inputs."""

from __future__ import annotations

import sympy as sp

from attncore.claims import Verdict
from attncore.claims.rules import variance as rules
from attncore.claims.rules.variance import Counterexample

d = sp.Symbol("d", positive=True, integer=True)


# --- footnote_variance --------------------------------------------------------------------------


def test_footnote_variance_holds_when_both_routes_agree() -> None:
    f = rules.footnote_variance("vaswani-variance", d - d, {1: 0.5, 64: -2.0}, 4.0, 1000)
    assert f.verdict is Verdict.HOLDS
    assert "within 2.00 standard errors" in f.measured


def test_footnote_variance_names_its_form_and_refers_to_a_simulation_reported_before() -> None:
    f = rules.footnote_variance(
        "blog-scaled-variance", d - d, {1: 0.5}, 4.0, 1000, "Var(q·k/√d) = 1", "the footnote"
    )
    assert "gives Var(q·k/√d) = 1" in f.measured
    assert "the one reported for the footnote" in f.measured and "standard errors" not in f.measured


def test_footnote_variance_fails_when_the_identity_does_not() -> None:
    f = rules.footnote_variance("vaswani-variance", d / 2, {1: 0.5}, 4.0, 1000)
    assert f.verdict is Verdict.FAILS
    assert r"$\frac{d}{2}$" in f.measured and "misses" in f.measured


def test_footnote_variance_untestable_when_the_routes_disagree() -> None:
    f = rules.footnote_variance("blog-scaled-variance", sp.Integer(0), {4: 9.0}, 4.0, 1000)
    assert f.verdict is Verdict.UNTESTABLE
    assert "disagree" in f.measured


def test_footnote_variance_simplifies_the_residual() -> None:
    residual = sp.sin(d) ** 2 + sp.cos(d) ** 2 - 1
    assert rules.footnote_variance("vaswani-variance", residual, {1: 0}, 4, 10).verdict is (
        Verdict.HOLDS
    )


# --- chuang_proposition -------------------------------------------------------------------------


def test_chuang_proposition_holds_fails_and_untestable() -> None:
    a = sp.Symbol("a")
    holds = rules.chuang_proposition(3, {"x": (a + 1) ** 2 - a**2 - 2 * a - 1})
    assert (
        holds.verdict is Verdict.HOLDS and "its one line (x) simplifies to zero" in holds.measured
    )
    two = rules.chuang_proposition(3, {"x": sp.Integer(0), "y, any z": sp.Integer(0)})
    assert "both of its lines (x; y, any z)" in two.measured
    fails = rules.chuang_proposition(4, {"x": sp.Integer(0), "y": a})
    assert (
        fails.verdict is Verdict.FAILS and '"y"' in fails.measured and '"x"' not in fails.measured
    )
    assert rules.chuang_proposition(1, {}).verdict is Verdict.UNTESTABLE


def test_measured_texts_are_plain_language() -> None:
    from attncore.symbolic import chuang_propositions

    for number, p in enumerate(chuang_propositions()[:4], start=1):
        measured = rules.chuang_proposition(number, p.residuals()).measured
        assert "Eq(" not in measured and "True" not in measured and "E[X]**2" not in measured
    f = rules.footnote_variance("vaswani-variance", d - d, {1: 0.5}, 4.0, 1000)
    assert "simplifies to zero" in f.measured and "Eq(" not in f.measured


def test_chuang_proposition_from_the_real_derivations() -> None:
    from attncore.symbolic import chuang_propositions

    for number, p in enumerate(chuang_propositions()[:4], start=1):
        assert rules.chuang_proposition(number, p.residuals()).verdict is Verdict.HOLDS


# --- chuang_proposition_5 -----------------------------------------------------------------------

DEPENDENT = Counterexample("own signs", False, True, 48.0, 48.5, 0.4, 30.0)
INDEPENDENT = Counterexample("pair swap", True, False, 32.0, 31.7, -0.6, 20.0)
HARMLESS = Counterexample("harmless", True, True, 16.0, 16.1, 0.2, 0.2)


def test_proposition_5_fails_on_a_counterexample_with_independent_pairs() -> None:
    f = rules.chuang_proposition_5([DEPENDENT, INDEPENDENT], 16, 4.0)
    assert f.verdict is Verdict.FAILS
    assert "pair swap (every listed pair independent)" in f.measured


def test_proposition_5_caveat_when_only_dependent_pairs_break_it() -> None:
    f = rules.chuang_proposition_5([DEPENDENT, HARMLESS], 16, 4.0)
    assert f.verdict is Verdict.CAVEAT
    assert "zero covariances" in f.measured


def test_proposition_5_holds_when_nothing_breaks_it() -> None:
    assert rules.chuang_proposition_5([HARMLESS], 16, 4.0).verdict is Verdict.HOLDS


def test_proposition_5_untestable_when_a_simulation_misses_its_closed_form() -> None:
    bad = Counterexample("bad", True, False, 32.0, 40.0, 9.0, 20.0)
    assert rules.chuang_proposition_5([bad, DEPENDENT], 16, 4.0).verdict is Verdict.UNTESTABLE


def test_counterexample_breaks_needs_all_three_conditions() -> None:
    assert INDEPENDENT.breaks(16, 4.0)
    assert not HARMLESS.breaks(16, 4.0)  # closed form equals the claim
    assert not Counterexample("x", True, False, 32.0, 31.0, 5.0, 20.0).breaks(16, 4.0)
    assert not Counterexample("x", True, False, 32.0, 31.0, 0.1, 3.0).breaks(16, 4.0)


# --- relaxed_variance ---------------------------------------------------------------------------


def test_relaxed_variance_holds_with_the_self_factor_as_a_note() -> None:
    f = rules.relaxed_variance([0.5, -1.0], [0.3, 5.0], 1.125, 16, 16, 4.0)
    assert f.verdict is Verdict.HOLDS
    assert "1.1250 times his formula" in f.measured and "within 5.0 standard errors" in f.measured


def test_relaxed_variance_fails_when_two_tokens_miss_the_formula() -> None:
    f = rules.relaxed_variance([0.5, 6.0], [0.3], 1.125, 16, 16, 4.0)
    assert f.verdict is Verdict.FAILS


# --- cauchy_schwarz -----------------------------------------------------------------------------


def test_cauchy_schwarz_holds_and_fails() -> None:
    ok = rules.cauchy_schwarz({"a": 0.2, "b": 1.0}, {"a": 0.01, "b": 0.02}, 0.01, 64)
    assert ok.verdict is Verdict.HOLDS and "a: largest ratio 0.200" in ok.measured
    bad = rules.cauchy_schwarz({"a": 1.01}, {"a": 0.01}, 0.01, 64)
    assert bad.verdict is Verdict.FAILS


# --- n_sqrt_d_normal ----------------------------------------------------------------------------


def test_n_sqrt_d_every_branch() -> None:
    z = {1: 0.1, 16: 0.2, 64: -0.3}
    holds = rules.n_sqrt_d_normal({1: 0.97, 16: 0.99, 64: 1.0}, z, 32, 4.0)
    assert holds.verdict is Verdict.HOLDS
    caveat = rules.n_sqrt_d_normal({1: 0.80, 16: 0.985, 64: 0.996}, z, 32, 4.0)
    assert caveat.verdict is Verdict.CAVEAT and "below d = 16 (d = 1)" in caveat.measured
    fails = rules.n_sqrt_d_normal({1: 0.80, 16: 0.90, 64: 0.996}, z, 32, 4.0)
    assert fails.verdict is Verdict.FAILS
    untestable = rules.n_sqrt_d_normal({16: 0.985}, {16: 7.0}, 32, 4.0)
    assert untestable.verdict is Verdict.UNTESTABLE


# --- sentences ----------------------------------------------------------------------------------


def test_moments_sentence_both_ways() -> None:
    assert "is within 1.0 standard errors" in rules.moments_sentence(1.0, 4.0, "at d = 8")
    assert rules.moments_sentence(1.0, 4.0, "at d = 8").startswith("At d = 8")
    assert "beyond the pass mark of 4" in rules.moments_sentence(5.0, 4.0, "at d = 8")


def test_counterexample_sentence_both_ways() -> None:
    broken = rules.counterexample_sentence([DEPENDENT, INDEPENDENT], 16, 4.0)
    assert "both laws" in broken and "every listed pair is independent" in broken
    only_dependent = rules.counterexample_sentence([DEPENDENT, HARMLESS], 16, 4.0)
    assert "one of the two laws" in only_dependent and "independent" not in only_dependent
    assert not any(char.isdigit() for char in broken.replace("d_k = 16", ""))
    assert "no law" in rules.counterexample_sentence([HARMLESS], 16, 4.0)


def test_projection_sentence_both_ways() -> None:
    assert "exact, not approximate" in rules.projection_sentence(1.0, 4.0)
    off = rules.projection_sentence(6.0, 4.0)
    assert "exact" not in off and "beyond the pass mark" in off


def test_agreement_and_other_reasons_sentences_leave_the_numbers_to_the_verdict_line() -> None:
    assert "agrees" in rules.agreement_sentence(1.0, 4.0, "at d = 8")
    assert "beyond the pass mark" in rules.agreement_sentence(5.0, 4.0, "at d = 8")
    both = rules.other_reasons_sentence({"means": 5.5, "weights": 256.0})
    assert both.startswith("each of the two reasons tried raises")
    assert "none" in rules.other_reasons_sentence({"means": 1.0})
    assert rules.other_reasons_sentence({"means": 5.5, "alignment": 1.0}).endswith(
        "alignment does not"
    )


def test_key_length_sentence_picks_the_smallest_d_from_16() -> None:
    assert rules.key_length_sentence({4: 0.9, 32: 0.99}, {4: 0.1, 32: 0.01}).startswith("At d = 32")
    assert rules.key_length_sentence({4: 0.9}, {4: 0.1}).startswith("At d = 4")


def test_bound_sentence_both_ways() -> None:
    assert rules.bound_sentence(0.1, 0.003, 0.003).startswith("no simulated ratio exceeds 1")
    above = rules.bound_sentence(1.2, 0.01, 0.003)
    assert above.startswith("a simulated ratio exceeds 1") and "far from" in above


# --- the blog's derivation --------------------------------------------------------------------


def test_blog_derivation_holds_on_the_real_lines_and_fails_on_a_wrong_one() -> None:
    from attncore.symbolic.variance import blog_derivation_checks

    residuals = {c.name: c.residual for c in blog_derivation_checks()}
    assert rules.proof_lines("blog-variance-derivation", residuals).verdict is Verdict.HOLDS
    wrong = {**residuals, "the mean stays 0": d}
    fails = rules.proof_lines("blog-variance-derivation", wrong)
    assert fails.verdict is Verdict.FAILS and "the mean stays 0" in fails.measured
    assert rules.proof_lines("blog-variance-derivation", {}).verdict is Verdict.UNTESTABLE


# --- Chuang's any scalar product ----------------------------------------------------------------


def test_any_scalar_product_every_branch() -> None:
    assert rules.any_scalar_product(0.5, 1.0, 8.0, 1.125, 16, 4.0).verdict is Verdict.HOLDS
    caveat = rules.any_scalar_product(0.5, 9.0, 0.3, 1.125, 16, 4.0)
    assert caveat.verdict is Verdict.CAVEAT and "1.1250 d_k" in caveat.measured
    assert rules.any_scalar_product(6.0, 1.0, 1.0, 1.125, 16, 4.0).verdict is Verdict.FAILS
    assert rules.any_scalar_product(0.5, 9.0, 7.0, 1.125, 16, 4.0).verdict is Verdict.UNTESTABLE


def test_any_scalar_product_reads_the_counterexamples_against_assumption_iv() -> None:
    # The pair swap correlates q_i with k_j: assumption (iv) excludes it, whatever it gives.
    excluded = rules.any_scalar_product(0.5, 1.0, 8.0, 1.125, 16, 4.0, [INDEPENDENT, HARMLESS])
    assert excluded.verdict is Verdict.HOLDS
    assert "excludes the counterexample pair swap" in excluded.measured
    # Uncorrelated but dependent laws meet (iv) only under the covariance reading.
    dependent = rules.any_scalar_product(0.5, 1.0, 8.0, 1.125, 16, 4.0, [DEPENDENT])
    assert dependent.verdict is Verdict.CAVEAT
    assert "own signs, 48.5 instead of 16" in dependent.measured
    assert "zero covariances" in dependent.measured
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
    assert caveat.verdict is Verdict.CAVEAT and "not grown for means" in caveat.measured
    assert rules.other_reasons({"means": 1.0, "weights": 1.02}, z, 4).verdict is Verdict.FAILS
    bad = rules.other_reasons({"means": 1.5}, {"means": 7.0}, 4)
    assert bad.verdict is Verdict.UNTESTABLE
    assert rules.other_reasons({}, {}, 4).verdict is Verdict.UNTESTABLE


# --- propositions_sentence, density_fit_sentence ------------------------------------------------


def test_propositions_sentence_holds_when_every_proof_does() -> None:
    ok = rules.proof_lines("chuang-proposition-1", {"line": sp.Integer(0)})
    sentence = rules.propositions_sentence({n: ok for n in (1, 2, 3, 4)})
    assert sentence.startswith("Chuang's Propositions 1 to 4 hold")


def test_propositions_sentence_names_the_one_that_fails() -> None:
    ok = rules.proof_lines("chuang-proposition-1", {"line": sp.Integer(0)})
    bad = rules.proof_lines("chuang-proposition-3", {"line": d})
    sentence = rules.propositions_sentence({1: ok, 2: ok, 3: bad, 4: ok})
    assert "not every one holds" in sentence and "3 (does not hold)" in sentence
    assert "1 (" not in sentence


def test_density_fit_sentence_fits_within_noise() -> None:
    sentence = rules.density_fit_sentence({1: (42.0, 40), 64: (35.0, 40)}, 4.0)
    assert sentence.startswith("At every d shown (1, 64) the histogram fits")


def test_density_fit_sentence_names_the_misfit() -> None:
    # 40 bins: standard deviation sqrt(80) ~ 8.9; 80 is 4.5 of them above 40
    sentence = rules.density_fit_sentence({1: (80.0, 40), 64: (41.0, 40)}, 4.0)
    assert sentence.startswith("The histogram departs from the exact density at d = 1 ")
    assert "d = 64" not in sentence
