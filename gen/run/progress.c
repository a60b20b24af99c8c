#include "progress.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "../store/testhooks.h"

double dk_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

void dk_progress_start(dk_progress *pr, bool quiet, uint64_t total_positions,
                       uint32_t total_materials)
{
    double now = dk_now();
    *pr = (dk_progress){.quiet = quiet,
                        .tty = isatty(STDERR_FILENO) != 0,
                        .start = now,
                        .last = now,
                        .total_positions = total_positions,
                        .total_materials = total_materials,
                        .every = 5.0};
    dk_hook_progress_seconds(&pr->every);
}

void dk_clock_text(double s, char *buf, size_t len)
{
    long t = (long)(s + 0.5);
    snprintf(buf, len, "%02ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
}

void dk_progress_update(dk_progress *pr, bool force)
{
    double now = dk_now();
    if (pr->quiet || (!force && now - pr->last < (pr->tty ? 0.5 : pr->every)))
        return;
    pr->last = now;
    double elapsed = now - pr->start;
    uint64_t fresh = pr->done_positions - pr->start_positions;
    double rate = elapsed > 0 ? fresh / elapsed : 0;
    char el[32], eta[32] = "--:--:--";
    dk_clock_text(elapsed, el, sizeof el);
    if (rate > 0 && pr->total_positions >= pr->done_positions)
        dk_clock_text((double)(pr->total_positions - pr->done_positions) / rate, eta, sizeof eta);
    double pct = pr->total_positions ? 100.0 * pr->done_positions / pr->total_positions : 100.0;
    fprintf(stderr, "%sgen: %u/%u materials, %.3g/%.3g positions (%.1f%%), %.2f M pos/s, %s elapsed, %s to go%s%s%s",
            pr->tty ? "\r" : "", pr->done_materials, pr->total_materials,
            (double)pr->done_positions, (double)pr->total_positions, pct, rate / 1e6, el, eta,
            pr->note[0] ? "; " : "", pr->note, pr->tty ? "\033[K" : "\n");
    fflush(stderr);
}

void dk_progress_end(dk_progress *pr)
{
    if (!pr->quiet && pr->tty)
        fputc('\n', stderr);
}
