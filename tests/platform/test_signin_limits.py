"""Sign-in limits (accounts.signin_limits): per (account, address), the growing delay of an address past
its threshold (accounts.signin_delay), and the device cookie that keeps a client whose password is right
from being locked out by anyone else's failures."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core import signing
from django.test import Client
from django.urls import reverse

from accounts import signin_delay, signin_limits

PASSWORD = "demo-password-12345"
LOGIN = "/accounts/login/"
SHOP = "198.51.100.7"  # one address: a shop, a school, or the proxy in front of the site

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def demo() -> Any:
    return get_user_model().objects.create_user("demo", password=PASSWORD)


def sign_in(client: Client, username: str, password: str, address: str = SHOP, **extra: Any) -> Any:
    return client.post(LOGIN, {"username": username, "password": password}, REMOTE_ADDR=address, **extra)


def signed_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


def with_device_cookie(address: str = SHOP) -> Client:
    """A browser that signed in to demo once (and out again): it holds demo's device cookie."""
    browser = Client()
    assert sign_in(browser, "demo", PASSWORD, address).status_code == 302
    assert signin_limits.DEVICE_COOKIE in browser.cookies
    browser.post(reverse("accounts:logout"))
    assert not signed_in(browser)
    return browser


def test_a_successful_sign_in_leaves_a_signed_httponly_device_cookie() -> None:
    browser = Client()
    response = sign_in(browser, "demo", PASSWORD)

    cookie = response.cookies[signin_limits.DEVICE_COOKIE]
    assert cookie["httponly"] is True
    assert int(cookie["max-age"]) == signin_limits.DEVICE_COOKIE_MAX_AGE
    assert signing.loads(cookie.value, salt=signin_limits.DEVICE_SALT)["u"] == "demo"
    with pytest.raises(signing.BadSignature):
        signing.loads(cookie.value[:-2] + "xx", salt=signin_limits.DEVICE_SALT)


def test_failures_against_made_up_names_do_not_lock_out_demo_with_its_device_cookie(settings: Any) -> None:
    settings.CAISHEN_LOGIN_ADDRESS_ATTEMPTS = 50
    browser = with_device_cookie()
    attacker = Client()
    statuses = [sign_in(attacker, f"made-up-{n}", "guess").status_code for n in range(60)]
    assert statuses[:50] == [200] * 50 and statuses[50:] == [429] * 10  # the address is slowed down

    assert sign_in(browser, "demo", PASSWORD).status_code == 302
    assert signed_in(browser)


