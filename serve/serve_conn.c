/*
** Connection accounting of `simlab serve` (serve_conn.h).
*/
#define _GNU_SOURCE
#include "serve/serve_conn.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "common/sim_alloc.h"

/* An address as a key: IPv4 (also IPv4-mapped IPv6) by its 32 bits, IPv6
** by its /64 (what one client has); 0 for anything else. */
static uint64_t addr_key(const struct sockaddr *sa, socklen_t len)
{
    if (sa && sa->sa_family == AF_INET && len >= sizeof(struct sockaddr_in)) {
        const struct sockaddr_in *a = (const struct sockaddr_in *)sa;
        return 0x100000000ULL | ntohl(a->sin_addr.s_addr);
    }
    if (sa && sa->sa_family == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
        const unsigned char *b =
            ((const struct sockaddr_in6 *)sa)->sin6_addr.s6_addr;
        static const unsigned char mapped[12] = {0, 0, 0, 0, 0,    0,
                                                 0, 0, 0, 0, 0xff, 0xff};
        if (memcmp(b, mapped, 12) == 0) {
            return 0x100000000ULL | (uint64_t)b[12] << 24 |
                   (uint64_t)b[13] << 16 | (uint64_t)b[14] << 8 | b[15];
        }
        uint64_t k = 0;
        for (int i = 0; i < 8; i++) {
            k = k << 8 | b[i];
        }
        /* ::1 and the like have a /64 of zeros: keep them apart */
        return k ? k | 1ULL << 63 : 0x200000000ULL | b[15];
    }
    return 0;
}

int conn_table_init(ConnTable *t, int cap, const char *proxies)
{
    memset(t, 0, sizeof *t);
    pthread_mutex_init(&t->mu, NULL);
    t->cap = cap > 0 ? cap : 0;
    const char *p = proxies ? proxies : "127.0.0.1,::1";
    while (*p) {
        char one[64];
        size_t n = strcspn(p, ",");
        snprintf(one, sizeof one, "%.*s", (int)(n < 63 ? n : 63), p);
        p += n + (p[n] == ',');
        if (!one[0]) {
            continue;
        }
        struct sockaddr_in a4;
        struct sockaddr_in6 a6;
        memset(&a4, 0, sizeof a4);
        memset(&a6, 0, sizeof a6);
        uint64_t k = 0;
        if (inet_pton(AF_INET, one, &a4.sin_addr) == 1) {
            a4.sin_family = AF_INET;
            k = addr_key((struct sockaddr *)&a4, sizeof a4);
        } else if (inet_pton(AF_INET6, one, &a6.sin6_addr) == 1) {
            a6.sin6_family = AF_INET6;
            k = addr_key((struct sockaddr *)&a6, sizeof a6);
        } else {
            return -1;
        }
        if (t->n_proxies < (int)(sizeof t->proxies / sizeof *t->proxies)) {
            t->proxies[t->n_proxies++] = k;
        }
    }
    if (t->cap) {
        t->n_slots = 1 << 14;
        t->slots = sim_calloc(t->n_slots, sizeof *t->slots);
        if (!t->slots) {
            return -1;
        }
    }
    return 0;
}

void conn_table_free(ConnTable *t)
{
    sim_free(t->slots);
    pthread_mutex_destroy(&t->mu);
}

static int is_proxy(const ConnTable *t, uint64_t k)
{
    for (int i = 0; i < t->n_proxies; i++) {
        if (t->proxies[i] == k) {
            return 1;
        }
    }
    return 0;
}

/* The slot of address k (an empty one when it has none): the table holds
** at most as many addresses as connections, far below its size. */
static size_t slot_of(const ConnTable *t, uint64_t k)
{
    size_t mask = t->n_slots - 1;
    size_t i = (size_t)((k * 0x9e3779b97f4a7c15ULL) >> 40) & mask;
    while (t->slots[i].n && t->slots[i].addr != k) {
        i = (i + 1) & mask;
    }
    return i;
}

int conn_admit(ConnTable *t, const struct sockaddr *addr, socklen_t len)
{
    uint64_t k = addr_key(addr, len);
    if (!t->cap || is_proxy(t, k)) {
        return 1;
    }
    pthread_mutex_lock(&t->mu);
    int ok = t->slots[slot_of(t, k)].n < t->cap;
    if (!ok) {
        t->refused++;
    }
    pthread_mutex_unlock(&t->mu);
    return ok;
}

Conn *conn_started(ConnTable *t, int fd, const struct sockaddr *addr,
                   socklen_t len, int64_t now_ns)
{
    Conn *c = sim_calloc(1, sizeof *c);
    if (!c) {
        return NULL;
    }
    c->fd = fd;
    c->state = CONN_IDLE;
    c->since_ns = now_ns;
    c->addr = addr_key(addr, len);
    pthread_mutex_lock(&t->mu);
    if (t->cap && !is_proxy(t, c->addr) && t->n < (long)(t->n_slots / 2)) {
        size_t i = slot_of(t, c->addr);
        t->slots[i].addr = c->addr;
        t->slots[i].n++;
        c->counted = 1;
        if (t->slots[i].n > t->cap) {
            /* admitted by two threads of the pool at once: the later one
            ** is over the address's share and closed like a refused one */
            shutdown(fd, SHUT_RDWR);
            c->state = CONN_BUSY;
            t->refused++;
        }
    }
    c->next = t->head;
    if (t->head) {
        t->head->prev = c;
    }
    t->head = c;
    t->n++;
    pthread_mutex_unlock(&t->mu);
    return c;
}

void conn_set(ConnTable *t, Conn *c, ConnState state, int64_t now_ns)
{
    if (!c) {
        return;
    }
    pthread_mutex_lock(&t->mu);
    c->state = state;
    c->since_ns = now_ns;
    pthread_mutex_unlock(&t->mu);
}

void conn_closed(ConnTable *t, Conn *c)
{
    if (!c) {
        return;
    }
    pthread_mutex_lock(&t->mu);
    if (c->counted) {
        size_t mask = t->n_slots - 1, i = slot_of(t, c->addr);
        if (--t->slots[i].n == 0) {
            /* emptied: the slots after it that probed past move back */
            for (size_t j = (i + 1) & mask; t->slots[j].n; j = (j + 1) & mask) {
                uint64_t k = t->slots[j].addr;
                int n = t->slots[j].n;
                t->slots[j].n = 0;
                size_t home = slot_of(t, k);
                t->slots[home].addr = k;
                t->slots[home].n = n;
            }
        }
    }
    if (c->prev) {
        c->prev->next = c->next;
    } else {
        t->head = c->next;
    }
    if (c->next) {
        c->next->prev = c->prev;
    }
    t->n--;
    pthread_mutex_unlock(&t->mu);
    sim_free(c);
}

void conn_sweep(ConnTable *t, int64_t now_ns, int64_t idle_ns, int64_t read_ns)
{
    pthread_mutex_lock(&t->mu);
    for (Conn *c = t->head; c; c = c->next) {
        int64_t age = now_ns - c->since_ns;
        if ((c->state == CONN_IDLE && age > idle_ns) ||
            (c->state == CONN_READING && age > read_ns)) {
            /* the library sees the end of the stream and closes it; until
            ** its close notification (which waits for this lock) the
            ** socket is this connection's */
            shutdown(c->fd, SHUT_RDWR);
            c->state = CONN_BUSY; /* once */
            t->timed_out++;
        }
    }
    pthread_mutex_unlock(&t->mu);
}
