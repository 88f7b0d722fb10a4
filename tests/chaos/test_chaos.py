"""The chaos suite: a fleet with hooks and waves, every worker kind a process twice over,
and each fault of `tests.chaos.scenarios` while the fleet syncs a new commit. After
every trial the invariants (`tests.chaos.invariants`) are judged from the cluster and
the Application objects.

- `test_every_scenario_once_on_a_small_fleet` (in `just test`): one stack, two apps, one
  trial of each scenario with its outages halved.
- `test_scenario[<name>]` (`just chaos`, marked `chaos`): a stack per scenario,
  CHAOS_TRIALS trials of CHAOS_APPS apps at full length.
"""

import os
import random
from pathlib import Path

import pytest

from tests.chaos.conftest import RESULTS
from tests.chaos.scenarios import SCENARIOS, Scenario
from tests.chaos.stack import open_stack
from tests.chaos.trial import ScenarioResult, run_trial

REDUCED_APPS = 2
REDUCED_SCALE = 0.5


def _seed() -> int:
    raw = os.environ.get("CHAOS_SEED")
    return int(raw) if raw else random.SystemRandom().randrange(1 << 32)


def _assert_held(result: ScenarioResult) -> None:
    failures = result.failures()
    assert not failures, "\n".join(failures)


@pytest.mark.slow
@pytest.mark.kubectl
@pytest.mark.timeout(1500)
async def test_every_scenario_once_on_a_small_fleet(tmp_path: Path) -> None:
    seed = _seed()
    print(f"\nchaos seed {seed}")
    results = []
    async with open_stack(tmp_path, REDUCED_APPS) as stack:
        only = set(filter(None, os.environ.get("CHAOS_ONLY", "").split(",")))
        for index, scenario in enumerate(SCENARIOS):
            if only and scenario.name not in only:
                continue
            result = ScenarioResult(scenario)
            result.trials.append(await run_trial(stack, scenario, seed + index, REDUCED_SCALE))
            print(result.row())
            results.append(result)
    RESULTS.extend(results)
    failures = [line for r in results for line in r.failures()]
    assert not failures, "\n".join(failures)


def _full(scenario: Scenario) -> object:
    return pytest.param(scenario, id=scenario.name, marks=[pytest.mark.chaos])


@pytest.mark.timeout(7200)
@pytest.mark.parametrize("scenario", [_full(s) for s in SCENARIOS])
async def test_scenario(scenario: Scenario, tmp_path: Path) -> None:
    trials = int(os.environ.get("CHAOS_TRIALS", "3"))
    apps = int(os.environ.get("CHAOS_APPS", "10"))
    seed = _seed()
    print(f"\n{scenario.name}: {trials} trials of {apps} apps, seeds from {seed}")
    result = ScenarioResult(scenario)
    RESULTS.append(result)
    async with open_stack(tmp_path, apps) as stack:
        for trial in range(trials):
            result.trials.append(await run_trial(stack, scenario, seed + trial, 1.0))
            print(result.row())
    _assert_held(result)
