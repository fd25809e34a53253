"""Training citewise's reading model (not part of the installed package; see train.py)."""
