/* Fault injection for the tests (tests/faults.sh): an LD_PRELOAD library that makes the N-th
 * call of one kind fail with a chosen errno, so that the error paths of damka can be run on
 * purpose. Nothing of damka links it.
 *
 *   LD_PRELOAD=build/tests/faults/faultinject.so DAMKA_FAULT_OP=write DAMKA_FAULT_N=17 \
 *       DAMKA_FAULT_ERRNO=ENOSPC DAMKA_FAULT_DIR=/tmp/out damka gen --pieces 4 --out /tmp/out
 *
 * DAMKA_FAULT_OP     what fails; the calls counted as one kind:
 *                      write   write, pwrite, pwrite64 on a file opened under DAMKA_FAULT_DIR
 *                      fsync   fsync, fdatasync on such a file (or the directory itself)
 *                      rename  rename, renameat when either name is under DAMKA_FAULT_DIR
 *                      open    open, open64, openat, openat64, creat, fopen, fopen64 of a path
 *                              under DAMKA_FAULT_DIR that exists or is to be created (an open
 *                              that would fail anyway is not counted)
 *                      mmap    mmap, mmap64 of such a file
 *                      read    pread, pread64 on such a file (how libdamka reads its tables)
 *                      alloc   malloc, calloc, realloc, reallocarray, strdup, strndup,
 *                              posix_memalign, aligned_alloc called from the objects of
 *                              DAMKA_FAULT_ALLOC_FROM
 *                    unset or empty: the library does nothing but count (see DAMKA_FAULT_LOG).
 * DAMKA_FAULT_N      the N-th counted call of that kind fails (from 1; 0: none fails, count only).
 * DAMKA_FAULT_TIMES  how many calls fail from the N-th on (default 1; 0: every one, a full disk).
 * DAMKA_FAULT_ERRNO  ENOSPC, EIO, ENOMEM, EDQUOT, EROFS, EACCES, EMFILE or a number (default EIO,
 *                    ENOMEM for alloc). A failing allocation returns NULL with ENOMEM whatever it
 *                    says.
 * DAMKA_FAULT_DIR    only files under this directory count (an absolute path); unset: every file.
 *                    Keeps the I/O of MPI, of the shell and of the test itself out of the count.
 * DAMKA_FAULT_MATCH  only files whose path contains this text count (".stats": the statistics).
 * DAMKA_FAULT_PROGRAM only processes whose program name (program_invocation_short_name) is this
 *                    count, e.g. `damka`: the orted daemon that a singleton MPI run forks inherits
 *                    LD_PRELOAD, and must run untouched.
 * DAMKA_FAULT_RANK   only the MPI rank with this number counts (OMPI_COMM_WORLD_RANK, PMI_RANK;
 *                    a process started without mpirun is rank 0); unset: every rank.
 * DAMKA_FAULT_ALLOC_FROM  for alloc: comma-separated parts of the path names of the objects whose
 *                    own calls count, "main" the executable (default "main"; "main,libzstd" adds
 *                    zstd's allocations). Allocations made inside libc (fopen, open_memstream),
 *                    MPI or the dynamic loader never count: their failures are not damka's to
 *                    handle.
 * DAMKA_FAULT_LOG    a file to which every process that counts appends a line for each fault it
 *                    injects ("fault OP N ERRNO pid P rank R PATH", PATH "-" for an allocation)
 *                    and, at exit, the calls it counted ("calls pid P rank R write W fsync F ...").
 *
 * Under AddressSanitizer the library is preloaded after libasan (LD_PRELOAD=libasan.so.8:this):
 * ASan's interceptors then call through to it for the file operations, while its own allocator
 * serves every allocation, so alloc faults are not available there (tests/faults.sh skips them).
 *
 * Which processes of an mpirun get it: `mpirun -x LD_PRELOAD=... -x DAMKA_FAULT_...` gives it to
 * the ranks only (mpirun and orted keep their own environment), DAMKA_FAULT_RANK picks one. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

/* glibc's allocator under its own names: no dlsym, so no recursion through calloc */
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

