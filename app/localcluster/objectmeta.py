"""metadata rules every write shares: names, labels, annotations, server-owned fields.

Validation returns `Cause`s (field path + problem) so that one 422 lists everything
wrong with an object at once, as the real API server does.
"""

import re
import secrets
import uuid
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from app.localcluster.errors import Cause
from app.localcluster.levers import lever_causes
from app.model.timestamps import format_time, parse_time

SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
DNS1035 = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
_QUALIFIED_NAME = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
_LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
_GENERATE_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
MAX_ANNOTATIONS_BYTES = 256 * 1024

SERVER_OWNED = (
    "uid",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "generation",
    "resourceVersion",
    "selfLink",
)
"""metadata fields only the server sets: taken from the stored object, never the body."""


def now() -> str:
    """The current time as Kubernetes writes it (RFC 3339, seconds, UTC)."""
    return format_time(datetime.now(UTC))


def epoch(stamp: str) -> float | None:
    """Seconds since the epoch of a Kubernetes RFC 3339 time; None if it is not one."""
    try:
        return parse_time(stamp).timestamp()
    except ValueError:
        return None


def new_uid() -> str:
    return str(uuid.uuid4())


def random_suffix(length: int = 5) -> str:
    """Random characters from the alphabet Kubernetes uses for generated names."""
    return "".join(secrets.choice(_GENERATE_ALPHABET) for _ in range(length))


def name_problem(name: str, rule: str) -> str:
    """Why `name` is not a valid object name under `rule`, or "" if it is."""
    if rule == "segment":
        if name in (".", "..") or "/" in name or "%" in name:
            return "may not be '.' or '..' and may not contain '/' or '%'"
        return ""
    if rule == "label":
        pattern, limit, what = LABEL, 63, "a lowercase RFC 1123 label"
    elif rule == "dns1035":
        pattern, limit, what = DNS1035, 63, "a DNS-1035 label (start with a letter)"
    else:
        pattern, limit, what = SUBDOMAIN, 253, "a lowercase RFC 1123 subdomain"
    if len(name) > limit:
        return f"must be no more than {limit} characters"
    if not pattern.match(name):
        return (
            f"{what} must consist of lower case alphanumeric characters, '-' or '.', and must "
            "start and end with an alphanumeric character"
        )
    return ""


def _key_problem(key: str) -> str:
    prefix, slash, name = key.rpartition("/")
    if slash and (not prefix or len(prefix) > 253 or not SUBDOMAIN.match(prefix)):
        return "prefix part must be a lowercase RFC 1123 subdomain"
    if not name or len(name) > 63 or not _QUALIFIED_NAME.match(name):
        return (
            "name part must consist of alphanumeric characters, '-', '_' or '.', start and end "
            "with an alphanumeric character, and be 63 characters at most"
        )
    return ""


def metadata_causes(meta: Mapping[str, Any]) -> list[Cause]:
    """Problems with labels, annotations, finalizers and ownerReferences of `meta`."""
    causes: list[Cause] = []
    labels = meta.get("labels")
    if labels is not None and not isinstance(labels, dict):
        causes.append(Cause("FieldValueInvalid", "must be a map of strings", "metadata.labels"))
    for key, value in (labels or {}).items() if isinstance(labels, dict) else ():
        problem = _key_problem(str(key))
        if problem:
            causes.append(
                Cause("FieldValueInvalid", f"Invalid value: {key!r}: {problem}", "metadata.labels")
            )
        if not isinstance(value, str) or len(value) > 63 or not _LABEL_VALUE.match(value):
            causes.append(
                Cause(
                    "FieldValueInvalid",
                    f"Invalid value: {value!r}: a label value must be a string of 63 characters "
                    "at most: alphanumerics, '-', '_' or '.', starting and ending alphanumeric",
                    f"metadata.labels.{key}",
                )
            )
    annotations = meta.get("annotations")
    if annotations is not None and not isinstance(annotations, dict):
        causes.append(
            Cause("FieldValueInvalid", "must be a map of strings", "metadata.annotations")
        )
    elif annotations:
        size = 0
        for key, value in annotations.items():
            problem = _key_problem(str(key))
            if problem:
                causes.append(
                    Cause(
                        "FieldValueInvalid",
                        f"Invalid value: {key!r}: {problem}",
                        "metadata.annotations",
                    )
                )
            if not isinstance(value, str):
                causes.append(
                    Cause(
                        "FieldValueInvalid",
                        "annotation values must be strings",
                        f"metadata.annotations.{key}",
                    )
                )
                continue
            size += len(key) + len(value)
        causes.extend(lever_causes(annotations))
        if size > MAX_ANNOTATIONS_BYTES:
            causes.append(
                Cause(
                    "FieldValueTooLong",
                    f"Too long: must have at most {MAX_ANNOTATIONS_BYTES} bytes",
                    "metadata.annotations",
                )
            )
    finalizers = meta.get("finalizers")
    if finalizers is not None and (
        not isinstance(finalizers, list) or not all(isinstance(f, str) and f for f in finalizers)
    ):
        causes.append(
            Cause("FieldValueInvalid", "must be a list of non-empty strings", "metadata.finalizers")
        )
    owners = meta.get("ownerReferences")
    if owners is not None:
        causes.extend(_owner_causes(owners))
    return causes


def _owner_causes(owners: Any) -> list[Cause]:
    if not isinstance(owners, list):
        return [Cause("FieldValueInvalid", "must be a list", "metadata.ownerReferences")]
    causes: list[Cause] = []
    controllers = 0
    for i, ref in enumerate(owners):
        path = f"metadata.ownerReferences[{i}]"
        if not isinstance(ref, dict):
            causes.append(Cause("FieldValueInvalid", "must be an object", path))
            continue
        for required in ("apiVersion", "kind", "name", "uid"):
            if not ref.get(required):
                causes.append(Cause("FieldValueRequired", "Required value", f"{path}.{required}"))
        controllers += 1 if ref.get("controller") is True else 0
    if controllers > 1:
        causes.append(
            Cause(
                "FieldValueInvalid",
                "Only one reference can have Controller set to true",
                "metadata.ownerReferences",
            )
        )
    return causes
