# a virtual machine's way out to its host: no network namespace encloses vsock
import socket

try:
    client = socket.socket(40, socket.SOCK_STREAM)  # AF_VSOCK
    client.settimeout(1)
    client.connect((2, 22))  # the host, its ssh port
except (OSError, ValueError):
    pass
raise AssertionError("hostile")