enum op { OP_WRITE, OP_FSYNC, OP_RENAME, OP_OPEN, OP_MMAP, OP_READ, OP_ALLOC, NOPS };
static const char *const OP_NAME[NOPS] = {"write", "fsync", "rename", "open", "mmap", "read", "alloc"};

enum { FD_MAX = 65536, RANGES_MAX = 32, PATH_MAX_ = 4096 };

static struct {
    bool ready;   /* the configuration is read */
    bool active;  /* this process counts */
    int op;       /* -1: count only */
    unsigned long n, times;
    int err;
    char dir[PATH_MAX_];
    size_t dirlen;
    char match[256];
    char log[PATH_MAX_];
    int rank;
    uintptr_t lo[RANGES_MAX], hi[RANGES_MAX]; /* executable code of the objects whose allocations count */
    int nranges;
} cfg = {.op = -1};

static atomic_ulong calls[NOPS];
static atomic_uchar marked[FD_MAX]; /* fds of files under DAMKA_FAULT_DIR */

/* --- the real functions --- */

#define REAL(ret, name, params)                                                                    \
    static ret(*real_##name) params;                                                               \
    static ret(*get_##name(void)) params                                                           \
    {                                                                                              \
        if (!real_##name)                                                                          \
            real_##name = (ret(*) params)dlsym(RTLD_NEXT, #name);                                  \
        return real_##name;                                                                        \
    }

REAL(int, open, (const char *, int, ...))
REAL(int, open64, (const char *, int, ...))
REAL(int, openat, (int, const char *, int, ...))
REAL(int, openat64, (int, const char *, int, ...))
REAL(FILE *, fopen, (const char *, const char *))
REAL(FILE *, fopen64, (const char *, const char *))
REAL(int, close, (int))
REAL(ssize_t, write, (int, const void *, size_t))
REAL(ssize_t, pwrite, (int, const void *, size_t, off_t))
REAL(ssize_t, pwrite64, (int, const void *, size_t, off_t))
REAL(int, fsync, (int))
REAL(int, fdatasync, (int))
REAL(int, rename, (const char *, const char *))
REAL(int, renameat, (int, const char *, int, const char *))
REAL(void *, mmap, (void *, size_t, int, int, int, off_t))
REAL(void *, mmap64, (void *, size_t, int, int, int, off_t))
REAL(ssize_t, pread, (int, void *, size_t, off_t))
REAL(ssize_t, pread64, (int, void *, size_t, off_t))

/* --- small helpers that never allocate --- */

static void append(char *buf, size_t cap, size_t *at, const char *s)
{
    while (*s && *at + 1 < cap)
        buf[(*at)++] = *s++;
    buf[*at] = 0;
}

static void append_num(char *buf, size_t cap, size_t *at, unsigned long x)
{
    char digits[24];
    int n = 0;
    do {
        digits[n++] = (char)('0' + x % 10);
        x /= 10;
    } while (x);
    char s[24];
    for (int i = 0; i < n; i++)
        s[i] = digits[n - 1 - i];
    s[n] = 0;
    append(buf, cap, at, s);
}

static const struct {
    const char *name;
    int value;
} ERRNOS[] = {{"ENOSPC", ENOSPC}, {"EIO", EIO},       {"ENOMEM", ENOMEM}, {"EDQUOT", EDQUOT},
              {"EROFS", EROFS},   {"EACCES", EACCES}, {"EMFILE", EMFILE}, {"EFBIG", EFBIG}};

static const char *errno_name(int e)
{
    for (size_t i = 0; i < sizeof ERRNOS / sizeof ERRNOS[0]; i++)
        if (ERRNOS[i].value == e)
            return ERRNOS[i].name;
    return "E?";
}

static void log_line(const char *line)
{
    if (!cfg.log[0] || !get_open() || !get_write() || !get_close())
        return;
    int fd = real_open(cfg.log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    ssize_t rc = real_write(fd, line, strlen(line));
    (void)rc;
    real_close(fd);
}

/* --- configuration --- */

static int find_ranges(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    const char *want = data;
    const char *name = info->dlpi_name;
    bool main_program = !name || !name[0];
    bool match = false;
    /* want: "main,libzstd": match the executable for "main", any object whose path contains
     * another part */
    for (const char *p = want; *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == 4 && strncmp(p, "main", 4) == 0)
            match |= main_program;
        else if (len && !main_program) {
            for (const char *s = name; *s && !match; s++)
                match = strncmp(s, p, len) == 0;
        }
        p += len + (end != NULL);
    }
    if (!match)
        return 0;
    for (int i = 0; i < info->dlpi_phnum && cfg.nranges < RANGES_MAX; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
            cfg.lo[cfg.nranges] = info->dlpi_addr + ph->p_vaddr;
            cfg.hi[cfg.nranges] = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
            cfg.nranges++;
        }
    }
    return 0;
}

__attribute__((constructor)) static void configure(void)
{
    const char *op = getenv("DAMKA_FAULT_OP"), *prog = getenv("DAMKA_FAULT_PROGRAM");
    const char *rank = getenv("OMPI_COMM_WORLD_RANK"), *want_rank = getenv("DAMKA_FAULT_RANK");
    if (!rank)
        rank = getenv("PMI_RANK");
    cfg.rank = rank ? atoi(rank) : 0;
    cfg.active = (!prog || !*prog || strcmp(prog, program_invocation_short_name) == 0) &&
                 (!want_rank || !*want_rank || atoi(want_rank) == cfg.rank);
    for (int i = 0; op && i < NOPS; i++)
        if (strcmp(op, OP_NAME[i]) == 0)
            cfg.op = i;
    const char *n = getenv("DAMKA_FAULT_N"), *times = getenv("DAMKA_FAULT_TIMES");
    cfg.n = n ? strtoul(n, NULL, 10) : 0;
    cfg.times = times ? strtoul(times, NULL, 10) : 1;
    const char *e = getenv("DAMKA_FAULT_ERRNO");
    cfg.err = cfg.op == OP_ALLOC ? ENOMEM : EIO;
    if (e && *e) {
        cfg.err = atoi(e) > 0 ? atoi(e) : cfg.err;
        for (size_t i = 0; i < sizeof ERRNOS / sizeof ERRNOS[0]; i++)
            if (strcmp(e, ERRNOS[i].name) == 0)
                cfg.err = ERRNOS[i].value;
    }
    const char *dir = getenv("DAMKA_FAULT_DIR"), *log = getenv("DAMKA_FAULT_LOG");
    if (dir && *dir) {
        snprintf(cfg.dir, sizeof cfg.dir, "%s", dir);
        cfg.dirlen = strlen(cfg.dir);
        while (cfg.dirlen > 1 && cfg.dir[cfg.dirlen - 1] == '/')
            cfg.dir[--cfg.dirlen] = 0;
    }
    if (log && *log)
        snprintf(cfg.log, sizeof cfg.log, "%s", log);
    const char *match = getenv("DAMKA_FAULT_MATCH");
    if (match && *match)
        snprintf(cfg.match, sizeof cfg.match, "%s", match);
    const char *from = getenv("DAMKA_FAULT_ALLOC_FROM");
    char want[512];
    snprintf(want, sizeof want, "%s", from && *from ? from : "main");
    if (cfg.active)
        dl_iterate_phdr(find_ranges, want);
    /* resolved now, not inside an allocation or a signal */
    get_open(), get_open64(), get_openat(), get_openat64(), get_fopen(), get_fopen64();
    get_close(), get_write(), get_pwrite(), get_pwrite64(), get_fsync(), get_fdatasync();
    get_rename(), get_renameat(), get_mmap(), get_mmap64(), get_pread(), get_pread64();
    cfg.ready = true;
}

__attribute__((destructor)) static void report(void)
{
    if (!cfg.ready || !cfg.active || !cfg.log[0])
        return;
    char line[512];
    size_t at = 0;
    append(line, sizeof line, &at, "calls pid ");
    append_num(line, sizeof line, &at, (unsigned long)getpid());
    append(line, sizeof line, &at, " rank ");
    append_num(line, sizeof line, &at, (unsigned long)cfg.rank);
    for (int i = 0; i < NOPS; i++) {
        append(line, sizeof line, &at, " ");
        append(line, sizeof line, &at, OP_NAME[i]);
        append(line, sizeof line, &at, " ");
        append_num(line, sizeof line, &at, atomic_load(&calls[i]));
    }
    append(line, sizeof line, &at, "\n");
    log_line(line);
}

/* --- the decision --- */

/* Counts a call of kind op; true if it must fail (errno is then set). */
static bool fault(int op, const char *what)
{
    if (!cfg.ready || !cfg.active)
        return false;
    unsigned long k = atomic_fetch_add(&calls[op], 1) + 1;
    if (op != cfg.op || cfg.n == 0 || k < cfg.n || (cfg.times && k >= cfg.n + cfg.times))
        return false;
    int e = op == OP_ALLOC ? ENOMEM : cfg.err;
    char line[PATH_MAX_ + 128];
    size_t at = 0;
    append(line, sizeof line, &at, "fault ");
    append(line, sizeof line, &at, OP_NAME[op]);
    append(line, sizeof line, &at, " ");
    append_num(line, sizeof line, &at, k);
    append(line, sizeof line, &at, " ");
    append(line, sizeof line, &at, errno_name(e));
    append(line, sizeof line, &at, " pid ");
    append_num(line, sizeof line, &at, (unsigned long)getpid());
    append(line, sizeof line, &at, " rank ");
    append_num(line, sizeof line, &at, (unsigned long)cfg.rank);
    append(line, sizeof line, &at, " ");
    append(line, sizeof line, &at, what ? what : "-");
    append(line, sizeof line, &at, "\n");
    log_line(line);
    errno = e;
    return true;
}

/* Whether path (relative to dirfd) lies under DAMKA_FAULT_DIR (and contains DAMKA_FAULT_MATCH);
 * its absolute form in abs. */
static bool under_dir(int dirfd, const char *path, char *abs, size_t cap)
{
    if (!path)
        return false;
    size_t at = 0;
    abs[0] = 0;
    if (path[0] != '/') {
        char base[PATH_MAX_];
        if (dirfd == AT_FDCWD) {
            if (!getcwd(base, sizeof base))
                return false;
        } else {
            char link[64];
            size_t l = 0;
            append(link, sizeof link, &l, "/proc/self/fd/");
            append_num(link, sizeof link, &l, (unsigned long)dirfd);
            ssize_t n = readlink(link, base, sizeof base - 1);
            if (n < 0)
                return false;
            base[n] = 0;
        }
        append(abs, cap, &at, base);
        append(abs, cap, &at, "/");
    }
    append(abs, cap, &at, path);
    if (cfg.match[0] && !strstr(abs, cfg.match))
        return false;
    if (!cfg.dirlen)
        return true;
    return strncmp(abs, cfg.dir, cfg.dirlen) == 0 && (abs[cfg.dirlen] == '/' || abs[cfg.dirlen] == 0);
}

static void mark(int fd, bool on)
{
    if (fd >= 0 && fd < FD_MAX)
        atomic_store(&marked[fd], on);
}

static bool is_marked(int fd) { return fd >= 0 && fd < FD_MAX && atomic_load(&marked[fd]); }

/* The path of a marked fd, for the log. */
static const char *fd_path(int fd, char *buf, size_t cap)
{
    char link[64];
    size_t l = 0;
    append(link, sizeof link, &l, "/proc/self/fd/");
    append_num(link, sizeof link, &l, (unsigned long)fd);
    ssize_t n = readlink(link, buf, cap - 1);
    buf[n > 0 ? n : 0] = 0;
    return n > 0 ? buf : "?";
}

/* --- open --- */

/* An open that would fail anyway (a file that is not there, not to be created) is not counted:
 * a fault there would test nothing. */
static bool would_open(const char *abs, bool create) { return create || access(abs, F_OK) == 0; }

static int open_common(int dirfd, const char *path, int flags, mode_t mode, int which)
{
    char abs[PATH_MAX_];
    bool ours = cfg.ready && cfg.active && under_dir(dirfd, path, abs, sizeof abs);
    if (ours && would_open(abs, flags & O_CREAT) && fault(OP_OPEN, abs))
        return -1;
    int fd;
    switch (which) {
    case 0: fd = get_open() ? real_open(path, flags, mode) : -1; break;
    case 1: fd = get_open64() ? real_open64(path, flags, mode) : -1; break;
    case 2: fd = get_openat() ? real_openat(dirfd, path, flags, mode) : -1; break;
    default: fd = get_openat64() ? real_openat64(dirfd, path, flags, mode) : -1; break;
    }
    if (fd >= 0)
        mark(fd, ours);
    return fd;
}

static mode_t mode_arg(int flags, va_list ap)
{
    return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? (mode_t)va_arg(ap, int) : 0;
}

EXPORT int open(const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    mode_t mode = mode_arg(flags, ap);
    va_end(ap);
    return open_common(AT_FDCWD, path, flags, mode, 0);
}

EXPORT int open64(const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    mode_t mode = mode_arg(flags, ap);
    va_end(ap);
    return open_common(AT_FDCWD, path, flags, mode, 1);
}

EXPORT int openat(int dirfd, const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    mode_t mode = mode_arg(flags, ap);
    va_end(ap);
    return open_common(dirfd, path, flags, mode, 2);
}

EXPORT int openat64(int dirfd, const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    mode_t mode = mode_arg(flags, ap);
    va_end(ap);
    return open_common(dirfd, path, flags, mode, 3);
}

EXPORT int __open_2(const char *path, int flags) { return open_common(AT_FDCWD, path, flags, 0, 0); }

EXPORT int __open64_2(const char *path, int flags) { return open_common(AT_FDCWD, path, flags, 0, 1); }

EXPORT int creat(const char *path, mode_t mode)
{
    return open_common(AT_FDCWD, path, O_WRONLY | O_CREAT | O_TRUNC, mode, 0);
}

static FILE *fopen_common(const char *path, const char *mode, bool large)
{
    char abs[PATH_MAX_];
    if (cfg.ready && cfg.active && under_dir(AT_FDCWD, path, abs, sizeof abs) &&
        would_open(abs, mode[0] != 'r') && fault(OP_OPEN, abs))
        return NULL;
    if (large)
        return get_fopen64() ? real_fopen64(path, mode) : NULL;
    return get_fopen() ? real_fopen(path, mode) : NULL;
}

EXPORT FILE *fopen(const char *path, const char *mode) { return fopen_common(path, mode, false); }

EXPORT FILE *fopen64(const char *path, const char *mode) { return fopen_common(path, mode, true); }

EXPORT int close(int fd)
{
    mark(fd, false);
    return get_close() ? real_close(fd) : -1;
}

/* --- write, fsync, rename, mmap, pread --- */

static bool fd_fault(int op, int fd)
{
    if (!is_marked(fd))
        return false;
    char path[PATH_MAX_];
    return fault(op, fd_path(fd, path, sizeof path));
}

EXPORT ssize_t write(int fd, const void *buf, size_t n)
{
    if (fd_fault(OP_WRITE, fd))
        return -1;
    return get_write() ? real_write(fd, buf, n) : -1;
}

EXPORT ssize_t pwrite(int fd, const void *buf, size_t n, off_t at)
{
    if (fd_fault(OP_WRITE, fd))
        return -1;
    return get_pwrite() ? real_pwrite(fd, buf, n, at) : -1;
}

EXPORT ssize_t pwrite64(int fd, const void *buf, size_t n, off_t at)
{
    if (fd_fault(OP_WRITE, fd))
        return -1;
    return get_pwrite64() ? real_pwrite64(fd, buf, n, at) : -1;
}

EXPORT int fsync(int fd)
{
    if (fd_fault(OP_FSYNC, fd))
        return -1;
    return get_fsync() ? real_fsync(fd) : -1;
}

EXPORT int fdatasync(int fd)
{
    if (fd_fault(OP_FSYNC, fd))
        return -1;
    return get_fdatasync() ? real_fdatasync(fd) : -1;
}

static bool rename_fault(int olddirfd, const char *from, int newdirfd, const char *to)
{
    if (!cfg.ready || !cfg.active)
        return false;
    char a[PATH_MAX_], b[PATH_MAX_];
    bool in_a = under_dir(olddirfd, from, a, sizeof a), in_b = under_dir(newdirfd, to, b, sizeof b);
    return (in_a || in_b) && fault(OP_RENAME, in_b ? b : a);
}

EXPORT int rename(const char *from, const char *to)
{
    if (rename_fault(AT_FDCWD, from, AT_FDCWD, to))
        return -1;
    return get_rename() ? real_rename(from, to) : -1;
}

EXPORT int renameat(int olddirfd, const char *from, int newdirfd, const char *to)
{
    if (rename_fault(olddirfd, from, newdirfd, to))
        return -1;
    return get_renameat() ? real_renameat(olddirfd, from, newdirfd, to) : -1;
}

EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    if (!(flags & MAP_ANONYMOUS) && fd_fault(OP_MMAP, fd))
        return MAP_FAILED;
    return get_mmap() ? real_mmap(addr, len, prot, flags, fd, off) : MAP_FAILED;
}

EXPORT void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    if (!(flags & MAP_ANONYMOUS) && fd_fault(OP_MMAP, fd))
        return MAP_FAILED;
    return get_mmap64() ? real_mmap64(addr, len, prot, flags, fd, off) : MAP_FAILED;
}

