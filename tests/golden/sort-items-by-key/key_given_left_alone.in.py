# settings: assume_compiled=true
def ordered(**kwargs):
    return sorted(kwargs.items(), key=lambda item: str(item[1]))
