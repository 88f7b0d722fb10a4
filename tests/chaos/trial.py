"""One chaos trial: commit the next generation, inject the fault, wait, judge.

`run_trial` returns the time the fleet took to converge (None: not within the deadline)
and every invariant's violations. `ScenarioResult` gathers a scenario's trials into the
figures `just chaos` prints.
"""

import asyncio
import random
import statistics
import time
from dataclasses import dataclass, field

from tests.chaos import fleet
from tests.chaos.invariants import INVARIANTS, Observed, check, not_converged
from tests.chaos.scenarios import Scenario
from tests.chaos.stack import Stack

CONVERGE_DEADLINE = 240.0
"""Seconds after its fault healed that a trial's fleet has to converge."""
POLL = 0.5


@dataclass
class TrialResult:
    seed: int
    converged_s: float | None
    violations: dict[str, list[str]]
    hooks: int
    """Hook Jobs created in the trial (two per app when each app synced once)."""


@dataclass
class ScenarioResult:
    scenario: Scenario
    trials: list[TrialResult] = field(default_factory=list)

    @property
    def converged(self) -> int:
        return sum(1 for t in self.trials if t.converged_s is not None)

    def times(self) -> list[float]:
        return [t.converged_s for t in self.trials if t.converged_s is not None]

    def violations(self, invariant: str) -> int:
        return sum(len(t.violations[invariant]) for t in self.trials)

    def failures(self) -> list[str]:
        """One line per trial that broke an invariant, with its seed."""
        lines = []
        for t in self.trials:
            broken = {k: v for k, v in t.violations.items() if v}
            if broken:
                shown = "; ".join(f"{k}: {', '.join(v[:3])}" for k, v in broken.items())
                lines.append(f"{self.scenario.name} seed {t.seed}: {shown}")
        return lines

    def row(self) -> str:
        times = self.times()
        p50 = f"{statistics.median(times):.1f}" if times else "-"
        worst = f"{max(times):.1f}" if times else "-"
        counts = " | ".join(str(self.violations(name)) for name in INVARIANTS)
        hooks = sum(t.hooks for t in self.trials)
        return (
            f"| {self.scenario.name} | {len(self.trials)} | {self.converged} | {p50} | {worst} "
            f"| {hooks} | {counts} |"
        )


def header() -> str:
    names = " | ".join(INVARIANTS)
    dashes = " | ".join("---" for _ in INVARIANTS)
    return (
        f"| scenario | trials | converged | p50 s | max s | hook Jobs | {names} |\n"
        f"| --- | --- | --- | --- | --- | --- | {dashes} |"
    )


async def run_trial(stack: Stack, scenario: Scenario, seed: int, scale: float) -> TrialResult:
    stack.recorder.reset()
    stack.generation += 1
    revision = stack.repo.commit(
        fleet.repository(stack.apps, stack.generation), f"generation {stack.generation}"
    )
    began = time.monotonic()
    await scenario.inject(stack, random.Random(seed), scale)
    converged = await _converged(stack, revision, time.monotonic() + CONVERGE_DEADLINE)
    seen = Observed(
        revision=revision,
        apps=stack.applications(),
        declared=fleet.declared_keys(stack.apps, stack.generation),
        live=stack.live(),
        hook_creations=list(stack.recorder.hook_creations),
        deletions=list(stack.recorder.deletions),
        operations={k: list(v) for k, v in stack.recorder.operations.items()},
    )
    violations = check(seen)
    exited = stack.workers.exited()
    if exited:
        violations["converged"].append(f"workers died on their own: {', '.join(exited)}")
    took = converged - began if converged is not None else None
    return TrialResult(seed, took, violations, len(seen.hook_creations))


async def _converged(stack: Stack, revision: str, deadline: float) -> float | None:
    """When every app first was Synced + Healthy at `revision`, or None by `deadline`."""
    while time.monotonic() < deadline:
        seen = Observed(revision=revision, apps=stack.applications(), declared={}, live={})
        if len(seen.apps) == stack.apps and not not_converged(seen):
            return time.monotonic()
        await asyncio.sleep(POLL)
    return None
