"""What a person wrote with a commit: author, date and message, from the raw commit object.

    tree <sha>
    parent <sha>
    author Jane Doe <jane@example.com> 1700000000 +0100
    committer ...

    the message

Argo CD shows these in an app's history (`RevisionMetadata`); so does the web UI.
"""

import datetime as dt
import re
from dataclasses import dataclass

from app.model.timestamps import format_time

_AUTHOR = re.compile(rb"^author (?P<who>.*) (?P<at>\d+) [+-]\d{4}$")
MAX_MESSAGE = 4096
"""Characters of a commit message kept (the rest is cut, saying so)."""


@dataclass(frozen=True, slots=True)
class CommitInfo:
    author: str
    """`Name <email>` as git records it."""
    date: str
    """RFC 3339, in UTC."""
    message: str


def _date(seconds: bytes) -> str:
    return format_time(dt.datetime.fromtimestamp(int(seconds), dt.UTC))


def parse_commit(raw: bytes) -> CommitInfo:
    """The author, date and message of a raw commit object (empty fields when absent)."""
    headers, _, body = raw.partition(b"\n\n")
    author, date = "", ""
    for line in headers.split(b"\n"):
        found = _AUTHOR.match(line)
        if found:
            author = found["who"].decode("utf-8", "replace")
            date = _date(found["at"])
            break
    message = body.decode("utf-8", "replace").strip()
    if len(message) > MAX_MESSAGE:
        message = message[:MAX_MESSAGE] + " … (cut)"
    return CommitInfo(author, date, message)
