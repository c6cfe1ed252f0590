"""``{{ variant.key|rule_set_name }}``: a rule set's name in the reader's language."""

from __future__ import annotations

from django import template

from games.rules.rule_set_names import rule_set_name as name_of

register = template.Library()


@register.filter
def rule_set_name(key: str) -> str:
    return name_of(key)
