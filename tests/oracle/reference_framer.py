"""Reference MPA sender (RFC 5044 sections 4, 5 and 7.1), written apart from lib/ and mpa-synth.

This module knows nothing of mpa-check: it frames ULPDUs the way a sender does (the RFC's
way, or one of the deviations a real sender has been seen to make), segments the stream,
and writes the conversation as a classic pcap. What it says about each stream (the FPDUs
and the deviation the stream shows) is the oracle's expectation.
"""

import random
import struct

# --- CRC32c (Castagnoli), from its definition ------------------------------------------
# The polynomial 0x1EDC6F41 bit-reflected is 0x82F63B78; the register starts at all ones,
# octets enter least significant bit first, and the result is complemented (as iSCSI's
# digests, which RFC 5044 4.4 names).
CASTAGNOLI_REFLECTED = 0x82F63B78


def _crc32c_table():
    table = []
    for octet in range(256):
        r = octet
        for _ in range(8):
            r = (r >> 1) ^ CASTAGNOLI_REFLECTED if r & 1 else r >> 1
        table.append(r)
    return table


_TABLE = _crc32c_table()


def crc32c(data, crc=0):
    """CRC32c of data; pass a previous result as crc to continue over more octets."""
    r = crc ^ 0xFFFFFFFF
    table = _TABLE
    for octet in data:
        r = table[(r ^ octet) & 0xFF] ^ (r >> 8)
    return r ^ 0xFFFFFFFF


def crc_wire(value):
    """The CRC field's four octets: the register's low octet first, as iSCSI sends digests
    (RFC 5044's Figure 5 ends in 52 23 99 83 for the value 0x83992352)."""
    return struct.pack("<I", value)


# --- Sender framing models ---------------------------------------------------------------
MARKER_INTERVAL = 512
DDP_HEADER = 18  # an untagged DDP Send header (RFC 5041) with its RDMAP control octet


class Model:
    """How a sender frames: the RFC's way by default; a deviation overrides one step."""

    name = "rfc"
    finding = None  # the catalogue id a checker should name for it (None: conformant)
    needs_crc = False  # the deviation shows only when CRCs are on in that direction
    needs_markers = False  # ... only when markers are on in that direction
    # Whether an RFC reader finds this sender's markers where it looks for them (RFC 5044 4.3's
    # grid): where it does not, the first marker error ends its judging of the direction
    # (RFC 5044 8), and what the sender's own markers hold is not read.
    markers_on_rfc_grid = True

    def length_field(self, n):
        return n

    def pad(self, n):
        return (-(2 + n)) % 4

    def has_crc_field(self):
        return True

    def inserts_markers(self, negotiated):
        return negotiated

    def marker_phase(self, startup_octets):
        """Where the sender's marker grid starts: markers stand at stream offsets p with
        (p + phase) mod 512 = 0. RFC 5044 4.3: the first marker immediately precedes the first
        FPDU of full operation (phase 0); startup_octets is the length of the startup frame
        this side sent, from its ISN + 1 to full operation."""
        return 0

    def crc_value(self, covered, lead, header, ulpdu, pad):
        """The CRC field's value; covered is the FPDU as on the wire (leading marker, header,
        ULPDU, pad and the markers among them), its ULPDU_Length field at covered[lead:]."""
        return crc32c(covered)

    def finding_for(self, covered, lead, header, ulpdu, pad):
        """The catalogue id a deviant FPDU of this sender draws (most models: one for all)."""
        return self.finding


class LengthOff(Model):
    def __init__(self, delta):
        self.delta = delta
        self.name = "length%+d" % delta
        self.finding = "fpdu.ulpdu-length-miscounted"

    def length_field(self, n):
        return (n + self.delta) & 0xFFFF


class PadRule(Model):
    finding = "fpdu.pad-rule-wrong"

    def __init__(self, name, rule):
        self.name = name
        self.rule = rule

    def pad(self, n):
        return self.rule(n)


class CrcFieldMissing(Model):
    name = "crc-field-missing"
    finding = "fpdu.crc-field-missing"

    def has_crc_field(self):
        return False


class CrcUlpduOnly(Model):
    name = "crc-ulpdu-only"
    finding = "fpdu.crc-miscomputed"
    needs_crc = True

    def crc_value(self, covered, lead, header, ulpdu, pad):
        return crc32c(ulpdu)


class CrcWithoutMarkers(Model):
    name = "crc-without-markers"
    finding = "fpdu.crc-miscomputed"
    needs_crc = True
    needs_markers = True

    def crc_value(self, covered, lead, header, ulpdu, pad):
        return crc32c(header + ulpdu + pad)


class CrcZero(Model):
    name = "crc-zero"
    finding = "fpdu.crc-miscomputed"
    needs_crc = True

    def crc_value(self, covered, lead, header, ulpdu, pad):
        return 0


