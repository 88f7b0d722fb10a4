"""The error every refused notifications key raises, and the bounded YAML read of a key."""

from typing import Any

import yaml

MAX_VALUE_BYTES = 256 * 1024
"""A ConfigMap value longer than this is refused (the ConfigMap itself is capped at 1 MiB)."""


class NotificationsConfigError(ValueError):
    """A ConfigMap key that cannot be used; the message names the key and the problem."""


def read_yaml(key: str, text: str) -> Any:
    if len(text.encode()) > MAX_VALUE_BYTES:
        raise NotificationsConfigError(f"{key}: longer than {MAX_VALUE_BYTES} bytes")
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        raise NotificationsConfigError(f"{key}: not valid YAML{where}") from None
