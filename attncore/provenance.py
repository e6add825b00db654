"""Where a figure or number came from: chapter, parameters, seed, attncore version, command.

A chapter notebook creates one :class:`Provenance` right after its parameters cell;
the parameter values are read from the notebook's namespace by the names its
parameters cell declares, so nothing is listed twice and nothing can be left out.

>>> prov = Provenance("softmax_saturation", {"seed": 1, "n_keys": 4})
>>> prov.command
'attncore run softmax_saturation -p seed 1 -p n_keys 4'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import matplotlib.figure

import attncore
from attncore.execution import FIGURE_DIR, find_notebook, rerun_command
from attncore.parameters import read_parameters

__all__ = ["Provenance"]


@dataclass(frozen=True)
class Provenance:
    """The parameters a chapter ran with, and how to say so under each figure."""

    chapter: str
    parameters: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_namespace(cls, chapter: str, namespace: dict[str, Any]) -> Provenance:
        """Collect the values of ``chapter``'s declared parameters from ``namespace``."""
        names = read_parameters(find_notebook(chapter))
        return cls(chapter, {name: namespace[name] for name in names})

    @property
    def command(self) -> str:
        """The command that reruns the chapter with these parameters."""
        return rerun_command(Path(self.chapter), self.parameters)

    @property
    def version(self) -> str:
        return attncore.__version__

    def note(self) -> str:
        """A one-paragraph provenance note, in MyST markdown, for a caption.

        >>> Provenance("x", {"seed": 3}).note()
        'Made by attncore 0.1.0 (chapter `x`, seed 3). Rerun: `attncore run x -p seed 3`.'
        """
        seed = self.parameters.get("seed")
        seed_text = f", seed {seed}" if seed is not None else ""
        return (
            f"Made by attncore {self.version} (chapter `{self.chapter}`{seed_text}). "
            f"Rerun: `{self.command}`."
        )

    def save(self, fig: matplotlib.figure.Figure, name: str) -> Path:
        """Save ``fig`` as ``figures/<chapter>/<name>.png``, with the provenance in its metadata."""
        path = Path(FIGURE_DIR) / self.chapter / f"{name}.png"
        path.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(
            path,
            dpi=150,
            bbox_inches="tight",
            metadata={"Software": f"attncore {self.version}", "Description": self.note()},
        )
        return path

    def glue_figure(self, fig: matplotlib.figure.Figure, name: str) -> None:
        """Save ``fig``, glue it (key ``name``) and its note (key ``name + '_note'``) for the page.

        A markdown cell then places it with a caption:
        ``{glue:figure} name`` followed by the caption and ``{glue:md}`name_note```.
        """
        import matplotlib.pyplot as plt
        from IPython.display import Markdown
        from myst_nb import glue

        self.save(fig, name)
        glue(name, fig, display=False)
        glue(f"{name}_note", Markdown(self.note()), display=False)
        plt.close(fig)
