"""A least-recently-used map bounded by total weight (entries, or bytes)."""

from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class LRU(Generic[K, V]):
    def __init__(self, capacity: int, weigh: Callable[[V], int] = lambda _: 1) -> None:
        self._capacity = capacity
        self._weigh = weigh
        self._items: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self._weight = 0

    def __len__(self) -> int:
        return len(self._items)

    def get(self, key: K) -> V | None:
        item = self._items.get(key)
        if item is None:
            return None
        self._items.move_to_end(key)
        return item[0]

    def put(self, key: K, value: V) -> None:
        """Store `value`; something heavier than the whole capacity is not kept."""
        weight = self._weigh(value)
        old = self._items.pop(key, None)
        if old is not None:
            self._weight -= old[1]
        if weight > self._capacity:
            return
        self._items[key] = (value, weight)
        self._weight += weight
        while self._weight > self._capacity:
            _, (_, dropped) = self._items.popitem(last=False)
            self._weight -= dropped
