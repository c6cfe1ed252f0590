"""The staff page's hold changes: release or reduce a running match's hold, with a reason.

A staff debit may take only the free balance (accounts.services.adjust): to debit units a match
holds, a staff member first releases or reduces that hold here, and the change is recorded.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts import services
from accounts.forms import HoldChangeForm
from accounts.models import Hold
from accounts.profile_page import me as _me
from accounts.views import staff_required


def refusal(error: Exception) -> str:
    """What to tell the staff member when the change is refused (nothing was changed)."""
    if isinstance(error, services.HoldNotActive):
        return _("This hold was already released. Nothing was changed.")
    return _("The new amount must be less than what is held now. Nothing was changed.")


@staff_required
@require_POST
def staff_hold_change(request: HttpRequest, user_id: int, hold_id: int) -> HttpResponse:
    owner = get_object_or_404(get_user_model(), pk=user_id)
    hold = get_object_or_404(Hold, pk=hold_id, wallet__user=owner)
    form = HoldChangeForm(request.POST, prefix=f"hold-{hold.pk}")  # the prefix the page renders it with
    if not form.is_valid():
        for errors in form.errors.values():
            for error in errors:
                messages.error(request, str(error))
        return redirect("accounts:staff_adjust", user_id=owner.pk)
    amount = form.cleaned_data["amount"]
    try:
        change = services.change_hold(hold.pk, amount, form.cleaned_data["note"], by=_me(request))
    except ValueError as error:  # HoldNotActive, or an amount not below what is held
        messages.error(request, refusal(error))
    else:
        if change.released:
            messages.success(request, _("Released the hold of %(reference)s.") % {"reference": hold.reference})
        else:
            messages.success(
                request,
                _("The hold of %(reference)s is now %(after)s (was %(before)s).")
                % {"reference": hold.reference, "after": change.after, "before": change.before},
            )
    return redirect("accounts:staff_adjust", user_id=owner.pk)
