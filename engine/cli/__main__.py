"""`python -m engine.cli`: the `trove` command."""

from engine.cli import main

main()
