"""Account API routes, included under /api/ by the project's urls."""

from django.urls import path

from accounts import api

app_name = "account_api"

urlpatterns = [
    path("account/", api.AccountView.as_view(), name="account"),
    path("account/email/", api.EmailView.as_view(), name="email"),
    path("account/ledger/", api.LedgerView.as_view(), name="ledger"),
    path("account/ledger.csv", api.LedgerCSVView.as_view(), name="ledger_csv"),
    path("account/wallets/<int:user_id>/adjust/", api.AdjustView.as_view(), name="adjust"),
    path("account/wallets/<int:user_id>/holds/", api.HoldListView.as_view(), name="holds"),
    path("account/wallets/<int:user_id>/holds/<int:hold_id>/", api.HoldChangeView.as_view(), name="hold_change"),
]
