"""Players' display names for the table frames, kept briefly in memory.

Every step renders the seats with their players' names; reading them meant joining the seats
with users and profiles on the hot path (a tenth of a step's cost).  Names change rarely: this
process forgets a name when its profile or user is saved here, and any name after ``TTL``
seconds (another process's edit shows up within that time in the scaled mode).

When one of a table's names is due, all of them are read again together, in one statement written
once (no queryset compiled on the step's path): the four names of a table then fall due
together, so a busy evening reads each table's names once every ``TTL`` seconds instead of once
per player.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable
from typing import Any

from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models.signals import post_save
from django.dispatch import receiver

from accounts.models import Profile

TTL = 30.0
# A table's players at once (four chairs), padded with an id no account has.
_AT_ONCE = 4
_NO_USER = 0
_SQL: dict[str, str] = {}
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
        found.update(_read(missing))
        with _lock:
            for uid in missing & found.keys():
                _names[uid] = (now + TTL, found[uid])
    return found


def _read(user_ids: set[int]) -> dict[int, str]:
    """The names of these users from the database: ``Profile.name``'s rule (the display name, else
    the username), in one statement of four ids (more in several)."""
    ids = sorted(user_ids)
    out: dict[int, str] = {}
    for start in range(0, len(ids), _AT_ONCE):
        chunk = ids[start : start + _AT_ONCE]
        with connection.cursor() as cursor:
            cursor.execute(_names_sql(), [*chunk, *[_NO_USER] * (_AT_ONCE - len(chunk))])
            rows = cursor.fetchall()
        out.update({int(user_id): display or str(username) for user_id, username, display in rows})
    return out


def _names_sql() -> str:
    found = _SQL.get(connection.vendor)
    if found is None:
        User = get_user_model()
        quote = connection.ops.quote_name
        assert User._meta.pk is not None
        user_id = quote(str(User._meta.pk.column))
        username = quote(str(User._meta.get_field(User.USERNAME_FIELD).column))  # type: ignore[union-attr]
        found = _SQL[connection.vendor] = (
            f"SELECT u.{user_id}, u.{username}, p.{quote(str(Profile._meta.get_field('display_name').column))}"  # type: ignore[union-attr]
            f" FROM {quote(User._meta.db_table)} u LEFT OUTER JOIN {quote(Profile._meta.db_table)} p"
            f" ON p.{quote(str(Profile._meta.get_field('user').column))} = u.{user_id}"  # type: ignore[union-attr]
            f" WHERE u.{user_id} IN ({', '.join(['%s'] * _AT_ONCE)})"
        )
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
