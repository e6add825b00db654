"""The first page's answer and the book's own findings: one sentence per outcome a run can
produce, chosen by the verdicts and measurements, never two that contradict each other."""

from __future__ import annotations

import itertools

import pytest

from attncore.book import answer
from attncore.claims import Verdict

H, C, F = Verdict.HOLDS.value, Verdict.CAVEAT.value, Verdict.FAILS.value
UNTESTABLE = Verdict.UNTESTABLE.value


def measurements(chapter: str, values: dict[str, float | str], evidence: str) -> list[dict]:
    return [
        {"name": k, "chapter": chapter, "value": v, "evidence": evidence} for k, v in values.items()
    ]


def rescaling_run(**selectivity: float) -> dict:
    """An every-rescaling run at d = 64, n = 32 whose 1/√d has selectivity 0.1 and the others
    the given selectivities (standard error 0.001 each), Jacobian and gradient in proportion."""
    values: dict[str, float | str] = {"d": 64, "n": 32, "threshold": 0.9, "draws": 10}
    for name, sel in {"sqrt_d": 0.1, **selectivity}.items():
        values |= {
            f"{name}.selectivity": sel,
            f"{name}.selectivity_se": 0.001,
            f"{name}.saturated_share": min(sel, 1.0) / 2,
            f"{name}.jacobian_norm": 0.3,
            f"{name}.gradient_norm": sel,
        }
    return {"measurements": measurements("every_rescaling", values, "sec-frontier")}


def rows(**verdicts: str) -> list[dict]:
    return [{"claim": claim.replace("_", "-"), "verdict": v} for claim, v in verdicts.items()]


@pytest.mark.parametrize(
    ("variance", "gradients", "start"),
    [
        (H, H, "**Use 1/√d**"),
        (H, C, "**Use 1/√d**"),
        (H, F, "**1/√d is a sound default, not a necessity**"),
        (H, UNTESTABLE, "**1/√d is the sound default**"),
        (C, H, "**This build did not confirm"),
        (F, F, "**This build did not confirm"),
    ],
)
def test_the_factor_follows_the_two_vaswani_verdicts(variance, gradients, start) -> None:
    text = answer.recommendation(
        rows(vaswani_variance=variance, vaswani_small_gradients=gradients), {}
    )
    assert f"\n- {start}" in text
    assert "*Evidence: a derivation for every d, checked by simulation.*" in text
    assert ("Not every sign of that shows" in text) == (gradients == C)


def test_claims_not_tested_leave_their_sentences_out() -> None:
    text = answer.recommendation(rows(vaswani_variance=UNTESTABLE), {})
    assert text.startswith("No chapter has run yet")
    assert "Proposition 5" in answer.recommendation(rows(chuang_proposition_5=F), {})


@pytest.mark.parametrize("verdict", [H, C, F])
def test_when_follows_independence_and_long_contexts(verdict) -> None:
    text = answer.recommendation(
        rows(chuang_proposition_5=verdict, chen_uniform_as_n_grows=verdict), {}
    )
    assert ("needs independent components" in text) == (verdict != H)
    assert ("it holds if Chuang's" in text) == (verdict == C)
    assert ("holds under the assumptions" in text) == (verdict == H)
    assert ("lets attention flatten" in text) == (verdict != F)
    assert ("did not flatten" in text) == (verdict == F)


@pytest.mark.parametrize(
    ("defaults", "relaxed"), list(itertools.product([H, C, F, UNTESTABLE], [H, F]))
)
def test_the_initialization_sentence_follows_the_defaults_and_the_relaxed_formula(
    defaults, relaxed
) -> None:
    text = answer.recommendation(
        rows(chuang_standard_init_conditions=defaults, chuang_relaxed_variance=relaxed), {}
    )
    assert ("do not give the entries of Q and K unit" in text) == (defaults == F)
    assert ("the premise holds at the start" in text) == (defaults in (H, C))
    assert ("about unit variance" in text) == (defaults == C)
    assert ("still the same at every width" in text) == (defaults == F and relaxed == H)
    if defaults == UNTESTABLE:
        assert text.startswith("No chapter has run yet")


