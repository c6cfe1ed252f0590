"""Users, profiles, wallets and their ledger, auth pages, the account API."""
