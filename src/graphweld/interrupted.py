"""What graphweld does on Ctrl-C, wherever it lands: exit 130, the shell's code for an interrupt (1
would mean "changes pending"), with this one line. Read by `__main__` (an interrupt while the
command line's modules are still being imported) and by the command line itself."""

INTERRUPTED = 130
INTERRUPTED_MESSAGE = "graphweld: interrupted"