def test_each_alternative_is_placed_by_its_selectivity_against_that_of_sqrt_d() -> None:
    runs = {"every_rescaling": rescaling_run(none=0.6, mup=0.01, k_total=0.1015, log_n=0.3)}
    text = answer.recommendation([], runs)
    assert "- **The alternatives.** No scaling and ln n\\/√d make" in text
    assert "({numref}`tbl-intro-costs`" in text
    more, _, rest = text.partition("more selective than 1/√d")
    assert "scaling, ln n\\/√d make" not in more
    assert rest.startswith(", and put more than 0.9 of a row's weight on one key in more rows")
    assert "1\\/d \\(μP\\) makes attention nearer uniform, and passes less gradient" in rest
    assert "1\\/k\\_total selects about as 1/√d does" in rest
    few = rescaling_run(k_total=0.1015)
    for record in few["measurements"]:
        record["value"] = 2 if record["name"] == "draws" else record["value"]
    assert "selects about as" in answer.recommendation([], {"every_rescaling": few})
    uniform = answer.recommendation([], {"every_rescaling": rescaling_run(k_total=0.001)})
    assert "- **Not 1/k\\_total.** 1\\/k\\_total makes" in uniform
    assert "times" not in text and "%" not in text  # the numbers are the table's
    assert "*Evidence: simulated attention at d = 64, n = 32" in text


def test_the_cost_table_holds_the_numbers_the_words_summarize() -> None:
    runs = {"every_rescaling": rescaling_run(none=0.6, mup=0.01, k_total=0.1015, log_n=0.3)}
    frame, caption, formats = answer.cost_table(runs)
    assert caption.startswith("What the alternatives cost beside 1/√d, at d = 64 and n = 32")
    assert list(frame.index) == ["1/√d", "no scaling", "ln n/√d", "1/d (μP)", "1/k_total"]
    assert frame.loc["no scaling", "selectivity, ratio to 1/√d"] == pytest.approx(6.0)
    assert frame.loc["1/d (μP)", "gradient to q, ratio to 1/√d"] == pytest.approx(0.1)
    assert frame.loc["1/√d", "rows with > 0.9 on one key"] == pytest.approx(0.05)
    assert answer.cost_table({}) is None
    ratio, share = formats["selectivity, ratio to 1/√d"], formats["rows with > 0.9 on one key"]
    assert (ratio(956.4), ratio(0.0171), share(0.57)) == ("956", "0.017", "57 %")


def test_the_answer_defines_the_methods_it_names_and_only_those() -> None:
    runs = {"every_rescaling": rescaling_run(none=0.6, qk_norm=0.2)}
    text = answer.recommendation([], runs)
    assert text.endswith("multiplies the cosine by a gain.\n:::")
    assert "Terms used above\nQK-norm divides" in text and "σReparam divides" not in text
    assert "Terms used above" not in answer.recommendation([], {"every_rescaling": rescaling_run()})


def test_missing_or_hostile_measurements_count_as_not_measured() -> None:
    run = rescaling_run(none=0.6)
    assert "**The alternatives.**" in answer.recommendation([], {"every_rescaling": run})
    for record in run["measurements"]:
        if record["name"] == "none.selectivity":
            record["value"] = "<script>"
    assert answer.recommendation([], {"every_rescaling": run}).startswith("No chapter")


def refill_run(share: float, changed: int) -> dict:
    samples = "differ" if share >= 0.5 else "alike"  # as the chapter's rule would read it
    values = {"refill.differing_share": share, "refill.changed_verdicts": changed}
    values |= {"refill.samples": samples}
    return {
        "measurements": measurements(
            "bernhard_figures", values, "sec-bernhard-published-vs-intended"
        )
    }


@pytest.mark.parametrize(("share", "changed"), list(itertools.product([0.2, 1.0], [0, 1, 2])))
def test_the_refilled_column_finding_follows_its_measurements(share, changed) -> None:
    text = answer.own_findings({"bernhard_figures": refill_run(share, changed)})
    assert ("is a different sample" in text) == (share >= 0.5)
    assert ("can tell that sample" in text) == (share < 0.5)
    assert ("come out the same" in text) == (changed == 0)
    assert ("one verdict on his figures changes" in text) == (changed == 1)
    assert ("two verdicts on his figures change" in text) == (changed == 2)


