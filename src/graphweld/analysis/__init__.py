"""Analysis: what the rules ask of a module: compiled regions, breaking statements, names and
imports, scopes, blocks, which values are tensors, and the deferral of I/O."""
