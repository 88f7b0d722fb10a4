"""The chaos fleet: N automated apps, each with hooks and waves, from one Git repository.

Generation `g` of app `<name>` (directory `apps/<name>`, namespace `<name>`) holds:

- a PreSync hook Job `presync-g<g>` and a PostSync hook Job `postsync-g<g>` (deleted when
  they succeed; a name per generation, so a Job created twice for one operation shows);
- wave -1: ConfigMap `config` (`data.gen: g`);
- wave 0: Deployment `web`, its template stamped with the generation (a rollout each time);
- wave 1: Service `web` and ConfigMap `extra-g<g>` (the previous generation's is pruned).

Every app syncs automatically with prune on, so each commit is one operation per app.
"""

from collections.abc import Mapping
from typing import Any

import yaml

from tests.chaos.invariants import ObjectKey

CONTROL = "sluice"
IN_CLUSTER = "https://kubernetes.default.svc"
WAVE = "argocd.argoproj.io/sync-wave"
HOOK = "argocd.argoproj.io/hook"
DELETE_POLICY = "argocd.argoproj.io/hook-delete-policy"


def names(apps: int) -> list[str]:
    return [f"chaos-{i:02d}" for i in range(apps)]


def _meta(name: str, wave: int | None = None, **annotations: str) -> dict[str, Any]:
    if wave is not None:
        annotations[WAVE] = str(wave)
    meta: dict[str, Any] = {"name": name}
    if annotations:
        meta["annotations"] = annotations
    return meta


def hook_job(name: str, phase: str) -> dict[str, Any]:
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": _meta(name, **{HOOK: phase, DELETE_POLICY: "HookSucceeded"}),
        "spec": {
            "backoffLimit": 0,
            "template": {
                "spec": {
                    "restartPolicy": "Never",
                    "containers": [{"name": "main", "image": "busybox:1.36"}],
                }
            },
        },
    }


def declared(gen: int) -> list[dict[str, Any]]:
    """The objects of one app at generation `gen`, hooks excluded."""
    labels = {"app": "web"}
    return [
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": _meta("config", -1),
            "data": {"gen": str(gen)},
        },
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": _meta("web", 0),
            "spec": {
                "replicas": 1,
                "selector": {"matchLabels": labels},
                "template": {
                    "metadata": {"labels": labels, "annotations": {"chaos/gen": str(gen)}},
                    "spec": {"containers": [{"name": "main", "image": "nginx:1.27"}]},
                },
            },
        },
        {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": _meta("web", 1),
            "spec": {"selector": labels, "ports": [{"port": 80, "targetPort": 8080}]},
        },
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": _meta(f"extra-g{gen}", 1),
            "data": {"gen": str(gen)},
        },
    ]


def hooks(gen: int) -> list[dict[str, Any]]:
    return [hook_job(f"presync-g{gen}", "PreSync"), hook_job(f"postsync-g{gen}", "PostSync")]


def repository(apps: int, gen: int) -> dict[str, str]:
    """Every file of the repository at generation `gen`."""
    text = yaml.safe_dump_all([*hooks(gen), *declared(gen)], sort_keys=False)
    return {f"apps/{name}/app.yaml": text for name in names(apps)}


def declared_keys(apps: int, gen: int) -> dict[str, dict[ObjectKey, Mapping[str, Any]]]:
    """Application name -> (namespace, kind, name) -> object, for the invariants."""
    return {
        app: {(app, obj["kind"], obj["metadata"]["name"]): obj for obj in declared(gen)}
        for app in names(apps)
    }


def applications(apps: int, repo_url: str) -> list[dict[str, Any]]:
    return [
        {
            "apiVersion": "argoproj.io/v1alpha1",
            "kind": "Application",
            "metadata": {"name": name, "namespace": CONTROL},
            "spec": {
                "project": "default",
                "source": {"repoURL": repo_url, "path": f"apps/{name}", "targetRevision": "main"},
                "destination": {"server": IN_CLUSTER, "namespace": name},
                "syncPolicy": {
                    "automated": {"prune": True},
                    "syncOptions": ["CreateNamespace=true"],
                },
            },
        }
        for name in names(apps)
    ]