class MarkersAbsent(Model):
    name = "markers-absent"
    finding = "fpdu.markers-missing"
    needs_markers = True

    def inserts_markers(self, negotiated):
        return False


class CrcByteSwapped(Model):
    """The right CRC32c, its most significant octet sent first (RFC 5044 4.4 sends it as iSCSI
    does, low octet first: Figure 5's 52 23 99 83 for 0x83992352)."""

    name = "crc-byte-swapped"
    finding = "fpdu.crc-miscomputed"
    needs_crc = True

    def crc_value(self, covered, lead, header, ulpdu, pad):
        return struct.unpack("<I", struct.pack(">I", crc32c(covered)))[0]


class CrcNotInverted(Model):
    """CRC32c over the right octets without the final complement iSCSI's digest has."""

    name = "crc-not-inverted"
    finding = "fpdu.crc-miscomputed"
    needs_crc = True

    def crc_value(self, covered, lead, header, ulpdu, pad):
        return crc32c(covered) ^ 0xFFFFFFFF


class CrcUlpduAndPad(Model):
    """CRC32c over the ULPDU and its pad only, as iSCSI's data digest covers a data segment and
    its pad (no ULPDU_Length, no markers): the same value as crc-ulpdu-only where the pad is 0."""

    name = "crc-ulpdu-and-pad"
    finding = "fpdu.crc-miscomputed"
    needs_crc = True

    def crc_value(self, covered, lead, header, ulpdu, pad):
        return crc32c(ulpdu + pad)


class CrcWithoutLeadingMarker(Model):
    """CRC32c from ULPDU_Length on, leaving out a marker that stands just before it (RFC 5044
    4.4, case 2, puts it in). Deviant only in FPDUs that a marker leads."""

    name = "crc-without-leading-marker"
    finding = "fpdu.crc-miscomputed"
    needs_crc = True
    needs_markers = True

    def crc_value(self, covered, lead, header, ulpdu, pad):
        return crc32c(covered[lead:])


class CrcWithoutLength(Model):
    """CRC32c over everything RFC 5044 4.4 names but the ULPDU_Length field: a leading marker,
    the ULPDU, the markers in it and the pad. Where no marker is among those octets this is
    iSCSI's data digest (crc-ulpdu-and-pad), which the catalogue names fpdu.crc-miscomputed;
    with a marker among them no recognisable wrong way is named (docs/design.md lists the
    coverages it knows), and an RFC receiver sees fpdu.crc-mismatch."""

    name = "crc-without-length"
    finding = "fpdu.crc-mismatch"
    needs_crc = True
    needs_markers = True

    def crc_value(self, covered, lead, header, ulpdu, pad):
        assert covered[lead:lead + 2] == header
        return crc32c(covered[:lead] + covered[lead + 2:])

    def finding_for(self, covered, lead, header, ulpdu, pad):
        if len(covered) == len(header) + len(ulpdu) + len(pad):
            return "fpdu.crc-miscomputed"
        return self.finding


class MarkersFromIsn(Model):
    """Markers every 512 octets counted from the sender's ISN + 1 (the first octet of its
    startup frame) instead of from the first octet of full operation (RFC 5044 4.3), each
    FPDUPTR right for where it stands. An RFC reader finds the ULPDU_Length field and DDP
    control octets where the first marker belongs: FPDUPTR 0x4143, not 0, and the marker
    error ends its judging (RFC 5044 8). A startup frame is 20 to 276 octets here, so the
    grid never coincides with the RFC's."""

    name = "markers-from-isn"
    finding = "marker.fpduptr-mismatch"
    needs_markers = True
    markers_on_rfc_grid = False

    def marker_phase(self, startup_octets):
        return startup_octets % MARKER_INTERVAL


DEVIATIONS = [
    LengthOff(+2),
    LengthOff(+4),
    LengthOff(-2),
    LengthOff(-4),
    LengthOff(+1),
    LengthOff(-1),
    PadRule("pad-ulpdu-to-4", lambda n: (-n) % 4),
    PadRule("pad-none", lambda n: 0),
    PadRule("pad-n+2-mod-4", lambda n: (n + 2) % 4),
    PadRule("pad-n-mod-4", lambda n: n % 4),
    PadRule("pad-always-4", lambda n: (-(2 + n)) % 4 or 4),
    CrcFieldMissing(),
    CrcUlpduOnly(),
    CrcWithoutMarkers(),
    CrcZero(),
    MarkersAbsent(),
    CrcByteSwapped(),
    CrcNotInverted(),
    CrcUlpduAndPad(),
    CrcWithoutLeadingMarker(),
    CrcWithoutLength(),
    MarkersFromIsn(),
]
RFC = Model()
MODELS = {m.name: m for m in [RFC] + DEVIATIONS}


