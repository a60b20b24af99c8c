/* The protocol of a unit split over ranks (solve.h): the positions laid out in parts over the
 * ranks, predecessor updates exchanged round by round while the solver's passes run (solve.c),
 * and the verification that asks each successor's holder for its value. */
#include "solve.h"

#include <stdlib.h>
#include <string.h>

#include "../../rules/errors.h"
#include "solve_internal.h"

void dk_split_free_boxes(dk_solver *s)
{
    for (int r = 0; r < s->nboxes; r++) {
        free(s->box[r].a);
        free(s->slots[r].a);
    }
    free(s->box);
    free(s->slots);
    free(s->counts);
    free(s->recv_counts);
    s->box = s->slots = NULL;
    s->counts = s->recv_counts = NULL;
    s->nboxes = 0;
}

/* Appends an item of `size` bytes to an outbox. */
int dk_split_box_add(outbox *b, const void *item, size_t size)
{
    if (b->n == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 4096;
        void *a = realloc(b->a, cap * size);
        if (!a)
            return -1;
        b->a = a;
        b->cap = cap;
    }
    memcpy((char *)b->a + b->n * size, item, size);
    b->n++;
    return 0;
}

/* Sends every outbox (of `size`-byte items) to its rank and receives what the others sent here
 * into s->recv, s->recv_counts[r] items from rank r; flags[0..nflags) become their minimum over
 * the ranks. Collective. Returns 0, or -1 when out of memory (then on every rank). */
int dk_split_exchange(dk_solver *s, const group_ctx *c, size_t size, int64_t *flags, int nflags)
{
    size_t total = 0;
    for (int r = 0; r < c->L.nranks; r++)
        total += s->box[r].n * size;
    if (total > s->send_cap) {
        void *a = realloc(s->send, total);
        if (a) {
            s->send = a;
            s->send_cap = total;
        }
    }
    bool ok = total <= s->send_cap;
    size_t at = 0;
    for (int r = 0; r < c->L.nranks; r++) {
        s->counts[r] = ok ? s->box[r].n * size : 0;
        if (ok && s->counts[r])
            memcpy((char *)s->send + at, s->box[r].a, s->counts[r]);
        at += s->counts[r];
        s->box[r].n = 0;
    }
    s->queued = 0;
    int64_t f[8];
    memcpy(f, flags, (size_t)nflags * sizeof *f);
    f[nflags] = ok ? 0 : -1;
    int rc = c->comm->exchange(c->comm->ctx, s->send, s->counts, &s->recv, &s->recv_cap, s->recv_counts,
                               f, nflags + 1);
    memcpy(flags, f, (size_t)nflags * sizeof *f);
    for (int r = 0; r < c->L.nranks; r++)
        s->recv_counts[r] /= size;
    return rc == 0 && f[nflags] == 0 ? 0 : -1;
}

/* Each rank's status, combined: the least over the ranks of each word. */
void dk_split_agree(const group_ctx *c, int64_t *v, int n)
{
    if (c->comm)
        c->comm->min(c->comm->ctx, v, n);
}

/* Tells a split's progress hook where this rank stands (dk_split_comm.progress). */
void dk_split_report(const group_ctx *c, const char *stage, uint64_t done, uint64_t total, uint64_t rounds)
{
    if (c->comm && c->comm->progress)
        c->comm->progress(c->comm->ctx, stage, done, total, rounds);
}

uint64_t dk_split_positions(const dk_groups *ug, int rank, int nranks)
{
    return make_layout(ug->npositions, ug->part_size, rank, nranks).nlocal;
}

/* The buffers of a split over nranks ranks. */
static int open_boxes(dk_solver *s, int nranks)
{
    dk_split_free_boxes(s);
    s->box = calloc((size_t)nranks, sizeof *s->box);
    s->slots = calloc((size_t)nranks, sizeof *s->slots);
    s->counts = calloc((size_t)nranks, sizeof *s->counts);
    s->recv_counts = calloc((size_t)nranks, sizeof *s->recv_counts);
    s->nboxes = nranks;
    return s->box && s->slots && s->counts && s->recv_counts ? 0 : -1;
}

/* Verification of a split unit, VERIFY_CHUNK positions at a time: each position adds the
 * values of its successors this rank can read and asks for the others; the questions go to
 * their holders and the answers come back in one exchange each way, in the order asked; then
 * the answers are added and every position of the chunk is compared. The questions' exchange
 * carries every rank's state, so all stop together: when no rank has positions left, or one
 * failed, or one found a wrong value. */
