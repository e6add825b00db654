"""The book's one style per method: the methods that share a figure never share a look."""

import itertools

import numpy as np
import pytest
from matplotlib.colors import to_rgb

from attncore.book.plotting import method_style

MIN_DELTA_E = 35.0
"""Smallest CIE76 colour difference between two methods trained side by side (the searched β
and 1/k_total were 33 apart, an orange and a vermilion hard to tell apart as thin lines)."""


def _lab(colour: str) -> np.ndarray:
    """CIELAB coordinates of an sRGB colour (D65 white)."""
    rgb = np.array(to_rgb(colour))
    linear = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    to_xyz = np.array(
        [[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]]
    )
    xyz = to_xyz @ linear / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def test_lab_of_black_and_white():
    assert np.allclose(_lab("black"), 0, atol=1e-6)
    assert np.allclose(_lab("white"), [100, 0, 0], atol=0.05)


def test_the_trained_methods_differ_in_colour_and_marker():
    experiment = pytest.importorskip("attncore.training.experiment")
    methods = experiment.METHODS["all"]
    styles = {name: method_style(name) for name in methods}
    assert len({s["marker"] for s in styles.values()}) == len(methods)
    assert len({s["label"] for s in styles.values()}) == len(methods)
    for a, b in itertools.combinations(methods, 2):
        difference = np.linalg.norm(_lab(styles[a]["color"]) - _lab(styles[b]["color"]))
        assert difference >= MIN_DELTA_E, (a, b, round(float(difference), 1))


def test_the_registered_rescalings_differ_in_colour_and_marker():
    """Chapter 4 draws every registered rescaling in one figure."""
    from attncore.rescalings import RESCALINGS

    styles = {name: method_style(name) for name in RESCALINGS}
    assert len({s["marker"] for s in styles.values()}) == len(styles)
    for a, b in itertools.combinations(styles, 2):
        difference = np.linalg.norm(_lab(styles[a]["color"]) - _lab(styles[b]["color"]))
        assert difference >= MIN_DELTA_E, (a, b, round(float(difference), 1))
