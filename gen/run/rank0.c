#include "rank0.h"

#include <stdio.h>
#include <stdlib.h>

#include "../plan/simulate.h"

/* A split unit solved by a group of ranks other than 0, and its ranks that have not reported
 * it done yet: they wait for a task again only once every one of them has, as the simulation
 * frees them (plan/simulate.c). */
typedef struct dk_split_group {
    uint32_t unit, n, left;
    int32_t *ranks; /* a rank that reported: -1 - rank */
} split_group;

/* Rank r, which waited for a task since s->since[r], got one now. */
static void stop_waiting(dk_rank0 *s, uint32_t r)
{
    double now = dk_now();
    s->run.waited += now - s->since[r];
    s->since[r] = now;
}

/* Rank r reports an order of this kind, handed to it at s->since[r], done. */
static void ran_task(dk_rank0 *s, uint32_t r, int32_t kind, int32_t id)
{
    if (kind == DK_ORDER_NONE)
        return;
    dk_forecast_link k = kind == DK_ORDER_SPLIT ? DK_LINK_SPLIT
                                                : dk_forecast_link_of(s->g, (dk_wg_task){kind, (uint32_t)id});
    s->run.busy[k] += dk_now() - s->since[r];
}

/* Rank r waits for a task again. */
static void waits_again(dk_rank0 *s, uint32_t r)
{
    dk_sched_waits(&s->core, r);
    s->since[r] = dk_now();
}

/* The group running split unit u, or NULL (a split of every rank). */
static split_group *group_of(dk_rank0 *s, int32_t u)
{
    for (uint32_t i = 0; i < s->ngroups; i++)
        if ((int32_t)s->groups[i].unit == u)
            return &s->groups[i];
    return NULL;
}

/* Group i's ranks that reported wait again (every rank once all have), and it is forgotten. */
static void release_group(dk_rank0 *s, uint32_t i)
{
    split_group *gr = &s->groups[i];
    for (uint32_t k = 0; k < gr->n; k++)
        if (gr->ranks[k] < 0)
            waits_again(s, (uint32_t)(-1 - gr->ranks[k]));
    free(gr->ranks);
    *gr = s->groups[--s->ngroups];
}

/* A rank of group gr reported its part done: once every one has, the unit is done and they all
 * wait again. */
static void group_member_done(dk_rank0 *s, split_group *gr, uint32_t rank)
{
    for (uint32_t k = 0; k < gr->n; k++)
        if (gr->ranks[k] == (int32_t)rank)
            gr->ranks[k] = -1 - (int32_t)rank; /* reported */
    if (--gr->left > 0)
        return;
    uint32_t u = gr->unit, n = gr->n;
    s->run.splits.groups++;
    s->run.splits.least = !s->run.splits.least || n < s->run.splits.least ? n : s->run.splits.least;
    s->run.splits.most = n > s->run.splits.most ? n : s->run.splits.most;
    s->pr.done_positions += s->g->units[u].counted;
    dk_sched_done(&s->core, (dk_wg_task){DK_WG_UNIT, u});
    release_group(s, (uint32_t)(gr - s->groups));
}

/* The progress line's note while groups solve split units (rank 0 is in none: it knows what
 * runs, not where each stands). */
static void group_note(dk_rank0 *s)
{
    uint32_t ranks = 0;
    for (uint32_t i = 0; i < s->ngroups; i++)
        ranks += s->groups[i].n;
    if (s->ngroups == 1) {
        const dk_unit *un = &s->g->units[s->groups[0].unit];
        char name[DK_MATERIAL_NAME_MAX];
        dk_material_name(s->g->pairs[un->pair].m, name, sizeof name);
        snprintf(s->pr.note, sizeof s->pr.note, "split unit of %s (level %d, %.3g positions) on a group of %u ranks",
                 name, un->level, (double)un->positions, ranks);
    } else if (s->ngroups) {
        snprintf(s->pr.note, sizeof s->pr.note, "%u split units on groups of %u ranks in all", s->ngroups, ranks);
    } else {
        s->pr.note[0] = 0;
    }
}

void dk_rank0_report(dk_rank0 *s, uint32_t rank, const dk_rank_report *r)
{
    ran_task(s, rank, r->kind, r->id);
    split_group *gr = r->kind == DK_ORDER_SPLIT ? group_of(s, r->id) : NULL;
    if (gr && r->status == 0) { /* no group runs once the run has failed */
        group_member_done(s, gr, rank);
        group_note(s);
        dk_progress_update(&s->pr, false);
        return;
    }
    waits_again(s, rank);
    if (r->status != 0) {
        /* the first message of a rank that failed itself (not a split's other ranks) */
        if (!s->err[0] && r->status != DK_PEER_FAILED && rank != 0)
            snprintf(s->err, sizeof s->err, "rank %u: %.900s", rank, r->err);
        else if (!s->err[0] && r->status != DK_PEER_FAILED)
            snprintf(s->err, sizeof s->err, "%s", r->err);
        dk_sched_fail(&s->core);
    }
    if (s->core.failed) {
        /* the groups' ranks that reported wait, to be stopped; the others will report */
        while (s->ngroups)
            release_group(s, s->ngroups - 1);
        group_note(s);
        return;
    }
    if (r->kind == DK_ORDER_NONE || r->kind == DK_ORDER_SPLIT) /* rank 0 records a split of every rank done */
        return;
    if (r->kind == DK_WG_UNIT) {
        s->pr.done_positions += s->g->units[r->id].counted;
        dk_sched_done(&s->core, (dk_wg_task){DK_WG_UNIT, (uint32_t)r->id});
    } else if (r->kind == DK_WG_SCAN || r->kind == DK_WG_PACK) {
        s->run.parts++;
        dk_sched_done(&s->core, (dk_wg_task){(dk_wg_kind)r->kind, (uint32_t)r->id});
    } else {
        s->run.joins += s->g->pairs[r->id].nparts > 0;
        s->pr.done_materials += s->g->pairs[r->id].self_twin ? 1 : 2;
        dk_sched_done(&s->core, (dk_wg_task){DK_WG_FINISH, (uint32_t)r->id});
    }
    dk_progress_update(&s->pr, false);
}

