/*
** Table b-trees read from the pages of a SQLite file (see sqlfile.h and
** https://www.sqlite.org/fileformat2.html): page 1 starts with the 100-byte
** header; an interior table page (type 5) holds (left child, key) cells
** and a right-most child, a leaf (type 13) holds (payload size, rowid,
** payload) cells whose payload may continue on a chain of overflow pages;
** a payload is a record: a header of serial types, then the values.
** Every page is read once at most (a bitmap), so a crafted file cannot
** loop. Depends on libc; the caller reads the file's bytes.
*/
#include "analysis/sqlfile.h"

#include <string.h>

#include "common/sim_alloc.h"

#define MAX_DEPTH 40 /* SQLite's own limit is 20 */
#define MAX_COLS  64

/* A page on the cursor's path from the root. */
typedef struct Level {
    uint32_t pgno;
    const uint8_t *page; /* mapped, or a buffer of pages */
    const uint8_t *hd;   /* its b-tree header */
    int mapped;
    uint32_t i, n; /* next cell, cells */
    int leaf;
} Level;

struct SqlFile {
    SqlFileRead read;
    SqlFileMap map; /* NULL: pages are read */
    SqlFileUnmap unmap;
    void *ctx;
    uint32_t page_size, usable;
    uint32_t n_pages;
    uint8_t *pages;   /* MAX_DEPTH page buffers */
    uint8_t *visited; /* one bit per page */
    uint8_t *payload; /* an overflowing record, assembled */
    size_t payload_cap;
    /* the cursor: the path from the root, the columns and the row */
    Level path[MAX_DEPTH];
    int depth; /* -1: at the end */
    int cols[MAX_COLS], n_cols;
    SqlFileValue v[MAX_COLS];
};

static uint32_t get16(const uint8_t *p)
{
    return (uint32_t)p[0] << 8 | p[1];
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 |
           p[3];
}

/* Reads a varint at p (at most end - p bytes); returns its length, 0 when
** it runs past end. */
static size_t varint(const uint8_t *p, const uint8_t *end, uint64_t *out)
{
    uint64_t v = 0;
    for (size_t i = 0; i < 9; i++) {
        if (p + i >= end) {
            return 0;
        }
        if (i == 8) {
            *out = v << 8 | p[i];
            return 9;
        }
        v = v << 7 | (p[i] & 0x7fu);
        if (!(p[i] & 0x80u)) {
            *out = v;
            return i + 1;
        }
    }
    return 0;
}

int sqlfile_open_mapped(SqlFileRead read, SqlFileMap map, SqlFileUnmap unmap,
                        void *ctx, int64_t size, SqlFile **out)
{
    *out = NULL;
    SqlFile *f = sim_calloc(1, sizeof *f);
    if (!f) {
        return SQLFILE_IO;
    }
    f->depth = -1;
    f->read = read;
    f->map = map;
    f->unmap = unmap;
    f->ctx = ctx;
    uint8_t h[100];
    if (size < 100 || read(ctx, h, sizeof h, 0) != 0) {
        sqlfile_close(f);
        return SQLFILE_IO;
    }
    uint32_t ps = get16(h + 16);
    ps = ps == 1 ? 65536 : ps;
    if (memcmp(h, "SQLite format 3", 16) != 0 || ps < 512 || ps > 65536 ||
        (ps & (ps - 1)) != 0 || h[20] > ps - 480) {
        sqlfile_close(f);
        return SQLFILE_MALFORMED;
    }
    f->page_size = ps;
    f->usable = ps - h[20];
    uint64_t n = (uint64_t)size / ps;
    f->n_pages = n > 0x7fffffff ? 0x7fffffff : (uint32_t)n;
    f->pages = sim_malloc((size_t)MAX_DEPTH * ps);
    f->visited = sim_calloc((size_t)f->n_pages / 8 + 1, 1);
    if (!f->pages || !f->visited) {
        sqlfile_close(f);
        return SQLFILE_IO;
    }
    *out = f;
    return SQLFILE_OK;
}

static void release(SqlFile *f);

void sqlfile_close(SqlFile *f)
{
    if (!f) {
        return;
    }
    release(f);
    sim_free(f->pages);
    sim_free(f->visited);
    sim_free(f->payload);
    sim_free(f);
}

