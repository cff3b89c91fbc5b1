#!/usr/bin/env python3
"""Run a command on a pseudo-terminal of 120 x 40, as a user at a terminal would.

Everything the command writes to its terminal is copied to our stdout; what we read on our
stdin is typed at its keyboard (b'\\x03' is Ctrl-C: the terminal sends SIGINT to the command).
When the command ends, one JSON line on stderr says how: {"code": N} or {"signal": N}.
PTY_TYPED_AHEAD, when set, is typed before the command starts: it waits in the terminal's input
queue, as keys typed with a command do.
"""
import fcntl
import json
import os
import pty
import select
import struct
import subprocess
import sys
import termios

master, slave = pty.openpty()
fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack('HHHH', 40, 120, 0, 0))
typed_ahead = os.environ.pop('PTY_TYPED_AHEAD', '')
if typed_ahead:
    os.write(master, typed_ahead.encode())


def controlling_terminal():
    # start_new_session made us a session leader; the pty (our stdin) becomes its terminal.
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


proc = subprocess.Popen(
    sys.argv[1:],
    stdin=slave,
    stdout=slave,
    stderr=slave,
    start_new_session=True,
    preexec_fn=controlling_terminal,
)
os.close(slave)

keyboard_open = True
while True:
    watched = [master] + ([0] if keyboard_open else [])
    ready, _, _ = select.select(watched, [], [], 0.5)
    if master in ready:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: every copy of the terminal's other end is closed
            data = b''
        if not data:
            break
        os.write(1, data)
    if 0 in ready:
        typed = os.read(0, 1024)
        if typed:
            os.write(master, typed)
        else:
            keyboard_open = False

rc = proc.wait()
sys.stderr.write(json.dumps({'code': rc} if rc >= 0 else {'signal': -rc}) + '\n')
