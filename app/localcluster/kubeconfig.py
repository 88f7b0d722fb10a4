"""The kubeconfig a local cluster writes for its clients (kubectl, kubernetes-asyncio)."""

import os
from pathlib import Path

import yaml

CONTEXT_NAME = "sluice-local"


def render(url: str, namespace: str = "default") -> str:
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": CONTEXT_NAME, "cluster": {"server": url}}],
        "users": [{"name": CONTEXT_NAME, "user": {}}],
        "contexts": [
            {
                "name": CONTEXT_NAME,
                "context": {"cluster": CONTEXT_NAME, "user": CONTEXT_NAME, "namespace": namespace},
            }
        ],
        "current-context": CONTEXT_NAME,
        "preferences": {},
    }
    return yaml.safe_dump(config, sort_keys=False)


def write(path: Path, url: str) -> None:
    """Write the kubeconfig, readable by its owner only."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(render(url))
    os.replace(tmp, path)
