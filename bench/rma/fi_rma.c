/* SPDX-License-Identifier: MIT */
/*
 * Reference, not MPI: raw libfabric RMA latency on the provider ch4lite's
 * network path uses here (tcp;ofi_rxm, RDM endpoint, loopback only:
 * FI_TCP_IFACE=lo, bound to 127.0.0.1). Two processes (fork): the child
 * exposes 1 MiB of registered memory and only polls its completion queue
 * (rxm progresses RMA in software, so the target must poll, as a target
 * in an MPI call does); the parent issues one 8-byte fi_write with
 * FI_DELIVERY_COMPLETE (the completion ch4lite's native puts ask for) or
 * one fi_read, and waits for its completion, per iteration. Printed as the
 * 8 B rows of rma_lat_put_lock_all / rma_lat_get_lock_all (tagged
 * "fi_rma" by the harness): the floor for a put or get followed by
 * MPI_Win_flush. Fastest of 5 repetitions; exit 77 without a provider.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { BUF = 1 << 20, REPS = 5 };

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

struct node {
    struct fi_info* info;
    struct fid_fabric* fabric;
    struct fid_domain* domain;
    struct fid_cq* cq;
    struct fid_av* av;
    struct fid_ep* ep;
    struct fid_mr* mr;
    char* buf;
    fi_addr_t peer;
};

struct card {  /* what one side tells the other */
    char name[128];
    size_t namelen;
    uint64_t key, addr;
};

static int die(const char* what, int rc) {
    fprintf(stderr, "fi_rma: %s: %s\n", what, fi_strerror(-rc));
    return 1;
}

static int open_node(struct node* n) {
    struct fi_info* hints = fi_allocinfo();
    hints->caps = FI_MSG | FI_RMA | FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE;
    hints->mode = FI_CONTEXT | FI_CONTEXT2;
    hints->ep_attr->type = FI_EP_RDM;
    hints->domain_attr->mr_mode = FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
    hints->fabric_attr->prov_name = strdup("tcp;ofi_rxm");
    int rc = fi_getinfo(FI_VERSION(1, 12), "127.0.0.1", NULL, FI_SOURCE, hints, &n->info);
    fi_freeinfo(hints);
    if (rc) return die("fi_getinfo", rc);
    if ((rc = fi_fabric(n->info->fabric_attr, &n->fabric, NULL))) return die("fi_fabric", rc);
    if ((rc = fi_domain(n->fabric, n->info, &n->domain, NULL))) return die("fi_domain", rc);
    struct fi_cq_attr cq_attr = {.format = FI_CQ_FORMAT_CONTEXT, .wait_obj = FI_WAIT_NONE, .size = 64};
    if ((rc = fi_cq_open(n->domain, &cq_attr, &n->cq, NULL))) return die("fi_cq_open", rc);
    struct fi_av_attr av_attr = {.type = FI_AV_TABLE};
    if ((rc = fi_av_open(n->domain, &av_attr, &n->av, NULL))) return die("fi_av_open", rc);
    if ((rc = fi_endpoint(n->domain, n->info, &n->ep, NULL))) return die("fi_endpoint", rc);
    if ((rc = fi_ep_bind(n->ep, &n->cq->fid, FI_TRANSMIT | FI_RECV))) return die("fi_ep_bind cq", rc);
    if ((rc = fi_ep_bind(n->ep, &n->av->fid, 0))) return die("fi_ep_bind av", rc);
    if ((rc = fi_enable(n->ep))) return die("fi_enable", rc);
    if (posix_memalign((void**)&n->buf, 4096, BUF)) return 1;
    memset(n->buf, 0x5a, BUF);
    if ((rc = fi_mr_reg(n->domain, n->buf, BUF, FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE, 0, 0, 0,
                        &n->mr, NULL)))
        return die("fi_mr_reg", rc);
    return 0;
}

static int card_of(struct node* n, struct card* c) {
    memset(c, 0, sizeof *c);
    c->namelen = sizeof c->name;
    int rc = fi_getname(&n->ep->fid, c->name, &c->namelen);
    if (rc) return die("fi_getname", rc);
    c->key = fi_mr_key(n->mr);
    /* the provider addresses by virtual address or by offset (mr_mode) */
    c->addr = (n->info->domain_attr->mr_mode & FI_MR_VIRT_ADDR) ? (uint64_t)(uintptr_t)n->buf : 0;
    return 0;
}

