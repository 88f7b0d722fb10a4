"""A unified YAML diff per resource, for people: live above, what a sync would make below.

Secrets are masked (`app.engine.redact.mask_secret_pair`), consistently on both sides so
that a changed key still shows as changed. Keys are sorted so the output is stable.
"""

import difflib

import yaml

from app.engine.redact import mask_secret_pair
from app.model.resource import KubeObject, ResourceKey

_Dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def yaml_lines(obj: KubeObject | None) -> list[str]:
    """The object as sorted-key YAML, one line per item (line ends kept)."""
    if obj is None:
        return []
    text = yaml.dump(obj, Dumper=_Dumper, sort_keys=True, default_flow_style=False)
    return text.splitlines(keepends=True)


def render_diff(
    key: ResourceKey,
    normalized_live: KubeObject | None,
    predicted_live: KubeObject | None,
    *,
    context: int = 3,
) -> str:
    """`diff -u` of live vs predicted live as YAML; empty when they are equal."""
    live, predicted = mask_secret_pair(normalized_live, predicted_live)
    name = f"{key.group}/{key.kind}/{key.namespace}/{key.name}".lstrip("/")
    lines = difflib.unified_diff(
        yaml_lines(live),
        yaml_lines(predicted),
        fromfile=f"live/{name}",
        tofile=f"target/{name}",
        n=context,
    )
    return "".join(lines)
