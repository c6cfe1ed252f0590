"""A password change revokes the account's API token, whatever changed it: the password form,
a reset link, the admin, ``manage.py changepassword``.

Whoever needed the password changed may hold the token too (it was made while they had the
account), so scripts need a new key.  The user row's saves are watched rather than each view, so
no path is missed: before a save, the stored password hash is compared with the new one.  A hash
that changed only because Django re-hashed the same password (a stronger hasher, at sign-in) is
no change of password and revokes nothing: the raw password, still known then, checks against
the old hash.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import check_password
from django.db.models.signals import post_save, pre_save
from django.dispatch import receiver

from accounts import api_tokens

_CHANGED = "_caishen_password_changed"  # set on the instance between pre_save and post_save


def password_changed(instance: Any, update_fields: Any) -> bool:
    if instance.pk is None or (update_fields is not None and "password" not in update_fields):
        return False
    old = type(instance)._default_manager.filter(pk=instance.pk).values_list("password", flat=True).first()
    if old is None or old == instance.password:
        return False
    raw = getattr(instance, "_password", None)  # set by set_password until the save completes
    return not (raw is not None and check_password(raw, old))


@receiver(pre_save, sender=get_user_model())
def _note_password_change(sender: type, instance: Any, raw: bool = False, update_fields: Any = None, **_: Any) -> None:
    if not raw:
        setattr(instance, _CHANGED, password_changed(instance, update_fields))


@receiver(post_save, sender=get_user_model())
def _revoke_on_password_change(sender: type, instance: Any, raw: bool = False, **_: Any) -> None:
    if not raw and getattr(instance, _CHANGED, False):
        setattr(instance, _CHANGED, False)
        api_tokens.revoke(instance)
