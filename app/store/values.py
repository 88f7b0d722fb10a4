"""Values as JSON: model types through `app.model.codec`, each under a size limit.

Writing something too large is the caller's error (StoreError names what, whose, how
big, the limit). Reading something unreadable (a partial write, a format from another
version, a hand edit) is a cache miss: logged, reported as absent, rebuilt by its owner.
"""

from collections.abc import Mapping
from typing import Any, TypeVar

from app import jsonio, log
from app.model import codec
from app.model.errors import SpecError
from app.store.errors import StoreError

logger = log.get("store")


T = TypeVar("T")

Fields = Mapping[bytes | str, bytes | str]
"""A Redis hash as the client returns it (bytes, since Sluice's clients do not decode)."""


def as_bytes(value: bytes | str | None) -> bytes | None:
    """A reply value as bytes (str only if a caller's client decodes responses)."""
    return value.encode() if isinstance(value, str) else value


def field(fields: Fields, name: str) -> bytes | None:
    """One field of a hash reply, as bytes, or None."""
    value = fields.get(name.encode())
    if value is None:
        value = fields.get(name)
    return as_bytes(value)


def dumps(doc: Any, *, what: str, limit: int) -> bytes:
    """Compact JSON of `doc`; StoreError if it exceeds `limit` bytes."""
    return within_limit(jsonio.dumps(doc), what=what, limit=limit)


def within_limit(data: bytes, *, what: str, limit: int) -> bytes:
    """`data` itself, already encoded; StoreError if it exceeds `limit` bytes."""
    if len(data) > limit:
        raise StoreError(f"{what} is {len(data)} bytes, over the {limit}-byte limit")
    return data


def dump_model(obj: Any, *, what: str, limit: int) -> bytes:
    """A model object (dataclass of app.model) as JSON, within `limit` bytes."""
    return dumps(codec.encode(obj), what=what, limit=limit)


def load_model(
    cls: type[T], data: bytes | None, *, what: str, overrides: dict[str, Any] | None = None
) -> T | None:
    """Decode a stored model object; None (and a warning) if absent or unreadable."""
    if data is None:
        return None
    try:
        doc = jsonio.loads(data)
        if overrides:
            doc = {**doc, **overrides}
        return codec.decode(cls, doc)
    except (ValueError, TypeError, SpecError) as e:
        logger.warning("value.unreadable", what=what, error=str(e), action="treated as absent")
        return None
