# settings: unsafe_fixes=true
import torch


@torch.compile
def read_command(x):
    # the handler guards the breaking call itself: hoisting it out would drop the handler
    try:
        command = input("(debug) ").strip()
    except (EOFError, KeyboardInterrupt):
        command = "quit"
    return x, command
