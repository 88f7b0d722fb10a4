"""The apps a benchmark deploys: one Git repository, one directory and one Application each.

Every app has `resources` objects in its own namespace (created by the sync through
`CreateNamespace=true`), cycling through ten kinds a web service is made of: ConfigMap,
Secret, ServiceAccount, Service, Deployment, Role, RoleBinding, Ingress,
PodDisruptionBudget and a second ConfigMap. `version` goes into every Deployment's image
tag, so a commit that raises it rolls the Deployments out, as a release would.
"""

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import git
import yaml

Manifest = dict[str, Any]


def _config(name: str, ns: str, version: int) -> Manifest:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": ns},
        "data": {"LOG_LEVEL": "info", "FEATURES": "a,b,c"},
    }


def _secret(name: str, ns: str, version: int) -> Manifest:
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": name, "namespace": ns},
        "type": "Opaque",
        "stringData": {"password": "not-a-real-password"},
    }


def _account(name: str, ns: str, version: int) -> Manifest:
    return {
        "apiVersion": "v1",
        "kind": "ServiceAccount",
        "metadata": {"name": name, "namespace": ns},
    }


def _service(name: str, ns: str, version: int) -> Manifest:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name, "namespace": ns},
        "spec": {"selector": {"app": name}, "ports": [{"port": 80, "targetPort": 8080}]},
    }


def _deployment(name: str, ns: str, version: int) -> Manifest:
    labels = {"app": name}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": ns},
        "spec": {
            "replicas": 2,
            "selector": {"matchLabels": labels},
            "template": {
                "metadata": {"labels": labels},
                "spec": {
                    "containers": [
                        {
                            "name": "web",
                            "image": f"registry.example/web:1.{version}",
                            "ports": [{"containerPort": 8080}],
                        }
                    ]
                },
            },
        },
    }


def _role(name: str, ns: str, version: int) -> Manifest:
    return {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "Role",
        "metadata": {"name": name, "namespace": ns},
        "rules": [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get"]}],
    }


def _binding(name: str, ns: str, version: int) -> Manifest:
    return {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "RoleBinding",
        "metadata": {"name": name, "namespace": ns},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": name},
        "subjects": [{"kind": "ServiceAccount", "name": name, "namespace": ns}],
    }


def _ingress(name: str, ns: str, version: int) -> Manifest:
    backend = {"service": {"name": name, "port": {"number": 80}}}
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "Ingress",
        "metadata": {"name": name, "namespace": ns},
        "spec": {
            "rules": [
                {
                    "host": f"{name}.{ns}.example.com",
                    "http": {"paths": [{"path": "/", "pathType": "Prefix", "backend": backend}]},
                }
            ]
        },
    }


def _budget(name: str, ns: str, version: int) -> Manifest:
    return {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": name, "namespace": ns},
        "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": name}}},
    }


_KINDS: tuple[Callable[[str, str, int], Manifest], ...] = (
    _config,
    _secret,
    _account,
    _service,
    _deployment,
    _role,
    _binding,
    _ingress,
    _budget,
    _config,
)


def app_manifests(namespace: str, resources: int, version: int) -> list[Manifest]:
    """`resources` objects for one app in `namespace`; names unique per kind."""
    objects = []
    for i in range(resources):
        make = _KINDS[i % len(_KINDS)]
        objects.append(make(f"web-{i}", namespace, version))
    return objects


def app_names(count: int) -> Iterator[str]:
    """`bench-0000`, `bench-0001`, …: app, directory and namespace names."""
    width = max(4, len(str(count - 1)))
    for i in range(count):
        yield f"bench-{i:0{width}d}"


@dataclass
class Workload:
    """A repository of `apps` directories of `resources` objects each."""

    path: Path
    apps: tuple[str, ...]
    resources: int
    version: int = 0

    @classmethod
    def create(cls, path: Path, names: Iterable[str], resources: int) -> "Workload":
        """Write and commit the manifests of an app per name (version 0)."""
        workload = cls(path, tuple(names), resources)
        repo = git.Repo.init(path, initial_branch="main")
        with repo.config_writer() as config:
            config.set_value("user", "name", "Sluice Bench")
            config.set_value("user", "email", "bench@sluice.invalid")
        repo.close()
        workload.commit(workload.apps, "initial apps")
        return workload

    @property
    def url(self) -> str:
        return self.path.resolve().as_uri()

    @property
    def head(self) -> str:
        """The SHA `main` points at."""
        repo = git.Repo(self.path)
        try:
            return repo.head.commit.hexsha
        finally:
            repo.close()

    def commit(self, apps: tuple[str, ...], message: str) -> str:
        """Write the manifests of `apps` at the current version, commit, return the SHA."""
        files = []
        for name in apps:
            target = self.path / name / "manifests.yaml"
            target.parent.mkdir(parents=True, exist_ok=True)
            docs = app_manifests(name, self.resources, self.version)
            target.write_text(yaml.safe_dump_all(docs, sort_keys=False))
            files.append(f"{name}/manifests.yaml")
        repo = git.Repo(self.path)
        try:
            repo.index.add(files)
            return repo.index.commit(message).hexsha
        finally:
            repo.close()

    def release(self, app: str) -> str:
        """Raise the version (a new image tag) of `app` and commit it; the new SHA."""
        self.version += 1
        return self.commit((app,), f"release {app} 1.{self.version}")

    def application(self, name: str, namespace: str) -> Manifest:
        """The Application of app `name` (its directory into namespace `name`, automated sync
        with prune and self-heal), as a user would write it for Argo CD."""
        return {
            "apiVersion": "argoproj.io/v1alpha1",
            "kind": "Application",
            "metadata": {"name": name, "namespace": namespace},
            "spec": {
                "project": "default",
                "source": {"repoURL": self.url, "targetRevision": "HEAD", "path": name},
                "destination": {"server": "https://kubernetes.default.svc", "namespace": name},
                "syncPolicy": {
                    "automated": {"prune": True, "selfHeal": True},
                    "syncOptions": ["CreateNamespace=true"],
                },
            },
        }
