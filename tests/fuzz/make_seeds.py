#!/usr/bin/env python3
"""Derives the seed corpora in tests/fuzz/corpus/ from small real captures and from
hand-built MPA streams. Run from the repository root:

    python3 tests/fuzz/make_seeds.py [capture.pcap ...]

Without arguments it uses captures/*.pcap (the bundled corpus); other captures (e.g. the
real siw ones in captures/siw/) can be passed as arguments for a local campaign, never
committed. Seeds are named after their origin, so
re-running it replaces them rather than adding more. The corpus stays small (< 5 MB): pcap
seeds are cut to their first records, streams to their first octets.
"""
import glob
import gzip
import os
import shutil
import struct
import subprocess
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
CAPTURE_SEED_LIMIT = 12 << 10
STREAM_SEED_LIMIT = 4 << 10
CONNECTION_SEGMENTS = 40

REQ = b"MPA ID Req Frame"
REP = b"MPA ID Rep Frame"

# ---- CRC32c (reflected 0x82F63B78), as RFC 5044 4.4
_TABLE = []
for i in range(256):
    c = i
    for _ in range(8):
        c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
    _TABLE.append(c)


def crc32c(data, state=0xFFFFFFFF):
    for b in data:
        state = _TABLE[(state ^ b) & 0xFF] ^ (state >> 8)
    return state ^ 0xFFFFFFFF


def write(target, name, data):
    os.makedirs(os.path.join(ROOT, target), exist_ok=True)
    with open(os.path.join(ROOT, target, name), "wb") as f:
        f.write(data)


