/*
** The rows of one table read straight from the pages of a SQLite database
** file (the documented file format: table b-trees, records, overflow
** pages), for the fast reader of simlab stores (analysis/dataset_sqlite.c).
** Only the requested columns are decoded. The caller reads the bytes and
** makes sure the file does not change meanwhile (a read transaction of
** its connection on a file whose write-ahead log is empty). Anything the
** format does not allow (a page out of range, a page reached twice, a cell
** past its page) ends the scan with SQLFILE_MALFORMED; nothing is trusted.
*/
#ifndef SIMLAB_ANALYSIS_SQLFILE_H
#define SIMLAB_ANALYSIS_SQLFILE_H

#include <stddef.h>
#include <stdint.h>

typedef struct SqlFile SqlFile;

enum {
    SQLFILE_OK = 0,
    SQLFILE_STOPPED = 1,    /* the row callback returned non-zero */
    SQLFILE_MALFORMED = -1, /* not a well-formed table b-tree */
    SQLFILE_IO = -2,        /* the file could not be read, or no memory */
};

/* The type of a value: the record's storage class, or SQLFILE_ABSENT when
** the record ends before the column (a column added later by ALTER TABLE:
** its default applies). */
typedef enum SqlFileType {
    SQLFILE_ABSENT,
    SQLFILE_NULL,
    SQLFILE_INT,
    SQLFILE_REAL,
    SQLFILE_TEXT,
    SQLFILE_BLOB
} SqlFileType;

typedef struct SqlFileValue {
    SqlFileType type;
    int64_t i;     /* SQLFILE_INT */
    double d;      /* SQLFILE_REAL */
    const char *p; /* SQLFILE_TEXT, SQLFILE_BLOB: n bytes, not terminated */
    size_t n;
} SqlFileValue;

/* Reads n bytes at offset off of the file into buf; returns 0, or -1 when
** they cannot all be read. */
typedef int (*SqlFileRead)(void *ctx, void *buf, size_t n, int64_t off);

/* A pointer to the n bytes at offset off of a mapped file, or NULL (then
** they are read); each one is given back with unmap(). */
typedef const uint8_t *(*SqlFileMap)(void *ctx, int64_t off, size_t n);
typedef void (*SqlFileUnmap)(void *ctx, int64_t off, const void *p);

/* Opens a file of size bytes that read() reads, for reading its pages in
** place where map() can (map NULL: every page is read); the page size and
** the usable bytes per page come from its header. Returns SQLFILE_OK,
** SQLFILE_IO or SQLFILE_MALFORMED (not a SQLite file). */
int sqlfile_open_mapped(SqlFileRead read, SqlFileMap map, SqlFileUnmap unmap,
                        void *ctx, int64_t size, SqlFile **out);
void sqlfile_close(SqlFile *f); /* NULL is a no-op */

/* Calls row(ctx, v) for every row of the table whose b-tree starts at page
** root, in rowid order, with v[k] the value of record column cols[k]
** (k < n; cols ascending, at most 64). The values point into buffers that
** live until row returns. Returns SQLFILE_OK, SQLFILE_STOPPED,
** SQLFILE_MALFORMED or SQLFILE_IO. */
int sqlfile_scan(SqlFile *f, uint32_t root, const int *cols, int n,
                 int (*row)(void *ctx, const SqlFileValue *v), void *ctx);

/* The same rows one at a time (a file has one cursor): sqlfile_start()
** starts at the table's first row (SQLFILE_OK or an error);
** sqlfile_next() sets *v to the next row's values, valid until the next
** call, and returns 1, or 0 at the end, or an error. */
int sqlfile_start(SqlFile *f, uint32_t root, const int *cols, int n);
int sqlfile_next(SqlFile *f, const SqlFileValue **v);

#endif
