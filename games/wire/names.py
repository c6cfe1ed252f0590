"""Players' display names for the table frames, kept briefly in memory.

Every step renders the seats with their players' names; reading them meant joining the seats
with users and profiles on the hot path (a tenth of a step's cost).  Names change rarely: this
process forgets a name when its profile or user is saved here, and any name after ``TTL``
seconds (another process's edit shows up within that time in the scaled mode).
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

TTL = 30.0
_names: dict[int, tuple[float, str]] = {}
_lock = threading.Lock()


def display_names(user_ids: Iterable[int | None]) -> dict[int, str]:
    """user id -> the name shown at the table (the profile's display name, else the username)."""
    wanted = {uid for uid in user_ids if uid is not None}
    now = time.monotonic()
    with _lock:
        found = {uid: entry[1] for uid in wanted if (entry := _names.get(uid)) and entry[0] > now}
    missing = wanted - found.keys()
    if missing:
        User = get_user_model()
        for user in User.objects.filter(pk__in=missing).select_related("profile"):
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