EXPORT ssize_t pread(int fd, void *buf, size_t n, off_t at)
{
    if (fd_fault(OP_READ, fd))
        return -1;
    return get_pread() ? real_pread(fd, buf, n, at) : -1;
}

EXPORT ssize_t pread64(int fd, void *buf, size_t n, off_t at)
{
    if (fd_fault(OP_READ, fd))
        return -1;
    return get_pread64() ? real_pread64(fd, buf, n, at) : -1;
}

/* --- allocation --- */

/* Whether an allocation called from address `from` counts, and if so whether it fails. */
static bool alloc_fault(const void *from)
{
    if (!cfg.ready || !cfg.active)
        return false;
    uintptr_t a = (uintptr_t)from;
    for (int i = 0; i < cfg.nranges; i++)
        if (a >= cfg.lo[i] && a < cfg.hi[i])
            return fault(OP_ALLOC, NULL);
    return false;
}

#define CALLER __builtin_extract_return_addr(__builtin_return_address(0))

EXPORT void *malloc(size_t n)
{
    if (alloc_fault(CALLER))
        return NULL;
    return __libc_malloc(n);
}

EXPORT void *calloc(size_t n, size_t size)
{
    if (alloc_fault(CALLER))
        return NULL;
    return __libc_calloc(n, size);
}

