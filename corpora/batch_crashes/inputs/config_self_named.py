import os

SETTINGS = {"retries": 3, "timeout": 30}


def check(settings):
    for key in ("retries", "timeout", "verbose"):
        if key not in settings:
            raise RuntimeError(f"{os.path.basename(__file__)}: missing setting {key!r} (of {len(settings) + 1})")
    return True


print(check(SETTINGS))
