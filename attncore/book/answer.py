"""The first page's answer to "Should I use 1/√d?" and the book's own findings, written from
the verdicts of the claims ledger and the measurements the chapters hand over.

Every sentence that states an outcome is chosen by a verdict or a measured value, so a rerun
with other parameters gets a first page that agrees with its chapters; each number is said
once, beside a link to the section that holds it. A run folder may come from anyone: its
texts reach the page through :func:`attncore.book.markup.literal`, its section labels through
:func:`attncore.book.sections.evidence_link`, and a measurement of the wrong type counts as
not measured.

>>> rows = [{"claim": "vaswani-variance", "verdict": "holds"},
...         {"claim": "vaswani-small-gradients", "verdict": "holds"}]
>>> print(recommendation(rows, {}).splitlines()[3][:60])
- **Use 1/√d**, times a constant if you tune one: it gives t
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

import pandas as pd

from attncore.book.markup import literal
from attncore.book.sections import evidence_link
from attncore.claims import Verdict
from attncore.claims.rules.length_generalization import OUTCOMES
from attncore.claims.rules.training import GAP_OUTCOMES
from attncore.claims.words import count, listing
from attncore.evidence.statistics import clear_side

__all__ = [
    "ALTERNATIVES",
    "CLEAR",
    "COSTS_TABLE",
    "STABILIZERS",
    "STATED",
    "TEST_TIME",
    "Costs",
    "cost_table",
    "own_findings",
    "recommendation",
]

STATED = ("rescaling-curve",)
"""The chapters' headlines that the book's own findings state (and no other list repeats)."""

_H, _C, _F = Verdict.HOLDS.value, Verdict.CAVEAT.value, Verdict.FAILS.value

ALTERNATIVES = {
    "none": "no scaling",
    "log_n": "ln n/√d",
    "qk_norm": "QK-norm",
    "mup": "1/d (μP)",
    "k_total": "1/k_total",
}
"""The alternatives to 1/√d the first page weighs, by their name in the every-rescaling
chapter's measurements, with the words the page uses for them."""

TEST_TIME = {
    "sqrt_d + yarn": "1/√d with YaRN's temperature at test time",
    "sqrt_d + qwen": "1/√d with Qwen's log-n factor at test time",
}
"""The length chapter's 1/√d models with a factor chosen at test time, as the first page
names them: the cheapest change for a trained model."""

STABILIZERS = {
    "wortsman-mitigations-effective": ("QK-norm", "qk_norm"),
    "zhai-sigma-reparam-robust": ("σReparam", "sigma_reparam"),
}
"""The claims whose verdicts say whether a method made the final loss less sensitive to the
learning rate than 1/√d, with the method each names."""

CLEAR = 2.0
"""The level, in standard errors of a normal statistic, at which an alternative's selectivity
differs clearly from that of 1/√d (a t test over the chapter's draws,
:func:`attncore.evidence.statistics.single`); the chapter measuring it uses the same mark for
comparisons along the curve."""


def _measured(runs: Mapping[str, Mapping[str, Any]], chapter: str) -> dict[str, dict[str, Any]]:
    return {m["name"]: m for m in runs.get(chapter, {}).get("measurements", [])}


def _number(measured: Mapping[str, Mapping[str, Any]], name: str) -> float | None:
    value = measured.get(name, {}).get("value")
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return float(value)


def _link(chapter: str, measured: Mapping[str, Mapping[str, Any]], name: str, text: str) -> str:
    return evidence_link(chapter, str(measured[name].get("evidence", "")), text)


def _times(ratio: float) -> str:
    """A ratio in words: two significant digits, whole numbers from 10 on (``9.4``, ``940``).

    >>> _times(937.4), _times(0.0913), _times(6.71)
    ('937', '0.091', '6.7')
    """
    return f"{ratio:,.0f}" if ratio >= 10 else f"{ratio:.2g}"


def _pct(share: float) -> str:
    return f"{100 * share:.0f} %" if share >= 0.01 or share == 0 else "under 1 %"


