"""What a chapter's rule tests (``tests/test_rules_<chapter>.py``) hand to
``tests/test_reachability.py``: each such module files, beside its tests, the inputs that
drive its rules through every verdict (``DRIVERS``) and every other branch (``BRANCHES``)."""

from __future__ import annotations

from collections.abc import Callable

from attncore.claims import Finding, Verdict

H, C, F, U = Verdict.HOLDS, Verdict.CAVEAT, Verdict.FAILS, Verdict.UNTESTABLE

Driver = Callable[[], Finding]
"""A small synthetic input put through a rule: its finding (or an assessment that carries
one as ``finding``)."""

Drivers = dict[str, dict[Verdict, Driver]]
"""Per claim the chapter tests: for each verdict its rule can return, a driver that returns
it."""

Branches = dict[str, dict[str, Driver]]
"""Per claim: for each branch of its rule that no verdict's driver takes, a driver that
takes it."""
