"""attncore: simulations and symbolic derivations for the book on scaling attention logits.

>>> import attncore
>>> attncore.__version__
'0.1.0'
"""

from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _version

try:
    __version__ = _version("attncore")
except PackageNotFoundError:  # a plain source checkout, not installed
    __version__ = "0.1.0+source"
