"""Reading a provider's JSON payload totally: every field access either succeeds or names the field.

A payload is untrusted input: any key may be missing, null, or of another type, and the
document may not even be an object. `JsonObject` wraps one JSON object with the path it was
found at (`repository.links.clone[1]`) and offers typed reads that raise `PayloadError`
with that path and the type found; nothing else can escape. Values are never echoed in the
error (they may be huge or hostile), only their JSON type.

`decode` turns the raw body into a document with the same guarantee: invalid UTF-8,
invalid JSON and nesting too deep for the parser are all `PayloadError`.
"""

import json

from app.api.webhooks.errors import PayloadError

_JSON_TYPES: dict[type, str] = {
    dict: "an object",
    list: "an array",
    str: "a string",
    bool: "a boolean",
    int: "a number",
    float: "a number",
    type(None): "null",
}


def json_type(value: object) -> str:
    """The JSON type of a decoded value, as an error message names it."""
    return _JSON_TYPES.get(type(value), type(value).__name__)


def decode(body: bytes) -> object:
    """The JSON document in `body`, or PayloadError saying why it is not one."""
    if not body.strip():
        raise PayloadError("body", "is empty; the webhook must send its payload as JSON")
    try:
        return json.loads(body)
    except UnicodeDecodeError:
        raise PayloadError("body", "is not UTF-8 text; send the payload as JSON") from None
    except json.JSONDecodeError as e:
        raise PayloadError(
            "body",
            f"is not valid JSON ({e.msg} at line {e.lineno} column {e.colno}); set the "
            "webhook's content type to application/json",
        ) from None
    except ValueError:
        raise PayloadError("body", "holds a number too long to read") from None
    except RecursionError:
        raise PayloadError("body", "is nested too deeply to be a webhook payload") from None


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


class JsonObject:
    """One JSON object of a payload and the path it was found at ("" for the document)."""

    __slots__ = ("_doc", "path")

    def __init__(self, value: object, path: str = "") -> None:
        if not isinstance(value, dict):
            where = path or "payload"
            raise PayloadError(where, f"expected an object, got {json_type(value)}")
        self._doc: dict[str, object] = value
        self.path = path

    def _required(self, key: str, expected: str) -> object:
        if key not in self._doc:
            raise PayloadError(_join(self.path, key), f"is missing; expected {expected}")
        value = self._doc[key]
        if value is None:
            raise PayloadError(_join(self.path, key), f"is null; expected {expected}")
        return value

    def _wrong(self, key: str, expected: str, value: object) -> PayloadError:
        return PayloadError(_join(self.path, key), f"expected {expected}, got {json_type(value)}")

    def obj(self, key: str) -> "JsonObject":
        """The object under `key` (required)."""
        return JsonObject(self._required(key, "an object"), _join(self.path, key))

    def optional_obj(self, key: str) -> "JsonObject | None":
        """The object under `key`, or None when it is missing or null."""
        value = self._doc.get(key)
        return None if value is None else JsonObject(value, _join(self.path, key))

    def string(self, key: str, *, allow_empty: bool = False) -> str:
        """The string under `key` (required; non-empty unless `allow_empty`)."""
        value = self._required(key, "a string")
        if not isinstance(value, str):
            raise self._wrong(key, "a string", value)
        if not value and not allow_empty:
            raise PayloadError(_join(self.path, key), "is empty; expected a non-empty string")
        return value

    def optional_string(self, key: str) -> str:
        """The string under `key`, or "" when it is missing or null."""
        value = self._doc.get(key)
        if value is None:
            return ""
        if not isinstance(value, str):
            raise self._wrong(key, "a string", value)
        return value

    def present_strings(self, *keys: str) -> list[tuple[str, str]]:
        """(path, value) of each non-empty string under `keys`; missing, null and "" skipped."""
        found = [(_join(self.path, key), self.optional_string(key)) for key in keys]
        return [(path, value) for path, value in found if value]

    def optional_bool(self, key: str) -> bool | None:
        """The boolean under `key`, or None when it is missing or null."""
        value = self._doc.get(key)
        if value is None:
            return None
        if not isinstance(value, bool):
            raise self._wrong(key, "a boolean", value)
        return value

    def optional_int(self, key: str) -> int | None:
        """The integer under `key`, or None when it is missing or null."""
        value = self._doc.get(key)
        if value is None:
            return None
        if not isinstance(value, int) or isinstance(value, bool):
            raise self._wrong(key, "an integer", value)
        return value

    def _array(self, key: str, *, required: bool) -> list[object]:
        value = self._required(key, "an array") if required else self._doc.get(key)
        if value is None:
            return []
        if not isinstance(value, list):
            raise self._wrong(key, "an array", value)
        return value

    def objects(
        self, key: str, *, required: bool = True, non_empty: bool = False
    ) -> "list[JsonObject]":
        """The array of objects under `key`; a missing or null optional array is empty."""
        values = self._array(key, required=required)
        path = _join(self.path, key)
        if non_empty and not values:
            raise PayloadError(path, "is an empty array; expected at least one entry")
        return [JsonObject(v, f"{path}[{i}]") for i, v in enumerate(values)]

    def strings(self, key: str) -> list[str]:
        """The array of strings under `key`; missing or null is empty (Go's nil slices)."""
        values = self._array(key, required=False)
        path = _join(self.path, key)
        for i, value in enumerate(values):
            if not isinstance(value, str):
                raise PayloadError(f"{path}[{i}]", f"expected a string, got {json_type(value)}")
        return [v for v in values if isinstance(v, str)]


def shown(text: str, limit: int = 60) -> str:
    """A header or payload value quoted for a message: printable, bounded."""
    clean = "".join(c if c.isprintable() else "?" for c in text[:limit])
    return repr(clean + ("…" if len(text) > limit else ""))
