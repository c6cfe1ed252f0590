"""The lobby's refusals in the reader's language, for the server-rendered pages and the REST API.

A ``services.Refused`` carries an English reason, a stable ``code`` and its ``params``; the table
page translates by code in the browser (static/js/refusals.js), while the pages rendered here
(create form, seat buttons without JavaScript, the REST API's ``detail``) translate by code with
gettext.  A code not listed falls back to the English reason, as the browser does; the English texts are
the reasons themselves, so an English reader sees exactly what the service said.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from games.services import Refused

# What the wallet is needed for, in the reader's words ("sit", "play" in the English reason).
DOING: Mapping[str, Promise] = {"sit": _("sit"), "play": _("play")}

TEXTS: Mapping[str, Promise] = {
    "already_seated": _("you already sit at this table"),
    "balance_held": _(
        "you need %(needed)s available to %(doing)s at this table (you have %(available)s available: "
        "%(held)s of your balance of %(balance)s is held by your other matches)"
    ),
    "balance_short": _("you need at least %(needed)s to %(doing)s at this table (you have %(balance)s)"),
    "hands_out_of_range": _("a match has 1 to 64 hands"),
    "hints_not_in_tournaments": _("a tournament table has no hints"),
    "match_started": _("the match has started"),
    "match_started_watch": _("the match has started; you can watch"),
    "not_seated": _("you do not sit at this table"),
    "owner_only": _("only the table's owner may add bots"),
    "bot_level": _("unknown bot level %(level)s"),
    "seat_taken": _("that seat is taken"),
    "stake_not_covered": _("your available balance no longer covers this match's stake"),
    "stake_too_small": _("the stake must be at least 1"),
    "stake_unaffordable": _(
        "nobody could sit at a stake of %(stake)s: it needs %(needed)s per player and no wallet holds that much"
    ),
    "table_full": _("the table is full"),
    "time_limits_out_of_range": _("time limits: 5–300 s per turn, 3–120 s per claim"),
}


def refusal_text(exc: Refused) -> str:
    """``exc`` in the active language (its English reason when its code is not listed here)."""
    text = TEXTS.get(exc.code)
    if text is None:
        return str(exc)
    params: dict[str, Any] = dict(exc.params)
    if "doing" in params:
        params["doing"] = DOING.get(str(params["doing"]), params["doing"])
    try:
        return str(text) % params if params else str(text)
    except (KeyError, TypeError, ValueError):  # a refusal raised without the parameters its text names
        return str(exc)
