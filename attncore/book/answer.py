"""The first page's answer to "Should I use 1/√d?" and the book's own findings.

Rules decide, a person says: each function below reads the ledger's verdicts or the chapters'
measurements and returns a branch (``"paragraph.branch"`` of ``answer.yaml``) with its slots'
values, which :func:`attncore.claims.saying.say` fills. A run folder may come from anyone: its
texts pass :func:`attncore.book.markup.literal`; a value of the wrong type is not measured.

>>> rows = [{"claim": "vaswani-variance", "verdict": "holds"},
...         {"claim": "vaswani-small-gradients", "verdict": "holds"}]
>>> print(recommendation(rows, {}).splitlines()[3][:60])
- **Use 1/√d**, times a constant if you tune one: it gives t
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from importlib.resources import files
from typing import Any, NamedTuple

import pandas as pd
import yaml

from attncore.book.markup import literal
from attncore.book.sections import evidence_link
from attncore.claims import Verdict
from attncore.claims.saying import say
from attncore.evidence.length_generalization import OUTCOMES
from attncore.evidence.statistics import clear_side
from attncore.evidence.training import GAP_OUTCOMES

__all__ = ["ALTERNATIVES", "CLEAR", "COSTS_TABLE", "STABILIZERS", "STATED", "TEST_TIME"]
__all__ += ["Costs", "cost_table", "own_findings", "recommendation"]

TEMPLATES = yaml.safe_load((files(__package__) / "answer.yaml").read_text(encoding="utf-8"))
NAMES, GLOSSES = TEMPLATES["names"], TEMPLATES["glosses"]  # the methods' names, their glosses

STATED = ("rescaling-curve",)
"""The chapters' headlines that the book's own findings state (and no other list repeats)."""
ALTERNATIVES = {m: NAMES[m] for m in ("none", "log_n", "qk_norm", "mup", "k_total")}
"""The alternatives to 1/√d the first page weighs, by their every-rescaling names."""
TEST_TIME = {m: NAMES[m] for m in ("sqrt_d + yarn", "sqrt_d + qwen")}
"""The length chapter's 1/√d models with a factor set at test time (cheap for trained models)."""
STABILIZERS = {
    "wortsman-mitigations-effective": (NAMES["qk_layernorm"], "qk_layernorm"),
    "zhai-sigma-reparam-robust": (NAMES["sigma_reparam"], "sigma_reparam"),
}
"""The claims on whether a method made the final loss less sensitive to the learning rate."""
CLEAR = 2.0
"""The level, in standard errors (a t test over the draws), at which an alternative's
selectivity differs clearly from 1/√d's, as in the chapter that measures it."""
COSTS_TABLE = "tbl-intro-costs"
"""The name of the first page's table of what the alternatives cost."""

_H, _C, _F = Verdict.HOLDS.value, Verdict.CAVEAT.value, Verdict.FAILS.value
_FIRST = (OUTCOMES[0], OUTCOMES[1], OUTCOMES[4], OUTCOMES[3])  # said of FIRST, in this order
_SELECTIVITY = ("selectivity", "selectivity_se")
_RATIOS = ("selectivity", "jacobian_norm", "gradient_norm")  # costs as ratios to 1/√d's
_SENSITIVE = ("qk_layernorm", "sigma_reparam", "sqrt_d", "log_n")  # sensitivities the page gives
_BRANCHES = ("holds", "caveat", "fails")  # of the stabilizers' rules, as the page says them
_COUNTS = {"length_generalization": ("n_seeds",), "stability": ("n_rates", "n_seeds", "steps")}
Runs = Mapping[str, Mapping[str, Any]]
Said = tuple[str, dict[str, Any]]  # a branch ("paragraph.branch" of answer.yaml), its slots' values


def _say(key: str, **values: Any) -> str:
    paragraph, _, branch = key.partition(".")
    return say(TEMPLATES[paragraph][branch], values)


def _measured(runs: Runs, chapter: str) -> dict[str, dict[str, Any]]:
    return {m["name"]: m for m in runs.get(chapter, {}).get("measurements", [])}


def _number(measured: Mapping[str, Mapping[str, Any]], name: str) -> float | None:
    value = measured.get(name, {}).get("value")
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return float(value)


def _link(chapter: str, record: Mapping[str, Any], text: str) -> str:
    return evidence_link(chapter, str(record.get("evidence", "")), _say(f"links.{text}"))


def _pct(share: Any) -> str:
    under = not ((share := float(share)) >= 0.01 or share == 0)
    return _say("percent.share", percent=100 * share, under=under)


