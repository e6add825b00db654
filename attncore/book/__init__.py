"""The book machinery: chapter parameters, running a chapter, building the book, the CLI,
and the kit a chapter uses inside its kernel (provenance, verdict recording, plotting).

Nothing else in :mod:`attncore` imports this package.
"""
