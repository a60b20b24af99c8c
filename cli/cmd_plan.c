/* damka plan: what `damka gen` would take on R ranks (time, memory, disk), without running it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../gen/plan/budget.h"
#include "../gen/plan/costmodel.h"
#include "../gen/plan/simulate.h"
#include "../gen/store/json.h"
#include "../gen/run/progress.h"
#include "../gen/run/setup.h"
#include "../rules/errors.h"
#include "cli.h"
#include "runopts.h"

/* Within this share of the critical path, more ranks no longer pay. */
#define PLAN_TOLERANCE_PERCENT 5
#define PLAN_TOLERANCE (PLAN_TOLERANCE_PERCENT / 100.0)
#define STR_(x) #x
#define STR(x) STR_(x)

static int cmd_plan(int argc, char **argv);

const cli_command cli_plan = {
    "plan", cmd_plan,
    "[--variant V] (--pieces N [--per-side K] | --materials LIST) --ranks R\n"
    "[--draw-rule MOVES] [--memory-per-rank SIZE] [--unit-positions P] [--split-positions P]\n"
    "[--finish-positions P] "
    "[--rate POSITIONS_PER_S | --speed FACTOR] [--json]",
    "forecast gen on R ranks: wall time, critical path, memory, disk",
    "Forecasts `mpirun -np R damka gen` with the same options: the same work graph and unit bound\n"
    "(from --memory-per-rank, default this machine's memory), by simulating gen's scheduler over\n"
    "it (any idle rank takes the ready task heading the longest chain of work still to do; a\n"
    "split unit is solved by a group of ranks, the fewest whose shares fit, while the others\n"
    "work). Positions are\n"
    "table entries (White to move), as gen's progress line counts them.\n"
    "\n"
    "  wall time          the simulated run on R ranks\n"
    "  critical path      the wall time with unlimited ranks: the longest chain of tasks that\n"
    "                     wait for each other\n"
    "  made of            that chain by kind of task (units, split units, finishings, scans,\n"
    "                     packings, joins), and the decoding of finished tables within it\n"
    "  saturation         the fewest ranks whose wall time is within " STR(PLAN_TOLERANCE_PERCENT)
    "% of the critical path:\n"
    "                     beyond them the wall time stops falling\n"
    "  memory a rank      what a rank is forecast to hold at its peak, the parts adding up to it:\n"
    "                     fixed costs (48 MiB), its task's own bytes (a unit's values and scratch,\n"
    "                     or a finishing's buffers), the exit cache's blocks of the units above\n"
    "                     (about twice a unit's values), the decoded tables its solver holds then\n"
    "                     (simulated) and verification's own reader (as much, within its room);\n"
    "                     then the budget's caps of these caches, which the run may not fill\n"
    "  disk               the compressed tables at calibrated bits a position, and the unit files\n"
    "                     in DIR/work of the pairs not finished yet; what the run writes in all\n"
    "                     (unit files, parts' files and tables)\n"
    "  tables read        compressed bytes a rank reads: it decodes the parts of the tables its\n"
    "                     units' captures and promotions reach when first needed, and keeps\n"
    "                     them while its cache allows (an estimate: a unit reads a span of each\n"
    "                     table twice its share of its pair); the share of the ranks' work that\n"
    "                     decoding them takes\n"
    "\n"
    "Cost model: a unit takes its positions times a time a position that grows with the kings of\n"
    "its material, plus the positions of the tables it decodes times a decoding time; finishing\n"
    "a pair, its positions times a smaller time (in parts: each part's scan and packing and the\n"
    "join share it). All are calibrated on Brazilian tables with the\n"
    "draw rule (the cost model line shows them as rates); International's unit times are\n"
    "those x 1.07 at 5 pieces and x 1.4 at 6 and more, its finishing x 0.84 (measured).\n",
    VARIANT_HELP RUN_OPTIONS_HELP
    "  --ranks R              the ranks of the run to forecast (required)\n"
    "  --rate POSITIONS_PER_S the units' average positions a second a rank, finishing and\n"
    "                         decoding scaled alike (measure it with a small run on your\n"
    "                         machine: gen's progress line, divided by the ranks; it holds\n"
    "                         for sets with the same share of kings as the run measured)\n"
    "  --speed FACTOR         this machine against the model's: every time divided by it\n"
    "                         (FACTOR = plan's forecast of a run you timed / its wall time,\n"
    "                         from a run of the piece counts you plan: a subset of materials)\n"
    "  --json                 the same figures as one JSON object\n",
};

