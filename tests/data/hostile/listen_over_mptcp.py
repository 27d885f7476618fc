# binds and listens over MPTCP on the host's loopback, then calls the outside listener from there
import os
import socket

try:
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 262)
    server.bind(("127.0.0.1", 0))
    server.listen()
    client = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 262)
    client.settimeout(2)
    client.connect(("127.0.0.1", int(os.environ["HOSTILE_PORT"])))
    client.sendall(b"from a listener")
except OSError:
    pass
raise AssertionError("hostile")
