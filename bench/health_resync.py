"""Health of a resync: CPU for 10,000 assessments (half Lua) against decoding the objects.

A resync assesses the health of every live object of every app. 5,000 Deployments
(built-in check) and 5,000 cert-manager Certificates (the Lua check Sluice ships, run
in its sandbox) are assessed with `app.engine.health.assess`; the baseline, measured in
the same run, is `json.loads` of the same 10,000 objects, which the watcher pays for each
one anyway. The unit test holds the part that does not depend on the machine: every Lua
check is compiled once, never per object.
"""

import argparse
import json
import sys
from typing import Any

from app import log_setup
from app.engine.health import assess
from bench.support.cpu import cpu_per_call, ratio
from bench.support.figures import Line, report

OBJECTS = 10_000


def _deployment(i: int) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": f"web-{i}", "namespace": "shop", "generation": 1},
        "spec": {"replicas": 1},
        "status": {
            "observedGeneration": 1,
            "replicas": 1,
            "updatedReplicas": 1,
            "availableReplicas": 1,
        },
    }


def _certificate(i: int) -> dict[str, Any]:
    return {
        "apiVersion": "cert-manager.io/v1",
        "kind": "Certificate",
        "metadata": {"name": f"cert-{i}", "namespace": "shop", "generation": 1},
    }


def main(argv: list[str]) -> int:
    argparse.ArgumentParser(prog="bench health_resync", description=__doc__).parse_args(argv)
    log_setup.configure("warning")
    builtin = [_deployment(i) for i in range(OBJECTS // 2)]
    lua = [_certificate(i) for i in range(OBJECTS // 2)]
    texts = [json.dumps(obj) for obj in (*builtin, *lua)]
    assess(lua[0])

    def decode() -> None:
        for text in texts:
            json.loads(text)

    def assess_all(objects: list[dict[str, Any]]) -> None:
        for obj in objects:
            assess(obj)

    baseline = cpu_per_call(decode, rounds=3)
    ours_builtin = cpu_per_call(lambda: assess_all(builtin), rounds=3)
    ours_lua = cpu_per_call(lambda: assess_all(lua), rounds=3)
    both = ours_builtin + ours_lua
    report(
        f"health_resync: {OBJECTS:,} health assessments (smallest of 3 rounds, CPU)",
        f"{len(builtin):,} Deployments (built-in), {len(lua):,} Certificates (packaged Lua)",
        [
            Line("all assessments", f"{both:.3f} s, {ratio(both, baseline)} the baseline"),
            Line("built-in checks", f"{ours_builtin:.3f} s"),
            Line("Lua checks", f"{ours_lua:.3f} s"),
            Line("baseline: json.loads of the same objects", f"{baseline:.3f} s"),
        ],
        f"decoding the {OBJECTS:,} objects from JSON, measured in the same run",
        ["python", "-m", "bench", "health_resync", *argv],
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
