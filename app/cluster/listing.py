"""LIST in pages, joined into one consistent result a watch can continue from."""

from app.cluster.errors import Expired, Target
from app.cluster.options import ObjectList
from app.cluster.paths import collection_path
from app.cluster.resources import ResourceType
from app.cluster.transport import Transport
from app.model.resource import KubeObject

MAX_LIST_RESTARTS = 3
"""A list whose continue token expires mid-way starts over at most this many times."""


def selector_query(label_selector: str, field_selector: str) -> list[tuple[str, str]]:
    """The query parameters of label and field selectors (omitted when empty)."""
    query = []
    if label_selector:
        query.append(("labelSelector", label_selector))
    if field_selector:
        query.append(("fieldSelector", field_selector))
    return query


async def list_objects(
    transport: Transport,
    rt: ResourceType,
    target: Target,
    *,
    namespace: str = "",
    label_selector: str = "",
    field_selector: str = "",
    page_size: int = 500,
) -> ObjectList:
    """Every matching object (all pages), each with apiVersion and kind set, and the list's
    resourceVersion. A continue token that expires part-way restarts the list."""
    path = collection_path(rt, namespace, target)
    base = [("limit", str(page_size)), *selector_query(label_selector, field_selector)]
    items: list[KubeObject] = []
    resource_version = ""
    token = ""
    restarts = 0
    while True:
        query = [*base, ("continue", token)] if token else base
        try:
            page = await transport.call("GET", path, target, query=query)
        except Expired:
            if not token or restarts >= MAX_LIST_RESTARTS:
                raise
            restarts += 1
            items, token = [], ""
            continue
        meta = page.get("metadata") or {}
        if not token:
            resource_version = str(meta.get("resourceVersion") or "")
        for item in page.get("items") or ():
            if isinstance(item, dict):
                item.setdefault("apiVersion", rt.api_version)
                item.setdefault("kind", rt.kind)
                items.append(item)
        token = str(meta.get("continue") or "")
        if not token:
            return ObjectList(items, resource_version)
