"""The chaos suite's switches: `--chaos` runs every scenario over several trials (what
`just chaos` does); without it only the reduced run (one trial of each) is collected.

Environment: `CHAOS_TRIALS` (default 3) trials per scenario, `CHAOS_APPS` (default 10)
apps in the fleet, `CHAOS_SEED` the first trial's seed (default: random, printed),
`CHAOS_ONLY` a comma-separated list of scenarios for the reduced run.
After the run the figures are printed per scenario: trials, converged, time to converge
p50/max, and each invariant's violation count, with every failing trial's seed.
"""

import pytest

from tests.chaos.trial import ScenarioResult, header

RESULTS: list[ScenarioResult] = []
"""Every scenario run in this session, for the summary."""


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--chaos", action="store_true", help="run every chaos scenario over several trials"
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    full = bool(config.getoption("--chaos", default=False))
    keep, drop = [], []
    for item in items:
        is_full = item.get_closest_marker("chaos") is not None
        if item.path.parent.name == "chaos" and item.path.parent.parent.name == "tests":
            (keep if is_full == full else drop).append(item)
        else:
            keep.append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not RESULTS:
        return
    terminalreporter.section("chaos figures")
    terminalreporter.write_line(header())
    for result in RESULTS:
        terminalreporter.write_line(result.row())
    for result in RESULTS:
        for line in result.failures():
            terminalreporter.write_line(line)
