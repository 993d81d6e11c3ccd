"""Answers on files nobody here wrote: a development set over ../shared/eval, Trove against a plain
baseline in the same run. See README.md in this folder; run `python -m bench.answers`."""
