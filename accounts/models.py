# No models yet: profiles, wallets and the append-only ledger arrive with the platform work.
