from csp.decorators import csp_replace
from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from accounts.language import set_language
from mahjong_platform.content_security import SWAGGER_UI_DIRECTIVES
from mahjong_platform.views import healthz

# Swagger UI with its start-up script as a file of its own (the split view), so the page runs
# under the site's script-src 'self'; it needs inline styles and data: images (content_security.py).
api_docs = csp_replace(SWAGGER_UI_DIRECTIVES)(SpectacularSwaggerSplitView.as_view(url_name="schema"))

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("accounts/", include("accounts.urls")),
    # The header's language switch: Django's set_language, which also saves a signed-in user's choice.
    path("i18n/setlang/", set_language, name="set_language"),
    path("api/", include("accounts.api_urls")),
    path("api/", include("games.web.api_urls")),  # rule sets, tables, hands
    path("api/", include("tournaments.api_urls")),  # events, registration, standings
    path("api/", include("ratings.api_urls")),  # leaderboards, player statistics
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", api_docs, name="api-docs"),
    path("tournaments/", include("tournaments.urls")),
    path("ratings/", include("ratings.urls")),
    path("", include("games.urls")),
]

# JSON for unmatched API paths (their schema documents JSON refusals), Django's page elsewhere.
handler404 = "mahjong_platform.views.not_found"
