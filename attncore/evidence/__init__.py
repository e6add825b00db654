"""What the runs show, in numbers: the reductions a verdict rule reads.

Each module turns one chapter's measurements (a table of runs, a sweep, a curve) into named
numbers, tables, intervals and paired differences, and decides nothing; the rules in
:mod:`attncore.claims.rules` compare those numbers with their thresholds, and the claims'
templates say them. :mod:`attncore.evidence.statistics` holds the tests every rule shares.
"""

ALIKE = "seeds alike"
"""What stands for an interval over seeds that would print as one value: the seeds agree to
the digits shown, which a zero width would misread as certainty."""
