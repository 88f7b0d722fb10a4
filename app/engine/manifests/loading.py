"""From rendered files to validated Kubernetes objects, or one clear error.

`load_manifests` checks the combined size of a render before parsing anything, then parses
each file (JSON when its name ends in `.json`, YAML otherwise), flattens Lists and checks
that every object can be identified. A `.jsonnet` file's content is its evaluated JSON,
taken as Argo CD takes it: an object is one manifest, an array one per element (`null`
and `null` elements give none, a nested array is refused). The first problem raises
`SpecError` whose source names the file, the 1-based document index and the line, e.g.
`charts/web.yaml document 3 (line 41): metadata.name: is required ...`.
"""

import json
from collections.abc import Iterable, Iterator
from typing import Any

from app.engine.manifests.bounded_yaml import YamlDocumentError, iter_yaml_documents
from app.engine.manifests.limits import ManifestLimits
from app.model import annotations as ann
from app.model.errors import SpecError
from app.model.resource import KubeObject

DEFAULT_LIMITS = ManifestLimits()


def _where(source: str, document: int, line: int, item: int | None = None) -> str:
    text = f"{source} document {document}"
    if item is not None:
        text += f" item {item}"
    return f"{text} (line {line})" if line else text


def _size(text: str | bytes) -> int:
    return len(text)


def load_manifests(
    files: Iterable[tuple[str, str | bytes]], limits: ManifestLimits = DEFAULT_LIMITS
) -> list[KubeObject]:
    """Parse every (file name, content) of one render; combined size is checked first."""
    pending = list(files)
    total = sum(_size(content) for _, content in pending)
    if total > limits.max_total_bytes:
        biggest = max(pending, key=lambda f: _size(f[1]))[0]
        raise SpecError(
            "",
            f"rendered manifests total {total:,} bytes, over the {limits.max_total_bytes:,}"
            f" byte limit (largest file: {biggest}); split the application or raise the limit",
        )
    objects: list[KubeObject] = []
    for name, content in pending:
        budget = ManifestLimits(
            max_total_bytes=limits.max_total_bytes,
            max_documents=limits.max_documents - len(objects),
            max_nodes=limits.max_nodes,
            max_depth=limits.max_depth,
        )
        objects.extend(parse_manifests(content, source=name, limits=budget))
    return objects


def parse_manifests(
    content: str | bytes, *, source: str, limits: ManifestLimits = DEFAULT_LIMITS
) -> list[KubeObject]:
    """Parse one file of manifests into objects (Lists flattened), or raise SpecError."""
    if _size(content) > limits.max_total_bytes:
        raise SpecError(
            "",
            f"{_size(content):,} bytes, over the {limits.max_total_bytes:,} byte manifest "
            "limit; split the file or raise the limit",
            source=source,
        )
    if isinstance(content, bytes):
        try:
            text = content.decode("utf-8")
        except UnicodeDecodeError as e:
            raise SpecError("", f"not UTF-8 text (byte {e.start})", source=source) from None
    else:
        text = content
    documents: Iterable[tuple[int, int, Any]]
    if source.endswith(".jsonnet"):
        documents = _jsonnet_documents(text, source)
    elif source.endswith(".json"):
        documents = _json_documents(text, source)
    else:
        documents = _yaml(text, source, limits)
    objects: list[KubeObject] = []
    for index, line, data in documents:
        for item, obj in _flatten(data, source, index, line):
            if len(objects) >= limits.max_documents:
                raise SpecError(
                    "",
                    f"more than {limits.max_documents:,} objects; split the source into "
                    "several applications",
                    source=_where(source, index, line, item),
                )
            _check_object(obj, _where(source, index, line, item))
            objects.append(obj)
    return objects


def _yaml(text: str, source: str, limits: ManifestLimits) -> Iterator[tuple[int, int, Any]]:
    try:
        yield from iter_yaml_documents(text, limits)
    except YamlDocumentError as e:
        raise SpecError("", e.problem, source=_where(source, e.document, e.line)) from None


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"duplicate key {key!r}; remove one of them")
        out[key] = value
    return out


def _json_documents(text: str, source: str) -> list[tuple[int, int, Any]]:
    try:
        data = json.loads(text, object_pairs_hook=_no_duplicates)
    except json.JSONDecodeError as e:
        raise SpecError("", f"invalid JSON: {e.msg}", source=_where(source, 1, e.lineno)) from None
    except ValueError as e:
        raise SpecError("", str(e), source=_where(source, 1, 0)) from None
    except RecursionError:
        raise SpecError("", "JSON nests too deeply", source=_where(source, 1, 0)) from None
    return [] if data is None else [(1, 1, data)]


def _jsonnet_documents(text: str, source: str) -> list[tuple[int, int, Any]]:
    """An evaluated Jsonnet file: an object, or an array whose elements are the documents."""
    parsed = _json_documents(text, source)
    if not parsed or not isinstance(parsed[0][2], list):
        return [(1, 0, data) for _, _, data in parsed]
    data = parsed[0][2]
    documents: list[tuple[int, int, Any]] = []
    for index, item in enumerate(data, start=1):
        if isinstance(item, list):
            raise SpecError(
                "",
                "is an array inside the output array; Argo CD takes an object or an array of "
                "objects: flatten it with std.flattenArrays",
                source=_where(source, index, 0),
            )
        if item is not None:
            documents.append((index, 0, item))
    return documents


def _is_list(data: dict[str, Any]) -> bool:
    kind = data.get("kind")
    return isinstance(kind, str) and kind.endswith("List") and isinstance(data.get("items"), list)


def _flatten(
    data: Any, source: str, index: int, line: int
) -> Iterator[tuple[int | None, KubeObject]]:
    if not isinstance(data, dict):
        raise SpecError(
            "",
            f"expected a Kubernetes object (a mapping), got {type(data).__name__}",
            source=_where(source, index, line),
        )
    if not _is_list(data):
        yield None, data
        return
    for item, obj in enumerate(data["items"], start=1):
        if not isinstance(obj, dict):
            raise SpecError(
                f"items[{item - 1}]",
                f"expected a Kubernetes object (a mapping), got {type(obj).__name__}",
                source=_where(source, index, line),
            )
        yield item, obj


def _is_hook(metadata: dict[str, Any]) -> bool:
    annotations = metadata.get("annotations")
    if not isinstance(annotations, dict):
        return False
    return bool(annotations.get(ann.HOOK) or annotations.get(ann.HELM_HOOK))


def _check_object(obj: KubeObject, where: str) -> None:
    for field in ("apiVersion", "kind"):
        value = obj.get(field)
        if not isinstance(value, str) or not value:
            raise SpecError(
                field,
                "is required (a non-empty string); every manifest needs apiVersion, kind "
                "and metadata.name",
                source=where,
            )
    metadata = obj.get("metadata")
    if not isinstance(metadata, dict):
        raise SpecError("metadata", "is required (a mapping with at least a name)", source=where)
    name = metadata.get("name")
    if isinstance(name, str) and name:
        return
    if name is not None and not isinstance(name, str):
        raise SpecError("metadata.name", f"must be a string, got {name!r}", source=where)
    generate = metadata.get("generateName")
    if isinstance(generate, str) and generate:
        if _is_hook(metadata):
            return
        raise SpecError(
            "metadata.name",
            "is required; metadata.generateName is only allowed on hooks (annotate the "
            f"object with {ann.HOOK}), give the object a name",
            source=where,
        )
    raise SpecError("metadata.name", "is required (a non-empty string)", source=where)
