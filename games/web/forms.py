"""Lobby forms: create a table (its rule options generated from the variant's schema), join by code.

The forms only turn HTML fields into Python values; every rule about what a table
may be (options, stake, limits) is checked by ``services.create_table`` and its
``Refused`` message is shown next to the form.
"""

from __future__ import annotations

from typing import Any, cast

from django import forms
from django.utils.translation import gettext_lazy as _

from core.limits import STAKE_MAX
from games.engine import Option, Variant, all_variants, get_variant
from games.models import ROOM_CODE_ALPHABET, Table
from games.rules import option_text
from games.rules.rule_set_names import rule_set_name

OPTION_PREFIX = "opt_"
TABLE_FIELDS = ("stake", "hands_total", "turn_seconds", "claim_seconds", "is_private", "hints")
# The stake is the table's 底分: the schema's own `base` stays at its default so that the two never multiply.
HIDDEN_OPTIONS = frozenset({"base"})


def option_field(option: Option, variant_key: str = "") -> forms.Field:
    """A form field for one schema option: bool → checkbox, choices → select, int → number.

    Label, help and choice texts are the player wording of ``games.rules.option_text`` in the
    reader's language; the values submitted stay the engine's own (``one``, ``first_tier``…)."""
    label = option_text.label(variant_key, option)
    help_text = option_text.help_text(variant_key, option)
    if option.house:
        help_text = f"{help_text} ({_('house rule')})" if help_text else f"({_('house rule')})"
    common: dict[str, Any] = {"label": label, "help_text": help_text, "initial": option.default}
    attrs = {"data-option": option.key}
    if option.house:
        attrs["data-house"] = "true"
    if option.type is bool:
        return forms.BooleanField(required=False, widget=forms.CheckboxInput(attrs=attrs), **common)
    if option.choices:
        return forms.TypedChoiceField(
            choices=[(c, option_text.choice_label(variant_key, option, c)) for c in option.choices],
            coerce=lambda value, choices=option.choices: next(c for c in choices if str(c) == str(value)),
            widget=forms.Select(attrs=attrs),
            **common,
        )
    if option.type is int:
        # The range goes to the browser only: out-of-range values reach the variant's own
        # validation, whose message (via services.create_table) is the one players see.
        for name, bound in (("min", option.minimum), ("max", option.maximum)):
            if bound is not None:
                attrs[name] = str(bound)
        return forms.IntegerField(widget=forms.NumberInput(attrs=attrs), **common)
    return forms.CharField(max_length=200, widget=forms.TextInput(attrs=attrs), **common)


def form_options(variant: Variant) -> list[Option]:
    return [o for o in variant.options_schema.all() if o.key not in HIDDEN_OPTIONS]


def variant_choices() -> list[tuple[str, str]]:
    return [(v.key, rule_set_name(v.key)) for v in all_variants()]


