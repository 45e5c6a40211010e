/*
** The connection table of simlab serve (serve/serve_conn.h): the share of
** one address, the proxy's addresses not counted, an IPv6 /64 as one
** address, and two connections admitted at once (two threads of the pool)
** when one place was left: the later is shut down, not held.
*/
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "serve/serve_conn.h"
#include "harness.h"

static struct sockaddr_in v4(const char *ip)
{
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    inet_pton(AF_INET, ip, &a.sin_addr);
    return a;
}

static struct sockaddr_in6 v6(const char *ip)
{
    struct sockaddr_in6 a;
    memset(&a, 0, sizeof a);
    a.sin6_family = AF_INET6;
    inet_pton(AF_INET6, ip, &a.sin6_addr);
    return a;
}

#define SA(a) ((const struct sockaddr *)&(a)), sizeof(a)

/* 1 when the peer of fd sees the end of the stream (fd was shut down). */
static int peer_ended(int peer)
{
    char c;
    ssize_t n = recv(peer, &c, 1, MSG_DONTWAIT);
    return n == 0;
}

int main(void)
{
    ConnTable t;
    CHECK_INT(conn_table_init(&t, 2, "10.0.0.9"), 0);
    struct sockaddr_in a = v4("192.0.2.1"), b = v4("192.0.2.2"),
                       proxy = v4("10.0.0.9");

    /* two free places: three admitted before any has started (the check
    ** and the count are two steps); the third to start is shut down */
    int sv[3][2];
    Conn *c[3];
    for (int i = 0; i < 3; i++) {
        CHECK(conn_admit(&t, SA(a)));
        CHECK_INT(socketpair(AF_UNIX, SOCK_STREAM, 0, sv[i]), 0);
    }
    for (int i = 0; i < 3; i++) {
        c[i] = conn_started(&t, sv[i][0], SA(a), 1000);
        CHECK(c[i] != NULL);
    }
    CHECK(!peer_ended(sv[0][1]));
    CHECK(!peer_ended(sv[1][1]));
    CHECK(peer_ended(sv[2][1]));
    CHECK_INT(t.refused, 1);
    CHECK_INT(t.n, 3);
    /* full: the next one is refused at admission; another address is not */
    CHECK(!conn_admit(&t, SA(a)));
    CHECK_INT(t.refused, 2);
    CHECK(conn_admit(&t, SA(b)));
    /* the shut one closes: the address still holds two */
    conn_closed(&t, c[2]);
    CHECK(!conn_admit(&t, SA(a)));
    conn_closed(&t, c[0]);
    CHECK(conn_admit(&t, SA(a)));
    conn_closed(&t, c[1]);

    /* the reverse proxy's address is never counted */
    Conn *p[4];
    int ps[4][2];
    for (int i = 0; i < 4; i++) {
        CHECK(conn_admit(&t, SA(proxy)));
        CHECK_INT(socketpair(AF_UNIX, SOCK_STREAM, 0, ps[i]), 0);
        p[i] = conn_started(&t, ps[i][0], SA(proxy), 1000);
        CHECK(!peer_ended(ps[i][1]));
    }
    for (int i = 0; i < 4; i++) {
        conn_closed(&t, p[i]);
    }

    /* one IPv6 /64 is one address; another /64 is another */
    struct sockaddr_in6 x1 = v6("2001:db8:1:2::1"),
                        x2 = v6("2001:db8:1:2::ffff"),
                        y = v6("2001:db8:1:3::1");
    int xs[2][2];
    Conn *xc[2];
    CHECK_INT(socketpair(AF_UNIX, SOCK_STREAM, 0, xs[0]), 0);
    CHECK_INT(socketpair(AF_UNIX, SOCK_STREAM, 0, xs[1]), 0);
    xc[0] = conn_started(&t, xs[0][0], SA(x1), 1000);
    xc[1] = conn_started(&t, xs[1][0], SA(x2), 1000);
    CHECK(!conn_admit(&t, SA(x1)));
    CHECK(conn_admit(&t, SA(y)));
    conn_closed(&t, xc[0]);
    conn_closed(&t, xc[1]);
    CHECK_INT(t.n, 0);

    for (int i = 0; i < 3; i++) {
        close(sv[i][0]);
        close(sv[i][1]);
    }
    for (int i = 0; i < 4; i++) {
        close(ps[i][0]);
        close(ps[i][1]);
    }
    for (int i = 0; i < 2; i++) {
        close(xs[i][0]);
        close(xs[i][1]);
    }
    conn_table_free(&t);
    return TEST_REPORT();
}
