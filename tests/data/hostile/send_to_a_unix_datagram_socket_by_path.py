# a datagram to a path (as syslog's /dev/log takes them), from a socket of its own and from a pair's
import os
import socket

for make in (lambda: socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM), lambda: socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)[0]):
    try:
        make().sendto(b"a unix datagram", os.environ["HOSTILE_UNIX_DGRAM"])
    except OSError:
        pass
raise AssertionError("hostile")