class TableForm(forms.Form):
    """The create-table form for one variant; its option fields come from that variant's schema."""

    # The rule set is picked in the form itself, so what the list shows is what is created.
    # ``options_for`` names the rule set whose option fields the page showed; when a browser
    # without JavaScript changes the list, the two differ and the view shows the new rule set's
    # options instead of creating a table with options the player never saw.
    variant = forms.ChoiceField(
        label=_("Rule set"), choices=variant_choices, widget=forms.Select(attrs={"data-variant-select": ""})
    )
    options_for = forms.CharField(required=False, widget=forms.HiddenInput(attrs={"data-options-for": ""}))
    stake = forms.IntegerField(
        label=_("Stake"),
        initial=1,
        min_value=1,
        max_value=STAKE_MAX,
        help_text=_("Wallet units per point."),
        widget=forms.NumberInput(attrs={"min": 1}),
    )
    # The services' bounds as the fields' own (min_value/max_value): a form with several wrong
    # fields shows every error at once, translated, instead of the service's first refusal.
    hands_total = forms.IntegerField(
        label=_("Number of hands"), initial=4, min_value=1, max_value=64, widget=forms.NumberInput(attrs={"min": 1})
    )
    turn_seconds = forms.IntegerField(
        label=_("Seconds per turn"),
        initial=20,
        min_value=5,
        max_value=300,
        widget=forms.NumberInput(attrs={"min": 5, "max": 300}),
    )
    claim_seconds = forms.IntegerField(
        label=_("Seconds per claim"),
        initial=8,
        min_value=3,
        max_value=120,
        widget=forms.NumberInput(attrs={"min": 3, "max": 120}),
    )
    is_private = forms.BooleanField(
        label=_("Private table"),
        required=False,
        help_text=_("Not listed in the lobby; players join with its room code."),
    )
    hints = forms.BooleanField(
        label=_("Hints"),
        required=False,
        help_text=_(
            "Show each player which discards keep the hand ready and what it waits on. A table with hints is not rated."
        ),
    )

    def __init__(self, variant: Variant, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.variant_rules = variant
        self.fields["variant"].initial = variant.key
        self.fields["options_for"].initial = variant.key
        self.option_names: list[str] = []
        for option in form_options(variant):
            name = OPTION_PREFIX + option.key
            self.fields[name] = option_field(option, variant.key)
            self.option_names.append(name)

    def clean_variant(self) -> str:
        key = self.cleaned_data["variant"]
        if key != self.variant_rules.key:
            raise forms.ValidationError(_("The rule set changed; choose it again."))
        return key

    @property
    def option_fields(self) -> list[forms.BoundField]:
        return [self[name] for name in self.option_names]

    @property
    def table_fields(self) -> list[forms.BoundField]:
        return [self[name] for name in TABLE_FIELDS]

    def with_table_terms_of(self, data: Any) -> TableForm:
        """This (unbound) form showing the table's terms a player already typed in ``data``:
        switching the rule set must not wipe out the stake or the number of hands."""
        for name in TABLE_FIELDS:
            if name in ("is_private", "hints"):
                self.initial[name] = bool(data.get(name))
            elif data.get(name) not in (None, ""):
                self.initial[name] = data.get(name)
        return self

    def create_kwargs(self) -> dict[str, Any]:
        """The arguments of ``services.create_table`` (after ``is_valid()``)."""
        data = self.cleaned_data
        return {
            "variant": data["variant"],
            "options": {name[len(OPTION_PREFIX) :]: data[name] for name in self.option_names},
            "stake": data["stake"],
            "hands_total": data["hands_total"],
            "turn_seconds": data["turn_seconds"],
            "claim_seconds": data["claim_seconds"],
            "is_private": data["is_private"],
            "hints": data["hints"],
        }


def option_sets(exclude: str | None = None) -> list[tuple[Variant, list[forms.BoundField]]]:
    """Each rule set's option fields at their defaults (the create page keeps them in inert
    ``<template>`` elements, so that picking a rule set shows its options without a round trip)."""
    out = []
    for variant in all_variants():
        if variant.key != exclude:
            out.append((variant, TableForm(variant).option_fields))
    return out


def variant_or_default(key: str | None) -> Variant:
    """The variant named ``key``, or the first in SPEC order (D0, D1, ...) of those registered."""
    if key:
        try:
            return get_variant(key)
        except ValueError:
            pass
    return min(all_variants(), key=lambda v: (v.spec_section or "~", v.key))


class JoinForm(forms.Form):
    room_code = forms.CharField(
        label=_("Room code"),
        max_length=8,
        widget=forms.TextInput(attrs={"autocomplete": "off", "autocapitalize": "characters", "size": 8}),
    )

    def clean_room_code(self) -> str:
        code = "".join(self.cleaned_data["room_code"].split()).upper()
        if not code or any(c not in ROOM_CODE_ALPHABET for c in code):
            raise forms.ValidationError(_("A room code has letters and digits, like ABC234."))
        return code


class LobbyFilterForm(forms.Form):
    STATUS_CHOICES = [("", _("Open or playing")), (Table.WAITING, _("Waiting")), (Table.PLAYING, _("Playing"))]

    variant = forms.ChoiceField(label=_("Rule set"), required=False)
    status = forms.ChoiceField(label=_("Status"), required=False, choices=STATUS_CHOICES)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        cast(forms.ChoiceField, self.fields["variant"]).choices = [("", _("All rule sets")), *variant_choices()]
