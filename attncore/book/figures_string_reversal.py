"""Figures and displayed tables of the training chapter (string reversal).

Every method is drawn with :func:`attncore.book.plotting.method_style`, its markers spaced
along its line and shifted from method to method, so lines that coincide still show each
marker; a learned scaling is dashed.

>>> method_label("constant", 5.0)
'searched β = 5'
>>> method_label("learned", 5.0)
'learned β per head'
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, PercentFormatter
from pandas.api.types import is_numeric_dtype

from attncore.book.plotting import CONTRAST, method_style
from attncore.book.tables import percent
from attncore.claims.thresholds import thresholds_of
from attncore.claims.words import interval, steps_text
from attncore.evidence.training import INTERVAL, mean_and_half_width
from attncore.intervals import t_quantile

LEARNED = thresholds_of("training").LEARNED

__all__ = [
    "accuracy_data",
    "attention_figure",
    "crowded_window",
    "learned_beta_sentence",
    "learning_curves_figure",
    "method_label",
    "method_notes",
    "methods_table",
    "model_size_sentence",
    "optimizer_sentence",
    "search_figure",
    "search_others_sentence",
    "seeds_sentence",
    "summary_tables",
]

LEARNED_SCALINGS = ("learned", "qk_norm_learned", "cosine_learned")

_plain = FuncFormatter(lambda value, _: f"{value:g}")
"""Log-axis ticks as plain numbers (0.01, 100), with no superscripts that show too small."""


def method_label(name: str, beta: float | None = None) -> str:
    """The label of method ``name``; the searched beta ``constant`` shows its value if given.

    >>> method_label("constant")
    'searched β'
    """
    if name == "constant":
        if beta is None:
            return "searched β"
        return f"searched {method_style('constant', beta=float(f'{beta:.3g}'))['label']}"
    return method_style(name)["label"].replace(" (g = auto)", "")


def _line(name: str, slot: int) -> dict[str, Any]:
    """The line of method ``name``, the ``slot``-th drawn: its markers start a little later
    than those of the previous one."""
    style = method_style(name)
    return {
        "color": style["color"],
        "ls": "--" if name in LEARNED_SCALINGS else "-",
        "marker": style["marker"],
        "markersize": 6,
        "markevery": (0.012 * (slot % 8), 0.1),
        "label": method_label(name),
    }


def search_figure(
    searches: Mapping[tuple[str, int], Any], setups: Sequence[str], d_k: int
) -> Figure:
    """Every training run of Chuang's search per setup and budget, the first budget's (the
    searched β of the chapter) in the searched β's colour, the others in greys; each
    vertical line has an ink of its own: the β each search returns in the ink of its runs,
    1/√d in its method's colour, Chuang's β ≈ 5 in black."""
    budgets = list(dict.fromkeys(b for _, b in searches))
    inks = [method_style("constant")["color"], *CONTRAST[1:]]
    fig, axes = plt.subplots(
        1, len(setups), figsize=(11, 5.5), sharey=True, squeeze=False, layout="constrained"
    )
    for ax, setup in zip(axes[0], setups, strict=True):
        for j, budget in enumerate(budgets):
            run = searches[setup, budget]
            betas, values = np.array(run.result.history).T
            order = np.argsort(betas)
            colour = inks[j % len(inks)]
            ax.plot(betas[order], values[order], color=colour, lw=0.8, alpha=0.6)
            scan = run.result.scan_evaluations
            ax.scatter(betas[:scan], values[:scan], color=colour, marker="s", s=30, zorder=3)
            ax.scatter(betas[scan:], values[scan:], color=colour, marker="o", s=14, zorder=3)
            found = "searched β" if j == 0 else "β"
            label = f"{budget} steps per run: {found} = {run.beta:.3g} ({run.evaluations} runs)"
            ax.axvline(run.beta, color=colour, ls="--", lw=1.6, label=label)
        sqrt_d = method_style("sqrt_d")["color"]
        ax.axvline(1 / math.sqrt(d_k), color=sqrt_d, ls=":", lw=2, label=method_label("sqrt_d"))
        ax.axvline(5.0, color=CONTRAST[0], ls="-.", lw=1.4, label="Chuang's β ≈ 5")
        ax.set(xscale="log", xlabel=r"constant $\beta$", title=setup)
        ax.xaxis.set_major_formatter(_plain)
        ax.legend(
            fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=1, handlelength=3
        )
    axes[0, 0].set_ylabel("validation token accuracy\nafter the budget")
    axes[0, 0].set_ylim(-0.02, 1.05)
    for ax in axes[0]:
        ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    fig.suptitle("Chuang's search: squares the decade scan, dots the rounds around the best")
    return fig


def crowded_window(part: pd.DataFrame, low: float = 0.1, high: float = 0.9) -> tuple[float, float]:
    """The steps where most mean curves of ``part`` (columns method, step, token accuracy) rise
    at once: at the step where the most means lie between ``low`` and ``high``, the span from
    the first of those methods passing ``low`` to the last passing ``high``, widened by one
    evaluation on each side (the whole run if no mean is between them at any step).

    >>> steps = range(0, 350, 50)
    >>> fast = pd.DataFrame({"step": steps, "token accuracy": [0, 0, 0.5, 1, 1, 1, 1]})
    >>> slow = pd.DataFrame({"step": steps, "token accuracy": [0, 0, 0, 0, 0, 0.5, 1]})
    >>> crowded_window(pd.concat([fast.assign(method="a"), fast.assign(method="b"),
    ...                           slow.assign(method="c")]))
    (50.0, 200.0)
    """
    means = part.groupby(["method", "step"])["token accuracy"].mean().unstack("step")
    steps = means.columns.to_numpy(dtype=float)
    rising = (means >= low) & (means <= high)
    if not rising.to_numpy().any():
        return float(steps[0]), float(steps[-1])
    crowd = means[rising.iloc[:, int(np.argmax(rising.sum().to_numpy()))]].to_numpy()
    first = [steps[np.argmax(row >= low)] for row in crowd]
    last = [steps[np.argmax(row >= high)] if (row >= high).any() else steps[-1] for row in crowd]
    pad = float(np.median(np.diff(steps)))
    return float(max(steps[0], min(first) - pad)), float(min(steps[-1], max(last) + pad))


def learning_curves_figure(
    curves: pd.DataFrame,
    methods: Sequence[str],
    searched_beta: Mapping[str, float],
    short_steps: int,
    long_steps: int,
) -> Figure:
    """Validation token accuracy against the step: mean over seeds, band from worst to best;
    below each setup the steps of :func:`crowded_window` again, stretched, so the curves that
    rise together there are told apart."""
    setups = list(dict.fromkeys(curves["setup"]))
    n_seeds = curves["seed"].nunique()
    fig, axes = plt.subplots(
        2, len(setups), figsize=(13, 8.4), sharey=True, squeeze=False, layout="constrained"
    )
    for column, setup in enumerate(setups):
        part = curves[curves["setup"] == setup]
        whole, zoom = axes[:, column]
        for slot, name in enumerate(methods):
            band = (
                part[part["method"] == name]
                .groupby("step")["token accuracy"]
                .agg(["mean", "min", "max"])
            )
            line = _line(name, slot)
            # stretched, the evaluations lie far apart: larger marks on every third, from the slot
            stretched = {"markevery": (slot % 3, 3), "markersize": 8}
            for ax, alpha, look in ((whole, 0.15, line), (zoom, 0.08, {**line, **stretched})):
                ax.plot(band.index, band["mean"], lw=1.8, **look)
                ax.fill_between(
                    band.index, band["min"], band["max"], color=line["color"], alpha=alpha, lw=0
                )
        for ax in (whole, zoom):
            ax.axvline(short_steps, color="grey", ls=":", lw=1)
            ax.axhline(LEARNED, color="grey", ls=(0, (4, 4)), lw=0.8)
            ax.set(xlabel="training step", ylim=(-0.02, 1.03))
            ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
        whole.text(
            short_steps,
            0.5,
            "short budget ",
            color="grey",
            fontsize=8,
            rotation=90,
            ha="right",
            va="center",
        )
        whole.set(xlim=(0, long_steps), title=f"{setup} (searched β = {searched_beta[setup]:.3g})")
        start, stop = crowded_window(part)
        whole.axvspan(start, stop, color="0.5", alpha=0.12, lw=0)
        zoom.set(xlim=(start, stop), title=f"steps {start:g} to {stop:g} (grey above), stretched")
    for ax in axes[:, 0]:
        ax.set_ylabel("validation token accuracy")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    # at most four entries a row: a longer row would widen the image and shrink its text
    fig.legend(handles, labels, loc="outside lower center", ncol=min(len(labels), 4), frameon=False)
    fig.suptitle(
        f"Mean over {n_seeds} seed{'s' if n_seeds > 1 else ''}, band from the worst to the best "
        f"seed; grey dashes: {100 * LEARNED:g} %"
    )
    return fig


def attention_figure(
    curves: pd.DataFrame,
    methods: Sequence[str],
    searched_beta: Mapping[str, float],
    short_steps: int,
    length: int,
) -> Figure:
    """Logit spread (log scale) and weight on the mirrored key during training, one setup
    per column, each row on one y scale."""
    setups = list(dict.fromkeys(curves["setup"]))
    n_seeds = curves["seed"].nunique()
    fig, axes = plt.subplots(
        2,
        len(setups),
        figsize=(5 * len(setups) + 1, 8),
        sharex=True,
        sharey="row",
        squeeze=False,
        layout="constrained",
    )
    for column, setup in enumerate(setups):
        part = curves[curves["setup"] == setup]
        for slot, name in enumerate(methods):
            means = (
                part[part["method"] == name]
                .groupby("step")[["logit spread", "mirrored weight"]]
                .mean()
            )
            line = _line(name, slot)
            axes[0, column].plot(means.index, means["logit spread"], lw=1.6, **line)
            axes[1, column].plot(means.index, means["mirrored weight"], lw=1.6, **line)
        axes[0, column].set_title(f"{setup}\n(searched β = {searched_beta[setup]:.3g})")
        axes[1, column].axhline(1 / length, color="grey", ls=":", lw=1)
        axes[1, column].annotate(  # beside the axis, clear of the curves that start at uniform
            "1/L",
            xy=(1, 1 / length),
            xycoords=("axes fraction", "data"),
            xytext=(3, 0),
            textcoords="offset points",
            va="center",
            color="grey",
        )
        axes[1, column].set_xlabel("training step")
        for ax in axes[:, column]:
            ax.axvline(short_steps, color="grey", ls=":", lw=1)
    axes[0, 0].set(yscale="log", ylabel="spread of the scaled logits")
    axes[0, 0].yaxis.set_major_formatter(_plain)
    axes[1, 0].set(ylim=(0, 1.02), ylabel="weight on the mirrored key")
    fig.align_ylabels(axes[:, 0])
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=4, frameon=False)
    fig.suptitle(f"Attention during training, mean over {n_seeds} seed{'s' if n_seeds > 1 else ''}")
    return fig


def _with_intervals(
    summary: pd.DataFrame, runs: pd.DataFrame, budgets: Sequence[int]
) -> pd.DataFrame:
    """``summary`` with its mean accuracies replaced by the mean and 95 % interval over seeds
    (:func:`attncore.claims.words.interval`) and its median steps to the target by
    the median and range over the seeds that got there, from the per-run table ``runs``."""
    columns = [f"{kind}accuracy at {b} steps" for b in budgets for kind in ("", "test ")]
    columns = [c for c in columns if c in summary]
    summary = summary.reset_index(drop=True)
    summary = summary.astype({c: object for c in [*columns, "steps to target (median)"]})
    for row, line in summary.iterrows():
        part = runs[(runs["setup"] == line["setup"]) & (runs["method"] == line["method"])]
        for column in columns:
            if column in part and part[column].notna().all() and len(part):
                # a cell that starts with ">" would be read as a quotation by Markdown
                summary.loc[row, column] = re.sub(r"^>", r"\\>", interval(part[column]))
        if len(part):
            summary.loc[row, "steps to target (median)"] = steps_text(part["steps to target"])
    return summary


def accuracy_data(runs: pd.DataFrame, setup: str, budgets: Sequence[int]) -> pd.DataFrame:
    """The numbers of one setup's accuracy table, one row per method (its name) and one
    column per quantity, for download: mean token accuracies in percent with the half-width
    of their 95 % interval over seeds (NaN for one seed) beside them, the worst seed, and the
    steps to the target (median, fewest, most, over the seeds that got there, and how many
    of how many did).

    >>> from attncore.evidence.training import example_runs
    >>> data = accuracy_data(example_runs(), "LayerNorm", [500])
    >>> data["seeds at target"].tolist(), float(data.iloc[0, 0])
    ([2, 2, 0], 30.0)
    """
    rows = []
    for method, part in runs[runs["setup"] == setup].groupby("method", sort=False):
        row: dict[str, Any] = {"method": method}
        for budget in budgets:
            for kind, column in (("validation", "accuracy"), ("test", "test accuracy")):
                values = part.get(f"{column} at {budget} steps")
                if values is None or values.isna().any():
                    continue
                mean, half = mean_and_half_width(values)
                name = f"{kind} accuracy at {budget} steps (%)"
                row[name], row[f"{name}: 95 % half-width"] = 100 * mean, 100 * half
                if kind == "validation":
                    row[f"worst seed at {budget} steps (%)"] = 100 * float(values.min())
        reached = part["steps to target"].dropna()
        row["steps to target (median)"] = float(reached.median()) if len(reached) else math.nan
        row["steps to target (fewest)"] = float(reached.min()) if len(reached) else math.nan
        row["steps to target (most)"] = float(reached.max()) if len(reached) else math.nan
        row["seeds at target"], row["seeds"] = len(reached), len(part)
        rows.append(row)
    data = pd.DataFrame(rows).set_index("method")
    return data.astype({"seeds at target": int, "seeds": int})


def summary_tables(
    summary: pd.DataFrame,
    short_steps: int,
    long_steps: int,
    searched_beta: Mapping[str, float],
    runs: pd.DataFrame | None = None,
) -> list[tuple[pd.DataFrame, str, str, dict[str, Any], pd.DataFrame]]:
    """The accuracy tables, then the attention tables, one per setup, each as its frame, its
    name (``tbl-reversal-accuracy-N`` and ``tbl-reversal-attention-N``, N = 1, 2, ... per
    setup), its caption, its columns' formats and its numbers for download; accuracies are
    percentages (the unit in the header), and one below 100 % never reads as 100
    (:func:`attncore.book.tables.percent`). With the per-run table ``runs``, every mean
    accuracy carries its 95 % interval over seeds and the steps to the target their median
    and range, and the accuracy tables' numbers are :func:`accuracy_data`."""
    target = f"{100 * LEARNED:g} %"
    plain = summary
    if runs is not None:
        summary = _with_intervals(summary, runs, [short_steps, long_steps])
    accuracy_names = {
        f"accuracy at {short_steps} steps": f"acc. {short_steps} (%)",
        f"worst seed at {short_steps} steps": f"worst {short_steps} (%)",
        f"accuracy at {long_steps} steps": f"acc. {long_steps} (%)",
        f"worst seed at {long_steps} steps": f"worst {long_steps} (%)",
        f"test accuracy at {short_steps} steps": f"test {short_steps} (%)",
        f"test accuracy at {long_steps} steps": f"test {long_steps} (%)",
        "steps to target (median)": f"{target} at step",
        "seeds reaching target": f"seeds at {target}",
        "exact match at end": "exact match (%)",
    }
    attention_names = {
        "logit spread at init": "spread, init",
        "logit spread at end": "spread, end",
        "mirrored weight at init": "mirrored, init",
        "mirrored weight at end": "mirrored, end",
        "query norm at end": "‖q‖, end",
        "learned β or g at end": "learned β or g",
        "seconds per run": "s per run",
    }
    special = {
        f"{target} at step": "{}" if runs is not None else "{:.0f}",
        f"seeds at {target}": "{}",
        "s per run": "{:.1f}",
        "mirrored, init": "{:.3f}",
        "mirrored, end": "{:.3f}",
    }
    kinds = (
        (
            "accuracy",
            "Token accuracy on the validation strings (acc.: mean over seeds, with its interval; "
            "worst: the worst seed) and on the test strings after each budget (in steps), the "
            f"step at which the validation accuracy first reached {target} (median over the seeds "
            "that did, and how many did, with the 95 % Wilson interval of that share), and the "
            "exact match on the validation strings at the end",
            accuracy_names,
            percent,
        ),
        (
            "attention",
            "Logit spread and weight on the mirrored key at initialization and at the end, mean "
            "query length and learned β or g (mean over heads) at the end, and seconds of "
            "training per run (its share of its ensemble's)",
            attention_names,
            None,
        ),
    )
    tables = []
    for kind, title, names, form in kinds:
        for number, setup in enumerate(dict.fromkeys(summary["setup"]), start=1):
            part = summary[summary["setup"] == setup].copy()
            part["method"] = [method_label(m, searched_beta[setup]) for m in part["method"]]
            part = part.set_index("method")[[c for c in names if c in part]]
            shares = [c for c in part if names[c].endswith("(%)")]  # as the prose gives them
            texts = [c for c in shares if not is_numeric_dtype(part[c])]  # "mean% [low, high]"
            numbers = [c for c in shares if c not in texts]
            part[numbers] = 100 * part[numbers].astype(float)
            for column in texts:  # the header carries the unit; a share left bare is one too
                part[column] = [
                    v.replace("%", "") if isinstance(v, str) else percent(100 * float(v))
                    for v in part[column]
                ]
            part = part.rename(columns=names)
            formats = {
                c: "{}" if not is_numeric_dtype(part[c]) else special.get(c, form)
                for c in part.columns
                if not is_numeric_dtype(part[c]) or c in special or form
            }
            name = f"tbl-reversal-{kind}-{number}"
            caption = (  # the columns are defined once, under the first setup's table
                f"{title}: {setup}."
                if number == 1
                else f"The same columns as the table before, for the setup {setup}."
            )
            if kind == "accuracy" and runs is not None:
                data = accuracy_data(runs, setup, [short_steps, long_steps])
                if "exact match at end" in plain:
                    exact = plain[plain["setup"] == setup].set_index("method")["exact match at end"]
                    data["exact match at end (%)"] = 100 * exact
            else:
                data = plain[plain["setup"] == setup].set_index("method")
                data = data[[c for c in names if c in data]]
            data.index = [method_label(m, searched_beta[setup]) for m in data.index]
            tables.append((part, name, caption, formats, data.rename_axis("method")))
    return tables


