from django.contrib.auth import views as auth_views
from django.urls import path

from accounts import closure_views, email_views, hold_views, password_reset, second_factor_views, views

app_name = "accounts"

urlpatterns = [
    path("signup/", views.signup, name="signup"),
    path("login/", views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("password/", views.PasswordChangeView.as_view(), name="password_change"),
    path("password/done/", views.PasswordChangeDoneView.as_view(), name="password_change_done"),
    path("password/reset/", password_reset.PasswordResetView.as_view(), name="password_reset"),
    path("password/reset/sent/", password_reset.PasswordResetDoneView.as_view(), name="password_reset_done"),
    path(
        "password/reset/<uidb64>/<token>/",
        password_reset.PasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path(
        "password/reset/complete/",
        password_reset.PasswordResetCompleteView.as_view(),
        name="password_reset_complete",
    ),
    path("profile/", views.profile, name="profile"),
    path("email/", email_views.change, name="email_change"),
    path("email/confirm/<str:token>/", email_views.confirm, name="email_confirm"),
    path("close/", closure_views.close, name="close"),
    path("wallet/", views.wallet, name="wallet"),
    path("api-token/", views.api_token, name="api_token"),
    path("ledger.csv", views.ledger_csv, name="ledger_csv"),
    path("staff/wallets/", views.staff_wallets, name="staff_wallets"),
    path("staff/wallets/<int:user_id>/", views.staff_adjust, name="staff_adjust"),
    path("staff/wallets/<int:user_id>/holds/<int:hold_id>/", hold_views.staff_hold_change, name="staff_hold_change"),
    path("second-factor/", second_factor_views.setup, name="second_factor_setup"),
    path("second-factor/verify/", second_factor_views.verify, name="second_factor_verify"),
]