def _default(verdicts: Mapping[str, str]) -> Said | None:
    """Which factor to use, by the two verdicts on the reason Vaswani et al. give for 1/√d."""
    variance, gradients = verdicts.get("vaswani-variance"), verdicts.get("vaswani-small-gradients")
    if variance == _H and gradients in (_H, _C):
        return "default.use", {"partly": gradients == _C}
    if variance == _H and gradients in (_F, Verdict.UNTESTABLE.value):
        return ("default.sound" if gradients == _F else "default.untested"), {}
    return ("default.unconfirmed", {}) if variance in (_C, _F) else None


def _rests(verdicts: Mapping[str, str]) -> list[Said]:
    """What the default rests on: Chuang's independence, and the libraries' initializations."""
    independence = verdicts.get("chuang-proposition-5")
    defaults = verdicts.get("chuang-standard-init-conditions")
    relaxed = verdicts.get("chuang-relaxed-variance") in (_H, _C)
    argument = {_H: ("rests.holds", {}), _C: ("rests.needs", {"reading": True})}
    argument |= {_F: ("rests.needs", {"reading": False})}
    start = {_H: ("rests.meet", {"nearly": False}), _C: ("rests.meet", {"nearly": True})}
    start |= {_F: ("rests.miss", {"still": relaxed})}
    return [s for s in (argument.get(independence), start.get(defaults)) if s]


def _longer(verdicts: Mapping[str, str], runs: Runs) -> list[Said]:
    """Longer contexts: the routes that kept FIRST solved (a factor trained in, one set at test
    time), whether 1/√d flattens attention as n grows, who kept FIRST solved, and at what scale."""
    measured = _measured(runs, "length_generalization")
    names = {"sqrt_d": NAMES["sqrt_d"], **{k: literal(v) for k, v in ALTERNATIVES.items()}}
    names |= TEST_TIME
    outcome = {m: measured.get(f"{m}.longest", {}).get("value") for m in names}
    routes = (outcome["log_n"] == OUTCOMES[0], OUTCOMES[0] in [outcome[m] for m in TEST_TIME])
    advice = {(True, True): "both", (True, False): "trained", (False, True): "test time"}
    said: list[Said] = [(f"long.{advice[routes]}", {})] if routes in advice else []
    if (flattening := verdicts.get("chen-uniform-as-n-grows")) in (_H, _C, _F):
        said.append(("long.steady" if flattening == _F else "long.flattens", {}))
    groups = {o: [n for m, n in names.items() if outcome[m] == o] for o in _FIRST}
    train, longest = _number(measured, "train_length"), _number(measured, "longest")
    if train is None or longest is None or not any(groups.values()):
        return said
    parts = "; ".join(_say(f"long.{o}", names=group) for o, group in groups.items() if group)
    link = _link("length_generalization", measured["longest"], "accuracy")
    first = {"train": train, "longest": longest, "parts": parts, "link": link}
    return [*said, ("long.first", first), _scale(runs, "length_generalization")]


def _rates(rows: Sequence[Mapping[str, Any]], runs: Runs) -> list[Said]:
    """Whether qk-layernorm and σReparam made the loss less sensitive to the learning rate, by their
    rules' branches (a verdict may be capped: Claim.part), with the sensitivities and scale."""
    branch = {row["claim"]: row.get("branch", "") for row in rows}
    groups = {b: [n for c, (n, _) in STABILIZERS.items() if branch.get(c) == b] for b in _BRANCHES}
    if not (parts := [_say(f"rates.{b}", names=names) for b, names in groups.items() if names]):
        return []
    measured = _measured(runs, "stability")
    sizes = [(NAMES[m], _number(measured, f"{m}.sensitivity")) for m in _SENSITIVE]
    sizes = [_say("rates.size", name=n, value=v) for n, v in sizes if v is not None]
    sized = {"parts": "; ".join(parts), "sizes": ", ".join(sizes) if len(sizes) > 1 else ""}
    return [("rates.line", sized), _scale(runs, "stability")]


def _scale(runs: Runs, chapter: str) -> Said:
    """The scale of a line's evidence: ``chapter``'s model, task and counts, where it has them."""
    measured = _measured(runs, chapter)
    width, layers = _number(measured, "d_model"), _number(measured, "n_layers")
    model = _say("scale.models") if width is None else _say("scale.wide", width=width)
    if layers is not None:
        model = _say("scale.layers", model=model, layers=int(layers))
    counts = [(k, runs.get(chapter, {}).get("parameters", {}).get(k)) for k in _COUNTS[chapter]]
    counts = ", ".join(_say(f"scale.{k}", n=n) for k, n in counts if type(n) is int)  # no bool
    return "scale.line", {"model": model, "task": _say(f"scale.{chapter}"), "counts": counts}


