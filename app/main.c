/*
** simlab: command-line entry. Parses argv and hands each command to its
** library: check and new (stimuli), simulate and export (experiment), power
** (app/power_cmd.c, simulation for analysis/power.h's engine), run (the
** SDL2 runner, app/run.c; app/run_none.c in a build without SDL2). No SDL
** here.
*/
#include "app/app.h"
#include "app/help.h"
#include "app/plan_cmd.h"
#include "app/power_cmd.h"
#include "serve/serve.h"
#include "app/sync_cmd.h"
#include "common/sim_clock.h"
#include "common/sim_escape.h"
#include "stimuli/check.h"
#include "experiment/assign.h"
#include "experiment/export.h"
#include "experiment/simulate.h"
#include "stimuli/hash.h"
#include "stimuli/scaffold.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_CELLS 64

static void usage(FILE *f)
{
    help_usage(f);
}

static int parse_u64(const char *s, unsigned long long *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end || s[0] == '-') {
        return -1;
    }
    *out = v;
    return 0;
}

/* Wall-clock time, Unix ms: where the simulated clock of `simulate` starts. */
static int64_t wall_ms_now(void)
{
    struct timespec ts;
    if (timespec_get(&ts, TIME_UTC) != TIME_UTC) {
        return 0;
    }
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int parse_sd(const char *s, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !(v >= 0 && v <= 10)) {
        return -1;
    }
    *out = v;
    return 0;
}

static int cmd_check(int argc, char **argv)
{
    const char *dir = NULL;
    int json = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) {
            json = 1;
        } else if (argv[i][0] == '-' || dir) {
            fprintf(stderr, "simlab check: unexpected argument '%s'\n",
                    argv[i]);
            usage(stderr);
            return 2;
        } else {
            dir = argv[i];
        }
    }
    if (!dir) {
        fprintf(stderr, "simlab check: missing bundle directory\n");
        usage(stderr);
        return 2;
    }
    /* a latin square's orders come from experiment/assign.h */
    static const CheckOrders orders = {assign_williams_rows,
                                       assign_williams_row};
    /* where item screens put the explanation, in every condition */
    return check_bundle_with(dir, json, stdout, &orders, app_check_layout);
}

static int cmd_new(int argc, char **argv)
{
    const char *dir = NULL, *preset = NULL, *modality = NULL;
    const char *explanation = NULL, *language = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--language") == 0 && v) {
            language = v;
            i++;
        } else if (strcmp(a, "--preset") == 0 && v) {
            preset = v;
            i++;
        } else if (strcmp(a, "--modality") == 0 && v) {
            modality = v;
            i++;
        } else if (strcmp(a, "--explanation") == 0 && v) {
            explanation = v;
            i++;
        } else if (a[0] != '-' && !dir) {
            dir = a;
        } else {
            fprintf(stderr, "simlab new: bad or incomplete argument '%s'\n", a);
            usage(stderr);
            return 2;
        }
    }
    if (!dir || !preset || !modality) {
        fprintf(stderr,
                "simlab new: DIR, --preset (" SCAFFOLD_PRESETS
                ") and --modality (" SCAFFOLD_MODALITIES ") are required\n");
        usage(stderr);
        return 2;
    }
    SimError err;
    sim_error_clear(&err);
    if (scaffold_write_language(dir, preset, modality, explanation, language,
                                &err) != SIM_OK) {
        fprintf(stderr, "simlab new: %s\n", err.msg);
        return err.code == SIM_ERR_USAGE ? 2 : 1;
    }
    printf("wrote a starter %s study (%s%s%s%s%s) to %s\n"
           "next: read %s/README.md, then `simlab check %s`\n",
           preset, modality, explanation ? ", " : "",
           explanation ? explanation : "", language ? ", " : "",
           language ? language : "", dir, dir, dir);
    return 0;
}

