/*
** The interaction table's store schema, made from INTERACTION_COLUMNS
** (interaction.h). libc only.
*/
#include "experiment/interaction.h"

#include <stdio.h>

int interaction_create_sql(char *buf, size_t n)
{
    size_t len = 0;
    int k = snprintf(buf, n, "CREATE TABLE interaction (");
    len = k > 0 ? (size_t)k : 0;
#define COLUMN(name, sqlite, pg, csv, expr, doc)                               \
    if (len < n) {                                                             \
        k = snprintf(buf + len, n - len, "  %s %s,", #name, sqlite);           \
        len += k > 0 ? (size_t)k : 0;                                          \
    }
    INTERACTION_COLUMNS(COLUMN)
#undef COLUMN
    if (len < n) {
        k = snprintf(buf + len, n - len,
                     "  PRIMARY KEY (" INTERACTION_KEY "),"
                     "  FOREIGN KEY (participant, seq) REFERENCES "
                     "trial(participant, seq));");
        len += k > 0 ? (size_t)k : 0;
    }
    return len < n ? 0 : -1;
}