def learned_beta_sentence(summary: pd.DataFrame, start: float) -> str:
    """Where the learned beta ended, per setup, from the chapter's ``summary`` (one row per
    setup and method, column ``learned β or g at end``: the mean over heads and seeds), or
    that it was not trained in this run; ``start`` is its value at step 0.

    >>> rows = [("learned", "A", 0.91), ("learned", "B", 1.4), ("sqrt_d", "A", float("nan"))]
    >>> summary = pd.DataFrame(rows, columns=["method", "setup", "learned β or g at end"])
    >>> learned_beta_sentence(summary, 0.354)[40:]
    'ends at 0.91 in A and 1.4 in B (mean over heads and seeds).'
    >>> learned_beta_sentence(summary[summary["method"] == "sqrt_d"], 0.354)
    'The learned β was not among the methods of this run.'
    """
    ends = summary[summary["method"] == "learned"].set_index("setup")["learned β or g at end"]
    if ends.empty:
        return "The learned β was not among the methods of this run."
    where = " and ".join(f"{value:.2g} in {setup}" for setup, value in ends.items())
    return (
        f"The learned β starts at 1/√d = {start:.2f} and ends at {where} "
        "(mean over heads and seeds)."
    )


METHOD_ROWS: dict[str, tuple[str, str]] = {
    "sqrt_d": (r"$q\cdot k/\sqrt{d}$", "{cite:t}`vaswani2017attention`"),
    "constant": (
        r"$\beta\, q\cdot k$, $\beta$ from Chuang's search",
        "{cite:t}`chuang2023scaling`",
    ),
    "learned": (
        r"$\beta_h\, q\cdot k$, $\beta_h$ trained by backpropagation, from $1/\sqrt{d}$",
        "this book",
    ),
    "k_total": (
        r"$q\cdot k_j / \sum_i \lVert k_i\rVert$",
        "{cite:t}`bernhard2023alternatives`",
    ),
    "qk_norm": (r"$g \cos(q, k)$, $g = \log_2(L^2-L)$", "{cite:t}`henry2020querykey`"),
    "qk_norm_learned": (r"$g_h \cos(q, k)$, $g_h$ trained per head", "{cite:t}`henry2020querykey`"),
    "mup": (r"$q\cdot k/d$", "{cite:t}`yang2022tensor`"),
    "cosine_learned": (
        r"$\cos(q, k)/\tau_h$, $\tau_h$ trained per head from 0.1, kept at or above 0.01",
        "{cite:t}`liu2022swin`",
    ),
}
"""The logits of one head and the source of every method the chapter can train."""


