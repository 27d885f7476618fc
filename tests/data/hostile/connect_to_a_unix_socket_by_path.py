# a daemon's socket (ssh-agent's, an X server's) is a path anyone may connect to
import os
import socket

try:
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    client.settimeout(2)
    client.connect(os.environ["HOSTILE_UNIX"])
    client.sendall(b"over a unix socket")
except OSError:
    pass
raise AssertionError("hostile")
