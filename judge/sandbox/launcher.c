/* The bot launcher: applies limits to itself, then execs the bot.
 *
 * The judge never uses preexec_fn (trio forks from a worker thread), so every
 * per-process setting a bot needs is made here, between fork and the bot's exec:
 * cgroups, rlimits, and with -N the bot's namespaces and its whole file system, then
 * the uid drop, no_new_privs, Landlock and a seccomp filter. No other program runs.
 *
 *   launcher [-r RES:SOFT:HARD]... [-g V1_CGROUP_DIR]... [-G V2_CGROUP_DIR] [-u UID:GID]
 *            [-p PARENT_PID] [-N [-B PATH]... [-l LINK:TARGET]... [-E ETC_DIR]
 *            [-T TMP_SIZE] [-H SHM_SIZE]] [-s] [-n] [-C] [-S] [-L]
 *            [-w WRITABLE_DIR]... [-c DIR] [-i IN_FD:OUT_FD] -- PROGRAM ARGS...
 *   launcher ... -N -W FD [--]      (a warm start: the bot's own part comes on FD, see take_go)
 *   launcher -N [tree options] -K   (a template mount namespace, see make_template)
 *   launcher ... -N -M FD ...       (the bot's tree a copy of the template on FD, as root)
 *
 * It runs once per bot start, so it is built without a C library where it can be
 * (-DLAUNCHER_NOLIBC, x86-64 and arm64): raw system calls only. A libc program's
 * start-up asks the CPU about its features and caches with cpuid, which traps to the
 * hypervisor in a VM, on every exec. Built with a libc, the same code runs through
 * syscall(2).
 *
 * Joining a cgroup is on every bot start's critical path. Writing a pid to cgroup.procs
 * takes the kernel's global threadgroup lock for writing, which waits for an RCU grace
 * period (milliseconds, docs/performance-history.md §5). Two ways around it: a single-threaded process moves
 * itself by writing 0 to a v1 hierarchy's "tasks" (-g; no global lock), and a v2 cgroup
 * (-G) is entered by clone3(CLONE_INTO_CGROUP): the launcher forks straight into it and
 * stays behind as a thin relay that exits the way its child does.
 *
 * -N: new user (unless root), pid, net, mount, ipc, uts and cgroup namespaces; pid 1 of
 * them builds the bot's file system on an empty tmpfs (-B read-only binds at the same
 * path, -l symlinks, -E the /etc snapshot, six devices, /proc, /tmp and /dev/shm of
 * -T/-H bytes), pivots into it, drops to -u's ids inside a user namespace of its own, and
 * forks the bot. The launcher stays outside as the relay the judge holds.
 *
 * -C (root only) drops every capability, bounding set included, so a bot that stays uid 0
 * (the base layer) cannot use CAP_SYS_PTRACE, CAP_KILL and the like on the judge.
 *
 * -i moves the bot's pipes from IN_FD/OUT_FD onto stdin/stdout, in the bot's own process
 * only: the relay and pid 1 above it never hold them.
 *
 * -s (supervise) is the base layer's tree kill: the launcher stays as a child subreaper
 * above the bot, so every process the bot starts stays below it, even after setsid().
 * SIGTERM (or the judge's death) makes it kill that whole tree; SIGUSR1 / SIGUSR2 stop /
 * continue it. When the bot ends, the rest of its tree is killed and the launcher exits
 * the way the bot did.
 *
 * -DLAUNCHER_LIBRARY builds the same steps as a shared object for the fork server
 * (judge/sandbox/forkserver.py, bots/forkserver.py): launcher_fork_child() reads the
 * launcher's options (no program, no -s, no -W) from a pipe and, where the launcher would
 * exec the bot, returns in the bot's own process; the relays and pid 1 above it never
 * return (they exit as they do here). launcher_clone_parent() forks a child of the
 * caller's parent, optionally straight into a v2 cgroup.
 *
 * RES is one of cpu fsize nofile core as nproc; a value of -1 means unlimited.
 * Exit status 127 with a "launcher:" line on stderr means the bot never started.
 */
#include <asm/unistd.h>
#include <linux/audit.h>
#include <linux/errno.h>
#include <linux/fcntl.h>
#include <linux/filter.h>
#include <linux/mount.h>
#include <linux/prctl.h>
#include <linux/resource.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <linux/types.h>

/* ---- system calls ------------------------------------------------------------ */
#ifdef LAUNCHER_NOLIBC
#if defined(__x86_64__)
static long sc6(long n, long a, long b, long c, long d, long e, long f) {
    register long r10 __asm__("r10") = d;
    register long r8 __asm__("r8") = e;
    register long r9 __asm__("r9") = f;
    long ret;
    __asm__ volatile("syscall"
                     : "=a"(ret)
                     : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
                     : "rcx", "r11", "memory");
    return ret;
}
__asm__(".text\n.global _start\n_start:\n"
        "  xor %rbp, %rbp\n  mov %rsp, %rdi\n  and $-16, %rsp\n  call launcher_start\n  hlt\n");
#elif defined(__aarch64__)
static long sc6(long n, long a, long b, long c, long d, long e, long f) {
    register long x8 __asm__("x8") = n;
    register long x0 __asm__("x0") = a;
    register long x1 __asm__("x1") = b;
    register long x2 __asm__("x2") = c;
    register long x3 __asm__("x3") = d;
    register long x4 __asm__("x4") = e;
    register long x5 __asm__("x5") = f;
    __asm__ volatile("svc 0"
                     : "+r"(x0)
                     : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5)
                     : "memory");
    return x0;
}
__asm__(".text\n.global _start\n_start:\n  mov x29, #0\n  mov x30, #0\n  mov x0, sp\n"
        "  bl launcher_start\n  brk #0\n");
#else
#error "LAUNCHER_NOLIBC supports x86-64 and arm64 only"
#endif
/* The compiler may call these for struct copies and zeroing. */
/* volatile: the optimizer would turn these very loops back into calls to themselves. */
void *memset(void *dest, int c, unsigned long n) {
    volatile unsigned char *d = dest;
    while (n--) *d++ = (unsigned char)c;
    return dest;
}
void *memcpy(void *dest, const void *src, unsigned long n) {
    volatile unsigned char *d = dest;
    const unsigned char *s = src;
    while (n--) *d++ = *s++;
    return dest;
}
unsigned long strlen(const char *s) {
    const volatile char *p = s;
    while (*p) p++;
    return (unsigned long)(p - s);
}
#else
long syscall(long number, ...);
static long sc6(long n, long a, long b, long c, long d, long e, long f) {
    long ret = syscall(n, a, b, c, d, e, f);
    extern int *__errno_location(void);
    return ret == -1 ? -*__errno_location() : ret;
}
#endif

#define sc0(n) sc6(n, 0, 0, 0, 0, 0, 0)
#define sc1(n, a) sc6(n, (long)(a), 0, 0, 0, 0, 0)
#define sc2(n, a, b) sc6(n, (long)(a), (long)(b), 0, 0, 0, 0)
#define sc3(n, a, b, c) sc6(n, (long)(a), (long)(b), (long)(c), 0, 0, 0)
#define sc4(n, a, b, c, d) sc6(n, (long)(a), (long)(b), (long)(c), (long)(d), 0, 0)
#define sc5(n, a, b, c, d, e) sc6(n, (long)(a), (long)(b), (long)(c), (long)(d), (long)(e), 0)

#define AT_CWD (-100)
#define SIG_SIZE 8 /* the kernel's sigset_t */
#define SIGHUP 1
#define SIGINT 2
#define SIGKILL 9
#define SIGUSR1 10
#define SIGUSR2 12
#define SIGTERM 15
#define SIGCHLD 17
#define SIGCONT 18
#define SIGSTOP 19
#define SIG_BLOCK 0
#define SIG_UNBLOCK 1
#define SIG_SETMASK 2
#define WNOHANG 1
#define AF_UNIX 1
#define RLIM_INF (~0ULL)

typedef unsigned long sigmask_t;
static sigmask_t sig_bit(int sig) { return 1UL << (sig - 1); }

__attribute__((noreturn)) static void exit_now(int code) {
    for (;;) sc1(__NR_exit_group, code);
}
static int getpid_(void) { return (int)sc0(__NR_getpid); }
static int getppid_(void) { return (int)sc0(__NR_getppid); }
static long open_(const char *path, int flags, int mode) {
    return sc4(__NR_openat, AT_CWD, path, flags, mode);
}
static void close_(long fd) { sc1(__NR_close, fd); }
static long write_all(int fd, const char *text, unsigned long n) {
    while (n > 0) {
        long done = sc3(__NR_write, fd, text, n);
        if (done == -EINTR) continue;
        if (done <= 0) return done;
        text += done;
        n -= (unsigned long)done;
    }
    return 0;
}
static long fork_(void) { return sc5(__NR_clone, SIGCHLD, 0, 0, 0, 0); }
static long wait_(int pid, int *status, int options) {
    return sc4(__NR_wait4, pid, status, options, 0);
}
static void kill_(int pid, int sig) { sc2(__NR_kill, pid, sig); }
static long prctl_(int option, unsigned long arg) { return sc5(__NR_prctl, option, arg, 0, 0, 0); }
static long dup_onto(int from, int to) {
    return from == to ? 0 : sc3(__NR_dup3, from, to, 0);
}
static long mask_signals(int how, const sigmask_t *set, sigmask_t *old) {
    return sc4(__NR_rt_sigprocmask, how, set, old, SIG_SIZE);
}

/* ---- strings and numbers ------------------------------------------------------ */
unsigned long strlen(const char *s);
static int same(const char *a, const char *b) {
    while (*a && *a == *b) a++, b++;
    return *a == *b;
}
static char *strchr_(char *s, char c) {
    while (*s && *s != c) s++;
    return *s ? s : 0;
}
static char *append(char *at, char *end, const char *text) {
    while (*text && at < end) *at++ = *text++;
    return at;
}
static char *append_int(char *at, char *end, long value) {
    char digits[24];
    int n = 0;
    unsigned long v = value < 0 ? -(unsigned long)value : (unsigned long)value;
    do digits[n++] = (char)('0' + v % 10); while ((v /= 10) && n < 23);
    if (value < 0 && at < end) *at++ = '-';
    while (n && at < end) *at++ = digits[--n];
    return at;
}
/* Decimal digits up to the end or to `stop`; *rest points past them. 0 if none. */
static int parse_u64(const char *s, char stop, unsigned long long *out, const char **rest) {
    unsigned long long v = 0;
    const char *p = s;
    while (*p >= '0' && *p <= '9') v = v * 10 + (unsigned long long)(*p++ - '0');
    if (p == s || (*p != stop && *p != 0)) return 0;
    *out = v;
    if (rest) *rest = p;
    return 1;
}
static int parse_pair(const char *s, long *first, long *second) {
    unsigned long long a, b;
    const char *rest;
    if (!parse_u64(s, ':', &a, &rest) || *rest != ':') return 0;
    if (!parse_u64(rest + 1, 0, &b, 0)) return 0;
    *first = (long)a;
    *second = (long)b;
    return 1;
}