def training_run(gap_a: str, gap_b: str, spread_a: float = 0.001, spread_b: float = 0.3) -> dict:
    values = {"gap_a": gap_a, "gap_b": gap_b, "spread_a": spread_a, "spread_b": spread_b}
    return {"measurements": measurements("string_reversal", values, "sec-reversal-curves")}


TITLES = {
    ("none", "none"): "**No training gap in Chuang's sense.**",
    ("closes", "none"): "**The training gap closes with training.**",
    ("open", "none"): "**The training gap stays open.**",
    ("closes", "closes"): "**The training gap closes with training.**",
    ("open", "open"): "**The training gap stays open.**",
    ("closes", "open"): "**The training gap closes in one setup only.**",
}


@pytest.mark.parametrize("outcomes", list(itertools.product(answer.GAP_OUTCOMES, repeat=2)))
def test_the_training_finding_has_a_branch_for_every_pair_of_outcomes(outcomes) -> None:
    text = answer.own_findings({"string_reversal": training_run(*outcomes)})
    titles = [t for t in set(TITLES.values()) if t in text]
    assert titles == [TITLES.get(outcomes, TITLES.get(outcomes[::-1]))], (outcomes, text)
    narrow, wide = (o != "none" for o in outcomes)  # setup a starts narrower
    assert ("initialization scale" in text) == (narrow != wide)
    assert ("an effect of the initialization scale" in text) == (narrow and not wide)
    assert ("does not explain it" in text) == (wide and not narrow)
    assert ("In both setups" in text) == (narrow and wide)


def test_an_unknown_gap_outcome_leaves_the_training_finding_out() -> None:
    text = answer.own_findings({"string_reversal": training_run("closed, trust me", "none")})
    assert text == "No chapter that makes these findings has run yet."


def test_the_curve_finding_states_the_chapters_computed_sentence() -> None:
    headline = {
        "name": "rescaling-curve",
        "chapter": "every_rescaling",
        "text": "Some factor rescaling lies off the curve by up to 0.3 in W₁",
        "evidence": "sec-frontier",
    }
    text = answer.own_findings({"every_rescaling": {"headlines": [headline]}})
    assert "lies off the curve by up to 0\\.3" in text
    assert text.startswith("- **Where a rescaling can put attention.**")


def length_run(**outcomes: str) -> dict:
    values: dict[str, float | str] = {"train_length": 10, "longest": 100000}
    values |= {f"{m}.longest": o for m, o in outcomes.items()}
    return {"measurements": measurements("length_generalization", values, "sec-length-accuracy")}


@pytest.mark.parametrize(
    ("outcomes", "kept", "lost"),
    [
        ({"sqrt_d": "not solved", "log_n": "solved", "k_total": "not solved"},
         "ln n\\/√d still solved it", "1/√d and 1\\/k\\_total did not"),
        ({"sqrt_d": "solved", "log_n": "solved"}, "1/√d and ln n\\/√d still solved it", None),
        ({"sqrt_d": "not solved", "log_n": "not solved"}, None, "1/√d and ln n\\/√d did not"),
    ],
)  # fmt: skip
def test_the_long_strings_sentence_names_who_kept_first(outcomes, kept, lost) -> None:
    text = answer.recommendation([], {"length_generalization": length_run(**outcomes)})
    assert "- **Contexts longer than training.** " in text
    assert "Trained on the task FIRST (a string's label is its first bit)" in text
    assert ("Train with ln n/√d." in text) == (outcomes["log_n"] == "solved")
    assert "with strings of 10 bits" in text
    assert "tested on strings of 100,000" in text
    assert (kept is not None and kept in text) or "still solved" not in text
    assert (lost is not None and lost in text) or "did not" not in text


def test_a_method_not_learned_at_the_training_length_is_not_counted_as_lost() -> None:
    run = length_run(sqrt_d="not learned", log_n="not learned", mup="solved")
    text = answer.recommendation([], {"length_generalization": run})
    assert "1\\/d \\(μP\\) still solved it; 1/√d and ln n\\/√d did not learn it even" in text
    assert "did not (" not in text and "did not and" not in text


