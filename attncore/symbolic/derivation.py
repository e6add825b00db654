r"""The result type of every derivation: a statement, its assumptions and its steps.

A :class:`Derivation` holds the statement as a sympy relation, the assumptions it
rests on as plain sentences, and the named steps that lead to it, each a chain of
equal (or ordered) expressions with the rule that justifies it. A notebook shows
it with ``IPython.display.Markdown(derivation.to_markdown())``, or just by leaving
it as the last expression of a cell; ``derivation.latex`` feeds
``IPython.display.Math``.

>>> a, b = sp.symbols("a b", positive=True)
>>> square = sp.Function("f")(a)
>>> step = Step("expand", (square, (a + b) ** 2, a**2 + 2 * a * b + b**2), "distributivity")
>>> result = Derivation("A binomial", sp.Eq(square, step.chain[-1]), ("a, b > 0",), (step,))
>>> print(result.latex)
f{\left(a \right)} = a^{2} + 2 a b + b^{2}
>>> result.evaluate(a=2, b=3)
25.0
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from typing import ClassVar

import sympy as sp

from attncore.checks import ParameterError
from attncore.symbolic.typeset import latex, plural

__all__ = ["Check", "Derivation", "Shown", "Step"]


@dataclass(frozen=True)
class Step:
    """One named step: ``chain[0] = chain[1] = ... = chain[-1]`` because of ``reason``.

    ``relation`` is ``sp.Eq`` (default), ``sp.Le`` or ``sp.Ge``; it links every pair of
    neighbours in the chain, and :attr:`equation` states the first against the last.

    >>> s = Step("bound", (sp.Integer(1), sp.Integer(2)), "1 <= 2", relation=sp.Le)
    >>> print(s.latex, s.equation)
    1 \\leq 2 True
    """

    name: str
    chain: tuple[sp.Basic, ...]
    reason: str
    relation: type[sp.core.relational.Relational] = sp.Eq

    _symbols: ClassVar[dict[type, str]] = {sp.Eq: "=", sp.Le: r"\leq", sp.Ge: r"\geq"}

    def __post_init__(self) -> None:
        if len(self.chain) < 2:
            raise ParameterError(f"chain must hold at least 2 expressions, got {len(self.chain)}")
        if self.relation not in self._symbols:
            raise ParameterError(f"relation must be sp.Eq, sp.Le or sp.Ge, got {self.relation!r}")

    @property
    def equation(self) -> sp.Basic:
        """The relation between the first and the last expression of the chain."""
        if self.relation is sp.Eq:
            return sp.Eq(self.chain[0], self.chain[-1], evaluate=False)
        return self.relation(self.chain[0], self.chain[-1])

    @functools.cached_property
    def latex(self) -> str:
        """The whole chain in LaTeX."""
        joiner = f" {self._symbols[self.relation]} "
        return joiner.join(latex(part) for part in self.chain)


@dataclass(frozen=True)
class Check:
    """A line of a source's proof set against its re-derivation: ``lhs = rhs`` is claimed.

    The check is not decided here: :attr:`residual` is ``lhs - rhs``, and whoever judges the
    line (a verdict rule) simplifies it; it holds when the residual simplifies to 0.

    >>> a = sp.Symbol("a")
    >>> Check("square", (a + 1) ** 2, a**2 + 2 * a + 1).residual.expand()
    0
    """

    name: str
    lhs: sp.Expr
    rhs: sp.Expr

    @property
    def residual(self) -> sp.Expr:
        """``lhs - rhs``, unsimplified."""
        return self.lhs - self.rhs


@dataclass
class Shown:
    """What one page has shown of its numbered derivations, so that it states each
    assumption and each step's rule once: ``assumptions`` maps an assumption to the label of
    the equation it was stated with, ``steps`` a step's reason to that label and the step's
    number, ``chains`` a step's whole chain (its LaTeX) likewise."""

    assumptions: dict[str, str] = dataclasses.field(default_factory=dict)
    steps: dict[str, tuple[str, int]] = dataclasses.field(default_factory=dict)
    chains: dict[str, tuple[str, int]] = dataclasses.field(default_factory=dict)


