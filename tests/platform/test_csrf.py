"""CSRF on every state-changing request.

Every HTML form POST is refused (403, a CSRF refusal logged by Django) without the token and
does nothing, and is taken with the token from the rendered form (or the cookie, for the seat
actions the table page drives from JavaScript).  The session-authenticated REST API refuses
unsafe methods without the ``X-CSRFToken`` header.  The URL resolver is walked, so a new view
that is CSRF-exempt, or a new POST-accepting view without a case here, fails these tests.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from io import StringIO
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.contrib.auth import get_user_model
from django.contrib.auth.tokens import default_token_generator
from django.core import mail, signing
from django.core.management import call_command
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from django_otp import DEVICE_ID_SESSION_KEY
from django_otp.oath import TOTP
from django_otp.plugins.otp_totp.models import TOTPDevice
from rest_framework.authentication import SessionAuthentication, TokenAuthentication
from rest_framework.views import APIView

from accounts import email_address, second_factor
from accounts import services as accounts
from accounts.models import ApiToken, Hold, HoldChange, Profile, Wallet
from games import services
from games.models import Seat, Table
from games.services.access import ROOM_CODES_SESSION_KEY
from tournaments import services as tournaments
from tournaments.models import CheckIn, Registration, Tournament

pytestmark = pytest.mark.django_db

PASSWORD = "pw-csrf-123456"
UNSAFE = ("post", "put", "patch", "delete")


# ------------------------------------------------------------------------------ plumbing
class CsrfLog(logging.Handler):
    """Django logs every CSRF refusal on django.security.csrf: it tells them from other 403s."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.paths: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.paths.append(str(record.args[1]) if isinstance(record.args, tuple) else record.getMessage())


@pytest.fixture
def refusals() -> Iterator[CsrfLog]:
    handler = CsrfLog()
    logger = logging.getLogger("django.security.csrf")
    logger.addHandler(handler)
    yield handler
    logger.removeHandler(handler)


@dataclass
class Form:
    action: str
    method: str
    fields: list[tuple[str, str]] = field(default_factory=list)


