"""Whose chair is a person's for the ratings and the vs-bots ladder."""

from __future__ import annotations

from games.models import Seat


def person(seat: Seat) -> bool:
    """Is the seat a person's for ratings?  A leaver's seat stays theirs even once a house bot
    plays it (东北's escape rule): walking out of a match must not make it unrated."""
    return seat.user_id is not None and (not seat.is_bot or seat.left)
