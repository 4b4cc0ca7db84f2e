#!/usr/bin/env python3
"""Where one thread's execution samples fall, from a JFR recording: the top frames (self) and every frame on the
stack (inclusive), as shares of that thread's samples.

  jfr print --events jdk.ExecutionSample REC.jfr | perf/scripts/jfr-top.py THREAD_NAME_PART [FRAMES]

e.g. THREAD_NAME_PART = IoEventLoopGroup-3-1 (the server's Netty I/O thread in LoadMain bench), tally-journaler,
tally-business. FRAMES (default 1) joins that many top frames into one key for the self table.
"""
import collections
import re
import sys


def main():
    want = sys.argv[1]
    depth = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    top, inclusive = collections.Counter(), collections.Counter()
    samples = 0
    thread, frames, in_stack = None, [], False

    def flush():
        nonlocal samples
        if thread and want in thread and frames:
            samples += 1
            top[" < ".join(frames[:depth])] += 1
            for frame in set(frames):
                inclusive[frame] += 1

    for line in sys.stdin:
        line = line.rstrip()
        if line.startswith("jdk.ExecutionSample"):
            flush()
            thread, frames, in_stack = None, [], False
        match = re.search(r'sampledThread = "([^"]+)"', line)
        if match:
            thread = match.group(1)
        if "stackTrace = [" in line:
            in_stack = True
            continue
        if in_stack:
            frame = line.strip()
            if frame.startswith("]"):
                in_stack = False
            elif frame and not frame.startswith("..."):
                frames.append(re.sub(r"\s+line:.*", "", frame))
    flush()
    print("samples", samples)
    for key, count in top.most_common(25):
        print(f"{100 * count / samples:5.1f}% self  {key}")
    print("--- inclusive")
    for key, count in inclusive.most_common(40):
        print(f"{100 * count / samples:5.1f}% incl  {key}")


if __name__ == "__main__":
    main()
