"""Account pages: sign up and in, profile, wallet and ledger, staff adjustments."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib import messages
from django.contrib.auth import get_user_model, login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.db import IntegrityError
from django.db.models import Q
from django.http import HttpRequest, HttpResponse, HttpResponseBase, HttpResponseRedirect
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse, reverse_lazy
from django.utils.http import url_has_allowed_host_and_scheme, urlencode
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from accounts import api_tokens, email_views, ledger_export, second_factor, services, signin_limits
from accounts.forms import AdjustForm, HoldChangeForm, ProfileForm, SignInForm, SignUpForm
from accounts.language import language_at_sign_in, remember_language, supported
from accounts.models import Profile, Wallet
from accounts.profile_page import me as _me
from accounts.profile_page import render_profile

LEDGER_PAGE_SIZE = 25


def _safe_next(request: HttpRequest, default: str) -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    if url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}, require_https=request.is_secure()):
        return target
    return default


def staff_required(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Signed-out visitors go to the sign-in page; signed-in non-staff get 403; staff who owe a
    code from their authenticator app (accounts.second_factor) go to give it first."""

    @login_required
    @wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not request.user.is_staff:
            raise PermissionDenied
        step = second_factor.missing_step(request.user)
        if step is not None:
            return redirect(f"{reverse(step)}?{urlencode({'next': request.get_full_path()})}")
        return view(request, *args, **kwargs)

    return wrapped


def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("/")
    if request.method == "POST":
        form = SignUpForm(request.POST)
        if form.is_valid():
            user = form.save()  # the post_save signal opens the account: profile, wallet, grant
            profile = Profile.objects.get(user=user)
            profile.display_name = form.cleaned_data["display_name"].strip()
            current = get_language()
            if supported(current):
                profile.language = current
            profile.language_chosen = True  # signing up in a language chooses it
            profile.save(update_fields=["display_name", "language", "language_chosen"])
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            balance = Wallet.objects.get(user=user).balance
            messages.success(
                request,
                _("Welcome, %(name)s! Your wallet holds %(balance)s.") % {"name": profile.name, "balance": balance},
            )
            if form.cleaned_data["email"]:
                email_views.ask_for_address(request, user, form.cleaned_data["email"])
            return remember_language(HttpResponseRedirect(_safe_next(request, "/")), profile.language)
    else:
        form = SignUpForm()
    context = {"form": form, "next": _safe_next(request, ""), "starting_grant": services.starting_grant()}
    return render(request, "accounts/signup.html", context)


class LoginView(auth_views.LoginView):
    """Django's sign-in under the sign-in limits (accounts.signin_limits: 429 when refused or
    slowed down, with Retry-After when told a wait; a device cookie on success), then the
    profile's language."""

    authentication_form = SignInForm

    def form_invalid(self, form: Any) -> HttpResponse:
        status = 429 if signin_limits.was_refused(form) else 200
        response = self.render_to_response(self.get_context_data(form=form), status=status)
        seconds = signin_limits.retry_after(form)
        if seconds is not None:
            response["Retry-After"] = str(seconds)
        return response

    def form_valid(self, form: Any) -> HttpResponse:
        response = super().form_valid(form)
        signin_limits.remember_device(self.request, response, form.get_user())
        language = language_at_sign_in(_me(self.request))
        if language is not None:
            remember_language(response, language)
        return response


# Not registration/password_change_form.html: that name would also replace the admin's own page.
class PasswordChangeView(auth_views.PasswordChangeView):
    template_name = "registration/password_change.html"
    success_url = reverse_lazy("accounts:password_change_done")


class PasswordChangeDoneView(auth_views.PasswordChangeDoneView):
    template_name = "registration/password_change_complete.html"


@login_required
def profile(request: HttpRequest) -> HttpResponse:
    account, _created = Profile.objects.get_or_create(user=_me(request))
    if request.method == "POST":
        form = ProfileForm(request.POST, instance=account)
        if form.is_valid():
            account.language_chosen = True
            form.save()
            response = remember_language(redirect("accounts:profile"), account.language)
            messages.success(request, _("Your profile is saved."))
            return response
        return render_profile(request, form=form)
    return render_profile(request)


