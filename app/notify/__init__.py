"""The notification services' edge: delivering a rendered notification over HTTP or SMTP.

`deliver(service, notification, recipient, settings)` sends one notification through one
configured service (`app.engine.notifications.config`): `webhook` (an HTTP request with
the template's method, path and body), `slack` (an incoming webhook, or the Web API's
chat.postMessage with a token) and `email` (SMTP, STARTTLS when offered, implicit TLS on
port 465). Every call has a deadline, refuses redirects, reads at most
`max_response_bytes` of the answer, and fails with `DeliveryError`: `retriable` for
network failures, timeouts, 408, 429 and 5xx; not for a refused request. No error names
a secret: a service is named by its name and host, never by its URL (a Slack webhook
URL is a credential), and the receiver's answer is redacted and cut short.
"""

from app.notify.deliver import DeliverySettings, deliver
from app.notify.errors import DeliveryError

__all__ = ["DeliveryError", "DeliverySettings", "deliver"]