/* Every rank is free: all of them solve split unit u, rank 0 on this thread (its worker's
 * thread waits for a task meanwhile, so the worker is this thread's to use). */
static void start_split(dk_rank0 *s, uint32_t u)
{
    uint32_t r;
    while (dk_sched_take_rank(&s->core, &r) > 0) { /* every rank, 0 first */
        if (r != 0)
            s->sends.send(s->sends.ctx, r, DK_ORDER_SPLIT, u, NULL, 0);
        stop_waiting(s, r);
    }
    dk_rank_report rep = {DK_ORDER_SPLIT, (int32_t)u, 0, ""};
    rep.status = s->sends.solve(s->sends.ctx, u, rep.err, sizeof rep.err);
    if (rep.status != 0) {
        dk_rank0_report(s, 0, &rep);
        return;
    }
    ran_task(s, 0, DK_ORDER_SPLIT, rep.id);
    s->run.splits.every++;
    s->pr.done_positions += s->g->units[u].counted;
    dk_sched_done(&s->core, (dk_wg_task){DK_WG_UNIT, u});
    waits_again(s, 0); /* rank 0's worker */
    dk_progress_update(&s->pr, false);
}

/* Split unit a.task.id starts on a group of a.ranks ranks other than 0: each is sent its part
 * and the group's ranks; they report one by one (dk_rank0_report). When out of memory, or when
 * the core has not the ranks it granted (an internal error: rank 0 would wait for a group that
 * never runs), the run fails with a message, every rank taken waiting again to be stopped. */
static void start_group(dk_rank0 *s, dk_sched_grant a)
{
    if (s->ngroups == s->groups_cap) {
        uint32_t cap = s->groups_cap ? 2 * s->groups_cap : 8;
        split_group *more = realloc(s->groups, cap * sizeof *more);
        if (more) {
            s->groups = more;
            s->groups_cap = cap;
        }
    }
    split_group gr = {a.task.id, a.ranks, a.ranks, NULL};
    if (s->ngroups == s->groups_cap || !(gr.ranks = malloc((size_t)a.ranks * sizeof(int32_t)))) {
        snprintf(s->err, sizeof s->err, "rank 0: out of memory for a group of %u ranks", a.ranks);
        dk_sched_fail(&s->core);
        return;
    }
    for (uint32_t k = 0; k < a.ranks; k++) {
        uint32_t r = 0;
        int got = dk_sched_take_rank(&s->core, &r);
        if (got == 1 && r != 0) {
            gr.ranks[k] = (int32_t)r;
            stop_waiting(s, r);
            continue;
        }
        snprintf(s->err, sizeof s->err, "internal error: the scheduler granted a group of %u ranks but has %u of "
                 "them", a.ranks, k);
        if (got == 1) /* rank 0 is in no group's split */
            gr.ranks[k++] = 0;
        while (k > 0)
            waits_again(s, (uint32_t)gr.ranks[--k]);
        free(gr.ranks);
        dk_sched_fail(&s->core);
        return;
    }
    for (uint32_t k = 0; k < a.ranks; k++)
        s->sends.send(s->sends.ctx, (uint32_t)gr.ranks[k], DK_ORDER_SPLIT, a.task.id, gr.ranks, a.ranks);
    s->groups[s->ngroups++] = gr;
    group_note(s);
    dk_progress_update(&s->pr, false);
}

void dk_rank0_hand_out(dk_rank0 *s)
{
    for (;;) {
        dk_sched_grant a = dk_sched_next(&s->core);
        switch (a.kind) {
        case DK_SCHED_TASK:
            s->sends.send(s->sends.ctx, a.rank, (int32_t)a.task.kind, a.task.id, NULL, 0);
            stop_waiting(s, a.rank);
            break;
        case DK_SCHED_STOP:
            s->sends.send(s->sends.ctx, a.rank, DK_ORDER_STOP, 0, NULL, 0);
            stop_waiting(s, a.rank);
            s->stopped++;
            break;
        case DK_SCHED_SPLIT:
            if (a.every)
                start_split(s, a.task.id);
            else
                start_group(s, a);
            break;
        case DK_SCHED_STUCK:
            snprintf(s->err, sizeof s->err, "internal error: no work is ready but tables are missing");
            break;
        default: /* DK_SCHED_WAIT; no rank is made on demand, so never DK_SCHED_NOMEM */
            return;
        }
    }
}
