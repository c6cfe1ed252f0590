"""Password reset by email: Django's views and token generator, under the mail limits.

Django's ``PasswordResetForm`` mails every active account with a usable password whose address
matches, whatever its case, and answers the same page whether or not one does: the page never
says whether an address belongs to an account.  Its token generator signs the account's password
hash, last sign-in and address, so a link works once, and for ``PASSWORD_RESET_TIMEOUT`` seconds.

Here: each request counts against the mail limits (accounts/mail_limits.py) for the address typed
and the client, before anything is looked up, so a refusal (429) says nothing about the address
either; and a new password set from a link revokes the account's API token.  The account's other
signed-in browsers are signed out by Django itself: each session keeps a hash of the password and
stops working when the password changes.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import views as auth_views
from django.http import HttpResponse
from django.urls import reverse_lazy

from accounts import mail_limits


class PasswordResetView(auth_views.PasswordResetView):
    template_name = "accounts/password_reset.html"
    email_template_name = "accounts/email/password_reset.txt"
    subject_template_name = "accounts/email/password_reset_subject.txt"
    success_url = reverse_lazy("accounts:password_reset_done")

    def form_valid(self, form: Any) -> HttpResponse:
        if not mail_limits.take(self.request, form.cleaned_data["email"]):
            form.add_error(None, mail_limits.TOO_MANY)
            return self.render_to_response(self.get_context_data(form=form), status=429)
        return super().form_valid(form)


class PasswordResetDoneView(auth_views.PasswordResetDoneView):
    template_name = "accounts/password_reset_sent.html"


class PasswordResetConfirmView(auth_views.PasswordResetConfirmView):
    template_name = "accounts/password_reset_confirm.html"
    success_url = reverse_lazy("accounts:password_reset_complete")


class PasswordResetCompleteView(auth_views.PasswordResetCompleteView):
    # The password change's page: it tells a signed-out reader to sign in with the new password.
    template_name = "registration/password_change_complete.html"
