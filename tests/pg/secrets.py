"""No password in any output: inside pg_virtualenv (tests/pg/run.sh), each
of 27 connection-string forms that libpq accepts (and some it cannot read)
carries a planted password -- the password of that form's own station role,
so that the forms that connect really use it -- through simlab simulate
--sync, sync, status, server add-station, simlab-analyze and export. The
planted text must then be in no output, log, station file, event, sidecar,
report or server row (pg_dump).

usage: python3 secrets.py SIMLAB SIMLAB_ANALYZE BUNDLE
"""
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.parse

simlab, analyze, bundle = sys.argv[1:4]
host, port = os.environ["PGHOST"], os.environ["PGPORT"]
admin_user, admin_pw = os.environ["PGUSER"], os.environ["PGPASSWORD"]
db = "secrets"
# every planted password holds both marks; a leak of either half shows
MARKS = ["PLANTED", "T41l"]
tmp = tempfile.mkdtemp(prefix="simlab-secrets-")
failures = []


def q(s):
    """A key=value value, single-quoted."""
    return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'"


def pct(s):
    return urllib.parse.quote(s, safe="")


def admin(database=db):
    return "host=%s port=%s user=%s password=%s dbname=%s" % (
        q(host), q(port), q(admin_user), q(admin_pw), database)


def psql(sql, database=db):
    subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d",
                    admin(database), "-c", sql], check=True,
                   stdout=subprocess.DEVNULL)


def run(tag, args):
    """Runs a command without the administrator's password in its
    environment; its stdout and stderr are kept in tmp for the search."""
    env = dict(os.environ)
    env.pop("PGPASSWORD", None)
    env.pop("PGPASSFILE", None)
    with open(os.path.join(tmp, tag + ".out"), "wb") as out:
        return subprocess.run(args, env=env, stdout=out,
                              stderr=subprocess.STDOUT, timeout=120).returncode


# (password, form): {r} is the role, {p} the password as the form needs it
H, P = host, port
FORMS = [
    ("PLANTEDa01T41l", "postgresql://{r}:{p}@%s:%s/%s" % (H, P, db)),
    ("PLANTEDa02T41l", "postgres://{r}:{p}@%s:%s/%s" % (H, P, db)),
    ("PLANTEDa03T41l", "postgresql://{r}@%s:%s/%s?password={p}" % (H, P, db)),
    ("PLANTEDa04T41l",
     "postgresql://%s:%s/%s?user={r}&password={p}" % (H, P, db)),
    ("PLANTEDa05T41l", "postgresql://{r}:{p}@%s:%s/%s?sslmode=disable&"
     "application_name=lab" % (H, P, db)),
    ("PLANTED@:/?#%06T41l", "postgresql://{r}:{pct}@%s:%s/%s" % (H, P, db)),
    ("PLANTEDa07T41l",
     "postgresql://{r}@%s:%s/%s?pass%%77ord={p}" % (H, P, db)),
    ("PLANTED?08T41l", "postgresql://{r}:{p}@%s:%s/%s" % (H, P, db)),
    ("PLANTEDa09T41l",
     "postgresql://{r}:{p}@%s:%s,%s:%s/%s" % (H, P, H, P, db)),
    ("PLANTEDa10T41l", "postgresql://{r}:{p}@127.0.0.1:%s/%s" % (P, db)),
    ("PLANTEDa11T41l", "postgresql://{r}:{p}@[::1]:%s/%s" % (P, db)),
    ("PLANTEDa12T41l", "postgresql://{r}:{p}@/%s?host=%s&port=%s" %
     (db, H, P)),
    ("PLANTEDa13T41l", "postgresql://{r}:{p}@%s:%s/%s" % (pct(H), P, db)),
    ("PLANTEDa14T41l",
     "host=%s port=%s dbname=%s user={r} password={p}" % (H, P, db)),
    ("PLANTEDa15T41l",
     "host=%s port=%s dbname=%s user={r} password = {p}" % (H, P, db)),
    ("PLANTED 16T41l",
     "host=%s port=%s dbname=%s user={r} password={q}" % (H, P, db)),
    ("PLANTED'\\17T41l",
     "host=%s port=%s dbname=%s user={r} password={q}" % (H, P, db)),
    ("PLANTED 18T41l",
     "host=%s port=%s dbname=%s user={r} password=PLANTED\\ 18T41l" %
     (H, P, db)),
    ("PLANTEDa19T41l",
     "password={p}\thost=%s\nport=%s dbname=%s user={r}" % (H, P, db)),
    ("PLANTEDa20T41l", "host=%s port=%s dbname=%s user={r} password={p} "
     "sslpassword=PLANTEDssl20T41l" % (H, P, db)),
    ("PLANTEDa21T41l", "postgresql://{r}@%s:%s/%s?options=-c%%20geqo%%3Don"
     "&password={p}" % (H, P, db)),
    # a connection string as the database's name: the server quotes it
    ("PLANTEDa22T41l", "host=%s port=%s user={r} password={p} dbname="
     "'postgresql://{r}:{p}@%s:%s/%s'" % (H, P, H, P, db)),
    # a server that is not there: the station assigns locally
    ("PLANTEDa23T41l", "postgresql://{r}:{p}@%s:1/%s" % (H, db)),
    # strings libpq cannot read: never shown
    ("PLANTEDa24T41l", "postgresql://{r}:{p}%@" + "%s:%s/%s" % (H, P, db)),
    ("PLANTEDa25T41l", "postgresql://{r}:{p}@[::1/%s" % db),
    ("PLANTEDa26T41l",
     "host=%s port=%s dbname=%s user={r} password='{p}" % (H, P, db)),
    ("PLANTEDa27T41l", "postgresql://{r}:{p}@%s:%s/%s?nosuch={p}" %
     (H, P, db)),
]

