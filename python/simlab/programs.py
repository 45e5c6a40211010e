"""simlab's programs from Python: where they are ($SIMLAB and
$SIMLAB_ANALYZE, else the build of the source tree this package lies in,
else PATH) and the commands a script runs: check, simulate, export,
analyze."""
import json
import os
import shutil
import subprocess

_HERE = os.path.dirname(os.path.abspath(__file__))
_BUILD = {"simlab": ("app", "simlab"),
          "simlab-analyze": ("analysis", "simlab-analyze")}
_ENV = {"simlab": "SIMLAB", "simlab-analyze": "SIMLAB_ANALYZE"}


def program(name):
    """The path of simlab's program name ("simlab" or "simlab-analyze"):
    $SIMLAB / $SIMLAB_ANALYZE, the build/ of the source tree, or PATH."""
    env = os.environ.get(_ENV[name])
    if env:
        return env
    root = os.path.dirname(os.path.dirname(_HERE))
    built = os.path.join(root, "build", *_BUILD[name])
    if os.path.isfile(os.path.join(root, "CMakeLists.txt")) and \
            os.access(built, os.X_OK):
        return built
    found = shutil.which(name)
    if found:
        return found
    raise FileNotFoundError(
        "%s not found: install simlab's package, build it (build/%s), or "
        "set %s to the program's path" % (name, "/".join(_BUILD[name]),
                                          _ENV[name]))


class CommandError(RuntimeError):
    """A simlab program ended with an error: its exit status and what it
    printed."""

    def __init__(self, args, status, output):
        self.args_ = args
        self.status = status
        self.output = output
        super().__init__("%s exited with status %d:\n%s"
                         % (" ".join(args[:2]), status, output.strip()))


def run(name, *args):
    """Runs simlab's program name with args; its standard output (raises
    CommandError on a nonzero exit status)."""
    cmd = [program(name)] + [str(a) for a in args]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    if p.returncode != 0:
        raise CommandError(cmd, p.returncode, p.stdout + p.stderr)
    return p.stdout


def check(bundle):
    """`simlab check --json BUNDLE` as a dict (valid, errors, warnings,
    study, blocks, pools, ...), valid or not."""
    cmd = [program("simlab"), "check", "--json", str(bundle)]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    if p.returncode not in (0, 1):
        raise CommandError(cmd, p.returncode, p.stdout + p.stderr)
    return json.loads(p.stdout)


def simulate(bundle, db, participants, policy="mixed", seed=1, fast=True,
             p=None):
    """Simulated participants through the bundle into the database db
    (`simlab simulate`): participants complete ones, policy model, label,
    random or mixed; p maps "COND:PHASE" to an accuracy. Returns db."""
    args = ["simulate", bundle, "--db", db, "--participants", participants,
            "--policy", policy, "--seed", seed]
    if fast:
        args.append("--fast")
    for cell, acc in (p or {}).items():
        args += ["--p", "%s=%s" % (cell, acc)]
    run("simlab", *args)
    return db


def export(db, csv, raw=False):
    """`simlab export --db DB --csv CSV` (with its sidecar CSV.json and
    side files); returns the export read by read_export()."""
    from .results import read_export
    run("simlab", "export", "--db", db, "--csv", csv,
        *(["--raw"] if raw else []))
    return read_export(csv)


def analyze(sources, out, include_simulated=False, include_pilot=False,
            replicates=None, seed=None, baseline=None, plots="none",
            extra=()):
    """simlab-analyze on databases and CSV files (a path or a list) into
    the folder out; returns read_report(out). include_simulated keeps
    simulated participants (left out by default, as in simlab-analyze);
    plots "none" (default here), or "png,svg,pdf"."""
    if isinstance(sources, (str, os.PathLike)):
        sources = [sources]
    args = []
    for s in sources:
        s = str(s)
        args += ["--csv", s] if s.lower().endswith((".csv", ".tsv")) \
            else [s]
    args += ["--out", out, "--plots", plots, "--quiet"]
    if include_simulated:
        args.append("--include-simulated")
    if include_pilot:
        args.append("--include-pilot")
    if replicates is not None:
        args += ["--replicates", replicates]
    if seed is not None:
        args += ["--seed", seed]
    if baseline is not None:
        args += ["--baseline", baseline]
    run("simlab-analyze", *args, *extra)
    from .results import read_report
    return read_report(out)
