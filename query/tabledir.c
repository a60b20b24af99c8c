#include "tabledir.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../index/material.h"

/* The material of a file named "<variant>-<material>.dtw" of variant v, or false. */
static bool table_file(const dk_variant *v, const char *name, dk_material *m)
{
    size_t nv = strlen(v->name), n = strlen(name);
    char text[64];
    if (n <= nv + 5 || strncmp(name, v->name, nv) != 0 || name[nv] != '-' || strcmp(name + n - 4, ".dtw") != 0 ||
        n - nv - 5 >= sizeof text)
        return false;
    memcpy(text, name + nv + 1, n - nv - 5);
    text[n - nv - 5] = 0;
    return dk_material_parse(text, m) == 0 && dk_material_valid(v, *m);
}

int dk_tb_dir_scan(const char *dir, dk_tb_dir *out)
{
    *out = (dk_tb_dir){0, {0}};
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    errno = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL; errno = 0)
        for (int id = 0; id < DK_NVARIANTS; id++) {
            dk_material m;
            if (!table_file(dk_variant_get((dk_variant_id)id), e->d_name, &m))
                continue;
            out->variants |= 1u << id;
            if (dk_material_pieces(m) > out->most_pieces[id])
                out->most_pieces[id] = dk_material_pieces(m);
        }
    int failed = errno;
    closedir(d);
    errno = failed;
    return failed ? -1 : 0;
}

const dk_variant *dk_tb_dir_only_variant(const dk_tb_dir *d)
{
    for (int id = 0; id < DK_NVARIANTS; id++)
        if (d->variants == 1u << id)
            return dk_variant_get((dk_variant_id)id);
    return NULL;
}

void dk_tb_dir_variant_names(const dk_tb_dir *d, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = 0;
    for (int id = 0, k = 0; id < DK_NVARIANTS; id++)
        if (d->variants >> id & 1) {
            int w = snprintf(buf + at, at < len ? len - at : 0, "%s%s", k++ ? " and " : "",
                             dk_variant_get((dk_variant_id)id)->name);
            at += w > 0 ? (size_t)w : 0;
        }
}
