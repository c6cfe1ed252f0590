"""Every new user gets a profile, a wallet and the starting grant."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.db.models.signals import post_save
from django.dispatch import receiver

from accounts.services import open_account


@receiver(post_save, sender=get_user_model())
def _open_account_for_new_user(sender: type, instance: Any, created: bool, raw: bool = False, **kwargs: Any) -> None:
    if created and not raw:
        open_account(instance)
