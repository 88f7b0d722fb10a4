"""Git host webhooks: a push to a repository refreshes exactly the Applications it can change.

`POST /api/webhook` accepts the push webhooks of GitHub, GitLab, Bitbucket Cloud, Bitbucket
Server, Azure DevOps, Gitea and Gogs (docs/semantics.md §8; docs/threats.md, "Webhooks").
What it decides:

- Who sent it (`providers/`): each host is recognised by its own headers and checked the
  way it signs (HMAC-SHA256 of the raw body, a token or UUID header, HTTP Basic), always
  in constant time. A host with no secret configured is not checked (a warning is logged
  at start-up); a wrong or missing proof when one is configured is 401, where Argo CD
  answers 400.
- What happened (`pushes.py`, `payload.py`): the payload is read totally; a missing,
  null or wrong-typed field is a 400 naming the field, never an exception. Every ref the
  push moved is read, not just the first.
- Which apps refresh (`matching.py`): repository by normalized URL, then targetRevision
  (HEAD only for default-branch pushes, branch/tag names, pinned SHAs, semver constraints
  for tags), then `manifest-generate-paths`.
- What is trusted: nothing but the fact that something was pushed. A webhook only ever
  publishes `RefreshRequest(level=latest)`; the render stage resolves every revision from
  Git itself, so a forged payload can cost a comparison, never deploy a commit.
- What it costs: bodies are bounded while streaming (413, memory flat), reads have a
  deadline (408), concurrent webhooks are bounded (503), and so are refs and files per push.

Entry points: `webhook_routes(settings, publisher, apps)` (handler.py), `load_settings`
(settings.py), `BusPublisher` (publishing.py).
"""

from app.api.webhooks.handler import (
    PATH,
    AppSource,
    AppSourceError,
    RefreshPublisher,
    webhook_routes,
)
from app.api.webhooks.publishing import BusPublisher
from app.api.webhooks.settings import SettingsError, WebhookSettings, load_settings

__all__ = [
    "PATH",
    "AppSource",
    "AppSourceError",
    "BusPublisher",
    "RefreshPublisher",
    "SettingsError",
    "WebhookSettings",
    "load_settings",
    "webhook_routes",
]
