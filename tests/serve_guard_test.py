"""simlab serve against a stranger's tricks, over HTTP: the pilot link's
secret printed (and pilot=1 no pilot); an image of the bundle swapped for a
link to /etc/passwd, or replaced by a copy, after the start is not served;
connections trickling a request are closed by the read deadline however
slowly they send; one address holds at most --max-per-address connections
while everyone else is served; the limit of open files is raised at start.
usage: serve_guard_test.py SIMLAB STUDY_DIR IMAGE"""

import os
import re
import socket
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_client import (Participant, Server, bundle_with_image, check,
                          report, sqlite)

simlab, study_src, image = sys.argv[1:4]
tmp = tempfile.mkdtemp(prefix="simlab-guard-")
study = bundle_with_image(study_src, os.path.join(tmp, "study"), image)
db = os.path.join(tmp, "g.db")

# the limit of open files is raised to the hard limit at start
soft = 1024
hard = None
try:
    import resource
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
except (ValueError, OSError):
    pass
srv = Server(simlab, study, db, ["--proxy", "none", "--max-per-address", "20"])
with open(f"/proc/{srv.proc.pid}/limits") as f:
    line = [x for x in f if x.startswith("Max open files")][0].split()
if hard and hard != soft:
    check(int(line[3]) == hard or line[3] == "unlimited",
          f"open files raised to the hard limit: {line[3]} of {hard}")

# the pilot link: its secret, and pilot=1 is none
m = re.search(r"pilot link[^\n]*\?participant=ID&pilot=([0-9a-f]{24})\n",
              srv.out())
check(m is not None, "the pilot link is printed with its secret")
secret = m.group(1) if m else ""
for ext, pilot in (("plain-1", "1"), ("pilot-1", secret)):
    p = Participant(srv, ext)
    p.start(pilot=pilot)
    p.answer()
check(sqlite(db, "SELECT code FROM participant WHERE pilot = 1") == "pilot-1",
      "only the secret makes a pilot")

# the consent shows the bundle's image, then it is swapped
p = Participant(srv, "viewer-1")
st, _, body = p.start()
urls = re.findall(r'media/[0-9a-f]{32}/\d+/\d+', str(body))
check(len(urls) >= 1, "the consent shows the image: " + str(urls))
url = "/" + urls[0] if urls else "/media/x"
st, h, data = srv.request("GET", url)
with open(image, "rb") as f:
    original = f.read()
check(st == 200 and data == original, f"the image is served ({st})")
fig = os.path.join(study, "pages", "figure.png")
os.rename(fig, fig + ".orig")
os.symlink("/etc/passwd", fig)
st, h, data = srv.request("GET", url)
check(st == 404 and b"root:" not in (data if isinstance(data, bytes) else b""),
      f"a link put in its place is not followed ({st})")
os.remove(fig)
with open(fig + ".orig", "rb") as f, open(fig, "wb") as g:
    g.write(f.read())
st, h, data = srv.request("GET", url)
check(st == 404, f"a copy put in its place is not the file hashed ({st})")
check("no longer the file of the bundle" in srv.err(),
      "the change is named on stderr")

# trickling: a request's first line, then a byte a second
def trickle(source):
    s = socket.socket()
    s.bind((source, 0))
    s.settimeout(1)
    try:
        s.connect(("127.0.0.1", srv.port))
        s.sendall(b"POST /api/start HTTP/1.1\r\nHost: x\r\n")
    except OSError:
        s.close()
        return None
    s.setblocking(False)
    return s


def closed(s):
    """1 when the server closed s (reset, or the end of the stream)."""
    try:
        return s.recv(1) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


socks = [trickle("127.0.0.2") for _ in range(40)]
socks = [s for s in socks if s]
# the server closes the extra ones as it accepts them (slower under a
# sanitizer): wait up to 5 s for them
alive = socks
for _ in range(50):
    time.sleep(0.1)
    alive = [s for s in alive if not closed(s)]
    if len(alive) <= 20:
        break
check(len(alive) == 20,
      f"one address holds at most 20 connections: {len(alive)} of 40")
t0 = time.time()
served = 0
while time.time() - t0 < 16:
    st, _, _ = srv.request("GET", "/health", timeout=2)
    served += st == 200
    for s in alive:
        try:
            s.send(b"X")  # one more byte of a header
        except OSError:
            pass
    if all(closed(s) for s in alive):
        break
    time.sleep(1)
took = time.time() - t0
check(all(closed(s) for s in alive),
      "the trickling connections are closed by the read deadline")
check(took < 15, f"within the deadline, not extended by the bytes ({took:.1f} s)")
check(served >= 1, "others are served meanwhile")
for s in socks:
    s.close()
st, _, _ = srv.request("GET", "/health", source="127.0.0.2")
check(st == 200, "the address is served again once its connections went")
check(srv.stop() == 0, "stops cleanly")
sys.exit(report())
