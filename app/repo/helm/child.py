"""The child process a Helm render runs in: `python -m app.repo.helm.child`.

It reads one JSON request on stdin, loads the chart with Helm's own Go SDK (the
`helm-python-sdk` binding), coalesces the values the way `helm template` does, renders,
and writes one JSON answer on stdout: the rendered files (and the chart's CRDs unless
skipped) as `[path, text]` pairs, or an `error` text. The parent (engine.py) owns the
deadline, the memory and output caps and the process-group kill; nothing here touches
the network or anything outside the chart directory it was given.

Values, as Helm's `values.Options.MergeValues` orders them: each values document in order
(value files, then `values`/`valuesObject`), deep-merged; then every `--set`, every
`--set-string`, every `--set-file`, each parsed by Helm's own `strvals` parser and placed
into the values so far as Helm places it (`set_values`: list indexes edit the list).
"""

import json
import os
import sys
from typing import Any

import helm_python as helm
from helm_python import _native

from app.repo.helm.set_values import set_into


def merge(base: dict[str, Any], layer: dict[str, Any]) -> dict[str, Any]:
    """Helm's mergeMaps: nested maps merge, anything else in `layer` replaces."""
    for key, value in layer.items():
        current = base.get(key)
        if isinstance(value, dict) and isinstance(current, dict):
            base[key] = merge(current, value)
        else:
            base[key] = value
    return base


def _strip_schemas(chart_dir: str) -> None:
    """skipSchemaValidation: the chart (a private copy) and its subcharts lose their schemas."""
    for directory, _dirs, files in os.walk(chart_dir):
        if "values.schema.json" in files:
            os.unlink(os.path.join(directory, "values.schema.json"))


def merged_values(request: dict[str, Any]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for index, document in enumerate(request["values"]):
        try:
            layer = helm.values_from_yaml(document) if document.strip() else {}
        except helm.HelmError as e:
            raise ValueError(f"{request['value_names'][index]}: {e}") from None
        merge(values, layer or {})
    for name, value in request["set"]:
        shape = helm.parse_set_string_values(f"{name}=x")
        set_into(values, shape, helm.parse_set_string(f"{name}={value}"), f"parameter {name!r}")
    for name, value in request["set_string"]:
        shape = helm.parse_set_string_values(f"{name}=x")
        parsed = helm.parse_set_string_values(f"{name}={value}")
        set_into(values, shape, parsed, f"parameter {name!r}")
    for name, text in request["set_file"]:
        shape = helm.parse_set_literal(f"{name}=x")
        parsed = helm.parse_set_literal(f"{name}={text}")
        set_into(values, shape, parsed, f"file parameter {name!r}")
    return values


def render(request: dict[str, Any]) -> list[list[str]]:
    if request["skip_schema_validation"]:
        _strip_schemas(request["chart"])
    options = {
        "name": request["release"],
        "namespace": request["namespace"],
        "revision": 1,
        "is_install": True,
        "kube_version": request["kube_version"] or None,
        "api_versions": request["api_versions"],
    }
    values = merged_values(request)
    with helm.Chart.load(request["chart"]) as chart:
        # Chart.render takes no Capabilities; the same native call does (kube_version,
        # api_versions), so it is called directly, with the binding's own handle.
        rendered = json.loads(
            _native.call_string(
                "helm_render",
                chart._raw(),
                json.dumps(values),
                json.dumps({k: v for k, v in options.items() if v is not None}),
            )
        )
        files = []
        if request["include_crds"]:
            files += [[crd["filename"], crd["data"]] for crd in chart.crds]
    for path in sorted(rendered):
        name = path.rsplit("/", 1)[-1]
        if name.startswith("_") or name == "NOTES.txt" or not rendered[path].strip():
            continue
        files.append([path, rendered[path]])
    return files


def main() -> None:
    request = json.loads(sys.stdin.buffer.read())
    try:
        answer: dict[str, Any] = {"files": render(request)}
    except (helm.HelmError, ValueError, OSError, KeyError, TypeError) as e:
        answer = {"error": str(e) or type(e).__name__}
    sys.stdout.write(json.dumps(answer))


if __name__ == "__main__":
    main()
