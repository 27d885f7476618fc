# MPTCP (protocol 262) is not TCP to Landlock: it connected where TCP could not (issue 43, problem 2)
import os
import socket

try:
    client = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 262)
    client.settimeout(2)
    client.connect(("127.0.0.1", int(os.environ["HOSTILE_PORT"])))
    client.sendall(b"over mptcp")
except OSError:
    pass
raise AssertionError("hostile")