static int verify_split(dk_solver *s, const group_ctx *c, const dk_value *values, bool *bad_here,
                        int *bad_member, uint64_t *bad_kings, char *err, size_t errlen)
{
    const int R = c->L.nranks;
    const size_t vsize = s->stride * sizeof(dk_value);
    dk_expected *acc = malloc(VERIFY_CHUNK * sizeof *acc);
    held_iter h;
    bool more = held_begin(&h, c);
    int status = acc ? DK_OK : dk_errorf(err, errlen, "out of memory"); /* or DK_WRONG_VALUE here */
    for (;;) {
        uint32_t first = h.l, n = 0;
        dk_split_report(c, "verifying", more ? h.l : c->L.nlocal, c->L.nlocal, 0);
        for (; status == 0 && more && n < VERIFY_CHUNK; n++, more = held_next(&h)) {
            dk_expected_unpack(&acc[n], s->conv + 2 * (size_t)h.l, s->limit);
            if (dk_solver_verify_quiet(s, c, &h.it.pos, h.member, values, n, &acc[n], err, errlen) != 0)
                status = DK_FAILED;
        }
        int64_t w[3] = {n == 0 ? 1 : 0, status < 0 ? -1 : 0, status > 0 ? 0 : 1};
        if (dk_split_exchange(s, c, sizeof(uint32_t), w, 3) != 0 && status == 0)
            status = dk_errorf(err, errlen, "out of memory for the questions of a split unit");
        if (w[1] < 0 || status < 0)
            break;
        if (w[2] == 0 || w[0] == 1) { /* a wrong value somewhere, or nothing left anywhere */
            free(acc);
            return w[2] == 0 ? DK_WRONG_VALUE : DK_OK;
        }
        /* the answers, rank by rank in the order asked */
        size_t asked = 0;
        for (int r = 0; r < R; r++)
            asked += s->recv_counts[r];
        if (asked * vsize > s->answers_cap) {
            void *a = realloc(s->answers, asked * vsize);
            if (a) {
                s->answers = a;
                s->answers_cap = asked * vsize;
            }
        }
        bool answer = asked * vsize <= s->answers_cap;
        const uint32_t *q = s->recv;
        dk_value *ans = s->answers;
        for (int r = 0; r < R; r++) {
            s->counts[r] = answer ? s->recv_counts[r] * vsize : 0;
            for (size_t j = 0; answer && j < s->recv_counts[r]; j++, q++)
                for (unsigned k = 0; k < s->stride; k++)
                    *ans++ = values[(size_t)*q * s->stride + k];
        }
        int64_t ok[1] = {answer ? 0 : -1};
        if (c->comm->exchange(c->comm->ctx, s->answers, s->counts, &s->recv, &s->recv_cap, s->recv_counts,
                              ok, 1) != 0 || ok[0] < 0) {
            status = dk_errorf(err, errlen, "out of memory for the answers of a split unit");
            break; /* on every rank */
        }
        const dk_value *a = s->recv;
        for (int r = 0; r < R; r++) {
            const uint32_t *slot = s->slots[r].a;
            for (size_t j = 0; j < s->slots[r].n; j++, a += s->stride) {
                dk_value e[2] = {dk_unit_dtw(a[0]), s->stride > 1 ? a[1] : DK_RULE_DRAW};
                dk_expected_add(&acc[slot[j]], e, false, s->limit); /* a quiet king move */
            }
            s->slots[r].n = 0;
        }
        for (uint32_t k = 0; status == 0 && k < n; k++)
            if (!dk_solver_passes(s, values, first + k, &acc[k])) {
                uint64_t i = global_of(&c->L, first + k);
                status = DK_WRONG_VALUE;
                *bad_here = true;
                *bad_member = member_of(c, i);
                *bad_kings = i - (uint64_t)*bad_member * c->K;
            }
    }
    free(acc);
    if (status == DK_FAILED)
        return DK_FAILED;
    return dk_statusf(DK_PEER_FAILED, err, errlen, "another rank sharing the unit failed");
}

int dk_solve_split(dk_solver *s, const dk_groups *ug, const dk_split_comm *comm, dk_value *out,
                   char *err, size_t errlen)
{
    dk_solver_begin_unit(s, ug);
    int64_t ok = open_boxes(s, comm->nranks) == 0 ? 0 : -1;
    comm->min(comm->ctx, &ok, 1);
    if (ok < 0)
        return dk_errorf(err, errlen, "out of memory");
    if (ug->ngroups == 0)
        return 0;
    group_ctx c = make_group(ug, &ug->groups[0], comm);
    int64_t grown = dk_solver_grow_conv(s, c.L.nlocal ? c.L.nlocal : 1, err, errlen) == 0 ? 0 : -1;
    comm->min(comm->ctx, &grown, 1);
    if (grown < 0)
        return dk_errorf(err, errlen, "out of memory");
    return dk_solver_solve_group(s, &c, out, s->conv, err, errlen);
}

int dk_verify_split(dk_solver *s, const dk_groups *ug, const dk_split_comm *comm,
                    const dk_value *values, bool *bad_here, int *bad_member, uint64_t *bad_kings,
                    char *err, size_t errlen)
{
    *bad_here = false;
    if (ug->ngroups == 0)
        return 0;
    group_ctx c = make_group(ug, &ug->groups[0], comm);
    return verify_split(s, &c, values, bad_here, bad_member, bad_kings, err, errlen);
}