static const char *error_text(long err) {
    switch (err) {
    case EPERM: return "Operation not permitted";
    case ENOENT: return "No such file or directory";
    case ESRCH: return "No such process";
    case EINTR: return "Interrupted system call";
    case E2BIG: return "Argument list too long";
    case ENOEXEC: return "Exec format error";
    case EBADF: return "Bad file descriptor";
    case EAGAIN: return "Resource temporarily unavailable";
    case ENOMEM: return "Cannot allocate memory";
    case EACCES: return "Permission denied";
    case EBUSY: return "Device or resource busy";
    case EEXIST: return "File exists";
    case ENOTDIR: return "Not a directory";
    case EISDIR: return "Is a directory";
    case EINVAL: return "Invalid argument";
    case EMFILE: return "Too many open files";
    case ETXTBSY: return "Text file busy";
    case ENOSPC: return "No space left on device";
    case EROFS: return "Read-only file system";
    case ENAMETOOLONG: return "File name too long";
    case ENOSYS: return "Function not implemented";
    case ELOOP: return "Too many levels of symbolic links";
    case EOPNOTSUPP: return "Operation not supported";
    default: return 0;
    }
}

static void die_err(const char *what, const char *detail, long err) {
    char line[1024], *at = line, *end = line + sizeof line - 1;
    at = append(at, end, "launcher: ");
    at = append(at, end, what);
    if (detail) {
        at = append(at, end, " ");
        at = append(at, end, detail);
    }
    at = append(at, end, ": ");
    const char *text = error_text(err < 0 ? -err : err);
    if (text) {
        at = append(at, end, text);
    } else {
        at = append(at, end, "error ");
        at = append_int(at, end, err < 0 ? -err : err);
    }
    *at++ = '\n';
    write_all(2, line, (unsigned long)(at - line));
    exit_now(127);
}
#define CHECK(call, what, detail)                   \
    do {                                            \
        long check_ret_ = (call);                   \
        if (check_ret_ < 0) die_err(what, detail, check_ret_); \
    } while (0)

/* ---- rlimits ------------------------------------------------------------------ */
static int resource_of(const char *name) {
    if (same(name, "cpu")) return RLIMIT_CPU;
    if (same(name, "fsize")) return RLIMIT_FSIZE;
    if (same(name, "nofile")) return RLIMIT_NOFILE;
    if (same(name, "core")) return RLIMIT_CORE;
    if (same(name, "as")) return RLIMIT_AS;
    if (same(name, "nproc")) return RLIMIT_NPROC;
    return -1;
}

static int limit_value(const char *text, char stop, unsigned long long *out, const char **rest) {
    if (text[0] == '-' && text[1] == '1' && (text[2] == stop || text[2] == 0)) {
        *out = RLIM_INF;
        if (rest) *rest = text + 2;
        return 1;
    }
    return parse_u64(text, stop, out, rest);
}

static void apply_rlimit(char *spec) {
    char *colon = spec;
    while (*colon && *colon != ':') colon++;
    if (!*colon) die_err("bad rlimit", spec, EINVAL);
    *colon = 0;
    int resource = resource_of(spec);
    *colon = ':';
    struct { unsigned long long cur, max; } limit;
    const char *rest;
    if (resource < 0 || !limit_value(colon + 1, ':', &limit.cur, &rest) || *rest != ':' ||
        !limit_value(rest + 1, 0, &limit.max, 0))
        die_err("bad rlimit", spec, EINVAL);
    CHECK(sc4(__NR_prlimit64, 0, resource, &limit, 0), "setrlimit", spec);
}

/* ---- cgroups -------------------------------------------------------------------- */
static void path_join(char *out, unsigned long size, const char *dir, const char *file) {
    char *end = append(append(append(out, out + size - 1, dir), out + size - 1, "/"),
                       out + size - 1, file);
    *end = 0;
}

static void write_cgroup_file(const char *dir, const char *file, const char *text) {
    char path[4096];
    path_join(path, sizeof path, dir, file);
    long fd = open_(path, O_WRONLY | O_CLOEXEC, 0);
    if (fd < 0) die_err("joining cgroup", dir, fd);
    long done = sc3(__NR_write, fd, text, strlen(text));
    if (done < 0) die_err("joining cgroup", dir, done);
    close_(fd);
}

static void join_cgroup_by_pid(const char *dir) {
    char pid[32], *end = append_int(pid, pid + 30, getpid_());
    *end++ = '\n';
    *end = 0;
    write_cgroup_file(dir, "cgroup.procs", pid);
}

/* v1: "0" in tasks moves the calling thread (here the whole single-threaded process). */
static void join_v1_cgroup(const char *dir) {
    char path[4096];
    path_join(path, sizeof path, dir, "tasks");
    if (sc4(__NR_faccessat, AT_CWD, path, 0, 0) == 0)
        write_cgroup_file(dir, "tasks", "0\n");
    else
        join_cgroup_by_pid(dir);
}

/* ---- seccomp: a denylist, the rest of the kernel stays usable by any runtime ---- */
#define MAX_FILTER 256
static struct sock_filter filter[MAX_FILTER];
static unsigned short filter_len;

static void emit(struct sock_filter insn) {
    if (filter_len >= MAX_FILTER) die_err("seccomp filter", "too long", E2BIG);
    filter[filter_len++] = insn;
}

#define RET_ERRNO(e) BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ((e) & SECCOMP_RET_DATA))
#define RET_ALLOW BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)
#define LOAD(off) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (off))
#define DATA_AT(field) __builtin_offsetof(struct seccomp_data, field)
/* The low 32 bits of a 64-bit argument, all a rule compares: the second word on big-endian
 * arm64 (the kernel fills args in native byte order and reports AUDIT_ARCH_AARCH64 for both). */
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define ARG_LOW(i) (DATA_AT(args[i]) + 4)
#else
#define ARG_LOW(i) DATA_AT(args[i])
#endif

static const long denied[] = {
    __NR_ptrace, __NR_process_vm_readv, __NR_process_vm_writev, __NR_mount, __NR_umount2,
    __NR_pivot_root, __NR_chroot, __NR_bpf, __NR_keyctl, __NR_add_key, __NR_request_key,
    __NR_perf_event_open, __NR_unshare, __NR_setns, __NR_kexec_load, __NR_init_module,
    __NR_finit_module, __NR_delete_module, __NR_reboot, __NR_swapon, __NR_swapoff,
    __NR_open_by_handle_at, __NR_name_to_handle_at, __NR_userfaultfd, __NR_syslog, __NR_acct,
    __NR_settimeofday, __NR_clock_settime, __NR_adjtimex, __NR_quotactl, __NR_fanotify_init,
    __NR_kcmp, __NR_io_uring_setup, __NR_io_uring_enter, __NR_io_uring_register,
    __NR_fsopen, __NR_fsmount, __NR_fspick, __NR_move_mount, __NR_open_tree,
    __NR_mount_setattr, __NR_vhangup, __NR_pidfd_getfd,
#ifdef __NR_kexec_file_load
    __NR_kexec_file_load,
#endif
#ifdef __NR_iopl
    __NR_iopl, __NR_ioperm,
#endif
#ifdef __NR_lookup_dcookie
    __NR_lookup_dcookie,
#endif
};

#if defined(__x86_64__)
#define THIS_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define THIS_ARCH AUDIT_ARCH_AARCH64
#endif

#define NS_FLAGS (CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | \
                  CLONE_NEWNET | CLONE_NEWCGROUP)

/* Root keeps no capability: the bounding set first (that needs CAP_SETPCAP), then the
 * ambient, inheritable, permitted and effective sets, so the exec gains none back. */
static void drop_capabilities(void) {
    for (unsigned long cap = 0; cap < 64; cap++) {
        long err = sc5(__NR_prctl, PR_CAPBSET_DROP, cap, 0, 0, 0);
        if (err == -EINVAL) break; /* past the last capability this kernel knows */
        CHECK(err, "capbset", 0);
    }
    CHECK(sc5(__NR_prctl, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0), "ambient", 0);
    struct { __u32 version; int pid; } header = {0x20080522, 0}; /* _LINUX_CAPABILITY_VERSION_3 */
    struct { __u32 effective, permitted, inheritable; } none[2] = {{0, 0, 0}, {0, 0, 0}};
    CHECK(sc2(__NR_capset, (long)&header, (long)none), "capset", 0);
}

/* The filter is a binary search on the syscall number, not a chain of comparisons: the
 * kernel works out, when the filter is installed, which syscalls it always allows by running
 * it for every syscall number (seccomp_cache_prepare, with interrupts off), so a chain of ~60
 * comparisons is CPU on every bot's start (and every syscall that still runs the filter,
 * ~60 comparisons). Every syscall number named below gets one action; any other is allowed. */
enum { T_ALLOW, T_EPERM, T_ENOSYS, T_ZERO, T_EINVAL, T_EAFNOSUPPORT, T_FCNTL, T_SOCKET,
       T_CLONE, N_TARGETS };
struct rule { long nr; int target; };
#define MAX_RULES 96
#define MAX_FIXUPS 192
static struct rule rules[MAX_RULES];
static int n_rules;
static struct { unsigned short at; unsigned char target, field; } fixups[MAX_FIXUPS];
static int n_fixups;

/* The first rule for a number wins (as the first comparison in a chain would). */
static void rule(long nr, int target) {
    for (int i = 0; i < n_rules; i++)
        if (rules[i].nr == nr) return;
    if (n_rules >= MAX_RULES) die_err("seccomp filter", "too many rules", E2BIG);
    rules[n_rules].nr = nr;
    rules[n_rules++].target = target;
}

