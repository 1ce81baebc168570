"""Entry runs: running an entry in a subprocess (the runner), explaining and verifying what it
saw, and fixing files guided by it."""