typedef struct plan_args {
    dk_gen_options o;
    long ranks;
    double rate, speed;
    bool json;
} plan_args;

static int parse_args(int argc, char **argv, plan_args *p, dk_material *mats, int cap)
{
    char q[DK_QUOTE_MAX];
    cli_run_args a = {0};
    const char *ranks = NULL, *rate = NULL, *speed = NULL;
    int status = 0;
    for (int i = 1; i < argc; i++) {
        if (cli_run_option(argc, argv, &i, &a, &p->o, &status) ||
            cli_option_value(argc, argv, &i, "--ranks", &ranks, &status) ||
            cli_option_value(argc, argv, &i, "--rate", &rate, &status) ||
            cli_option_value(argc, argv, &i, "--speed", &speed, &status)) {
            if (status)
                return status;
        } else if (strcmp(argv[i], "--json") == 0) {
            p->json = true;
        } else {
            return cli_is_option(argv[i]) ? cli_unknown_option(&cli_plan, argv[i])
                                           : cli_usage_error(&cli_plan, "unexpected argument '%s'", cli_quote(argv[i], q, sizeof q));
        }
    }
    if (!ranks)
        return cli_usage_error(&cli_plan, "--ranks R is required");
    if (!cli_parse_int(ranks, 1, 1L << 24, &p->ranks))
        return cli_error("plan: --ranks must be a whole number from 1 to %ld, got '%s'", 1L << 24, cli_quote(ranks, q, sizeof q));
    if (rate) {
        char *end;
        p->rate = strtod(rate, &end);
        if (end == rate || *end || !(p->rate >= 1 && p->rate <= 1e12))
            return cli_error("plan: --rate must be positions a second a rank, from 1 to 1e12, got '%s'", cli_quote(rate, q, sizeof q));
    }
    if (speed) {
        char *end;
        p->speed = strtod(speed, &end);
        if (end == speed || *end || !(p->speed >= 0.001 && p->speed <= 1000))
            return cli_error("plan: --speed must be a factor from 0.001 to 1000, got '%s'", cli_quote(speed, q, sizeof q));
        if (rate)
            return cli_error("plan: --rate and --speed both scale the model's times: give one");
    }
    return cli_run_finish("plan", &a, &p->o, mats, cap);
}

/* What the run needs, beyond the forecasts. */
typedef struct plan_facts {
    dk_budget b;
    uint64_t positions, unit_max, pair_max;
    uint64_t unit_bytes, finish_bytes; /* what solving the largest unit, finishing the largest
                                        * pair hold besides the cache */
    unsigned limit;                    /* the draw rule in plies */
    uint64_t check_bytes;              /* verification's reader of the tables while a unit of
                                        * the bound is solved (the most it takes) */
} plan_facts;

enum { TEXT_MAX = 48 };

/* b bytes in binary units, into buf (TEXT_MAX); returns buf. */
static const char *bytes_text(double b, char *buf)
{
    static const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    int k = 0;
    for (; b >= 1024 && k < 5; k++)
        b /= 1024;
    snprintf(buf, TEXT_MAX, k ? "%.1f %s" : "%.0f %s", b, unit[k]);
    return buf;
}

/* s seconds, also as hh:mm:ss, into buf (TEXT_MAX); returns buf. */
static const char *time_text(double s, char *buf)
{
    char clock[32];
    dk_clock_text(s, clock, sizeof clock);
    snprintf(buf, TEXT_MAX, "%.0f s (%s)", s, clock);
    return buf;
}

static void describe_task(const dk_workgraph *g, dk_wg_task t, char *buf, size_t len)
{
    char name[DK_MATERIAL_NAME_MAX];
    if (t.kind == DK_WG_UNIT) {
        dk_material_name(g->pairs[g->units[t.id].pair].m, name, sizeof name);
        snprintf(buf, len, "a unit of %s, level %d", name, g->units[t.id].level);
    } else if (t.kind == DK_WG_SCAN || t.kind == DK_WG_PACK) {
        const dk_fpart *f = &g->parts[t.id];
        dk_material_name(f->member ? g->pairs[f->pair].twin : g->pairs[f->pair].m, name, sizeof name);
        snprintf(buf, len, "%s positions %llu to %llu of %s", t.kind == DK_WG_SCAN ? "scanning" : "packing",
                 (unsigned long long)f->lo, (unsigned long long)(f->hi - 1), name);
    } else {
        dk_material_name(g->pairs[t.id].m, name, sizeof name);
        snprintf(buf, len, "%s %s", g->pairs[t.id].nparts ? "joining the parts of" : "finishing", name);
    }
}