/* The last instruction's jt (field 0), jf (1) or k (2, a BPF_JA) goes to `target`. */
static void jump_to(int field, int target) {
    if (n_fixups >= MAX_FIXUPS) die_err("seccomp filter", "too long", E2BIG);
    fixups[n_fixups].at = (unsigned short)(filter_len - 1);
    fixups[n_fixups].target = (unsigned char)target;
    fixups[n_fixups++].field = (unsigned char)field;
}

static void set_offset(unsigned at, unsigned to, int field) {
    unsigned offset = to - at - 1;
    if (to <= at || (field < 2 && offset > 255)) die_err("seccomp filter", "jump", E2BIG);
    if (field == 0) filter[at].jt = (unsigned char)offset;
    else if (field == 1) filter[at].jf = (unsigned char)offset;
    else filter[at].k = offset;
}

/* rules[lo, hi), sorted by number: at most three compared in turn, else split in two. */
static void emit_search(int lo, int hi) {
    if (hi - lo <= 3) {
        for (int i = lo; i < hi; i++) {
            emit((struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)rules[i].nr, 0, 0));
            jump_to(0, rules[i].target);
        }
        if (hi > lo) jump_to(1, T_ALLOW);
        else {
            emit((struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JA, 0, 0, 0));
            jump_to(2, T_ALLOW);
        }
        return;
    }
    int mid = lo + (hi - lo) / 2;
    emit((struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, (unsigned)rules[mid].nr, 0, 0));
    unsigned split = filter_len - 1;
    emit_search(lo, mid);
    set_offset(split, filter_len, 0);
    emit_search(mid, hi);
}

/* Channels between bots through what every sandbox shares (the same read-only system
 * files): a lock taken on /usr/bin/true by one bot is seen by every other, and so are its
 * file opens by inotify, dnotify and fanotify watchers. File locks become private no-ops
 * (they "succeed", so runtimes that lock keep working, and nothing is shared); leases and
 * directory notifications fail as on a kernel without them; inotify does not exist; POSIX
 * message queues (a per-uid budget) do not exist either. */
static const unsigned lock_commands[] = {5, 6, 7, 12, 13, 14, 36, 37, 38};
/* F_GETLK F_SETLK F_SETLKW (F_*LK64) F_OFD_GETLK F_OFD_SETLK F_OFD_SETLKW */
static const unsigned notify_commands[] = {1024, 1025, 1026}; /* F_SETLEASE F_GETLEASE F_NOTIFY */
#define N_LOCK (sizeof lock_commands / sizeof lock_commands[0])
#define N_NOTIFY (sizeof notify_commands / sizeof notify_commands[0])

static void collusion_rules(void) {
    rule(__NR_flock, T_ZERO);
    rule(__NR_inotify_init1, T_ENOSYS);
#ifdef __NR_inotify_init
    rule(__NR_inotify_init, T_ENOSYS);
#endif
    rule(__NR_mq_open, T_ENOSYS);
    rule(__NR_fcntl, T_FCNTL); /* fcntl(fd, cmd, ...): locks errno 0, notifications EINVAL */
}

