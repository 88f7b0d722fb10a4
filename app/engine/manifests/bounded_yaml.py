"""A YAML loader that refuses bombs before it builds a single Python object.

PyYAML shares one Python object between an anchor and all its aliases, so a "billion
laughs" document is small in memory while parsed, and explodes later, in whatever walks
it (normalization, diff, JSON encoding). So the node graph of each document is measured
first, counting every alias as a full copy of its anchor (memoized per node, so measuring
is linear in the graph, not in the expansion), and a document over `max_nodes` or
`max_depth`, or with a recursive alias, is rejected before construction.

Kubernetes reads YAML 1.1 through sigs.k8s.io/yaml, which round-trips through JSON; to
match it, timestamps stay strings, `!!binary` stays its base64 text, and non-string
mapping keys become strings. Duplicate mapping keys are an error naming both lines.
"""

from collections.abc import Iterator
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from app.engine.manifests.limits import ManifestLimits

_TIMESTAMP = "tag:yaml.org,2002:timestamp"
_MERGE = "tag:yaml.org,2002:merge"
_Base: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class YamlDocumentError(Exception):
    """A problem in one YAML document: 1-based document index and line, and what is wrong."""

    def __init__(self, document: int, line: int, problem: str) -> None:
        super().__init__(problem)
        self.document = document
        self.line = line
        self.problem = problem


class _Loader(_Base):  # type: ignore[misc]
    yaml_implicit_resolvers = {
        first: [(tag, rx) for tag, rx in resolvers if tag != _TIMESTAMP]
        for first, resolvers in _Base.yaml_implicit_resolvers.items()
    }

    def construct_mapping(self, node: Node, deep: bool = False) -> dict[Any, Any]:
        if isinstance(node, MappingNode):
            _reject_duplicate_keys(self, node)
        mapping: dict[Any, Any] = super().construct_mapping(node, deep=deep)
        if all(type(key) is str for key in mapping):
            return mapping
        return {_key_text(key): value for key, value in mapping.items()}


def _construct_binary(loader: _Loader, node: ScalarNode) -> str:
    return "".join(str(loader.construct_scalar(node)).split())


_Loader.add_constructor("tag:yaml.org,2002:binary", _construct_binary)


def _key_text(key: Any) -> str:
    if key is True:
        return "true"
    if key is False:
        return "false"
    if key is None:
        return "null"
    return str(key)


def _reject_duplicate_keys(loader: _Loader, node: MappingNode) -> None:
    seen: dict[tuple[str, Any], int] = {}
    for key_node, _ in node.value:
        if key_node.tag == _MERGE or not isinstance(key_node, ScalarNode):
            continue
        key = (key_node.tag, loader.construct_scalar(key_node))
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None,
                None,
                f"duplicate key {key[1]!r} (first at line {seen[key]}); remove one of them",
                key_node.start_mark,
            )
        seen[key] = key_node.start_mark.line + 1


def _children(node: Node) -> list[Node]:
    if isinstance(node, SequenceNode):
        return list(node.value)
    if isinstance(node, MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def _measure(root: Node, limits: ManifestLimits) -> None:
    """Reject a node graph whose alias-expanded size or depth is over the limits."""
    sizes: dict[int, int] = {}
    heights: dict[int, int] = {}
    on_path: set[int] = set()
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, finished = stack.pop()
        key = id(node)
        if finished:
            on_path.discard(key)
            children = _children(node)
            size = 1 + sum(sizes[id(c)] for c in children)
            height = 1 + max((heights[id(c)] for c in children), default=0)
            if size > limits.max_nodes:
                raise _node_error(
                    node,
                    f"expands to more than {limits.max_nodes:,} nodes (aliases count as "
                    "copies of their anchor); this looks like a YAML bomb",
                )
            if height > limits.max_depth:
                raise _node_error(node, f"nests deeper than {limits.max_depth} levels")
            sizes[key] = size
            heights[key] = height
            continue
        if key in sizes:
            continue
        if key in on_path:
            raise _node_error(node, "an alias refers to its own anchor (recursive alias)")
        on_path.add(key)
        stack.append((node, True))
        stack.extend((child, False) for child in _children(node) if id(child) not in sizes)


def _node_error(node: Node, problem: str) -> yaml.MarkedYAMLError:
    return yaml.MarkedYAMLError(None, None, problem, node.start_mark)


def _describe(error: yaml.MarkedYAMLError) -> str:
    parts = [p for p in (error.context, error.problem) if p]
    return ", ".join(parts) or "invalid YAML"


def iter_yaml_documents(text: str, limits: ManifestLimits) -> Iterator[tuple[int, int, Any]]:
    """Yield (document index from 1, first line, data) for each non-empty document.

    Raises YamlDocumentError for invalid YAML, duplicate keys, bombs and too many documents.
    """
    loader = _Loader(text)
    index = 0
    try:
        while True:
            index += 1
            try:
                if not loader.check_node():
                    return
                if index > limits.max_documents:
                    raise YamlDocumentError(
                        index,
                        0,
                        f"more than {limits.max_documents:,} documents; split the source "
                        "into several applications",
                    )
                node = loader.get_node()
                _measure(node, limits)
                data = loader.construct_document(node)
            except yaml.MarkedYAMLError as e:
                mark = e.context_mark or e.problem_mark
                line = mark.line + 1 if mark is not None else 0
                raise YamlDocumentError(index, line, _describe(e)) from None
            except yaml.YAMLError as e:
                raise YamlDocumentError(index, 0, f"invalid YAML: {e}") from None
            if data is not None:
                yield index, node.start_mark.line + 1, data
    finally:
        loader.dispose()
