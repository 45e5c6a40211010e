/*
** The connections of `simlab serve` (serve_http.h): how many each client
** address holds (an IPv6 /64 is one address; the reverse proxy's own are
** not counted), and when each became idle or began a request, so that
** deadlines close the ones trickling bytes: shutdown(2) of the socket,
** under the lock that libmicrohttpd's close notification also takes, so
** that a socket number is never shut down after it was reused.
*/
#ifndef SIMLAB_SERVE_SERVE_CONN_H
#define SIMLAB_SERVE_SERVE_CONN_H

#include <pthread.h>
#include <stdint.h>
#include <sys/socket.h>

typedef enum ConnState {
    CONN_IDLE = 0, /* between requests (or before the first) */
    CONN_READING,  /* a request's first line came; the rest is awaited */
    CONN_BUSY      /* the request is whole: answered, or waiting */
} ConnState;

typedef struct Conn {
    struct Conn *prev, *next;
    int fd;
    ConnState state;
    int64_t since_ns; /* monotonic: the state began */
    int counted;      /* counted against its address */
    uint64_t addr;    /* its address's key */
} Conn;

typedef struct ConnTable {
    pthread_mutex_t mu;
    Conn *head;
    long n, timed_out, refused;
    int cap;             /* per address; 0 none */
    uint64_t proxies[8]; /* address keys not counted */
    int n_proxies;
    struct {
        uint64_t addr;
        int n;
    } * slots; /* open addressing: connections per address */
    size_t n_slots;
} ConnTable;

/* cap: connections per address (0 none); proxies: comma-separated
** addresses not counted. 0, or -1 (out of memory, an address that does
** not parse). */
int conn_table_init(ConnTable *t, int cap, const char *proxies);
void conn_table_free(ConnTable *t);

/* 1 when a connection from addr may be taken (its address is under the
** cap). */
int conn_admit(ConnTable *t, const struct sockaddr *addr, socklen_t len);

/* A connection began (fd, from addr): a new Conn, idle (NULL: no
** memory). conn_admit's check and this count are not one step: a
** connection that finds its address over the cap here (two threads
** admitted at once) is shut down at once. */
Conn *conn_started(ConnTable *t, int fd, const struct sockaddr *addr,
                   socklen_t len, int64_t now_ns);

/* c's state changes at now_ns. */
void conn_set(ConnTable *t, Conn *c, ConnState state, int64_t now_ns);

/* c is closed (libmicrohttpd closes its socket after this returns). */
void conn_closed(ConnTable *t, Conn *c);

/* Shuts down the connections idle longer than idle_ns or reading longer
** than read_ns. */
void conn_sweep(ConnTable *t, int64_t now_ns, int64_t idle_ns, int64_t read_ns);

#endif