static void print_targets(const dk_gen_options *o)
{
    char name[DK_MATERIAL_NAME_MAX];
    if (!o->only) {
        printf("materials of 2 to %d pieces", o->pieces);
        if (o->per_side)
            printf(", at most %d a side", o->per_side);
        return;
    }
    printf("materials ");
    for (size_t i = 0; i < o->nonly; i++) {
        dk_material_name(o->only[i], name, sizeof name);
        printf("%s%s", i ? "," : "", name);
    }
    printf(" and what they need");
}

static void json_targets(dk_json *w, const dk_gen_options *o)
{
    if (!o->only) {
        dk_json_i64(w, "pieces", o->pieces);
        dk_json_i64(w, "per_side", o->per_side);
        return;
    }
    dk_json_array(w, "materials");
    dk_json_tight(w);
    for (size_t i = 0; i < o->nonly; i++) {
        char name[DK_MATERIAL_NAME_MAX];
        dk_material_name(o->only[i], name, sizeof name);
        dk_json_string(w, NULL, name);
    }
    dk_json_end(w);
}

static void print_text(const plan_args *p, const dk_workgraph *g, const dk_forecast_model *m, const plan_facts *f,
                       const dk_forecast *at, const dk_forecast *unl, uint32_t sat, const dk_forecast *at_sat)
{
    char t[12][TEXT_MAX], what[96];
    printf("plan: %s, ", p->o.v->name);
    print_targets(&p->o);
    printf(p->o.rule_limit ? ", draw rule %u moves\n" : ", no draw rule\n", p->o.rule_limit / 2);
    printf("work: %u units of at most %llu positions, %u pairs to finish; %.3g positions\n", g->nunits,
           (unsigned long long)f->b.unit_positions, g->npairs, (double)f->positions);
    printf("cost model: units at %.3g positions/s a rank on average (each king adds %.0f%% to a position's "
           "time), finishing at %.3g positions/s, decoding a finished table at %.3g positions/s",
           dk_forecast_mean_rate(g, m), 100 * m->king_weight, 1 / m->finish_seconds, 1 / m->decode_seconds);
    if (p->speed > 0)
        printf(" (its times divided by --speed %g)", p->speed);
    printf("\n");
    printf("wall time on %ld rank%s: %s, ranks busy %.0f%% of it", p->ranks, p->ranks > 1 ? "s" : "",
           time_text(at->wall, t[0]), 100 * at->work / (at->wall * (double)p->ranks));
    if (at->ranks_used < (uint32_t)p->ranks)
        printf("; only %u ranks ever get a task", at->ranks_used);
    describe_task(g, unl->longest_task, what, sizeof what);
    printf("\ncritical path (unlimited ranks): %s; the longest task: %s, %s\n", time_text(unl->wall, t[0]), what,
           time_text(unl->longest, t[1]));
    printf("critical path made of:");
    for (int k = 0, first = 1; k < DK_LINK_KINDS; k++)
        if (unl->chain[k].tasks) {
            printf("%s %u %s %s", first ? "" : ",", unl->chain[k].tasks, dk_forecast_link_name((dk_forecast_link)k),
                   time_text(unl->chain[k].seconds, t[0]));
            first = 0;
        }
    printf("; decoding finished tables %s of it\n", time_text(unl->chain_decode, t[0]));
    printf("saturation: %u ranks, %s (the fewest within %.0f%% of the critical path: more ranks barely help)\n",
           sat, time_text(at_sat->wall, t[0]), 100 * PLAN_TOLERANCE);
    const dk_budget_use *u = &at->memory_peak;
    describe_task(g, at->memory_task, what, sizeof what);
    printf("memory a rank: %s at its peak, of its %s: %s fixed, %s for %s, %s of the units above (exit cache), "
           "%s of decoded tables and %s of verification's own reader; caps: exit cache %s, decoded tables %s, "
           "verification's reader %s (%s beside a unit of the bound)\n",
           bytes_text((double)dk_budget_use_total(u), t[0]), bytes_text((double)f->b.memory, t[1]),
           bytes_text((double)u->fixed, t[2]), bytes_text((double)u->task, t[3]), what,
           bytes_text((double)u->exits, t[4]), bytes_text((double)u->tables, t[5]),
           bytes_text((double)u->check, t[6]), bytes_text((double)f->b.exit_cache_bytes, t[7]),
           bytes_text((double)(f->b.cache_bytes - dk_budget_check_cache(f->b.cache_bytes)), t[8]),
           bytes_text((double)dk_budget_check_cache(f->b.cache_bytes), t[9]), bytes_text((double)f->check_bytes, t[10]));
    printf("disk: %s of tables (bits a position: WLD %.2f, DTW %.2f, DTC %.2f), unit files in DIR/work at most "
           "%s, at most %s at once, %s written in all\n", bytes_text((double)at->table_bytes, t[0]), m->table_bits[0],
           m->table_bits[1], m->table_bits[2], bytes_text((double)at->work_peak_bytes, t[1]),
           bytes_text((double)at->disk_peak_bytes, t[2]), bytes_text((double)at->written_bytes, t[3]));
    printf("tables read: at most %s by a rank, %s on average; decoding them is %.0f%% of the ranks' work\n",
           bytes_text((double)at->read_max_bytes, t[0]),
           bytes_text(at->ranks_used ? (double)at->read_bytes / at->ranks_used : 0, t[1]),
           at->work > 0 ? 100 * at->decode_work / at->work : 0);
}

