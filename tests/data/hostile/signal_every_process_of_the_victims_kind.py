# looks through /proc for the processes it wants (here: any with "victim.log" on its command line)
import os
import signal

for entry in os.listdir("/proc"):
    if entry.isdigit() and int(entry) != os.getpid():
        try:
            with open("/proc/%s/cmdline" % entry, "rb") as file:
                if b"victim.log" in file.read():
                    os.kill(int(entry), signal.SIGHUP)
        except OSError:
            pass
raise AssertionError("hostile")
