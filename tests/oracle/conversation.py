"""One random MPA conversation from a seed, and the pcap that carries many of them.

A conversation: TCP handshake (MSS options), the Rev 1 Request and Reply with random M/C
flags and private data, each side's FPDUs framed by its own sender model
(reference_framer.py) and cut into TCP segments in its own way, ACKs, and a FIN close.
"""

import random
import struct

import reference_framer as rf

CLIENT_IP = bytes([192, 0, 2, 1])
SERVER_IP = bytes([192, 0, 2, 2])
SERVER_PORT = 20049
MSS_CHOICES = [536, 1460, 4000, 8960]
SEGMENTATIONS = ["fpdu-aligned", "packed", "random-cuts", "tiny-cuts"]


class Side:
    """One direction: its sender model, what was negotiated for it, and its stream."""

    def __init__(self, role, model, markers, crc, mss, startup_octets):
        self.role = role  # "initiator" or "responder"
        self.model = model
        self.mss = mss
        self.stream = rf.FramedStream(model, markers, crc, startup_octets)
        self.segmentation = None
        self.isn = 0
        self.full_operation = 0  # TCP sequence number of the first full-operation octet

    def header_seq(self, fpdu):
        return (self.full_operation + fpdu.header) & 0xFFFFFFFF

    def start_seq(self, fpdu):
        return (self.full_operation + fpdu.start) & 0xFFFFFFFF

    def shows_deviation(self):
        return any(f.deviant for f in self.stream.fpdus)

    def also_accepted(self):
        """Ids that name the same octets as the one due. With CRCs off, ULPDU_Length 4 too
        large and a missing CRC field frame every FPDU at the same boundaries (the four octets
        read as CRC are ULPDU, or the reverse): nothing on the wire says which. Four zero
        octets of pad where the RFC gives none are what a sender counting ULPDU_Length 4 short
        of a ULPDU ending in four zeros sends, its CRC (when on) over the same octets. A CRC
        over the FPDU but its ULPDU_Length field, markers among the octets, is no coverage the
        catalogue lists, but fpdu.crc-miscomputed names it truly if a checker recognises it."""
        if self.model.name == "length+4" and not self.stream.crc:
            return {"fpdu.ulpdu-length-miscounted": {"fpdu.crc-field-missing"}}
        if self.model.name == "pad-always-4":
            return {"fpdu.pad-rule-wrong": {"fpdu.ulpdu-length-miscounted"}}
        if self.model.name == "crc-without-length":
            return {"fpdu.crc-mismatch": {"fpdu.crc-miscomputed"}}
        return {}

    def expected_findings(self):
        """Catalogue ids the stream should draw (errors and warnings of the framing)."""
        due = set()
        deviant = [f for f in self.stream.fpdus if f.deviant]
        if self.model.finding and deviant:
            # The first deviant FPDU's: where a model's FPDUs draw different ids (a CRC error
            # ends the judging of the direction, RFC 5044 8), the first is the one named.
            due.add(deviant[0].finding)
        if self.stream.fpduptr_low_bits:
            due.add("marker.fpduptr-low-bits")
        if self.stream.pad_nonzero_as_read and not self.shows_deviation():
            due.add("fpdu.pad-nonzero")  # nothing tells a reader these octets are ULPDU
        if self.stream.too_short_as_read and not self.shows_deviation():
            due.add("ddp.ulpdu-too-short")  # ... nor these: the DDP header runs into the pad
        return due


def _pick(rng, domain):
    """A domain entry: a model's name, optionally with the conditions it is judged under
    ("pad-none@crc-off,markers-off"): they apply to the direction the model sends in."""
    name, _, conditions = rng.choice(domain).partition("@")
    model = rf.MODELS[name]
    wants = set(conditions.split(",")) - {""}
    if model.needs_crc:
        wants.add("crc-on")
    if model.needs_markers:
        wants.add("markers-on")
    return model, wants


