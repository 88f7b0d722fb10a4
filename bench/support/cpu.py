"""CPU seconds per call of a function, measured in this process."""

import time
from collections.abc import Callable

MIN_ROUND_CPU = 0.2
"""CPU seconds a round repeats the call for, at least (a single call may be microseconds)."""


def cpu_per_call(call: Callable[[], object], *, rounds: int = 3) -> float:
    """The smallest over `rounds` of the mean CPU seconds one `call` takes.

    CPU time rather than wall time, so another process on the cores shows less in the
    figure; the smallest round is the one the machine disturbed least.
    """
    best = float("inf")
    for _ in range(rounds):
        calls = 0
        started = time.process_time()
        spent = 0.0
        while spent < MIN_ROUND_CPU:
            call()
            calls += 1
            spent = time.process_time() - started
        best = min(best, spent / calls)
    return best


def ratio(ours: float, baseline: float) -> str:
    """`ours` as a multiple of `baseline`, as the reports print it."""
    return f"{ours / baseline:.3g}x" if baseline > 0 else "n/a"
