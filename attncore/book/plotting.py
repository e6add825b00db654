"""One look for every figure of the book, and one colour, marker and label per method.

A *method* is a registered rescaling (:data:`attncore.rescalings.RESCALINGS`) or a scaling
that exists only in the trained model (:data:`TRAINED_ONLY`). :func:`method_style` gives
every chapter the same colour, marker and label for it; a newly registered rescaling gets
a colour at least :data:`MIN_DELTA_E` from every other, so it needs no entry here.

>>> use_book_style()
>>> import matplotlib
>>> matplotlib.rcParams["figure.dpi"]
110.0
>>> method_style("sqrt_d")["label"], method_style("sqrt_d") == method_style("sqrt_d")
('1/√d', True)
>>> method_style("learned")["label"]
'learned β per head'
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import Any

import matplotlib
import matplotlib.collections
import matplotlib.figure
import matplotlib.lines
import numpy as np
import seaborn as sns
from matplotlib.colors import rgb_to_hsv, to_rgb, to_rgba_array

from attncore.checks import ParameterError
from attncore.rescalings import RESCALINGS

__all__ = [
    "CAPTION_COLOURS",
    "COLUMN_PX",
    "CONTRAST",
    "LINE_STYLES",
    "MIN_DELTA_E",
    "MIN_TEXT_PX",
    "TRAINED_ONLY",
    "colour_words",
    "figure_styles",
    "fit_text",
    "lab",
    "method_style",
    "smallest_text_px",
    "use_book_style",
]

TRAINED_ONLY: dict[str, str] = {
    "learned": "learned β per head",
    "qk_norm_learned": "QK-norm with learned gain",
    "cosine_learned": "cosine with learned τ (Swin v2)",
    "ssmax_learned": "SSMax with learned s",
}
"""Scalings of the trained model that are not rescalings of fixed queries and keys, with
their labels."""

_FIXED = {
    "sqrt_d": ("#0072B2", "o"),
    "k_total": ("#E69F00", "s"),
    "none": ("#555555", "x"),
    "mup": ("#009E73", "^"),
    "constant": ("#A50F15", "D"),
    "qk_norm": ("#CC79A7", "v"),
    "learned": ("#8C564B", "P"),
    "qk_norm_learned": ("#332288", "X"),
    "n_sqrt_d": ("#8C6D31", "<"),
    "mean_key_length": ("#6A3D9A", "p"),
    "key_rss": ("#E7298A", "h"),
    "key_p_norm": ("#17BECF", "*"),
    "log_n": ("#66A61E", "d"),
    "log512_n": ("#000000", ">"),
    "ssmax": ("#DDCC77", "8"),
    "cosine": ("#2200FF", "H"),
    "cosine_learned": ("#66CCEE", "H"),
    "ssmax_learned": ("#DDCC77", "8"),
}
"""Every method of the book, mostly with colours of the Okabe–Ito palette for the ones it
compares most; the others were chosen so that any two rescalings drawn in one figure of
chapter 4 are at least 36 apart in CIELAB (``tests/test_plotting.py``), and the searched β
(dark red) and the QK-norm with a learned gain (indigo) are set off from 1/k_total (orange)
and the fixed-gain QK-norm (pink), which train beside them."""

MIN_DELTA_E = 35.0
"""Smallest CIE76 colour difference between two methods drawn side by side (the searched β
and 1/k_total were 33 apart, an orange and a vermilion hard to tell apart as thin lines)."""

_CANDIDATES = [f"#{r:02X}{g:02X}{b:02X}" for r in range(0, 256, 51) for g in range(0, 256, 51)
               for b in range(0, 256, 51)]  # fmt: skip
"""Colours a rescaling registered later may get: a grid of the sRGB cube (those light enough
to tell from black lines and dark enough to read on white, :func:`_spare_colours`)."""

_MARKERS = ["+", "1", "2", "3", "4", "|", "_", "x", "$a$", "$b$", "$c$", "$d$", "$e$"]
"""Markers, none of them in :data:`_FIXED`, for rescalings registered later."""


def lab(colour: Any) -> np.ndarray:
    """CIELAB coordinates of an sRGB colour (D65 white), for colour differences (CIE76).

    >>> lab("white").round(1).tolist(), lab("black").round(1).tolist()
    ([100.0, 0.0, 0.0], [0.0, 0.0, 0.0])
    """
    rgb = np.array(to_rgb(colour))
    linear = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    to_xyz = np.array(
        [[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]]
    )
    xyz = to_xyz @ linear / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


@functools.cache
def _spare_colours(count: int) -> list[str]:
    """``count`` colours for rescalings without a colour of :data:`_FIXED`: each in turn the
    candidate farthest (CIE76) from every colour taken so far, so that any two methods are
    :data:`MIN_DELTA_E` apart by construction while the candidates allow it."""
    taken = [lab(colour) for colour, _ in _FIXED.values()]
    pool = {colour: lab(colour) for colour in _CANDIDATES if 25 <= lab(colour)[0] <= 75}
    chosen: list[str] = []
    for _ in range(count):
        gaps = {c: min(np.linalg.norm(x - y) for y in taken) for c, x in pool.items()}
        best = max(gaps, key=lambda c: gaps[c])
        if gaps[best] < MIN_DELTA_E:
            raise ParameterError(
                f"no colour is left {MIN_DELTA_E:g} apart from the book's {len(taken)} method "
                "colours: give the new rescaling a colour in attncore/book/plotting.py's _FIXED"
            )
        chosen.append(best)
        taken.append(pool.pop(best))
    return chosen


CONTRAST = ("#1A1A1A", "#8C8C8C", "#525252", "#BDBDBD")
"""Inks for contrasts that are not methods (two samples, the phases of a search, subsample
sizes): greys, told apart by line style and marker, so that a colour of :data:`_FIXED`
always means its method."""


def method_style(name: str, **params: float) -> dict[str, Any]:
    """Colour, marker and label of the method ``name`` for matplotlib (``**style``).

    ``params`` fill the label of a parametrized rescaling (``method_style("constant",
    beta=5.0)``).
    """
    if name in TRAINED_ONLY:
        label = TRAINED_ONLY[name]
    elif name in RESCALINGS:
        label = RESCALINGS[name].with_params(**params).label
    else:
        known = ", ".join([*RESCALINGS, *TRAINED_ONLY])
        raise ParameterError(f"method must be one of {known}, got {name!r}")
    if name in _FIXED:
        color, marker = _FIXED[name]
    else:
        later = [n for n in RESCALINGS if n not in _FIXED]
        index = later.index(name)
        color, marker = _spare_colours(len(later))[index], _MARKERS[index % len(_MARKERS)]
    return {"color": color, "marker": marker, "label": label}


def use_book_style() -> None:
    """Apply the book's seaborn theme: white grid, colour-blind palette, readable sizes."""
    sns.set_theme(context="notebook", style="whitegrid", palette="colorblind")
    matplotlib.rcParams.update(
        {"figure.dpi": 110, "axes.titlesize": 11, "axes.labelsize": 10, "legend.framealpha": 0.9}
    )