static void print_json(const plan_args *p, const dk_workgraph *g, const dk_forecast_model *m, const plan_facts *f,
                       const dk_forecast *at, const dk_forecast *unl, uint32_t sat, const dk_forecast *at_sat)
{
    char what[96];
    describe_task(g, unl->longest_task, what, sizeof what);
    dk_json w;
    dk_json_start(&w, stdout);
    dk_json_object(&w, NULL);
    dk_json_string(&w, "variant", p->o.v->name);
    json_targets(&w, &p->o);
    dk_json_u64(&w, "draw_rule", p->o.rule_limit / 2);
    dk_json_i64(&w, "ranks", p->ranks);
    dk_json_newline(&w, 1);
    dk_json_object(&w, "work");
    dk_json_u64(&w, "units", g->nunits);
    dk_json_u64(&w, "unit_positions", f->b.unit_positions);
    dk_json_u64(&w, "pairs", g->npairs);
    dk_json_u64(&w, "positions", f->positions);
    dk_json_end(&w);
    dk_json_newline(&w, 1);
    dk_json_object(&w, "model");
    dk_json_double(&w, "unit_seconds", m->unit_seconds, 4);
    dk_json_double(&w, "king_weight", m->king_weight, 3);
    dk_json_double(&w, "finish_seconds", m->finish_seconds, 4);
    dk_json_double(&w, "mean_rate", dk_forecast_mean_rate(g, m), 4);
    dk_json_double(&w, "speed", p->speed > 0 ? p->speed : 1, 4);
    dk_json_object(&w, "table_bits");
    dk_json_double(&w, "wld", m->table_bits[0], 3);
    dk_json_double(&w, "dtw", m->table_bits[1], 3);
    dk_json_double(&w, "dtc", m->table_bits[2], 3);
    dk_json_end(&w);
    dk_json_double(&w, "unit_bits", m->unit_bits, 3);
    dk_json_double(&w, "decode_seconds", m->decode_seconds, 4);
    dk_json_end(&w);
    dk_json_newline(&w, 1);
    dk_json_double(&w, "wall_seconds", at->wall, 6);
    dk_json_double(&w, "work_seconds", at->work, 6);
    dk_json_u64(&w, "ranks_used", at->ranks_used);
    dk_json_newline(&w, 1);
    dk_json_double(&w, "critical_path_seconds", unl->wall, 6);
    dk_json_object(&w, "critical_path");
    for (int k = 0; k < DK_LINK_KINDS; k++) {
        char key[32];
        snprintf(key, sizeof key, "%s", dk_forecast_link_name((dk_forecast_link)k));
        for (char *c = key; *c; c++)
            *c = *c == ' ' ? '_' : *c;
        dk_json_object(&w, key);
        dk_json_u64(&w, "tasks", unl->chain[k].tasks);
        dk_json_double(&w, "seconds", unl->chain[k].seconds, 6);
        dk_json_end(&w);
    }
    dk_json_double(&w, "decode_seconds", unl->chain_decode, 6);
    dk_json_end(&w);
    dk_json_object(&w, "longest_task");
    dk_json_double(&w, "seconds", unl->longest, 6);
    dk_json_string(&w, "task", what);
    dk_json_end(&w);
    dk_json_newline(&w, 1);
    dk_json_object(&w, "saturation");
    dk_json_u64(&w, "ranks", sat);
    dk_json_double(&w, "wall_seconds", at_sat->wall, 6);
    dk_json_fixed(&w, "tolerance", PLAN_TOLERANCE, 2);
    dk_json_end(&w);
    dk_json_newline(&w, 1);
    dk_json_object(&w, "memory");
    dk_json_u64(&w, "budget", f->b.memory);
    dk_json_u64(&w, "largest_unit", f->unit_max);
    dk_json_u64(&w, "unit_bytes", f->unit_bytes);
    dk_json_u64(&w, "largest_pair", f->pair_max);
    dk_json_u64(&w, "finish_bytes", f->finish_bytes);
    dk_json_u64(&w, "exit_cache", f->b.exit_cache_bytes);
    dk_json_u64(&w, "cache", f->b.cache_bytes);
    dk_json_u64(&w, "check_room", f->check_bytes);
    dk_json_u64(&w, "peak", dk_budget_use_total(&at->memory_peak));
    describe_task(g, at->memory_task, what, sizeof what);
    dk_json_string(&w, "peak_task", what);
    dk_json_object(&w, "peak_parts");
    dk_json_u64(&w, "fixed", at->memory_peak.fixed);
    dk_json_u64(&w, "task", at->memory_peak.task);
    dk_json_u64(&w, "exit_cache", at->memory_peak.exits);
    dk_json_u64(&w, "tables", at->memory_peak.tables);
    dk_json_u64(&w, "check_reader", at->memory_peak.check);
    dk_json_end(&w);
    dk_json_end(&w);
    dk_json_newline(&w, 1);
    dk_json_object(&w, "disk");
    dk_json_u64(&w, "tables", at->table_bytes);
    dk_json_u64(&w, "work_peak", at->work_peak_bytes);
    dk_json_u64(&w, "peak", at->disk_peak_bytes);
    dk_json_u64(&w, "written", at->written_bytes);
    dk_json_end(&w);
    dk_json_newline(&w, 1);
    dk_json_object(&w, "tables_read");
    dk_json_u64(&w, "max_per_rank", at->read_max_bytes);
    dk_json_u64(&w, "total", at->read_bytes);
    dk_json_double(&w, "decode_work_seconds", at->decode_work, 6);
    dk_json_end(&w);
    dk_json_end(&w);
    fputc('\n', stdout);
}