@never_cache  # the new key is on this response: no cache may keep it
@login_required
@require_POST
def api_token(request: HttpRequest) -> HttpResponse:
    """Make (or replace) the account's API token, or revoke it (``action=revoke``).  A new key is
    shown on this response only, never stored in a message or a cookie."""
    user = _me(request)
    if request.POST.get("action") == "revoke":
        if api_tokens.revoke(user):
            messages.success(request, _("Your API token is revoked: scripts using it are refused from now on."))
        return redirect("accounts:profile")
    made = api_tokens.replace(user)
    return render_profile(request, api_token=made.token, new_token_key=made.key)


def _own_wallet(request: HttpRequest) -> Wallet:
    return services.open_account(_me(request))


@login_required
@require_GET
def wallet(request: HttpRequest) -> HttpResponse:
    own = _own_wallet(request)
    page = Paginator(own.entries.order_by("-id"), LEDGER_PAGE_SIZE).get_page(request.GET.get("page"))
    return render(request, "accounts/wallet.html", {"wallet": own, "page": page})


@login_required
@require_GET
def ledger_csv(request: HttpRequest) -> HttpResponseBase:
    own = _own_wallet(request)
    return ledger_export.response(own.entries.all(), f"caishen-ledger-{request.user.pk}.csv")


@staff_required
@require_GET
def staff_wallets(request: HttpRequest) -> HttpResponse:
    query = request.GET.get("q", "").strip()
    users = get_user_model().objects.select_related("wallet", "profile").order_by("username")
    if query:
        users = users.filter(Q(username__icontains=query) | Q(profile__display_name__icontains=query))
    page = Paginator(users, 50).get_page(request.GET.get("page"))
    return render(request, "accounts/staff_wallets.html", {"page": page, "query": query})


@staff_required
def staff_adjust(request: HttpRequest, user_id: int) -> HttpResponse:
    owner = get_object_or_404(get_user_model(), pk=user_id)
    target = services.open_account(owner)
    if request.method == "POST":
        form = AdjustForm(request.POST)
        if form.is_valid():
            try:
                entry = services.adjust(
                    target, form.signed_amount(), form.cleaned_data["note"], by=_me(request), reference=form.reference()
                )
            except services.HeldFunds as held:
                form.add_error("amount", held_message(held))
            except services.InsufficientFunds:
                form.add_error(
                    "amount",
                    _("A debit of %(amount)s would take the balance (%(balance)s) below zero. Nothing was changed.")
                    % {"amount": form.cleaned_data["amount"], "balance": Wallet.objects.get(pk=target.pk).balance},
                )
            except IntegrityError:
                messages.info(request, _("This form was already submitted; it was recorded once."))
                return redirect("accounts:staff_adjust", user_id=owner.pk)
            else:
                messages.success(
                    request,
                    _("Recorded %(amount)+d for %(user)s; the balance is now %(balance)s.")
                    % {"amount": entry.amount, "user": owner.get_username(), "balance": entry.balance_after},
                )
                return redirect("accounts:staff_adjust", user_id=owner.pk)
    else:
        form = AdjustForm()
    entries = target.entries.select_related("created_by").order_by("-id")[:20]
    holds = list(target.holds.filter(released_at__isnull=True).order_by("id"))
    return render(
        request,
        "accounts/staff_adjust.html",
        {
            "owner": owner,
            "wallet": target,
            "form": form,
            "entries": entries,
            "holds": [(hold, HoldChangeForm(prefix=f"hold-{hold.pk}")) for hold in holds],
            "held": sum(h.amount for h in holds),
        },
    )


def held_message(error: services.HeldFunds) -> str:
    """Why a staff debit was refused: it would reach units that running matches hold."""
    return _(
        "A debit of %(amount)s would leave %(left)s, less than the %(held)s held for running matches. "
        "Release or reduce a hold first (with a reason). Nothing was changed."
    ) % {"amount": error.amount, "left": error.balance - error.amount, "held": error.held}
