"""Chinese by default, English on request; the header's switch and the profile set the language."""

import ast
import gettext
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

PASSWORD = "a-long-test-password-1"
LOCALE = Path(__file__).resolve().parents[2] / "locale" / "zh_Hans" / "LC_MESSAGES"


@pytest.mark.django_db
def test_chinese_is_the_default(client):
    html = client.get(reverse("accounts:login")).content.decode()

    assert '<html lang="zh-Hans">' in html
    assert "登录" in html
    assert "Sign in" not in html


@pytest.mark.django_db
def test_the_browser_language_is_honoured(client):
    html = client.get(reverse("accounts:login"), HTTP_ACCEPT_LANGUAGE="en-US,en;q=0.9").content.decode()

    assert '<html lang="en">' in html
    assert "Sign in" in html


@pytest.mark.django_db
def test_language_switch_changes_a_rendered_string(client):
    page = reverse("accounts:signup")
    assert "创建账户" in client.get(page).content.decode()

    response = client.post(reverse("set_language"), {"language": "en", "next": page})

    assert response.status_code == 302
    assert response["Location"] == page
    html = client.get(page).content.decode()
    assert "Create an account" in html
    assert "创建账户" not in html

    client.post(reverse("set_language"), {"language": "zh-hans", "next": page})
    assert "创建账户" in client.get(page).content.decode()


@pytest.mark.django_db
def test_the_base_template_offers_the_switch(client):
    html = client.get("/").content.decode()

    assert f'action="{reverse("set_language")}"' in html
    assert 'name="language" value="en"' in html
    assert 'name="language" value="zh-hans"' in html
    assert "English" in html and "简体中文" in html


@pytest.mark.django_db
def test_saving_the_profile_language_switches_the_site(client):
    user = get_user_model().objects.create_user("polyglot", password=PASSWORD)
    client.force_login(user)
    assert "个人资料" in client.get(reverse("accounts:profile")).content.decode()

    client.post(reverse("accounts:profile"), {"display_name": "", "language": "en"})

    html = client.get(reverse("accounts:profile")).content.decode()
    assert "Profile" in html and "个人资料" not in html


@pytest.mark.django_db
def test_signing_in_applies_the_profile_language(client):
    user = get_user_model().objects.create_user("english", password=PASSWORD)
    user.profile.language = "en"
    user.profile.language_chosen = True
    user.profile.save()

    response = client.post(reverse("accounts:login"), {"username": "english", "password": PASSWORD})

    assert response.cookies["django_language"].value == "en"
    assert "Wallet" in client.get(reverse("accounts:wallet")).content.decode()


@pytest.mark.django_db
def test_the_header_switch_is_kept_on_the_account(client):
    """Signed in, the header's switch saves the choice: signing in again (another browser,
    reading Chinese) brings it back instead of flipping the language."""
    user = get_user_model().objects.create_user("switcher", password=PASSWORD)
    client.force_login(user)
    client.post(reverse("set_language"), {"language": "en", "next": "/"})
    user.profile.refresh_from_db()
    assert (user.profile.language, user.profile.language_chosen) == ("en", True)

    other = Client()
    response = other.post(reverse("accounts:login"), {"username": "switcher", "password": PASSWORD})
    assert response.cookies["django_language"].value == "en"


@pytest.mark.django_db
def test_an_account_never_asked_adopts_the_visitors_language(client):
    """An account made outside the sign-up form (the demo, the admin) has chosen nothing: its
    first sign-in keeps the language the visitor was reading rather than the default."""
    get_user_model().objects.create_user("fresh", password=PASSWORD)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    response = client.post(reverse("accounts:login"), {"username": "fresh", "password": PASSWORD})
    assert response.cookies["django_language"].value == "en"
    profile = get_user_model().objects.get(username="fresh").profile
    assert (profile.language, profile.language_chosen) == ("en", True)


@pytest.mark.django_db
def test_ledger_reasons_and_admin_labels_are_translated(client):
    user = get_user_model().objects.create_user("ledger", password=PASSWORD)
    client.force_login(user)

    html = client.get(reverse("accounts:wallet")).content.decode()

    assert "初始赠送" in html  # the "starting grant" reason
    assert "钱包" in html


def read_po(path):
    """msgid (with context and plural as gettext keys them) -> msgstr, for the non-fuzzy entries."""
    entries, current, field, fuzzy = {}, {}, None, False

    def flush():
        nonlocal current, fuzzy
        if "msgid" in current and current["msgid"] and not fuzzy:
            key = current["msgid"]
            if "msgctxt" in current:
                key = f"{current['msgctxt']}\x04{key}"
            if "msgid_plural" in current:
                for name, value in current.items():
                    if name.startswith("msgstr["):
                        entries[(key, int(name[7:-1]))] = value
            else:
                entries[key] = current.get("msgstr", "")
        current, fuzzy = {}, False

    for line in path.read_text(encoding="utf-8").splitlines() + [""]:
        line = line.strip()
        if not line:
            flush()
        elif line.startswith("#,") and "fuzzy" in line:
            fuzzy = True
        elif line.startswith("#"):
            continue
        elif line.startswith('"'):
            current[field] += ast.literal_eval(line)
        else:
            field, _, value = line.partition(" ")
            current[field] = ast.literal_eval(value)
    return entries


def test_the_committed_catalogue_is_complete_and_compiled():
    po = read_po(LOCALE / "django.po")
    with (LOCALE / "django.mo").open("rb") as handle:
        compiled = gettext.GNUTranslations(handle)._catalog

    assert len(po) > 50
    untranslated = [key for key, value in po.items() if not value]
    assert not untranslated, f"django.po has untranslated messages: {untranslated}"
    stale = [key for key, value in po.items() if compiled.get(key) != value]
    assert not stale, f"django.mo is older than django.po (run compilemessages): {stale}"