def test_failures_on_other_accounts_never_refuse_a_right_password_from_a_new_device(settings: Any) -> None:
    settings.CAISHEN_LOGIN_ADDRESS_ATTEMPTS = 50
    attacker = Client()
    for n in range(60):
        sign_in(attacker, f"made-up-{n}", "guess")
    get_user_model().objects.create_user("newcomer", password=PASSWORD)  # an account minutes old

    # Browsers at that address without any device cookie, demo's and the newcomer's passwords right.
    for username in ["demo", "newcomer"]:
        stranger = Client()
        response = sign_in(stranger, username, PASSWORD)
        assert response.status_code == 302, username
        assert signed_in(stranger)


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The delay's clock, moved by the test (the counters' window is five minutes: it stays)."""
    at = [signin_delay.now()]
    monkeypatch.setattr(signin_delay, "now", lambda: at[0])
    return at


def test_past_the_address_threshold_failed_attempts_wait_a_growing_delay(settings: Any, clock: list[float]) -> None:
    settings.CAISHEN_LOGIN_ADDRESS_ATTEMPTS = 5
    settings.CAISHEN_LOGIN_MAX_DELAY = 8
    attacker = Client()
    for n in range(5):
        assert sign_in(attacker, f"made-up-{n}", "guess").status_code == 200

    waits = []
    for n in range(5, 11):
        response = sign_in(attacker, f"made-up-{n}", "guess", HTTP_ACCEPT_LANGUAGE="en")
        assert response.status_code == 429
        waits.append(int(response["Retry-After"]))
        assert f"Try again in {waits[-1]} s." in response.content.decode()
    assert waits == [1, 2, 4, 8, 8, 8]  # doubling, at most CAISHEN_LOGIN_MAX_DELAY
    chinese = sign_in(attacker, "made-up-11", "guess", HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert "请 8 秒后再试" in chinese.content.decode()

    # Before its wait is over, another try on an account that failed is not checked, right
    # password or not; once over, it is.
    clock[0] += 7
    early = sign_in(attacker, "made-up-10", "guess", HTTP_ACCEPT_LANGUAGE="en")
    assert early.status_code == 429 and early["Retry-After"] == "1"
    get_user_model().objects.create_user("made-up-10", password=PASSWORD)
    assert sign_in(attacker, "made-up-10", PASSWORD).status_code == 429
    assert not signed_in(attacker)
    clock[0] += 1
    assert sign_in(attacker, "made-up-10", PASSWORD).status_code == 302


def test_a_new_device_that_mistypes_waits_only_for_its_own_failure(settings: Any, clock: list[float]) -> None:
    settings.CAISHEN_LOGIN_ADDRESS_ATTEMPTS = 5
    settings.CAISHEN_LOGIN_MAX_DELAY = 30
    attacker = Client()
    for n in range(9):  # four past the threshold: the next failure there waits 16 s
        sign_in(attacker, f"made-up-{n}", "guess")
    person = Client()
    typo = sign_in(person, "demo", "typo")
    assert typo.status_code == 429 and typo["Retry-After"] == "16"

    # The attacker keeps failing on other accounts: the person's wait is not pushed further.
    clock[0] += 10
    for n in range(9, 20):
        sign_in(attacker, f"made-up-{n}", "guess")
    assert sign_in(person, "demo", PASSWORD)["Retry-After"] == "6"
    clock[0] += 6
    assert sign_in(person, "demo", PASSWORD).status_code == 302
    assert signed_in(person)


def test_the_delay_leaves_clients_with_a_device_cookie_alone(settings: Any, clock: list[float]) -> None:
    settings.CAISHEN_LOGIN_ADDRESS_ATTEMPTS = 1
    browser = with_device_cookie()
    sign_in(Client(), "made-up", "guess")
    assert sign_in(browser, "demo", "typo").status_code == 200  # no wait: the device is counted apart
    assert sign_in(browser, "demo", PASSWORD).status_code == 302


def test_failures_per_account_and_address_lock_that_pair_only(settings: Any) -> None:
    settings.CAISHEN_LOGIN_ATTEMPTS = 10
    attacker = Client()
    for _ in range(10):
        assert sign_in(attacker, "demo", "guess").status_code == 200

    refused = sign_in(attacker, "demo", PASSWORD, HTTP_ACCEPT_LANGUAGE="en")
    assert refused.status_code == 429
    assert "Too many sign-in attempts" in refused.content.decode()
    assert not signed_in(attacker)
    # Other accounts from that address, and demo from another address, are not affected.
    get_user_model().objects.create_user("neighbour", password=PASSWORD)
    assert sign_in(Client(), "neighbour", PASSWORD).status_code == 302
    assert sign_in(Client(), "demo", PASSWORD, address="203.0.113.20").status_code == 302


def test_behind_one_proxy_address_another_client_cannot_lock_out_a_device_cookie(settings: Any) -> None:
    # No proxy header configured: every client arrives from the proxy's address.
    settings.CAISHEN_LOGIN_ATTEMPTS = 10
    browser = with_device_cookie(address="10.0.0.1")
    attacker = Client()
    for _ in range(60):  # against demo itself: the (demo, proxy address) pair and the address lock
        sign_in(attacker, "demo", "guess", address="10.0.0.1")
    assert sign_in(Client(), "demo", PASSWORD, address="10.0.0.1").status_code == 429

    assert sign_in(browser, "demo", PASSWORD, address="10.0.0.1").status_code == 302
    assert signed_in(browser)


def test_with_the_proxy_header_trusted_clients_behind_the_proxy_are_told_apart(settings: Any) -> None:
    settings.CAISHEN_CLIENT_IP_HEADER = "X-Forwarded-For"
    settings.CAISHEN_TRUSTED_PROXIES = "10.0.0.1"
    attacker = Client()
    for _ in range(60):
        sign_in(attacker, "demo", "guess", address="10.0.0.1", HTTP_X_FORWARDED_FOR="203.0.113.66")
    assert (
        sign_in(attacker, "demo", PASSWORD, address="10.0.0.1", HTTP_X_FORWARDED_FOR="203.0.113.66").status_code == 429
    )
    # A forged left-most entry does not make a fresh client either.
    forged = sign_in(Client(), "demo", PASSWORD, address="10.0.0.1", HTTP_X_FORWARDED_FOR="1.2.3.4, 203.0.113.66")
    assert forged.status_code == 429

    # Another client of the proxy, with no device cookie, signs in.
    other = Client()
    assert sign_in(other, "demo", PASSWORD, address="10.0.0.1", HTTP_X_FORWARDED_FOR="203.0.113.77").status_code == 302


def test_a_device_cookie_has_its_own_limit(settings: Any) -> None:
    settings.CAISHEN_LOGIN_ATTEMPTS = 5
    browser = with_device_cookie()
    for _ in range(5):
        assert sign_in(browser, "demo", "guess").status_code == 200

    assert sign_in(browser, "demo", PASSWORD).status_code == 429
    assert not signed_in(browser)
    # That device's failures did not count against the address: a fresh browser may still try.
    assert sign_in(Client(), "demo", PASSWORD).status_code == 302


def test_a_device_cookie_for_another_account_or_a_forged_one_exempts_nothing(settings: Any) -> None:
    settings.CAISHEN_LOGIN_ADDRESS_ATTEMPTS = 5
    get_user_model().objects.create_user("mallory", password=PASSWORD)
    mallory = Client()
    assert sign_in(mallory, "mallory", PASSWORD).status_code == 302
    mallory.post(reverse("accounts:logout"))
    for n in range(5):
        sign_in(mallory, f"made-up-{n}", "guess")

    # mallory's cookie names mallory: on demo it is a new device, slowed down with its address.
    assert sign_in(mallory, "demo", "guess").status_code == 429
    assert sign_in(mallory, "demo", PASSWORD).status_code == 429  # the wait is not over
    forged = Client()
    forged.cookies[signin_limits.DEVICE_COOKIE] = signing.dumps({"u": "demo", "d": "x"}, salt="another salt")
    assert sign_in(forged, "demo", PASSWORD).status_code == 429  # the same (demo, address) client


def test_a_success_restarts_the_accounts_own_counter(settings: Any) -> None:
    settings.CAISHEN_LOGIN_ATTEMPTS = 3
    browser = Client()
    for _ in range(2):
        sign_in(browser, "demo", "typo")
    assert sign_in(browser, "demo", PASSWORD).status_code == 302
    browser.post(reverse("accounts:logout"))
    browser.cookies.pop(signin_limits.DEVICE_COOKIE)
    for _ in range(2):
        assert sign_in(browser, "demo", "typo").status_code == 200
    assert sign_in(browser, "demo", PASSWORD).status_code == 302


def test_the_delay_doubles_from_one_second_up_to_its_bound(settings: Any) -> None:
    settings.CAISHEN_LOGIN_MAX_DELAY = 60
    assert [signin_delay.delay_for(n) for n in range(9)] == [0, 1, 2, 4, 8, 16, 32, 60, 60]
    assert signin_delay.delay_for(10**6) == 60  # a long attack neither overflows nor grows past it
