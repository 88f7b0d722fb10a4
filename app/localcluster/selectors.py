"""Label and field selectors, parsed once per request and matched per object.

Label selectors are `app.model.label_selector`'s (a bad one is answered with 400
BadRequest naming the problem). Field selectors take `path=value`, `path==value` and
`path!=value` on metadata.name, metadata.namespace and the few per-type paths the real
server indexes; anything else is refused with 400, as the real server does, rather than
silently matching nothing.
"""

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from app.localcluster.errors import bad_request
from app.model.label_selector import MAX_SELECTOR_LENGTH, LabelSelector, SelectorError
from app.model.label_selector import parse_label_selector as parse_labels


def parse_label_selector(text: str) -> LabelSelector:
    """Parse a labelSelector query value; 400 BadRequest naming the problem if invalid."""
    try:
        return parse_labels(text)
    except SelectorError as e:
        raise bad_request(e.message) from None


@dataclass(frozen=True, slots=True)
class FieldRequirement:
    path: tuple[str, ...]
    value: str
    negate: bool

    def matches(self, obj: Mapping[str, Any]) -> bool:
        node: Any = obj
        for part in self.path:
            node = node.get(part) if isinstance(node, Mapping) else None
        actual = "" if node is None else str(node)
        return (actual == self.value) != self.negate


@dataclass(frozen=True, slots=True)
class FieldSelector:
    requirements: tuple[FieldRequirement, ...] = ()

    def matches(self, obj: Mapping[str, Any]) -> bool:
        return all(r.matches(obj) for r in self.requirements)

    @property
    def empty(self) -> bool:
        return not self.requirements


def _split_unescaped(text: str, sep: str) -> list[str]:
    parts, current, escaped = [], [], False
    for char in text:
        if escaped:
            current.append(char)
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == sep:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    parts.append("".join(current))
    return parts


def parse_field_selector(text: str, supported: tuple[str, ...], resource: str) -> FieldSelector:
    """Parse a fieldSelector for `resource`; unsupported paths are refused with 400."""
    if len(text) > MAX_SELECTOR_LENGTH:
        raise bad_request(f"field selector longer than {MAX_SELECTOR_LENGTH} characters")
    requirements: list[FieldRequirement] = []
    for term in _split_unescaped(text, ","):
        if not term.strip():
            continue
        for op in ("!=", "==", "="):
            path, found, value = term.partition(op)
            if found:
                break
        else:
            raise bad_request(
                f"invalid field selector {term!r}: expected field=value or field!=value"
            )
        path = path.strip()
        if path not in ("metadata.name", "metadata.namespace", *supported):
            allowed = ", ".join(
                repr(p) for p in ("metadata.name", "metadata.namespace", *supported)
            )
            raise bad_request(
                f"field label not supported: {path} (fields usable on {resource}: {allowed})"
            )
        requirements.append(FieldRequirement(tuple(path.split(".")), value.strip(), op == "!="))
    return FieldSelector(tuple(requirements))


Matcher = Callable[[Mapping[str, Any]], bool]


def matcher(labels: LabelSelector, fields: FieldSelector) -> Matcher | None:
    """One predicate over whole objects, or None when both selectors are empty."""
    if labels.empty and fields.empty:
        return None

    def match(obj: Mapping[str, Any]) -> bool:
        meta = obj.get("metadata") or {}
        return labels.matches(meta.get("labels") or {}) and fields.matches(obj)

    return match
