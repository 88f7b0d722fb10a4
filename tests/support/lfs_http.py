"""A Git LFS server stand-in: the batch API and basic transfers, for `GitHttpsServer`.

It answers on the same host and port as the git server (as GitHub and GitLab do), behind
the same authentication, so the git-lfs client gets the credentials the git server asks
for:

- `POST /<repo>/info/lfs/objects/batch` (operation `download` or `upload`, transfer
  `basic`): one action per object, its href on this server with the batch request's
  Authorization header to send (as GitLab's answers carry one); a missing object gets
  the batch API's per-object 404 error;
- `GET /<repo>/info/lfs/objects/<oid>` sends an object (`inflate_to`, when set, makes it
  stream that many bytes instead: a server lying about a size);
- `PUT /<repo>/info/lfs/objects/<oid>` stores one after checking its sha256 and size;
- `POST /<repo>/info/lfs/locks/verify` answers 404 (no locking), which git-lfs accepts.

`downloads` counts the objects sent.
"""

import hashlib
import json
import re
from dataclasses import dataclass, field

from aiohttp import web

LFS_JSON = "application/vnd.git-lfs+json"
_PATH = re.compile(
    r"^/(?P<repo>.+?)/info/lfs/(?P<rest>objects/batch|objects/[0-9a-f]{64}|locks/verify)$"
)


def is_lfs_path(path: str) -> bool:
    return _PATH.match(path) is not None


@dataclass
class LfsObjects:
    """The objects this server holds, by sha256, and how it misbehaves on purpose."""

    objects: dict[str, bytes] = field(default_factory=dict)
    inflate_to: int = 0
    downloads: int = 0

    async def handle(self, request: web.Request, base: str) -> web.StreamResponse:
        match = _PATH.match(request.path)
        if match is None:
            raise web.HTTPNotFound()
        repo, rest = match["repo"], match["rest"]
        if rest == "objects/batch" and request.method == "POST":
            return await self._batch(request, f"{base}/{repo}/info/lfs/objects")
        if rest == "locks/verify":
            return web.json_response({"message": "no locking"}, status=404, content_type=LFS_JSON)
        oid = rest.rsplit("/", 1)[1]
        if request.method == "GET":
            return await self._download(request, oid)
        if request.method == "PUT":
            return await self._upload(request, oid)
        raise web.HTTPMethodNotAllowed(request.method, ["GET", "PUT"])

    async def _batch(self, request: web.Request, href: str) -> web.Response:
        body = json.loads(await request.read())
        operation = body.get("operation")
        auth = request.headers.get("Authorization")
        header = {"Authorization": auth} if auth else {}
        answers = []
        for item in body.get("objects", []):
            oid, size = str(item["oid"]), int(item["size"])
            answer: dict[str, object] = {"oid": oid, "size": size, "authenticated": True}
            if operation == "upload":
                if oid not in self.objects:
                    answer["actions"] = {"upload": {"href": f"{href}/{oid}", "header": header}}
            elif oid in self.objects:
                answer["actions"] = {"download": {"href": f"{href}/{oid}", "header": header}}
            else:
                answer["error"] = {"code": 404, "message": "Object does not exist"}
            answers.append(answer)
        return web.json_response({"transfer": "basic", "objects": answers}, content_type=LFS_JSON)

    async def _download(self, request: web.Request, oid: str) -> web.StreamResponse:
        data = self.objects.get(oid)
        if data is None:
            raise web.HTTPNotFound()
        self.downloads += 1
        if not self.inflate_to:
            return web.Response(body=data, content_type="application/octet-stream")
        response = web.StreamResponse()
        response.content_type = "application/octet-stream"
        await response.prepare(request)
        chunk = b"x" * 65536
        sent = 0
        while sent < self.inflate_to:
            await response.write(chunk)
            sent += len(chunk)
        await response.write_eof()
        return response

    async def _upload(self, request: web.Request, oid: str) -> web.Response:
        data = await request.read()
        if hashlib.sha256(data).hexdigest() != oid:
            raise web.HTTPBadRequest(text="the content does not match the oid")
        self.objects[oid] = data
        return web.Response(status=200)