def methods_table(methods: Sequence[str]) -> str:
    """The Markdown table of the methods this run trains: label, logits of one head, source.

    >>> print(methods_table(["sqrt_d", "k_total"]).splitlines()[3][:39])
    | $1/k_\\text{total}$ | $q\\cdot k_j / \\s
    """
    rows = [f"| {_math_label(m)} | {METHOD_ROWS[m][0]} | {METHOD_ROWS[m][1]} |" for m in methods]
    return "\n".join(["| method | logits of one head | source |", "|---|---|---|", *rows])


def method_notes(methods: Sequence[str], d_k: int) -> str:
    r"""The notes under the methods table on the methods of ``methods`` that need one (where
    a method departs from its source), as Markdown paragraphs; ``d_k`` is a head's width.

    >>> method_notes(["sqrt_d", "k_total"], 8)
    ''
    >>> method_notes(["mup"], 8).startswith(r"$\mu$P {cite:p}`yang2022tensor` prescribes")
    True
    """
    notes = {
        "learned": "The learned $\\beta$ is the book's addition, not Chuang's algorithm: Chuang "
        "proposes to *measure* $\\sigma_{W_q}$ and $\\sigma_{W_k}$ and update $\\beta$ from them "
        'after each iteration, or to *search* $\\beta$ "during the training"; he does not train '
        "$\\beta$ by gradient descent.",
        "mup": "$\\mu$P {cite:p}`yang2022tensor` prescribes the exponent of $1/d$ together with a "
        "constant that is tuned; the $1/d$ here is the literal factor with constant 1, which at "
        f"$d = {d_k}$ is $\\sqrt{{d}}$ times weaker than $1/\\sqrt{{d}}$, so it stands for "
        "$\\mu$P's exponent at one width, not for a tuned $\\mu$P model.",
    }
    return "\n\n".join(note for method, note in notes.items() if method in methods)


