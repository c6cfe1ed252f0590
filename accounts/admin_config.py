"""The admin app with Caishen's admin site (settings.INSTALLED_APPS names this instead of
``django.contrib.admin``): every ``admin.register`` then lands on :class:`StaffAdminSite`.

No model imports here: the app registry loads this module before any model exists."""

from __future__ import annotations

from django.contrib.admin.apps import AdminConfig


class StaffAdminConfig(AdminConfig):
    default_site = "accounts.admin_site.StaffAdminSite"
