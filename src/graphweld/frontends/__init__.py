"""Front-ends over the engine: the command line, its reports and progress, the interactive
review, the language server, `graphweld.explain` on a live model, and the rule pages."""
