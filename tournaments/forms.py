from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from core.limits import STAKE_MAX
from games.engine import all_variants
from games.rules.rule_set_names import rule_set_name
from tournaments.models import Tournament


class TournamentForm(forms.Form):
    name = forms.CharField(label=_("Event name"), max_length=100)
    variant = forms.ChoiceField(label=_("Rule set"), choices=())
    stake = forms.IntegerField(label=_("Stake per point (0: score only)"), min_value=0, max_value=STAKE_MAX, initial=0)
    rounds = forms.IntegerField(label=_("Rounds"), min_value=1, max_value=20, initial=2)
    hands_per_round = forms.IntegerField(label=_("Hands per round"), min_value=1, max_value=64, initial=4)
    turn_seconds = forms.IntegerField(label=_("Seconds per turn"), min_value=5, max_value=300, initial=20)
    claim_seconds = forms.IntegerField(label=_("Seconds per claim"), min_value=3, max_value=120, initial=8)
    seating = forms.ChoiceField(label=_("Seating"), choices=Tournament.SEATINGS, initial=Tournament.RANDOM)
    fill = forms.ChoiceField(label=_("When the players are not a multiple of four"), choices=Tournament.FILLS)
    duplicate = forms.BooleanField(label=_("Duplicate mode (same walls at every table)"), required=False)
    max_players = forms.IntegerField(label=_("Maximum players"), min_value=4, max_value=1000, initial=16)
    check_in = forms.BooleanField(label=_("Players check in before each round"), required=False)
    check_in_minutes = forms.IntegerField(
        label=_("Check-in opens (minutes before a round)"), min_value=1, max_value=240, initial=10, required=False
    )
    absentees = forms.ChoiceField(
        label=_("A registered player who has not checked in"),
        choices=Tournament.ABSENTEE_RULES,
        initial=Tournament.WAITING_LIST,
        required=False,
    )

    offline_grace_seconds = forms.IntegerField(
        label=_("Seconds a table waits for a player who is not connected before auto-play"),
        min_value=0,
        max_value=900,
        initial=120,
        required=False,
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        # Optional on the form (only events with check-in use them): their defaults otherwise.
        if data.get("check_in_minutes") is None:
            data["check_in_minutes"] = 10
        if data.get("offline_grace_seconds") is None:
            data["offline_grace_seconds"] = 120
        if not data.get("absentees"):
            data["absentees"] = Tournament.WAITING_LIST
        return data

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        variant = self.fields["variant"]
        assert isinstance(variant, forms.ChoiceField)
        variant.choices = [(v.key, rule_set_name(v.key)) for v in all_variants()]
