"""Password reset by email: Django's views and tokens, the same answer for every address, limits
per address and per client, and a reset that revokes the API token and signs other browsers out."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client
from django.urls import reverse

from accounts import api_tokens

pytestmark = pytest.mark.django_db

PASSWORD = "a-long-test-password-1"
NEW_PASSWORD = "another-long-password-2"
EN: dict[str, Any] = {"HTTP_ACCEPT_LANGUAGE": "en"}
RESET = reverse("accounts:password_reset")


def reset_page(client: Client, email: str, **headers: Any) -> tuple[int, str]:
    response = client.post(RESET, {"email": email}, follow=True, **headers)
    html = re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", response.content.decode())
    return response.status_code, html


def test_a_reset_answers_alike_for_every_address_and_mails_only_an_account() -> None:
    get_user_model().objects.create_user("known", email="known@example.com", password=PASSWORD)
    known = reset_page(Client(), "KNOWN@example.com", **EN)
    unknown = reset_page(Client(), "nobody@example.com", **EN)
    assert known == unknown and known[0] == 200
    assert "If an account has this address" in known[1]
    [message] = mail.outbox
    assert message.to == ["known@example.com"] and message.subject == "Caishen: reset your password"


def test_the_mail_is_in_the_readers_language() -> None:
    get_user_model().objects.create_user("zhong", email="zhong@example.com", password=PASSWORD)
    reset_page(Client(), "zhong@example.com")  # no Accept-Language: Chinese, the site's default
    assert mail.outbox[0].subject == "财神：重置密码"


def test_following_the_link_sets_the_password_revokes_the_token_and_signs_others_out() -> None:
    user = get_user_model().objects.create_user("forgetful", email="f@example.com", password=PASSWORD)
    api_tokens.replace(user)
    elsewhere = Client()
    elsewhere.force_login(user)
    assert elsewhere.get(reverse("accounts:profile")).status_code == 200

    reset_page(Client(), "f@example.com", **EN)
    link = re.search(r"http://testserver(/accounts/password/reset/\S+/)", str(mail.outbox[0].body))
    assert link, mail.outbox[0].body
    browser = Client()
    form = browser.get(link.group(1), follow=True, **EN)  # Django moves the token into the session
    assert "Choose a new password" in form.content.decode()
    done = browser.post(
        form.redirect_chain[-1][0], {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD}, **EN
    )
    assert done.status_code == 302 and done["Location"] == reverse("accounts:password_reset_complete")

    assert api_tokens.current(user) is None
    assert elsewhere.get(reverse("accounts:profile")).status_code == 302  # signed out
    assert Client().login(username="forgetful", password=NEW_PASSWORD)
    used = Client().get(link.group(1), follow=True, **EN)
    assert "does not work any more" in used.content.decode()


def test_reset_requests_are_limited_per_address_whether_or_not_it_is_an_account(settings: Any) -> None:
    settings.CAISHEN_MAIL_ATTEMPTS = 2
    get_user_model().objects.create_user("target", email="target@example.com", password=PASSWORD)
    for email in ["target@example.com", "nobody@example.com"]:
        codes = [Client(REMOTE_ADDR=f"10.0.0.{i}").post(RESET, {"email": email}).status_code for i in range(3)]
        assert codes == [302, 302, 429], email
    assert len(mail.outbox) == 2


def test_reset_requests_are_limited_per_client_address(settings: Any) -> None:
    settings.CAISHEN_MAIL_ADDRESS_ATTEMPTS = 2
    client = Client(REMOTE_ADDR="10.1.0.1")
    codes = [client.post(RESET, {"email": f"n{i}@example.com"}).status_code for i in range(3)]
    assert codes == [302, 302, 429]
    refused = reset_page(client, "n9@example.com", **EN)
    assert refused[0] == 429 and "Too many emails were asked for" in refused[1]
