#include "report.h"

#include <stdio.h>

void dk_report_start(const char *dir, bool all_done, uint32_t total_mat, uint32_t done_mat, uint64_t done_pos)
{
    if (all_done)
        fprintf(stderr, "gen: all %u materials are already finished in %s: nothing to do\n", total_mat, dir);
    else if (done_mat + done_pos > 0)
        fprintf(stderr, "gen: resuming: %u materials and %.3g positions already finished\n", done_mat,
                (double)done_pos);
}

void dk_report_end(const dk_finished *f, const dk_exit_check *check, const dk_budget *b, const dk_workgraph *g,
                   int nranks, const dk_report_run *run)
{
    dk_report_splits splits = run->splits;
    dk_finished_counters c = dk_finished_get_counters(f);
    fprintf(stderr, "gen: rank 0 decoded %llu blocks of finished tables, %.3g positions (%llu dropped "
            "to stay within %.0f MiB, at most %.0f MiB held), resolved %llu capture positions\n",
            (unsigned long long)c.loads, (double)c.positions, (unsigned long long)c.evictions,
            b->cache_bytes / 1048576.0, c.peak_bytes / 1048576.0, (unsigned long long)c.resolved);
    dk_check_tables_counters k = dk_exit_check_table_counters(check);
    fprintf(stderr, "gen: rank 0's check of the exits decoded %llu blocks of them with its own reader, resolved "
            "%llu capture positions\n", (unsigned long long)k.loads, (unsigned long long)k.resolved);
    if (splits.every + splits.groups) {
        fprintf(stderr, "gen: %u units above the bound of %llu positions were split: %u solved by all %d ranks "
                "together", splits.every + splits.groups, (unsigned long long)g->max_positions, splits.every, nranks);
        if (splits.groups)
            fprintf(stderr, ", %u by groups of %u to %u ranks beside the others' work", splits.groups, splits.least,
                    splits.most);
        fputc('\n', stderr);
    }
    if (run->joins)
        fprintf(stderr, "gen: %u pairs above the finishing bound of %llu positions were finished in parts "
                "(%u scans and packings of parts), by any ranks\n", run->joins,
                (unsigned long long)g->finish_positions, run->parts);
    if (run->ran <= 0)
        return;
    /* the kinds as damka plan names them, so that a forecast's work can be set against the run's */
    fprintf(stderr, "gen: rank-seconds by task:");
    const char *sep = " ";
    for (int k = 0; k < DK_LINK_KINDS; k++)
        if (run->busy[k] > 0) {
            fprintf(stderr, "%s%s %.1f", sep, dk_forecast_link_name((dk_forecast_link)k), run->busy[k]);
            sep = ", ";
        }
    fputc('\n', stderr);
    double all = run->ran * nranks;
    fprintf(stderr, "gen: the ranks waited for a task %.1f%% of the run (%.0f of %.0f rank-seconds): "
            "work not ready yet, or none left\n", 100 * run->waited / all, run->waited, all);
}