class Forms(HTMLParser):
    """The forms of a page with what a browser would submit by default (no button pressed)."""

    def __init__(self) -> None:
        super().__init__()
        self.forms: list[Form] = []
        self._select: str | None = None
        self._select_value: str | None = None
        self._textarea: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "form":
            self.forms.append(Form(a.get("action", ""), a.get("method", "get").lower()))
        elif not self.forms:
            return
        elif tag == "input" and a.get("name"):
            kind = a.get("type", "text")
            if kind in ("submit", "button", "image", "reset") or (kind in ("checkbox", "radio") and "checked" not in a):
                return
            self.forms[-1].fields.append((a["name"], a.get("value", "on" if kind == "checkbox" else "")))
        elif tag == "select":
            self._select, self._select_value = a.get("name"), None
        elif tag == "option" and self._select is not None:
            if self._select_value is None or "selected" in a:
                self._select_value = a.get("value", "")
        elif tag == "textarea":
            self._textarea = a.get("name")
            self.forms[-1].fields.append((a.get("name", ""), ""))

    def handle_data(self, data: str) -> None:
        if self._textarea is not None and self.forms:
            name, value = self.forms[-1].fields[-1]
            self.forms[-1].fields[-1] = (name, value + data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "select" and self._select is not None and self.forms:
            self.forms[-1].fields.append((self._select, self._select_value or ""))
            self._select = None
        elif tag == "textarea":
            self._textarea = None


def form_for(html: str, page: str, target: str) -> Form | None:
    parser = Forms()
    parser.feed(html)
    for form in parser.forms:
        if form.method == "post" and (form.action or page.split("?")[0]) == target:
            return form
    return None


def walk(resolver: URLResolver | None = None, namespace: str = "") -> Iterator[tuple[str, URLPattern]]:
    """Every named URL pattern of the project, with its namespaced name."""
    for p in (resolver or get_resolver()).url_patterns:
        if isinstance(p, URLResolver):
            inner = ":".join(n for n in (namespace, p.namespace or "") if n)
            yield from walk(p, inner)
        elif p.name:
            yield ":".join(n for n in (namespace, p.name) if n), p


def is_api(p: URLPattern) -> bool:
    return isinstance(getattr(p.callback, "cls", None), type) and issubclass(p.callback.cls, APIView)


# --------------------------------------------------------------------------------- world
@dataclass
class World:
    player: Any
    staff: Any
    other: Any
    table: Table  # waiting, the other's, free chairs
    mine: Table  # the player's own waiting table
    private: Table
    event: Tournament  # registration open, the staff member organises
    own_event: Tournament  # registration open, the player organises

    def kwargs(self, name: str, p: URLPattern) -> dict[str, Any]:
        """Real objects for a URL's arguments (a stranger's id would 404 before the method check)."""
        out: dict[str, Any] = {}
        for key in getattr(p.pattern, "converters", {}):
            if key == "key":
                out[key] = "zhejiang_caishen"
            elif key == "user_id":
                out[key] = self.player.pk
            elif key == "hold_id":
                out[key] = self.player_hold().pk
            elif name.startswith(("tournaments", "tournaments_api")):
                out[key] = self.event.pk
            elif "hand" in name:
                out[key] = 999_999
            else:
                out[key] = self.table.pk
        return out

    def player_hold(self) -> Hold:
        """An active hold of the player's wallet (a running match's stake), the same one each call."""
        accounts.take_holds("table:csrf", {Wallet.objects.get(user=self.player).pk: 5})
        return Hold.objects.get(wallet__user=self.player, reference="table:csrf", released_at__isnull=True)


@pytest.fixture
def world(settings: Any) -> World:
    settings.CAISHEN_SIT_MULTIPLE = 1
    User = get_user_model()
    player = User.objects.create_user("player", password=PASSWORD)
    staff = User.objects.create_user("staffer", password=PASSWORD, is_staff=True)
    other = User.objects.create_user("other", password=PASSWORD)
    event = tournaments.create_tournament(staff, "Spring Cup", "zhejiang_caishen")
    tournaments.open_registration(event.pk, staff)
    own = tournaments.create_tournament(player, "Player Cup", "zhejiang_caishen")
    tournaments.open_registration(own.pk, player)
    return World(
        player=player,
        staff=staff,
        other=other,
        table=services.create_table(other, "zhejiang_caishen", {}),
        mine=services.create_table(player, "zhejiang_caishen", {}),
        private=services.create_table(other, "zhejiang_caishen", {}, is_private=True),
        event=event,
        own_event=own,
    )


# ----------------------------------------------------------------------- the HTML forms
@dataclass
class Case:
    who: str  # "anonymous", "player" or "staff"
    page: str  # where the browser got the form (and the csrftoken cookie)
    target: str
    data: dict[str, str]  # what the user typed over the form's defaults
    done: Callable[[Client], bool]  # the POST took effect
    has_form: bool = True  # False: the page posts it from JavaScript with the cookie's token
    setup: Callable[[], Any] = lambda: None


def seated(w: World, table: Table) -> bool:
    return Seat.objects.filter(table=table, user=w.player).exists()


def registration(w: World) -> str | None:
    reg = Registration.objects.filter(tournament=w.event, user=w.player).first()
    return reg.status if reg else None


def check_in_open(w: World) -> None:
    """The player registered for the staff's event, whose check-in for round 1 is open."""
    tournaments.register(w.event.pk, w.player)
    Tournament.objects.filter(pk=w.event.pk).update(status=Tournament.CLOSED, check_in=True, check_in_opened_for=1)


def round_running(w: World) -> None:
    """The staff's event with round 1 under way at one table."""
    User = get_user_model()
    for user in [w.player, w.other, *(User.objects.create_user(f"entrant{i}", password=PASSWORD) for i in range(2))]:
        tournaments.register(w.event.pk, user)
    tournaments.close_registration(w.event.pk, w.staff)
    tournaments.start_round(w.event.pk, w.staff)


def form_cases(w: World) -> dict[str, Case]:
    """Every state-changing HTML form of the project, by URL name."""
    table_page = reverse("games:table", args=[w.table.pk])
    event_page = reverse("tournaments:detail", args=[w.event.pk])
    own_page = reverse("tournaments:detail", args=[w.own_event.pk])
    User = get_user_model()
    return {
        "accounts:signup": Case(
            "anonymous",
            reverse("accounts:signup"),
            reverse("accounts:signup"),
            {
                "username": "newbie",
                "display_name": "Newbie",
                "password1": "Str0ng-pass-9123",
                "password2": "Str0ng-pass-9123",
            },
            lambda c: User.objects.filter(username="newbie").exists(),
        ),
        "accounts:login": Case(
            "anonymous",
            reverse("accounts:login"),
            reverse("accounts:login"),
            {"username": "player", "password": PASSWORD},
            lambda c: c.session.get("_auth_user_id") == str(w.player.pk),
        ),
        "accounts:logout": Case(
            "player", "/", reverse("accounts:logout"), {}, lambda c: "_auth_user_id" not in c.session
        ),
        "accounts:password_change": Case(
            "player",
            reverse("accounts:password_change"),
            reverse("accounts:password_change"),
            {"old_password": PASSWORD, "new_password1": "N3w-pass-word-77", "new_password2": "N3w-pass-word-77"},
            lambda c: User.objects.get(pk=w.player.pk).check_password("N3w-pass-word-77"),
        ),
        "accounts:profile": Case(
            "player",
            reverse("accounts:profile"),
            reverse("accounts:profile"),
            {"display_name": "Renamed"},
            lambda c: Profile.objects.get(user=w.player).display_name == "Renamed",
        ),
        "accounts:staff_adjust": Case(
            "staff",
            reverse("accounts:staff_adjust", args=[w.player.pk]),
            reverse("accounts:staff_adjust", args=[w.player.pk]),
            {"direction": "credit", "amount": "7", "note": "goodwill"},
            lambda c: Wallet.objects.get(user=w.player).balance == 1007,
        ),
        "accounts:staff_hold_change": Case(
            "staff",
            reverse("accounts:staff_adjust", args=[w.player.pk]),
            reverse("accounts:staff_hold_change", args=[w.player.pk, w.player_hold().pk]),
            {f"hold-{w.player_hold().pk}-note": "released: the match was void"},
            lambda c: HoldChange.objects.filter(hold__wallet__user=w.player, released=True).exists(),
        ),
        "accounts:api_token": Case(
            "player",
            reverse("accounts:profile"),
            reverse("accounts:api_token"),
            {},
            lambda c: ApiToken.objects.filter(user=w.player).exists(),
        ),
        "set_language": Case(
            "player",
            "/",
            reverse("set_language"),
            {"language": "en"},
            lambda c: (
                c.cookies.get(django_settings.LANGUAGE_COOKIE_NAME) is not None
                and c.cookies[django_settings.LANGUAGE_COOKIE_NAME].value == "en"
            ),
        ),
        "games:create": Case(
            "player",
            reverse("games:create") + "?variant=zhejiang_caishen",
            reverse("games:create"),
            {"stake": "3"},
            lambda c: Table.objects.filter(owner=w.player, stake=3).exists(),
        ),
        "games:join": Case(
            "player",
            reverse("games:lobby"),
            reverse("games:join"),
            {"room_code": w.private.room_code},
            lambda c: w.private.room_code in c.session.get(ROOM_CODES_SESSION_KEY, []),
        ),
        "games:sit": Case(
            "player",
            reverse("games:lobby"),  # the lobby's rows carry a Sit form per table
            reverse("games:sit", args=[w.table.pk]),
            {},
            lambda c: seated(w, w.table),
        ),
        "games:stand": Case(
            "player",
            table_page,
            reverse("games:stand", args=[w.table.pk]),
            {},
            lambda c: not seated(w, w.table),
            has_form=False,
            setup=lambda: services.sit(w.table.pk, w.player),
        ),
        "games:ready": Case(
            "player",
            table_page,
            reverse("games:ready", args=[w.table.pk]),
            {},
            lambda c: Seat.objects.get(table=w.table, user=w.player).ready,
            has_form=False,
            setup=lambda: services.sit(w.table.pk, w.player),
        ),
        "games:bots": Case(
            "player",
            reverse("games:table", args=[w.mine.pk]),
            reverse("games:bots", args=[w.mine.pk]),
            {},
            lambda c: Seat.objects.filter(table=w.mine, is_bot=True).count() == 3,
            has_form=False,
            setup=lambda: services.sit(w.mine.pk, w.player),
        ),
        "tournaments:create": Case(
            "player",
            reverse("tournaments:create"),
            reverse("tournaments:create"),
            {"name": "Autumn Cup"},
            lambda c: Tournament.objects.filter(name="Autumn Cup", organiser=w.player).exists(),
        ),
        "tournaments:register": Case(
            "player",
            event_page,
            reverse("tournaments:register", args=[w.event.pk]),
            {},
            lambda c: registration(w) == Registration.REGISTERED,
        ),
        "tournaments:withdraw": Case(
            "player",
            event_page,
            reverse("tournaments:withdraw", args=[w.event.pk]),
            {},
            lambda c: registration(w) == Registration.WITHDRAWN,
            setup=lambda: tournaments.register(w.event.pk, w.player),
        ),
        "tournaments:manage": Case(
            "player",
            own_page,
            reverse("tournaments:manage", args=[w.own_event.pk]),
            {"do": "close"},  # the button the organiser pressed
            lambda c: Tournament.objects.get(pk=w.own_event.pk).status == Tournament.CLOSED,
        ),
        "tournaments:check_in": Case(
            "player",
            event_page,
            reverse("tournaments:check_in", args=[w.event.pk]),
            {},
            lambda c: CheckIn.objects.filter(tournament=w.event, user=w.player).exists(),
            setup=lambda: check_in_open(w),
        ),
        "tournaments:round_act": Case(
            "staff",  # the event's organiser
            reverse("tournaments:round", args=[w.event.pk]),
            reverse("tournaments:round_act", args=[w.event.pk]),
            {"do": "abort", "table": "1"},
            lambda c: Table.objects.filter(tournament_table__round__tournament=w.event, status=Table.ABORTED).exists(),
            setup=lambda: round_running(w),
        ),
        "accounts:second_factor_setup": Case(
            "staff",
            reverse("accounts:second_factor_setup"),
            reverse("accounts:second_factor_setup"),
            {"token": totp_code(second_factor.pending_device(w.staff))},  # the page shows this device's key
            lambda c: TOTPDevice.objects.filter(user=w.staff, confirmed=True).exists(),
        ),
        "accounts:second_factor_verify": Case(
            "player",  # any user with an authenticator app; the player is not staff, so no other case changes
            reverse("accounts:second_factor_verify"),
            reverse("accounts:second_factor_verify"),
            {"token": totp_code(TOTPDevice.objects.get_or_create(user=w.player, name="phone", confirmed=True)[0])},
            lambda c: DEVICE_ID_SESSION_KEY in c.session,
        ),
    }


def account_cases(w: World) -> dict[str, Case]:
    """The account's own forms: its email address, password reset, closing it."""
    User = get_user_model()
    profile = reverse("accounts:profile")
    reset_page = reverse("accounts:password_reset")
    uid = urlsafe_base64_encode(force_bytes(w.player.pk))
    # The mailed link stores its token in the session and moves on to this page (Django's view).
    set_password = reverse("accounts:password_reset_confirm", kwargs={"uidb64": uid, "token": "set-password"})
    link = reverse(
        "accounts:password_reset_confirm", kwargs={"uidb64": uid, "token": default_token_generator.make_token(w.player)}
    )
    confirm = reverse(
        "accounts:email_confirm",
        args=[signing.dumps({"u": w.player.pk, "e": "new@example.com"}, salt=email_address.SALT, compress=True)],
    )

    def with_address() -> None:
        User.objects.filter(pk=w.player.pk).update(email="player@example.com")

    def pending() -> None:
        Profile.objects.filter(user=w.player).update(pending_email="new@example.com")

    def no_event_under_way() -> None:
        Tournament.objects.filter(pk=w.own_event.pk).update(status=Tournament.FINISHED)

    return {
        "accounts:password_reset": Case(
            "anonymous",
            reset_page,
            reset_page,
            {"email": "player@example.com"},
            lambda c: len(mail.outbox) == 1,
            setup=with_address,
        ),
        "accounts:password_reset_confirm": Case(
            "anonymous",
            link,
            set_password,
            {"new_password1": "Re5et-pass-word-88", "new_password2": "Re5et-pass-word-88"},
            lambda c: User.objects.get(pk=w.player.pk).check_password("Re5et-pass-word-88"),
        ),
        "accounts:email_change": Case(
            "player",
            profile,
            reverse("accounts:email_change"),
            {"email": "new@example.com", "password": PASSWORD},
            lambda c: Profile.objects.get(user=w.player).pending_email == "new@example.com",
        ),
        "accounts:email_confirm": Case(
            "player",
            confirm,
            confirm,
            {},
            lambda c: User.objects.get(pk=w.player.pk).email == "new@example.com",
            setup=pending,
        ),
        "games:quick_play": Case(
            "player",
            "/",
            reverse("games:quick_play"),
            {"bots": "1"},  # the button pressed (the parser submits none)
            lambda c: Table.objects.filter(quick_play=True, seats__user=w.player).exists(),
        ),
        "accounts:close": Case(
            "player",
            profile,
            reverse("accounts:close"),
            {"password": PASSWORD},
            lambda c: not User.objects.get(pk=w.player.pk).is_active,
            setup=no_event_under_way,
        ),
    }


def totp_code(device: TOTPDevice) -> str:
    return f"{TOTP(device.bin_key, device.step, device.t0, device.digits, device.drift).token():06d}"


# Views that answer a POST (no 405) but change nothing: each is checked against a database dump.
READ_ONLY = {
    "games:home",
    "games:rules",
    "games:rule",
    "games:lobby",
    "games:table",
    "games:hand_replay",
    "tournaments:index",
    "tournaments:detail",
    "tournaments:standings_csv",
    "tournaments:results_csv",
    "tournaments:standings_json",
}
CASE_NAMES = [
    "accounts:signup",
    "accounts:login",
    "accounts:logout",
    "accounts:password_change",
    "accounts:profile",
    "accounts:staff_adjust",
    "accounts:staff_hold_change",
    "accounts:api_token",
    "set_language",
    "games:create",
    "games:quick_play",
    "games:join",
    "games:sit",
    "games:stand",
    "games:ready",
    "games:bots",
    "tournaments:create",
    "tournaments:register",
    "tournaments:withdraw",
    "tournaments:manage",
    "tournaments:check_in",
    "tournaments:round_act",
    "accounts:second_factor_setup",
    "accounts:second_factor_verify",
    "accounts:password_reset",
    "accounts:password_reset_confirm",
    "accounts:email_change",
    "accounts:email_confirm",
    "accounts:close",
]


def signed_in(w: World, who: str) -> Client:
    client = Client(enforce_csrf_checks=True)
    if who != "anonymous":
        client.force_login(w.staff if who == "staff" else w.player)
    return client


@pytest.mark.parametrize("name", CASE_NAMES)
def test_a_form_post_needs_the_token(name: str, world: World, refusals: CsrfLog) -> None:
    case = (form_cases(world) | account_cases(world))[name]
    case.setup()
    client = signed_in(world, case.who)
    page = client.get(case.page, follow=True)  # (a password reset link moves on to its form)
    assert page.status_code == 200, (case.page, page.status_code)
    landed = page.redirect_chain[-1][0] if page.redirect_chain else case.page
    form = form_for(page.content.decode(), landed, case.target)
    if case.has_form:
        assert form is not None, f"{case.page} has no POST form for {case.target}"
        fields = dict(form.fields)
        token = fields.pop("csrfmiddlewaretoken", None)
        assert token, "the rendered form carries no CSRF token"
    else:
        fields, token = {}, client.cookies["csrftoken"].value  # as static/js/net.js reads it
    data = {**fields, **case.data}

    # A forged POST: the browser sends the cookie, but the attacker cannot know the token.
    forged = client.post(case.target, data)
    assert forged.status_code == 403
    assert refusals.paths == [case.target], "not refused by the CSRF check"
    assert not case.done(client), "a refused POST took effect"

    real = client.post(case.target, {**data, "csrfmiddlewaretoken": token})
    assert real.status_code != 403
    assert refusals.paths == [case.target], "the real POST was refused"
    assert case.done(client), f"the POST did not take effect ({real.status_code})"


def test_every_post_accepting_view_has_a_case(world: World) -> None:
    """A new view that answers POST must get a case above (or be shown to change nothing)."""
    client = Client()  # no CSRF checks: this only asks which views take a POST at all
    untested = []
    for name, p in walk():
        if name.startswith("admin:") or is_api(p):
            continue  # the admin is Django's own (see the structural test); the API has its own test
        client.force_login(world.staff)  # again: logout may have run
        path = reverse(name, kwargs=world.kwargs(name, p))
        before = dump() if name in READ_ONLY else ""
        status = client.post(path, {}).status_code
        if status == 405:
            continue
        if name in READ_ONLY:
            assert dump() == before, f"{name} changed the database on POST"
        elif name not in CASE_NAMES:
            untested.append(f"{name} ({path} answered {status})")
    assert untested == []
    assert set(CASE_NAMES) <= {name for name, _ in walk()}  # no stale case names


def dump() -> str:
    out = StringIO()
    call_command("dumpdata", "accounts", "games", "tournaments", "auth.user", stdout=out)
    return out.getvalue()


def test_every_url_refuses_a_post_without_the_token(world: World, refusals: CsrfLog) -> None:
    """Whatever the view, a signed-in POST without the token stops at the CSRF check."""
    client = signed_in(world, "staff")
    client.get("/")  # the csrftoken cookie is set: only the token in the request is missing
    checked = 0
    for name, p in walk():
        if name.startswith("admin:") and p.pattern.regex.groups:
            continue  # admin URLs with regex arguments: covered by the structural test
        path = reverse(name, kwargs=world.kwargs(name, p))
        methods = [m for m in UNSAFE if hasattr(p.callback.cls, m)] if is_api(p) else ["post"]
        for method in methods or ["post"]:
            refusals.paths.clear()
            response = getattr(client, method)(path, data="{}", content_type="application/json")
            assert response.status_code == 403, (name, method, response.status_code)
            if is_api(p):  # DRF's own check answers with its reason (in any renderer) and logs nothing
                assert "CSRF Failed" in str(response.data["detail"]), (name, method, response.content)
            else:
                assert refusals.paths == [path], (name, method, "a 403, but not from the CSRF check")
            checked += 1
    assert checked > 60


def test_nothing_is_csrf_exempt_except_the_session_checked_api() -> None:
    assert "django.middleware.csrf.CsrfViewMiddleware" in django_settings.MIDDLEWARE
    for name, p in walk():
        if not getattr(p.callback, "csrf_exempt", False):
            continue
        # DRF exempts its views from the middleware and checks CSRF itself in SessionAuthentication.
        assert is_api(p), f"{name} is csrf_exempt"
        view = p.callback.cls()
        for auth in view.get_authenticators():
            # A token header is never sent by a browser on its own: no CSRF to check there.
            if isinstance(auth, TokenAuthentication):
                continue
            assert isinstance(auth, SessionAuthentication), (name, auth)
            assert type(auth).enforce_csrf is SessionAuthentication.enforce_csrf, (name, "CSRF check overridden")


# ----------------------------------------------------------------------------- the API
def test_the_api_refuses_unsafe_methods_without_the_token(world: World) -> None:
    """Each unsafe method of each API view: refused without the header, past the check with it."""
    client = signed_in(world, "staff")
    client.get("/")
    token = client.cookies["csrftoken"].value
    checked = 0
    for name, p in walk():
        if not is_api(p):
            continue
        path = reverse(name, kwargs=world.kwargs(name, p))
        for method in (m for m in UNSAFE if hasattr(p.callback.cls, m)):
            send = getattr(client, method)
            forged = send(path, data="{}", content_type="application/json")
            assert forged.status_code == 403 and "CSRF Failed" in forged.json()["detail"], (name, method)
            real = send(path, data="{}", content_type="application/json", HTTP_X_CSRFTOKEN=token)
            assert real.status_code != 403 or "CSRF" not in real.content.decode(), (name, method, real.content)
            checked += 1
    assert checked >= 14  # post/put/patch across accounts, games and tournaments


def test_api_writes_take_effect_only_with_the_token(world: World) -> None:
    client = signed_in(world, "player")
    client.get("/")
    token = client.cookies["csrftoken"].value
    sit = reverse("games_api:sit", args=[world.table.pk])
    account = reverse("account_api:account")
    register = reverse("tournaments_api:register", args=[world.event.pk])
    body = json.dumps({"display_name": "Api Name"})

    assert client.post(sit, {}, content_type="application/json").status_code == 403
    assert client.patch(account, body, content_type="application/json").status_code == 403
    assert client.post(register, {}, content_type="application/json").status_code == 403
    assert not seated(world, world.table)
    assert Profile.objects.get(user=world.player).display_name != "Api Name"
    assert registration(world) is None

    assert client.post(sit, {}, content_type="application/json", HTTP_X_CSRFTOKEN=token).status_code == 200
    assert client.patch(account, body, content_type="application/json", HTTP_X_CSRFTOKEN=token).status_code == 200
    assert client.post(register, {}, content_type="application/json", HTTP_X_CSRFTOKEN=token).status_code in (200, 201)
    assert seated(world, world.table)
    assert Profile.objects.get(user=world.player).display_name == "Api Name"
    assert registration(world) == Registration.REGISTERED