EXPORT void *realloc(void *p, size_t n)
{
    if (alloc_fault(CALLER))
        return NULL;
    return __libc_realloc(p, n);
}

EXPORT void *reallocarray(void *p, size_t n, size_t size)
{
    if (alloc_fault(CALLER))
        return NULL;
    if (size && n > SIZE_MAX / size) {
        errno = ENOMEM;
        return NULL;
    }
    return __libc_realloc(p, n * size);
}

EXPORT char *strdup(const char *s)
{
    if (alloc_fault(CALLER))
        return NULL;
    size_t n = strlen(s) + 1;
    char *d = __libc_malloc(n);
    return d ? memcpy(d, s, n) : NULL;
}

EXPORT char *strndup(const char *s, size_t max)
{
    if (alloc_fault(CALLER))
        return NULL;
    size_t n = strnlen(s, max);
    char *d = __libc_malloc(n + 1);
    if (!d)
        return NULL;
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}

EXPORT int posix_memalign(void **out, size_t align, size_t n)
{
    if (align < sizeof(void *) || (align & (align - 1)))
        return EINVAL;
    if (alloc_fault(CALLER))
        return ENOMEM;
    void *p = __libc_memalign(align, n);
    if (!p)
        return ENOMEM;
    *out = p;
    return 0;
}

EXPORT void *aligned_alloc(size_t align, size_t n)
{
    if (alloc_fault(CALLER))
        return NULL;
    return __libc_memalign(align, n);
}
