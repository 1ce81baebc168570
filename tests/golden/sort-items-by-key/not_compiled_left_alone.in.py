def ordered(**kwargs):
    return sorted(kwargs.items())
