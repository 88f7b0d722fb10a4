"""The example apps `sluice up` deploys: a Git repository made on the spot, three Applications.

- `guestbook`: a Deployment and a Service (Argo CD's classic example).
- `waves`: a PreSync Job, a ConfigMap in wave -1, a Deployment in wave 0, a Service in
  wave 1 and a PostSync Job, to show phases, waves and hooks.
- `helm-demo`: the guestbook as a Helm chart (found by its Chart.yaml), rendered by
  Helm's own engine, as in Argo CD's example apps.

`ensure_repository(path)` creates (once) a Git repository holding the three directories,
with GitPython; `applications(repo_url, namespace)` returns the Applications in Argo CD's
YAML, with automated sync, prune, self-heal and CreateNamespace.
"""

from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

import git

APPS = ("guestbook", "waves", "helm-demo")
_SUFFIXES = (".yaml", ".tpl")


def ensure_repository(path: Path) -> str:
    """Create the example repository at `path` unless it exists; its `file://` URL."""
    if not (path / ".git").exists():
        path.mkdir(parents=True, exist_ok=True)
        repo = git.Repo.init(path, initial_branch="main")
        with repo.config_writer() as config:
            config.set_value("user", "name", "Sluice")
            config.set_value("user", "email", "sluice@localhost")
        files: list[str] = []
        for app in APPS:
            files += _copy(resources.files(__package__).joinpath(app), path / app, app)
        repo.index.add(sorted(files))
        repo.index.commit("Example apps for sluice up")
        repo.close()
    return path.resolve().as_uri()


def _copy(source: Traversable, target: Path, prefix: str) -> list[str]:
    """Copy the example files under `source` to `target`; their repository paths."""
    copied = []
    for item in source.iterdir():
        if item.is_dir():
            copied += _copy(item, target / item.name, f"{prefix}/{item.name}")
        elif item.name.endswith(_SUFFIXES):
            target.mkdir(parents=True, exist_ok=True)
            (target / item.name).write_text(item.read_text())
            copied.append(f"{prefix}/{item.name}")
    return copied


def applications(repo_url: str, namespace: str) -> list[dict[str, Any]]:
    """The example Applications, as a user would write them for Argo CD."""
    return [
        {
            "apiVersion": "argoproj.io/v1alpha1",
            "kind": "Application",
            "metadata": {"name": app, "namespace": namespace},
            "spec": {
                "project": "default",
                "source": {"repoURL": repo_url, "targetRevision": "HEAD", "path": app},
                "destination": {"server": "https://kubernetes.default.svc", "namespace": app},
                "syncPolicy": {
                    "automated": {"prune": True, "selfHeal": True},
                    "syncOptions": ["CreateNamespace=true"],
                },
            },
        }
        for app in APPS
    ]
