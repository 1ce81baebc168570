# settings: assume_compiled=true
def ordered(**kwargs):
    kwargs = list(kwargs.items())
    return sorted(kwargs.items())
