"""Media files of a bundle without image libraries: PNG written and read
with zlib, the size of a PNG or JPEG from its header, float32 .npy files.

write_png() writes one IDAT chunk of unfiltered rows compressed at level 9,
so the same pixels always give the same bytes.
"""
import io
import struct
import zlib

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_COLOR_TYPES = {1: 0, 2: 4, 3: 2, 4: 6}  # channels -> PNG colour type
_CHANNELS = {0: 1, 2: 3, 4: 2, 6: 4}  # PNG colour type -> channels


def _chunk(tag, body):
    return (struct.pack(">I", len(body)) + tag + body
            + struct.pack(">I", zlib.crc32(tag + body)))


def png_bytes(array):
    """The PNG file of an H x W (grey), H x W x 3 (RGB) or H x W x 4 (RGBA)
    uint8 array."""
    np = _numpy()
    a = np.ascontiguousarray(array)
    if a.ndim == 2:
        a = a[:, :, None]
    h, w, c = a.shape
    raw = b"".join(b"\x00" + a[y].tobytes() for y in range(h))
    return (PNG_SIGNATURE
            + _chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8,
                                          _COLOR_TYPES[c], 0, 0, 0))
            + _chunk(b"IDAT", zlib.compress(raw, 9)) + _chunk(b"IEND", b""))


def write_png(path, array):
    """Writes an H x W, H x W x 3 or H x W x 4 uint8 array as a PNG file."""
    data = png_bytes(array)
    with open(path, "wb") as f:
        f.write(data)


def read_png(path):
    """An 8-bit, non-interlaced PNG file as a uint8 array: H x W x 3 for
    RGB, H x W x 4 for RGBA, H x W x 2 for grey with alpha, H x W for grey.
    Palette, 16-bit and interlaced files raise ValueError."""
    np = _numpy()
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != PNG_SIGNATURE:
        raise ValueError("%s: not a PNG file" % path)
    pos, idat, head = 8, [], None
    while pos + 8 <= len(data):
        n, tag = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if tag == b"IHDR":
            head = struct.unpack(">IIBBBBB", body[:13])
        elif tag == b"IDAT":
            idat.append(body)
        elif tag == b"IEND":
            break
        pos += 12 + n
    if head is None:
        raise ValueError("%s: PNG without IHDR" % path)
    w, h, depth, ctype, _, _, interlace = head
    if depth != 8 or ctype not in _CHANNELS or interlace:
        raise ValueError("%s: only 8-bit grey, RGB and RGBA PNG files without "
                         "interlacing are read (bit depth %d, colour type %d)"
                         % (path, depth, ctype))
    c = _CHANNELS[ctype]
    stride = w * c
    raw = np.frombuffer(zlib.decompress(b"".join(idat)), dtype=np.uint8)
    raw = raw[:h * (stride + 1)].reshape(h, stride + 1)
    out = np.zeros((h, stride), dtype=np.uint8)
    prev = np.zeros(stride, dtype=np.int32)
    for y in range(h):
        f = raw[y, 0]
        line = raw[y, 1:].astype(np.int32)
        if f == 0:
            cur = line
        elif f == 2:
            cur = (line + prev) & 255
        elif f == 1:
            cur = np.cumsum(line.reshape(w, c), axis=0).reshape(-1) & 255
        elif f in (3, 4):
            cur = _unfilter_left(line, prev, f, c)
        else:
            raise ValueError("%s: bad PNG filter %d in row %d" % (path, f, y))
        out[y] = cur
        prev = cur
    shape = (h, w) if c == 1 else (h, w, c)
    return out.reshape(shape)


def _unfilter_left(line, prev, f, c):
    """Average and Paeth filters: one pass over the row."""
    cur = [0] * len(line)
    up = prev.tolist()
    raw = line.tolist()
    for i in range(len(raw)):
        a = cur[i - c] if i >= c else 0
        b = up[i]
        if f == 3:
            cur[i] = (raw[i] + (a + b) // 2) & 255
        else:
            cc = up[i - c] if i >= c else 0
            p = a + b - cc
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - cc)
            pr = a if pa <= pb and pa <= pc else b if pb <= pc else cc
            cur[i] = (raw[i] + pr) & 255
    np = _numpy()
    return np.array(cur, dtype=np.int32)


def image_size(path):
    """(width, height) of a PNG or JPEG file from its header, or None when
    the file is neither."""
    with open(path, "rb") as f:
        head = f.read(32)
        if head[:8] == PNG_SIGNATURE and head[12:16] == b"IHDR":
            return struct.unpack(">II", head[16:24])
        if head[:2] != b"\xff\xd8":
            return None
        f.seek(2)
        while True:
            b = f.read(1)
            while b and b != b"\xff":
                b = f.read(1)
            while b == b"\xff":
                b = f.read(1)
            if not b:
                return None
            marker = b[0]
            if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
                continue
            n = struct.unpack(">H", f.read(2))[0]
            if (0xC0 <= marker <= 0xCF
                    and marker not in (0xC4, 0xC8, 0xCC)):
                _, h, w = struct.unpack(">BHH", f.read(5))
                return w, h
            f.seek(n - 2, 1)


def npy_header(path):
    """The header of an .npy file as a dict (descr, fortran_order, shape);
    ValueError when the file is not one."""
    import ast
    with open(path, "rb") as f:
        head = f.read(10)
        if head[:6] != b"\x93NUMPY" or len(head) < 10:
            raise ValueError("'%s': not an .npy file" % path)
        if head[6] == 1:
            n = struct.unpack("<H", head[8:10])[0]
        else:
            n = struct.unpack("<I", head[8:10] + f.read(2))[0]
        try:
            d = ast.literal_eval(f.read(n).decode("latin-1"))
            d["shape"] = tuple(d["shape"])
        except (ValueError, SyntaxError, KeyError, TypeError):
            raise ValueError("'%s': the .npy header cannot be read" % path)
    return d


def npy_bytes(array):
    """The .npy file of a 2-D array as little-endian float32 in C order
    (what simlab's heatmaps are)."""
    np = _numpy()
    a = np.ascontiguousarray(array, dtype="<f4")
    buf = io.BytesIO()
    np.save(buf, a, allow_pickle=False)
    return buf.getvalue()


def _numpy():
    try:
        import numpy
    except ImportError as e:  # pragma: no cover - Debian: python3-numpy
        raise ImportError("simlab needs numpy for arrays (Debian: apt-get "
                          "install python3-numpy)") from e
    return numpy
