"""The admin's sign-in is rate limited like the site's, and staff with an authenticator app must give
its code (TOTP, django-otp) before the admin, the staff pages or the staff API serve them."""

from __future__ import annotations

import time
from datetime import timedelta
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from django_otp.oath import TOTP
from django_otp.plugins.otp_totp.models import TOTPDevice

from accounts import signin_limits

PASSWORD = "staff-password-12345"
ADMIN_LOGIN = "/admin/login/"

pytestmark = pytest.mark.django_db


@pytest.fixture
def clerk() -> Any:
    return get_user_model().objects.create_user("clerk", password=PASSWORD, is_staff=True, is_superuser=True)


def code(device: TOTPDevice, steps_ahead: int = 0) -> str:
    """The device's current code, computed with django-otp's own TOTP from the device's key.

    ``steps_ahead=1`` gives the next step's code (accepted: the device tolerates one step), for a
    second verification within one 30-second step (a code is accepted once)."""
    totp = TOTP(device.bin_key, device.step, device.t0, device.digits, device.drift)
    totp.time = time.time() + steps_ahead * device.step
    return f"{totp.token():0{device.digits}d}"


def admin_sign_in(client: Client, password: str, username: str = "clerk", **extra: Any) -> Any:
    return client.post(
        f"{ADMIN_LOGIN}?next=/admin/", {"username": username, "password": password, "next": "/admin/"}, **extra
    )


def reaches_admin(client: Client) -> bool:
    return client.get(reverse("admin:accounts_wallet_changelist")).status_code == 200


# --- the admin's sign-in limit --------------------------------------------------------------------


def test_admin_sign_in_is_rate_limited_then_refuses_the_right_password(settings: Any, clerk: Any) -> None:
    settings.CAISHEN_LOGIN_ATTEMPTS = 10
    client = Client()
    statuses = [admin_sign_in(client, f"wrong-{n}").status_code for n in range(30)]
    assert statuses[:10] == [200] * 10 and set(statuses[10:]) == {429}

    refused = admin_sign_in(client, PASSWORD, HTTP_ACCEPT_LANGUAGE="en")
    assert refused.status_code == 429
    assert "Too many sign-in attempts" in refused.content.decode()
    assert "_auth_user_id" not in client.session
    assert not reaches_admin(client)


def test_admin_and_site_sign_in_share_one_limit(settings: Any, clerk: Any) -> None:
    settings.CAISHEN_LOGIN_ATTEMPTS = 4
    client = Client()
    for _ in range(2):
        client.post("/accounts/login/", {"username": "clerk", "password": "wrong"})
    for _ in range(2):
        admin_sign_in(client, "wrong")
    assert admin_sign_in(client, PASSWORD).status_code == 429
    assert client.post("/accounts/login/", {"username": "clerk", "password": PASSWORD}).status_code == 429


def test_admin_sign_in_without_a_device_works_and_leaves_the_device_cookie(clerk: Any) -> None:
    client = Client()
    response = admin_sign_in(client, PASSWORD)

    assert response.status_code == 302 and response["Location"] == "/admin/"
    assert signin_limits.DEVICE_COOKIE in response.cookies
    assert reaches_admin(client)


# --- the second factor ------------------------------------------------------------------------------


@pytest.fixture
def device(clerk: Any) -> TOTPDevice:
    return TOTPDevice.objects.create(user=clerk, name="phone", confirmed=True)


def test_staff_with_a_device_reach_the_admin_only_after_a_valid_code(device: TOTPDevice) -> None:
    client = Client()
    response = admin_sign_in(client, PASSWORD)
    # The password was right: the next step is the code, with the admin as where to go after it.
    verify_url = reverse("accounts:second_factor_verify")
    assert response.status_code == 302
    location = urlsplit(response["Location"])
    assert location.path == verify_url and parse_qs(location.query)["next"] == ["/admin/"]
    assert "_auth_user_id" in client.session

    for url in ["/admin/", reverse("admin:accounts_wallet_changelist"), reverse("admin:auth_user_changelist")]:
        assert client.get(url).status_code == 302, url  # to the sign-in, which sends on to the code
    assert client.get(ADMIN_LOGIN).url.startswith(verify_url)

    wrong = client.post(verify_url, {"token": "000000" if code(device) != "000000" else "111111", "next": "/admin/"})
    assert wrong.status_code == 400
    assert not reaches_admin(client)
    # After a wrong code django-otp makes the next try wait (1 s, doubling with each wrong code).
    hurried = client.post(verify_url, {"token": code(device), "next": "/admin/"}, HTTP_ACCEPT_LANGUAGE="en")
    assert hurried.status_code == 400 and "wait a little" in hurried.content.decode()
    waited = timezone.now() - timedelta(seconds=5)
    TOTPDevice.objects.filter(pk=device.pk).update(throttling_failure_timestamp=waited)

    right = client.post(verify_url, {"token": code(device), "next": "/admin/"})
    assert right.status_code == 302 and right["Location"] == "/admin/"
    assert reaches_admin(client)


def test_a_code_is_needed_again_after_signing_out(device: TOTPDevice) -> None:
    client = Client()
    admin_sign_in(client, PASSWORD)
    client.post(reverse("accounts:second_factor_verify"), {"token": code(device)})
    assert reaches_admin(client)

    client.post(reverse("accounts:logout"))
    admin_sign_in(client, PASSWORD)
    assert not reaches_admin(client)


