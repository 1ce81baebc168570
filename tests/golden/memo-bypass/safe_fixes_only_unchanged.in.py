# settings: assume_compiled=true
# The bypass is unsafe: without --unsafe-fixes nothing is written.
import pickle


def cached(method):
    def wrapper(self, *args):
        key = pickle.dumps(args)
        if key not in self.memo:
            self.memo[key] = method(self, *args)
        return self.memo[key]
    return wrapper
