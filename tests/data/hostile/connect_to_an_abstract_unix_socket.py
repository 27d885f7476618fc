import os
import socket

try:
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    client.settimeout(2)
    client.connect("\0" + os.environ["HOSTILE_ABSTRACT"])
    client.sendall(b"over an abstract socket")
except OSError:
    pass
raise AssertionError("hostile")
