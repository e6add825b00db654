"""Verdict rules: functions from measured tables to :class:`~attncore.claims.Finding`.

One module per chapter topic. Each rule reads the claim in its source's own words and
hedges, can reach every verdict it may return, and is tested branch by branch with small
synthetic tables.
"""
