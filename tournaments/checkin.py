"""Check-in: who is present for the next round, and what happens to those who are not.

With ``Tournament.check_in`` on, a round's window opens ``check_in_minutes`` before the
organiser's announced ``next_round_at`` (or at once when the organiser opens it by hand) and
stays open until the round starts.  Registered players check in to be seated; players of the
waiting list may check in too, to stand in for an absentee.  ``start_round`` asks
:func:`present` and :func:`absentees` (tournaments.services).

Every organiser action and every absentee handled goes to the event's log (:func:`log`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from games import services as games
from tournaments.models import CheckIn, EventLog, Registration, Tournament

Refused = games.Refused


def log(t: Tournament, actor: User | None, action: str, detail: str = "") -> EventLog:
    return EventLog.objects.create(tournament=t, actor=actor, action=action, detail=detail[:300])


def next_round_number(t: Tournament) -> int:
    return t.round_set.count() + 1


@dataclass(frozen=True)
class Window:
    round_number: int
    open: bool
    opens_at: datetime | None  # None: opened by hand, or no start announced yet


def window(t: Tournament, now: datetime | None = None) -> Window:
    """The check-in window of the next round: open or not, and when it opens."""
    number = next_round_number(t)
    playing = t.status in (Tournament.CLOSED, Tournament.RUNNING) and number <= t.rounds
    if not t.check_in or not playing:
        return Window(number, False, None)
    if t.check_in_opened_for == number:
        return Window(number, True, None)
    if t.next_round_at is None:
        return Window(number, False, None)
    opens_at = t.next_round_at - timedelta(minutes=t.check_in_minutes)
    return Window(number, (now or timezone.now()) >= opens_at, opens_at)


def _locked(tournament_id: int) -> Tournament:
    try:
        return Tournament.objects.select_for_update().get(pk=tournament_id)
    except Tournament.DoesNotExist:
        raise Refused("no such event") from None


def check_in(tournament_id: int, user: User) -> CheckIn:
    """The player is present for the next round (registered, or waiting to stand in)."""
    with transaction.atomic():
        t = _locked(tournament_id)
        if not t.check_in:
            raise Refused("this event has no check-in")
        w = window(t)
        if not w.open:
            raise Refused("check-in is not open")
        entered = t.registrations.filter(user=user, status__in=(Registration.REGISTERED, Registration.WAITING))
        if not entered.exists():
            raise Refused("you are not registered")
        row, _created = CheckIn.objects.get_or_create(tournament=t, round_number=w.round_number, user=user)
        return row


def checked_in(t: Tournament, user: User) -> bool:
    return CheckIn.objects.filter(tournament=t, round_number=next_round_number(t), user=user).exists()


def open_window(tournament_id: int, user: User) -> Tournament:
    """The organiser opens the next round's check-in now."""
    with transaction.atomic():
        t = _locked(tournament_id)
        if t.organiser_id != user.pk:
            raise Refused("only the organiser may do this")
        if not t.check_in:
            raise Refused("this event has no check-in")
        number = next_round_number(t)
        if t.status not in (Tournament.CLOSED, Tournament.RUNNING) or number > t.rounds:
            raise Refused("every round has been played")
        t.check_in_opened_for = number
        t.save(update_fields=["check_in_opened_for"])
        log(t, user, "check_in_opened", f"round {number}")
        return t


def schedule(tournament_id: int, user: User, at: datetime | None) -> Tournament:
    """The organiser announces when the next round starts (the window opens before it)."""
    with transaction.atomic():
        t = _locked(tournament_id)
        if t.organiser_id != user.pk:
            raise Refused("only the organiser may do this")
        t.next_round_at = at
        t.save(update_fields=["next_round_at"])
        log(t, user, "round_scheduled", at.isoformat() if at else "")
        return t


def present(t: Tournament, number: int) -> set[int]:
    """The users checked in for round ``number``."""
    return set(CheckIn.objects.filter(tournament=t, round_number=number).values_list("user_id", flat=True))
