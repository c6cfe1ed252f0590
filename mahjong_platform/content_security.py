"""The Content-Security-Policy header (django-csp's middleware, this project's policy).

Every page loads scripts, styles, images and fonts from this site only, runs no inline script
and applies no inline style: the templates have none (the table's state travels in a
``json_script`` data block, which a policy does not block, and the table's code builds its
styles through the DOM's ``style`` properties, which it does not block either).  An injected
``<script>``, ``onclick=`` or ``style=`` is therefore inert.

Django's admin complies as configured here (its change list's one ``<style>`` block appears only
for a ModelAdmin with both ``actions_on_top`` and ``actions_on_bottom`` off: keep it so, or add
that block's hash).  One exception: the Swagger UI page (``/api/docs/``) allows inline styles and
``data:`` images, which Swagger UI uses (:data:`SWAGGER_UI_DIRECTIVES`, applied to that view in
mahjong_platform/urls.py); its start-up script is a file of its own (drf-spectacular's split
view), so scripts stay ``'self'`` there too.
"""

from __future__ import annotations

from typing import Any

from csp.constants import NONE, SELF, UNSAFE_INLINE
from csp.middleware import CSPMiddleware, PolicyParts
from django.core.exceptions import DisallowedHost
from django.http import HttpRequest, HttpResponseBase

# What /api/docs/ (Swagger UI) uses in place of the site's directives (replaced, not added to:
# browsers ignore 'unsafe-inline' in a directive that also lists a hash or a nonce).
SWAGGER_UI_DIRECTIVES: dict[str, Any] = {"style-src": [SELF, UNSAFE_INLINE], "img-src": [SELF, "data:"]}


def content_security_policy() -> dict[str, Any]:
    """settings.CONTENT_SECURITY_POLICY."""
    return {
        "DIRECTIVES": {
            "default-src": [SELF],
            "script-src": [SELF],
            "style-src": [SELF],
            "img-src": [SELF],
            "font-src": [SELF],
            "connect-src": [SELF],  # the REST calls and the table's WebSocket (see the middleware)
            "object-src": [NONE],
            "base-uri": [SELF],
            "form-action": [SELF],
            "frame-ancestors": [NONE],  # as X-Frame-Options: DENY
        }
    }


class ContentSecurityPolicyMiddleware(CSPMiddleware):
    """django-csp's middleware, plus this host's ``ws://`` and ``wss://`` origins in
    ``connect-src``: CSP Level 3 lets ``'self'`` cover the table's WebSocket, older browsers'
    ``'self'`` does not (the origin is per request, so it cannot be a setting)."""

    def get_policy_parts(
        self, request: HttpRequest, response: HttpResponseBase, report_only: bool = False
    ) -> PolicyParts:
        parts = super().get_policy_parts(request, response, report_only)
        try:
            host = request.get_host()
        except DisallowedHost:  # already answered 400 by CommonMiddleware; nothing to add
            return parts
        update = dict(parts.update or {})
        update["connect-src"] = [*update.get("connect-src", []), f"ws://{host}", f"wss://{host}"]
        parts.update = update
        return parts