@dataclass(frozen=True)
class Derivation:
    """A derived statement with its explicit assumptions, steps and, for a claim, a verdict.

    ``statement`` is a sympy relation (usually ``sp.Eq``); ``verdict`` says whether a
    claim of a source text holds as stated; ``caveats`` records what the statement
    does not say; ``checks`` are the lines of a source's proof set against the derivation
    (:class:`Check`), left for a verdict rule to decide.
    """

    title: str
    statement: sp.Basic
    assumptions: tuple[str, ...]
    steps: tuple[Step, ...] = ()
    verdict: str = ""
    caveats: tuple[str, ...] = ()
    checks: tuple[Check, ...] = ()
    label: str = ""

    def numbered(self, label: str) -> Derivation:
        """The same derivation whose statement is shown as the numbered equation ``label``,
        which pages cite with ``{eq}`label```.

        >>> one = Derivation("One", sp.Eq(sp.Symbol("y"), 1), ("nothing",))
        >>> "$$ y = 1 $$ (eq-one)" in one.numbered("eq-one").to_markdown()
        True
        """
        return dataclasses.replace(self, label=label)

    def residuals(self) -> dict[str, sp.Expr]:
        """``{check name: lhs - rhs}`` for every :class:`Check` of the derivation."""
        return {c.name: c.residual for c in self.checks}

    @functools.cached_property
    def latex(self) -> str:
        """The statement in LaTeX, terms in a reader's order."""
        return latex(self.statement)

    @property
    def lhs(self) -> sp.Basic:
        """Left-hand side of the statement."""
        return self.statement.lhs

    @property
    def rhs(self) -> sp.Basic:
        """Right-hand side of the statement (the closed form)."""
        return self.statement.rhs

    def evaluate(self, **values: float) -> float | sp.Expr:
        """The right-hand side with symbols replaced by name; a float once none is left.

        An asymptotic remainder ``O(...)`` is dropped first.

        >>> n = sp.Symbol("n", positive=True)
        >>> half = Derivation("Half", sp.Eq(sp.Symbol("h"), n / 2 + sp.O(1 / n, (n, sp.oo))), ())
        >>> half.evaluate(n=3), half.evaluate()
        (1.5, n/2)
        """
        expr = self.rhs.removeO() if isinstance(self.rhs, sp.Expr) else self.rhs
        by_name = {s.name: s for s in expr.free_symbols if isinstance(s, sp.Symbol)}
        unknown = sorted(set(values) - set(by_name))
        if unknown:
            raise ParameterError(
                f"{unknown[0]} is not a symbol of this statement; allowed: {sorted(by_name)}"
            )
        result = expr.subs({by_name[name]: sp.sympify(v) for name, v in values.items()})
        if result.free_symbols:
            return result
        return float(result.evalf())

    def to_markdown(self, shown: Shown | None = None) -> str:
        """The derivation as MyST Markdown: assumptions, the statement as display math
        (numbered when the derivation has a :attr:`label`), the steps with their reasons, the
        verdict and the caveats. Texts are Markdown with ``$...$`` math.

        With ``shown``, what the page stated already with an earlier numbered derivation is
        referred to, not repeated: its assumptions, a step's rule and a step's whole chain;
        a numbered derivation adds what it states first to ``shown``.

        >>> one = Derivation("One", sp.Eq(sp.Symbol("y"), 1), ("nothing",), verdict="Holds.")
        >>> print(one.to_markdown())
        **One.** *Assumptions:*
        <BLANKLINE>
        - nothing
        <BLANKLINE>
        $$ y = 1 $$
        <BLANKLINE>
        *Verdict:* Holds.
        <BLANKLINE>
        >>> page = Shown()
        >>> _ = one.numbered("eq-one").to_markdown(page)
        >>> print(one.to_markdown(page).splitlines()[2])
        - 1 assumption stated with {eq}`eq-one`
        """
        shown = Shown() if shown is None else shown
        lines = [f"**{self.title}.** *Assumptions:*", ""]
        earlier: dict[str, int] = {}
        for assumption in self.assumptions:
            if assumption in shown.assumptions:
                label = shown.assumptions[assumption]
                earlier[label] = earlier.get(label, 0) + 1
            else:
                lines.append(f"- {assumption}")
        lines += [
            f"- {plural(count, 'assumption')} stated with {{eq}}`{label}`"
            for label, count in earlier.items()
        ]
        label = f" ({self.label})" if self.label else ""
        lines += ["", f"$$ {self.latex} $${label}", ""]
        if self.steps:
            lines += [f":::{{dropdown}} The derivation, in {plural(len(self.steps), 'step')}", ""]
            here = Shown(steps={}, chains={})  # what this derivation's earlier steps showed
            for number, step in enumerate(self.steps, start=1):
                lines += [*self._step_lines(number, step, shown, here), ""]
                here.steps.setdefault(step.reason, ("", number))
                here.chains.setdefault(step.latex, ("", number))
            lines += [":::", ""]
        if self.verdict:
            lines += [f"*Verdict:* {self.verdict}", ""]
        if self.caveats:
            lines += ["*Caveats:*", ""]
            lines += [f"- {c}" for c in self.caveats]
        if self.label:
            for assumption in self.assumptions:
                shown.assumptions.setdefault(assumption, self.label)
            for number, step in enumerate(self.steps, start=1):
                shown.steps.setdefault(step.reason, (self.label, number))
                shown.chains.setdefault(step.latex, (self.label, number))
        return "\n".join(lines).rstrip() + "\n"

    @staticmethod
    def _step_lines(number: int, step: Step, shown: Shown, here: Shown) -> list[str]:
        """A step as a numbered item: its rule (or where this derivation, ``here``, or the
        page, ``shown``, stated it) and its chain (or, when one of them showed the same
        chain, where)."""

        def where(found: tuple[str, int]) -> str:
            label, earlier = found
            return f"step {earlier}" + (f" of {{eq}}`{label}`" if label else " above")

        for seen in (here, shown):
            if step.latex in seen.chains:
                return [f"{number}. *{step.name}*: as {where(seen.chains[step.latex])}."]
        reason = step.reason
        for seen in (shown, here):
            if step.reason in seen.steps:
                reason = f"by the rule of {where(seen.steps[step.reason])}"
        return [f"{number}. *{step.name}*: {reason}.", "", f"   $$ {step.latex} $$"]

    def _repr_markdown_(self) -> str:
        return self.to_markdown()
