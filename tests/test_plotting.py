"""The book's one style per method: the methods that share a figure never share a look."""

import itertools

import numpy as np
import pytest

from attncore.book.plotting import MIN_DELTA_E, lab, method_style


def test_lab_of_black_and_white():
    assert np.allclose(lab("black"), 0, atol=1e-6)
    assert np.allclose(lab("white"), [100, 0, 0], atol=0.05)


def test_the_trained_methods_differ_in_colour_and_marker():
    experiment = pytest.importorskip("attncore.training.experiment")
    methods = experiment.METHODS["all"]
    styles = {name: method_style(name) for name in methods}
    assert len({s["marker"] for s in styles.values()}) == len(methods)
    assert len({s["label"] for s in styles.values()}) == len(methods)
    for a, b in itertools.combinations(methods, 2):
        difference = np.linalg.norm(lab(styles[a]["color"]) - lab(styles[b]["color"]))
        assert difference >= MIN_DELTA_E, (a, b, round(float(difference), 1))


def test_the_registered_rescalings_differ_in_colour_and_marker():
    """Chapter 4 draws every registered rescaling in one figure."""
    from attncore.rescalings import RESCALINGS

    styles = {name: method_style(name) for name in RESCALINGS}
    assert len({s["marker"] for s in styles.values()}) == len(styles)
    for a, b in itertools.combinations(styles, 2):
        difference = np.linalg.norm(lab(styles[a]["color"]) - lab(styles[b]["color"]))
        assert difference >= MIN_DELTA_E, (a, b, round(float(difference), 1))


def test_the_stability_chapters_methods_are_told_apart_by_colour():
    from attncore.book.figures_stability import style
    from attncore.training.stability import METHODS

    colours = {method: lab(style(method)["color"]) for method in METHODS}
    close = [
        (a, b)
        for a, b in itertools.combinations(colours, 2)
        if np.linalg.norm(colours[a] - colours[b]) < MIN_DELTA_E
    ]
    assert not close, f"attncore/book/figures_stability.py: give {close} colours further apart"
