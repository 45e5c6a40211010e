/*
** The text of `simlab --help` and the short usage printed on a usage error.
** The manual page simlab(1) is generated from `simlab --help` at build time
** (help2man, app/CMakeLists.txt), so this is the one place both come from.
** No SDL.
*/
#include "app/help.h"

#include <string.h>

static const char SYNOPSIS[] =
    "Usage: simlab check DIR [--json]\n"
    "  or:  simlab new DIR --preset PRESET --modality MODALITY "
    "[--explanation METHOD] [--language TAG]\n"
    "  or:  simlab run DIR [RUN OPTIONS]\n"
    "  or:  simlab serve DIR --db FILE [SERVE OPTIONS]\n"
    "  or:  simlab simulate DIR --db FILE --participants N --policy POLICY "
    "[OPTIONS]\n"
    "  or:  simlab export --db FILE --csv OUT [--raw]\n"
    "  or:  simlab selftest [DIR] [SELFTEST OPTIONS]\n"
    "  or:  simlab power DIR --participants N1,N2,... --out DIR [OPTIONS]\n"
    "  or:  simlab plan DIR --out DIR [OPTIONS]\n"
    "  or:  simlab sync --db FILE --to URL [OPTIONS]\n"
    "  or:  simlab status URL | --db FILE\n"
    "  or:  simlab server setup ADMIN_URL\n"
    "  or:  simlab server add-station ADMIN_URL --station NAME --passfile "
    "FILE\n"
    "  or:  simlab server add-analyst ADMIN_URL --passfile FILE\n"
    "  or:  simlab --help | --version\n";