_MATH_LABELS = {
    "sqrt_d": r"$1/\sqrt{d}$",
    "constant": r"searched $\beta$",
    "learned": r"learned $\beta$",
    "k_total": r"$1/k_\text{total}$",
    "qk_norm": "QK-norm",
    "qk_norm_learned": "QK-norm with learned $g$",
    "mup": r"$1/d$ ($\mu$P)",
    "cosine_learned": r"cosine with learned $\tau$ (Swin v2)",
}


def _math_label(method: str) -> str:
    return _MATH_LABELS.get(method, method_label(method))


def model_size_sentence(parameters: int, chuang: int = 8_000) -> str:
    """How the largest configuration trained compares with Chuang's "fewer than 8,000"
    parameters.

    >>> model_size_sentence(4_741)
    'The largest configuration here has 4,741 parameters, as small as Chuang’s (fewer than 8,000).'
    >>> model_size_sentence(11_557)[-61:]
    'more than Chuang’s fewer than 8,000: a larger model than his.'
    """
    if parameters < chuang:
        return (
            f"The largest configuration here has {parameters:,} parameters, as small as "
            f"Chuang’s (fewer than {chuang:,})."
        )
    return (
        f"The largest configuration here has {parameters:,} parameters, more than Chuang’s "
        f"fewer than {chuang:,}: a larger model than his."
    )


