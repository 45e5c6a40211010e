"""A client of `simlab serve` for the tests written in Python (standard
library only): the server as a child process, the JSON API as the browser
speaks it, and a bundle copy whose consent page shows an image."""

import http.client
import json
import os
import re
import shutil
import subprocess
import sys
import time

PASSED = 0
FAILED = 0


def check(cond, what):
    global PASSED, FAILED
    if cond:
        PASSED += 1
    else:
        FAILED += 1
        print("FAIL: " + what, flush=True)


def report():
    print(f"{PASSED} passed, {FAILED} failed")
    return 1 if FAILED else 0


class Server:
    """simlab serve STUDY --db DB --port 0 EXTRA..., once it printed its
    link."""

    def __init__(self, simlab, study, db, extra=(), wait=True, logs=None,
                 env=None):
        self.err_path = (logs or db) + ".err"
        self.out_path = (logs or db) + ".out"
        self.proc = subprocess.Popen(
            [simlab, "serve", study, "--db", db, "--port", "0", *extra],
            stdout=open(self.out_path, "w"), stderr=open(self.err_path, "w"),
            env=env)
        self.port = None
        if wait:
            self.wait_listening(20)

    def wait_listening(self, seconds):
        end = time.time() + seconds
        while time.time() < end:
            m = re.search(r"listening on [^\n]*:(\d+)\n", self.out())
            if m:
                self.port = int(m.group(1))
                return True
            if self.proc.poll() is not None:
                break
            time.sleep(0.1)
        return False

    def out(self):
        with open(self.out_path) as f:
            return f.read()

    def err(self):
        with open(self.err_path) as f:
            return f.read()

    def alive(self):
        return self.proc.poll() is None

    def stop(self):
        if self.alive():
            self.proc.terminate()
        return self.proc.wait(30)

    def request(self, method, path, body=None, token=None, timeout=10,
                source=None):
        """(status, headers, parsed JSON or bytes)"""
        c = http.client.HTTPConnection(
            "127.0.0.1", self.port, timeout=timeout,
            source_address=(source, 0) if source else None)
        headers = {}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        if token:
            headers["Authorization"] = "Bearer " + token
        c.request(method, path, body=data, headers=headers)
        r = c.getresponse()
        raw = r.read()
        c.close()
        try:
            parsed = json.loads(raw)
        except ValueError:
            parsed = raw
        return r.status, dict(r.getheaders()), parsed


def browser_ms():
    return time.time() * 1000.0


class Participant:
    """One browser of a participant: starts, answers the screen shown."""

    def __init__(self, srv, ext, session=None):
        self.srv, self.ext, self.session = srv, ext, session
        self.token = self.key = None
        self.pos = None
        self.applied = 0
        self.n = 0
        self.view = None
        self.onset = None

    def take(self, st, body):
        if st == 200:
            moved = body["pos"] != self.pos
            self.pos = body["pos"]
            self.applied = body["applied"]
            self.view = body["view"]
            self.token = body.get("token", self.token)
            self.key = body.get("key", self.key)
            if moved:
                self.n = self.applied
                self.onset = browser_ms()
        return st

    def start(self, **extra):
        body = {"participant": self.ext}
        if self.session:
            body = {"PROLIFIC_PID": self.ext, "SESSION_ID": self.session,
                    "STUDY_ID": "s1"}
        if self.key:
            body["key"] = self.key
        body.update(extra)
        st, h, b = self.srv.request("POST", "/api/start", body)
        self.pos = None
        self.take(st, b)
        return st, h, b

    def inputs(self):
        """The inputs a participant gives on the screen shown."""
        v, ins = self.view, []
        t = browser_ms()

        def add(kind, **kw):
            ins.append({"n": self.n + len(ins), "kind": kind, "t": t, **kw})
        if v.get("quiz"):
            add("key", key="1" if self.pos[1] == 1 else "2")
        elif v.get("choice") and v["choice"]["value"] < 0:
            add("key", key=v["choice"]["options"][0]["key"])
        if v.get("rating"):
            add("key", key="4")
        if v.get("continue") and not v.get("quiz") and (
                not v.get("choice") or v.get("rating")):
            add("continue")
        return ins

    def send(self, ins):
        """Sends ins at the screen shown; on 200 the next input's number is
        the server's count there (a new screen) or after ins."""
        st, h, b = self.srv.request(
            "POST", "/api/input",
            {"pos": self.pos, "onset": self.onset, "inputs": ins},
            token=self.token)
        if st == 200:
            moved = b["pos"] != self.pos
            self.take(st, b)
            self.n = self.applied if moved else max(self.applied, self.n)
        return st, h, b

    def answer(self):
        return self.send(self.inputs())


def bundle_with_image(src, dst, image):
    """A copy of bundle src at dst whose consent page shows image (as
    pages/figure.png)."""
    shutil.copytree(src, dst)
    shutil.copy(image, os.path.join(dst, "pages", "figure.png"))
    with open(os.path.join(dst, "pages", "consent.md"), "a") as f:
        f.write("\n![A figure](pages/figure.png)\n")
    return dst


def sqlite(db, sql):
    return subprocess.run(["sqlite3", "-readonly", db, sql],
                          capture_output=True, text=True).stdout.strip()


def skip(why):
    print("skip: " + why)
    sys.exit(77)
