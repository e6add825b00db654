"""attncore: simulations and symbolic derivations for the book on scaling attention logits.

>>> import attncore
>>> attncore.__version__
'0.1.0'
"""

from importlib.metadata import version as _version

__version__ = _version("attncore")