/* One operation to the peer and its completion. */
static int one(struct node* n, const struct card* peer, int write, size_t bytes) {
    struct iovec v = {n->buf, bytes};
    struct fi_rma_iov r = {peer->addr, bytes, peer->key};
    struct fi_context2 ctx;
    struct fi_msg_rma msg = {&v, NULL, 1, n->peer, &r, 1, &ctx, 0};
    ssize_t rc;
    do {
        rc = write ? fi_writemsg(n->ep, &msg, FI_COMPLETION | FI_DELIVERY_COMPLETE)
                   : fi_readmsg(n->ep, &msg, FI_COMPLETION);
        if (rc == -FI_EAGAIN) {
            struct fi_cq_entry e;
            (void)fi_cq_read(n->cq, &e, 1);
        }
    } while (rc == -FI_EAGAIN);
    if (rc) return die(write ? "fi_writemsg" : "fi_readmsg", (int)rc);
    struct fi_cq_entry e;
    for (;;) {
        rc = fi_cq_read(n->cq, &e, 1);
        if (rc == 1) return 0;
        if (rc == -FI_EAVAIL) {
            struct fi_cq_err_entry err;
            memset(&err, 0, sizeof err);
            (void)fi_cq_readerr(n->cq, &err, 0);
            fprintf(stderr, "fi_rma: completion error: %s (%s)\n", fi_strerror(err.err),
                    fi_cq_strerror(n->cq, err.prov_errno, err.err_data, NULL, 0));
            return 1;
        }
        if (rc != -FI_EAGAIN) return die("fi_cq_read", (int)rc);
    }
}

int main(void) {
    setenv("FI_PROVIDER", "tcp;ofi_rxm", 0);
    setenv("FI_TCP_IFACE", "lo", 0);
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) return 1;
    const pid_t child = fork();
    if (child < 0) return 1;
    struct node n;
    memset(&n, 0, sizeof n);
    const int fd = child == 0 ? sv[1] : sv[0];
    if (open_node(&n)) {
        if (child) waitpid(child, NULL, 0);
        return 77;
    }
    struct card mine, peer;
    if (card_of(&n, &mine)) return 1;
    if (write(fd, &mine, sizeof mine) != (ssize_t)sizeof mine || read(fd, &peer, sizeof peer) != (ssize_t)sizeof peer)
        return 1;
    if (fi_av_insert(n.av, peer.name, 1, &n.peer, 0, NULL) != 1) return die("fi_av_insert", -FI_EINVAL);
    /* Both know each other before the first connection request (rxm refuses
     * one from an address not in its table yet). */
    char ready = 1;
    if (write(fd, &ready, 1) != 1 || read(fd, &ready, 1) != 1) return 1;
    if (child == 0) {  /* the target: poll until the origin says done */
        struct pollfd p = {fd, POLLIN, 0};
        struct fi_cq_entry e;
        for (;;) {
            (void)fi_cq_read(n.cq, &e, 1);
            if (poll(&p, 1, 0) > 0) break;
        }
        _exit(0);
    }
    double best[2] = {1e9, 1e9};
    for (int w = 0; w < 2; ++w) {
        for (int i = 0; i < 200; ++i)  /* warm-up: connection, first use */
            if (one(&n, &peer, w == 0, 8)) return 1;
        const double t0 = now();
        int iters = 0;
        while (now() - t0 < 0.02) {
            if (one(&n, &peer, w == 0, 8)) return 1;
            ++iters;
        }
        const double each = (now() - t0) / iters;
        const int k = (int)(0.04 / each) + 10;
        for (int r = 0; r < REPS; ++r) {
            const double t1 = now();
            for (int i = 0; i < k; ++i)
                if (one(&n, &peer, w == 0, 8)) return 1;
            const double t = (now() - t1) / k;
            if (t < best[w]) best[w] = t;
        }
    }
    const char done = 1;
    if (write(fd, &done, 1) != 1) return 1;
    waitpid(child, NULL, 0);
    printf("INFO\tfi_rma: tcp;ofi_rxm RDM over loopback, 8 B fi_write (FI_DELIVERY_COMPLETE) / fi_read + completion\n");
    const char* rows[] = {"alloc/8", "create/8"};
    for (int i = 0; i < 2; ++i) {
        printf("BENCH\trma_lat_put_lock_all\t%s\tus\t%.6g\n", rows[i], best[0] * 1e6);
        printf("BENCH\trma_lat_get_lock_all\t%s\tus\t%.6g\n", rows[i], best[1] * 1e6);
    }
    return 0;
}