/* Page pgno (1-based), once per scan: mapped, or read into buf;
** *mapped says which (put_page() gives a mapped page back). */
static int get_page(SqlFile *f, uint32_t pgno, uint8_t *buf,
                    const uint8_t **page, int *mapped)
{
    if (pgno < 1 || pgno > f->n_pages ||
        (f->visited[pgno / 8] & (1u << (pgno % 8)))) {
        return SQLFILE_MALFORMED;
    }
    f->visited[pgno / 8] |= (uint8_t)(1u << (pgno % 8));
    int64_t at = (int64_t)(pgno - 1) * f->page_size;
    *mapped = 0;
    *page = f->map ? f->map(f->ctx, at, f->page_size) : NULL;
    if (*page) {
        *mapped = 1;
        return SQLFILE_OK;
    }
    *page = buf;
    return f->read(f->ctx, buf, f->page_size, at) == 0 ? SQLFILE_OK
                                                       : SQLFILE_IO;
}

static void put_page(SqlFile *f, uint32_t pgno, const uint8_t *page, int mapped)
{
    if (mapped) {
        f->unmap(f->ctx, (int64_t)(pgno - 1) * f->page_size, page);
    }
}

/* The byte size of a value of serial type t (t not 10 or 11). */
static size_t type_size(uint64_t t)
{
    static const uint8_t int_size[12] = {0, 1, 2, 3, 4, 6, 8, 8, 0, 0, 0, 0};
    return t < 12 ? int_size[t] : (size_t)((t - 12) / 2);
}

/* The value of serial type t (not 10 or 11) at p. */
static void value_at(SqlFileValue *x, uint64_t t, const uint8_t *p, size_t size)
{
    if (t == 0) {
        x->type = SQLFILE_NULL;
    } else if (t == 8 || t == 9) {
        x->type = SQLFILE_INT;
        x->i = (int64_t)t - 8;
    } else if (t <= 7) {
        uint64_t u = (p[0] & 0x80u) ? ~(uint64_t)0 : 0;
        for (size_t b = 0; b < size; b++) {
            u = u << 8 | p[b];
        }
        if (t == 7) {
            x->type = SQLFILE_REAL;
            memcpy(&x->d, &u, sizeof x->d);
        } else {
            x->type = SQLFILE_INT;
            x->i = (int64_t)u;
        }
    } else {
        x->type = (t & 1) ? SQLFILE_TEXT : SQLFILE_BLOB;
        x->p = (const char *)p;
        x->n = size;
    }
}

/* Decodes the record rec[0..len) into f->v. */
static int decode(SqlFile *f, const uint8_t *rec, size_t len)
{
    const uint8_t *end = rec + len;
    uint64_t hdr;
    size_t k = varint(rec, end, &hdr);
    if (k == 0 || hdr > len || hdr < k) {
        return SQLFILE_MALFORMED;
    }
    const uint8_t *h = rec + k, *hend = rec + hdr;
    size_t body = (size_t)hdr;
    int want = 0, next = f->cols[0];
    for (int col = 0; want < f->n_cols; col++) {
        if (h >= hend) { /* the record ends: later columns are absent */
            for (; want < f->n_cols; want++) {
                f->v[want].type = SQLFILE_ABSENT;
            }
            break;
        }
        uint64_t t = *h;
        if (t < 0x80) {
            h++;
        } else {
            size_t m = varint(h, hend, &t);
            if (m == 0) {
                return SQLFILE_MALFORMED;
            }
            h += m;
        }
        if (t == 10 || t == 11) {
            return SQLFILE_MALFORMED; /* reserved */
        }
        size_t size = type_size(t);
        if (size > len - body) {
            return SQLFILE_MALFORMED;
        }
        if (col == next) {
            value_at(&f->v[want++], t, rec + body, size);
            next = want < f->n_cols ? f->cols[want] : -1;
        }
        body += size;
    }
    return SQLFILE_OK;
}

/* Decodes the leaf cell at c (within page[0..usable)): its payload in
** place when it fits on the page, else assembled from its overflow chain. */
static int leaf_cell(SqlFile *f, const uint8_t *page, const uint8_t *c)
{
    const uint8_t *end = page + f->usable;
    uint64_t size, rowid;
    size_t k = varint(c, end, &size);
    size_t k2 = k ? varint(c + k, end, &rowid) : 0;
    /* A payload cannot be larger than the file holds (its overflow pages
    ** are pages of the file): a claimed size beyond that is refused before
    ** any memory is reserved for it. */
    if (k2 == 0 || size > 0x7fffffff ||
        size > (uint64_t)f->n_pages * f->usable) {
        return SQLFILE_MALFORMED;
    }
    c += k + k2;
    uint64_t U = f->usable, X = U - 35;
    if (size <= X) {
        if (size > (uint64_t)(end - c)) {
            return SQLFILE_MALFORMED;
        }
        return decode(f, c, (size_t)size);
    }
    uint64_t M = ((U - 12) * 32 / 255) - 23;
    uint64_t K = M + ((size - M) % (U - 4));
    size_t local = (size_t)(K <= X ? K : M);
    if (local + 4 > (size_t)(end - c)) {
        return SQLFILE_MALFORMED;
    }
    if (f->payload_cap < size) {
        uint8_t *p = sim_realloc(f->payload, (size_t)size);
        if (!p) {
            return SQLFILE_IO;
        }
        f->payload = p;
        f->payload_cap = (size_t)size;
    }
    memcpy(f->payload, c, local);
    size_t have = local;
    uint32_t next = get32(c + local);
    uint8_t *buf = f->pages + (size_t)(MAX_DEPTH - 1) * f->page_size;
    while (have < size) {
        const uint8_t *ov;
        int mapped;
        uint32_t pgno = next;
        int rc = get_page(f, pgno, buf, &ov, &mapped);
        if (rc != SQLFILE_OK) {
            return rc;
        }
        size_t take = (size_t)size - have;
        take = take < U - 4 ? take : (size_t)(U - 4);
        memcpy(f->payload + have, ov + 4, take);
        have += take;
        next = get32(ov);
        put_page(f, pgno, ov, mapped);
    }
    return decode(f, f->payload, (size_t)size);
}

