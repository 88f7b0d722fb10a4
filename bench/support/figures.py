"""Percentiles and the report every benchmark prints: figure, target, baseline, command."""

import os
import platform
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass

import psutil


def percentile(samples: Sequence[float], p: float) -> float:
    """The `p`-th percentile (0-100), interpolated between the closest ranks."""
    if not samples:
        raise ValueError("no samples")
    if len(samples) == 1:
        return samples[0]
    cuts = statistics.quantiles(samples, n=100, method="inclusive")
    if p <= 0:
        return min(samples)
    if p >= 100:
        return max(samples)
    return cuts[int(p) - 1]


@dataclass(frozen=True, slots=True)
class Line:
    """One figure: what it is, its value as printed, and the target it is held to."""

    label: str
    value: str
    target: str = ""

    def render(self, width: int) -> str:
        if not self.value:
            return f"  {self.label}"
        target = f"   (target {self.target})" if self.target else ""
        return f"  {self.label:<{width}} : {self.value}{target}"


def load_average() -> str:
    """The load average now, 1 and 5 minutes: read at the end of a run, it says how busy
    the machine was during it (the run's own processes included)."""
    one, five, _ = os.getloadavg()
    return f"{one:.1f} / {five:.1f}"


def machine() -> str:
    """Cores, memory, Python and how busy the machine was: what the figures were measured on.

    The load average (1 and 5 minutes, read at the end, the benchmark's own processes
    included) tells whether something else competed for the cores during the run.
    """
    memory = psutil.virtual_memory().total / (1 << 30)
    one, five, _ = os.getloadavg()
    return (
        f"{os.cpu_count()} cores, {memory:.0f} GiB, {platform.system()} {platform.release()}, "
        f"Python {platform.python_version()}, {time.strftime('%Y-%m-%d %H:%M')}, "
        f"load average {one:.1f} / {five:.1f} (1 / 5 min)"
    )


def report(
    title: str, setup: str, lines: Sequence[Line], baseline: str, command: Sequence[str]
) -> None:
    """Print the benchmark's figures with their targets, the baseline and the command."""
    out = sys.stdout
    width = max(len(line.label) for line in lines)
    out.write(f"{title}\n{setup}\nmachine: {machine()}\n")
    for line in lines:
        out.write(line.render(width) + "\n")
    out.write(f"  baseline: {baseline}\n")
    out.write(f"command: {' '.join(command)}\n")
    out.flush()
