"""A folder put first on PYTHONPATH for the commands graphweld runs: its `sitecustomize` loads
graphweld's instrumentation into every Python process the command starts."""
