"""``python -m astreduce`` runs the command-line interface."""

from astreduce.cli import main

main()