def _verdicts(rows: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    return {row["claim"]: row["verdict"] for row in rows}


def _which_factor(verdicts: Mapping[str, str]) -> str | None:
    variance, gradients = verdicts.get("vaswani-variance"), verdicts.get("vaswani-small-gradients")
    ledger = "{doc}`why_sqrt_d`"
    if variance == _H and gradients in (_H, _C):
        partly = (
            " Not every sign of that shows at every size ({ref}`sec-key-findings`)."
            if gradients == _C
            else ""
        )
        return (
            "**Use 1/√d**, times a constant if you tune one: it gives the logits q·k/√d unit "
            "variance at every width d when the components of q and k are independent with mean "
            "0 and variance 1, "
            f"and without it the softmax moves toward saturation as d grows ({ledger}).{partly}"
        )
    if variance == _H and gradients == _F:
        return (
            "**1/√d is a sound default, not a necessity**: it gives q·k/√d unit variance at every "
            "width d for independent components with mean 0 and variance 1, but this build did "
            f"not find the softmax gradients shrinking with d without it ({ledger})."
        )
    if variance == _H and gradients == Verdict.UNTESTABLE.value:
        return (
            "**1/√d is the sound default**: it gives q·k/√d unit variance at every width d for "
            "independent components with mean 0 and variance 1; whether the softmax gradients "
            f"shrink with d without it, this build's draws are too few to tell ({ledger})."
        )
    if variance in (_C, _F):
        return (
            "**This build did not confirm the reason usually given for 1/√d**, that it gives "
            f"q·k/√d unit variance at every width d ({ledger}); the costs below still place it "
            "among the alternatives."
        )
    return None


def _when(verdicts: Mapping[str, str]) -> list[str]:
    sentences = []
    independence = verdicts.get("chuang-proposition-5")
    if independence in (_C, _F):
        reading = (
            "it holds if Chuang's 'independent in the following ways' means independent, but "
            if independence == _C
            else ""
        )
        sentences.append(
            f"The variance argument needs independent components: {reading}zero covariances "
            "alone, as Chuang's Proposition 5 lists them, do not give q·k variance d "
            "({doc}`why_sqrt_d`)."
        )
    elif independence == _H:
        sentences.append(
            "The variance argument holds under the assumptions Chuang's Proposition 5 lists "
            "({doc}`why_sqrt_d`)."
        )
    defaults = _initialization(verdicts)
    return sentences + ([defaults] if defaults else [])


def _initialization(verdicts: Mapping[str, str]) -> str | None:
    """Whether the libraries' default initializations meet the unit-variance premise, and
    whether 1/√d still removes the growth with d where they do not."""
    defaults, relaxed = (
        verdicts.get("chuang-standard-init-conditions"),
        verdicts.get("chuang-relaxed-variance"),
    )
    where = "{ref}`ledger <ledger-chuang-standard-init-conditions>`"
    if defaults in (_H, _C):
        nearly = "about " if defaults == _C else ""
        return (
            "The libraries' default initializations give the entries of Q and K "
            f"{nearly}unit variance on unit-variance tokens, so the premise holds at the start "
            f"of training ({where})."
        )
    if defaults != _F:
        return None
    still = (
        "; its variance is still the same at every width d, as Chuang's formula for projected "
        "tokens says ({ref}`ledger <ledger-chuang-relaxed-variance>`)"
        if relaxed in (_H, _C)
        else ""
    )
    return (
        "The libraries' default initializations do not give the entries of Q and K unit "
        "variance, so even at the start of training q·k/√d does not have variance 1 "
        f"({where}){still}."
    )


def _first_task(runs: Mapping[str, Mapping[str, Any]]) -> str | None:
    """Which of 1/√d and the alternatives still solved FIRST at the longest test length."""
    measured = _measured(runs, "length_generalization")
    train, longest = _number(measured, "train_length"), _number(measured, "longest")
    names = {
        "sqrt_d": "1/√d",
        **{k: literal(v) for k, v in ALTERNATIVES.items()},
        **TEST_TIME,
    }
    outcomes = {m: measured.get(f"{m}.longest", {}).get("value") for m in names}
    kept, lost, _, unlearned, undecided = (
        [names[m] for m, o in outcomes.items() if o == outcome] for outcome in OUTCOMES
    )
    if train is None or longest is None or not (kept or lost or unlearned or undecided):
        return None
    parts = [f"{listing(kept)} still solved it"] if kept else []
    parts += [f"{listing(lost)} did not"] if lost else []
    if undecided:
        parts.append(f"the seeds cannot tell whether {listing(undecided)} still solved it")
    if unlearned:
        parts.append(f"{listing(unlearned)} did not learn it even at the training length")
    link = _link("length_generalization", measured, "longest", "accuracy")
    return (
        "Trained on the task FIRST (a string's label is its first bit) with strings of "
        f"{train:,.0f} bits and tested on strings of "
        f"{longest:,.0f}, {'; '.join(parts)} ({link} in {{doc}}`length_generalization`)."
    )


def _high_rates(branches: Mapping[str, str], runs: Mapping[str, Mapping[str, Any]]) -> str | None:
    """Whether QK-norm and σReparam made the final loss less sensitive to the learning rate,
    with the sensitivities the stability chapter measured, where it did."""
    words = {  # by the branch of the rule (a verdict may be capped: Claim.part)
        "holds": "clearly less sensitive to the learning rate than 1/√d does",
        "caveat": "less sensitive to the learning rate than 1/√d does on average, but not clearly",
        "fails": "no less sensitive to the learning rate than 1/√d does",
    }
    groups: dict[str, list[str]] = {branch: [] for branch in words}
    for claim, (label, _) in STABILIZERS.items():
        if branches.get(claim) in groups:
            groups[branches[claim]].append(label)
    parts = [
        f"{listing(methods)} made the final loss {words[verdict]}"
        for verdict, methods in groups.items()
        if methods
    ]
    if not parts:
        return None
    measured = _measured(runs, "stability")
    sizes = [
        f"{label} {value:.2f}"
        for label, method in [*STABILIZERS.values(), ("1/√d", "sqrt_d"), ("ln n/√d", "log_n")]
        if (value := _number(measured, f"{method}.sensitivity")) is not None
    ]
    size = f"; learning-rate sensitivity in nats: {', '.join(sizes)}" if len(sizes) > 1 else ""
    return f"In the book's sweep of learning rates, {'; '.join(parts)} ({{doc}}`stability`{size})."


def _flattening(verdicts: Mapping[str, str]) -> str | None:
    """Whether attention under 1/√d flattens as the number of keys grows (Chen et al.)."""
    flattening = verdicts.get("chen-uniform-as-n-grows")
    if flattening in (_H, _C):
        return (
            "1/√d lets attention flatten as the number of keys n grows; a factor that grows "
            "like ln n keeps it selective ({doc}`critical_scale`)."
        )
    if flattening == _F:
        return (
            "In this build attention under 1/√d did not flatten as the number of keys grew "
            "({doc}`critical_scale`)."
        )
    return None


def _direction(measured: Mapping[str, Mapping[str, Any]], name: str) -> str | None:
    """``more``, ``less`` or ``same`` selective than 1/√d: clearly so over the chapter's
    draws at the level of :data:`CLEAR` standard errors, or not; None where a value is
    missing."""
    values = [
        _number(measured, f"{r}.{c}")
        for r in (name, "sqrt_d")
        for c in ("selectivity", "selectivity_se")
    ]
    draws = _number(measured, "draws")
    if any(v is None for v in values) or draws is None:
        return None
    sel, se, ref, ref_se = values
    side = clear_side(sel - ref, math.hypot(se, ref_se), int(draws), CLEAR)
    return {"above": "more", "below": "less", None: "same"}[side]


def _ratio(measured: Mapping[str, Mapping[str, Any]], name: str, column: str) -> float | None:
    value, ref = _number(measured, f"{name}.{column}"), _number(measured, f"sqrt_d.{column}")
    if value is None or not ref or not math.isfinite(ratio := value / ref):
        return None
    return ratio


COSTS_TABLE = "tbl-intro-costs"
"""The name of the first page's table of what the alternatives cost."""


def _compared(measured: Mapping[str, Mapping[str, Any]]) -> dict[str, str]:
    """The alternatives with every cost measured, in :data:`ALTERNATIVES`' order, each with
    its :func:`_direction`; empty where the chapter's setting (d, n, threshold) is missing."""
    if any(_number(measured, k) is None for k in ("d", "n", "threshold")):
        return {}
    columns = ("selectivity", "jacobian_norm", "gradient_norm")
    directions = {r: _direction(measured, r) for r in ALTERNATIVES}
    return {
        r: direction
        for r, direction in directions.items()
        if direction is not None
        and all(_ratio(measured, r, c) is not None for c in columns)
        and _number(measured, f"{r}.saturated_share") is not None
    }


def _ratio_cell(value: Any) -> str:
    """A ratio with two significant digits, trailing zeros kept (``5.0``, ``0.017``, ``956``)."""
    ratio = float(value)
    return f"{ratio:,.0f}" if ratio >= 10 else f"{ratio:#.2g}"


def _share_cell(value: Any) -> str:
    return _pct(float(value))


class Costs(NamedTuple):
    """The first page's table of costs: numbers, caption and the format of each column."""

    frame: pd.DataFrame
    caption: str
    formats: dict[str, Callable[[object], str]]


def cost_table(runs: Mapping[str, Mapping[str, Any]]) -> Costs | None:
    """What each alternative costs beside 1/√d: the every-rescaling chapter's selectivity,
    share of saturated rows, softmax Jacobian norm and gradient to the query at its (d, n),
    each but the share as a multiple of 1/√d's; None where that chapter did not measure them.

    >>> cost_table({}) is None
    True
    """
    measured = _measured(runs, "every_rescaling")
    names = list(_compared(measured))
    if not names:
        return None
    d, n, threshold = (float(_number(measured, k) or 0.0) for k in ("d", "n", "threshold"))
    shares = {r: _number(measured, f"{r}.saturated_share") for r in ["sqrt_d", *names]}

    def ratios(column: str) -> list[float | None]:
        return [1.0] + [_ratio(measured, r, column) for r in names]

    frame = pd.DataFrame(
        {
            "selectivity, ratio to 1/√d": ratios("selectivity"),
            f"rows with > {threshold:g} on one key": list(shares.values()),
            "Jacobian norm, ratio to 1/√d": ratios("jacobian_norm"),
            "gradient to q, ratio to 1/√d": ratios("gradient_norm"),
        },
        index=pd.Index(["1/√d", *(ALTERNATIVES[r] for r in names)], name="rescaling"),
    )
    caption = (
        f"What the alternatives cost beside 1/√d, at d = {d:.0f} and n = {n:.0f} with standard "
        "normal components (means over the chapter's draws). Selectivity is 1 minus the "
        "entropy over ln n (0 for uniform attention, 1 for attention on one key); the softmax "
        "Jacobian is measured by its Frobenius norm; the gradient to the query q is the "
        "Frobenius norm of ∂s/∂q. Each column but the share of rows is a ratio to 1/√d's value."
    )
    formats = {c: _share_cell if c.startswith("rows") else _ratio_cell for c in frame.columns}
    return Costs(frame, caption, formats)


def _clause(subjects: list[str], says: str, some: list[str], also: str) -> str:
    """``subjects`` (alternatives) ``says``, and ``some`` of them also ``also``, with the
    verbs agreeing: "no scaling and ln n/√d make …, and put …"; "1/d (μP) makes …"."""

    def verb(names: list[str], phrase: str) -> str:
        if len(names) > 1:
            return phrase
        first, _, rest = phrase.partition(" ")
        return f"{first}es {rest}" if first.endswith("s") else f"{first}s {rest}"

    names = {k: literal(v) for k, v in ALTERNATIVES.items()}
    text = f"{listing([names[r] for r in subjects])} {verb(subjects, says)}"
    if some == subjects:
        return f"{text}, and {verb(subjects, also)}"
    if some:
        return f"{text}, and {listing([names[r] for r in some])} {verb(some, also)}"
    return text


def _costs(runs: Mapping[str, Mapping[str, Any]]) -> str | None:
    """The costs of :func:`cost_table` in words, grouped by direction; the numbers stay in
    the table."""
    measured = _measured(runs, "every_rescaling")
    compared = _compared(measured)
    if not compared:
        return None
    groups: dict[str, list[str]] = {"more": [], "less": [], "same": []}
    for name, direction in compared.items():
        groups[direction].append(name)
    reference = _number(measured, "sqrt_d.saturated_share") or 0.0
    threshold = _number(measured, "threshold")
    saturating = [
        r for r in groups["more"] if (_number(measured, f"{r}.saturated_share") or 0.0) > reference
    ]
    weaker = [r for r in groups["less"] if (_ratio(measured, r, "gradient_norm") or 1.0) < 1.0]
    clauses = {
        "more": (
            "make attention more selective than 1/√d",
            saturating,
            f"put more than {threshold:g} of a row's weight on one key in more rows than 1/√d",
        ),
        "less": ("make attention nearer uniform", weaker, "pass less gradient to the query"),
        "same": ("select about as 1/√d does (no clear difference over the draws)", [], ""),
    }
    parts = [_clause(group, *clauses[key]) for key, group in groups.items() if group]
    where = _link("every_rescaling", measured, "d", "the measurements")
    notes = {
        "mup": "1/d is μP's factor without the constant μP tunes for the task",
        "qk_norm": "QK-norm is measured with its initial gain, before training moves it",
    }
    shown = [notes[r] for r in notes if r in compared]
    caveat = f" ({'; '.join(shown)}.)" if shown else ""
    d, n = (_number(measured, k) or 0.0 for k in ("d", "n"))
    return (
        f"{_capital('; '.join(parts))} ({{numref}}`{COSTS_TABLE}`, from {where}).{caveat} "
        f"*Evidence: simulated attention at d = {d:.0f}, n = {n:.0f}, standard normal q and k.*"
    )


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _parameter(runs: Mapping[str, Mapping[str, Any]], chapter: str, name: str) -> int | None:
    """A whole-number parameter of ``chapter``'s run, or None where it has none (or another
    type: a run folder may come from anyone)."""
    value = runs.get(chapter, {}).get("parameters", {}).get(name)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _scale(runs: Mapping[str, Mapping[str, Any]], chapter: str, task: str, names: str) -> str:
    """The scale of a line's evidence: the model ``chapter`` measured (width and layers), the
    ``task`` it was trained on and the run's counts ``names`` (``"n_seeds"`` and so on), each
    said only where the run has it."""
    measured = _measured(runs, chapter)
    width, layers = _number(measured, "d_model"), _number(measured, "n_layers")
    model = "models" if width is None else f"models of width {width:g}"
    if layers is not None:
        model += f" with {count(int(layers), 'layer')}"
    words = {"n_seeds": "seeds", "n_rates": "learning rates", "steps": "steps per run"}
    counts = [
        f"{value:,} {words[name]}"
        for name in names.split()
        if (value := _parameter(runs, chapter, name)) is not None
    ]
    return f" *Evidence at toy scale: {model}, {task}{'; ' if counts else ''}{', '.join(counts)}.*"


_ADVICE = {
    (True, True): "Train with ln n/√d, or give a model trained with 1/√d YaRN's or Qwen's factor "
    "at test time.",
    (True, False): "Train with ln n/√d.",
    (False, True): "Give a model trained with 1/√d YaRN's or Qwen's factor at test time.",
}
"""What to do for contexts longer than training, by which of the two routes kept the length
chapter's task solved at its longest length: a factor trained in, one set at test time."""


def _advice(runs: Mapping[str, Mapping[str, Any]]) -> str | None:
    """The advice of :data:`_ADVICE` that the length chapter's outcomes support, if any."""
    measured = _measured(runs, "length_generalization")
    solved = {
        m
        for m in ("log_n", *TEST_TIME)
        if measured.get(f"{m}.longest", {}).get("value") == OUTCOMES[0]
    }
    return _ADVICE.get(("log_n" in solved, bool(solved & set(TEST_TIME))))


def _long_contexts(verdicts: Mapping[str, str], runs: Mapping[str, Mapping[str, Any]]) -> str:
    """Contexts longer than training: whether 1/√d flattens attention as n grows and which
    factors kept a task solved at lengths never trained on, with the scale of the evidence."""
    trained = _first_task(runs)
    parts = [s for s in (_advice(runs), _flattening(verdicts), trained) if s]
    if not parts:
        return ""
    scale = _scale(runs, "length_generalization", "trained on FIRST", "n_seeds") if trained else ""
    return " ".join(parts) + scale


def recommendation(rows: Sequence[Mapping[str, Any]], runs: Mapping[str, Mapping[str, Any]]) -> str:
    """MyST: the decision box (which factor to use and why, what to do for long contexts and
    at high learning rates, what the alternatives cost), each line chosen by the verdicts in
    ``rows`` (the ledger's) or the measurements in ``runs`` and naming the scale of its
    evidence, then what the default rests on; what did not run is left out."""
    verdicts = _verdicts(rows)
    rates = _high_rates({row["claim"]: row.get("branch", "") for row in rows}, runs)
    default = _which_factor(verdicts)
    lines = {
        "The default": default
        and f"{default} *Evidence: a derivation for every d, checked by simulation.*",
        "Contexts longer than training": _long_contexts(verdicts, runs),
        "High learning rates": rates
        and rates
        + _scale(runs, "stability", "trained to reverse strings", "n_rates n_seeds steps"),
        "The alternatives": _costs(runs),
    }
    if _compared(_measured(runs, "every_rescaling")).get("k_total") == "less":
        lines["Not 1/k\\_total"] = lines.pop("The alternatives")
    shown = [
        f"- {text}" if lead == "The default" else f"- **{lead}.** {text}"
        for lead, text in lines.items()
        if text
    ]
    rests = " ".join(_when(verdicts))
    if not shown and not rests:
        return "No chapter has run yet, so this page has no answer to report."
    box = [":::{admonition} What to use, from this build's verdicts", ":class: tip", "", *shown]
    text = "\n".join([*box, ":::"]) if shown else ""
    if rests:
        text += f"\n\n*What the default rests on.* {rests}"
    terms = [gloss for name, gloss in GLOSSES.items() if name in text]
    glossary = f"\n\n:::{{dropdown}} Terms used above\n{'; '.join(terms)}.\n:::"
    return text.strip() + (glossary if terms else "")


GLOSSES = {
    "QK-norm": "QK-norm divides q and k by their lengths and multiplies the cosine by a gain",
    "σReparam": "σReparam divides the query and key weights by their spectral norm, times a "
    "learned scalar",
    "μP": "μP, the maximal-update parameterization, scales the logits by 1/d",
    "k\\_total": "k\\_total is the sum of the key lengths, Bernhard's divisor",
}
"""Short definitions of the methods the answer may name, added under it for those it does
name (the notation table further down the page has the rest)."""


def _curve_finding(runs: Mapping[str, Mapping[str, Any]]) -> str | None:
    headlines = {h["name"]: h for h in runs.get("every_rescaling", {}).get("headlines", [])}
    headline = headlines.get(STATED[0])
    if headline is None:
        return None
    link = evidence_link("every_rescaling", str(headline.get("evidence", "")), "evidence")
    return (
        f"**Where a rescaling can put attention.** {literal(headline['text'])} Rescalings that "
        "multiply every logit by one factor differ only by where they sit on that curve; only "
        f"QK-norm and cosine attention can leave it ({link} in {{doc}}`every_rescaling`)."
    )


def _refill_finding(runs: Mapping[str, Mapping[str, Any]]) -> str | None:
    measured = _measured(runs, "bernhard_figures")
    share = _number(measured, "refill.differing_share")
    changed = _number(measured, "refill.changed_verdicts")
    samples = measured.get("refill.samples", {}).get("value")  # the rule's outcome
    if share is None or changed is None or samples not in ("differ", "alike"):
        return None
    link = _link("bernhard_figures", measured, "refill.differing_share", "evidence")
    if samples == "differ":
        sample = (
            f"in {_pct(share)} of the draws that is a different sample from the one his text "
            "describes"
        )
    else:
        sample = (
            f"only {_pct(share)} of the draws can tell that sample from the one his text describes"
        )
    if changed == 0:
        verdicts = "the verdicts on his figures come out the same on either sample"
    else:
        verdicts = (
            f"{count(int(changed), 'verdict')} on his figures "
            f"{'changes' if changed == 1 else 'change'} with the sample"
        )
    return (
        "**Bernhard's plots show a refilled column.** Where his text plots key 1 of many "
        "queries, his R code plots all keys of a few queries; "
        f"{sample}, and {verdicts}. This concerns the figures' code, not the "
        f"proposal itself ({link} in {{doc}}`bernhard_figures`)."
    )


def _training_finding(runs: Mapping[str, Mapping[str, Any]]) -> str | None:
    measured = _measured(runs, "string_reversal")
    outcomes = {k: measured.get(f"gap_{k}", {}).get("value") for k in ("a", "b")}
    spreads = {k: _number(measured, f"spread_{k}") for k in ("a", "b")}
    if not all(v in GAP_OUTCOMES for v in outcomes.values()) or None in spreads.values():
        return None
    link = _link("string_reversal", measured, "gap_a", "evidence")
    caveat = (
        "One toy task and two setups, with training budgets of the book's choosing (Chuang "
        f"states neither) ({link} in {{doc}}`string_reversal`)."
    )
    gapped = [k for k, v in outcomes.items() if v != "none"]
    if not gapped:
        return (
            "**No training gap in Chuang's sense.** In neither setup of Chuang's string "
            "reversal does 1/√d stay near guessing while the searched factor learns the task "
            "after the short training budget (whether it learns more slowly is in the "
            f"chapter's learning curves). {caveat}"
        )
    narrow, wide = sorted(spreads, key=lambda k: spreads[k])
    if gapped == [narrow]:
        ratio = spreads[wide] / spreads[narrow]  # spreads are positive (run_folders.MEASURED)
        which = (
            f"Only in the setup whose logits under 1/√d start {_times(ratio)} times narrower "
            "at initialization than in the other (the book reads this as an effect of the "
            "initialization scale)"
        )
    elif len(gapped) == 2:
        which = "In both setups"
    else:
        which = (
            "Only in the setup whose logits under 1/√d start wider at initialization (so the "
            "initialization scale does not explain it here)"
        )
    if all(outcomes[k] == "closes" for k in gapped):
        title, end = (
            "The training gap closes with training.",
            "and 1/√d catches up by the long budget",
        )
    elif all(outcomes[k] == "open" for k in gapped):
        title, end = "The training gap stays open.", "and it is still open after the long budget"
    else:
        title, end = (
            "The training gap closes in one setup only.",
            "and only one of them closes by the long budget",
        )
    return (
        f"**{title}** {which}, 1/√d stays near guessing after the short training budget "
        f"while the factor Chuang's search finds learns the task, {end}. {caveat}"
    )


def own_findings(runs: Mapping[str, Mapping[str, Any]]) -> str:
    """A MyST list of the book's own findings (beyond the verdicts on the four texts), each
    with its caveat and a link to its evidence; findings whose chapter did not run are left
    out."""
    items = [
        f"- {item}"
        for item in (_curve_finding(runs), _refill_finding(runs), _training_finding(runs))
        if item
    ]
    return "\n".join(items) if items else "No chapter that makes these findings has run yet."
