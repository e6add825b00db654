"""Decisive thresholds: named, justified, and shown not to decide a verdict (or marked).

A threshold is a number a rule needs to turn measurements into a verdict: a factor around 1
read as "about unit", a share of keys above which attention counts as nearly uniform. Each is
a :class:`Threshold`, a float that carries its name (the keyword of the rules it decides), a
one-sentence reason and a band: the neighbouring values a referee could have chosen as well,
half to twice the threshold on the scale it lives on. A rule names the thresholds that decide
it with :func:`decided_by`; its finding then carries them, and the rule is recomputed across
each band, one threshold at a time with the others at their values. A verdict that changes
inside a band is *fragile*, and each :class:`Flip` says at which value and to what.

A rule module's thresholds are data beside it, ``thresholds/<module>.yaml`` (:func:`thresholds_of`):
under each key (the name the rules use) a ``value``, a ``reason``, and the keyword ``name`` and
``scale`` where they are not the key in lower case and ``ratio``.

>>> ABOUT = Threshold(2.0, "about", "a factor 2 either side of 1 is 'about 1'", scale="factor")
>>> ABOUT.band()
(1.4142135623730951, 4.0)
>>> @decided_by(ABOUT)
... def about_one(x: float, *, about: float = ABOUT) -> Finding:
...     verdict = Verdict.HOLDS if 1 / about <= x <= about else Verdict.FAILS
...     return Finding("blog-softmax-example", verdict)
>>> found = about_one(3.0)
>>> found.verdict.value, [(f.threshold, round(f.value, 2), f.verdict.value) for f in found.fragile]
('does not hold', [('about', 3.0, 'holds')])
>>> about_one(1.1).fragile
()
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from importlib import resources
from types import SimpleNamespace
from typing import Any, TypeVar

import numpy as np
import yaml

from attncore.checks import ParameterError
from attncore.claims.catalogue import Verdict
from attncore.claims.finding import Finding
from attncore.evidence.statistics import FAMILY_LEVEL, level, margin

__all__ = ["SCALES", "Flip", "Threshold", "decided_by", "thresholds_of", "verdict_of"]

SCALES = ("ratio", "factor", "share", "fixed")
"""How a threshold's band is drawn:

- ``ratio``: a positive number, half to twice it (a tolerance, a share of configurations);
- ``factor``: a factor of at least 1 that reads "within ×f", from √f to f² (half to twice its
  logarithm, since ×1 would be no band at all);
- ``share``: a probability close to 1 (0.95 of the keys), half to twice its distance from 1;
- ``fixed``: the source's own number, or a test's level, which no band applies to: the source
  said it, or the number of draws and the multiplicity correction control its errors."""

BAND_POINTS = 9
"""Values tried on each side of a threshold before the change point is narrowed down."""

BISECTIONS = 12
"""Halvings of the interval in which a verdict changes: 2⁻¹² of the band's span."""


class Threshold(float):
    """A number that decides a verdict, with its ``name`` (the keyword a rule takes it by), a
    one-sentence ``reason`` and the ``scale`` its band is drawn on (one of :data:`SCALES`).

    >>> t = Threshold(0.95, "uniform_share", "effective keys above 95 % of n", scale="share")
    >>> t + 0, [round(end, 3) for end in t.band()]
    (0.95, [0.9, 0.975])
    """

    name: str
    reason: str
    scale: str

    def __new__(cls, value: float, name: str, reason: str, scale: str = "ratio") -> Threshold:
        if scale not in SCALES:
            raise ParameterError(f"scale must be one of {', '.join(SCALES)}, got {scale!r}")
        value = float(value)
        if not math.isfinite(value) or (scale != "fixed" and value <= 0):
            raise ParameterError(f"{name} must be a finite positive number, got {value!r}")
        if scale == "factor" and value <= 1:
            raise ParameterError(f"{name} is a factor and must be above 1, got {value!r}")
        if scale == "share" and value >= 1:
            raise ParameterError(f"{name} is a share and must be below 1, got {value!r}")
        self = super().__new__(cls, value)
        self.name, self.reason, self.scale = name, reason, scale
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (Threshold, (float(self), self.name, self.reason, self.scale))

    def at(self, value: float) -> Threshold:
        """The same threshold set to ``value`` (a rule called with another value)."""
        return Threshold(value, self.name, self.reason, self.scale)

    def band(self) -> tuple[float, float] | None:
        """The lowest and highest value a referee could equally have chosen; ``None`` for a
        ``fixed`` threshold."""
        v = float(self)
        if self.scale == "ratio":
            return v / 2, v * 2
        if self.scale == "factor":
            return math.sqrt(v), v * v
        if self.scale == "share":
            return 1 - 2 * (1 - v), 1 - (1 - v) / 2
        return None

    def _position(self, value: float) -> float:
        """Where ``value`` lies on the threshold's scale (a log where the band is a ratio)."""
        if self.scale == "share":
            return -math.log(1 - value)
        return math.log(value)

    def _value(self, position: float) -> float:
        if self.scale == "share":
            return 1 - math.exp(-position)
        return math.exp(position)

    def record(self) -> dict[str, Any]:
        """The threshold as plain data for a run's manifest.

        >>> Threshold(1.5, "fast", "a factor 1.5", scale="factor").record()["band"]
        [1.224744871391589, 2.25]
        """
        band = self.band()
        return {
            "name": self.name,
            "value": float(self),
            "reason": self.reason,
            "band": list(band) if band else None,
        }