ADAM_DEFAULT_LR = 0.001
"""The default learning rate of Adam in Keras (``keras.optimizers.Adam``) and PyTorch
(``torch.optim.Adam``)."""
KERAS_DEFAULT_BATCH = 32
"""The default batch size of Keras's ``Model.fit``."""


def optimizer_sentence(lr: float, batch_size: int) -> str:
    """Adam's learning rate and the batch size of this run, and which of them are library
    defaults.

    >>> optimizer_sentence(0.001, 32)[-74:]
    '(the default of Adam in Keras and PyTorch; 32 strings is Keras’s default).'
    >>> optimizer_sentence(0.003, 64)[-84:]
    '(Adam’s default in Keras and PyTorch is 0.001; Keras’s default batch is 32 strings).'
    """
    head = f"Training is Adam with a constant learning rate of {lr:g} on batches of {batch_size}"
    lr_note = (
        "the default of Adam in Keras and PyTorch"
        if lr == ADAM_DEFAULT_LR
        else f"Adam’s default in Keras and PyTorch is {ADAM_DEFAULT_LR:g}"
    )
    batch_note = (
        f"{KERAS_DEFAULT_BATCH} strings is Keras’s default"
        if batch_size == KERAS_DEFAULT_BATCH
        else f"Keras’s default batch is {KERAS_DEFAULT_BATCH} strings"
    )
    return f"{head} strings ({lr_note}; {batch_note})."


