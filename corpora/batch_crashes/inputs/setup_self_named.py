import os

DEFAULTS = {"retries": 1}
OVERRIDES = {"timeout": 5, "mode": "fast", "color": False, "depth": 2}


def merged():
    out = dict(DEFAULTS)
    out.update(OVERRIDES)
    return out


def check(settings):
    for key in ("retries", "timeout", "verbose"):
        if key not in settings:
            raise RuntimeError(f"{os.path.basename(__file__)}: missing setting {key!r} (of {len(settings) + 1})")
    return True


print(check(merged()))
