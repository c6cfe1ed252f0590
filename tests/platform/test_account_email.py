"""The account's email address: optional at sign-up, confirmed by a link before it is used, one
account per address whatever its case, never shown to others; on the profile page and the API."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.db import IntegrityError, transaction
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.models import Profile

pytestmark = pytest.mark.django_db

PASSWORD = "a-long-test-password-1"
EN: dict[str, Any] = {"HTTP_ACCEPT_LANGUAGE": "en"}
LINK = re.compile(r"http://testserver(/accounts/email/confirm/[^/\s]+/)")


def make_user(username: str, **extra: Any) -> Any:
    return get_user_model().objects.create_user(username, password=PASSWORD, **extra)


def signed_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def link_in(message: Any) -> str:
    found = LINK.search(str(message.body))
    assert found, message.body
    return found.group(1)


def test_an_address_given_at_sign_up_is_used_once_its_link_is_followed() -> None:
    client = Client()
    response = client.post(
        reverse("accounts:signup"),
        {"username": "mei", "email": "Mei@Example.COM", "password1": PASSWORD, "password2": PASSWORD},
        **EN,
    )
    assert response.status_code == 302
    user = get_user_model().objects.get(username="mei")
    assert (user.email, user.profile.pending_email) == ("", "Mei@example.com")
    [message] = mail.outbox
    assert message.to == ["Mei@example.com"] and "confirm your email address" in message.subject
    link = link_in(message)

    page = client.get(link, **EN)  # showing what it confirms changes nothing
    assert page.status_code == 200 and "Mei@example.com" in page.content.decode()
    user.refresh_from_db()
    assert user.email == ""

    assert client.post(link, **EN).status_code == 302
    user.refresh_from_db()
    assert (user.email, user.profile.pending_email) == ("Mei@example.com", "")
    assert "Mei@example.com" in client.get(reverse("accounts:profile"), **EN).content.decode()
    # Used: the address no longer waits, so the link does nothing more.
    again = client.post(link, **EN)
    assert again.status_code == 400 and "no longer in use" in again.content.decode()


def test_a_change_needs_the_password_and_keeps_the_old_address_until_confirmed() -> None:
    user = make_user("lin", email="lin@example.com")
    client = signed_in(user)

    wrong = client.post(reverse("accounts:email_change"), {"email": "new@example.com", "password": "nope"}, **EN)
    assert wrong.status_code == 400 and "That is not your password." in wrong.content.decode()
    assert mail.outbox == [] and Profile.objects.get(user=user).pending_email == ""

    client.post(reverse("accounts:email_change"), {"email": "new@example.com", "password": PASSWORD}, **EN)
    user.refresh_from_db()
    assert (user.email, user.profile.pending_email) == ("lin@example.com", "new@example.com")
    # Asking for another address replaces the waiting one: the first link stops working.
    first = link_in(mail.outbox[0])
    client.post(reverse("accounts:email_change"), {"email": "other@example.com", "password": PASSWORD}, **EN)
    assert client.post(first, **EN).status_code == 400
    assert client.post(link_in(mail.outbox[1]), **EN).status_code == 302
    user.refresh_from_db()
    assert user.email == "other@example.com"

    client.post(reverse("accounts:email_change"), {"email": "", "password": PASSWORD}, **EN)
    user.refresh_from_db()
    assert user.email == ""


def test_an_address_is_one_accounts_whatever_its_case_and_the_form_does_not_say_whose() -> None:
    make_user("owner", email="shared@example.com")
    taker = make_user("taker")
    client = signed_in(taker)
    response = client.post(
        reverse("accounts:email_change"), {"email": "SHARED@example.com", "password": PASSWORD}, **EN
    )
    assert response.status_code == 302  # answered as any other request
    [message] = mail.outbox
    assert "already belongs to another account" in message.body and "/accounts/password/reset/" in message.body
    assert LINK.search(str(message.body)) is None  # no confirmation link to follow

    with pytest.raises(IntegrityError), transaction.atomic():
        get_user_model().objects.filter(pk=taker.pk).update(email="Shared@Example.com")


def test_the_address_is_never_shown_to_other_players(client: Client) -> None:
    make_user("private", email="private@example.com")
    viewer = signed_in(make_user("viewer"))
    for url in ["/ratings/players/private/", "/api/players/private/stats/?variant=zhejiang_caishen"]:
        response = viewer.get(url)
        assert response.status_code == 200, url
        assert "private@example.com" not in response.content.decode(), url


def test_the_api_shows_and_changes_the_address() -> None:
    user = make_user("scripted", email="old@example.com")
    api = APIClient()
    api.force_authenticate(user)
    assert api.get("/api/account/").json()["email"] == "old@example.com"

    bad = api.post("/api/account/email/", {"email": "new@example.com", "password": "wrong"}, format="json")
    assert bad.status_code == 400 and "password" in bad.json()
    answer = api.post("/api/account/email/", {"email": "new@example.com", "password": PASSWORD}, format="json")
    assert answer.status_code == 200
    assert (answer.json()["email"], answer.json()["email_pending"]) == ("old@example.com", "new@example.com")
    assert mail.outbox[0].to == ["new@example.com"]


def test_mail_asked_for_one_address_is_limited(settings: Any) -> None:
    settings.CAISHEN_MAIL_ATTEMPTS = 2
    client = signed_in(make_user("eager"))
    codes = [
        client.post(reverse("accounts:email_change"), {"email": f"x{i}@example.com", "password": PASSWORD}).status_code
        for i in range(3)
    ]
    assert codes == [302, 302, 429]  # per account: two mails, then none
    assert len(mail.outbox) == 2
