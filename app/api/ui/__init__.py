"""The web UI: plain ES modules and CSS written for Sluice, served by the API process.

`routes()` serves `static/index.html` at `/` and the files beside it at `/ui/<file>`,
from the installed package (package data: no build step, no Node.js), without a token:
the page signs in through `POST /api/v1/session` and then calls the REST API and the
event stream of the same origin with its session cookie. Every answer carries a strict
Content-Security-Policy (`static_files.SECURITY_HEADERS`): scripts and styles from this
origin only, no inline script or style, no framing, connections to this origin only.
"""

from app.api.ui.static_files import routes

__all__ = ["routes"]
