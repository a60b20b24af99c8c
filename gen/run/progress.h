/* Progress of a generation on stderr: a live line on a terminal, a plain line every few
 * seconds otherwise. */
#ifndef DK_PROGRESS_H
#define DK_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct dk_progress {
    bool quiet, tty;
    double start, last;
    uint64_t total_positions, done_positions, start_positions;
    uint32_t total_materials, done_materials;
    char note[192];       /* what a long task is doing (a split unit's stage), or empty */
    double every;         /* seconds between lines off a terminal */
} dk_progress;

/* Seconds on a monotonic clock. */
double dk_now(void);

/* Writes `seconds` as hh:mm:ss (hours beyond 99 as they come) into buf. Thread-safe. */
void dk_clock_text(double seconds, char *buf, size_t len);

void dk_progress_start(dk_progress *pr, bool quiet, uint64_t total_positions,
                       uint32_t total_materials);

/* Prints the state if it is time to (force: now), with pr->note after it when set. */
void dk_progress_update(dk_progress *pr, bool force);

/* Ends the live line. */
void dk_progress_end(dk_progress *pr);

#endif
