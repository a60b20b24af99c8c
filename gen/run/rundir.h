/* The output directory of `damka gen` kept in order: DIR made and locked (dirlock.h), the
 * half-written files of a killed run removed, DIR/work made when there is work and emptied at
 * the end, and a directory of another draw rule refused. */
#ifndef DK_RUNDIR_H
#define DK_RUNDIR_H

#include <stdbool.h>
#include <stddef.h>

#include "dirlock.h"
#include "options.h"

/* The longest DIR, in bytes: a run's paths are DIR and at most a few hundred bytes more
 * (work/, a table's name, a part's range, .tmp.PID), so that its 2048-byte path buffers hold
 * every one. */
#define DK_RUNDIR_MAX 1024

/* DK_OK, or DK_REFUSED with one line in err when o->dir is longer than DK_RUNDIR_MAX. Pure. */
int dk_rundir_check_path(const dk_gen_options *o, char *err, size_t errlen);

/* DK_OK, or DK_REFUSED with one line in err when o->dir holds tables of another draw rule. */
int dk_rundir_check_rule(const dk_gen_options *o, char *err, size_t errlen);

/* Creates o->dir and takes its lock into *lock, then removes the temporary files of a killed
 * run. Returns DK_OK; DK_REFUSED with one line in err when o->dir cannot be a directory (a file
 * is there, or a file or nothing where its parent should be); else DK_FAILED with one line. */
int dk_rundir_make(const dk_gen_options *o, dk_dirlock *lock, char *err, size_t errlen);

/* Creates o->dir/work. Returns DK_OK, or DK_FAILED with one line in err. */
int dk_rundir_make_work(const dk_gen_options *o, char *err, size_t errlen);

/* At the end of a finished run without --keep-work: empties DIR/work if this run worked
 * (worked), and removes it if it is empty. */
void dk_rundir_clean_work(const dk_gen_options *o, bool worked);

#endif
