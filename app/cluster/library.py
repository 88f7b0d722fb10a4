"""The parts of kubernetes-asyncio Sluice uses, without the generated classes it does not.

Sluice takes four things from kubernetes-asyncio: `Configuration`, `ApiClient` (its auth,
TLS and connection pool) and the kubeconfig and in-cluster loaders. Objects go in and
come out as raw JSON, so the thousand-odd generated API and model classes are never used,
yet the package's `__init__` modules import every one of them: 35 MiB in every process.

So the three packages whose `__init__` does that (`kubernetes_asyncio`, `.client`,
`.client.models`) are registered here before anything imports them, with their
`__init__` deferred: a submodule imports on its own, and the first other name asked of
such a package runs its real `__init__`, so code that does use the generated classes (the
local cluster's compatibility tests, a plugin) still gets the whole package. If the
package was imported whole before this module, nothing is deferred.
"""

import importlib
import importlib.util
import os
import sys
import types
from collections.abc import Callable
from importlib.metadata import version

_PACKAGE = "kubernetes_asyncio"
_DEFERRED = (_PACKAGE, f"{_PACKAGE}.client", f"{_PACKAGE}.client.models")


def _submodule(package: str, name: str) -> bool:
    module = sys.modules[package]
    return any(
        os.path.exists(os.path.join(directory, name, "__init__.py"))
        or os.path.exists(os.path.join(directory, f"{name}.py"))
        for directory in module.__path__
    )


def _loader(module: types.ModuleType) -> Callable[[str], object]:
    def load(name: str) -> object:
        if _submodule(module.__name__, name):
            return importlib.import_module(f"{module.__name__}.{name}")
        del module.__dict__["__getattr__"]
        spec = module.__spec__
        assert spec is not None and spec.loader is not None
        spec.loader.exec_module(module)
        return getattr(module, name)

    return load


def _defer(name: str, directory: str) -> None:
    spec = importlib.util.spec_from_file_location(
        name, os.path.join(directory, "__init__.py"), submodule_search_locations=[directory]
    )
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    module.__dict__["__getattr__"] = _loader(module)
    sys.modules[name] = module
    parent, _, child = name.rpartition(".")
    if parent:
        setattr(sys.modules[parent], child, module)


def _register() -> None:
    if _PACKAGE in sys.modules:
        return
    found = importlib.util.find_spec(_PACKAGE)
    if found is None or not found.submodule_search_locations:
        raise ImportError("kubernetes-asyncio is not installed")
    directory = next(iter(found.submodule_search_locations))
    for name in _DEFERRED:
        _defer(name, os.path.join(directory, *name.split(".")[1:]))
    root = sys.modules[_PACKAGE]
    root.__dict__.update(__project__=_PACKAGE, __version__=version(_PACKAGE))
    client = sys.modules[f"{_PACKAGE}.client"]
    from kubernetes_asyncio.client.api_client import ApiClient as _ApiClient
    from kubernetes_asyncio.client.configuration import Configuration as _Configuration

    client.__dict__.setdefault("ApiClient", _ApiClient)
    client.__dict__.setdefault("Configuration", _Configuration)


_register()

from kubernetes_asyncio.client.api_client import ApiClient  # noqa: E402
from kubernetes_asyncio.client.configuration import Configuration  # noqa: E402
from kubernetes_asyncio.config.config_exception import ConfigException  # noqa: E402
from kubernetes_asyncio.config.incluster_config import (  # noqa: E402
    SERVICE_CERT_FILENAME,
    SERVICE_TOKEN_FILENAME,
    InClusterConfigLoader,
)
from kubernetes_asyncio.config.kube_config import KubeConfigLoader  # noqa: E402

__all__ = [
    "SERVICE_CERT_FILENAME",
    "SERVICE_TOKEN_FILENAME",
    "ApiClient",
    "ConfigException",
    "Configuration",
    "InClusterConfigLoader",
    "KubeConfigLoader",
]
