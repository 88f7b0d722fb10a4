"""Helm charts the tests build: one chart with everything Argo CD users put in charts.

`shop_chart(prefix)` returns {path: text} for a chart named `shop` under `prefix`:
templates using a helper, values and `.Capabilities`, a subchart in `charts/`, a CRD in
`crds/`, a values schema, a NOTES.txt, hooks (pre-install Job with a weight and delete
policy, post-upgrade Job, a test Pod) and a `crd-install` hook. Tests commit it to Git or
package it for a Helm repository.
"""

CHART_YAML = """\
apiVersion: v2
name: shop
version: {version}
appVersion: "2.0"
"""

VALUES = """\
replicas: 1
colour: blue
greeting: hello
sub:
  size: small
"""

SCHEMA = """\
{"type": "object", "properties": {"replicas": {"type": "integer", "minimum": 0}}}
"""

HELPERS = """\
{{- define "shop.fullname" -}}{{ .Release.Name }}-shop{{- end -}}
{{- define "shop.labels" -}}
app.kubernetes.io/name: shop
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}
"""

CONFIG = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ include "shop.fullname" . }}
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "shop.labels" . | nindent 4 }}
data:
  colour: {{ .Values.colour | quote }}
  greeting: {{ .Values.greeting | quote }}
  replicas: {{ .Values.replicas | quote }}
  kube: {{ .Capabilities.KubeVersion.Version | quote }}
  hasApps: {{ .Capabilities.APIVersions.Has "apps/v1/Deployment" | quote }}
  hasWidgets: {{ .Capabilities.APIVersions.Has "example.com/v1" | quote }}
  {{- with .Values.extra }}
  extra: {{ . | quote }}
  {{- end }}
"""

HOOKS = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: {{ include "shop.fullname" . }}-migrate
  annotations:
    helm.sh/hook: pre-install,pre-upgrade
    helm.sh/hook-weight: "-1"
    helm.sh/hook-delete-policy: before-hook-creation,hook-succeeded
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: migrate
          image: busybox
---
apiVersion: batch/v1
kind: Job
metadata:
  name: {{ include "shop.fullname" . }}-smoke
  annotations:
    helm.sh/hook: post-install,post-upgrade
    helm.sh/hook-weight: "2"
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: smoke
          image: busybox
"""

TEST_POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: {{ include "shop.fullname" . }}-test
  annotations:
    helm.sh/hook: test
spec:
  containers:
    - name: t
      image: busybox
"""

CRD_INSTALL = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ include "shop.fullname" . }}-crd-install
  annotations:
    helm.sh/hook: crd-install
"""

CRD = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
"""

SUB_CHART = """\
apiVersion: v2
name: sub
version: 0.3.0
"""

SUB_TEMPLATE = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-sub
data:
  size: {{ .Values.size | quote }}
"""


def shop_chart(prefix: str, *, version: str = "1.0.0") -> dict[str, str]:
    """The chart's files under `prefix` (a directory inside a repository)."""
    files = {
        "Chart.yaml": CHART_YAML.format(version=version),
        "values.yaml": VALUES,
        "values.schema.json": SCHEMA,
        "templates/_helpers.tpl": HELPERS,
        "templates/NOTES.txt": "Thank you for installing {{ .Chart.Name }}.\n",
        "templates/configmap.yaml": CONFIG,
        "templates/hooks.yaml": HOOKS,
        "templates/tests/test-pod.yaml": TEST_POD,
        "templates/crd-install.yaml": CRD_INSTALL,
        "crds/widgets.yaml": CRD,
        "charts/sub/Chart.yaml": SUB_CHART,
        "charts/sub/values.yaml": "size: tiny\n",
        "charts/sub/templates/configmap.yaml": SUB_TEMPLATE,
    }
    return {f"{prefix}/{name}" if prefix else name: text for name, text in files.items()}
