"""``/api/table-settings/``: the signed-in player's table settings.

One row per account (``PlayerTableSettings``), made on first read, all off by default but ``sound``.  GET reads
them; PATCH (a JSON body) changes the named ones.  A body that names none of them, names a key that is not a
setting, or gives a value that is not a JSON boolean is refused with 400 and changes nothing.
Anonymous readers get 403 (the project's default authentication): watchers have no settings.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import generics, serializers
from rest_framework.exceptions import ValidationError
from rest_framework.parsers import JSONParser
from rest_framework.request import Request
from rest_framework.response import Response

from core.serializers import StrictJSONTypes
from games.models import PlayerTableSettings


class TableSettingsSerializer(StrictJSONTypes, serializers.ModelSerializer):
    class Meta:
        model = PlayerTableSettings
        fields = list(PlayerTableSettings.FIELDS)
        extra_kwargs = {
            "sound": {"help_text": "Sound effects on the table page (on for a new account)."},
            "auto_pass_claims": {"help_text": "The server passes your claim windows (after the uniform pause)."},
            "auto_win": {"help_text": "The server declares a legal win for you at once."},
            "tsumogiri": {"help_text": "摸切: the server discards the tile you drew when you have no other option."},
            "confirm_discard": {"help_text": "The table page asks before each discard."},
            "one_tap_discard": {"help_text": "A single tap discards (no select-then-confirm)."},
        }


def settings_of(user: Any) -> PlayerTableSettings:
    row, _created = PlayerTableSettings.objects.get_or_create(user=user)
    return row


@extend_schema_view(
    get=extend_schema(summary="Your table settings", tags=["account"]),
    patch=extend_schema(summary="Change your table settings", tags=["account"]),
)
class TableSettingsView(generics.RetrieveUpdateAPIView):
    serializer_class = TableSettingsSerializer
    http_method_names = ["get", "patch", "head", "options"]
    # JSON only: a form would turn "0" into false, and the schema says a boolean (schemathesis).
    parser_classes = [JSONParser]

    def get_object(self) -> PlayerTableSettings:
        return settings_of(self.request.user)

    def partial_update(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        # DRF ignores unknown keys; a misspelt setting answering 200 would look saved and was not.
        keys = set(request.data.keys()) if hasattr(request.data, "keys") else set()
        unknown = sorted(keys - set(PlayerTableSettings.FIELDS))
        if unknown:
            raise ValidationError({"detail": _("Not a table setting: %(keys)s") % {"keys": ", ".join(unknown)}})
        if not keys:
            raise ValidationError({"detail": _("Nothing to change: name at least one table setting.")})
        return super().partial_update(request, *args, **kwargs)