/* Gives back the pages on the cursor's path. */
static void release(SqlFile *f)
{
    for (; f->depth >= 0; f->depth--) {
        Level *l = &f->path[f->depth];
        put_page(f, l->pgno, l->page, l->mapped);
    }
}

/* Puts page pgno at the end of the cursor's path. */
static int push(SqlFile *f, uint32_t pgno)
{
    int d = f->depth + 1;
    if (d >= MAX_DEPTH - 1) {
        return SQLFILE_MALFORMED;
    }
    Level *l = &f->path[d];
    int rc = get_page(f, pgno, f->pages + (size_t)d * f->page_size, &l->page,
                      &l->mapped);
    if (rc != SQLFILE_OK) {
        return rc;
    }
    f->depth = d;
    l->pgno = pgno;
    l->hd = l->page + (pgno == 1 ? 100 : 0);
    uint32_t type = l->hd[0];
    l->n = get16(l->hd + 3);
    l->i = 0;
    l->leaf = type == 13;
    uint32_t hsize = l->leaf ? 8 : 12;
    if ((type != 5 && type != 13) ||
        (size_t)(l->hd - l->page) + hsize + 2 * (size_t)l->n > f->usable) {
        return SQLFILE_MALFORMED;
    }
    if (l->leaf) {
        /* the rows are read cell by cell, in an order the processor does
        ** not foresee: ask for the whole page at once */
        for (uint32_t off = 0; off < f->page_size; off += 64) {
            __builtin_prefetch(l->page + off);
        }
    }
    return SQLFILE_OK;
}

int sqlfile_start(SqlFile *f, uint32_t root, const int *cols, int n)
{
    release(f);
    if (n < 1 || n > MAX_COLS) {
        return SQLFILE_MALFORMED;
    }
    for (int k = 0; k < n; k++) {
        if (cols[k] < 0 || (k > 0 && cols[k] <= cols[k - 1])) {
            return SQLFILE_MALFORMED;
        }
        f->cols[k] = cols[k];
    }
    f->n_cols = n;
    memset(f->visited, 0, (size_t)f->n_pages / 8 + 1);
    return push(f, root);
}

int sqlfile_next(SqlFile *f, const SqlFileValue **v)
{
    while (f->depth >= 0) {
        Level *l = &f->path[f->depth];
        uint32_t hsize = l->leaf ? 8 : 12;
        uint32_t base = (uint32_t)(l->hd - l->page);
        if (l->i < l->n) {
            uint32_t at = get16(l->hd + hsize + 2 * l->i++);
            if (at < base + hsize || at + 4 > f->usable) {
                return SQLFILE_MALFORMED;
            }
            int rc = l->leaf ? leaf_cell(f, l->page, l->page + at)
                             : push(f, get32(l->page + at));
            if (rc != SQLFILE_OK) {
                return rc;
            }
            if (l->leaf) {
                *v = f->v;
                return 1;
            }
        } else if (!l->leaf && l->i == l->n) {
            l->i++;
            int rc = push(f, get32(l->hd + 8));
            if (rc != SQLFILE_OK) {
                return rc;
            }
        } else {
            put_page(f, l->pgno, l->page, l->mapped);
            f->depth--;
        }
    }
    return 0;
}

int sqlfile_scan(SqlFile *f, uint32_t root, const int *cols, int n,
                 int (*row)(void *ctx, const SqlFileValue *v), void *ctx)
{
    int rc = sqlfile_start(f, root, cols, n);
    const SqlFileValue *v;
    while (rc == SQLFILE_OK && (rc = sqlfile_next(f, &v)) == 1) {
        rc = row(ctx, v) ? SQLFILE_STOPPED : SQLFILE_OK;
    }
    release(f);
    return rc;
}