psql("DROP DATABASE IF EXISTS %s" % db, "postgres")
psql("CREATE DATABASE %s" % db, "postgres")
if run("setup", [simlab, "server", "setup", admin()]) != 0:
    failures.append("server setup failed: " +
                    open(os.path.join(tmp, "setup.out")).read())

connected = 0
for i, (pw, form) in enumerate(FORMS, 1):
    station = "p%02d" % i
    passfile = os.path.join(tmp, station + ".pgpass")
    run("add-" + station, [simlab, "server", "add-station", admin(),
                           "--station", station, "--passfile", passfile])
    role = open(os.path.join(tmp, "add-" + station + ".out")).read() \
        .strip().splitlines()[-1].split("//")[1].split("@")[0]
    os.remove(passfile)  # the form's password is the only one
    psql("ALTER ROLE %s PASSWORD '%s'" % (role, pw.replace("'", "''")))
    url = form.format(r=role, p=pw, pct=pct(pw), q=q(pw))
    dbf = os.path.join(tmp, station + ".db")
    run(station + "-simulate",
        [simlab, "simulate", bundle, "--db", dbf, "--participants", "1",
         "--policy", "mixed", "--station", station, "--fast", "--sync", url])
    run(station + "-sync", [simlab, "sync", "--db", dbf, "--to", url])
    run(station + "-status", [simlab, "status", url])
    run(station + "-server", [simlab, "server", "add-station", url,
                              "--station", "x" + station, "--passfile",
                              os.path.join(tmp, "x.pgpass")])
    run(station + "-analyze",
        [analyze, url, "--out", os.path.join(tmp, station + "-report"),
         "--include-simulated", "--quiet", "--plots", "none"])
    if os.path.exists(dbf):
        n = subprocess.run(["sqlite3", dbf, "SELECT count(*) FROM "
                            "participant WHERE assign_source = 'server'"],
                           capture_output=True, text=True).stdout.strip()
        connected += n == "1"
        run(station + "-export",
            [simlab, "export", "--db", dbf, "--csv",
             os.path.join(tmp, station + ".csv")])

# an analyst with a planted password: the report names the server
apass = os.path.join(tmp, "analyst.pgpass")
run("add-analyst", [simlab, "server", "add-analyst", admin(), "--passfile",
                    apass])
arole = open(os.path.join(tmp, "add-analyst.out")).read().strip() \
    .splitlines()[-1].split("//")[1].split("@")[0]
os.remove(apass)
psql("ALTER ROLE %s PASSWORD 'PLANTEDan?T41l'" % arole)
aurl = "postgresql://%s:%s@%s:%s/%s" % (arole, pct("PLANTEDan?T41l"), H, P,
                                        db)
if run("analyst-analyze", [analyze, aurl, "--out",
                           os.path.join(tmp, "analyst-report"),
                           "--include-simulated", "--quiet", "--plots",
                           "none"]) != 0:
    failures.append("simlab-analyze as the analyst failed: " + open(
        os.path.join(tmp, "analyst-analyze.out")).read())
run("analyst-status", [simlab, "status", aurl])
if "p01" not in open(os.path.join(tmp, "analyst-status.out")).read():
    failures.append("simlab status as the analyst lacks station p01")
print("   %d of %d forms reached the server and assigned there" %
      (connected, len(FORMS)))
if connected < 15:
    failures.append("only %d forms connected" % connected)

# the search: every file, every station database, every server row
dumps = os.path.join(tmp, "dumps")
os.mkdir(dumps)
for f in os.listdir(tmp):
    if f.endswith(".db"):
        with open(os.path.join(dumps, f + ".sql"), "wb") as out:
            subprocess.run(["sqlite3", os.path.join(tmp, f), ".dump"],
                           stdout=out, check=True)
with open(os.path.join(dumps, "server.sql"), "wb") as out:
    subprocess.run(["pg_dump", "-d", admin()], stdout=out, check=True)
searched = 0
for root, _, files in os.walk(tmp):
    for f in files:
        path = os.path.join(root, f)
        data = open(path, "rb").read()
        searched += 1
        for mark in MARKS:
            if mark.encode() in data:
                line = next(l for l in data.split(b"\n") if mark.encode() in l)
                failures.append("%s holds '%s': %s" %
                                (os.path.relpath(path, tmp), mark,
                                 line[:200].decode(errors="replace")))
print("   searched %d files (outputs, station files, reports, sidecars, "
      "the server's dump)" % searched)
for f in failures:
    print("FAIL:", f)
shutil.rmtree(tmp)
sys.exit(1 if failures else 0)
