"""Reasons and settings that several sources' claims share."""

from __future__ import annotations

from attncore.claims.claim import Claim, Kind, Verdict

EXACT = "an identity has no condition to qualify it: it holds or it does not"

FIRST_TASK = (
    "Chiang and Cholak's FIRST task (the label is a bit string's first bit), with the "
    "book's small transformer trained at the chapter's length and scored exactly over all "
    "strings of each longer length (the chapter gives the model and how it differs from the "
    "authors')."
)

RUNS = "the chapter always computes what the rule reads, so nothing leaves it undecided"

SWEEP = (
    "The book's learning-rate sweep (its small model, one attention layer with pre-"
    "LayerNorm, trained with Adam, a warm-up and a cosine decay on string reversal at every "
    "rate of the sweep, several seeds; the chapter gives the details)."
)

SWEEP_CHECK = (
    "learning-rate sweep of the book's small model, runs trained as ensembles; differences "
    "paired by seed, one-sided t tests at 5 %"
)

ONE_SEED = "fewer than two seeds: too few seeds to tell"

PROOF_SAYS = {
    "holds": "derived minus stated simplifies to zero in {lines:share:line} ({names:items:line})",
    "fails": "{failed:items:failed}",
    "untestable": "no line of the argument was checked",
}
"""How a derivation re-derived line by line says its verdict (the rule
:func:`attncore.claims.rules.variance.proof_lines`), with :data:`PROOF_WORDS`."""

PROOF_WORDS = {
    "line": "{name}",
    "failed": 'the line "{name}" does not follow: derived minus stated is {residual}, not zero',
}

PROOF_CHECK = "each line of the argument re-derived with sympy; derived minus stated simplified"


def proof(chapter: str, source: str, section: str, quote: str, reading: str) -> Claim:
    """A derivation in ``source`` whose every line is re-derived and checked against the next
    (the rule :func:`attncore.claims.rules.variance.proof_lines`).

    >>> proof("derivations", "s", "1", "q", "r").says == PROOF_SAYS
    True
    """
    return Claim(
        chapter,
        source,
        section,
        quote,
        reading,
        Kind.IDENTITY,
        unreachable={Verdict.CAVEAT: EXACT},
        check=PROOF_CHECK,
        says=PROOF_SAYS,
        words=PROOF_WORDS,
    )


REPORTED_SIMULATION = (
    "symbolic derivation (cumulants of independent terms) and the footnote's simulation at "
    "d = {ds:range:d}, {pairs:,} pairs each (pass mark {z_limit:g} standard errors)"
)
"""How a claim that follows from the footnote's variance was checked: its own derivation and
the simulation reported for the footnote."""

LOWER_SENSITIVITY = {
    "holds": "{method}'s learning-rate sensitivity is clearly below 1/√d's: "
    "{difference:+.3g} ± {se:.2g} (mean ± standard error over {seeds:count:seed})",
    "caveat": "{method}'s learning-rate sensitivity is below 1/√d's on average, not "
    "clearly: {difference:+.3g} ± {se:.2g} (mean ± standard error over "
    "{seeds:count:seed})",
    "fails": "{method}'s learning-rate sensitivity is clearly above 1/√d's: "
    "{difference:+.3g} ± {se:.2g} (mean ± standard error over {seeds:count:seed})",
    "untestable": "{method}'s learning-rate sensitivity minus 1/√d's is "
    "{difference:+.3g} ± {se:.2g} (mean ± standard error over {seeds:count:seed}): the "
    "seeds cannot tell",
    "one-seed": ONE_SEED,
}
"""What the rules of a lower learning-rate sensitivity than 1/√d's say, by branch."""
