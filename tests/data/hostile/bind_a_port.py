import socket

try:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
except OSError:
    pass
raise AssertionError("hostile")
