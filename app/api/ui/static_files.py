"""The UI's files, read once from the package, answered with strict security headers.

Only files that ship in `static/` are served (a fixed table built at start, so no path
from a request ever reaches the file system), each with its content type, an ETag (a
revalidated copy costs a 304) and `Cache-Control: no-cache` (an upgraded server is seen
at the next load).
"""

import hashlib
from dataclasses import dataclass
from importlib import resources

from aiohttp import web

CSP = "; ".join(
    (
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "base-uri 'none'",
        "form-action 'none'",
        "frame-ancestors 'none'",
    )
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
}
_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
}


@dataclass(frozen=True)
class StaticFile:
    body: bytes
    content_type: str
    etag: str


def load() -> dict[str, StaticFile]:
    """Every servable file of `static/` by name."""
    files: dict[str, StaticFile] = {}
    for entry in resources.files("app.api.ui").joinpath("static").iterdir():
        suffix = "." + entry.name.rpartition(".")[2]
        if not entry.is_file() or suffix not in _TYPES:
            continue
        body = entry.read_bytes()
        etag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
        files[entry.name] = StaticFile(body, _TYPES[suffix], etag)
    return files


def _answer(request: web.Request, found: StaticFile) -> web.Response:
    headers = SECURITY_HEADERS | {"ETag": found.etag, "Cache-Control": "no-cache"}
    if request.headers.get("If-None-Match") == found.etag:
        return web.Response(status=304, headers=headers)
    headers["Content-Type"] = found.content_type
    return web.Response(body=found.body, headers=headers)


def routes() -> list[web.RouteDef]:
    """`GET /` (the page) and `GET /ui/{file}` (its modules, styles and icons)."""
    files = load()
    index = files["index.html"]

    async def page(request: web.Request) -> web.Response:
        return _answer(request, index)

    async def asset(request: web.Request) -> web.Response:
        found = files.get(request.match_info["file"])
        if found is None:
            raise web.HTTPNotFound()
        return _answer(request, found)

    return [
        web.get("/", page, name="ui-index"),
        web.get("/ui/{file}", asset, name="ui-file"),
    ]
