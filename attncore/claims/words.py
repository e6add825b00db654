"""Counts as a person writes them in a sentence: small numbers in words, a part of a whole
as "both", "neither", "all five", "none of the three", measured values without an
exponent, and values over seeds as a mean with its interval or a median with its range.

Tables keep digits; the rules' sentences use these.

>>> count(5, "seed"), count(1, "search"), count(12, "run")
('five seeds', 'one search', '12 runs')
>>> [share(k, 2, "setup") for k in (0, 1, 2)]
['neither setup', 'one of the two setups', 'both setups']
>>> [share(k, 5, "seed") for k in (0, 3, 5)]
['none of the five seeds', 'three of the five seeds', 'all five seeds']
>>> share(1, 1, "search"), share(0, 1, "search"), share(3, 7, "family")
('the one search', 'no search', 'three of the seven families')
>>> binomial_share(5, 5, "seed")
'all five seeds (95 % Wilson: 57–100 %)'
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import pandas as pd

from attncore.evidence import ALIKE
from attncore.evidence.training import mean_and_half_width
from attncore.intervals import binomial_interval

__all__ = [
    "binomial_share",
    "count",
    "interval",
    "listing",
    "number",
    "percentage",
    "plain",
    "power",
    "share",
    "steps_text",
]

_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def plain(x: float, digits: int = 3) -> str:
    """``x`` to ``digits`` significant digits as a sentence writes it: thousands separators
    instead of an exponent, and decimals down to 0.0001 (an exponent only below that).

    >>> plain(2093.4), plain(3570.0), plain(0.001537), plain(5.436), plain(1.2e-6), plain(0)
    ('2,090', '3,570', '0.00154', '5.44', '1.2e-06', '0')
    """
    if x == 0 or not math.isfinite(x):
        return f"{x:g}"
    exponent = math.floor(math.log10(abs(x)))
    if exponent < -4:
        return f"{x:.{digits}g}"
    if exponent >= digits - 1:
        return f"{round(x, digits - 1 - exponent):,.0f}"
    return f"{x:.{digits - 1 - exponent}f}"


def number(n: int, zero: str = "zero") -> str:
    """``n`` in words up to ten, in digits (with thousands separators) above; ``zero`` for 0
    ("none" where a sentence counts cases).

    >>> number(3), number(10), number(15000), number(0, zero="none")
    ('three', 'ten', '15,000', 'none')
    """
    if n == 0:
        return zero
    return _WORDS[n] if 0 < n < len(_WORDS) else f"{n:,}"


def listing(items: Sequence[str]) -> str:
    """Items as a sentence lists them: ``a``, ``a and b``, ``a, b and c``; empty for none.

    >>> listing(["g"]), listing(["g", "h"]), listing(["g", "h", "i"]), listing([])
    ('g', 'g and h', 'g, h and i', '')
    """
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _noun(n: int, noun: str) -> str:
    """``noun`` in the number ``n`` needs: ``family`` -> ``families``, ``search`` ->
    ``searches``, ``seed`` -> ``seeds``."""
    if n == 1:
        return noun
    if noun.endswith("y") and noun[-2:-1] not in tuple("aeiou"):
        return noun[:-1] + "ies"
    return noun + ("es" if noun.endswith(("s", "sh", "ch", "x")) else "s")


def count(n: int, noun: str) -> str:
    """``n`` of ``noun``, the number in words (:func:`number`) and the noun in the plural
    unless ``n`` is one."""
    return f"{number(n)} {_noun(n, noun)}"


def share(k: int, n: int, noun: str) -> str:
    """``k`` of ``n`` things called ``noun``, as a sentence says it: "both setups", "neither
    setup", "all five seeds", "none of the three runs", "two of the five seeds"."""
    if not 0 <= k <= n:
        raise ValueError(f"k must be in [0, n], got {k} of {n}")
    if n == 1:
        return f"the one {noun}" if k else f"no {noun}"
    if n == 2:
        return {0: f"neither {noun}", 1: f"one of the two {_noun(2, noun)}"}.get(
            k, f"both {_noun(2, noun)}"
        )
    if k == n:
        return f"all {count(n, noun)}"
    head = "none" if k == 0 else number(k)
    return f"{head} of the {count(n, noun)}"


