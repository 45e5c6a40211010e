/*
** Options of `simlab run`: parsing argv into a RunOptions, and where the
** database goes (never inside the study bundle).
*/
#define _XOPEN_SOURCE 700
#include "app/run_options.h"

#include "experiment/export.h"
#include "stimuli/hash.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void run_usage(void)
{
    fputs(
        "usage: simlab run DIR [--db FILE] [--station NAME] [--windowed]\n"
        "         [--display N] [--size WxH] [--font-scale F] [--no-vsync]\n"
        "         [--autopilot model|label|random|mixed [--participants N]\n"
        "          [--seed S] [--chaos]] [--screenshot-dir DIR]\n"
        "         [--screenshot-one-per-condition]\n"
        "         [--timing-log FILE] [--exit-after N] [--texture-budget MB]\n"
        "         [--accept-changed-bundle]\n"
        "         [--sync URL] [--rush | --no-rush] [--cpu N]\n",
        stderr);
}

int run_options_parse(int argc, char **argv, RunOptions *o)
{
    memset(o, 0, sizeof *o);
    o->participants = 1;
    o->seed = 1;
    o->font_scale = 1;
    o->vsync = 1;
    o->display = 0;
    o->rush = -1;
    o->cpu = -1;
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(s, "--db") == 0 && v) {
            o->db = v, i++;
        } else if (strcmp(s, "--station") == 0 && v) {
            if (!export_station_name_valid(v)) {
                fprintf(
                    stderr,
                    "simlab run: --station '%s': use " EXPORT_STATION_NAME_SET
                    "\n",
                    v);
                return -1;
            }
            o->station = v, i++;
        } else if (strcmp(s, "--windowed") == 0) {
            o->windowed = 1;
        } else if (strcmp(s, "--display") == 0 && v) {
            o->display = atoi(v), i++;
        } else if (strcmp(s, "--size") == 0 && v &&
                   sscanf(v, "%dx%d", &o->width, &o->height) == 2) {
            o->windowed = 1;
            i++;
        } else if (strcmp(s, "--font-scale") == 0 && v && atof(v) > 0) {
            o->font_scale = (float)atof(v), i++;
        } else if (strcmp(s, "--no-vsync") == 0) {
            o->vsync = 0;
        } else if (strcmp(s, "--autopilot") == 0 && v) {
            o->autopilot = v, i++;
        } else if (strcmp(s, "--participants") == 0 && v && atoi(v) > 0) {
            o->participants = atoi(v), i++;
        } else if (strcmp(s, "--seed") == 0 && v) {
            o->seed = strtoull(v, NULL, 10), i++;
        } else if (strcmp(s, "--screenshot-dir") == 0 && v) {
            o->screenshot_dir = v, i++;
        } else if (strcmp(s, "--screenshot-one-per-condition") == 0) {
            o->shot_per_condition = 1;
        } else if (strcmp(s, "--chaos") == 0) {
            o->chaos = 1;
        } else if (strcmp(s, "--sync") == 0 && v) {
            o->sync_url = v, i++;
        } else if (strcmp(s, "--accept-changed-bundle") == 0) {
            o->accept_changed = 1;
        } else if (strcmp(s, "--timing-log") == 0 && v) {
            o->timing_log = v, i++;
        } else if (strcmp(s, "--rush") == 0) {
            o->rush = 1;
        } else if (strcmp(s, "--no-rush") == 0) {
            o->rush = 0;
        } else if (strcmp(s, "--cpu") == 0 && v && v[0] >= '0' && v[0] <= '9' &&
                   atoi(v) <= 1023) {
            o->cpu = atoi(v), i++;
        } else if (strcmp(s, "--texture-budget") == 0 && v && atoi(v) > 0 &&
                   atoi(v) <= 65536) {
            o->texture_budget_mb = atoi(v), i++;
        } else if (strcmp(s, "--exit-after") == 0 && v) {
            o->exit_after = atoi(v), i++;
        } else if (s[0] != '-' && !o->dir) {
            o->dir = s;
        } else {
            fprintf(stderr, "simlab run: bad or incomplete argument '%s'\n", s);
            run_usage();
            return -1;
        }
    }
    if (o->shot_per_condition && !o->screenshot_dir) {
        fprintf(stderr, "simlab run: --screenshot-one-per-condition needs "
                        "--screenshot-dir DIR\n");
        run_usage();
        return -1;
    }
    if (o->shot_per_condition && !o->autopilot) {
        o->autopilot = "model"; /* answers everything, passes screening */
    }
    if (!o->dir) {
        fprintf(stderr, "simlab run: missing study bundle directory\n");
        run_usage();
        return -1;
    }
    return 0;
}

int run_options_outputs(const RunOptions *o)
{
    const char *opt[] = {"--screenshot-dir", "--timing-log"};
    const char *path[] = {o->screenshot_dir, o->timing_log};
    for (size_t i = 0; i < sizeof opt / sizeof opt[0]; i++) {
        if (!path[i]) {
            continue;
        }
        char why[512];
        int inside = hash_path_in_bundle(o->dir, path[i], why, sizeof why);
        if (inside < 0) {
            fprintf(stderr, "simlab run: %s\n", why);
            return -1;
        }
        if (inside) {
            fprintf(stderr,
                    "simlab run: %s %s is inside the study bundle %s (files "
                    "written there would change the bundle's hash and the "
                    "next start would be refused); give a path outside the "
                    "bundle\n",
                    opt[i], path[i], o->dir);
            return -1;
        }
    }
    return 0;
}

int run_options_database(RunOptions *o, const char *study_id, char *buf,
                         size_t size)
{
    int by_default = !o->db;
    if (by_default) {
        snprintf(buf, size, "simlab-data/%s.db", study_id);
        o->db = buf;
    }
    char why[512];
    int inside = hash_path_in_bundle(o->dir, o->db, why, sizeof why);
    if (inside < 0) {
        fprintf(stderr, "simlab run: %s\n", why);
        return -1;
    }
    if (!inside) {
        return 0;
    }
    /* suggest what a start from the bundle's parent folder would use */
    char *real = realpath(o->dir, NULL);
    char *slash = real ? strrchr(real, '/') : NULL;
    if (slash) {
        slash[slash == real ? 1 : 0] = '\0';
    }
    fprintf(stderr,
            "simlab run: the %sdatabase %s would be inside the study bundle "
            "%s (it would change the bundle's hash and the next start would "
            "be refused); start simlab from outside the bundle or give "
            "--db %s%ssimlab-data/%s.db\n",
            by_default ? "default " : "", o->db, o->dir, real ? real : "..",
            real && strcmp(real, "/") == 0 ? "" : "/", study_id);
    free(real);
    return -1;
}