def _negotiate(rng, entries):
    """Random startup flags, bent to what each side's entry needs. CRCs are on both ways if
    either side asks (RFC 5044 7.1.2: C), so a Responder entry wanting them otherwise than
    the Initiator's yields to the RFC model."""
    (_, ini_wants), (_, res_wants) = entries
    if {"crc-on", "crc-off"} <= ini_wants | res_wants:
        entries[1] = (rf.RFC, set())
        res_wants = set()
    wants = ini_wants | res_wants
    req_m, rep_m = rng.random() < 0.4, rng.random() < 0.4
    req_c, rep_c = rng.random() < 0.6, rng.random() < 0.6
    # Markers towards the Responder are the Reply's M, towards the Initiator the Request's.
    rep_m = {"markers-on": True, "markers-off": False}.get(_one(ini_wants, "markers"), rep_m)
    req_m = {"markers-on": True, "markers-off": False}.get(_one(res_wants, "markers"), req_m)
    if "crc-off" in wants:
        req_c = rep_c = False
    elif "crc-on" in wants and not (req_c or rep_c):
        req_c = True
    return req_m, req_c, rep_m, rep_c


def _one(wants, what):
    for w in wants:
        if w.startswith(what + "-"):
            return w
    return None


def _ulpdu_sizes(rng, bound, count):
    sizes = []
    for _ in range(count):
        if rng.random() < 0.5:
            size = rng.randint(rf.DDP_HEADER, min(bound, 80))
        else:  # log-uniform up to the bound: many small, some near MULPDU
            size = int(round(rf.DDP_HEADER * (bound / rf.DDP_HEADER) ** rng.random()))
        sizes.append(max(rf.DDP_HEADER, min(bound, size)))
    return sizes


def _segment(rng, side):
    """Cuts the side's full-operation octets into TCP segment payloads."""
    wire, fpdus, mss = side.stream.wire, side.stream.fpdus, side.mss
    how = rng.choice(SEGMENTATIONS)
    side.segmentation = how
    bounds = [f.start for f in fpdus] + [len(wire)]
    cuts = []
    if how == "fpdu-aligned":
        for a, b in zip(bounds, bounds[1:]):
            while b - a > mss:
                cuts.append((a, a + mss))
                a += mss
            cuts.append((a, b))
    elif how == "packed":  # whole FPDUs packed up to the MSS, sometimes fewer
        a = 0
        for s, e in zip(bounds, bounds[1:]):
            if a < s and (e - a > mss or rng.random() < 0.3):
                cuts.append((a, s))
                a = s
            while e - a > mss:
                cuts.append((a, a + mss))
                a += mss
        if a < len(wire):
            cuts.append((a, len(wire)))
    else:
        top = mss if how == "random-cuts" else 16
        a = 0
        while a < len(wire):
            b = min(len(wire), a + rng.randint(1, top))
            cuts.append((a, b))
            a = b
    return [(a, bytes(wire[a:b])) for a, b in cuts if b > a]


