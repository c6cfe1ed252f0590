from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from games.engine.variants import all_variants


def home(request: HttpRequest) -> HttpResponse:
    """The landing page: what the platform is and which rule sets it plays."""
    return render(request, "games/home.html", {"variants": all_variants()})
