"""The benchmark harness: percentiles, the --replicas option, and the workload it deploys."""

import argparse
from pathlib import Path

import pytest
import yaml

from app.engine.manifests import load_manifests
from bench.support.figures import percentile
from bench.support.fleet import FleetOptions
from bench.support.fleet_command import fleet_options, options_parser, replicas, run_fleet
from bench.support.workload import Workload, app_manifests, app_names

PERCENTILES = [
    # rule, samples, p, expected
    ("p50 of an odd count is the middle sample", [3.0, 1.0, 2.0], 50, 2.0),
    ("p50 of an even count interpolates", [1.0, 2.0, 3.0, 4.0], 50, 2.5),
    ("p95 of 20 samples sits between the two largest", [float(i) for i in range(1, 21)], 95, 19.05),
    ("p0 is the minimum", [5.0, 1.0, 9.0], 0, 1.0),
    ("p100 is the maximum", [5.0, 1.0, 9.0], 100, 9.0),
    ("one sample is every percentile", [0.4], 95, 0.4),
]


@pytest.mark.parametrize(
    ("samples", "p", "expected"), [c[1:] for c in PERCENTILES], ids=[c[0] for c in PERCENTILES]
)
def test_percentile(samples: list[float], p: float, expected: float) -> None:
    assert percentile(samples, p) == pytest.approx(expected)


REPLICAS = [
    ("empty: one of each", "", {}),
    ("one worker", "compare=2", {"compare": 2}),
    ("several, spaces allowed", "compare=2, sync=3", {"compare": 2, "sync": 3}),
]


@pytest.mark.parametrize(
    ("text", "expected"), [c[1:] for c in REPLICAS], ids=[c[0] for c in REPLICAS]
)
def test_replicas_option(text: str, expected: dict[str, int]) -> None:
    assert replicas(text) == expected


@pytest.mark.parametrize("text", ["poller=2", "compare", "compare=0", "compare=two"], ids=str)
def test_a_bad_replicas_option_names_what_is_expected(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match="expected NAME=COUNT with NAME one of"):
        replicas(text)


def test_app_manifests_are_valid_and_uniquely_named() -> None:
    docs = app_manifests("bench-0001", 20, version=3)
    objects = load_manifests([("manifests.yaml", yaml.safe_dump_all(docs))])
    assert len(objects) == 20
    assert len({(o["kind"], o["metadata"]["name"]) for o in objects}) == 20
    assert {o["metadata"]["namespace"] for o in objects} == {"bench-0001"}
    images = [
        c["image"]
        for o in objects
        if o["kind"] == "Deployment"
        for c in o["spec"]["template"]["spec"]["containers"]
    ]
    assert images == ["registry.example/web:1.3"] * 2


def test_a_release_commits_a_new_image_for_one_app(tmp_path: Path) -> None:
    names = tuple(app_names(3))
    assert names == ("bench-0000", "bench-0001", "bench-0002")
    workload = Workload.create(tmp_path / "repo", names, 10)
    first = workload.head
    sha = workload.release("bench-0001")
    assert sha != first and workload.head == sha
    changed = (tmp_path / "repo" / "bench-0001" / "manifests.yaml").read_text()
    untouched = (tmp_path / "repo" / "bench-0000" / "manifests.yaml").read_text()
    assert "web:1.1" in changed and "web:1.0" in untouched
    app = workload.application("bench-0001", "sluice")
    assert app["spec"]["source"] == {
        "repoURL": workload.url,
        "targetRevision": "HEAD",
        "path": "bench-0001",
    }


def test_a_scaling_curve_keeps_the_points_measured_before_one_gave_up(
    capsys: pytest.CaptureFixture[str],
) -> None:
    async def deploy(options: FleetOptions) -> int:
        if options.apps == 4000:
            raise TimeoutError("12 apps not Synced + Healthy")
        return options.apps

    ran = run_fleet("pipeline_scale", ["--apps", "250,1000,4000"], None, deploy)
    assert ran is not None and ran.gave_up
    assert [(options.apps, result) for options, result in ran.ran] == [(250, 250), (1000, 1000)]
    assert "4000 apps: 12 apps not Synced + Healthy" in capsys.readouterr().err


def test_a_fleet_gets_more_time_the_more_apps_it_deploys() -> None:
    args = options_parser("pipeline_scale", None).parse_args(["--apps", "250,4000"])
    assert fleet_options(args, 250).timeout == 600
    assert fleet_options(args, 4000).timeout == 4800
    args = options_parser("pipeline_scale", None).parse_args(["--timeout", "90"])
    assert fleet_options(args, 4000).timeout == 90