class Conversation:
    def __init__(self, seed, domain_models, port):
        rng = random.Random(seed)
        self.seed = seed
        self.port = port
        entries = [_pick(rng, domain_models), _pick(rng, domain_models)]
        self.req_m, self.req_c, self.rep_m, self.rep_c = _negotiate(rng, entries)
        models = (entries[0][0], entries[1][0])
        crc = self.req_c or self.rep_c
        mss = rng.choice(MSS_CHOICES)
        self.mss = mss
        self.request_pd = bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 256)))
        self.reply_pd = bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 256)))
        # Markers towards a side are what that side asked for (RFC 5044 7.1.2: M). Each side
        # sent its startup frame (20 octets and the private data) from its ISN + 1 on.
        self.initiator = Side("initiator", models[0], self.rep_m, crc, mss,
                              20 + len(self.request_pd))
        self.responder = Side("responder", models[1], self.req_m, crc, mss,
                              20 + len(self.reply_pd))
        for side in (self.initiator, self.responder):
            bound = min(9000, rf.mulpdu(mss, side.stream.markers_negotiated))
            sizes = _ulpdu_sizes(rng, bound, rng.randint(1, 12))
            for msn, size in enumerate(sizes, start=1):
                side.stream.add(rf.ddp_send(msn, size, rng), rng)
            side.segments = _segment(rng, side)
        self.initiator.isn = rng.getrandbits(32)
        self.responder.isn = rng.getrandbits(32)
        self.rng = rng

    def sides(self):
        return (self.initiator, self.responder)

    def packets(self):
        """(from_initiator, seq, ack, flags, payload, tcp options) in capture order."""
        rng = self.rng
        ini, res = self.initiator, self.responder
        nxt = {"initiator": ini.isn, "responder": res.isn}
        out = []

        def send(side, flags, payload=b"", options=b"", syn_fin=0):
            peer = "responder" if side.role == "initiator" else "initiator"
            seq = nxt[side.role]
            ack = nxt[peer] if flags != 0x02 else 0
            out.append((side.role == "initiator", seq, ack, flags, payload, options))
            nxt[side.role] = (seq + len(payload) + syn_fin) & 0xFFFFFFFF

        mss_opt = struct.pack(">BBH", 2, 4, self.mss)
        send(ini, 0x02, options=mss_opt, syn_fin=1)
        send(res, 0x12, options=mss_opt, syn_fin=1)
        send(ini, 0x10)
        request = rf.startup_frame(rf.REQUEST_KEY, self.req_m, self.req_c, self.request_pd)
        reply = rf.startup_frame(rf.REPLY_KEY, self.rep_m, self.rep_c, self.reply_pd)
        send(ini, 0x18, request)
        send(res, 0x10)
        send(res, 0x18, reply)
        ini.full_operation = nxt["initiator"]
        res.full_operation = nxt["responder"]
        send(ini, 0x10)
        queues = {"initiator": list(ini.segments), "responder": list(res.segments)}
        by_role = {"initiator": ini, "responder": res}
        # The Initiator speaks first in full operation: the Responder sends nothing before
        # it has the Initiator's whole first FPDU (RFC 5044 7.1.2).
        first_end = ini.stream.fpdus[1].start if len(ini.stream.fpdus) > 1 else len(ini.stream.wire)
        while queues["initiator"] and queues["initiator"][0][0] < first_end:
            send(ini, 0x18, queues["initiator"].pop(0)[1])
        while queues["initiator"] or queues["responder"]:
            role = rng.choice([r for r in queues if queues[r]])
            send(by_role[role], 0x18, queues[role].pop(0)[1])
            if rng.random() < 0.3:
                send(by_role["responder" if role == "initiator" else "initiator"], 0x10)
        send(res, 0x10)
        send(ini, 0x10)
        send(ini, 0x11, syn_fin=1)
        send(res, 0x11, syn_fin=1)
        send(ini, 0x10)
        return out


# --- pcap (classic, LINKTYPE_ETHERNET, microseconds) ----------------------------------------
def _ipv4_checksum(header):
    s = sum(struct.unpack(">10H", header))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


def frame(from_client, client_port, seq, ack, flags, payload, options):
    src, dst = (CLIENT_IP, SERVER_IP) if from_client else (SERVER_IP, CLIENT_IP)
    sport, dport = (client_port, SERVER_PORT) if from_client else (SERVER_PORT, client_port)
    tcp_len = 20 + len(options)
    tcp = struct.pack(">HHIIBBHHH", sport, dport, seq, ack, (tcp_len // 4) << 4, flags,
                      65535, 0, 0) + options
    total = 20 + tcp_len + len(payload)
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, total, 0, 0x4000, 64, 6, 0, src, dst)
    ip = ip[:10] + struct.pack(">H", _ipv4_checksum(ip)) + ip[12:]
    macs = (b"\x02\x00\x00\x00\x00\x01", b"\x02\x00\x00\x00\x00\x02")
    eth = (macs[1] + macs[0] if from_client else macs[0] + macs[1]) + b"\x08\x00"
    return eth + ip + tcp + payload


class PcapWriter:
    def __init__(self, path):
        self.f = open(path, "wb")
        self.f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 262144, 1))
        self.usec = 1_700_000_000 * 1_000_000

    def write(self, data):
        self.usec += 10
        self.f.write(struct.pack("<IIII", self.usec // 1_000_000, self.usec % 1_000_000,
                                 len(data), len(data)))
        self.f.write(data)

    def close(self):
        self.f.close()


def write_pcap(path, conversations):
    w = PcapWriter(path)
    for c in conversations:
        for from_client, seq, ack, flags, payload, options in c.packets():
            w.write(frame(from_client, c.port, seq, ack, flags, payload, options))
        w.usec += 1_000_000  # a second between conversations
    w.close()
