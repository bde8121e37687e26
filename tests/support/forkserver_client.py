"""`python -I -S forkserver_client.py SOCKET -m MODULE ARGS` (or `SCRIPT ARGS`): run it in a fork of a fork server.

A stand-in for the process a test starts (forkserver.py says why): stdlib only, so that its own start costs little.
It passes its argv, folder, environment and stdin/stdout/stderr to the fork server listening on SOCKET,
forwards the signals it gets to the fork, and exits as the fork did. When the fork server declines (a
different PYTHON* environment) or is gone, it execs the interpreter instead.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import struct
import sys

FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2)
# The request, as forkserver.py reads it: the JSON body's length, with four descriptors (stdin, stdout, stderr, and
# the read end of the life pipe), then the body. Defined here, the side that must start without imports.
HEADER = struct.Struct("!I")
DESCRIPTORS = 4


def _exec(argv: list[str]) -> None:
    os.execv(sys.executable, [sys.executable, *argv])


def main() -> None:
    path, argv = sys.argv[1], sys.argv[2:]
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        connection.connect(path)
    except OSError:
        _exec(argv)
    replies = connection.makefile("rb")
    life_read, life_write = os.pipe()
    body = json.dumps({"argv": argv, "cwd": os.getcwd(), "env": dict(os.environ)}).encode()
    socket.send_fds(connection, [HEADER.pack(len(body))], [0, 1, 2, life_read])
    connection.sendall(body)
    os.close(life_read)
    reply = json.loads(replies.readline() or b"{}")
    if "pid" not in reply:
        connection.close()
        os.close(life_write)
        _exec(argv)
    pid = int(reply["pid"])
    # The fork has its own copies: a pipe the test reads ends when the fork ends, not when this process does.
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    for number in FORWARDED:
        signal.signal(number, lambda received, _frame: os.kill(pid, received))
    status = json.loads(replies.readline() or b"{}").get("status")
    if status is None:
        os._exit(70)  # the fork server went away (EX_SOFTWARE); the fork follows through its life pipe
    code = os.waitstatus_to_exitcode(int(status))
    if code < 0:
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    os._exit(code)


if __name__ == "__main__":
    main()