def test_a_site_sign_in_does_not_open_staff_pages_or_the_staff_api_without_the_code(
    device: TOTPDevice, clerk: Any
) -> None:
    client = Client()
    client.force_login(clerk)
    player = get_user_model().objects.create_user("player", password=PASSWORD)

    page = client.get(reverse("accounts:staff_wallets"))
    assert page.status_code == 302 and page["Location"].startswith(reverse("accounts:second_factor_verify"))
    api = client.post(f"/api/account/wallets/{player.pk}/adjust/", {"amount": 100, "note": "bonus"})
    assert api.status_code == 403
    assert not reaches_admin(client)

    client.post(reverse("accounts:second_factor_verify"), {"token": code(device)})
    assert client.get(reverse("accounts:staff_wallets")).status_code == 200
    assert client.post(f"/api/account/wallets/{player.pk}/adjust/", {"amount": 100, "note": "bonus"}).status_code == 201
    assert reaches_admin(client)


def test_enrolment_shows_the_otpauth_uri_and_a_first_code_confirms_it(clerk: Any) -> None:
    client = Client()
    client.force_login(clerk)
    page = client.get(reverse("accounts:second_factor_setup"))
    assert page.status_code == 200
    pending = TOTPDevice.objects.get(user=clerk, confirmed=False)
    assert "no-store" in page["Cache-Control"]  # it shows a secret
    html = page.content.decode()
    assert "otpauth://totp/Caishen%3Aclerk?secret=" in html
    assert page.context["secret"] in html

    wrong = client.post(reverse("accounts:second_factor_setup"), {"token": "12345"})
    assert wrong.status_code == 400
    assert not TOTPDevice.objects.filter(user=clerk, confirmed=True).exists()

    done = client.post(reverse("accounts:second_factor_setup"), {"token": code(pending), "next": "/admin/"})
    assert done.status_code == 302 and done["Location"] == "/admin/"
    assert TOTPDevice.objects.get(user=clerk).confirmed
    assert reaches_admin(client)  # this session gave the code

    # From now on a password alone does not open the admin, nor replace the app.
    other = Client()
    other.force_login(clerk)
    assert not reaches_admin(other)
    replace = other.get(reverse("accounts:second_factor_setup"))
    assert replace.status_code == 302 and replace["Location"].startswith(reverse("accounts:second_factor_verify"))


def test_replacing_the_app_removes_the_old_one(device: TOTPDevice, clerk: Any) -> None:
    client = Client()
    client.force_login(clerk)
    client.post(reverse("accounts:second_factor_verify"), {"token": code(device)})
    client.get(reverse("accounts:second_factor_setup"))
    new = TOTPDevice.objects.get(user=clerk, confirmed=False)

    assert client.post(reverse("accounts:second_factor_setup"), {"token": code(new)}).status_code == 302
    assert list(TOTPDevice.objects.filter(user=clerk).values_list("pk", flat=True)) == [new.pk]


def test_requiring_a_second_factor_sends_staff_without_one_to_enrol(settings: Any, clerk: Any) -> None:
    settings.CAISHEN_STAFF_REQUIRE_2FA = True
    client = Client()
    response = admin_sign_in(client, PASSWORD)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("accounts:second_factor_setup"))
    assert not reaches_admin(client)
    assert client.get(reverse("accounts:staff_wallets"))["Location"].startswith(reverse("accounts:second_factor_setup"))

    client.get(reverse("accounts:second_factor_setup"))
    pending = TOTPDevice.objects.get(user=clerk, confirmed=False)
    client.post(reverse("accounts:second_factor_setup"), {"token": code(pending)})
    assert reaches_admin(client)


def test_without_the_requirement_staff_without_a_device_use_the_admin_as_before(settings: Any, clerk: Any) -> None:
    settings.CAISHEN_STAFF_REQUIRE_2FA = False
    client = Client()
    client.force_login(clerk)
    assert reaches_admin(client)
    assert client.get(reverse("accounts:staff_wallets")).status_code == 200


def test_enrolment_is_for_staff_only(client: Any) -> None:
    client.force_login(get_user_model().objects.create_user("player", password=PASSWORD))
    assert client.get(reverse("accounts:second_factor_setup")).status_code == 403
    assert not TOTPDevice.objects.exists()


def test_a_code_is_accepted_once(device: TOTPDevice, clerk: Any) -> None:
    first, second = Client(), Client()
    first.force_login(clerk)
    second.force_login(clerk)
    token = code(device)
    assert first.post(reverse("accounts:second_factor_verify"), {"token": token}).status_code == 302
    assert second.post(reverse("accounts:second_factor_verify"), {"token": token}).status_code == 400
    assert not reaches_admin(second)


def test_the_second_factor_pages_speak_chinese_by_default(clerk: Any) -> None:
    client = Client()
    client.force_login(clerk)
    html = client.get(reverse("accounts:second_factor_setup")).content.decode()
    assert "身份验证器应用" in html and "Authenticator app" not in html


def test_the_admin_sign_in_page_is_never_cached(clerk: Any, device: TOTPDevice) -> None:
    assert "no-cache" in Client().get(ADMIN_LOGIN)["Cache-Control"]
    client = Client()
    client.force_login(clerk)
    assert "no-cache" in client.get(ADMIN_LOGIN)["Cache-Control"]  # the detour to the code page too