# ---- pcap reading (classic pcap, Ethernet/raw/SLL; IPv4/IPv6; TCP)
def read_pcap(path):
    with open(path, "rb") as f:
        data = f.read()
    magic = data[:4]
    if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"):
        endian = "<"
    elif magic in (b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d"):
        endian = ">"
    else:
        return None, None, []
    linktype = struct.unpack(endian + "I", data[20:24])[0]
    records = []
    pos = 24
    while pos + 16 <= len(data):
        ts, tf, caplen, wirelen = struct.unpack(endian + "IIII", data[pos:pos + 16])
        if pos + 16 + caplen > len(data):
            break
        records.append((data[pos:pos + 16 + caplen], data[pos + 16:pos + 16 + caplen]))
        pos += 16 + caplen
    return data[:24], linktype, records


def decode_tcp(linktype, frame):
    """(src, dst, seq, flags, mss, payload) or None."""
    if linktype == 1:
        off = 14
        etype = struct.unpack(">H", frame[12:14])[0]
        while etype == 0x8100 and len(frame) >= off + 4:
            etype = struct.unpack(">H", frame[off + 2:off + 4])[0]
            off += 4
    elif linktype == 113:
        off, etype = 16, struct.unpack(">H", frame[14:16])[0]
    elif linktype == 101:
        off, etype = 0, 0x0800 if frame and frame[0] >> 4 == 4 else 0x86DD
    else:
        return None
    if etype == 0x0800:
        ihl = (frame[off] & 15) * 4
        total = struct.unpack(">H", frame[off + 2:off + 4])[0]
        # Not TCP, or an IP fragment (TCP only in the datagram's first; seeds skip them all).
        if frame[off + 9] != 6 or struct.unpack(">H", frame[off + 6:off + 8])[0] & 0x3FFF:
            return None
        src, dst = frame[off + 12:off + 16], frame[off + 16:off + 20]
        tcp, end = off + ihl, off + total
    elif etype == 0x86DD:
        if frame[off + 6] != 6:
            return None
        plen = struct.unpack(">H", frame[off + 4:off + 6])[0]
        src, dst = frame[off + 8:off + 24], frame[off + 24:off + 40]
        tcp, end = off + 40, off + 40 + plen
    else:
        return None
    sport, dport, seq = struct.unpack(">HHI", frame[tcp:tcp + 8])
    hl = (frame[tcp + 12] >> 4) * 4
    flags = frame[tcp + 13]
    mss = None
    o = tcp + 20
    while o < tcp + hl:
        kind = frame[o]
        if kind == 0:
            break
        if kind == 1:
            o += 1
            continue
        ln = frame[o + 1]
        if ln < 2:
            break
        if kind == 2 and ln == 4:
            mss = struct.unpack(">H", frame[o + 2:o + 4])[0]
        o += ln
    return (src, sport), (dst, dport), seq, flags, mss, frame[tcp + hl:min(end, len(frame))]


# ---- capture seeds: the first records of each capture
def capture_seed(name, header, records):
    out = bytearray(header)
    for raw, _ in records:
        if len(out) + len(raw) > CAPTURE_SEED_LIMIT:
            break
        out += raw
    write("capture", name + ".pcap", bytes(out))
    return bytes(out)


# ---- compressed seeds: a capture seed compressed, so that the fuzzer reaches reading in place
# from chunks of decompressed octets (and libpcap taking over there): gzip always, zstd where
# the zstd tool is installed (the setup command installs it).
def compressed_seeds(name, seed):
    write("capture", name + ".pcap.gz", gzip.compress(seed, compresslevel=6, mtime=0))
    if shutil.which("zstd"):
        packed = subprocess.run(["zstd", "-3", "-q", "-c"], input=seed, check=True,
                                capture_output=True).stdout
        write("capture", name + ".pcap.zst", packed)


# ---- pcapng seeds: the same records as pcapng (SHB, IDB with if_tsresol, EPBs)
def pcapng_block(block_type, body):
    body += bytes((4 - len(body) % 4) % 4)
    length = 12 + len(body)
    return struct.pack("<II", block_type, length) + body + struct.pack("<I", length)


def pcapng_seed(name, linktype, records):
    out = bytearray(pcapng_block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1)))
    tsresol = struct.pack("<HHB", 9, 1, 9) + bytes(3) + struct.pack("<HH", 0, 0)  # ns; end
    out += pcapng_block(1, struct.pack("<HHI", linktype, 0, 262144) + tsresol)
    for i, (raw, frame) in enumerate(records):
        if len(out) + len(frame) > CAPTURE_SEED_LIMIT:
            break
        ts = 1700000000 * 10**9 + i * 1000
        out += pcapng_block(6, struct.pack("<IIIII", 0, ts >> 32, ts & 0xFFFFFFFF, len(frame), len(frame)) + frame)
    write("capture", name + ".pcapng", bytes(out))


