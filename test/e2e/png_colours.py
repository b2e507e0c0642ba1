#!/usr/bin/env python3
"""Prints WIDTH HEIGHT COLOURS INKED of a PNG screenshot: its size, how many distinct colours it
has and the share of its pixels that are not the page background (the top-left pixel's colour).
The e2e test of the HTML report calls it to tell a rendered page from a blank one. Standard
library only (zlib); 8-bit RGB or RGBA, not interlaced, as Chromium writes them."""
import struct
import sys
import zlib


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def rows(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit(f"{path}: not a PNG file")
    pos, idat = 8, b""
    while pos < len(data):
        size, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + size]
        pos += 12 + size
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
    if depth != 8 or colour not in (2, 6) or interlace:
        sys.exit(f"{path}: depth {depth}, colour type {colour}, interlace {interlace}: not read here")
    bpp = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    previous = bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = previous[i]
            c = previous[i - bpp] if i >= bpp else 0
            line[i] = (line[i] + (0, a, b, (a + b) >> 1, paeth(a, b, c))[kind]) & 0xFF
        yield width, height, bpp, line
        previous = line


def main():
    colours, inked, pixels, background = set(), 0, 0, None
    for width, height, bpp, line in rows(sys.argv[1]):
        for x in range(0, len(line), bpp):
            pixel = bytes(line[x:x + 3])
            background = background or pixel
            colours.add(pixel)
            inked += pixel != background
            pixels += 1
    print(width, height, len(colours), f"{inked / pixels:.4f}")


main()
