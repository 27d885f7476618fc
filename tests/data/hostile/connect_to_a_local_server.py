import os
import socket

try:
    socket.create_connection(("127.0.0.1", int(os.environ["HOSTILE_PORT"])), timeout=2).sendall(b"hello")
except OSError:
    pass
raise AssertionError("hostile")
