import os

children = 0
while children < 100_000:
    try:
        if os.fork() == 0:
            import time

            time.sleep(30)
            os._exit(0)
        children += 1
    except OSError:
        break
raise AssertionError("hostile")
