"""Account pages: sign up / in / out, password change, profile, wallet and ledger, CSV, staff form, admin."""

import csv
import io

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from accounts import services
from accounts.models import LedgerEntry, Profile, Wallet

PASSWORD = "a-long-test-password-1"

# Every test renders in English; tests/platform/test_i18n.py covers Chinese.
EN = {"HTTP_ACCEPT_LANGUAGE": "en"}


def make_user(username, **extra):
    return get_user_model().objects.create_user(username, password=PASSWORD, **extra)


@pytest.fixture
def player(client):
    user = make_user("player")
    client.force_login(user)
    return user


@pytest.fixture
def staff_client(client):
    staff = make_user("clerk", is_staff=True)
    client.force_login(staff)
    return client


def csv_rows(response):
    body = b"".join(response.streaming_content) if response.streaming else response.content
    return list(csv.reader(io.StringIO(body.decode("utf-8-sig"))))


# --- sign up, in, out -------------------------------------------------------------------------------


@pytest.mark.django_db
def test_signup_opens_the_account_and_signs_in(client):
    response = client.post(
        reverse("accounts:signup"),
        {"username": "newcomer", "password1": PASSWORD, "password2": PASSWORD, "display_name": "  小明 "},
        **EN,
    )

    assert response.status_code == 302
    user = get_user_model().objects.get(username="newcomer")
    assert client.session["_auth_user_id"] == str(user.pk)
    profile = Profile.objects.get(user=user)
    assert profile.display_name == "小明"
    assert profile.language == "en"  # the language the visitor was browsing in
    wallet = Wallet.objects.get(user=user)
    assert wallet.balance == services.starting_grant()
    assert list(wallet.entries.values_list("reason", "amount")) == [(LedgerEntry.GRANT, services.starting_grant())]

    home = client.get("/", **EN).content.decode()
    assert "newcomer" in home
    assert f"data-wallet-balance>{services.starting_grant()}<" in home
    assert "Welcome" in home


@pytest.mark.django_db
def test_signup_without_display_name_and_with_next(client):
    response = client.post(
        reverse("accounts:signup") + "?next=/accounts/wallet/",
        {"username": "plain", "password1": PASSWORD, "password2": PASSWORD},
    )

    assert response.status_code == 302
    assert response["Location"] == "/accounts/wallet/"
    assert Profile.objects.get(user__username="plain").display_name == ""


@pytest.mark.django_db
def test_signup_ignores_an_offsite_next(client):
    response = client.post(
        reverse("accounts:signup") + "?next=https://evil.example/",
        {"username": "plain", "password1": PASSWORD, "password2": PASSWORD},
    )

    assert response["Location"] == "/"


@pytest.mark.django_db
def test_signup_with_mismatched_passwords_shows_the_form_again(client):
    response = client.post(
        reverse("accounts:signup"), {"username": "typo", "password1": PASSWORD, "password2": PASSWORD + "x"}, **EN
    )

    assert response.status_code == 200
    assert "didn’t match" in response.content.decode() or "didn't match" in response.content.decode()
    assert not get_user_model().objects.filter(username="typo").exists()


@pytest.mark.django_db
def test_signup_page_renders_for_visitors_and_redirects_members(client):
    page = client.get(reverse("accounts:signup"), **EN)
    assert page.status_code == 200
    assert 'name="password2"' in page.content.decode()
    assert "1000" in page.content.decode()

    client.force_login(make_user("member"))
    assert client.get(reverse("accounts:signup")).status_code == 302


@pytest.mark.django_db
def test_sign_in_and_out(client):
    make_user("returning")

    page = client.get(reverse("accounts:login"), **EN)
    assert page.status_code == 200 and 'name="username"' in page.content.decode()

    response = client.post(reverse("accounts:login"), {"username": "returning", "password": PASSWORD})
    assert response.status_code == 302
    assert "_auth_user_id" in client.session

    response = client.post(reverse("accounts:logout"))
    assert response.status_code == 302
    assert "_auth_user_id" not in client.session


@pytest.mark.django_db
def test_sign_in_with_a_wrong_password_fails(client):
    make_user("returning")

    response = client.post(reverse("accounts:login"), {"username": "returning", "password": "nope"}, **EN)

    assert response.status_code == 200
    assert "_auth_user_id" not in client.session


@pytest.mark.django_db
def test_password_change(client, player):
    page = client.get(reverse("accounts:password_change"), **EN)
    assert page.status_code == 200
    assert 'name="old_password"' in page.content.decode()

    new = "another-long-password-2"
    response = client.post(
        reverse("accounts:password_change"),
        {"old_password": PASSWORD, "new_password1": new, "new_password2": new},
    )

    assert response.status_code == 302
    assert response["Location"] == reverse("accounts:password_change_done")
    player.refresh_from_db()
    assert player.check_password(new)
    assert client.get(reverse("accounts:password_change_done"), **EN).status_code == 200