def binomial_share(k: int, n: int, noun: str) -> str:
    """:func:`share` of random units (seeds, runs, searches) that succeeded, with the 95 %
    Wilson interval of the share of successes they estimate: a count is not a certainty."""
    low, high = binomial_interval(k, n)
    return f"{share(k, n, noun)} (95 % Wilson: {100 * low:.0f}–{100 * high:.0f} %)"


def percentage(x: float) -> str:
    """A share as a percentage to one decimal; a share below 1 never reads as 100%.

    >>> percentage(0.2345), percentage(1.0), percentage(0.99996)
    ('23.4%', '100.0%', '> 99.9%')
    """
    text = f"{100 * x:.1f}%"
    return "> 99.9%" if text == "100.0%" and x < 1 else text


def interval(values: Sequence[float] | pd.Series, *, share: bool = True) -> str:
    """The mean of ``values`` over seeds with its 95 % Student t interval
    (:func:`~attncore.evidence.training.mean_and_half_width`), as percentages when ``share``
    (clipped to 0 to 100 %); a single seed gets no interval, seeds that agree to the digits
    shown none either (:data:`~attncore.evidence.ALIKE`).

    >>> interval([0.97, 0.99, 1.0, 0.98, 0.99]), interval([0.9998, 0.9999, 0.9999])
    ('98.6% [97.1, 100.0]', '> 99.9% [99.9, 100.0]')
    >>> interval([1200.0, 1500.0, 1350.0], share=False), interval([0.5])
    ('1350 [977, 1723]', '50.0% (one seed)')
    >>> interval([1.0, 1.0, 1.0])
    '100.0% (seeds alike)'

    """
    mean, half = mean_and_half_width(values)
    text = percentage(mean) if share else f"{mean:.0f}"
    if math.isnan(half):
        return f"{text} (one seed)"
    low, high = mean - half, mean + half
    if share:
        # outward rounding, so that an interval below 100 % never prints as [100.0, 100.0]
        low_pct = math.floor(1000 * max(low, 0.0)) / 10
        high_pct = math.ceil(1000 * min(high, 1.0)) / 10
        bounds = f"{low_pct:.1f}", f"{high_pct:.1f}"
    else:
        bounds = f"{low:.0f}", f"{high:.0f}"
    return f"{text} ({ALIKE})" if bounds[0] == bounds[1] else f"{text} [{bounds[0]}, {bounds[1]}]"


def steps_text(steps: pd.Series) -> str:
    """Steps to a target over seeds (NaN where a seed never got there): the median and the
    range of the seeds that got there, and how many did.

    >>> steps_text(pd.Series([1000.0, 1200.0, float("nan")]))
    'median 1100 (1000 to 1200; two of the three seeds)'
    >>> steps_text(pd.Series([float("nan")] * 2)), steps_text(pd.Series([400.0]))
    ('never', 'step 400')
    """
    reached = steps.dropna()
    if reached.empty:
        return "never"
    if len(steps) == 1:
        return f"step {reached.iloc[0]:.0f}"
    return (
        f"median {reached.median():.0f} ({reached.min():.0f} to {reached.max():.0f}; "
        f"{share(len(reached), len(steps), 'seed')})"
    )


def _superscript(number: int) -> str:
    return str(number).translate(str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻"))


def power(base: int, exponent: int) -> str:
    """``base ** exponent`` in plain text, as the power and its value to three digits.

    >>> power(101, 20)
    '101²⁰ ≈ 1.22 × 10⁴⁰'
    """
    mantissa, tens = f"{float(base) ** exponent:.2e}".split("e")
    return f"{base}{_superscript(exponent)} ≈ {mantissa} × 10{_superscript(int(tens))}"
