"""deploy/ and compose.yaml stay in step with the code: every component they run exists, and
every Secret key a Deployment reads is one secrets.yaml defines."""

import argparse
from pathlib import Path
from typing import Any

import yaml

from app.cli.main import build_parser
from workers import registry

ROOT = Path(__file__).resolve().parents[2]


def documents() -> list[dict[str, Any]]:
    docs: list[dict[str, Any]] = []
    for path in sorted((ROOT / "deploy").glob("*.yaml")):
        docs += [d for d in yaml.safe_load_all(path.read_text()) if d]
    return docs


def containers(doc: dict[str, Any]) -> list[dict[str, Any]]:
    spec = doc.get("spec", {}).get("template", {}).get("spec", {})
    return list(spec.get("containers", []))


def test_every_worker_runs_in_deploy_and_compose() -> None:
    deployed = {
        c["args"][1]
        for d in documents()
        if d["kind"] == "Deployment"
        for c in containers(d)
        if c.get("args", [None])[0] == "worker"
    }
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text())["services"]
    composed = {s["command"][1] for s in compose.values() if s.get("command", [""])[0] == "worker"}
    assert deployed == set(registry.WORKERS)
    assert composed == set(registry.WORKERS)


def test_every_command_the_manifests_run_is_a_sluice_command() -> None:
    actions = build_parser()._actions
    (sub,) = [a for a in actions if isinstance(a, argparse._SubParsersAction)]
    commands = set(sub.choices)
    used = {
        c["args"][0]
        for d in documents()
        if d["kind"] == "Deployment"
        for c in containers(d)
        if "args" in c and c.get("image", "").endswith("sluice:latest")
    }
    assert used and used <= commands


def test_secret_keys_read_by_deployments_are_defined() -> None:
    docs = documents()
    (secret,) = [d for d in docs if d["kind"] == "Secret" and d["metadata"]["name"] == "sluice"]
    defined = set(secret["stringData"])
    for doc in docs:
        for container in containers(doc):
            for env in container.get("env", []):
                ref = env.get("valueFrom", {}).get("secretKeyRef")
                if ref and not ref.get("optional"):
                    assert ref["key"] in defined, (doc["metadata"]["name"], ref["key"])


def test_every_component_has_a_metrics_service_on_its_metrics_port() -> None:
    docs = documents()
    exposing = {
        d["spec"]["template"]["metadata"]["labels"]["app.kubernetes.io/component"]
        for d in docs
        if d["kind"] == "Deployment"
        and d["metadata"].get("labels", {}).get("app.kubernetes.io/name") == "sluice"
        for c in containers(d)
        if any(p.get("name") == "metrics" for p in c.get("ports", []))
        and any(e["name"] == "SLUICE_METRICS_PORT" for e in c.get("env", []))
    }
    services = {
        d["spec"]["selector"]["app.kubernetes.io/component"]: d
        for d in docs
        if d["kind"] == "Service"
        and d["metadata"].get("labels", {}).get("app.kubernetes.io/part-of") == "sluice-metrics"
    }
    assert exposing == set(services) == {*registry.WORKERS, "api"}
    for service in services.values():
        assert service["spec"]["ports"] == [
            {"name": "metrics", "port": 9090, "targetPort": "metrics"}
        ]
