"""JSON encode and decode CPU: the standard library against orjson and msgspec, same run.

What Sluice encodes and decodes most, per app and per change: live objects (the watch
events the watcher decodes, the live cache it encodes for Redis and compare decodes), an
app's stored comparison result (decoded and encoded on every comparison) and bus
messages. Each is the workload's own data: the ten objects of a `pipeline_scale` app as
a local cluster stores them (uid, managedFields, status), an ApplicationStatus of ten
resources, a RefreshRequest. CPU seconds per call (the best of three rounds); the
baseline is the standard library's `json` on the same document in the same run.
"""

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

import msgspec
import orjson

from app.bus.messages import RefreshRequest, encode
from app.model.identity import AppRef
from app.model.sync import RefreshLevel
from bench.support.cpu import cpu_per_call, ratio
from bench.support.figures import Line, report
from bench.support.workload import app_manifests

Codec = tuple[Callable[[Any], bytes], Callable[[bytes], Any]]
CODECS: dict[str, Codec] = {
    "json": (
        lambda v: json.dumps(v, separators=(",", ":"), ensure_ascii=False).encode(),
        json.loads,
    ),
    "orjson": (orjson.dumps, orjson.loads),
    "msgspec": (msgspec.json.encode, msgspec.json.decode),
}


def stored(obj: dict[str, Any], i: int) -> dict[str, Any]:
    """`obj` as an API server returns it: uid, resourceVersion, managedFields, status."""
    meta = obj["metadata"]
    fields = {f"f:{key}": {} for key in obj if key not in {"apiVersion", "kind", "metadata"}}
    return {
        **obj,
        "metadata": {
            **meta,
            "uid": f"6c1f0a6e-1d2b-4c3d-8e9f-{i:012d}",
            "resourceVersion": str(100000 + i),
            "generation": 1,
            "creationTimestamp": "2026-12-01T10:00:00Z",
            "annotations": {"argocd.argoproj.io/tracking-id": f"app:/{obj['kind']}:ns/x"},
            "managedFields": [
                {
                    "manager": "sluice",
                    "operation": "Apply",
                    "apiVersion": obj["apiVersion"],
                    "time": "2026-12-01T10:00:00Z",
                    "fieldsType": "FieldsV1",
                    "fieldsV1": fields,
                }
            ],
        },
        "status": {"observedGeneration": 1, "replicas": 2, "readyReplicas": 2},
    }


def status_doc(objects: list[dict[str, Any]]) -> dict[str, Any]:
    """An ApplicationStatus of these resources, as the status store holds it."""
    resources = [
        {
            "group": o["apiVersion"].rpartition("/")[0],
            "version": o["apiVersion"].rpartition("/")[2],
            "kind": o["kind"],
            "namespace": o["metadata"]["namespace"],
            "name": o["metadata"]["name"],
            "status": "Synced",
            "health": {"status": "Healthy"},
        }
        for o in objects
    ]
    return {
        "sync": {"status": "Synced", "revision": "9" * 40, "comparedTo": {"source": {}}},
        "health": {"status": "Healthy"},
        "resources": resources,
        "reconciledAt": "2026-12-01T10:00:00Z",
        "conditions": [],
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench json_codecs", description=__doc__)
    parser.parse_args(argv)
    objects = [stored(o, i) for i, o in enumerate(app_manifests("bench-0000", 10, 0))]
    message = json.loads(encode(RefreshRequest(AppRef("sluice", "a"), RefreshLevel.LATEST, "x")))
    documents = {
        "10 live objects": objects,
        "ApplicationStatus, 10 resources": status_doc(objects),
        "RefreshRequest": message,
    }
    lines = []
    for what, doc in documents.items():
        data = CODECS["json"][0](doc)
        timed = {
            name: (
                cpu_per_call(lambda e=enc, v=doc: e(v)),
                cpu_per_call(lambda d=dec, b=data: d(b)),
            )
            for name, (enc, dec) in CODECS.items()
        }
        base_enc, base_dec = timed["json"]
        lines.append(Line(f"{what} ({len(data):,} bytes)", ""))
        for name, (enc, dec) in timed.items():
            lines.append(
                Line(
                    f"  {name}",
                    f"encode {enc * 1e6:7.1f} µs ({ratio(enc, base_enc)}), "
                    f"decode {dec * 1e6:7.1f} µs ({ratio(dec, base_dec)})",
                )
            )
    report(
        "json_codecs: CPU per encode and decode of what Sluice stores and sends",
        "in this process, the best of three rounds of at least 0.2 CPU s each",
        lines,
        "the standard library's json on the same document, same run",
        ["python", "-m", "bench", "json_codecs", *argv],
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