static const char BODY[] =
    "Runs human-subject simulatability experiments: checks study bundles,\n"
    "shows them to participants in its runner, records every response in a\n"
    "SQLite database before the next stimulus, simulates participants and\n"
    "exports the data (simlab long format v1). simlab-analyze(1) turns the\n"
    "data into tables and plots.\n"
    "\n"
    "Commands:\n"
    "  check DIR               validate a study bundle, print its design and\n"
    "                          balance report (exit 0 valid, 1 not, 2 usage)\n"
    "  new DIR                 write a valid, commented starter bundle\n"
    "  run DIR                 the experimenter's start screen, then one\n"
    "                          participant at a time (fullscreen)\n"
    "  serve DIR               the study online: participants in a browser\n"
    "                          (docs/online.md)\n"
    "  simulate DIR            simulated participants through the session\n"
    "  export                  the database as long-format CSV + JSON sidecar\n"
    "  selftest [DIR]          this station's refresh, missed frames and key\n"
    "                          latency (selftest.md, selftest.json)\n"
    "  power DIR               simulated power per condition and size\n"
    "  plan DIR                a preregistration from the study and the power\n"
    "                          of its primary test (preregistration.md, "
    ".json)\n"
    "  sync                    push a station database to a server by hand\n"
    "  status                  progress per condition and station, sync lag,\n"
    "                          the sequential look that is due\n"
    "  server                  set up a PostgreSQL server for several\n"
    "                          stations: its schema, roles and policies\n"
    "                          (setup), a login role per station\n"
    "                          (add-station), a read-only role for the\n"
    "                          analysis (add-analyst)\n"
    "\n"
    "Options of check:\n"
    "  --json                  the report as JSON\n"
    "\n"
    "Options of new:\n"
    "  --preset PRESET         hase-forward, hase-counterfactual,\n"
    "                          meta-predictor, accept-reject,\n"
    "                          hive-agreement or hive-distinction\n"
    "  --modality MODALITY     image, text or tabular (hive-distinction:\n"
    "                          image or text)\n"
    "  --explanation METHOD    start from a worked example instead of the\n"
    "                          modality's heatmap, tokens or features:\n"
    "                          concepts, prototype, counterfactual (image),\n"
    "                          rationale or on-request (any modality)\n"
    "  --language TAG          the participants' texts (pages, quiz, class\n"
    "                          labels) in a shipped language: en, de, fr,\n"
    "                          es, zh-Hans, ja or ar (accept-reject,\n"
    "                          hive-agreement, hive-distinction; en)\n"
    "\n"
    "Options of run:\n"
    "  --db FILE               the study's database\n"
    "                          (simlab-data/<study id>.db)\n"
    "  --station NAME          this station's name (station.conf, else the\n"
    "                          host name)\n"
    "  --windowed              a window instead of fullscreen\n"
    "  --size WxH              the window's size (1280x720)\n"
    "  --display N             which monitor (0)\n"
    "  --font-scale F          text size (1)\n"
    "  --no-vsync              present without waiting for the vertical "
    "blank\n"
    "  --rush                  real-time priority for the render loop and "
    "the\n"
    "                          input thread, memory locked (also\n"
    "                          \"rush = on\" in station.conf)\n"
    "  --no-rush               not even when station.conf says so\n"
    "  --cpu N                 run on CPU N only (also \"cpu = N\")\n"
    "  --autopilot POLICY      a simulated participant drives the runner:\n"
    "                          model, label, random or mixed\n"
    "  --participants N        autopilot: complete participants wanted (1)\n"
    "  --seed S                autopilot: random seed (1)\n"
    "  --chaos                 autopilot: also tries to escape and cheat\n"
    "  --screenshot-dir DIR    a PNG of every distinct screen shown\n"
    "  --screenshot-one-per-condition\n"
    "                          one autopilot participant per condition, "
    "then\n"
    "                          exit (needs --screenshot-dir)\n"
    "  --timing-log FILE       raw timing records (benchmarks)\n"
    "  --exit-after N          leave after N finished runs (benchmarks)\n"
    "  --texture-budget MB     image memory kept (256; least recently used\n"
    "                          images are decoded again when needed)\n"
    "  --accept-changed-bundle continue a database recorded with an older\n"
    "                          version of the bundle\n"
    "  --sync URL              assign conditions on a PostgreSQL server and\n"
    "                          push the database to it in the background\n"
    "\n"
    "Options of serve:\n"
    "  --db FILE               the database to write (required)\n"
    "  --port N                the port to listen on (8080; 0: any free)\n"
    "  --host ADDR             the address to listen on (127.0.0.1)\n"
    "  --station NAME          this server's station name (web-HOST)\n"
    "  --sync URL              as for run\n"
    "  --public-url URL        the link participants get (behind a proxy)\n"
    "  --max-open N            sessions kept open at most (4096)\n"
    "  --enroll-rate N         participants enrolled (past the consent) per\n"
    "                          second at most (20)\n"
    "  --max-connections N     connections at once (4000)\n"
    "  --max-per-address N     connections of one client address (64; 0:\n"
    "                          no cap)\n"
    "  --proxy ADDRS           addresses not capped per address: the\n"
    "                          reverse proxy's (127.0.0.1,::1; none)\n"
    "  --max-waiting N         browsers waiting at the consent (16384)\n"
    "  --accept-changed-bundle as for run\n"
    "\n"
    "Options of simulate:\n"
    "  --db FILE               the database to write (required)\n"
    "  --participants N        complete participants (required)\n"
    "  --policy POLICY         model, label, random or mixed (required)\n"
    "  --seed S                random seed (1)\n"
    "  --station NAME          station name stored with the data "
    "(simulated)\n"
    "  --p COND:PHASE=P        accuracy of a condition and phase (repeatable)\n"
    "  --participant-sd SD     spread of participants' abilities (logit)\n"
    "  --item-sd SD            spread of items' difficulties (logit)\n"
    "  --fast                  no fsync per response (power simulations)\n"
    "  --accept-changed-bundle as for run\n"
    "  --sync URL              as for run\n"
    "  --verbose               one line per participant\n"
    "\n"
    "Options of export:\n"
    "  --db FILE               the database to read\n"
    "  --csv OUT               the CSV to write (sidecar OUT.json)\n"
    "  --raw                   text cells as they are (no quote before\n"
    "                          = + - @)\n"
    "\n"
    "Options of selftest:\n"
    "  --db FILE               store the report in the study DIR's database\n"
    "  --out DIR               where selftest.md and selftest.json go (.)\n"
    "  --station NAME          as for run\n"
    "  --seconds S             how long to measure (10)\n"
    "  --windowed, --size WxH, --display N\n"
    "                          as for run\n"
    "  --rush, --no-rush, --cpu N\n"
    "                          as for run: measured as the runner would run\n"
    "  --screenshot-dir DIR    save the first predict screen measured\n"
    "\n"
    "Options of power:\n"
    "  --participants N1,N2,...\n"
    "                          participants per condition to simulate\n"
    "  --out DIR               tables and plots\n"
    "  --studies S             simulated studies per size (500)\n"
    "  --alpha A               significance level (0.05)\n"
    "  --replicates B          bootstrap replicates per study\n"
    "  --threads T             worker threads\n"
    "  --seed S                random seed\n"
    "  --p COND:PHASE=P, --participant-sd SD, --item-sd SD\n"
    "                          the truth, as for simulate\n"
    "  --pilot DB              take Pre and Post from a pilot database\n"
    "                          (repeatable)\n"
    "  --items global|per-condition|none\n"
    "                          the bootstrap's item draw\n"
    "  --drop-singular         drop singular random-effects replicates\n"
    "  --test primary|bootstrap|users|glmm|t|anova\n"
    "                          the test: the study's primary test (the\n"
    "                          default with an \"analysis\" block; its looks\n"
    "                          are simulated whole), crossed or users-only\n"
    "                          bootstrap, the mixed model's Wald test, the\n"
    "                          paired t or the ANOVA\n"
    "  --null-studies S        null studies per size for the false-positive\n"
    "                          rate (as many as --studies; 0: none)\n"
    "  --coverage              the bootstrap's CI coverage (all replicates)\n"
    "  --baseline NAME         the reference instead of the study's baseline\n"
    "  --screening N           participants per condition run through the\n"
    "                          session for enrol and timeouts (100; 0: none)\n"
    "  --quiet                 no progress bar\n"
    "\n"
    "Options of plan:\n"
    "  --out DIR               preregistration.md and preregistration.json\n"
    "  --effect-from-simulation\n"
    "                          power for the study's simulation block's\n"
    "                          accuracies (or --p; one of them is needed)\n"
    "  --p COND:PHASE=P        an assumed accuracy, as for power\n"
    "  --power P               the target power (0.8)\n"
    "  --participants N1,N2,...\n"
    "                          sizes searched for N (10,20,40,80)\n"
    "  --studies S             simulated studies and null studies (500)\n"
    "  --seed S, --threads T, --replicates B, --screening N\n"
    "                          as for power\n"
    "  --date YYYY-MM-DD       the plan's date (today, UTC)\n"
    "  --include-simulated     the analysis keeps simulated participants\n"
    "                          (a dry run)\n"
    "  --quiet                 no progress bar or summary\n"
    "\n"
    "Options of sync:\n"
    "  --db FILE               the station database\n"
    "  --to URL                the PostgreSQL server\n"
    "  --batch N               rows per transaction\n"
    "  --all                   push every row again\n"
    "  --accept-changed-bundle as for run\n"
    "\n"
    "Options of server:\n"
    "  --station NAME          add-station: the station's name\n"
    "  --passfile FILE         where the new role's password goes (pgpass\n"
    "                          format, mode 0600)\n"
    "  --role ROLE             the login role's name (default: st_ or an_,\n"
    "                          the database's name and the station's)\n"
    "\n"
    "Environment:\n"
    "  SIMLAB_ASSETS           the data folder (fonts, web); by default\n"
    "                          ../share/simlab beside the program's folder\n"
    "  SIMLAB_STATION_CONFIG   the station settings file (station.conf)\n"
    "  SIMLAB_RAW_INPUT        0: key presses are not stamped by the input\n"
    "                          thread\n"
    "\n"
    "Files:\n"
    "  station.conf            station settings, \"key = value\" lines:\n"
    "                          station, rush, cpu; the first found of\n"
    "                          $SIMLAB_STATION_CONFIG,\n"
    "                          $XDG_CONFIG_HOME/simlab/station.conf\n"
    "                          (~/.config/simlab/station.conf) and\n"
    "                          /etc/simlab/station.conf\n"
    "  share/simlab/studies/   the demo studies, beside the program's folder\n"
    "                          (/usr/share/simlab/studies when installed as\n"
    "                          a package)\n"
    "  share/simlab/lang/      the shipped runner languages as language\n"
    "                          files (copy one to translate)\n"
    "  /usr/share/doc/simlab/  the documentation, installed with the package\n"
    "                          (docs/ in the source): study-format.md,\n"
    "                          python.md, online.md, power.md, analysis.md,\n"
    "                          runner.md, engine.md, multisite.md, ...\n"
    "  /usr/share/doc/simlab/examples/\n"
    "                          example studies: explanation-methods,\n"
    "                          kredit-de, numpy-model, within,\n"
    "                          questionnaire, hase2020 (examples/ in the\n"
    "                          source)\n"
    "  /usr/lib/python3/dist-packages/simlab/\n"
    "                          the Python package: studies from numpy\n"
    "                          arrays, results into pandas (python.md)\n"
    "\n"
    "Examples:\n"
    "  simlab check /usr/share/simlab/studies/text-forward\n"
    "  simlab run /usr/share/simlab/studies/image-meta --db demo.db\n"
    "  simlab export --db demo.db --csv demo.csv\n"
    "  simlab check /usr/share/doc/simlab/examples/kredit-de\n"
    "\n"
    "Documentation: /usr/share/doc/simlab (docs/ in simlab's source);\n"
    "simlab-analyze(1), simlab-preview(1).\n";

