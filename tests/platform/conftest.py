import pytest


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    # The production hasher is slow by design; tests hash many passwords.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def fresh_cache():
    # The cache holds rate-limit counters and watcher counts, the process's state running hands
    # (rolled-back tests reuse hand ids and rigged seeds): no test may inherit another's.
    from django.core.cache import cache

    from games.runtime.process import runtime

    cache.clear()
    yield
    cache.clear()
    runtime().reset()


@pytest.fixture
def instant_play(settings):
    # Live-table tests: bots answer, passes land and nothing sweeps unless the test says so;
    # timers in process (the embedded mode's), whatever the environment selects.
    settings.CAISHEN_BOT_DELAY = 0
    settings.CAISHEN_DISCARD_PAUSE = 0
    settings.CAISHEN_CLAIM_PROTECTION = "pause"  # quick windows (the uniform one: test_claim_protection.py)
    settings.CAISHEN_SWEEP_SECONDS = 0
    settings.CAISHEN_TIMERS = "inprocess"
