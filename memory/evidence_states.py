"""The states a memory's citation can be in, from intact to gone.

Apart from `memory.evidence`, which checks them, so that whoever only shows them (the
pane's marks, drawn in the first frame) need not import the checking.
"""

INTACT, MOVED, CHANGED, GONE, UNRECORDED = "intact", "moved", "changed", "gone", "unrecorded"
# Worst first: the order of a memory's evidence line and of its mark in the pane.
SEVERITY = (GONE, CHANGED, MOVED, UNRECORDED, INTACT)
