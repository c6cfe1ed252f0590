"""Django settings for Caishen, driven by environment variables.

With no environment at all this gives the embedded mode (docs/operations.md): one daphne process,
SQLite in WAL mode under var/, the in-memory channel layer.  The scaled mode changes only
environment variables (DATABASE_URL, REDIS_URL, ...).
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from core.client_address import check_configuration as check_client_address_configuration
from core.config import CaishenConfig
from core.email_config import EmailSettings
from mahjong_platform.content_security import content_security_policy

# Every CAISHEN_* variable, read here once (core/config.py has each default, its
# bounds and meaning).  The values read at run time are also flat settings below ("Caishen").
CAISHEN = CaishenConfig.from_environment(os.environ)

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(CAISHEN.var_dir) if CAISHEN.var_dir else BASE_DIR / "var"


def env_bool(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None or value.strip() == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


def env_int(name: str, default: int, minimum: int | None = None) -> int:
    value = os.environ.get(name, "").strip()
    if not value:
        return default
    try:
        number = int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be an integer, not {value!r}") from None
    if minimum is not None and number < minimum:
        raise ImproperlyConfigured(f"{name} must be at least {minimum}, not {number}")
    return number


# WARNING: the fallback key is public (it is in the repository).  It exists so that tests and
# `manage.py` work out of the box; any deployment must set DJANGO_SECRET_KEY.  scripts/run.sh
# generates a private key under var/ for the embedded mode.
DEV_SECRET_KEY = "django-insecure-caishen-dev-only-do-not-deploy"
SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY") or DEV_SECRET_KEY

DEBUG = env_bool("DJANGO_DEBUG", default=False)

ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]")
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS")

INSTALLED_APPS = [
    # daphne first: it replaces `runserver` with an ASGI server.
    "daphne",
    # django.contrib.admin with our site: sign-in limits and staff's second factor (accounts/admin_site.py).
    "accounts.admin_config.StaffAdminConfig",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "rest_framework",
    # Only for its table and migrations: the keys it held in clear became digests (migration
    # accounts 0009; accounts/api_tokens.py, docs/api.md) and nothing writes it any more.
    "rest_framework.authtoken",
    "drf_spectacular",
    # Swagger UI's files, served from our own static files: /api/docs/ needs no CDN.
    "drf_spectacular_sidecar",
    # Staff's second factor: TOTP authenticator apps (accounts/second_factor.py).
    "django_otp",
    "django_otp.plugins.otp_totp",
    "accounts",
    "games",
    "tournaments",
    "ratings",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Content-Security-Policy on every response (mahjong_platform/content_security.py).
    "mahjong_platform.content_security.ContentSecurityPolicyMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # After sessions, before CommonMiddleware: picks the language from the cookie that
    # set_language and the profile page write, else from Accept-Language.
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # request.user.is_verified(): whether this session gave a code from staff's authenticator app.
    "django_otp.middleware.OTPMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

CONTENT_SECURITY_POLICY = content_security_policy()

ROOT_URLCONF = "mahjong_platform.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "tournaments.context_processors.tournament_seat",
            ],
        },
    },
]

WSGI_APPLICATION = "mahjong_platform.wsgi.application"
ASGI_APPLICATION = "mahjong_platform.asgi.application"

# --- Database -----------------------------------------------------------------------------------
# DATABASE_URL (e.g. postgres://user:pass@host:5432/caishen); default: embedded SQLite file.

DEFAULT_SQLITE_PATH = VAR_DIR / "db.sqlite3"
DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{DEFAULT_SQLITE_PATH}",
        # Persistent connections: Channels runs a process's database work on one thread, so this
        # is one connection per process, health-checked before reuse (docs/performance.md).
        conn_max_age=int(os.environ.get("DJANGO_CONN_MAX_AGE", "60")),
        conn_health_checks=True,
    )
}

if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    _sqlite_name = str(DATABASES["default"]["NAME"])
    if _sqlite_name and _sqlite_name != ":memory:" and not _sqlite_name.startswith("file:"):
        Path(_sqlite_name).parent.mkdir(parents=True, exist_ok=True)
    _sqlite_options = DATABASES["default"].setdefault("OPTIONS", {})
    # WAL lets readers proceed while the single writer commits.  IMMEDIATE makes every atomic()
    # block take the write lock up front (BEGIN IMMEDIATE), so the table service's
    # lock-apply-save sequence cannot deadlock on a read-to-write upgrade; `timeout` is how
    # long a writer waits for the lock before "database is locked".
    _sqlite_options.setdefault("init_command", "PRAGMA journal_mode=WAL;PRAGMA synchronous=NORMAL")
    _sqlite_options.setdefault("transaction_mode", "IMMEDIATE")
    _sqlite_options.setdefault("timeout", 20)

elif DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql" and env_bool("DJANGO_DB_SERVER_SIDE_BINDING"):
    # Parameters sent apart from the SQL, and statements run five times prepared on the server
    # (psycopg's prepare_threshold; Django disables it unless set): PostgreSQL stops parsing and
    # planning the step's same few statements again and again — 33 → 22 % of a core at 200
    # tables (docs/performance.md).  Off by default: Django documents queries that server-side
    # binding refuses, and prepared statements need session pooling if a pooler is in front.
    DATABASES["default"].setdefault("OPTIONS", {}).update(server_side_binding=True, prepare_threshold=5)

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Channels -----------------------------------------------------------------------------------
# Embedded: the in-memory layer (one process only).  Scaled: set REDIS_URL; this needs the
# `channels-redis` package, which arrives with the scaled-mode work.

REDIS_URL = os.environ.get("REDIS_URL", "").strip()
if REDIS_URL:
    if importlib.util.find_spec("channels_redis") is None:
        raise ImproperlyConfigured("REDIS_URL is set but the channels-redis package is not installed")
    # CAISHEN_CHANNEL_LAYER: "pubsub" (default) is channels-redis's RedisPubSubChannelLayer — one
    # PUBLISH per group, pushed to the processes that subscribed, no queue: a frame sent while a
    # process reconnects to Redis is lost (the client sees the seq gap and catches up).  At 100
    # tables it took daphne from 82 to 53 % of a core and p99 from 265 to 41 ms against "core"
    # (docs/performance.md, "The scaled mode"), so it is the default.
    # "core" is RedisChannelLayer — a queue per socket in Redis, bounded by capacity and expiry.
    # Frame order per socket is safe on either: a v2 delta applies only on its base, so a frame
    # that overtakes the one before is held back by the client until the gap is caught up.
    CHANNEL_LAYER_KIND = CAISHEN.channel_layer
    if CHANNEL_LAYER_KIND == "core":
        CHANNEL_LAYERS = {
            "default": {
                "BACKEND": "channels_redis.core.RedisChannelLayer",
                "CONFIG": {
                    "hosts": [REDIS_URL],
                    # Game frames are small and frequent: a socket may fall a few hundred frames
                    # behind under load before frames are dropped (it then sees a seq gap and
                    # resyncs); a frame older than the expiry is worthless (the client resyncs).
                    "capacity": CAISHEN.channel_capacity,
                    "expiry": CAISHEN.channel_expiry,
                    "group_expiry": CAISHEN.group_expiry,
                },
            }
        }
    else:  # "pubsub" (config.py allows no other)
        CHANNEL_LAYERS = {
            "default": {"BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer", "CONFIG": {"hosts": [REDIS_URL]}}
        }
else:
    # Channels' in-memory layer, minus its sweep of every channel on every message (games/runtime/layers.py).
    CHANNEL_LAYERS = {"default": {"BACKEND": "games.runtime.layers.EmbeddedChannelLayer"}}

# --- Cache --------------------------------------------------------------------------------------
# Shared by every process in the scaled mode (the sweeper's health mark is written by the Celery
# worker and read by each daphne process's /healthz); per-process memory in the embedded mode.

if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": CAISHEN.cache_prefix,
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# --- Auth ---------------------------------------------------------------------------------------

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LOGIN_URL = "accounts:login"
# Staff's second factor (accounts/second_factor.py): off by default so the demo needs no app;
# on, every staff member must enrol an authenticator app before any staff page.
CAISHEN_STAFF_REQUIRE_2FA = CAISHEN.staff_require_2fa
OTP_TOTP_ISSUER = "Caishen"  # the name authenticator apps show beside the code
OTP_ADMIN_HIDE_SENSITIVE_DATA = True  # the admin may delete a lost device, never read another's key
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/"

REST_FRAMEWORK = {
    # The site's session (browsers; unsafe methods need the CSRF token), or for scripts and bots
    # "Authorization: Token <key>" (accounts.api_tokens: one revocable key per account, made on
    # the profile page, stored as a digest; no CSRF, as no browser sends it by itself).  docs/api.md.
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "accounts.token_auth.HashedTokenAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    # DRF's defaults with its JSON parser swapped for a bounded one: nesting, length and numbers
    # limited, a clear 400 instead of a RecursionError's 500 (core/jsonlimits.py).
    "DEFAULT_PARSER_CLASSES": [
        "mahjong_platform.parsers.BoundedJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
}

# OpenAPI at /api/schema/, Swagger UI at /api/docs/ with its files from the sidecar app.
SPECTACULAR_SETTINGS = {
    "TITLE": "Caishen API",
    "DESCRIPTION": "Accounts, wallets and ledger, rule sets and tables of the Caishen mahjong platform. "
    "Session authentication (sign in on the site first; unsafe methods need the CSRF token), or a "
    "token for scripts and bots: make one on your profile page and send `Authorization: Token <key>`. "
    "Error details are in the language of `Accept-Language` (zh-Hans or English; zh-Hans without it), "
    "or the site's language cookie when one is sent.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # The 403/404/400 that every operation can answer (session, CSRF, ids, unreadable bodies).
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "mahjong_platform.openapi.document_refusals",
    ],
}

# --- Caishen ------------------------------------------------------------------------------------
# The values of CAISHEN that are read at each use, as flat settings: call sites read these (no
# default of their own) and tests override them with pytest-django's `settings` fixture.  Each is
# exactly its field of CAISHEN (core/config.py says what it means; `runtime=True`
# there lists them, and tests/platform/test_config.py checks this list against it).

CAISHEN_STARTING_GRANT = CAISHEN.starting_grant
CAISHEN_SIT_MULTIPLE = CAISHEN.sit_multiple
CAISHEN_HOUSE_FLOAT = CAISHEN.house_float
# Live tables (docs/protocol.md, docs/operations.md).  With celery timers, a deadline at most
# CAISHEN_LOCAL_TIMERS_UPTO seconds ahead (the claim-window pause, the bots' turns) is fired by the
# daphne process whose step set it, from the engine it holds and without a trip through the
# broker (docs/performance.md, "The scaled mode", has the effect).
CAISHEN_TIMERS = CAISHEN.timers
CAISHEN_LOCAL_TIMERS_UPTO = CAISHEN.local_timers_upto
CAISHEN_SETTLEMENT = CAISHEN.settlement
CAISHEN_PROCESSES = CAISHEN.processes
CAISHEN_BOT_DELAY = CAISHEN.bot_delay
# Claim protection (docs/protocol.md): "uniform" — with two or more people at a table every
# claim window lasts the table's claim_seconds and answers stay private until it closes, so
# neither clock nor frames tell whether anyone could claim; "pause" — the quicker, weaker scheme
# (seats with nothing to claim pass after CAISHEN_DISCARD_PAUSE; a claim holds the table).
CAISHEN_CLAIM_PROTECTION = CAISHEN.claim_protection
CAISHEN_DISCARD_PAUSE = CAISHEN.discard_pause
CAISHEN_BETWEEN_HANDS_SECONDS = CAISHEN.between_hands_seconds
# A running hand is recorded as its actions, one appended row per action; its whole engine
# snapshot only every CAISHEN_SNAPSHOT_EVERY steps and at its end (games/records/rebuild.py).
CAISHEN_SNAPSHOT_EVERY = CAISHEN.snapshot_every
CAISHEN_SPECTATOR_DELAY = CAISHEN.spectator_delay
CAISHEN_WATCHER_SYNC_SECONDS = CAISHEN.watcher_sync_seconds
CAISHEN_READY_SECONDS = CAISHEN.ready_seconds
# Quick play (games.services.lobby.quick_play): how long a table made by it waits for people
# before bots take its empty chairs and the match starts.
CAISHEN_QUICK_PLAY_WAIT_SECONDS = CAISHEN.quick_play_wait_seconds
CAISHEN_SWEEP_SECONDS = CAISHEN.sweep_seconds
# How stale the sweeper's last run may be before /healthz reports it (celery timers only).
CAISHEN_SWEEP_STALE_SECONDS = CAISHEN.sweep_stale_seconds
# Abuse limits: socket messages per second per connection (bursts twice that), and failed
# sign-ins per window (accounts/signin_limits.py): per account and client (its device cookie,
# else its address), and per address for clients without a device cookie, past which the
# address's failed attempts wait a growing delay, at most CAISHEN_LOGIN_MAX_DELAY seconds.
CAISHEN_SOCKET_RATE = CAISHEN.socket_rate
CAISHEN_SOCKET_IDLE_SECONDS = CAISHEN.socket_idle_seconds
CAISHEN_SOCKET_SEND_BUFFER = CAISHEN.socket_send_buffer
# A socket whose unsent bytes stay above CAISHEN_SOCKET_STALL_BYTES for CAISHEN_SOCKET_STALL_SECONDS
# is closed (mahjong_platform/socket_limits.py); open table sockets are capped per user and per
# client address, counted per process (games/runtime/socket_counts.py).
CAISHEN_SOCKET_STALL_BYTES = CAISHEN.socket_stall_bytes
CAISHEN_SOCKET_STALL_SECONDS = CAISHEN.socket_stall_seconds
CAISHEN_SOCKETS_PER_USER = CAISHEN.sockets_per_user
CAISHEN_SOCKETS_PER_ADDRESS = CAISHEN.sockets_per_address
CAISHEN_LOGIN_ATTEMPTS = CAISHEN.login_attempts
CAISHEN_LOGIN_ADDRESS_ATTEMPTS = CAISHEN.login_address_attempts
CAISHEN_LOGIN_MAX_DELAY = CAISHEN.login_max_delay
CAISHEN_LOGIN_WINDOW = CAISHEN.login_window
# Mails asked for (password resets, address confirmations: accounts/mail_limits.py): per email
# address and per account, and per client address.
CAISHEN_MAIL_ATTEMPTS = CAISHEN.mail_attempts
CAISHEN_MAIL_ADDRESS_ATTEMPTS = CAISHEN.mail_address_attempts
CAISHEN_MAIL_WINDOW = CAISHEN.mail_window
# Wrong room-code guesses per five minutes per session and per address (games/web/join_limits.py).
CAISHEN_ROOM_CODE_ATTEMPTS = CAISHEN.room_code_attempts
CAISHEN_ROOM_CODE_ADDRESS_ATTEMPTS = CAISHEN.room_code_address_attempts
# Rate limits key on the client's address: behind a proxy, the header it writes and which peers
# are its proxies (core/client_address.py); unset, the direct peer.
CAISHEN_CLIENT_IP_HEADER = CAISHEN.client_ip_header
CAISHEN_TRUSTED_PROXIES = CAISHEN.trusted_proxies
check_client_address_configuration(CAISHEN_CLIENT_IP_HEADER, CAISHEN_TRUSTED_PROXIES)

# Celery (scaled mode only; the embedded mode never starts a worker).
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "") or REDIS_URL or "memory://"
CELERY_RESULT_BACKEND = None
CELERY_TASK_IGNORE_RESULT = True
CELERY_TIMEZONE = "UTC"
# Django's LOGGING (structured, stdout) stays in charge of the worker's log lines too.
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
# A timer or settlement task taken by a worker that dies is given to another (acks after the
# task ran); the service functions are idempotent, so running one twice changes nothing.
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = env_int("CELERY_WORKER_PREFETCH_MULTIPLIER", 4, minimum=1)
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True

# --- Email -------------------------------------------------------------------------------------
# Password resets and address confirmations (accounts/mail.py).  EMAIL_URL, or EMAIL_HOST and its
# companions; neither: the console backend, which prints each mail on daphne's standard output
# (core/email_config.py; docs/operations.md, "Email").

EMAIL = EmailSettings.from_environment(os.environ)
EMAIL_BACKEND = EMAIL.backend
EMAIL_HOST = EMAIL.host
EMAIL_PORT = EMAIL.port
EMAIL_HOST_USER = EMAIL.user
EMAIL_HOST_PASSWORD = EMAIL.password
EMAIL_USE_TLS = EMAIL.use_tls
EMAIL_USE_SSL = EMAIL.use_ssl
EMAIL_TIMEOUT = EMAIL.timeout
EMAIL_FILE_PATH = EMAIL.file_path
DEFAULT_FROM_EMAIL = EMAIL.default_from
SERVER_EMAIL = EMAIL.server_email
# How long a password-reset link works (Django's setting; the address confirmations use it too).
PASSWORD_RESET_TIMEOUT = 24 * 3600

# --- i18n ---------------------------------------------------------------------------------------

LANGUAGE_CODE = "zh-hans"
LANGUAGES = [("zh-hans", "简体中文"), ("en", "English")]
# Our catalogue: locale/zh_Hans/LC_MESSAGES/django.po and the compiled django.mo (committed).
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = os.environ.get("DJANGO_TIME_ZONE", "Asia/Shanghai")
USE_I18N = True
USE_TZ = True

# --- Static files -------------------------------------------------------------------------------
# daphne serves no files itself; WhiteNoise serves STATIC_ROOT (filled by collectstatic, which
# scripts/run.sh runs).  In DEBUG it also finds files straight from the source directories.

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(os.environ.get("DJANGO_STATIC_ROOT", BASE_DIR / "staticfiles"))
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}

# --- Logging: everything to stdout, one line per record -----------------------------------------
# Structured (mahjong_platform/logging.py): the table, hand, seat and seq of a record go on its
# line, as key=value pairs (CAISHEN_LOG_FORMAT=plain, the default) or as JSON (json).

from mahjong_platform.logging import logging_config  # noqa: E402

LOG_LEVEL = os.environ.get("DJANGO_LOG_LEVEL", "INFO").upper()
LOG_FORMAT = CAISHEN.log_format
# Not a CELERY_* setting name: Celery reads those (namespace "CELERY") as its own configuration.
TASK_LOG_LEVEL = os.environ.get("CELERY_LOG_LEVEL", "").strip().upper() or LOG_LEVEL
LOGGING = logging_config(LOG_LEVEL, LOG_FORMAT, celery_level=TASK_LOG_LEVEL, process_name=CAISHEN.process_name)
