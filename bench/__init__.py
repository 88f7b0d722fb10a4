"""Benchmarks, each run next to its baseline: `python -m bench` lists them,
`python -m bench <name> [args]` runs one.

A benchmark is a module in this package with a docstring (its first line is the listing)
and `main(argv: list[str]) -> int`; it prints its figure, the baseline's and the command
that produced them.
"""
