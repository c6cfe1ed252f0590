"""Request serializers that hold a JSON body to JSON's own types.

DRF coerces: a CharField takes ``0`` as ``"0"``, an IntegerField takes ``"5"`` and ``5.0``, a
BooleanField takes ``1`` and ``"yes"``.  Form posts need that (every form value is text); a JSON
body does not, and the OpenAPI schema says ``"type": "string"`` — schemathesis sent
``{"display_name": 0}`` and the account took the name "0".  With :class:`StrictJSONTypes` first in
its bases, a serializer refuses a JSON value of the wrong type with a 400 naming the field; forms
(a QueryDict) are read as before.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.http import QueryDict
from rest_framework import serializers

# What JSON type each field kind takes, most specific first (a ChoiceField here has text choices).
_JSON_TYPES: tuple[tuple[Any, type | tuple[type, ...], str], ...] = (
    (serializers.BooleanField, bool, "true or false"),
    (serializers.IntegerField, int, "a whole number"),
    (serializers.FloatField, (int, float), "a number"),
    (serializers.CharField, str, "a string"),
    (serializers.ChoiceField, str, "a string"),
    (serializers.DictField, dict, "an object"),
    (serializers.ListField, list, "an array"),
)


def _expected(field: Any) -> tuple[type | tuple[type, ...], str] | None:
    for kind, json_type, label in _JSON_TYPES:
        if isinstance(field, kind):
            return json_type, label
    return None


class StrictJSONTypes:
    """Mixin for a Serializer: JSON values must already be of the field's type (module docstring)."""

    fields: dict[str, Any]

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, Mapping) and not isinstance(data, QueryDict):
            errors = {}
            for name, field in self.fields.items():
                if field.read_only or name not in data or data[name] is None:
                    continue  # absent and null are the field's own business (required, allow_null)
                value, expected = data[name], _expected(field)
                if expected is None:
                    continue
                json_type, label = expected
                if not isinstance(value, json_type) or (isinstance(value, bool) and json_type is not bool):
                    errors[name] = [f"must be {label} in JSON, not {type(value).__name__}"]
            if errors:
                raise serializers.ValidationError(errors)
        return super().to_internal_value(data)  # type: ignore[misc]
