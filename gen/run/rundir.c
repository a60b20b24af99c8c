#include "rundir.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../rules/errors.h"
#include "restart.h"

/* Whether file name n is damka's: "<variant>-..." of any variant, or the manifest. */
static bool ours(const char *n)
{
    for (int id = 0; id < DK_NVARIANTS; id++) {
        const char *v = dk_variant_get((dk_variant_id)id)->name;
        size_t len = strlen(v);
        if (strncmp(n, v, len) == 0 && n[len] == '-')
            return true;
    }
    return strncmp(n, "manifest.json", 13) == 0;
}

/* Removes from dir the files of damka's whose names contain `part` (".tmp.": what a killed
 * run left half-written; "": everything, for the work directory of a finished run). */
/* Removes from dir the files of damka's whose names contain `part` (".tmp.": what a killed run
 * left half-written; "": everything). */
static void remove_files(const char *dir, const char *part)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        const char *n = e->d_name;
        if (!ours(n) || !strstr(n, part))
            continue;
        char path[4096];
        if (snprintf(path, sizeof path, "%.3800s/%s", dir, e->d_name) < (int)sizeof path)
            unlink(path);
    }
    closedir(d);
}

/* A directory holds tables of one draw rule: extending it with another would mix them. */
int dk_rundir_check_rule(const dk_gen_options *o, char *err, size_t errlen)
{
    unsigned found;
    char which[DK_MATERIAL_NAME_MAX];
    if (!dk_dir_rule_differs(o->dir, o->v, o->rule_limit, &found, which, sizeof which))
        return 0;
    if (found)
        return dk_statusf(DK_REFUSED, err, errlen, "%.900s holds tables made with --draw-rule %u (%s), not %u: "
                          "use the same rule or another directory", o->dir, found / 2, which, o->rule_limit / 2);
    return dk_statusf(DK_REFUSED, err, errlen, "%.900s holds tables made with --draw-rule 0 (%s): use --draw-rule 0 "
                      "or another directory", o->dir, which);
}

int dk_rundir_check_path(const dk_gen_options *o, char *err, size_t errlen)
{
    size_t n = strlen(o->dir);
    if (n <= DK_RUNDIR_MAX)
        return DK_OK;
    return dk_statusf(DK_REFUSED, err, errlen, "--out: %.60s...: a path of %zu bytes, more than the %d a "
                      "directory's may have (its files' paths would not fit)", o->dir, n, DK_RUNDIR_MAX);
}

/* Creates DIR and takes its lock (dirlock.h); only then are the temporary files of a killed run
 * removed, never those of a live one. */
int dk_rundir_make(const dk_gen_options *o, dk_dirlock *lock, char *err, size_t errlen)
{
    char work[4096], note[1024];
    snprintf(work, sizeof work, "%s/work", o->dir);
    struct stat st;
    if (mkdir(o->dir, 0755) != 0 && errno != EEXIST)
        return dk_statusf(errno == ENOTDIR || errno == ENOENT ? DK_REFUSED : DK_FAILED, err, errlen,
                          "cannot create %.900s: %s", o->dir, strerror(errno));
    if (stat(o->dir, &st) != 0 || !S_ISDIR(st.st_mode)) /* it was there: a file, say */
        return dk_statusf(DK_REFUSED, err, errlen, "--out %.900s: not a directory", o->dir);
    if (dk_dirlock_take(lock, o->dir, o->quiet ? NULL : stderr, note, sizeof note, err, errlen) != 0)
        return -1;
    if (note[0] && !o->quiet)
        fprintf(stderr, "%s\n", note);
    remove_files(o->dir, ".tmp.");
    remove_files(work, ".tmp.");
    return 0;
}

/* Creates DIR/work, for the units: only when there is work, so that a finished directory is
 * left as it is. */
int dk_rundir_make_work(const dk_gen_options *o, char *err, size_t errlen)
{
    char work[4096];
    snprintf(work, sizeof work, "%s/work", o->dir);
    if (mkdir(work, 0755) != 0 && errno != EEXIST)
        return dk_errorf(err, errlen, "cannot create %.900s: %s", work, strerror(errno));
    return 0;
}

void dk_rundir_clean_work(const dk_gen_options *o, bool worked)
{
    if (o->keep_work)
        return;
    char work[4096];
    snprintf(work, sizeof work, "%s/work", o->dir);
    /* the work of this run, not what an earlier one kept (--keep-work) */
    if (worked)
        remove_files(work, "");
    rmdir(work); /* if empty */
}