def _ratio(measured: Mapping[str, Mapping[str, Any]], name: str, column: str) -> float | None:
    value, ref = _number(measured, f"{name}.{column}"), _number(measured, f"sqrt_d.{column}")
    if value is None or not ref or not math.isfinite(ratio := value / ref):
        return None
    return ratio


def _compared(measured: Mapping[str, Mapping[str, Any]]) -> dict[str, str]:
    """The alternatives with every cost measured, each ``more``, ``less`` or ``same`` selective
    than 1/√d (clearly: :data:`CLEAR`); empty without the chapter's d, n, threshold and draws."""
    if any(_number(measured, k) is None for k in ("d", "n", "threshold", "draws")):
        return {}
    compared, draws = {}, int(_number(measured, "draws") or 0)
    for r in ALTERNATIVES:
        values = [_number(measured, f"{m}.{c}") for m in (r, "sqrt_d") for c in _SELECTIVITY]
        values += [_ratio(measured, r, c) for c in _RATIOS]
        if None not in values and _number(measured, f"{r}.saturated_share") is not None:
            sel, se, ref, ref_se = values[:4]
            side = clear_side(sel - ref, math.hypot(se, ref_se), draws, CLEAR)
            compared[r] = {"above": "more", "below": "less", None: "same"}[side]
    return compared


class Costs(NamedTuple):
    """The first page's table of costs: numbers, caption and the format of each column."""

    frame: pd.DataFrame
    caption: str
    formats: dict[str, Callable[[object], str]]


def _ratio_cell(value: Any) -> str:
    """A ratio with two significant digits, trailing zeros kept (``5.0``, ``0.017``, ``956``)."""
    return f"{float(value):,.0f}" if float(value) >= 10 else f"{float(value):#.2g}"


def cost_table(runs: Mapping[str, Mapping[str, Any]]) -> Costs | None:
    """What each alternative costs beside 1/√d: the every-rescaling chapter's selectivity,
    share of saturated rows, softmax Jacobian norm and gradient to the query at its (d, n),
    each but the share as a multiple of 1/√d's; None where that chapter did not measure them.

    >>> cost_table({}) is None
    True
    """
    measured = _measured(runs, "every_rescaling")
    if not (names := list(_compared(measured))):
        return None
    d, n, threshold = (float(_number(measured, k) or 0.0) for k in ("d", "n", "threshold"))
    columns = {_say(f"columns.{c}", threshold=threshold): c for c in TEMPLATES["columns"]}
    shares = [_number(measured, f"{r}.saturated_share") for r in ["sqrt_d", *names]]
    ratios = {c: [1.0] + [_ratio(measured, r, c) for r in names] for c in _RATIOS}
    labels = [NAMES["sqrt_d"], *(ALTERNATIVES[r] for r in names)]
    frame = pd.DataFrame({t: ratios.get(c, shares) for t, c in columns.items()}, index=labels)
    frame = frame.rename_axis(_say("costs.index"))
    formats = {t: _ratio_cell if c in _RATIOS else _pct for t, c in columns.items()}
    return Costs(frame, _say("costs.caption", d=d, n=n), formats)


def _costs(runs: Runs) -> Said | None:
    """The costs of :func:`cost_table` in words, the alternatives grouped by direction."""
    measured = _measured(runs, "every_rescaling")
    if not (compared := _compared(measured)):
        return None
    share = _number(measured, "sqrt_d.saturated_share") or 0.0
    tests = {  # which of a group the clause names again: more rows on one key, less gradient
        "more": lambda r: (_number(measured, f"{r}.saturated_share") or 0.0) > share,
        "less": lambda r: (_ratio(measured, r, "gradient_norm") or 1.0) < 1.0,
    }
    label, clauses = {k: literal(v) for k, v in ALTERNATIVES.items()}, []
    threshold = _number(measured, "threshold")
    for key in ("more", "less", "same"):
        if group := [r for r, direction in compared.items() if direction == key]:
            some = [label[r] for r in group if key in tests and tests[key](r)]
            branch = f"costs.{key} {'all' if len(some) == len(group) else 'some'}"
            also = some and _say(branch, names=some, many=len(some) > 1, threshold=threshold)
            names = [label[r] for r in group]
            clauses.append(_say(f"costs.{key}", names=names, many=len(group) > 1, also=also or ""))
    text = "; ".join(clauses)
    notes = "; ".join(_say(f"costs.note {r}") for r in ("mup", "qk_norm") if r in compared)
    d, n = (_number(measured, k) or 0.0 for k in ("d", "n"))
    link = _link("every_rescaling", measured["d"], "measurements")
    values = {"clauses": text[:1].upper() + text[1:], "table": COSTS_TABLE, "link": link}
    return "costs.line", values | {"notes": notes, "d": d, "n": n}