@pytest.mark.django_db
def test_admin_password_change_keeps_the_admin_template(admin_client):
    response = admin_client.get(reverse("admin:password_change"))

    assert response.status_code == 200
    assert "admin/base_site.html" in [t.name for t in response.templates]


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["profile", "wallet", "ledger_csv", "password_change"])
def test_account_pages_need_sign_in(client, name):
    response = client.get(reverse(f"accounts:{name}"))

    assert response.status_code == 302
    assert response["Location"].startswith(reverse("accounts:login"))


# --- profile --------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_profile_saves_display_name_and_language(client, player):
    page = client.get(reverse("accounts:profile"), **EN)
    assert page.status_code == 200

    response = client.post(reverse("accounts:profile"), {"display_name": "Lucky", "language": "en"})

    assert response.status_code == 302
    profile = Profile.objects.get(user=player)
    assert (profile.display_name, profile.language) == ("Lucky", "en")
    assert response.cookies["django_language"].value == "en"


@pytest.mark.django_db
def test_profile_refuses_an_unknown_language(client, player):
    response = client.post(reverse("accounts:profile"), {"display_name": "", "language": "fr"})

    assert response.status_code == 200
    assert Profile.objects.get(user=player).language == "zh-hans"


# --- wallet and ledger page, CSV ------------------------------------------------------------------


@pytest.mark.django_db
def test_wallet_page_lists_entries_newest_first(client, player):
    wallet = player.wallet
    services.post(wallet, -40, LedgerEntry.HAND, reference="hand:7", note="lost to a 财神 win")
    services.post(wallet, 15, LedgerEntry.HAND, reference="hand:8")

    html = client.get(reverse("accounts:wallet"), **EN).content.decode()

    assert '<div class="balance-figure" data-wallet-balance>975</div>' in html
    assert html.index("hand:8") < html.index("hand:7") < html.index("starting grant")
    assert "-40" in html and "+15" in html and "lost to a 财神 win" in html
    assert "hand settlement" in html
    assert reverse("accounts:ledger_csv") in html


@pytest.mark.django_db
def test_wallet_page_paginates(client, player):
    for n in range(30):
        services.post(player.wallet, 1, LedgerEntry.HAND, reference=f"hand:{n}")

    first = client.get(reverse("accounts:wallet"), **EN).content.decode()
    second = client.get(reverse("accounts:wallet") + "?page=2", **EN).content.decode()

    assert first.count("data-entry=") == 25
    assert "hand:29" in first and "hand:4" not in first
    assert second.count("data-entry=") == 6  # 30 hands + the grant
    assert "starting grant" in second
    assert "Page 2 of 2" in second


@pytest.mark.django_db
def test_ledger_csv_export(client, player):
    services.post(player.wallet, -40, LedgerEntry.HAND, reference="hand:7", note="lost, 2 wilds")
    services.post(player.wallet, 10, LedgerEntry.STAFF_CREDIT, note="=HYPERLINK(1)", by=player)
    other = make_user("other")
    services.post(other.wallet, 5, LedgerEntry.HAND, reference="hand:99")

    response = client.get(reverse("accounts:ledger_csv"))

    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert "attachment" in response["Content-Disposition"]
    rows = csv_rows(response)
    assert rows[0] == ["id", "time", "amount", "balance_after", "reason", "reference", "note"]
    body = [r[2:] for r in rows[1:]]
    assert body == [
        ["10", "970", "staff_credit", "", "'=HYPERLINK(1)"],
        ["-40", "960", "hand", "hand:7", "lost, 2 wilds"],
        ["1000", "1000", "grant", "grant", "starting grant"],
    ]
    assert all("T" in r[1] for r in rows[1:])  # ISO 8601 times


# --- staff credit / debit ---------------------------------------------------------------------------


@pytest.mark.django_db
def test_staff_credit_through_the_form(staff_client):
    target = make_user("target")
    url = reverse("accounts:staff_adjust", kwargs={"user_id": target.pk})
    page = staff_client.get(url, **EN)
    token = page.context["form"].initial["token"]

    response = staff_client.post(
        url, {"direction": "credit", "amount": "250", "note": "tournament prize", "token": token}, **EN
    )

    assert response.status_code == 302
    entry = LedgerEntry.objects.get(wallet__user=target, reason=LedgerEntry.STAFF_CREDIT)
    assert (entry.amount, entry.note, entry.created_by.username) == (250, "tournament prize", "clerk")
    assert Wallet.objects.get(user=target).balance == 1250
    # The same form submitted again (double click) records nothing more.
    staff_client.post(url, {"direction": "credit", "amount": "250", "note": "tournament prize", "token": token})
    assert Wallet.objects.get(user=target).balance == 1250


