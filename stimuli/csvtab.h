/*
** CSV tables of a bundle (item banks, explanation sources) read through
** common/sim_csv.h in their declared dialect, with located errors
** (csvtab.c). Internal to stimuli.
*/
#ifndef SIMLAB_STIMULI_CSVTAB_H
#define SIMLAB_STIMULI_CSVTAB_H

#include <stddef.h>

#include "common/sim_decode.h"
#include "stimuli/loader.h"

typedef struct CsvRow {
    char **cells;
    size_t n;
    int line; /* physical line on which the record starts */
} CsvRow;

typedef struct CsvTable {
    char **header;
    size_t n_cols;
    int header_line;
    CsvRow *rows;
    size_t n_rows;
    int unusable; /* the file did not fit its dialect (reported): the
                     header may be checked, the rows are not to be used */
    int lossy;    /* bytes that fit no encoding became U+FFFD */
} CsvTable;

/* How a CSV file is written: "delimiter" and "encoding" of its entry. */
typedef struct CsvDialect {
    char delim;           /* ',' (default; tab for .tsv and .txt), ';', '\t' */
    SimEncoding encoding; /* any iconv knows (common/sim_decode.h) */
    int declared_delim;   /* the entry names them */
    int declared_encoding;
    const char *what;  /* "item bank", "explanation source" (for advice) */
    const char *where; /* JSON pointer of the entry in study.json */
    const char *file;  /* the entry's file (for advice), or NULL */
} CsvDialect;

/* Reads "delimiter" and "encoding" of the entry o at `at` (what: "item
** bank", "explanation source"; borrowed). An undeclared delimiter is a tab
** for a .tsv or .txt file (Excel's "Unicode Text"), else ','. Bad values
** are reported there. Returns 0, or -1 after an error. */
int csv_dialect_parse(Loader *L, const JLoc *at, json_t *o, const char *what,
                      CsvDialect *d);

/* Reads the bundle file rel, written in dialect d (NULL: UTF-8 with ','),
** converted to UTF-8. A file that does not fit the dialect gets one error
** per problem, each naming the option to add ("encoding", "delimiter"), and
** is read on as the advice says (or with U+FFFD for bytes that fit no
** encoding) so that its syntax and header are checked in the same run; its
** table is then marked unusable. Returns 0; -1 after reporting a problem
** that leaves no table (a syntax error, no header); -2 when the path itself
** is bad (nothing reported: the caller knows where the path was named and
** reports it there) with the reason in why. */
int csv_table_read(Loader *L, const char *rel, const CsvDialect *d, CsvTable *t,
                   char *why, size_t why_size);
void csv_table_free(CsvTable *t);
/* csv_table_read() of the file named by member "file" of the entry at
** `at`, its bad path reported there: 0 with *t to free, or -1 (nothing
** to free) after a reported problem. */
int csv_table_open(Loader *L, const JLoc *at, const char *rel,
                   const CsvDialect *d, CsvTable *t);
long csv_col(const CsvTable *t, const char *name); /* -1 when absent */
/* The header's column names, quoted and comma-separated, into out. */
void csv_header_list(const CsvTable *t, char *out, size_t n);
/* Reports that column name (mapped at member key of `at`) is not in the
** header of file, listing the header's columns; nothing when the header
** holds U+FFFD (bytes its encoding did not fit, reported at the file). */
void csv_missing_column(Loader *L, const JLoc *at, const char *key,
                        const char *name, const char *file, const CsvTable *t);

#endif
