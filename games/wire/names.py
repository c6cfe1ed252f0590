"""Players' display names for the table frames, kept briefly in memory.

Every step renders the seats with their players' names; reading them meant joining the seats
with users and profiles on the hot path (a tenth of a step's cost).  Names change rarely: this
process forgets a name when its profile or user is saved here, and any name after ``TTL``
seconds (another process's edit shows up within that time in the scaled mode).

When one of a table's names is due, all of them are read again together, in one compiled query
(games.runtime.prepared): the four names of a table then fall due together, so a busy evening
reads each table's names once every ``TTL`` seconds instead of once per player, and none of those
reads compiles a query on the step's path.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models.signals import post_save
from django.dispatch import receiver

from accounts.models import Profile
from games.runtime.prepared import PreparedSelect

TTL = 30.0
# A table's players at once (four chairs), padded with an id no account has.
_AT_ONCE = 4
_NO_USER = 0
_USERS = PreparedSelect(
    lambda *ids: get_user_model().objects.filter(pk__in=ids).select_related("profile"), arity=_AT_ONCE
)
_names: dict[int, tuple[float, str]] = {}
_lock = threading.Lock()


def display_names(user_ids: Iterable[int | None]) -> dict[int, str]:
    """user id -> the name shown at the table (the profile's display name, else the username)."""
    wanted = {uid for uid in user_ids if uid is not None}
    now = time.monotonic()
    with _lock:
        found = {uid: entry[1] for uid in wanted if (entry := _names.get(uid)) and entry[0] > now}
    if wanted - found.keys():
        missing = wanted  # all of them again: they fall due together from now on
        if len(missing) <= _AT_ONCE:
            users = _USERS(*missing, *[_NO_USER] * (_AT_ONCE - len(missing)))
        else:
            users = list(get_user_model().objects.filter(pk__in=missing).select_related("profile"))
        for user in users:
            profile = getattr(user, "profile", None)
            found[user.pk] = profile.name if profile is not None else user.get_username()
        with _lock:
            for uid in missing & found.keys():
                _names[uid] = (now + TTL, found[uid])
    return found


def forget(user_id: int | None = None) -> None:
    with _lock:
        if user_id is None:
            _names.clear()
        else:
            _names.pop(user_id, None)


@receiver(post_save, sender=Profile)
def _profile_saved(sender: Any, instance: Profile, **kwargs: Any) -> None:
    forget(instance.user_id)


@receiver(post_save, sender=get_user_model())
def _user_saved(sender: Any, instance: Any, **kwargs: Any) -> None:
    forget(instance.pk)