class Fpdu:
    """One FPDU as sent: where it starts (its leading marker, if any), where its
    ULPDU_Length field is, what that field says, and whether it differs from the RFC's."""

    def __init__(self, start, header, length_field, ulpdu_length, deviant, finding=None):
        self.start = start  # stream offset from the first octet of full operation
        self.header = header
        self.length_field = length_field
        self.ulpdu_length = ulpdu_length
        self.deviant = deviant
        self.finding = finding  # the id a deviant FPDU draws (Model.finding_for)


class FramedStream:
    """A direction's full-operation octets and what they hold."""

    def __init__(self, model, markers, crc, startup_octets=0):
        self.model = model
        self.markers_negotiated = markers
        self.crc = crc
        self.wire = bytearray()
        self.fpdus = []
        self.markers = self.model.inserts_markers(markers)
        self.phase = self.model.marker_phase(startup_octets)
        self.marker_at = []  # stream offsets of the markers inserted
        self.fpduptr_low_bits = 0  # markers whose FPDUPTR has a low bit set
        self.pad_nonzero_as_read = 0  # FPDUs an RFC reading finds non-zero pad octets in
        self.too_short_as_read = 0  # ... or a ULPDU shorter than the DDP header it begins with

    def _put(self, octets, header_at):
        """Appends octets, inserting a marker before any octet that falls on the interval."""
        for octet in octets:
            self._marker_here(header_at)
            self.wire.append(octet)

    def _marker_here(self, header_at):
        pos = len(self.wire)
        if self.markers and (pos + self.phase) % MARKER_INTERVAL == 0:
            fpduptr = 0 if header_at is None else pos - header_at
            # Where a deviant pad leaves FPDUs off a multiple of 4, the sender still points
            # at its header: the low two bits are then not zero (RFC 5044 4.2 says they are).
            # (Markers off the RFC's grid are not read as markers by an RFC reader.)
            self.fpduptr_low_bits += (fpduptr & 3) != 0 and self.model.markers_on_rfc_grid
            self.marker_at.append(pos)
            self.wire += struct.pack(">HH", 0, fpduptr)

    def add(self, ulpdu, rng):
        m = self.model
        n = len(ulpdu)
        start = len(self.wire)
        self._marker_here(None)  # a marker between FPDUs belongs to the following one
        header_at = len(self.wire)
        field = m.length_field(n)
        header = struct.pack(">H", field)
        pad = bytes(m.pad(n))
        self._put(header + ulpdu + pad, header_at)
        # Deviant means no RFC sender could have sent these octets: a ULPDU_Length off by 2
        # whose pad makes up for it frames the same octets as the RFC would (the receiver
        # reads pad octets as ULPDU, or ULPDU octets as pad).
        deviant = 2 + n + len(pad) != 2 + field + RFC.pad(field)
        if not deviant and field < n:
            self.pad_nonzero_as_read += any(ulpdu[field:])
            # (every ULPDU here is an untagged DDP Send: its header is DDP_HEADER octets)
            self.too_short_as_read += field < DDP_HEADER
        finding = m.finding
        if m.has_crc_field():
            self._marker_here(header_at)  # a marker just after the pad is the FPDU's
            if self.crc:
                covered = bytes(self.wire[start:])
                lead = header_at - start
                value = m.crc_value(covered, lead, header, ulpdu, pad)
                deviant |= value != crc32c(covered)
                finding = m.finding_for(covered, lead, header, ulpdu, pad)
            else:
                value = rng.getrandbits(32) if rng.random() < 0.5 else 0
            self._put(crc_wire(value), header_at)
        else:
            deviant = True
        if self.markers_negotiated:
            # Where a marker belonged (RFC 5044 4.3's grid), none is, or one stands elsewhere.
            due = set(range(start + (-start) % MARKER_INTERVAL, len(self.wire), MARKER_INTERVAL))
            deviant |= due != {o for o in self.marker_at if o >= start}
        self.fpdus.append(Fpdu(start, header_at, field, n, deviant, finding))


def ddp_send(msn, size, rng):
    """A ULPDU of size octets: an untagged DDP Send, last segment, queue 0, RDMAP v1."""
    head = struct.pack(">BBIIII", 0x41, 0x43, 0, 0, msn, 0)
    body = bytes(rng.getrandbits(8) for _ in range(min(size - DDP_HEADER, 64)))
    body = (body * ((size - DDP_HEADER) // max(len(body), 1) + 1))[: size - DDP_HEADER]
    return head + body


def mulpdu(emss, markers):
    if markers:
        return emss - (6 + 4 * -(-emss // MARKER_INTERVAL) + emss % 4)
    return emss - (6 + emss % 4)


# --- Startup frames (RFC 5044 7.1) ----------------------------------------------------------
def startup_frame(key, m, c, private_data):
    flags = (0x80 if m else 0) | (0x40 if c else 0)
    return key + struct.pack(">BBH", flags, 1, len(private_data)) + private_data


REQUEST_KEY = b"MPA ID Req Frame"
REPLY_KEY = b"MPA ID Rep Frame"