CAPTION_COLOURS: dict[str, frozenset[str]] = {
    "black": frozenset({"black"}),
    "grey": frozenset({"grey"}),
    "gray": frozenset({"grey"}),
    "red": frozenset({"red"}),
    "vermilion": frozenset({"orange", "red"}),
    "orange": frozenset({"orange"}),
    "brown": frozenset({"brown"}),
    "yellow": frozenset({"yellow"}),
    "green": frozenset({"green"}),
    "teal": frozenset({"green", "cyan"}),
    "cyan": frozenset({"cyan"}),
    "blue": frozenset({"blue"}),
    "indigo": frozenset({"blue", "purple"}),
    "purple": frozenset({"purple"}),
    "pink": frozenset({"pink"}),
}
"""The colour words a caption may use, each with the colours of :func:`colour_words` it
names (a caption's "teal" is drawn green or cyan)."""

_HUES = [(12, "red"), (42, "orange"), (70, "yellow"), (165, "green"), (195, "cyan"),
         (255, "blue"), (290, "purple"), (345, "pink"), (360, "red")]  # fmt: skip
"""Upper ends of the hue ranges (degrees) of the chromatic colour words."""


def colour_words(colours: Any) -> np.ndarray:
    """The colour word of each colour of ``colours`` (anything :func:`matplotlib.colors.
    to_rgba_array` reads: names, hex codes, an array of RGBA rows): ``black``, ``grey`` and
    ``white`` for the unsaturated, else a hue (``red`` … ``pink``), dark orange-reds being
    ``brown``.

    >>> colour_words(["#0072B2", "#E69F00", "#8C6D31", "#555555", "#1A1A1A", "#009E73"]).tolist()
    ['blue', 'orange', 'brown', 'grey', 'black', 'green']
    """
    rgb = to_rgba_array(colours)[:, :3]
    hsv = rgb_to_hsv(np.clip(rgb, 0, 1))
    hue, saturation, value = hsv[..., 0] * 360, hsv[..., 1], hsv[..., 2]
    edges = np.array([edge for edge, _ in _HUES])
    names = np.array([name for _, name in _HUES])
    words = names[np.searchsorted(edges, hue, side="right").clip(0, len(names) - 1)]
    brown = ((hue < 50) | (hue >= 345)) & (value < 0.6) & (saturation < 0.8)
    words = np.where(brown, "brown", words)
    grey = (saturation < 0.25) | (value * saturation < 0.12)
    shade = np.where(value < 0.2, "black", np.where(value < 0.93, "grey", "white"))
    return np.where(grey, shade, words).astype(object)