def seeds_sentence(n_seeds: int) -> str:
    """What the spread over ``n_seeds`` training seeds can show: with one, nothing; with a few,
    a 95 % Student t interval several standard deviations wide.

    >>> seeds_sentence(1)[:60]
    'Each method has one training seed per setup: no number below'
    >>> seeds_sentence(2)[44:111]
    'the 95 % Student t intervals below reach ±9 standard deviations of '
    """
    if n_seeds == 1:
        return (
            "Each method has one training seed per setup: no number below has a spread, and "
            "'every seed' means that one run."
        )
    half = float(t_quantile(INTERVAL, n_seeds - 1)) / math.sqrt(n_seeds)
    return (
        f"Each method has {n_seeds} training seeds per setup: the 95 % Student t intervals "
        f"below reach ±{half:.2g} standard deviations of the seeds around their mean, and the "
        "worst seed, given beside them, is one draw."
    )


def search_others_sentence(n_seeds: int, budgets: Sequence[int]) -> str:
    """What the searches beyond the first (first seed, first budget) measure in this run.

    >>> search_others_sentence(3, [469, 938])
    'The other searches measure how much the β returned moves with the budget and the seed.'
    >>> search_others_sentence(1, [300])[:55]
    'With one seed and one budget, there is no other search:'
    """
    varies = [name for name, n in (("the budget", len(budgets)), ("the seed", n_seeds)) if n > 1]
    if not varies:
        return (
            "With one seed and one budget, there is no other search: this run does not measure "
            "how much the β returned moves."
        )
    return f"The other searches measure how much the β returned moves with {' and '.join(varies)}."
