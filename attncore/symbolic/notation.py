r"""Symbols and unevaluated operators shared by every derivation.

The operators (:class:`Expectation`, :class:`Variance`, ...) stay unevaluated: they
name a quantity in a statement or a step and print in the book's notation. The
symbols carry the assumptions sympy may use (``d`` is a positive integer, a standard
deviation is positive), and their names are the keywords of
:meth:`~attncore.symbolic.derivation.Derivation.evaluate`.

>>> print(sp.latex(Variance(dot(q, k, d))))
\operatorname{Var}\left(\sum_{i=1}^{d} {k}_{i} {q}_{i}\right)
>>> Expectation(3)
3
"""

from __future__ import annotations

import sympy as sp

__all__ = [
    "CharacteristicFunction",
    "Covariance",
    "Cumulant",
    "CumulantGeneratingFunction",
    "Density",
    "Expectation",
    "Kurtosis",
    "MomentGeneratingFunction",
    "Norm",
    "Variance",
    "d",
    "d_k",
    "d_x",
    "dot",
    "i",
    "j",
    "k",
    "mu_4",
    "mu_k",
    "mu_q",
    "n",
    "q",
    "rho",
    "sigma_k",
    "sigma_q",
    "sigma_wk",
    "sigma_wq",
    "sigma_x",
    "t",
    "x",
]

# Dimensions and indices: positive integers that stay symbols.
d = sp.Symbol("d", integer=True, positive=True)
d_k = sp.Symbol("d_k", integer=True, positive=True)
d_x = sp.Symbol("d_x", integer=True, positive=True)
n = sp.Symbol("n", integer=True, positive=True)
i, j = sp.symbols("i j", integer=True, positive=True)

# Arguments of generating functions and densities.
t = sp.Symbol("t", real=True)
x = sp.Symbol("x", real=True)

# Moments of the components.
mu_q, mu_k = sp.symbols("mu_q mu_k", real=True)
sigma_q, sigma_k = sp.symbols("sigma_q sigma_k", positive=True)
rho = sp.Symbol("rho", real=True)
sigma_x, sigma_wq, sigma_wk = sp.symbols("sigma_x sigma_wq sigma_wk", positive=True)
mu_4 = sp.Symbol("mu_4", positive=True)  # fourth moment E[x_a^4] of a token component

# Query and key vectors, indexed by component.
q = sp.IndexedBase("q", real=True)
k = sp.IndexedBase("k", real=True)


def dot(a: sp.IndexedBase, b: sp.IndexedBase, dim: sp.Expr, index: sp.Symbol = i) -> sp.Sum:
    """The dot product ``sum_{index=1}^{dim} a_index b_index`` as an unevaluated sum.

    >>> dot(q, k, 3).doit()
    k[1]*q[1] + k[2]*q[2] + k[3]*q[3]
    """
    return sp.Sum(a[index] * b[index], (index, 1, dim))


class _Operator(sp.Function):
    """An unevaluated operator printed as ``name(args)`` in book notation."""

    _name = ""
    _open, _close = r"\left(", r"\right)"
    _str: tuple[str, str, str] | tuple[()] = ()

    def _latex_body(self, printer: sp.printing.latex.LatexPrinter) -> str:
        body = ", ".join(printer._print(a) for a in self.args[: self._main_args()])
        if len(self.args) > self._main_args():
            body += r" \,\middle|\, " + printer._print(self.args[-1])
        return body

    def _main_args(self) -> int:
        return 1

    def _latex(self, printer: sp.printing.latex.LatexPrinter, exp: str | None = None) -> str:
        out = rf"{self._name}{self._open}{self._latex_body(printer)}{self._close}"
        return out if exp is None else rf"{out}^{{{exp}}}"

    def _sympystr(self, printer: sp.printing.str.StrPrinter) -> str:
        name, opening, closing = self._str or (type(self).__name__, "(", ")")
        parts = [printer._print(a) for a in self.args]
        body = ", ".join(parts[: self._main_args()])
        if len(parts) > self._main_args():
            body += " | " + parts[-1]
        return f"{name}{opening}{body}{closing}"


class Expectation(_Operator):
    """``E[X]`` or, with a second argument, ``E[X | Y]``; a number is its own expectation."""

    nargs = (1, 2)
    _name, _open, _close = r"\mathbb{E}", r"\left[", r"\right]"
    _str = ("E", "[", "]")

    @classmethod
    def eval(cls, *args: sp.Basic) -> sp.Basic | None:
        return args[0] if args[0].is_number else None


class Variance(_Operator):
    """``Var(X)`` or, with a second argument, ``Var(X | Y)``."""

    nargs = (1, 2)
    _name = r"\operatorname{Var}"
    _str = ("Var", "(", ")")


class Covariance(_Operator):
    """``Cov(X, Y)``."""

    nargs = 2
    _name = r"\operatorname{Cov}"
    _str = ("Cov", "(", ")")

    def _main_args(self) -> int:
        return 2


class Kurtosis(_Operator):
    """``Kurt(X) = E[(X - EX)^4] / Var(X)^2`` (3 for a normal law)."""

    nargs = 1
    _name = r"\operatorname{Kurt}"
    _str = ("Kurt", "(", ")")


class Norm(_Operator):
    """The Euclidean length ``||v||`` of a vector ``v``."""

    nargs = 1
    _name, _open, _close = "", r"\left\|", r"\right\|"
    _str = ("", "||", "||")


class _Indexed(_Operator):
    """An operator of a random variable written as a subscript: ``name_{X}(arg)``."""

    nargs = 2

    def _main_args(self) -> int:
        return 2

    def _latex(self, printer: sp.printing.latex.LatexPrinter, exp: str | None = None) -> str:
        of, arg = (printer._print(a) for a in self.args)
        out = rf"{self._name}_{{{of}}}\left({arg}\right)"
        return out if exp is None else rf"{out}^{{{exp}}}"


class MomentGeneratingFunction(_Indexed):
    """``M_X(t) = E[exp(t X)]``, written ``MomentGeneratingFunction(X, t)``."""

    _name = "M"


class CumulantGeneratingFunction(_Indexed):
    """``K_X(t) = log M_X(t)``, written ``CumulantGeneratingFunction(X, t)``."""

    _name = "K"


class CharacteristicFunction(_Indexed):
    """``phi_X(t) = E[exp(i t X)]``, written ``CharacteristicFunction(X, t)``."""

    _name = r"\varphi"


class Density(_Indexed):
    """The probability density ``f_X(x)``, written ``Density(X, x)``."""

    _name = "f"


class Cumulant(_Operator):
    """The cumulant ``kappa_r(X)`` of order ``r``, written ``Cumulant(r, X)``."""

    nargs = 2

    def _main_args(self) -> int:
        return 2

    def _latex(self, printer: sp.printing.latex.LatexPrinter, exp: str | None = None) -> str:
        order, of = (printer._print(a) for a in self.args)
        out = rf"\kappa_{{{order}}}\left({of}\right)"
        return out if exp is None else rf"{out}^{{{exp}}}"