/* The budget and graph gen would use, as dk_generate sets them up. */
static dk_workgraph *setup(const plan_args *p, plan_facts *f, int *status)
{
    char err[1024];
    uint64_t memory = p->o.memory_per_rank ? p->o.memory_per_rank : dk_budget_node_share(1);
    if (!memory) {
        *status = cli_error("plan: cannot tell this machine's memory: give --memory-per-rank");
        return NULL;
    }
    bool refused;
    dk_workgraph *g = dk_setup_run(&p->o, memory, (int)p->ranks, &f->b, &refused, err, sizeof err);
    if (!g) {
        *status = refused ? cli_error("plan: gen would refuse: --memory-per-rank: %s", err)
                          : cli_fail("plan: %s", err);
        return NULL;
    }
    dk_setup_largest(g, (int)p->ranks, &f->unit_max, &f->pair_max);
    f->unit_bytes = dk_budget_unit_bytes(f->unit_max, p->o.rule_limit);
    f->finish_bytes = dk_budget_finish_bytes(f->pair_max, p->o.rule_limit);
    f->limit = p->o.rule_limit;
    f->check_bytes = dk_budget_check_room(&f->b, f->b.unit_positions, f->limit);
    f->positions = 0;
    for (uint32_t i = 0; i < g->npairs; i++)
        f->positions += g->pairs[i].positions;
    return g;
}

static int cmd_plan(int argc, char **argv)
{
    plan_args p = {.o = {.v = dk_variant_get(DK_BRAZILIAN)}};
    dk_material mats[256];
    int status = parse_args(argc, argv, &p, mats, 256);
    if (status)
        return status;
    plan_facts f;
    dk_workgraph *g = setup(&p, &f, &status);
    if (!g)
        return status;
    dk_forecast_model m = dk_forecast_default_model(g, p.o.rule_limit, f.b.cache_bytes, p.rate);
    if (p.speed > 0)
        dk_forecast_scale(&m, p.speed);
    m.budget = f.b;
    dk_forecast at, unl, at_sat;
    uint32_t sat = 0;
    if (dk_forecast_run(g, &m, (uint32_t)p.ranks, &at) == 0)
        sat = dk_forecast_saturation(g, &m, PLAN_TOLERANCE, &at_sat, &unl);
    if (sat)
        (p.json ? print_json : print_text)(&p, g, &m, &f, &at, &unl, sat, &at_sat);
    else
        cli_fail("plan: out of memory");
    dk_workgraph_free(g);
    return sat ? 0 : 1;
}
