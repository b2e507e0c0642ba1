#!/usr/bin/env python3
"""Makes a fuzz_cfi input from an ELF file: [u64 pc relative to .eh_frame_hdr][u64 sp offset] then
the bytes from .eh_frame_hdr to the end of .eh_frame, with pc inside the table's first function.
Usage: fuzz/cfi_seed.py ELF OUT"""
import struct
import sys


def sections(data):
    shoff, = struct.unpack_from('<Q', data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', data, 0x3a)
    headers = [struct.unpack_from('<IIQQQQIIQQ', data, shoff + i * shentsize) for i in range(shnum)]
    names = headers[shstrndx][4]
    out = {}
    for h in headers:
        end = data.index(b'\0', names + h[0])
        out[data[names + h[0]:end].decode()] = h
    return out


def main():
    data = open(sys.argv[1], 'rb').read()
    s = sections(data)
    hdr, frame = s['.eh_frame_hdr'], s['.eh_frame']
    if frame[3] - hdr[3] != frame[4] - hdr[4]:
        sys.exit('.eh_frame_hdr and .eh_frame are not laid out alike in file and memory')
    body = data[hdr[4]:frame[4] + frame[5]]
    first, = struct.unpack_from('<i', body, 12)  # the table's first start, relative to the header
    open(sys.argv[2], 'wb').write(struct.pack('<qQ', first + 4, 0) + body)


main()