LINE_STYLES = {"-": "solid", "--": "dashed", ":": "dotted", "-.": "dash-dotted"}
"""matplotlib's line styles by the word a caption uses for each."""


def _dash_word(dashes: Any) -> str:
    """The word of a dash pattern ``(offset, on-off sequence or None)`` of a collection."""
    sequence = dashes[1]
    if sequence is None or len(sequence) == 0:
        return "solid"
    if len(sequence) >= 4:
        return "dash-dotted"
    return "dashed" if sequence[0] > sequence[1] else "dotted"


def _figures(fig: matplotlib.figure.FigureBase) -> Iterator[matplotlib.figure.FigureBase]:
    yield fig
    for sub in fig.subfigs:
        yield from _figures(sub)


def _drawn(fig: matplotlib.figure.Figure) -> Iterator[Any]:
    """The data artists of ``fig``: lines, collections and patches of every axes, and the
    handles of every legend (not ticks, grid lines, spines or backgrounds)."""
    legends = [legend for f in _figures(fig) for legend in f.legends]
    for ax in fig.axes:
        yield from (*ax.lines, *ax.collections, *ax.patches)
        if ax.get_legend() is not None:
            legends.append(ax.get_legend())
    for legend in legends:
        yield from legend.legend_handles


def figure_styles(fig: matplotlib.figure.Figure) -> dict[str, list[str]]:
    """The colour words (:func:`colour_words`) and line-style words (:data:`LINE_STYLES`) of
    what ``fig`` draws and its legends show, for checking a caption against its figure.

    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> _ = ax.plot([0, 1], [0, 1], color="#0072B2", ls="--")
    >>> _ = ax.vlines([0.5], 0, 1, color="0.5", ls=":")
    >>> figure_styles(fig)
    {'colours': ['blue', 'grey'], 'line_styles': ['dashed', 'dotted']}
    >>> plt.close(fig)
    """
    colours: set[str] = set()
    styles: set[str] = set()
    for artist in _drawn(fig):
        if artist is None or not artist.get_visible():
            continue
        if isinstance(artist, matplotlib.lines.Line2D):
            if artist.get_linestyle() in LINE_STYLES and artist.get_linewidth() > 0:
                styles.add(LINE_STYLES[artist.get_linestyle()])
                colours.update(colour_words([artist.get_color()]))
            if artist.get_marker() not in (None, "", "None", " "):
                for face in (artist.get_markerfacecolor(), artist.get_markeredgecolor()):
                    if not (isinstance(face, str) and face.lower() == "none"):
                        colours.update(colour_words([face]))
            continue
        if isinstance(artist, matplotlib.collections.Collection):
            if isinstance(artist, matplotlib.collections.LineCollection):
                styles.update(_dash_word(dashes) for dashes in artist.get_linestyles())
            for rgba in (artist.get_facecolors(), artist.get_edgecolors()):
                rgba = np.asarray(rgba).reshape(-1, 4)
                visible = rgba[rgba[:, 3] > 0.05]
                colours.update(colour_words(visible) if len(visible) else [])
            continue
        if artist.get_fill():  # a patch: a bar, a band
            colours.update(colour_words([artist.get_facecolor()]))
        if artist.get_linewidth() > 0:
            colours.update(colour_words([artist.get_edgecolor()]))
    colours.discard("white")
    return {"colours": sorted(colours), "line_styles": sorted(styles)}