static int cmd_simulate(int argc, char **argv)
{
    SimulateOptions o;
    const char *cells[MAX_CELLS];
    memset(&o, 0, sizeof o);
    o.participants = -1;
    o.policy = POLICY_MIXED;
    o.seed = 1;
    o.station = "simulated";
    o.cells = cells;
    o.participant_sd = -1;
    o.item_sd = -1;
    int have_policy = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        unsigned long long n;
        SimError err;
        if (strcmp(a, "--db") == 0 && v) {
            o.db_path = v;
            i++;
        } else if (strcmp(a, "--participants") == 0 && v &&
                   parse_u64(v, &n) == 0 && n <= 1000000) {
            o.participants = (int)n;
            i++;
        } else if (strcmp(a, "--policy") == 0 && v) {
            if (policy_parse(v, &o.policy, &err) != SIM_OK) {
                fprintf(stderr, "simlab simulate: %s\n", err.msg);
                return 2;
            }
            have_policy = 1;
            i++;
        } else if (strcmp(a, "--seed") == 0 && v && parse_u64(v, &n) == 0) {
            o.seed = n;
            i++;
        } else if (strcmp(a, "--station") == 0 && v) {
            if (!export_station_name_valid(v)) {
                fprintf(stderr,
                        "simlab simulate: --station '%s': "
                        "use " EXPORT_STATION_NAME_SET "\n",
                        v);
                return 2;
            }
            o.station = v;
            i++;
        } else if (strcmp(a, "--p") == 0 && v && o.n_cells < MAX_CELLS) {
            cells[o.n_cells++] = v;
            i++;
        } else if (strcmp(a, "--fast") == 0) {
            o.durability = DURABILITY_FAST;
        } else if (strcmp(a, "--accept-changed-bundle") == 0) {
            o.accept_changed = 1;
        } else if ((strcmp(a, "--participant-sd") == 0 ||
                    strcmp(a, "--item-sd") == 0) &&
                   v &&
                   parse_sd(v, a[2] == 'p' ? &o.participant_sd : &o.item_sd) ==
                       0) {
            i++;
        } else if (strcmp(a, "--sync") == 0 && v) {
            o.sync_url = v;
            o.sync_clock = sim_clock_real();
            i++;
        } else if (strcmp(a, "--verbose") == 0) {
            o.verbose = 1;
        } else if (a[0] != '-' && !o.bundle_dir) {
            o.bundle_dir = a;
        } else {
            fprintf(stderr,
                    "simlab simulate: bad or incomplete argument '%s'\n", a);
            usage(stderr);
            return 2;
        }
    }
    if (!o.bundle_dir || !o.db_path || o.participants < 0 || !have_policy) {
        fprintf(stderr, "simlab simulate: DIR, --db, --participants and "
                        "--policy are required\n");
        usage(stderr);
        return 2;
    }
    /* a database inside the bundle would change its hash (a bundle that
    ** cannot be read is reported by simulate_run) */
    char why[512];
    if (hash_path_in_bundle(o.bundle_dir, o.db_path, why, sizeof why) > 0) {
        fprintf(stderr,
                "simlab simulate: the database %s would be inside the study "
                "bundle %s (it would change the bundle's hash); give a --db "
                "outside it\n",
                o.db_path, o.bundle_dir);
        return 2;
    }
    o.wall_ms = wall_ms_now();
    SimError err;
    sim_error_clear(&err);
    if (simulate_run(&o, stderr, &err) != SIM_OK) {
        sim_escape_print(stderr, "simlab simulate: ", err.msg);
        return err.code == SIM_ERR_USAGE ? 2 : 1;
    }
    return 0;
}

static int cmd_export(int argc, char **argv)
{
    const char *db = NULL, *csv = NULL;
    ExportOptions opt = {0};
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--db") == 0 && i + 1 < argc) {
            db = argv[++i];
        } else if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc) {
            csv = argv[++i];
        } else if (strcmp(argv[i], "--raw") == 0) {
            opt.raw = 1;
        } else {
            fprintf(stderr, "simlab export: bad argument '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    if (!db || !csv) {
        fprintf(stderr, "simlab export: --db and --csv are required\n");
        usage(stderr);
        return 2;
    }
    SimError err;
    sim_error_clear(&err);
    if (export_long_csv_opt(db, csv, &opt, &err) != SIM_OK) {
        sim_escape_print(stderr, "simlab export: ", err.msg);
        return err.code == SIM_ERR_USAGE ? 2 : 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    for (int i = 2; i < argc && cmd[0] != '-'; i++) {
        if (strcmp(argv[i], "--help") == 0 ||
            (i == 2 && strcmp(argv[i], "-h") == 0)) {
            if (help_command(stdout, cmd) == 0) {
                return 0;
            }
            break;
        }
    }
    if (strcmp(cmd, "check") == 0) {
        return cmd_check(argc - 1, argv + 1);
    } else if (strcmp(cmd, "new") == 0) {
        return cmd_new(argc - 1, argv + 1);
    } else if (strcmp(cmd, "simulate") == 0) {
        return cmd_simulate(argc - 1, argv + 1);
    } else if (strcmp(cmd, "export") == 0) {
        return cmd_export(argc - 1, argv + 1);
    } else if (strcmp(cmd, "power") == 0) {
        return power_main(argc - 1, argv + 1);
    } else if (strcmp(cmd, "plan") == 0) {
        return plan_main(argc - 1, argv + 1);
    } else if (strcmp(cmd, "sync") == 0) {
        return sync_cmd_main(argc - 1, argv + 1);
    } else if (strcmp(cmd, "status") == 0) {
        return status_cmd_main(argc - 1, argv + 1);
    } else if (strcmp(cmd, "server") == 0) {
        return server_cmd_main(argc - 1, argv + 1);
    } else if (strcmp(cmd, "serve") == 0) {
        return serve_main(argc - 1, argv + 1);
    } else if (strcmp(cmd, "run") == 0) {
        return app_run(argc - 1, argv + 1);
    } else if (strcmp(cmd, "selftest") == 0) {
        return app_selftest(argc - 1, argv + 1);
    } else if (strcmp(cmd, "--version") == 0) {
        printf("simlab %s\n", SIMLAB_VERSION);
        return 0;
    } else if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        help_full(stdout);
        return 0;
    }
    fprintf(stderr, "simlab: unknown command '%s'\n", cmd);
    usage(stderr);
    return 2;
}