def test_the_long_strings_sentence_names_the_temperatures_chosen_at_test_time() -> None:
    run = length_run(sqrt_d="not solved", **{"sqrt_d + yarn": "solved"})
    text = answer.recommendation([], {"length_generalization": run})
    assert "1/√d with YaRN's temperature at test time still solved it; 1/√d did not" in text


def test_one_seed_or_a_hostile_outcome_leaves_the_long_strings_sentence_out() -> None:
    single = length_run(sqrt_d="one seed", log_n="one seed")
    hostile = length_run(sqrt_d="<b>solved</b>", log_n=1.0)
    for run in (single, hostile):
        text = answer.recommendation([], {"length_generalization": run})
        assert text.startswith("No chapter has run yet")


BRANCHES = ("holds", "caveat", "fails", "untestable")
"""The branches of the two stabilizers' rules; holds reads holds with a caveat on the ledger."""


@pytest.mark.parametrize(("qk", "sigma"), list(itertools.product(BRANCHES, repeat=2)))
def test_the_learning_rate_sentence_follows_the_two_branches(qk, sigma) -> None:
    claims = ("wortsman-mitigations-effective", "zhai-sigma-reparam-robust")
    verdicts = [  # the verdict a capped claim shows: the sentence reads the branch
        {"claim": claim, "verdict": C if branch == "holds" else branch, "branch": branch}
        for claim, branch in zip(claims, (qk, sigma), strict=True)
    ]
    text = answer.recommendation(verdicts, {})
    if qk == sigma == "untestable":
        assert text.startswith("No chapter has run yet")
        return
    words = {
        "holds": "clearly less sensitive",
        "caveat": "less sensitive to the",
        "fails": "no less sensitive",
    }
    for method, branch in (("qk-layernorm", qk), ("σReparam", sigma)):
        if branch == "untestable":
            assert method not in text
        elif qk == sigma:
            assert f"qk-layernorm and σReparam made the final loss {words[branch]}" in text
        else:
            assert f"{method} made the final loss {words[branch]}" in text


def test_each_line_of_the_decision_names_the_scale_of_its_evidence() -> None:
    length = {**length_run(sqrt_d="solved", log_n="solved"), "parameters": {"n_seeds": 3}}
    length["measurements"] += measurements(
        "length_generalization", {"d_model": 16, "n_layers": 2}, "sec-length-setup"
    )
    stability = {  # a hostile width is left unsaid, as the seeds are
        "parameters": {"n_rates": 8, "n_seeds": "<b>2</b>", "steps": 400},
        "measurements": measurements(
            "stability",
            {
                "d_model": "<b>16</b>",
                "n_layers": 1,
                "qk_layernorm.sensitivity": 0.123,
                "sqrt_d.sensitivity": 0.6,
                "sigma_reparam.sensitivity": float("nan"),
            },
            "s",
        ),
    }
    verdicts = [{"claim": "wortsman-mitigations-effective", "verdict": C, "branch": "holds"}]
    text = answer.recommendation(
        verdicts, {"length_generalization": length, "stability": stability}
    )
    box = text.partition(":::{admonition}")[2].partition("\n:::")[0]
    long, rates = (line for line in box.splitlines() if line.startswith("- **"))
    assert long.endswith(
        "*Evidence at toy scale: models of width 16 with two layers, trained on FIRST; 3 seeds.*"
    )
    assert rates.endswith(
        "models with one layer, trained to reverse strings; 8 learning rates, 400 steps per run.*"
    )
    assert "learning-rate sensitivity in nats: qk-layernorm 0.12, 1/√d 0.60)" in rates  # no NaN


def test_the_long_context_advice_follows_the_routes_that_kept_first_solved() -> None:
    both = length_run(log_n="solved", **{"sqrt_d + qwen": "solved"})
    test_time = length_run(log_n="not solved", **{"sqrt_d + yarn": "solved"})
    neither = length_run(log_n="not solved", sqrt_d="not solved")
    advice = {
        name: answer.recommendation([], {"length_generalization": run})
        for name, run in {"both": both, "test_time": test_time, "neither": neither}.items()
    }
    assert "Train with ln n/√d, or give a model trained with 1/√d YaRN's" in advice["both"]
    assert "Contexts longer than training.** Give a model trained with" in advice["test_time"]
    assert "Train with" not in advice["neither"] and "Give a model" not in advice["neither"]