void help_usage(FILE *f)
{
    fputs(SYNOPSIS, f);
    fputs("Try 'simlab --help' for the options.\n", f);
}

void help_full(FILE *f)
{
    fputs(SYNOPSIS, f);
    fputc('\n', f);
    fputs(BODY, f);
}

enum { LINE_INDENTED, LINE_PARAGRAPH };

/* Writes to f the lines of text that start with prefix, each with what
** follows it: the lines indented by four spaces or more (LINE_INDENTED)
** or the lines up to a blank one (LINE_PARAGRAPH);
** returns how many lines started with prefix. */
static int lines_of(FILE *f, const char *text, const char *prefix, int follow)
{
    int n = 0, in = 0;
    size_t plen = strlen(prefix);
    for (const char *l = text; *l;) {
        const char *e = strchr(l, '\n');
        size_t len = e ? (size_t)(e - l) : strlen(l);
        int more = follow == LINE_PARAGRAPH  ? len > 0
                   : follow == LINE_INDENTED ? strncmp(l, "    ", 4) == 0
                                             : 0;
        if (strncmp(l, prefix, plen) == 0) {
            in = 1;
            n++;
        } else {
            in = in && more;
        }
        if (in) {
            fprintf(f, "%.*s\n", (int)len, l);
        }
        l += len + (e ? 1 : 0);
    }
    return n;
}

int help_command(FILE *f, const char *cmd)
{
    char usage[64], line[64], opts[64];
    snprintf(usage, sizeof usage, "simlab %s ", cmd);
    snprintf(line, sizeof line, "  %s ", cmd);
    snprintf(opts, sizeof opts, "Options of %s:", cmd);
    if (cmd[0] == '-' || !strstr(SYNOPSIS, usage)) {
        return -1;
    }
    /* the synopsis lines of cmd: "Usage: simlab cmd ..." then "  or:  ..." */
    int n = 0;
    for (const char *l = SYNOPSIS; (l = strstr(l, usage)) != NULL;) {
        const char *e = strchr(l, '\n');
        int len = e ? (int)(e - l) : (int)strlen(l);
        fprintf(f, "%s%.*s\n", n++ ? "  or:  " : "Usage: ", len, l);
        l += len;
    }
    fputc('\n', f);
    lines_of(f, BODY, line, LINE_INDENTED);
    fputc('\n', f);
    if (lines_of(f, BODY, opts, LINE_PARAGRAPH) == 0) {
        fprintf(f, "simlab %s has no options.\n", cmd);
    }
    fputs("\nTry 'simlab --help' for every command.\n", f);
    return 0;
}