def recommendation(rows: Sequence[Mapping[str, Any]], runs: Mapping[str, Mapping[str, Any]]) -> str:
    """MyST: the decision box (which factor to use and why, what to do for long contexts and
    at high learning rates, what the alternatives cost), each line chosen by the verdicts in
    ``rows`` (the ledger's) or the measurements in ``runs`` and naming the scale of its
    evidence, then what the default rests on; what did not run is left out."""
    verdicts = {row["claim"]: row["verdict"] for row in rows}
    lead = _compared(_measured(runs, "every_rescaling")).get("k_total") == "less"
    lines = {
        "answer.default": [_default(verdicts)],
        "answer.long": _longer(verdicts, runs),
        "answer.rates": _rates(rows, runs),
        "answer.not k_total" if lead else "answer.alternatives": [_costs(runs)],
    }
    said = {key: " ".join(_say(s[0], **s[1]) for s in line if s) for key, line in lines.items()}
    shown = [_say(key, text=text) for key, text in said.items() if text]
    rests = " ".join(_say(key, **values) for key, values in _rests(verdicts))
    if not shown and not rests:
        return _say("answer.none")
    parts = [_say("answer.box", lines="\n".join(shown))] if shown else []
    text = "\n\n".join(parts + ([_say("answer.rests", rests=rests)] if rests else []))
    terms = [gloss for name, gloss in GLOSSES.items() if name in text]
    return text + ("\n\n" + _say("answer.terms", terms="; ".join(terms)) if terms else "")


def _curve(runs: Runs) -> Said | None:
    """The every-rescaling chapter's headline on the curve every constant factor sits on."""
    headlines = {h["name"]: h for h in runs.get("every_rescaling", {}).get("headlines", [])}
    if (headline := headlines.get(STATED[0])) is None:
        return None
    link = _link("every_rescaling", headline, "evidence")
    return "findings.curve", {"headline": literal(headline["text"]), "link": link}


def _refill(runs: Runs) -> Said | None:
    """Whether Bernhard's code plots another sample than his text, and which verdicts change."""
    measured = _measured(runs, "bernhard_figures")
    share = _number(measured, "refill.differing_share")
    changed = _number(measured, "refill.changed_verdicts")
    samples = measured.get("refill.samples", {}).get("value")  # the rule's outcome
    if share is None or changed is None or samples not in ("differ", "alike"):
        return None
    sample = _say(f"findings.{samples}", share=_pct(share))
    changes = {"changed": int(changed), "one": changed == 1}
    verdicts = _say("findings.changed", **changes) if changed else _say("findings.unchanged")
    link = _link("bernhard_figures", measured["refill.differing_share"], "evidence")
    return "findings.refill", {"sample": sample, "verdicts": verdicts, "link": link}


def _training(runs: Runs) -> Said | None:
    """Whether 1/√d shows Chuang's training gap, where (by the setups' spread) and if it closes."""
    measured = _measured(runs, "string_reversal")
    outcomes = {k: measured.get(f"gap_{k}", {}).get("value") for k in ("a", "b")}
    spreads = {k: _number(measured, f"spread_{k}") for k in ("a", "b")}
    if not all(v in GAP_OUTCOMES for v in outcomes.values()) or None in spreads.values():
        return None
    caveat = _say("findings.caveat", link=_link("string_reversal", measured["gap_a"], "evidence"))
    if not (gapped := [k for k, v in outcomes.items() if v != GAP_OUTCOMES[0]]):
        return "findings.no gap", {"caveat": caveat}
    narrow, wide = sorted(spreads, key=lambda k: spreads[k])
    if gapped == [narrow]:  # spreads are positive (run_folders.MEASURED)
        ratio = spreads[wide] / spreads[narrow]  # two digits, whole numbers from 10 on
        which = _say("findings.narrow", ratio=f"{ratio:,.0f}" if ratio >= 10 else f"{ratio:.2g}")
    else:
        which = _say("findings.both" if len(gapped) == 2 else "findings.wide")
    ends = {outcomes[k] for k in gapped}
    branch = ends.pop() if len(ends) == 1 else "mixed"
    return f"findings.{branch}", {"which": which, "caveat": caveat}


def own_findings(runs: Mapping[str, Mapping[str, Any]]) -> str:
    """A MyST list of the book's own findings (beyond the verdicts on the four texts), each with
    its caveat and a link to its evidence; findings whose chapter did not run are left out."""
    items = [f"- {_say(s[0], **s[1])}" for s in (_curve(runs), _refill(runs), _training(runs)) if s]
    return "\n".join(items) if items else _say("findings.none")
