"""The everyday changes CONTRIBUTING walks through touch the files it names, and no others:
a throwaway rescaling and a throwaway claim are added to a temporary copy of the repository,
and the tests that would catch a forgotten file pass there."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from attncore.book.launch import write_colab_notebooks

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    """The tracked files of the working tree, in a fresh git repository of their own."""
    tracked = subprocess.run(
        ["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True
    ).stdout.decode()
    root = tmp_path / "repo"
    for name in filter(None, tracked.split("\0")):
        if (REPO / name).is_file():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, root / name)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
    subprocess.run([*git, "init", "-q"], cwd=root, check=True)
    subprocess.run([*git, "add", "-A"], cwd=root, check=True)
    subprocess.run([*git, "commit", "-qm", "copy"], cwd=root, check=True)
    return root


def _append(path: Path, text: str) -> None:
    path.write_text(path.read_text() + text)


def _changed(root: Path) -> list[str]:
    status = subprocess.run(
        ["git", "status", "--porcelain"], cwd=root, capture_output=True, text=True, check=True
    ).stdout
    return sorted(line[3:] for line in status.splitlines())


def _pytest(root: Path, *arguments: str) -> None:
    """Run pytest in ``root`` on its own copy of the package (not the installed one)."""
    environment = {**os.environ, "PYTHONPATH": str(root), "PYTHONDONTWRITEBYTECODE": "1"}
    which = subprocess.run(
        [sys.executable, "-c", "import attncore; print(attncore.__file__)"],
        cwd=root, env=environment, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert which.startswith(str(root)), which
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x", *arguments],
        cwd=root, env=environment, capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]


RESCALING = '''

@register("throwaway_half_sqrt_d", label="1/(2√d)", source="vaswani2017attention")
def throwaway_half_sqrt_d(keys: np.ndarray, n: int, d: int) -> float:
    """Half the factor of vaswani2017attention, added by a test and never kept.

    >>> throwaway_half_sqrt_d(np.ones((2, 16)), 2, 16)
    0.125
    """
    return 0.5 / math.sqrt(d)
'''

RESCALING_TEST = """

SOURCES["throwaway_half_sqrt_d"] = "vaswani2017attention"


def test_throwaway_half_sqrt_d_is_half_of_sqrt_d():
    from attncore.rescalings import RESCALINGS

    keys = np.ones((3, 64))
    half = RESCALINGS["throwaway_half_sqrt_d"].factor_for(keys)
    assert half == 0.5 * RESCALINGS["sqrt_d"].factor_for(keys)
"""


def test_a_new_rescaling_touches_the_registry_and_its_test(copy: Path) -> None:
    _append(copy / "attncore" / "rescalings.py", RESCALING)
    _append(copy / "tests" / "test_rescalings.py", RESCALING_TEST)
    assert _changed(copy) == ["attncore/rescalings.py", "tests/test_rescalings.py"]
    # where the rescalings are listed, counted, coloured, studied and trained
    _pytest(
        copy,
        "tests/test_rescalings.py", "tests/test_registry.py", "tests/test_plotting.py",
        "tests/test_budget.py", "tests/test_alignment.py", "tests/test_training.py",
        "tests/test_engine.py", "attncore/rescalings.py", "attncore/book/plotting.py",
    )  # fmt: skip


CLAIM = r"""
  vaswani-throwaway-mean:
    chapter: why_sqrt_d
    section: 3.2.1, footnote 4
    quote: Then their dot product, $q \cdot k = \sum_{i=1}^{d_k} q_i k_i$, has mean 0
    reading: "q·k has mean 0 for independent components of mean 0: a claim added by a test."
    kind: identity
    unreachable:
      caveat: !shared exact
      untestable: a mean is always measured
    check: the simulated mean against its standard error
    says:
      holds: the simulated mean {mean:.3f} is within three standard errors of 0
      fails: the simulated mean {mean:.3f} is {distance:.1f} standard errors from 0
"""

RULE = '''

def throwaway_mean(mean: float, se: float) -> Finding:
    """Whether a simulated mean of q·k lies within three standard errors of 0."""
    distance = abs(mean) / se
    verdict = Verdict.HOLDS if distance <= 3 else Verdict.FAILS
    return Finding("vaswani-throwaway-mean", verdict, values={"mean": mean, "distance": distance})
'''

RULE_TEST = """

def test_throwaway_mean_fails_far_from_zero():
    assert rules.throwaway_mean(0.5, 0.01).verdict is Verdict.FAILS


DRIVERS["vaswani-throwaway-mean"] = {
    H: lambda: rules.throwaway_mean(0.001, 0.01),
    F: lambda: rules.throwaway_mean(0.5, 0.01),
}
"""

RECORD = '\npage.record(rules.throwaway_mean(0.0, 1.0), evidence="sec-variance-simulated")\n```\n'


def test_a_new_claim_touches_its_catalogue_rule_rule_test_and_chapter_and_its_colab_copy(
    copy: Path,
) -> None:
    _append(copy / "attncore" / "claims" / "catalogue" / "vaswani.yaml", CLAIM.lstrip("\n"))
    _append(copy / "attncore" / "claims" / "rules" / "variance.py", RULE)
    _append(copy / "tests" / "test_rules_variance.py", RULE_TEST)
    chapter = copy / "notebooks" / "why_sqrt_d.md"
    text = chapter.read_text()
    last = text.index("```", text.rindex("page.record("))
    chapter.write_text(text[:last].rstrip("\n") + RECORD + text[last + 3 :])
    write_colab_notebooks(copy)  # make colab
    assert _changed(copy) == [
        "attncore/claims/catalogue/vaswani.yaml",
        "attncore/claims/rules/variance.py",
        "notebooks/colab/why_sqrt_d.ipynb",
        "notebooks/why_sqrt_d.md",
        "tests/test_rules_variance.py",
    ]
    # the catalogue, the drivers of every verdict, the ledger and the rule's own tests
    _pytest(
        copy,
        "tests/test_claims.py", "tests/test_rules_variance.py", "tests/test_ledger.py",
        "tests/test_reachability.py", "tests/test_launch.py", "-m", "not notebooks and not browser",
        "-k", "not test_reachability or throwaway or every_tested_claim_has_drivers",
    )  # fmt: skip