FACTS = {"family_level": FAMILY_LEVEL, "level": 100 * level(2.0)}
FACTS |= {"margin_2": margin(2), "margin_10": margin(10)}
"""What a threshold file may name as a ``value`` or a ``reason``'s slot: the family level, the
one-sided level of two standard errors (%), and :func:`~attncore.evidence.statistics.margin`."""
_FIELDS = ("value", "reason", "name", "scale")


@functools.cache
def thresholds_of(rules: str) -> SimpleNamespace:
    """The thresholds of the rule module ``rules``, read from ``thresholds/<rules>.yaml``.

    >>> learned = thresholds_of("training").LEARNED
    >>> learned + 0, learned.name, learned.reason
    (0.95, 'learned', "Chuang's own mark, 'above 95%'")
    """
    source = resources.files(__package__) / f"{rules}.yaml"
    if not source.is_file():
        raise ParameterError(f"rules must name a module of attncore.claims.rules, got {rules!r}")
    text = source.read_text(encoding="utf-8")
    if len(keys := re.findall(r"^(\w+):", text, flags=re.M)) != len(set(keys)):
        raise ParameterError(f"{rules}.yaml names a threshold twice: {sorted(keys)}")
    entries = yaml.safe_load(text) or {}
    return SimpleNamespace(**{k: _entry(f"{rules}.yaml: {k}", k, e) for k, e in entries.items()})


def _entry(where: str, key: str, entry: Any) -> Threshold:
    """One entry of a threshold file as a :class:`Threshold`, or a one-line error at ``where``."""
    if not isinstance(entry, dict) or not {"value", "reason"} <= set(entry) <= set(_FIELDS):
        raise ParameterError(f"{where} must have a value and a reason (and a name or scale)")
    value = entry["value"]
    value = FACTS.get(value, value) if isinstance(value, str) else value
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ParameterError(f"{where}: value must be a number or one of {', '.join(FACTS)}")
    try:
        reason = str(entry["reason"]).format(**FACTS)
    except (KeyError, IndexError, ValueError):
        raise ParameterError(f"{where}: a reason's slots are {', '.join(FACTS)}") from None
    name = str(entry.get("name", key.lower()))
    return Threshold(value, name, reason, entry.get("scale", "ratio"))


@dataclass(frozen=True)
class Flip:
    """Where a verdict changes inside a threshold's band: the threshold's ``name``, the
    ``value`` at which the verdict becomes ``verdict`` (the first value, seen from the
    threshold, that gives it)."""

    threshold: str
    value: float
    verdict: Verdict

    def record(self) -> dict[str, Any]:
        """The flip as plain data for a run's manifest."""
        return {"threshold": self.threshold, "value": self.value, "verdict": self.verdict.value}


Result = TypeVar("Result")


def verdict_of(result: Any) -> Verdict:
    """The verdict of a rule's result: a :class:`Finding`, or anything holding one as
    ``.finding`` (an assessment with its sentence)."""
    return getattr(result, "finding", result).verdict


def _with_finding(result: Result, finding: Finding) -> Result:
    if isinstance(result, Finding):
        return finding  # type: ignore[return-value]
    return replace(result, finding=finding)  # type: ignore[type-var]


def _flips(
    rule: Callable[..., Any],
    args: Sequence[Any],
    kwargs: dict[str, Any],
    threshold: Threshold,
    verdict: Verdict,
) -> list[Flip]:
    """Where, on each side of ``threshold`` and inside its band, the rule's verdict first
    differs from ``verdict``, narrowed down by bisection."""
    band = threshold.band()
    if band is None:
        return []

    def judged(position: float) -> Verdict:
        value = threshold._value(position)
        return verdict_of(rule(*args, **{**kwargs, threshold.name: value}))

    centre = threshold._position(float(threshold))
    flips = []
    for end in (threshold._position(band[0]), threshold._position(band[1])):
        near = centre
        for far in np.linspace(centre, end, BAND_POINTS + 1)[1:]:
            found = judged(far)
            if found != verdict:
                for _ in range(BISECTIONS):
                    middle = (near + far) / 2
                    at_middle = judged(middle)
                    if at_middle == verdict:
                        near = middle
                    else:
                        far, found = middle, at_middle
                flips.append(Flip(threshold.name, threshold._value(far), found))
                break
            near = far
    return flips


def decided_by(*thresholds: Threshold) -> Callable[[Callable[..., Result]], Callable[..., Result]]:
    """Mark a rule as decided by ``thresholds``: the rule takes each as a keyword argument of
    the threshold's name; its finding comes back with the thresholds it used and, where its
    verdict changes inside a band, the :class:`Flip` of each change (see the module's
    example). A rule may return a :class:`Finding` or an object with a ``finding`` field."""
    names = [t.name for t in thresholds]
    if len(set(names)) != len(names):
        raise ParameterError(f"thresholds must have distinct names, got {names}")

    def mark(rule: Callable[..., Result]) -> Callable[..., Result]:
        @functools.wraps(rule)
        def judged(*args: Any, **kwargs: Any) -> Result:
            result = rule(*args, **kwargs)
            used = [t.at(kwargs[t.name]) if t.name in kwargs else t for t in thresholds]
            verdict = verdict_of(result)
            flips = [f for t in used for f in _flips(rule, args, kwargs, t, verdict)]
            finding = getattr(result, "finding", result)
            return _with_finding(
                result, replace(finding, thresholds=tuple(used), fragile=tuple(flips))
            )

        judged.thresholds = thresholds  # type: ignore[attr-defined]
        return judged

    return mark
