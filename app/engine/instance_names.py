"""The name an Application goes by on the objects it tracks (Argo CD's app instance name).

An app in the control-plane namespace is named plainly (`guestbook`); an app in another
namespace (one of `application_namespaces`) is `<namespace>_<name>`, since two apps in two
namespaces may share a name. Kubernetes names hold no `_`, so the form is unambiguous.
This is the name written into tracking ids and instance labels by sync, and read back by
the watcher and compare to tell which app an object belongs to: all must agree.

With label tracking the label holds at most 63 characters, so the name `owning_app`
reports for an app's objects is the instance name as the label holds it.
"""

from app.engine.tracking import TrackingMethod, instance_label_value

SEPARATOR = "_"


def instance_name(namespace: str, name: str, *, control_namespace: str) -> str:
    """`name` for an app in the control-plane namespace, else `<namespace>_<name>`."""
    if not namespace or namespace == control_namespace:
        return name
    return f"{namespace}{SEPARATOR}{name}"


def tracking_name(
    namespace: str, name: str, *, control_namespace: str, method: TrackingMethod
) -> str:
    """What `tracking.owning_app` returns for this app's objects under `method`.

    SpecError (naming metadata.name) when label tracking cannot hold the name.
    """
    instance = instance_name(namespace, name, control_namespace=control_namespace)
    if method is TrackingMethod.LABEL:
        return instance_label_value(instance, method)
    return instance
