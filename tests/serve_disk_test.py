"""simlab serve on a full disk (a small tmpfs in a mount namespace of this
test's own): a write the disk refuses is answered 503 with Retry-After
and nothing is acknowledged; the server keeps running through failed
heartbeats and says so; a new browser is still shown the consent (nothing
to write); once space returns the answers kept by the browser are stored
without a restart, every step once. A server started on the full disk
says so and waits, and starts once there is space.
usage: serve_disk_test.py SIMLAB STUDY_DIR"""

import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_client import Participant, Server, check, report, skip, sqlite

if not os.environ.get("SIMLAB_DISK_NS"):
    # again in a user and mount namespace, where a tmpfs can be mounted
    env = dict(os.environ, SIMLAB_DISK_NS="1")
    if not shutil.which("unshare"):
        skip("unshare is missing (util-linux)")
    probe = subprocess.run(["unshare", "-rm", "true"], capture_output=True)
    if probe.returncode != 0:
        skip("no user namespaces here: " + probe.stderr.decode().strip())
    sys.exit(subprocess.run(["unshare", "-rm", sys.executable, *sys.argv],
                            env=env).returncode)

simlab, study = sys.argv[1:3]
tmp = tempfile.mkdtemp(prefix="simlab-disk-")
disk = os.path.join(tmp, "disk")
os.mkdir(disk)
if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs",
                   disk]).returncode != 0:
    skip("cannot mount a tmpfs")
db = os.path.join(disk, "s.db")
fill = os.path.join(disk, "fill")


def fill_disk():
    fd = os.open(fill, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    for chunk in (65536, 4096, 512, 1):
        try:
            while True:
                os.write(fd, b"\0" * chunk)
        except OSError:
            pass
    os.close(fd)


def free_disk():
    os.remove(fill)


def logged(srv, text, seconds):
    end = time.time() + seconds
    while time.time() < end:
        if text in srv.err():
            return True
        time.sleep(0.2)
    return False


srv = Server(simlab, study, db, ["--station", "disk1"],
             logs=os.path.join(tmp, "s"))
p = Participant(srv, "full-disk-1", "sess1")
p.start()
for _ in range(3):
    st, _, _ = p.answer()
check(st == 200, "answers stored while there is space")

fill_disk()
refused = None
for _ in range(60):
    ins = p.inputs()
    st, h, b = p.send(ins)
    if st == 503:
        refused = (ins, h, b)
        break
    check(st == 200, f"answered {st}")
check(refused is not None, "a write the full disk refuses gets 503")
if refused:
    ins, h, b = refused
    check(h.get("Retry-After") == "1", "with Retry-After: " + str(h))
    check(isinstance(b, dict) and b.get("retry_ms") == 1000, "and retry_ms")
    before = list(p.pos)
    time.sleep(7)  # heartbeats fail meanwhile
    check(srv.alive(), "the server keeps running on the full disk")
    check(logged(srv, "writes fail", 5), "and says writes fail")
    st, _, _ = p.send(ins)
    check(st == 503 and p.pos == before, "still 503 while the disk is full")
    fresh = Participant(srv, "arrives-meanwhile", "sess2")
    st, _, body = fresh.start()
    check(st == 200 and body["view"]["screen"] == "consent",
          f"a new browser is shown the consent meanwhile ({st})")
    free_disk()
    st, _, _ = p.send(ins)
    check(st == 200 and p.pos != before,
          f"the kept answer is stored once there is space ({st})")
    check(logged(srv, "writes succeed again", 8), "and says so")
for _ in range(200):
    if p.view["screen"] == "done":
        break
    st, _, b = p.answer()
    if st == 429:  # the rate limit: the test answers faster than people
        time.sleep(1)
        continue
    if st != 200:
        print("answer:", st, b)
        break
check(p.view["screen"] == "done", "the participant finishes")
pid = sqlite(db, "SELECT id FROM participant WHERE code='full-disk-1'")
steps = sqlite(db, f"SELECT count(*) FROM trial WHERE participant='{pid}'")
done = sqlite(db, f"SELECT count(*) FROM response WHERE participant='{pid}' "
              "AND done=1")
check(steps == done and int(steps) > 10, f"every step once ({done}/{steps})")
check(srv.stop() == 0, "stops cleanly")

# started on the full disk: says so, waits, starts with space
fill_disk()
later = Server(simlab, study, os.path.join(disk, "t.db"), wait=False,
               logs=os.path.join(tmp, "t"))
check(logged(later, "the disk is full", 10), "a start on a full disk says so")
check(later.alive() and not later.wait_listening(1), "and waits")
free_disk()
check(later.wait_listening(15), "it starts once there is space")
check(later.stop() == 0, "stops cleanly")
subprocess.run(["umount", disk])
shutil.rmtree(tmp, ignore_errors=True)
sys.exit(report())
