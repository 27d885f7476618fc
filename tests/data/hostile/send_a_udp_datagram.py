import os
import socket

try:
    socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"over udp", ("127.0.0.1", int(os.environ["HOSTILE_UDP_PORT"])))
except OSError:
    pass
raise AssertionError("hostile")
