#!/usr/bin/env python3
"""Writes a live file (NAME.ppe.PID.live) as an input of fuzz_live_file: its zero runs left out,
the rest as chunks of [u32 zero bytes to skip][u16 length][bytes] (fuzz_live_file.cc).
Usage: fuzz/live_file_seed.py LIVE_FILE SEED_FILE"""
import struct
import sys


def chunks(data):
    """(gap, bytes) for each run of data that is not zero, runs less than 16 zero bytes apart joined."""
    at, previous_end = 0, 0
    while at < len(data):
        while at < len(data) and data[at] == 0:
            at += 1
        if at == len(data):
            return
        end = at
        while end < len(data) and end - at < 0xFFFF and any(data[end:end + 16]):
            end += 1
        end = min(end, at + 0xFFFF)
        yield at - previous_end, data[at:end]
        previous_end = at = end


def main():
    data = open(sys.argv[1], "rb").read()
    with open(sys.argv[2], "wb") as out:
        for gap, run in chunks(data):
            out.write(struct.pack("<IH", gap, len(run)) + run)


main()