@pytest.mark.django_db
def test_staff_debit_through_the_form(staff_client):
    target = make_user("target")
    url = reverse("accounts:staff_adjust", kwargs={"user_id": target.pk})

    staff_client.post(url, {"direction": "debit", "amount": "300", "note": "chargeback", "token": "a" * 32})

    entry = LedgerEntry.objects.get(wallet__user=target, reason=LedgerEntry.STAFF_DEBIT)
    assert (entry.amount, entry.balance_after) == (-300, 700)


@pytest.mark.django_db
def test_staff_debit_below_zero_shows_an_error_and_changes_nothing(staff_client):
    target = make_user("target")
    url = reverse("accounts:staff_adjust", kwargs={"user_id": target.pk})
    rows = LedgerEntry.objects.count()

    response = staff_client.post(
        url, {"direction": "debit", "amount": "1001", "note": "too much", "token": "b" * 32}, **EN
    )

    assert response.status_code == 200
    assert "below zero" in response.content.decode()
    assert "Nothing was changed" in response.content.decode()
    assert Wallet.objects.get(user=target).balance == 1000
    assert LedgerEntry.objects.count() == rows


@pytest.mark.django_db
def test_staff_adjust_requires_a_written_reason(staff_client):
    target = make_user("target")
    url = reverse("accounts:staff_adjust", kwargs={"user_id": target.pk})

    response = staff_client.post(url, {"direction": "credit", "amount": "5", "note": "   ", "token": "c" * 32})

    assert response.status_code == 200
    assert response.context["form"].errors["note"]
    assert Wallet.objects.get(user=target).balance == 1000


@pytest.mark.django_db
def test_staff_wallet_list_and_search(staff_client):
    make_user("alice")
    make_user("bob")

    html = staff_client.get(reverse("accounts:staff_wallets") + "?q=ali", **EN).content.decode()

    assert "alice" in html and ">bob<" not in html


@pytest.mark.django_db
@pytest.mark.parametrize("method", ["get", "post"])
def test_staff_pages_are_forbidden_to_players(client, player, method):
    target = make_user("target")
    url = reverse("accounts:staff_adjust", kwargs={"user_id": target.pk})
    data = {"direction": "credit", "amount": "1000", "note": "gift to myself", "token": "d" * 32}

    response = getattr(client, method)(url, data)

    assert response.status_code == 403
    assert client.get(reverse("accounts:staff_wallets")).status_code == 403
    assert Wallet.objects.get(user=target).balance == 1000


@pytest.mark.django_db
def test_staff_pages_send_visitors_to_sign_in(client):
    assert client.get(reverse("accounts:staff_wallets"))["Location"].startswith(reverse("accounts:login"))


# --- admin ----------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_admin_shows_accounts_and_keeps_the_ledger_read_only(admin_client, admin_user):
    entry = LedgerEntry.objects.filter(wallet__user=admin_user).get()
    wallet = admin_user.wallet

    for url in [
        reverse("admin:accounts_profile_changelist"),
        reverse("admin:accounts_wallet_changelist"),
        reverse("admin:accounts_ledgerentry_changelist"),
        reverse("admin:auth_user_changelist"),
        reverse("admin:accounts_wallet_change", args=[wallet.pk]),
        reverse("admin:accounts_ledgerentry_change", args=[entry.pk]),
    ]:
        assert admin_client.get(url).status_code == 200, url

    assert admin_client.get(reverse("admin:accounts_ledgerentry_add")).status_code == 403
    assert admin_client.get(reverse("admin:accounts_ledgerentry_delete", args=[entry.pk])).status_code == 403
    assert admin_client.get(reverse("admin:accounts_wallet_add")).status_code == 403
    # Posting to the change pages changes nothing: they are view-only.
    admin_client.post(reverse("admin:accounts_ledgerentry_change", args=[entry.pk]), {"amount": "999999"})
    admin_client.post(reverse("admin:accounts_wallet_change", args=[wallet.pk]), {"balance": "999999"})
    entry.refresh_from_db()
    wallet.refresh_from_db()
    assert entry.amount == wallet.balance == 1000
    html = admin_client.get(reverse("admin:accounts_wallet_change", args=[wallet.pk])).content.decode()
    assert reverse("accounts:staff_adjust", kwargs={"user_id": admin_user.pk}) in html
