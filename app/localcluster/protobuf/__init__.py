"""Protobuf request bodies: what kubectl's generator commands send for built-in kinds.

`kubectl create namespace`, `create deployment`, `create secret` and the other typed
clients of client-go send `application/vnd.kubernetes.protobuf` and never fall back to
JSON (client-go retries as JSON only after a 415 to CBOR). The local cluster therefore
decodes them: `wire` reads the protobuf wire format, `decode` maps a Kubernetes object
to its JSON form with the table in `schema.json`, which `generate` derives from
Kubernetes' own definitions. Answers stay JSON: kubectl accepts JSON back.
"""

from app.localcluster.protobuf.decode import ProtobufError, UnknownKind, decode

__all__ = ["ProtobufError", "UnknownKind", "decode"]
