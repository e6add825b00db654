"""Counts as a person writes them in a sentence: small numbers in words, a part of a whole
as "both", "neither", "all five", "none of the three", and measured values without an
exponent.

Tables keep digits; the rules' sentences use these.

>>> count(5, "seed"), count(1, "search"), count(12, "run")
('five seeds', 'one search', '12 runs')
>>> [share(k, 2, "setup") for k in (0, 1, 2)]
['neither setup', 'one of the two setups', 'both setups']
>>> [share(k, 5, "seed") for k in (0, 3, 5)]
['none of the five seeds', 'three of the five seeds', 'all five seeds']
>>> share(1, 1, "search"), share(0, 1, "search"), share(3, 7, "family")
('the one search', 'no search', 'three of the seven families')
"""

from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = ["count", "listing", "number", "plain", "share"]

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
