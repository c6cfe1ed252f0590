import pytest


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    # The production hasher is slow by design; tests hash many passwords.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
