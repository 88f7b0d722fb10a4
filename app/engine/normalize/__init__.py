"""Normalization: what a comparison sees of an object, on both sides, in one order.

A diff is only as good as what it compares. Target manifests and live objects carry the
same intent in different spellings (a quantity, a Secret's stringData), fields only the
cluster sets (status, creationTimestamp), and fields the user asked to ignore. This
package decides, per resource, the normalized target and live forms (SEMANTICS §4):

1. tracking: a leftover live instance label is copied into the target (annotation tracking);
2. managedFieldsManagers: fields owned by those managers are removed from both sides;
3. basics: creationTimestamp and (by default, for every kind) `/status` removed, Secret
   `stringData` merged into `data` as base64, live `managedFields` dropped, a child
   Application's `operation` dropped (app of apps);
4. ignoreDifferences: jsonPointers and jqPathExpressions (`ignore`);
5. known types: canonical quantities, integral numbers, nulls and empty Go lists/maps
   (`known_types`), for built-in API groups only.

Every step returns its input unchanged when there is nothing to do and copies only the
containers it changes, so a steady-state resync of thousands of objects stays cheap.
The pipeline lives in `pipeline` (`normalize_pair`, `normalize_one`); `jq_paths` runs the
user's jq with bounded cost.
"""