static void build_seccomp(void) {
#ifndef THIS_ARCH
    die_err("seccomp", "unsupported architecture", ENOSYS);
#else
    filter_len = 0;
    n_rules = n_fixups = 0;
    emit((struct sock_filter)LOAD(DATA_AT(arch)));
    emit((struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, THIS_ARCH, 1, 0));
    emit((struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
    emit((struct sock_filter)LOAD(DATA_AT(nr)));
#if defined(__x86_64__)
    /* The x32 ABI numbers would bypass every rule below. */
    emit((struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 0));
    jump_to(0, T_EPERM);
#endif
    for (unsigned long i = 0; i < sizeof denied / sizeof denied[0]; i++) rule(denied[i], T_EPERM);
    /* clone3 passes its flags in memory a filter cannot read: make libc fall back to clone. */
    rule(__NR_clone3, T_ENOSYS);
    collusion_rules();
    rule(__NR_socket, T_SOCKET); /* socket(): only AF_UNIX (plumbing inside runtimes) */
    rule(__NR_clone, T_CLONE);   /* clone(): no new namespaces */
    for (int i = 1; i < n_rules; i++) /* sorted by number */
        for (int j = i; j > 0 && rules[j - 1].nr > rules[j].nr; j--) {
            struct rule swap = rules[j];
            rules[j] = rules[j - 1];
            rules[j - 1] = swap;
        }
    emit_search(0, n_rules);
    unsigned short at[N_TARGETS];
    at[T_FCNTL] = filter_len;
    emit((struct sock_filter)LOAD(ARG_LOW(1)));
    for (unsigned i = 0; i < N_LOCK + N_NOTIFY; i++) {
        int lock = i < N_LOCK;
        emit((struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
                                          lock ? lock_commands[i] : notify_commands[i - N_LOCK],
                                          0, 0));
        jump_to(0, lock ? T_ZERO : T_EINVAL);
    }
    jump_to(1, T_ALLOW);
    at[T_SOCKET] = filter_len;
    emit((struct sock_filter)LOAD(ARG_LOW(0)));
    emit((struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 0, 0));
    jump_to(0, T_ALLOW);
    jump_to(1, T_EAFNOSUPPORT);
    at[T_CLONE] = filter_len;
    emit((struct sock_filter)LOAD(ARG_LOW(0)));
    emit((struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, NS_FLAGS, 0, 0));
    jump_to(0, T_EPERM);
    jump_to(1, T_ALLOW);
    at[T_ALLOW] = filter_len;
    emit((struct sock_filter)RET_ALLOW);
    at[T_EPERM] = filter_len;
    emit((struct sock_filter)RET_ERRNO(EPERM));
    at[T_ENOSYS] = filter_len;
    emit((struct sock_filter)RET_ERRNO(ENOSYS));
    at[T_ZERO] = filter_len;
    emit((struct sock_filter)RET_ERRNO(0));
    at[T_EINVAL] = filter_len;
    emit((struct sock_filter)RET_ERRNO(EINVAL));
    at[T_EAFNOSUPPORT] = filter_len;
    emit((struct sock_filter)RET_ERRNO(EAFNOSUPPORT));
    for (int i = 0; i < n_fixups; i++)
        set_offset(fixups[i].at, at[fixups[i].target], fixups[i].field);
#endif
}

static void install_seccomp(void) {
    if (filter_len == 0) build_seccomp(); /* (the fork server's children: built ahead) */
    struct sock_fprog prog = {filter_len, filter};
    CHECK(sc5(__NR_prctl, PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0), "seccomp", 0);
}

/* ---- Landlock (best effort by ABI): read everywhere, write only where allowed, no TCP,
 *      no abstract unix sockets or signals outside the sandbox ---------------------- */
struct ruleset_attr { __u64 fs, net, scoped; };
struct path_beneath { __u64 allowed; __s32 parent_fd; } __attribute__((packed));

#define LL_EXECUTE (1ULL << 0)
#define LL_WRITE_FILE (1ULL << 1)
#define LL_READ_FILE (1ULL << 2)
#define LL_READ_DIR (1ULL << 3)
#define LL_FS_ABI1 ((1ULL << 13) - 1)
#define LL_REFER (1ULL << 13)
#define LL_TRUNCATE (1ULL << 14)
#define LL_IOCTL_DEV (1ULL << 15)
#define LL_NET_ALL 3ULL
#define LL_SCOPE_ALL 3ULL
#define LL_VERSION 1U
#define LL_RULE_PATH 1

static void landlock_allow(long ruleset, const char *path, __u64 rights) {
    long fd = open_(path, O_PATH | O_CLOEXEC, 0);
    if (fd < 0) return; /* a missing dir grants nothing */
    struct path_beneath rule = {rights, (__s32)fd};
    CHECK(sc4(__NR_landlock_add_rule, ruleset, LL_RULE_PATH, &rule, 0), "landlock rule", path);
    close_(fd);
}

static void install_landlock(char **writable, int n_writable) {
    long abi = sc3(__NR_landlock_create_ruleset, 0, 0, LL_VERSION);
    if (abi < 1) return; /* kernel without Landlock: the namespaces still hold */
    struct ruleset_attr attr = {LL_FS_ABI1, 0, 0};
    unsigned long size = sizeof(__u64);
    if (abi >= 2) attr.fs |= LL_REFER;
    if (abi >= 3) attr.fs |= LL_TRUNCATE;
    if (abi >= 4) { attr.net = LL_NET_ALL; size = 2 * sizeof(__u64); }
    if (abi >= 5) attr.fs |= LL_IOCTL_DEV;
    if (abi >= 6) { attr.scoped = LL_SCOPE_ALL; size = sizeof attr; }
    long ruleset = sc3(__NR_landlock_create_ruleset, &attr, size, 0);
    if (ruleset < 0) die_err("landlock", 0, ruleset);
    __u64 read = LL_EXECUTE | LL_READ_FILE | LL_READ_DIR;
    landlock_allow(ruleset, "/", read);
    /* /dev/null and friends are written by every runtime. */
    landlock_allow(ruleset, "/dev", read | LL_WRITE_FILE | (attr.fs & (LL_TRUNCATE | LL_IOCTL_DEV)));
    for (int i = 0; i < n_writable; i++) landlock_allow(ruleset, writable[i], attr.fs);
    CHECK(sc2(__NR_landlock_restrict_self, ruleset, 0), "landlock", 0);
    close_(ruleset);
}

/* ---- exec with a PATH search (and /bin/sh for scripts without #!, like execvp) ---- */
static char **environ_;

static const char *env_value(const char *name) {
    for (char **e = environ_; e && *e; e++) {
        const char *p = *e, *n = name;
        while (*n && *p == *n) p++, n++;
        if (!*n && *p == '=') return p + 1;
    }
    return 0;
}

static long exec_file(const char *path, char **argv) {
    long err = sc3(__NR_execve, path, argv, environ_);
    if (err == -ENOEXEC) {
        static char *with_shell[4096];
        int n = 0;
        with_shell[n++] = "sh";
        with_shell[n++] = (char *)path;
        for (int i = 1; argv[i] && n < 4095; i++) with_shell[n++] = argv[i];
        with_shell[n] = 0;
        sc3(__NR_execve, "/bin/sh", with_shell, environ_);
    }
    return err;
}

static void exec_program(char **argv) {
    const char *file = argv[0];
    long err = -ENOENT;
    int has_slash = 0;
    for (const char *p = file; *p; p++) has_slash |= *p == '/';
    if (has_slash) {
        err = exec_file(file, argv);
    } else {
        const char *path = env_value("PATH");
        if (!path) path = "/usr/local/bin:/usr/bin:/bin";
        int denied_seen = 0;
        while (1) {
            char full[4096], *at = full, *end = full + sizeof full - 1;
            while (*path && *path != ':' && at < end) *at++ = *path++;
            if (at == full) *at++ = '.';
            at = append(append(at, end, "/"), end, file);
            *at = 0;
            long tried = exec_file(full, argv);
            if (tried == -EACCES) denied_seen = 1;
            else if (tried != -ENOENT && tried != -ENOTDIR) { err = tried; break; }
            if (!*path) break;
            path++;
        }
        if (denied_seen && (err == -ENOENT || err == -ENOTDIR)) err = -EACCES;
    }
    die_err("cannot run", file, err);
}

/* ---- supervise (base layer) ------------------------------------------------------ */
/* Appends the children of pid to tree[*count...]; stops each first if asked (no forking
 * meanwhile). Iterative, so a deep chain of processes cannot exhaust the stack. */
#define MAX_TREE 65536
static int tree[MAX_TREE];

static void add_children(int pid, int *count, int stop) {
    char path[64], *end = path + sizeof path - 1, *at = path;
    at = append_int(append(at, end, "/proc/"), end, pid);
    at = append_int(append(at, end, "/task/"), end, pid);
    at = append(at, end, "/children");
    *at = 0;
    long fd = open_(path, O_RDONLY | O_CLOEXEC, 0);
    if (fd < 0) return;
    static char listed[65536];
    long n = 0, got;
    while (n < (long)sizeof listed - 1 &&
           (got = sc3(__NR_read, fd, listed + n, sizeof listed - 1 - n)) > 0)
        n += got;
    close_(fd);
    for (long i = 0; i < n && *count < MAX_TREE;) {
        while (i < n && (listed[i] < '0' || listed[i] > '9')) i++;
        if (i >= n) break;
        int child = 0;
        while (i < n && listed[i] >= '0' && listed[i] <= '9') child = child * 10 + (listed[i++] - '0');
        if (stop) kill_(child, SIGSTOP);
        tree[(*count)++] = child;
    }
}

/* Sends sig to every descendant; returns how many there were. */
static int signal_tree(int pid, int sig) {
    int stop = sig == SIGKILL || sig == SIGSTOP, count = 0;
    add_children(pid, &count, stop);
    for (int next = 0; next < count; next++) add_children(tree[next], &count, stop);
    for (int i = count - 1; i >= 0; i--) kill_(tree[i], sig);
    return count;
}

static void kill_tree_and_reap(void) {
    for (;;) {
        signal_tree(getpid_(), SIGKILL);
        if (wait_(-1, 0, 0) == -ECHILD) return;
    }
}

struct kernel_sigaction { void *handler; unsigned long flags; void *restorer; sigmask_t mask; };

/* A bot's signals are as a fresh process's whatever the judge's were: an exec keeps ignored
 * signals, so a judge started with some ignored (nohup, a shell's background job) would pass
 * that on to its bots. (A forked bot's are the fork server's, which starts the same way.) */
__attribute__((unused)) static void default_signals(void) {
    struct kernel_sigaction dfl = {0, 0, 0, 0};
    for (int sig = 1; sig <= 64; sig++)
        if (sig != SIGKILL && sig != SIGSTOP) sc4(__NR_rt_sigaction, sig, &dfl, 0, SIG_SIZE);
}

static void exit_like(int status) {
    if ((status & 0x7f) == 0) exit_now((status >> 8) & 0xff);
    int sig = status & 0x7f;
    struct kernel_sigaction dfl = {0, 0, 0, 0};
    sc4(__NR_rt_sigaction, sig, &dfl, 0, SIG_SIZE);
    sigmask_t set = sig_bit(sig);
    mask_signals(SIG_UNBLOCK, &set, 0);
    kill_(getpid_(), sig);
    kill_(getpid_(), SIGKILL); /* a signal whose default is not to die */
    exit_now(128 + sig);
}

static void supervise(char **argv) {
    sigmask_t set = 0, old = 0;
    int handled[] = {SIGCHLD, SIGTERM, SIGHUP, SIGINT, SIGUSR1, SIGUSR2};
    for (unsigned long i = 0; i < sizeof handled / sizeof handled[0]; i++) set |= sig_bit(handled[i]);
    mask_signals(SIG_BLOCK, &set, &old);
    CHECK(prctl_(PR_SET_CHILD_SUBREAPER, 1), "subreaper", 0);
    long bot = fork_();
    if (bot < 0) die_err("fork", 0, bot);
    if (bot == 0) {
        mask_signals(SIG_SETMASK, &old, 0);
        prctl_(PR_SET_PDEATHSIG, SIGKILL);
        exec_program(argv);
    }
    prctl_(PR_SET_NAME, (unsigned long)"bot-supervisor");
    /* Only the bot may hold its pipes: the judge must see EOF when the bot closes them. */
    long null = open_("/dev/null", O_RDWR | O_CLOEXEC, 0);
    if (null >= 0) {
        dup_onto((int)null, 0);
        dup_onto((int)null, 1);
        close_(null);
    }
    for (;;) {
        char info[128];
        long sig = sc4(__NR_rt_sigtimedwait, &set, info, 0, SIG_SIZE);
        if (sig == SIGUSR1 || sig == SIGUSR2) {
            signal_tree(getpid_(), sig == SIGUSR1 ? SIGSTOP : SIGCONT);
        } else if (sig == SIGCHLD) {
            int status;
            long done;
            while ((done = wait_(-1, &status, WNOHANG)) > 0) {
                if (done == bot) {
                    kill_tree_and_reap();
                    exit_like(status);
                }
            }
        } else if (sig > 0) {
            kill_tree_and_reap();
            kill_(getpid_(), SIGKILL);
        }
    }
}

/* ---- v2: fork into the cgroup; the parent relays the child's end ------------------ */
#ifndef CLONE_INTO_CGROUP
#define CLONE_INTO_CGROUP 0x200000000ULL
#endif
struct clone3_args {
    __u64 flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls,
        set_tid, set_tid_size, cgroup;
};

static void relay(long child) {
    prctl_(PR_SET_NAME, (unsigned long)"bot-relay");
    /* Only the bot may hold its pipes (passed aside on fds >= 3). */
#ifdef __NR_close_range
    if (sc3(__NR_close_range, 3U, ~0U, 0U) != 0)
#endif
        for (int fd = 3; fd < 1024; fd++) close_(fd);
    int status;
    long done;
    while ((done = wait_((int)child, &status, 0)) < 0) {
        if (done != -EINTR) exit_now(127);
    }
    exit_like(status);
}

/* Returns in the child, inside the cgroup; the parent never returns. */
static void enter_v2_cgroup(const char *dir) {
    long cgroup_fd = open_(dir, O_PATH | O_DIRECTORY | O_CLOEXEC, 0);
    if (cgroup_fd < 0) die_err("opening cgroup", dir, cgroup_fd);
    struct clone3_args args = {0};
    args.flags = CLONE_INTO_CGROUP;
    args.exit_signal = SIGCHLD;
    args.cgroup = (__u64)cgroup_fd;
    long child = sc2(__NR_clone3, &args, sizeof args);
    if (child > 0) relay(child);
    close_(cgroup_fd);
    if (child == 0) return;
    join_cgroup_by_pid(dir); /* no clone3 or no CLONE_INTO_CGROUP here: the slow way */
}

/* ---- namespaces and the bot's file system (-N) ----------------------------------- */
/* The whole view a bot has of the machine is built here, in a new mount namespace, on an
 * empty tmpfs that becomes the root: read-only binds of the paths the judge names (-B: the
 * system directories, the bot's box), a snapshot of /etc (-E), the merged-/usr links (-l),
 * six device nodes, its own /proc, and private /tmp and /dev/shm. Nothing else of the host
 * exists for it. As root (-u), the tree is built with root's rights and the uid is dropped
 * after; otherwise a user namespace maps the judge's uid onto itself first. */
#define NS_CLONE (CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWPID | CLONE_NEWNET | \
                  CLONE_NEWCGROUP)
#define OLD "/oldroot"
#define MNT_DETACH 2
#ifndef MOUNT_ATTR_RDONLY
#define MOUNT_ATTR_RDONLY 0x1
#define MOUNT_ATTR_NOSUID 0x2
#define MOUNT_ATTR_NODEV 0x4
#endif
#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif
#ifndef OPEN_TREE_CLONE
#define OPEN_TREE_CLONE 1
#endif
#ifndef MOVE_MOUNT_F_EMPTY_PATH
#define MOVE_MOUNT_F_EMPTY_PATH 0x00000004
#endif
struct mount_attr_ { __u64 attr_set, attr_clr, propagation, userns_fd; };
struct statfs_ { long type, bsize; unsigned long blocks, bfree, bavail, files, ffree;
                 int fsid[2]; long namelen, frsize, flags, spare[4]; };
#define ST_RDONLY_ 1
#define ST_NOSUID_ 2
#define ST_NODEV_ 4
#define ST_NOEXEC_ 8
#define ST_NOATIME_ 1024
#define ST_NODIRATIME_ 2048
#define ST_RELATIME_ 4096

static const char *const devices[] = {"null", "zero", "full", "random", "urandom", "tty"};

static void write_file(const char *path, const char *text) {
    long fd = open_(path, O_WRONLY | O_CLOEXEC, 0);
    if (fd < 0) die_err("open", path, fd);
    long done = sc3(__NR_write, fd, text, strlen(text));
    if (done < 0) die_err("write", path, done);
    close_(fd);
}

/* Maps the calling process's uid and gid onto themselves in a new user namespace. */
static void own_user_namespace(long uid, long gid) {
    CHECK(sc1(__NR_unshare, CLONE_NEWUSER), "unshare user namespace", 0);
    char map[64], *at;
    write_file("/proc/self/setgroups", "deny");
    at = append_int(append(append_int(map, map + 60, uid), map + 60, " "), map + 60, uid);
    at = append(at, map + 62, " 1\n");
    *at = 0;
    write_file("/proc/self/uid_map", map);
    at = append_int(append(append_int(map, map + 60, gid), map + 60, " "), map + 60, gid);
    at = append(at, map + 62, " 1\n");
    *at = 0;
    write_file("/proc/self/gid_map", map);
}

/* mkdir -p, for paths inside the new root (an empty tmpfs: nothing in the way). */
static void make_dirs(char *path) {
    for (char *p = path + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        long err = sc3(__NR_mkdirat, AT_CWD, path, 0755);
        *p = '/';
        if (err < 0 && err != -EEXIST) die_err("mkdir", path, err);
    }
    long err = sc3(__NR_mkdirat, AT_CWD, path, 0755);
    if (err < 0 && err != -EEXIST) die_err("mkdir", path, err);
}

static void make_file(char *path) {
    char *slash = path;
    for (char *p = path; *p; p++) if (*p == '/') slash = p;
    if (slash != path) {
        *slash = 0;
        make_dirs(path);
        *slash = '/';
    }
    long fd = open_(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0444);
    if (fd < 0 && fd != -EEXIST) die_err("create", path, fd);
    if (fd >= 0) close_(fd);
}

/* Read-only (and nosuid; nodev unless keep_dev) for the mount at path and all below it. */
static void make_read_only(const char *path, int keep_dev) {
    struct mount_attr_ attr = {MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | (keep_dev ? 0 : MOUNT_ATTR_NODEV),
                               0, 0, 0};
    long err = sc5(__NR_mount_setattr, AT_CWD, path, AT_RECURSIVE, &attr, sizeof attr);
    if (err != -ENOSYS) {
        CHECK(err, "read-only", path);
        return;
    }
    /* Before Linux 5.12: a remount, which must repeat the flags a user namespace locked. */
    struct statfs_ info;
    CHECK(sc2(__NR_statfs, path, &info), "statfs", path);
    unsigned long flags = MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | (keep_dev ? 0 : MS_NODEV);
    if (info.flags & ST_NODEV_) flags |= MS_NODEV;
    if (info.flags & ST_NOEXEC_) flags |= MS_NOEXEC;
    if (info.flags & ST_NOATIME_) flags |= MS_NOATIME;
    if (info.flags & ST_NODIRATIME_) flags |= MS_NODIRATIME;
    if (info.flags & ST_RELATIME_) flags |= MS_RELATIME;
    CHECK(sc5(__NR_mount, 0, path, 0, flags, 0), "read-only", path);
}

/* Shows the host's `source` read-only at `dest` inside the new root. */
static void bind_read_only(const char *source, const char *dest, int keep_dev) {
    char from[4096], to[4096];
    char *end = append(append(from, from + sizeof from - 1, OLD), from + sizeof from - 1, source);
    *end = 0;
    end = append(to, to + sizeof to - 1, dest);
    *end = 0;
    long probe = open_(from, O_PATH | O_DIRECTORY | O_CLOEXEC, 0);
    if (probe >= 0) {
        close_(probe);
        make_dirs(to);
    } else {
        probe = open_(from, O_PATH | O_CLOEXEC, 0);
        if (probe < 0) die_err("cannot show", source, probe);
        close_(probe);
        make_file(to);
    }
    CHECK(sc5(__NR_mount, from, to, 0, MS_BIND | MS_REC, 0), "bind", source);
    make_read_only(to, keep_dev);
}

static void mount_tmpfs(const char *where, const char *options, unsigned long flags) {
    char path[4096], *end = append(path, path + sizeof path - 1, where);
    *end = 0;
    long there = open_(path, O_PATH | O_DIRECTORY | O_CLOEXEC, 0);
    if (there >= 0) close_(there); /* (a template's copy: its read-only /dev has shm) */
    else make_dirs(path);
    CHECK(sc5(__NR_mount, "tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV | flags, options),
          "tmpfs", where);
}

struct tree {
    char *binds[64];
    int n_binds;
    char *links[16]; /* "LINK:TARGET" */
    int n_links;
    const char *etc;
    const char *tmp_size, *shm_size;
    int go_fd; /* -W: the bot's own part comes on this descriptor (-1: all on argv) */
    int netns_fd; /* -X: the slot's kept network namespace (-1: a new one) */
    int mntns_fd; /* -M: a template mount namespace of this very tree (-1: none) */
    int template; /* -K: build the template itself (nothing of a bot's) */
};

/* -W FD (a warm start, judge/sandbox/pool.py): everything that is the same for every bot is
 * on argv and done ahead; the bot's own part comes on FD once a match wants a bot, as
 * NUL-terminated words: options (-B PATH, -c DIR, -r RES:SOFT:HARD), "--", the number of
 * program words, the program's words, then the bot's environment. EOF without a word: the
 * pool let this one go unused. */
#define GO_MAX 65536
#define GO_WORDS 2048
static char go_buf[GO_MAX];
static char *go_argv[GO_WORDS + 1], *go_envp[GO_WORDS + 1];
static char **go_program;
static const char *go_chdir;

static void take_go(struct tree *t) {
    unsigned long got = 0;
    for (;;) {
        if (got >= GO_MAX - 1) die_err("warm start", "words", E2BIG);
        long n = sc3(__NR_read, t->go_fd, go_buf + got, GO_MAX - 1 - got);
        if (n == -EINTR) continue;
        if (n < 0) die_err("warm start", "read", n);
        if (n == 0) break;
        got += (unsigned long)n;
    }
    close_(t->go_fd);
    t->go_fd = -1;
    if (got == 0) exit_now(0);
    go_buf[got] = 0;
    static char *words[2 * GO_WORDS + 8];
    unsigned long n = 0;
    for (unsigned long at = 0; at < got; at += strlen(go_buf + at) + 1) {
        if (n >= sizeof words / sizeof words[0] - 1) die_err("warm start", "words", E2BIG);
        words[n++] = go_buf + at;
    }
    unsigned long i = 0;
    for (; i < n && !same(words[i], "--"); i += 2) {
        if (i + 1 >= n) die_err("warm start", words[i], EINVAL);
        char *value = words[i + 1];
        if (same(words[i], "-B")) {
            if (t->n_binds >= 64) die_err("too many", "-B", E2BIG);
            t->binds[t->n_binds++] = value;
        } else if (same(words[i], "-c")) {
            go_chdir = value;
        } else if (same(words[i], "-r")) {
            apply_rlimit(value);
        } else {
            die_err("warm start", words[i], EINVAL);
        }
    }
    unsigned long long count;
    if (i + 1 >= n || !parse_u64(words[i + 1], 0, &count, 0) || count == 0 || count > GO_WORDS ||
        i + 2 + count > n)
        die_err("warm start", "program", EINVAL);
    i += 2;
    for (unsigned long k = 0; k < count; k++) go_argv[k] = words[i++];
    go_argv[count] = 0;
    unsigned long e = 0;
    while (i < n && e < GO_WORDS) go_envp[e++] = words[i++];
    go_envp[e] = 0;
    go_program = go_argv;
    environ_ = go_envp;
}

/* The bot's own /tmp and /dev/shm: fresh, empty tmpfs of -T / -H bytes. */
static void private_tmp(const struct tree *t) {
    char options[96], *end;
    end = append(append(options, options + 95, "mode=1777,size="), options + 95, t->shm_size);
    *end = 0;
    mount_tmpfs("/dev/shm", options, MS_NOEXEC);
    end = append(append(options, options + 95, "mode=1777,size="), options + 95, t->tmp_size);
    *end = 0;
    mount_tmpfs("/tmp", options, 0);
}

static void own_proc_and_name(void) {
    CHECK(sc5(__NR_mount, "proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, 0),
          "mount", "/proc");
    CHECK(sc2(__NR_sethostname, "bot", 3), "sethostname", 0);
}

static int under_tmp(const char *path) {
    const char *tmp = "/tmp/";
    for (int i = 0; i < 5; i++) if (path[i] != tmp[i]) return 0;
    return 1;
}

static void build_tree(struct tree *t);

/* The mount at path read-only, not what is mounted below it; `flags` are its own, which a
 * remount (before Linux 5.12) must repeat. */
static void seal(const char *path, unsigned long flags) {
    struct mount_attr_ attr = {MOUNT_ATTR_RDONLY, 0, 0, 0};
    long err = sc5(__NR_mount_setattr, AT_CWD, path, 0, &attr, sizeof attr);
    if (err == -ENOSYS) err = sc5(__NR_mount, 0, path, 0, MS_REMOUNT | MS_BIND | MS_RDONLY | flags, 0);
    CHECK(err, "read-only", path);
}

/* -K (root): the parts of a bot's tree that are the same for every bot of these options
 * (-B, -E, -l), built once in a mount namespace of its own, which the judge keeps (it opens
 * /proc/PID/ns/mnt) before closing this process's stdin. Says "K" on stdout once built. */
__attribute__((unused)) static void make_template(struct tree *t) {
    if (sc0(__NR_getuid) != 0) die_err("usage", "-K needs root", EPERM);
    CHECK(sc1(__NR_unshare, CLONE_NEWNS), "unshare mount namespace", 0);
    build_tree(t);
    long probe = sc3(__NR_open_tree, AT_CWD, "/", OPEN_TREE_CLONE | O_CLOEXEC);
    CHECK(probe, "open_tree", 0); /* what each copy needs (Linux 5.2) */
    close_(probe);
    CHECK(write_all(1, "K", 1), "write", "stdout");
    char byte;
    while (sc3(__NR_read, 0, &byte, 1) > 0) {}
    exit_now(0);
}

/* -M: pid 1 is in a copy of the template (its clone copied the namespace the relay had
 * entered); what is the bot's own comes now: /tmp and /dev/shm afresh, and a box under /tmp
 * shown over them again (cloned from the template's mounts first, as it covers them),
 * /proc of its pid namespace. No host tree was ever in this namespace: nothing to unmount,
 * so no wait for an RCU grace period, and no copy of the host's mounts. */
static void fill_template_copy(struct tree *t) {
    CHECK(sc1(__NR_chdir, "/"), "chdir", "/");
    long clones[64];
    int n = 0;
    for (int i = 0; i < t->n_binds; i++) {
        if (!under_tmp(t->binds[i])) continue;
        clones[n] = sc3(__NR_open_tree, AT_CWD, t->binds[i],
                        OPEN_TREE_CLONE | AT_RECURSIVE | O_CLOEXEC);
        CHECK(clones[n], "open_tree", t->binds[i]);
        n++;
    }
    private_tmp(t);
    n = 0;
    for (int i = 0; i < t->n_binds; i++) {
        if (!under_tmp(t->binds[i])) continue;
        char to[4096], *end = append(to, to + sizeof to - 1, t->binds[i]);
        *end = 0;
        long dir = sc4(__NR_openat, clones[n], ".", O_PATH | O_DIRECTORY | O_CLOEXEC, 0);
        if (dir >= 0) {
            close_(dir);
            make_dirs(to);
        } else {
            make_file(to);
        }
        CHECK(sc5(__NR_move_mount, clones[n], "", AT_CWD, to, MOVE_MOUNT_F_EMPTY_PATH),
              "move_mount", t->binds[i]);
        close_(clones[n]);
        n++;
    }
    own_proc_and_name();
}

static void build_tree(struct tree *t) {
    CHECK(sc5(__NR_mount, 0, "/", 0, MS_REC | MS_PRIVATE, 0), "private mounts", 0);
    /* The new root: a tmpfs on /tmp, pivoted to, with the host's tree at /oldroot until
     * everything is bound (the host's own /tmp stays reachable there: only this namespace
     * sees the tmpfs). */
    CHECK(sc5(__NR_mount, "tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=1m"),
          "root tmpfs", 0);
    CHECK(sc1(__NR_chdir, "/tmp"), "chdir", "/tmp");
    CHECK(sc3(__NR_mkdirat, AT_CWD, "oldroot", 0755), "mkdir", "oldroot");
    CHECK(sc2(__NR_pivot_root, ".", "oldroot"), "pivot_root", 0);
    CHECK(sc1(__NR_chdir, "/"), "chdir", "/");
    if (t->etc) bind_read_only(t->etc, "/etc", 0);
    /* /dev: a small tmpfs with the six devices bound from the host, the usual links, shm. */
    mount_tmpfs("/dev", "mode=0755,size=64k", MS_NOEXEC);
    for (unsigned long i = 0; i < sizeof devices / sizeof devices[0]; i++) {
        char from[64], to[64], *end;
        end = append(append(from, from + 63, "/dev/"), from + 63, devices[i]);
        *end = 0;
        end = append(append(to, to + 63, "/dev/"), to + 63, devices[i]);
        *end = 0;
        char host[80];
        end = append(append(host, host + 79, OLD), host + 79, from);
        *end = 0;
        long probe = open_(host, O_PATH | O_CLOEXEC, 0);
        if (probe < 0) continue; /* a host without it: the bot goes without too */
        close_(probe);
        bind_read_only(from, to, 1);
    }
    static const char *const dev_links[][2] = {{"/proc/self/fd", "/dev/fd"},
        {"/proc/self/fd/0", "/dev/stdin"}, {"/proc/self/fd/1", "/dev/stdout"},
        {"/proc/self/fd/2", "/dev/stderr"}};
    for (int i = 0; i < 4; i++)
        CHECK(sc3(__NR_symlinkat, dev_links[i][0], AT_CWD, dev_links[i][1]), "symlink",
              dev_links[i][1]);
    if (t->template) { /* what each copy mounts afresh: only its mount points here */
        static char shm[] = "/dev/shm", tmp[] = "/tmp";
        make_dirs(shm);
        make_dirs(tmp);
    } else {
        private_tmp(t);
    }
    /* After /tmp: a box under the host's /tmp is shown over the private one. */
    for (int i = 0; i < t->n_binds; i++) bind_read_only(t->binds[i], t->binds[i], 0);
    for (int i = 0; i < t->n_links; i++) {
        char *colon = t->links[i];
        while (*colon && *colon != ':') colon++;
        if (!*colon) die_err("bad -l", t->links[i], EINVAL);
        *colon = 0;
        CHECK(sc3(__NR_symlinkat, colon + 1, AT_CWD, t->links[i]), "symlink", t->links[i]);
        *colon = ':';
    }
    /* Its own /proc (this process is pid 1 of the new pid namespace); the kernel allows it
     * only while a full /proc is visible, so before the host's tree goes. */
    CHECK(sc3(__NR_mkdirat, AT_CWD, "/proc", 0555), "mkdir", "/proc");
    if (!t->template) own_proc_and_name();
    if (t->go_fd >= 0) {
        /* Warm: wait here for the bot; its box is bound while the host's tree is still
         * reachable at OLD, the same way as the binds above. */
        int ready = t->n_binds;
        take_go(t);
        for (int i = ready; i < t->n_binds; i++) bind_read_only(t->binds[i], t->binds[i], 0);
    }
    CHECK(sc2(__NR_umount2, OLD, MNT_DETACH), "umount", OLD);
    CHECK(sc3(__NR_unlinkat, AT_CWD, OLD, AT_REMOVEDIR), "rmdir", OLD);
    /* The root and /dev themselves: read-only, not recursively (/tmp, /dev/shm stay
     * writable). (A template's are every copy's: one tmpfs each.) */
    seal("/", MS_NOSUID | MS_NODEV);
    seal("/dev", MS_NOSUID | MS_NODEV | MS_NOEXEC);
}

/* Closes every descriptor from 3 on except `keep` (-1: none). */
static void close_others(int keep) {
#ifdef __NR_close_range
    int done = keep < 0 ? sc3(__NR_close_range, 3U, ~0U, 0U) == 0
                        : (keep <= 3 || sc3(__NR_close_range, 3U, (unsigned)keep - 1, 0U) == 0) &&
                              sc3(__NR_close_range, (unsigned)keep + 1, ~0U, 0U) == 0;
    if (done) return;
#endif
    for (int fd = 3; fd < 1024; fd++)
        if (fd != keep) close_(fd);
}

/* Closes every descriptor from `first` on. */
__attribute__((unused)) static void close_from(int first) {
#ifdef __NR_close_range
    if (sc3(__NR_close_range, (unsigned)first, ~0U, 0U) == 0) return;
#endif
    for (int fd = first; fd < 1024; fd++) close_(fd);
}

/* pid 1 of the bot's pid namespace: reaps what is orphaned inside, and ends with the bot
 * (its exit takes every process left in the namespace with it). The bot's wait status goes
 * to the relay first: tearing the namespaces down can take tens of ms (RCU grace periods),
 * and the judge must not take a bot that died for one still running meanwhile. */
static void namespace_init(long bot, int status_fd) {
    prctl_(PR_SET_NAME, (unsigned long)"bot-init");
    close_others(status_fd); /* the bot's pipes are the bot's alone */
    for (;;) {
        int status;
        long done = wait_(-1, &status, 0);
        if (done == bot) {
            write_all(status_fd, (const char *)&status, sizeof status);
            /* pid 1 cannot die of its own signal: 128 + N, as a shell reports it. */
            if ((status & 0x7f) == 0) exit_now((status >> 8) & 0xff);
            exit_now(128 + (status & 0x7f));
        }
        if (done == -ECHILD) exit_now(127);
    }
}

/* The launcher left outside the namespaces: ends the way the bot did, as soon as pid 1
 * says how (or the way pid 1 did, if it died without saying). */
static void namespace_relay(long child, int status_fd) {
    prctl_(PR_SET_NAME, (unsigned long)"bot-relay");
    close_others(status_fd); /* only the bot may hold its pipes */
    int status;
    long got;
    while ((got = sc3(__NR_read, status_fd, &status, sizeof status)) == -EINTR) {}
    if (got == (long)sizeof status) exit_like(status);
    while ((got = wait_((int)child, &status, 0)) < 0) {
        if (got != -EINTR) exit_now(127);
    }
    exit_like(status);
}

#if defined(LAUNCHER_LIBRARY) && defined(__x86_64__)
/* The fork server's child is a copy of a whole interpreter's address space: pid 1 shares it
 * (CLONE_VM) instead of copying it again, and runs on this very stack while the relay waits
 * (CLONE_VFORK) until pid 1 exits. The relay then goes straight to namespace_relay with what
 * it kept in registers, never reading the frames pid 1 wrote over. Returns 0 in pid 1, a
 * negative errno if the clone failed; the relay never returns. */
static long clone_pid1(unsigned long flags, int status_fd) {
    long ret;
    register long fd __asm__("r12") = status_fd;
    register void (*relay)(long, int) __asm__("r13") = namespace_relay;
    register long r10 __asm__("r10") = 0;
    register long r8 __asm__("r8") = 0;
    __asm__ volatile("syscall\n\t"
                     "test %%rax, %%rax\n\t"
                     "jle 1f\n\t"
                     "mov %%rax, %%rdi\n\t"
                     "mov %%r12, %%rsi\n\t"
                     "and $-16, %%rsp\n\t"
                     "call *%%r13\n\t"
                     "1:"
                     : "=a"(ret)
                     : "a"((long)__NR_clone), "D"(flags), "S"(0L), "d"(0L), "r"(r10), "r"(r8),
                       "r"(fd), "r"(relay)
                     : "rcx", "r11", "memory");
    return ret;
}
#endif

/* Does this network namespace hold no socket of any protocol? /proc/net/protocols counts the
 * sockets in use per protocol in the reader's namespace (its third column). */
static int netns_is_empty(void) {
    static char text[16384];
    long fd = open_("/proc/thread-self/net/protocols", O_RDONLY | O_CLOEXEC, 0);
    if (fd < 0) return 0;
    unsigned long got = 0;
    long n = -1;
    while (got < sizeof text - 1 &&
           (n = sc3(__NR_read, fd, text + got, sizeof text - 1 - got)) != 0) {
        if (n == -EINTR) continue;
        if (n < 0) break;
        got += (unsigned long)n;
    }
    close_(fd);
    if (n != 0) return 0; /* unread, or more than fits: not known to be empty */
    text[got] = 0;
    char *line = strchr_(text, '\n'); /* the header */
    while (line && line[1]) {
        char *at = line + 1;
        for (int field = 0; field < 2; field++) { /* past the name and the size */
            while (*at == ' ') at++;
            while (*at && *at != ' ' && *at != '\n') at++;
        }
        while (*at == ' ') at++;
        if (at[0] != '0' || (at[1] != ' ' && at[1] != '\n' && at[1] != 0)) return 0;
        line = strchr_(at, '\n');
    }
    return 1;
}

/* -X FD (as root, the judge's slot uids): the network namespace this uid slot's earlier bots
 * had, entered instead of making a new one (making one and tearing it down costs more CPU
 * than the rest of a start's namespaces). It belongs to the judge's user namespace, so no
 * bot can change anything in it; what a bot leaves there is its sockets, which die with it.
 * A socket that outlived its bot (a unix socket in flight) would let the next one find it:
 * a namespace holding any socket is not used, the bot gets a new one. 1: entered, empty. */
static int enter_kept_netns(int fd) {
    long err = sc2(__NR_setns, fd, CLONE_NEWNET);
    close_(fd);
    return err == 0 && netns_is_empty();
}

/* Returns in the bot's process, inside every namespace and its tree, as the bot's uid. */
static void enter_namespaces(struct tree *t, const char *ids) {
    long uid = sc0(__NR_getuid), gid = sc0(__NR_getgid);
    if (!ids) own_user_namespace(uid, gid);
    int status_pipe[2];
    CHECK(sc2(__NR_pipe2, status_pipe, O_CLOEXEC), "pipe", 0);
    unsigned long namespaces = NS_CLONE;
    if (t->netns_fd >= 0) {
        if (ids && enter_kept_netns(t->netns_fd)) namespaces &= ~(unsigned long)CLONE_NEWNET;
        else if (!ids) close_(t->netns_fd); /* (in a user namespace of its own: not enterable) */
        t->netns_fd = -1;
    }
    /* -M (as root): pid 1's clone copies the template the relay enters here instead of the
     * host's namespace. Without root the template is not this user namespace's to enter. */
    int templated = 0;
    if (t->mntns_fd >= 0) {
        templated = ids && sc2(__NR_setns, t->mntns_fd, CLONE_NEWNS) == 0;
        close_(t->mntns_fd);
        t->mntns_fd = -1;
    }
    long child = -EINVAL;
#if defined(LAUNCHER_LIBRARY) && defined(__x86_64__)
    child = clone_pid1(CLONE_VM | CLONE_VFORK | namespaces | SIGCHLD, status_pipe[0]);
#endif
    if (child == -EINVAL) { /* a copy of its own (a kernel refusing the above: the same) */
        child = sc5(__NR_clone, namespaces | SIGCHLD, 0, 0, 0, 0);
        if (child > 0) {
            close_(status_pipe[1]);
            namespace_relay(child, status_pipe[0]);
        }
    }
    if (child < 0) die_err("clone namespaces", 0, child);
    close_(status_pipe[0]);
    prctl_(PR_SET_PDEATHSIG, SIGKILL); /* with the relay, which dies with the judge */
    if (templated) fill_template_copy(t);
    else build_tree(t);
    if (ids) {
        if (!parse_pair(ids, &uid, &gid)) die_err("bad ids", ids, EINVAL);
        CHECK(sc2(__NR_setgroups, 0, 0), "setgroups", 0);
        CHECK(sc1(__NR_setgid, gid), "setgid", 0);
        CHECK(sc1(__NR_setuid, uid), "setuid", 0);
        CHECK(prctl_(PR_SET_DUMPABLE, 1), "dumpable", 0); /* to write its own id maps */
        prctl_(PR_SET_PDEATHSIG, SIGKILL);                 /* the uid change cleared it */
        own_user_namespace(uid, gid);
    }
#if defined(LAUNCHER_LIBRARY) && defined(__x86_64__)
    /* pid 1's memory is the relay's (outside every namespace, the judge's uid): no process
     * of the bot's uid may read or write it through /proc; the bot's own copy is dumpable, as
     * an exec'd bot is. */
    CHECK(prctl_(PR_SET_DUMPABLE, 0), "dumpable", 0);
#endif
    long bot = fork_();
    if (bot < 0) die_err("fork", 0, bot);
    if (bot > 0) namespace_init(bot, status_pipe[1]);
#if defined(LAUNCHER_LIBRARY) && defined(__x86_64__)
    CHECK(prctl_(PR_SET_DUMPABLE, 1), "dumpable", 0);
#endif
    prctl_(PR_SET_PDEATHSIG, SIGKILL);
}

static int launcher_main(int argc, char **argv) {
#ifndef LAUNCHER_LIBRARY
    default_signals();
#endif
    char *writable[16];
    int n_writable = 0, want_seccomp = 0, want_landlock = 0, want_nnp = 0;
    int want_subreaper = 0, want_no_caps = 0, want_namespaces = 0;
    long parent = 0, stdin_from = -1, stdout_from = -1;
    const char *chdir_to = 0, *v2_cgroup = 0;
    char *ids = 0, *v1_cgroups[8];
    int n_v1 = 0;
    struct tree tree = {{0}, 0, {0}, 0, 0, "64m", "16m", -1, -1, -1, 0};
    int i = 1;
    for (; i < argc; i++) {
        char *arg = argv[i];
        if (same(arg, "--")) { i++; break; }
        if (arg[0] != '-' || !arg[1] || arg[2]) break; /* the program: options end */
        char opt = arg[1];
        char *value = 0;
        if (opt != 's' && opt != 'n' && opt != 'S' && opt != 'L' && opt != 'C' && opt != 'N' &&
            opt != 'K') {
            if (i + 1 >= argc) die_err("usage", arg, EINVAL);
            value = argv[++i];
        }
        switch (opt) {
        case 'r': apply_rlimit(value); break;
        case 'g': if (n_v1 < 8) v1_cgroups[n_v1++] = value; break;
        case 'G': v2_cgroup = value; break;
        case 'u': ids = value; break;
        case 'p': {
            unsigned long long pid;
            if (!parse_u64(value, 0, &pid, 0)) die_err("bad -p", value, EINVAL);
            parent = (long)pid;
            break;
        }
        case 's': want_subreaper = 1; break;
        case 'n': want_nnp = 1; break;
        case 'C': want_no_caps = 1; break;
        case 'S': want_seccomp = 1; break;
        case 'L': want_landlock = 1; break;
        case 'N': want_namespaces = 1; break;
        case 'K': tree.template = 1; break;
        case 'M': {
            unsigned long long fd;
            if (!parse_u64(value, 0, &fd, 0)) die_err("bad -M", value, EINVAL);
            tree.mntns_fd = (int)fd;
            break;
        }
        case 'B':
            if (tree.n_binds >= 64) die_err("too many", "-B", E2BIG);
            tree.binds[tree.n_binds++] = value;
            break;
        case 'l':
            if (tree.n_links >= 16) die_err("too many", "-l", E2BIG);
            tree.links[tree.n_links++] = value;
            break;
        case 'E': tree.etc = value; break;
        case 'T': tree.tmp_size = value; break;
        case 'H': tree.shm_size = value; break;
        case 'w': if (n_writable < 16) writable[n_writable++] = value; break;
        case 'c': chdir_to = value; break;
        case 'W': {
            unsigned long long fd;
            if (!parse_u64(value, 0, &fd, 0)) die_err("bad -W", value, EINVAL);
            tree.go_fd = (int)fd;
            break;
        }
        case 'i':
            if (!parse_pair(value, &stdin_from, &stdout_from)) die_err("bad -i", value, EINVAL);
            break;
        case 'X': {
            unsigned long long fd;
            if (!parse_u64(value, 0, &fd, 0)) die_err("bad -X", value, EINVAL);
            tree.netns_fd = (int)fd;
            break;
        }
        default: die_err("usage", arg, EINVAL);
        }
    }
    if (tree.go_fd >= 0 && !want_namespaces) die_err("usage", "-W without -N", EINVAL);
    if (tree.netns_fd >= 0 && !want_namespaces) die_err("usage", "-X without -N", EINVAL);
    if ((tree.mntns_fd >= 0 || tree.template) && !want_namespaces)
        die_err("usage", "-M or -K without -N", EINVAL);
    if (tree.mntns_fd >= 0 && (tree.go_fd >= 0 || tree.template))
        die_err("usage", "-M with -W or -K", EINVAL);
#ifdef LAUNCHER_LIBRARY
    if (want_subreaper || tree.go_fd >= 0 || tree.template)
        die_err("usage", "-s, -W or -K in the library", EINVAL);
#else
    if (tree.template) make_template(&tree);
    if (i >= argc && tree.go_fd < 0) die_err("usage", "no program", EINVAL);
#endif
    char **program = argv + i;
    if (v2_cgroup) {
        /* The relay left behind watches for the judge's death in our place. */
        if (parent > 0) {
            CHECK(prctl_(PR_SET_PDEATHSIG, SIGKILL), "pdeathsig", 0);
            if (getppid_() != parent) exit_now(127);
        }
        int relay_pid = getpid_();
        enter_v2_cgroup(v2_cgroup);
        if (getpid_() != relay_pid && parent > 0) parent = relay_pid;
    }
    for (int k = 0; k < n_v1; k++) join_v1_cgroup(v1_cgroups[k]);
    if (ids && !want_namespaces) {
        long uid, gid;
        if (!parse_pair(ids, &uid, &gid)) die_err("bad ids", ids, EINVAL);
        CHECK(sc2(__NR_setgroups, 0, 0), "setgroups", 0);
        CHECK(sc1(__NR_setgid, gid), "setgid", 0);
        CHECK(sc1(__NR_setuid, uid), "setuid", 0);
    }
    /* After the uid change, which clears it. The judge spawns from a thread that lives as long
     * as the judge process, so the signal comes when the judge dies, not when a thread ends.
     * A supervisor gets SIGTERM so that it can take its tree down with it. */
    if (parent > 0) {
        CHECK(prctl_(PR_SET_PDEATHSIG, want_subreaper ? SIGTERM : SIGKILL), "pdeathsig", 0);
        if (getppid_() != parent) exit_now(127); /* the judge died before we got here */
    }
    if (want_namespaces) enter_namespaces(&tree, ids);
    if (go_program) {
        program = go_program;
        chdir_to = go_chdir;
    }
    /* Only now: the relay and pid 1 above the bot must not hold its pipes. */
    if (stdin_from >= 0) {
        CHECK(dup_onto((int)stdin_from, 0), "dup2", 0);
        CHECK(dup_onto((int)stdout_from, 1), "dup2", 0);
        if (stdin_from > 1) close_(stdin_from);
        if (stdout_from > 1) close_(stdout_from);
    }
    if (want_no_caps) drop_capabilities();
    if (want_nnp) CHECK(sc5(__NR_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs", 0);
    if (chdir_to) CHECK(sc1(__NR_chdir, chdir_to), "chdir", chdir_to);
    if (want_landlock) install_landlock(writable, n_writable);
    if (want_seccomp) install_seccomp();
#ifdef LAUNCHER_LIBRARY
    (void)program;
    (void)supervise;
    /* What an exec would have closed (the status pipe to pid 1 is close-on-exec): a bot
     * holding it could tell the relay it ended while it runs on. */
    close_from(3);
    return 0; /* the bot's process: the caller loads the bot's code */
#else
    if (want_subreaper) supervise(program);
    exec_program(program);
    return 127;
#endif
}

#ifdef LAUNCHER_NOLIBC
__attribute__((used, noreturn)) void launcher_start(long *stack) {
    int argc = (int)stack[0];
    char **argv = (char **)(stack + 1);
    environ_ = argv + argc + 1;
    exit_now(launcher_main(argc, argv));
}
#elif defined(LAUNCHER_LIBRARY)
#define EXPORT __attribute__((visibility("default")))

/* A child of the caller's parent (the judge, the fork server's parent): the judge waits for
 * it and gets its exit status as with a cold start. With cgroup_fd >= 0 it is born in that
 * v2 cgroup (CLONE_INTO_CGROUP), so it needs no relay outside. -errno on failure. */
EXPORT long launcher_clone_parent(int cgroup_fd) {
    if (cgroup_fd < 0) return sc5(__NR_clone, CLONE_PARENT | SIGCHLD, 0, 0, 0, 0);
    struct clone3_args args = {0};
    args.flags = CLONE_PARENT | CLONE_INTO_CGROUP;
    args.exit_signal = 0; /* CLONE_PARENT: the fork server's own (SIGCHLD) applies */
    args.cgroup = (__u64)cgroup_fd;
    return sc2(__NR_clone3, &args, sizeof args);
}

/* In the child: the bot's pipes at in_fd/out_fd/err_fd, the start's words on words_fd (the
 * launcher's option count, its options, then the rest, NUL-separated), with netns_fd >= 0
 * its slot's network namespace and with mntns_fd >= 0 a template mount namespace. Puts
 * stderr on 2, stdin/stdout on 3/4 (the options say -i 3:4), the network namespace on 6 (the
 * options say -X 6), the template on 7 (-M 7), closes every other descriptor, reads
 * the words, takes the launcher's steps and returns in the bot's process only: *rest then
 * points at the rest of the words (the program's and its environment), the result is its
 * length. */
static char fork_words[GO_MAX];
static char *fork_argv[GO_WORDS + 2];

EXPORT long launcher_fork_child(int in_fd, int out_fd, int err_fd, int words_fd, int netns_fd,
                                int mntns_fd, char **rest) {
    struct kernel_sigaction dfl = {0, 0, 0, 0};
    sc4(__NR_rt_sigaction, SIGINT, &dfl, 0, SIG_SIZE); /* the relays and pid 1: as exec'd */
    CHECK(dup_onto(err_fd, 2), "dup2", 0);
    long moved[5] = {in_fd, out_fd, words_fd, netns_fd, mntns_fd}; /* onto 3, 4, 5, 6, 7 */
    for (int k = 0; k < 5; k++) {
        if (moved[k] < 0) continue;
        moved[k] = sc3(__NR_fcntl, moved[k], 0 /* F_DUPFD */, 16);
        if (moved[k] < 0) die_err("fcntl", 0, moved[k]);
    }
    for (int k = 0; k < 5; k++) {
        if (moved[k] >= 0) CHECK(dup_onto((int)moved[k], 3 + k), "dup2", 0);
        else close_(3 + k);
    }
    close_from(8);
    unsigned long got = 0;
    for (;;) {
        if (got >= GO_MAX - 1) die_err("fork server", "words", E2BIG);
        long n = sc3(__NR_read, 5, fork_words + got, GO_MAX - 1 - got);
        if (n == -EINTR) continue;
        if (n < 0) die_err("fork server", "read", n);
        if (n == 0) break;
        got += (unsigned long)n;
    }
    close_(5);
    if (got == 0) exit_now(127); /* the judge gave up on this start */
    fork_words[got] = 0;
    sc0(__NR_setsid);
    unsigned long long count;
    if (!parse_u64(fork_words, 0, &count, 0) || count == 0 || count > GO_WORDS)
        die_err("fork server", "options", EINVAL);
    unsigned long at = strlen(fork_words) + 1;
    for (unsigned long k = 0; k < count; k++) {
        if (at >= got) die_err("fork server", "options", EINVAL);
        fork_argv[k] = fork_words + at;
        at += strlen(fork_words + at) + 1;
    }
    fork_argv[count] = 0;
    if (launcher_main((int)count, fork_argv) != 0) exit_now(127);
    *rest = fork_words + at;
    return at < got ? (long)(got - at) : 0;
}

/* Both at once, so that nothing but this C code runs in the processes above the bot: the
 * pid of the child in the caller, 0 in the bot's process (with *rest and *size as above). */
EXPORT long launcher_fork(int cgroup_fd, int in_fd, int out_fd, int err_fd, int words_fd,
                          int netns_fd, int mntns_fd, char **rest, long *size) {
    long pid = launcher_clone_parent(cgroup_fd);
    if (pid != 0) return pid;
    *size = launcher_fork_child(in_fd, out_fd, err_fd, words_fd, netns_fd, mntns_fd, rest);
    return 0;
}

/* The fork server's loop (bots/forkserver.py), in C so that between forks it touches none of
 * the interpreter's pages (each one touched after a fork is copied): per message on the
 * SOCK_SEQPACKET socket server_fd, one byte saying which descriptors follow (FORK_BASE plus
 * FORK_* bits) and those: stdin, stdout, stderr, words, then the v2 cgroup, the network
 * namespace and the template mount namespace, those named; a child forked as launcher_fork does, between the interpreter's before / after-fork
 * calls, its pid (or -1) sent back, the descriptors closed. In a bot's process it copies the
 * rest of the words (as launcher_fork) into `words`, the caller's buffer of GO_MAX bytes
 * (read there without another call through ctypes: ~40 pages of ctypes' own copied per
 * bot), and returns their length; -1 once the socket is closed or fails. */
typedef void (*fork_hook)(void);
struct iovec_ { void *base; unsigned long len; };
struct msghdr_ {
    void *name;
    int namelen;
    struct iovec_ *iov;
    unsigned long iovlen;
    void *control;
    unsigned long controllen;
    unsigned flags;
};
struct cmsghdr_ { unsigned long len; int level, type; };
#define SOL_SOCKET_ 1
#define SCM_RIGHTS_ 1
#define MSG_NOSIGNAL_ 0x4000
#define SERVE_FDS 7
#define FORK_BASE '@'  /* the four, and with these bits: */
#define FORK_CGROUP 1  /* the v2 cgroup */
#define FORK_NETNS 2   /* the network namespace */
#define FORK_MNTNS 4   /* the template mount namespace */

EXPORT long launcher_serve(int server_fd, fork_hook before, fork_hook after_parent,
                           fork_hook after_child, char *words) {
#ifdef THIS_ARCH
    /* Built once, here: each child only hands it to the kernel (no page of it copied). */
    build_seccomp();
#endif
    for (;;) {
        char byte;
        struct iovec_ iov = {&byte, 1};
        unsigned long control[(sizeof(struct cmsghdr_) + SERVE_FDS * sizeof(int)) /
                                  sizeof(unsigned long) + 2];
        struct msghdr_ msg = {0, 0, &iov, 1, control, sizeof control, 0};
        long got = sc3(__NR_recvmsg, server_fd, &msg, 0);
        if (got == -EINTR) continue;
        if (got <= 0) return -1; /* the judge closed its end */
        int fds[SERVE_FDS], n = 0;
        unsigned long at = 0, align = sizeof(unsigned long);
        while (at + sizeof(struct cmsghdr_) <= msg.controllen) {
            struct cmsghdr_ *head = (struct cmsghdr_ *)((char *)control + at);
            if (head->len < sizeof *head || at + head->len > msg.controllen) break;
            if (head->level == SOL_SOCKET_ && head->type == SCM_RIGHTS_) {
                const int *given = (const int *)(head + 1);
                unsigned long count = (head->len - sizeof *head) / sizeof(int);
                for (unsigned long k = 0; k < count; k++) {
                    if (n < SERVE_FDS) fds[n++] = given[k];
                    else close_(given[k]);
                }
            }
            at += (head->len + align - 1) / align * align;
        }
        long pid = -1;
        int bits = byte - FORK_BASE;
        int cgroup = bits & FORK_CGROUP ? 1 : 0, netns = bits & FORK_NETNS ? 1 : 0;
        int mntns = bits & FORK_MNTNS ? 1 : 0;
        if (bits >= 0 && bits < 8 && n == 4 + cgroup + netns + mntns) {
            before();
            char *rest = 0;
            long size = 0;
            pid = launcher_fork(cgroup ? fds[4] : -1, fds[0], fds[1], fds[2], fds[3],
                                netns ? fds[4 + cgroup] : -1,
                                mntns ? fds[4 + cgroup + netns] : -1, &rest, &size);
            if (pid == 0) {
                for (long k = 0; k < size; k++) words[k] = rest[k]; /* size < GO_MAX */
                after_child();
                return size;
            }
            after_parent();
        }
        for (int k = 0; k < n; k++) close_(fds[k]);
        int answer = pid > 0 ? (int)pid : -1;
        long sent;
        while ((sent = sc6(__NR_sendto, server_fd, (long)&answer, sizeof answer, MSG_NOSIGNAL_,
                           0, 0)) == -EINTR) {}
        if (sent != (long)sizeof answer) return -1;
    }
}
#elif defined(LAUNCHER_SECCOMP_DUMP)
/* For tests/test_seccomp_filter.py: the filter's instructions on stdout, as installed. */
int main(void) {
    (void)launcher_main;
    build_seccomp();
    return write_all(1, (const char *)filter, filter_len * sizeof filter[0]) == 0 ? 0 : 1;
}
#else
int main(int argc, char **argv, char **envp) {
    environ_ = envp;
    return launcher_main(argc, argv);
}
#endif
