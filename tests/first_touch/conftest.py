# The project's own tests run only when a test copies the project and runs them.
collect_ignore = ["tests"]
