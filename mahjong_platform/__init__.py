"""The Django project for Caishen (named so that it cannot shadow the stdlib `platform`)."""
