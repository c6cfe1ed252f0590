"""Existing API keys, kept in clear by DRF's authtoken table, become digests: each key keeps
working (its scripts need nothing new), the clear copies are deleted, and the profile page shows
the key's first 8 characters as its prefix.  Not reversible: the clear keys are gone."""

import hashlib

from django.db import migrations


def hash_existing(apps, schema_editor):
    Token = apps.get_model("authtoken", "Token")
    ApiToken = apps.get_model("accounts", "ApiToken")
    for token in Token.objects.all().iterator():
        made = ApiToken.objects.create(
            user_id=token.user_id, prefix=token.key[:8], digest=hashlib.sha256(token.key.encode()).hexdigest()
        )
        # Keep when the key was made (auto_now_add set the migration's time).
        ApiToken.objects.filter(pk=made.pk).update(created_at=token.created)
    Token.objects.all().delete()


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0008_api_token"),
        ("authtoken", "0003_tokenproxy"),
    ]

    operations = [migrations.RunPython(hash_existing, migrations.RunPython.noop)]
