"""Request bodies: size-limited reads, decoded by Content-Type.

JSON everywhere; YAML where Kubernetes accepts it (`application/yaml`, and server-side
apply's `application/apply-patch+yaml`, which kubectl actually sends as JSON). YAML
anchors and aliases are refused so a small body cannot expand into a huge object.
Protobuf, which kubectl's generator commands send for built-in kinds, is decoded into
the same JSON form (`app.localcluster.protobuf`) where the real server accepts it:
creates and updates, not patches.
"""

import json
from typing import Any

import yaml
from aiohttp import web

from app.localcluster import errors, protobuf
from app.localcluster.api.patches import APPLY_PATCH, JSON_PATCH, MERGE_PATCH, STRATEGIC_PATCH

JSON = "application/json"
YAML = "application/yaml"
PROTOBUF = "application/vnd.kubernetes.protobuf"
PATCH_TYPES = (JSON_PATCH, MERGE_PATCH, STRATEGIC_PATCH, APPLY_PATCH)
OBJECT_TYPES = (JSON, YAML, PROTOBUF)
"""What a create or update body may be."""

_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


async def read(request: web.Request, limit: int) -> bytes:
    """The whole body, or 413 as soon as it passes `limit` bytes."""
    if request.content_length is not None and request.content_length > limit:
        raise errors.too_large(limit)
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.content.iter_chunked(64 * 1024):
        size += len(chunk)
        if size > limit:
            raise errors.too_large(limit)
        chunks.append(chunk)
    return b"".join(chunks)


def media_type(request: web.Request) -> str:
    """The body's media type; JSON when the request names none, as the real server takes it
    (kubectl scale --current-replicas sends its Scale with no Content-Type)."""
    if "Content-Type" not in request.headers:
        return JSON
    return request.content_type.lower()


def _protobuf(raw: bytes) -> Any:
    try:
        return protobuf.decode(raw)
    except protobuf.UnknownKind as e:
        raise errors.unsupported_media_type(
            f"{e}: send it as JSON or YAML (`kubectl apply -f FILE`)"
        ) from None
    except protobuf.ProtobufError as e:
        raise errors.bad_request(f"the protobuf request body cannot be decoded: {e}") from None


def _yaml(raw: bytes) -> Any:
    text = raw.decode("utf-8", errors="strict")
    for event in yaml.parse(text, Loader=_Loader):
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
            raise errors.bad_request(
                "YAML anchors and aliases are not accepted in request bodies; expand them"
            )
    return yaml.load(text, Loader=_Loader)  # noqa: S506 - a safe loader (CSafeLoader)


def decode(raw: bytes, content_type: str, *, allowed: tuple[str, ...] = (JSON, YAML)) -> Any:
    """The decoded body; 415 for a media type not in `allowed`, 400 for a malformed one."""
    if content_type not in allowed:
        accepted = ", ".join(allowed)
        raise errors.unsupported_media_type(
            f"the body of the request was in an unknown format ({content_type or 'none'}); "
            f"accepted media types include: {accepted}"
        )
    if content_type == PROTOBUF:
        return _protobuf(raw)
    if not raw.strip():
        return None
    try:
        return json.loads(raw)
    except (ValueError, UnicodeDecodeError) as e:
        if content_type not in (YAML, APPLY_PATCH):
            raise errors.bad_request(f"the request body is not valid JSON: {e}") from None
    try:
        return _yaml(raw)
    except (yaml.YAMLError, UnicodeDecodeError) as e:
        raise errors.bad_request(f"the request body is not valid YAML: {e}") from None