def smallest_text_px(fig: matplotlib.figure.Figure) -> float:
    """The height in pixels of the figure's smallest visible text, as the figure is saved.

    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots(dpi=72)
    >>> _ = ax.set_title("t", fontsize=20); _ = ax.set_xticks([]); _ = ax.set_yticks([])
    >>> smallest_text_px(fig)
    20.0
    >>> plt.close(fig)
    """
    import matplotlib.text

    sizes = [
        text.get_fontsize()
        for text in fig.findobj(matplotlib.text.Text)
        if text.get_visible() and text.get_text().strip()
    ]
    return round(min(sizes, default=0.0) * fig.dpi / 72, 2)


COLUMN_PX = 760
"""The width of the book's text column in pixels, where a wider figure is shown shrunk."""

MIN_TEXT_PX = 12.0
"""The smallest text a figure may show once fitted into the column (the theme's small text)."""


def fit_text(fig: matplotlib.figure.Figure) -> float:
    """Raise every text of ``fig`` that would show smaller than :data:`MIN_TEXT_PX` in the text
    column to that size, leaving larger text as it is; return the smallest size in points.

    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots(figsize=(12, 3), dpi=100)
    >>> _ = ax.set_title("t", fontsize=30); _ = ax.set_xlabel("x", fontsize=6)
    >>> round(fit_text(fig), 2), ax.title.get_fontsize()
    (13.64, 30.0)
    >>> round(smallest_text_px(fig) * COLUMN_PX / 1200, 2)
    12.0
    >>> plt.close(fig)
    """
    import matplotlib.text

    fig.canvas.draw()  # creates the tick labels, so they are measured and raised too
    scale = min(1.0, COLUMN_PX / (fig.get_size_inches()[0] * fig.dpi))
    floor = round(float(MIN_TEXT_PX / scale * 72 / fig.dpi), 2)
    for text in fig.findobj(matplotlib.text.Text):
        if text.get_fontsize() < floor:
            text.set_fontsize(floor)
    for ax in fig.axes:
        for axis, name in ((ax.xaxis, "x"), (ax.yaxis, "y")):
            labels = axis.get_ticklabels(which="both")
            if labels and labels[0].get_fontsize() <= floor:
                ax.tick_params(axis=name, which="both", labelsize=floor)
    if fig.get_layout_engine() is None:
        fig.tight_layout()
    return floor
