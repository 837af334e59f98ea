#!/usr/bin/python3
# A check helper that lies (for check_helpers_test): runs the real one, then passes its
# greeting and findings on, changed by MODE:
#   swap: the places (first 8 bytes) of its first finding and of its first file's problem
#         are swapped, so each would be taken for the other file's;
#   cut:  the second finding claims twice its length, and nothing follows it.
# Writes how many findings the real helper sent to RELAY.sent, so that the test knows the
# lie was told (not a failed start).
# Usage: lying_check_helper.py REAL_ROCPROF_MERGE MODE RELAY --internal-rank-file-check-helper
import socket
import struct
import subprocess
import sys

real, mode, relay, argument = sys.argv[1:5]
request = sys.stdin.buffer.read()
# The real helper writes to a socket, as its merge process gives it one, not to a pipe.
ours, theirs = socket.socketpair()
helper = subprocess.Popen([real, argument], stdin=subprocess.PIPE, stdout=theirs)
theirs.close()
helper.stdin.write(request)
helper.stdin.close()
said = b""
while chunk := ours.recv(1 << 16):
    said += chunk
helper.wait()

hello = said[:said.index(b"\n") + 1]
frames, at = [], len(hello)
while at < len(said):  # each finding: its length, then its place, its kind (0: a problem)...
    (length,) = struct.unpack_from("=Q", said, at)
    frames.append(bytearray(said[at + 8:at + 8 + length]))
    at += 8 + length
problems = [i for i, frame in enumerate(frames) if frame[8] == 0]
if mode == "swap" and problems and problems[0] > 0:
    j = problems[0]
    frames[0][:8], frames[j][:8] = frames[j][:8], frames[0][:8]

out = sys.stdout.buffer
# Told before the lie: the merge process may kill this relay as soon as it sees the lie.
with open(relay + ".sent", "w") as sent:
    sent.write(str(len(frames)))
out.write(hello)
for i, frame in enumerate(frames):
    if mode == "cut" and i == 1:
        out.write(struct.pack("=Q", len(frame) * 2) + bytes(frame))
        break
    out.write(struct.pack("=Q", len(frame)) + bytes(frame))
