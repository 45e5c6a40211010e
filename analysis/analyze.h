/*
** simlab-analyze as a library call: load databases and CSV files, screen
** participants, compute every table (analyze_compute) and write the report
** files (analyze_write). main.c only parses argv and calls analyze_main().
*/
#ifndef SIMLAB_ANALYSIS_ANALYZE_H
#define SIMLAB_ANALYSIS_ANALYZE_H

#include "analysis/dataset.h"
#include "analysis/report.h"

/* Fills o with the documented defaults (10,000 replicates, seed 1, ...). */
void analyze_options_default(AnalyzeOptions *o);

/* Computes all tables of r from ds under o. On failure r holds whatever was
** computed before the fault; release it with report_free() either way. */
int analyze_compute(const Dataset *ds, const AnalyzeOptions *o, Report *r,
                    SimError *err);

/* Writes report.{md,tex,json}, the CSV tables and the plots into out_dir
** according to r->opt.formats and r->opt.plots: into a fresh folder beside
** it that then replaces out_dir whole (report_write_dir()). */
int analyze_write(const Report *r, const char *out_dir, SimError *err);

/* Loads every source, computes and writes. */
int analyze_main(const AnalyzeOptions *o, const char *const *dbs, int n_dbs,
                 const char *const *csvs, int n_csvs, const char *out_dir,
                 SimError *err);

/* Prints the key results (change and utility tables) as plain text. */
void analyze_print_summary(const Report *r);

#endif
