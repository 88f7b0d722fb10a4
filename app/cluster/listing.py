"""LIST in pages, joined into one consistent result a watch can continue from, or
handed over a page at a time."""

from collections.abc import AsyncGenerator
from dataclasses import dataclass

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


@dataclass(frozen=True, slots=True)
class Page:
    """One page of a list, each object with apiVersion and kind set."""

    items: list[KubeObject]
    resource_version: str
    """The list's resourceVersion, from which a watch continues without a gap."""
    restarted: bool
    """The list started over before this page (its continue token expired): the pages
    before it were of an older list."""


async def list_pages(
    transport: Transport,
    rt: ResourceType,
    target: Target,
    *,
    namespace: str = "",
    label_selector: str = "",
    field_selector: str = "",
    page_size: int = 500,
) -> AsyncGenerator[Page, None]:
    """Every matching object, a page at a time, so a consumer holds one page decoded at
    once. A continue token that expires part-way restarts the list."""
    path = collection_path(rt, namespace, target)
    base = [("limit", str(page_size)), *selector_query(label_selector, field_selector)]
    resource_version = ""
    token = ""
    restarts = 0
    restarted = False
    while True:
        query = [*base, ("continue", token)] if token else base
        try:
            page = await transport.call("GET", path, target, query=query)
        except Expired:
            if not token or restarts >= MAX_LIST_RESTARTS:
                raise
            restarts += 1
            token, restarted = "", True
            continue
        meta = page.get("metadata") or {}
        if not token:
            resource_version = str(meta.get("resourceVersion") or "")
        items = []
        for item in page.get("items") or ():
            if isinstance(item, dict):
                item.setdefault("apiVersion", rt.api_version)
                item.setdefault("kind", rt.kind)
                items.append(item)
        del page
        yield Page(items, resource_version, restarted)
        restarted = False
        token = str(meta.get("continue") or "")
        if not token:
            return


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
    items: list[KubeObject] = []
    resource_version = ""
    pages = list_pages(
        transport,
        rt,
        target,
        namespace=namespace,
        label_selector=label_selector,
        field_selector=field_selector,
        page_size=page_size,
    )
    async for page in pages:
        if page.restarted:
            items = []
        items.extend(page.items)
        resource_version = page.resource_version
    return ObjectList(items, resource_version)
