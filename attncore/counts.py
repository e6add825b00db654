"""Counts in prose: the numbers zero to ten as words, the noun in the number the count needs.

A page reads "two seeds" and "one setup" where a table would print 2 and 1; larger counts stay
in digits.

>>> counted(1, "seed"), counted(5, "seed"), counted(12, "seed"), counted(0, "setup")
('one seed', 'five seeds', '12 seeds', 'zero setups')
>>> counted(2, "child", "children")
'two children'
>>> [of_all(k, n, "rate") for k, n in [(1, 1), (3, 3), (0, 4), (2, 5)]]
['the one rate', 'all three rates', 'none of the four rates', 'two of the five rates']
"""

from __future__ import annotations

__all__ = ["counted", "number_word", "of_all"]

_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def number_word(count: int) -> str:
    """``count`` as a word from zero to ten, in digits (with thousands separators) beyond.

    >>> number_word(3), number_word(1500)
    ('three', '1,500')
    """
    return _WORDS[count] if 0 <= count < len(_WORDS) else f"{count:,}"


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``count`` in words (:func:`number_word`) and ``noun``, plural unless ``count`` is 1
    (``plural``, or ``noun`` with an ``s``)."""
    return f"{number_word(count)} {noun if count == 1 else plural or noun + 's'}"


def of_all(part: int, whole: int, noun: str, plural: str | None = None) -> str:
    """``part`` of ``whole`` things in words: "the one rate", "all three rates", "none of the
    four rates", "two of the five rates" (``whole`` at least 1)."""
    many = plural or noun + "s"
    if whole == 1:
        return f"the one {noun}" if part == 1 else f"not the one {noun}"
    if part == whole:
        return f"all {number_word(whole)} {many}"
    first = "none" if part == 0 else number_word(part)
    return f"{first} of the {number_word(whole)} {many}"
