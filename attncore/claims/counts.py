"""Counts in a computed sentence, written as a reader says them: small numbers in words
("all five cells", "neither of the two setups", "two of seven"), larger ones in digits.

>>> count_words(5, 5, "cells"), count_words(0, 2, "setups"), count_words(13, 35, "cells")
('all five cells', 'neither of the two setups', '13 of 35 cells')
"""

from __future__ import annotations

from attncore.checks import ParameterError

__all__ = ["count_words", "number_word"]

_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def number_word(value: int) -> str:
    """``value`` in words up to ten, in digits above.

    >>> number_word(3), number_word(12)
    ('three', '12')
    """
    return _WORDS[value] if 0 <= value < len(_WORDS) else f"{value:,}"


def count_words(part: int, whole: int, noun: str) -> str:
    """``part`` of ``whole`` ``noun`` (a plural ending in s) in words, digits where ``whole``
    is above ten.

    >>> count_words(2, 2, "cells"), count_words(0, 4, "cells"), count_words(1, 1, "cells")
    ('both cells', 'none of the four cells', 'the one cell')
    >>> count_words(3, 7, "families"), count_words(0, 1, "setups")
    ('three of seven families', 'not the one setup')
    """
    if whole < 0 or not 0 <= part <= whole:
        raise ParameterError(f"part must be in [0, whole] with whole >= 0, got {part}, {whole}")
    if whole > len(_WORDS) - 1:
        return f"{part:,} of {whole:,} {noun}"
    if whole == 1:
        singular = noun[:-3] + "y" if noun.endswith("ies") else noun.removesuffix("s")
        return f"the one {singular}" if part else f"not the one {singular}"
    if part == whole:
        return f"both {noun}" if whole == 2 else f"all {number_word(whole)} {noun}"
    if part == 0:
        return (
            f"neither of the two {noun}"
            if whole == 2
            else f"none of the {number_word(whole)} {noun}"
        )
    return f"{number_word(part)} of {number_word(whole)} {noun}"
