"""The Jsonnet evaluator's child process: go-jsonnet over files of one checkout, confined.

Run as a script (`python -I jsonnet_child.py`), never imported by the render worker: it
reads one request as JSON on stdin, evaluates every file in it with go-jsonnet (the PyPI
`gojsonnet` binding, what Argo CD links), and writes `ok` then the outputs (each file's
JSON, in order, each after a line with its length in bytes) or one `{"error": ...}` JSON
line on stdout. The parent (jsonnet.py) gives it a
deadline, an output cap and a memory cap, and kills its process group past any of them.

Every `import`, `importstr` and `importbin` goes through `_Importer`: the path is tried next
to the importing file, then in each library directory (the last one first, as go-jsonnet's
own importer does); a candidate whose real path (symlinks resolved by the kernel) is not
inside the checkout is refused, as is anything that is not a regular file or is larger
than the import cap. A refusal ends the evaluation with an error naming the import.
Paths in messages are shown relative to the checkout.
"""

import json
import os
import sys
from typing import Any

import _gojsonnet


class _Refused(Exception):
    pass


class _Importer:
    def __init__(self, root: str, jpaths: list[str], max_bytes: int) -> None:
        self.root = os.path.realpath(root)
        self.jpaths = jpaths
        self.max_bytes = max_bytes
        self.refusal = ""

    def shown(self, path: str) -> str:
        real = os.path.normpath(path)
        for prefix in (self.root, os.path.normpath(self.root)):
            if real == prefix:
                return "/"
            if real.startswith(prefix + os.sep):
                return real[len(prefix) + 1 :]
        return real

    def _inside(self, real: str) -> bool:
        return os.path.commonpath([real, self.root]) == self.root

    def _refuse(self, message: str) -> _Refused:
        self.refusal = self.refusal or message
        return _Refused(message)

    def __call__(self, base: str, rel: str) -> tuple[str, bytes]:
        if os.path.isabs(rel):
            candidates = [rel]
        else:
            candidates = [os.path.join(base, rel)]
            candidates += [os.path.join(j, rel) for j in reversed(self.jpaths)]
        for candidate in candidates:
            real = os.path.realpath(candidate)
            if not self._inside(real):
                raise self._refuse(
                    f"import {rel!r} (from {self.shown(base) or '/'}) leaves the repository; "
                    "imports must name files inside the repository"
                )
            if not os.path.lexists(real):
                continue
            if not os.path.isfile(real):
                raise self._refuse(f"import {rel!r} is not a regular file")
            size = os.path.getsize(real)
            if size > self.max_bytes:
                raise self._refuse(
                    f"import {rel!r} is {size} bytes, more than the {self.max_bytes} byte limit"
                )
            with open(real, "rb") as f:
                return os.path.normpath(candidate), f.read(self.max_bytes + 1)
        raise self._refuse(
            f"import {rel!r} (from {self.shown(base) or '/'}) is not found next to the "
            "importing file or in any of the jsonnet libs"
        )


def _error_text(error: Exception, importer: _Importer) -> str:
    text = str(error)
    for prefix in {importer.root, os.path.normpath(importer.root)}:
        text = text.replace(prefix + os.sep, "").replace(prefix, ".")
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return "; ".join(lines[:6])[:1500]


def evaluate(request: dict[str, Any]) -> dict[str, Any]:
    importer = _Importer(request["root"], request["jpaths"], request["max_import_bytes"])
    outputs: list[str] = []
    for path in request["files"]:
        try:
            outputs.append(
                _gojsonnet.evaluate_file(
                    path,
                    max_stack=request["max_stack"],
                    ext_vars=request["ext_vars"],
                    ext_codes=request["ext_codes"],
                    tla_vars=request["tla_vars"],
                    tla_codes=request["tla_codes"],
                    import_callback=importer,
                )
            )
        except RuntimeError as e:
            reason = importer.refusal or _error_text(e, importer)
            return {"error": reason, "file": importer.shown(path)}
    return {"outputs": outputs}


def main() -> None:
    request = json.loads(sys.stdin.buffer.read())
    result = evaluate(request)
    out = sys.stdout.buffer
    if "outputs" not in result:
        out.write(json.dumps(result).encode() + b"\n")
        return
    out.write(b"ok\n")
    for text in result["outputs"]:
        data = text.encode()
        out.write(b"%d\n" % len(data))
        out.write(data)


if __name__ == "__main__":
    main()