# ---- connection seeds: segments in fuzz_connection's format
def connection_seed(name, linktype, records):
    segs = []
    for _, frame in records:
        d = decode_tcp(linktype, frame)
        if d:
            segs.append(d)
    if not segs:
        return
    # The first connection (by port pair) only.
    first = segs[0]
    key = {first[0], first[1]}
    segs = [s for s in segs if {s[0], s[1]} == key][:CONNECTION_SEGMENTS]
    client = first[0]
    for s in segs:
        if s[3] & 0x12 == 0x02:  # SYN without ACK
            client = s[0]
            break
    isn = [None, None]
    for s in segs:
        d = 0 if s[0] == client else 1
        if isn[d] is None:
            isn[d] = s[2]
    isn = [v or 0 for v in isn]
    out = bytearray([0, 0, 0, 0]) + struct.pack("<II", isn[0], isn[1])
    furthest = list(isn)
    for src, dst, seq, flags, mss, payload in segs:
        d = 0 if src == client else 1
        delta = (seq - furthest[d] + (1 << 31)) % (1 << 32) - (1 << 31)
        if not -32768 <= delta < 32768 or len(payload) > 4095:
            continue
        control = d
        control |= 0x08 if flags & 0x02 else 0
        control |= 0x10 if flags & 0x01 else 0
        control |= 0x20 if flags & 0x04 else 0
        control |= 0x40 if flags & 0x10 else 0
        control |= 0x80 if flags & 0x08 else 0
        m = (mss // 8) & 0xFF if (mss and flags & 0x02) else 0
        out += struct.pack("<BhBBB", control, delta, len(payload) & 0xFF, len(payload) >> 8, m)
        out += payload
        span = len(payload) + (1 if flags & 0x02 else 0) + (1 if flags & 0x01 else 0)
        end = (seq + span) % (1 << 32)
        if (end - furthest[d]) % (1 << 32) < (1 << 31):
            furthest[d] = end
    write("connection", name + ".bin", bytes(out))


# ---- stream seeds: what follows the startup frames, per direction
def streams(linktype, records):
    """{(src, dst): (first seq, bytes)} in sequence order, assuming an orderly capture."""
    pieces = {}
    for _, frame in records:
        d = decode_tcp(linktype, frame)
        if not d or not d[5]:
            continue
        pieces.setdefault((d[0], d[1]), {})[d[2]] = d[5]
    out = {}
    for k, by_seq in pieces.items():
        seqs = sorted(by_seq)
        base = seqs[0]
        buf = bytearray()
        for s in seqs:
            rel = s - base
            if rel == len(buf):
                buf += by_seq[s]
            elif rel < len(buf) < rel + len(by_seq[s]):
                buf += by_seq[s][len(buf) - rel:]
        out[k] = (base, bytes(buf))
    return out


def startup_and_stream_seeds(name, linktype, records):
    frames = {}
    for (src, dst), (base, data) in streams(linktype, records).items():
        for key in (REQ, REP):
            at = data.find(key)
            if at < 0 or at + 20 > len(data):
                continue
            pd = struct.unpack(">H", data[at + 18:at + 20])[0]
            ext = 8 if data[at + 17] == 129 else 0
            end = at + 20 + ext + pd
            frames[key] = (data[at:end], data[at + 16])
            if end < len(data):
                frames[key + b"stream"] = ((base + end) & 0xFFFFFFFF, data[end:end + STREAM_SEED_LIMIT])
    c_flag = any(v[1] & 0x40 for k, v in frames.items() if k in (REQ, REP))
    if REQ in frames:
        write("startup_frame", name + "-request.bin",
              bytes([7]) + frames[REQ][0] + (frames[REP][0] if REP in frames else b""))
    if REP in frames:
        write("startup_frame", name + "-reply.bin", bytes([3]) + frames[REP][0])
    for key, label in ((REQ + b"stream", "initiator"), (REP + b"stream", "responder")):
        if key in frames:
            seq, data = frames[key]
            write("fpdu_reader", f"{name}-{label}.bin", fpdu_reader_input(
                crc=c_flag, markers=False, start_seq=seq, stream=data))


def fpdu_reader_input(crc, markers, start_seq, stream, splits=(), gaps=()):
    options = (1 if markers else 0) | (2 if crc else 0)
    out = bytearray([options]) + struct.pack("<IH", start_seq, 0)
    out += bytes([len(splits), len(gaps)]) + stream
    for pos, length in gaps:
        out += struct.pack("<HH", pos, length)
    for pos in splits:
        out += struct.pack("<H", pos)
    return bytes(out)


# ---- hand-built streams: FPDUs with markers and CRCs (RFC 5044 4)
def frame_fpdus(start_seq, ulpdus, markers, crc, grid_origin=None):
    grid_origin = start_seq if grid_origin is None else grid_origin
    out = bytearray()
    seq = start_seq
    for ulpdu in ulpdus:
        pad = (4 - (2 + len(ulpdu)) % 4) % 4
        content = struct.pack(">H", len(ulpdu)) + ulpdu + bytes(pad)
        fpdu = bytearray()
        header_seq = None
        i = 0
        s = seq
        while i < len(content) + 4:
            if markers and (s - grid_origin) % 512 == 0:
                ptr = 0 if header_seq is None else (s - header_seq) & 0xFFFF
                fpdu += struct.pack(">HH", 0, ptr)
                s += 4
                continue
            if header_seq is None:
                header_seq = s
            if i < len(content):
                fpdu.append(content[i])
            else:
                fpdu.append(0)  # CRC placeholder
            i += 1
            s += 1
        if crc:
            value = crc32c(bytes(fpdu[:-4]))
            fpdu[-4:] = struct.pack("<I", value)
        out += fpdu
        seq = s
    return bytes(out)


def ddp_untagged(payload):
    # DDP untagged, last; RDMAP Send (version 1).
    return bytes([0x41, 0x43]) + bytes(4) + struct.pack(">III", 0, 1, 0) + payload


def synthetic_seeds():
    sizes = [0, 1, 28, 100, 498, 1000, 3]
    for markers in (False, True):
        for crc in (False, True):
            for start in (0, 0xFFFFFF00):
                ulpdus = [ddp_untagged(bytes((i * 7 + j) & 0xFF for j in range(n))) for i, n in enumerate(sizes)]
                data = frame_fpdus(start, ulpdus, markers, crc)
                name = f"synthetic-m{int(markers)}-c{int(crc)}-{start:08x}"
                write("fpdu_reader", name + ".bin", fpdu_reader_input(crc, markers, start, data))
            # The same cut and with a gap, for the resynchronisation paths.
            data = frame_fpdus(100, [ddp_untagged(bytes(n)) for n in (200, 700, 40, 40, 40, 40)], markers, crc)
            write("fpdu_reader", f"synthetic-m{int(markers)}-c{int(crc)}-gap.bin",
                  fpdu_reader_input(crc, markers, 100, data, splits=(1, 5, 300, 301), gaps=((250, 77),)))
    # Startup frames at the edges of the format.
    def startup(key, flags, rev, pd, ext=b""):
        return key + bytes([flags, rev]) + struct.pack(">H", len(pd)) + ext + pd
    enhanced = struct.pack(">HH", 0x8000 | 0x4000 | 16, 0x8000 | 8)
    write("startup_frame", "rev1-m-c.bin", bytes([1]) + startup(REQ, 0xC0, 1, b"") + startup(REP, 0x40, 1, b""))
    write("startup_frame", "rev2-p2p.bin", bytes([5]) + startup(REQ, 0x10, 2, enhanced) + startup(REP, 0x10, 2, enhanced))
    write("startup_frame", "rev0.bin", bytes([2]) + startup(REQ, 0x00, 0, b"hello"))
    write("startup_frame", "rev129.bin", bytes([9]) + startup(REQ, 0x10, 129, bytes(4), ext=bytes(range(8))))
    write("startup_frame", "reject.bin", bytes([4]) + startup(REP, 0x2F, 2, bytes(300)))
    write("startup_frame", "pd-512.bin", bytes([11]) + startup(REQ, 0x00, 1, bytes(512)))


def main(paths):
    if not paths:
        # Only the synthetic corpus (captures/*.pcap, not captures/siw/): the seeds stay
        # small. Pass the siw captures' paths to seed a local campaign with them.
        paths = sorted(glob.glob("captures/*.pcap"))
    for path in paths:
        header, linktype, records = read_pcap(path)
        if header is None:
            continue
        name = os.path.splitext(os.path.basename(path))[0]
        seed = capture_seed(name, header, records)
        if name in ("valid-close-fin", "fault-fpdu.crc-mismatch", "fault-capture.truncated"):
            compressed_seeds(name, seed)
        if name in ("valid-close-fin", "valid-ipv6-vlan", "siw6.1-default-rping-64B-veth1500"):
            pcapng_seed(name, linktype, records)
        connection_seed(name, linktype, records)
        startup_and_stream_seeds(name, linktype, records)
    synthetic_seeds()


if __name__ == "__main__":
    main(sys.argv[1:])
