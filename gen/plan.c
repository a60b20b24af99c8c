#include "plan.h"

#include <stdio.h>
#include <stdlib.h>

#include "../index/subslice.h"

uint64_t dk_plan_flip_men(const dk_variant *v, const dk_index *from, const dk_index *to,
                          uint64_t men_index)
{
    dk_bb w, b, fw, fb;
    dk_index_men_unrank(from, men_index, &w, &b);
    dk_men_flip(v, w, b, &fw, &fb);
    return dk_index_men_rank(to, fw, fb);
}

int dk_plan_build(dk_plan *plan, const dk_workgraph *g, uint32_t u)
{
    const dk_unit *unit = &g->units[u];
    const dk_wpair *p = &g->pairs[unit->pair];
    *plan = (dk_plan){g, u, p, unit->level, p->ix.kings_count, 0, NULL, 0};
    size_t cap = 0;
    for (uint64_t x = unit->men_lo; x < unit->men_hi; x++) {
        dk_bb w, b;
        dk_index_men_unrank(&p->ix, x, &w, &b);
        if (dk_men_level(g->v, w, b) != unit->level)
            continue;
        uint64_t fx = dk_plan_flip_men(g->v, &p->ix, &p->ix_twin, x);
        if (p->self_twin && fx < x)
            continue; /* the group of fx holds x */
        if (plan->ngroups == cap) {
            cap = cap ? 2 * cap : 64;
            dk_group *gr = realloc(plan->groups, cap * sizeof *gr);
            if (!gr) {
                dk_plan_free(plan);
                return -1;
            }
            plan->groups = gr;
        }
        bool self = p->self_twin && fx == x;
        plan->groups[plan->ngroups++] = (dk_group){{x, fx}, plan->npositions, self};
        plan->npositions += self ? plan->K : 2 * plan->K;
    }
    return 0;
}

void dk_plan_free(dk_plan *plan)
{
    free(plan->groups);
    plan->groups = NULL;
    plan->ngroups = 0;
}

static int64_t find_canonical(const dk_plan *plan, uint64_t x)
{
    size_t lo = 0, hi = plan->ngroups;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (plan->groups[mid].men[0] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < plan->ngroups && plan->groups[lo].men[0] == x ? (int64_t)lo : -1;
}

int64_t dk_plan_find(const dk_plan *plan, dk_material m, uint64_t men_index, int *side)
{
    const dk_wpair *p = plan->pair;
    if (!p->self_twin && dk_material_equal(m, p->twin)) {
        *side = 1;
        return find_canonical(plan, dk_plan_flip_men(plan->g->v, &p->ix_twin, &p->ix, men_index));
    }
    int64_t gi = find_canonical(plan, men_index);
    *side = 0;
    if (gi < 0 && p->self_twin) {
        *side = 1;
        gi = find_canonical(plan, dk_plan_flip_men(plan->g->v, &p->ix, &p->ix, men_index));
    }
    return gi;
}

int dk_plan_path(const dk_plan *plan, const char *dir, char *buf, size_t len)
{
    char name[DK_MATERIAL_NAME_MAX];
    const dk_unit *unit = &plan->g->units[plan->unit];
    dk_material_name(plan->pair->m, name, sizeof name);
    return snprintf(buf, len, "%s/work/%s-%s.L%d.%llu-%llu", dir, plan->g->v->name, name,
                    plan->level, (unsigned long long)unit->men_lo, (unsigned long long)unit->men_hi);
}
