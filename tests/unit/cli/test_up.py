"""`sluice up` takes its timings from the environment, as `sluice worker` does."""

import argparse

import pytest

from app.cli.main import build_parser
from app.cli.up import stack_options


def _args(*argv: str) -> argparse.Namespace:
    return build_parser(["up", *argv]).parse_args(["up", *argv])


def test_the_environment_sets_the_poll_and_resync_of_sluice_up() -> None:
    env = {"SLUICE_GIT_POLL_SECONDS": "7", "SLUICE_RESYNC_SECONDS": "45"}

    options = stack_options(_args("--api-port", "0"), env)

    assert (options.timing.git_poll, options.timing.resync) == (7.0, 45.0)
    assert options.api_port == 0


def test_a_bad_timing_names_the_variable() -> None:
    with pytest.raises(ValueError, match="SLUICE_GIT_POLL_SECONDS='soon' is not a number"):
        stack_options(_args(), {"SLUICE_GIT_POLL_SECONDS": "soon"})
