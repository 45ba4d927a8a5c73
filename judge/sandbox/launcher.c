/* The bot launcher: applies limits to itself, then execs the next program.
 *
 * The judge never uses preexec_fn (trio forks from a worker thread), so every
 * per-process setting a bot needs is made here, between fork and the bot's exec.
 * Outside bubblewrap it attaches cgroups, sets rlimits, drops to the slot uid and
 * execs bwrap; inside, a second run adds Landlock and a seccomp filter.
 *
 *   launcher [-r RES:SOFT:HARD]... [-g V1_CGROUP_DIR]... [-G V2_CGROUP_DIR] [-u UID:GID]
 *            [-p PARENT_PID] [-m STAGE_DIR -b PATH...] [-s] [-n] [-S] [-L]
 *            [-w WRITABLE_DIR]... [-c DIR] [-i IN_FD:OUT_FD] -- PROGRAM ARGS...
 *
 * Joining a cgroup is on every bot start's critical path. Writing a pid to cgroup.procs
 * takes the kernel's global threadgroup lock for writing, which waits for an RCU grace
 * period (measured 3-35 ms here). Two ways around it: a single-threaded process moves
 * itself by writing 0 to a v1 hierarchy's "tasks" (-g; no global lock), and a v2 cgroup
 * (-G) is entered by clone3(CLONE_INTO_CGROUP): the launcher forks straight into it and
 * stays behind as a thin relay that exits the way its child does.
 *
 * -i moves the bot's pipes from IN_FD/OUT_FD onto stdin/stdout: the judge passes them
 * aside so that bwrap (which keeps its own stdio open) never holds them.
 *
 * -m/-b (root only, before the uid drop): in a private mount namespace, mount a tmpfs on
 * STAGE_DIR and bind each PATH (a directory or file) on STAGE_DIR/<i>.
 * bwrap then binds from there: it resolves bind sources with realpath() as the dropped uid,
 * which cannot walk through directories like /root.
 *
 * -s (supervise) is the base layer's tree kill: the launcher stays as a child subreaper
 * above the bot, so every process the bot starts stays below it, even after setsid().
 * SIGTERM (or the judge's death) makes it kill that whole tree; SIGUSR1 / SIGUSR2 stop /
 * continue it. When the bot ends, the rest of its tree is killed and the launcher exits
 * the way the bot did.
 *
 * RES is one of cpu fsize nofile core as nproc; a value of -1 means unlimited.
 * Exit status 127 with a "launcher:" line on stderr means the bot never started.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void die(const char *what, const char *detail) {
    fprintf(stderr, "launcher: %s%s%s: %s\n", what, detail ? " " : "", detail ? detail : "",
            strerror(errno));
    _exit(127);
}

/* ---- rlimits ---------------------------------------------------------- */
static int resource_of(const char *name) {
    if (!strcmp(name, "cpu")) return RLIMIT_CPU;
    if (!strcmp(name, "fsize")) return RLIMIT_FSIZE;
    if (!strcmp(name, "nofile")) return RLIMIT_NOFILE;
    if (!strcmp(name, "core")) return RLIMIT_CORE;
    if (!strcmp(name, "as")) return RLIMIT_AS;
    if (!strcmp(name, "nproc")) return RLIMIT_NPROC;
    return -1;
}

static rlim_t limit_value(const char *text) {
    return strcmp(text, "-1") == 0 ? RLIM_INFINITY : (rlim_t)strtoull(text, NULL, 10);
}

static void apply_rlimit(char *spec) {
    char *soft = strchr(spec, ':');
    char *hard = soft ? strchr(soft + 1, ':') : NULL;
    if (!soft || !hard) { errno = EINVAL; die("bad rlimit", spec); }
    *soft++ = 0;
    *hard++ = 0;
    int resource = resource_of(spec);
    if (resource < 0) { errno = EINVAL; die("unknown rlimit", spec); }
    struct rlimit rl = {limit_value(soft), limit_value(hard)};
    if (setrlimit(resource, &rl) != 0) die("setrlimit", spec);
}

static void write_cgroup_file(const char *dir, const char *file, const char *text) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    ssize_t n = (ssize_t)strlen(text);
    if (fd < 0 || write(fd, text, (size_t)n) != n) die("joining cgroup", dir);
    close(fd);
}

static void join_cgroup_by_pid(const char *dir) {
    char pid[32];
    snprintf(pid, sizeof pid, "%d\n", (int)getpid());
    write_cgroup_file(dir, "cgroup.procs", pid);
}

/* v1: "0" in tasks moves the calling thread (here the whole single-threaded process). */
static void join_v1_cgroup(const char *dir) {
    char path[4096];
    snprintf(path, sizeof path, "%s/tasks", dir);
    if (access(path, F_OK) == 0)
        write_cgroup_file(dir, "tasks", "0\n");
    else
        join_cgroup_by_pid(dir);
}

/* ---- seccomp: a denylist, the rest of the kernel stays usable by any runtime ---- */
#define MAX_FILTER 256
static struct sock_filter filter[MAX_FILTER];
static unsigned short filter_len;

static void emit(struct sock_filter insn) {
    if (filter_len >= MAX_FILTER) { errno = E2BIG; die("seccomp filter", "too long"); }
    filter[filter_len++] = insn;
}

#define RET_ERRNO(e) BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ((e) & SECCOMP_RET_DATA))
#define RET_ALLOW BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)
#define LOAD(off) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (off))

static void deny(long nr, int err) {
    emit((struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 1));
    emit((struct sock_filter)RET_ERRNO(err));
}

static const long denied[] = {
    SYS_ptrace, SYS_process_vm_readv, SYS_process_vm_writev, SYS_mount, SYS_umount2,
    SYS_pivot_root, SYS_chroot, SYS_bpf, SYS_keyctl, SYS_add_key, SYS_request_key,
    SYS_perf_event_open, SYS_unshare, SYS_setns, SYS_kexec_load, SYS_init_module,
    SYS_finit_module, SYS_delete_module, SYS_reboot, SYS_swapon, SYS_swapoff,
    SYS_open_by_handle_at, SYS_name_to_handle_at, SYS_userfaultfd, SYS_syslog, SYS_acct,
    SYS_settimeofday, SYS_clock_settime, SYS_adjtimex, SYS_quotactl, SYS_fanotify_init,
    SYS_kcmp, SYS_io_uring_setup, SYS_io_uring_enter, SYS_io_uring_register,
    SYS_fsopen, SYS_fsmount, SYS_fspick, SYS_move_mount, SYS_open_tree, SYS_mount_setattr,
    SYS_vhangup, SYS_pidfd_getfd,
#ifdef SYS_kexec_file_load
    SYS_kexec_file_load,
#endif
#ifdef SYS_iopl
    SYS_iopl, SYS_ioperm,
#endif
#ifdef SYS_lookup_dcookie
    SYS_lookup_dcookie,
#endif
};

#if defined(__x86_64__)
#define THIS_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define THIS_ARCH AUDIT_ARCH_AARCH64
#endif

#define NS_FLAGS (CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | \
                  CLONE_NEWNET | CLONE_NEWCGROUP)

static void install_seccomp(void) {
#ifndef THIS_ARCH
    errno = ENOSYS;
    die("seccomp", "unsupported architecture");
#else
    emit((struct sock_filter)LOAD(offsetof(struct seccomp_data, arch)));
    emit((struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, THIS_ARCH, 1, 0));
    emit((struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
    emit((struct sock_filter)LOAD(offsetof(struct seccomp_data, nr)));
#if defined(__x86_64__)
    /* The x32 ABI numbers would bypass every rule below. */
    emit((struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1));
    emit((struct sock_filter)RET_ERRNO(EPERM));
#endif
    for (size_t i = 0; i < sizeof denied / sizeof denied[0]; i++) deny(denied[i], EPERM);
    /* clone3 passes its flags in memory a filter cannot read: make libc fall back to clone. */
    deny(SYS_clone3, ENOSYS);
    /* socket(): only AF_UNIX (socketpair-style plumbing inside runtimes). */
    emit((struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_socket, 0, 4));
    emit((struct sock_filter)LOAD(offsetof(struct seccomp_data, args[0])));
    emit((struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 0, 1));
    emit((struct sock_filter)RET_ALLOW);
    emit((struct sock_filter)RET_ERRNO(EAFNOSUPPORT));
    /* clone(): no new namespaces. */
    emit((struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 0, 4));
    emit((struct sock_filter)LOAD(offsetof(struct seccomp_data, args[0])));
    emit((struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, NS_FLAGS, 0, 1));
    emit((struct sock_filter)RET_ERRNO(EPERM));
    emit((struct sock_filter)RET_ALLOW);
    emit((struct sock_filter)RET_ALLOW);
    struct sock_fprog prog = {filter_len, filter};
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) die("seccomp", NULL);
#endif
}

/* ---- Landlock (best effort by ABI): read everywhere, write only where allowed, no TCP,
 *      no abstract unix sockets or signals outside the sandbox ---------------------- */
struct ruleset_attr { uint64_t fs, net, scoped; };
struct path_beneath { uint64_t allowed; int32_t parent_fd; } __attribute__((packed));

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

static void landlock_allow(int ruleset, const char *path, uint64_t rights) {
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0) return; /* a missing dir grants nothing */
    struct path_beneath rule = {rights, fd};
    if (syscall(SYS_landlock_add_rule, ruleset, LL_RULE_PATH, &rule, 0) != 0)
        die("landlock rule", path);
    close(fd);
}

static void install_landlock(char **writable, int n_writable) {
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LL_VERSION);
    if (abi < 1) return; /* kernel without Landlock: the namespaces still hold */
    struct ruleset_attr attr = {LL_FS_ABI1, 0, 0};
    size_t size = sizeof(uint64_t);
    if (abi >= 2) attr.fs |= LL_REFER;
    if (abi >= 3) attr.fs |= LL_TRUNCATE;
    if (abi >= 4) { attr.net = LL_NET_ALL; size = 2 * sizeof(uint64_t); }
    if (abi >= 5) attr.fs |= LL_IOCTL_DEV;
    if (abi >= 6) { attr.scoped = LL_SCOPE_ALL; size = sizeof attr; }
    int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0);
    if (ruleset < 0) die("landlock", NULL);
    uint64_t read = LL_EXECUTE | LL_READ_FILE | LL_READ_DIR;
    landlock_allow(ruleset, "/", read);
    /* /dev/null and friends are written by every runtime. */
    landlock_allow(ruleset, "/dev", read | LL_WRITE_FILE | (attr.fs & (LL_TRUNCATE | LL_IOCTL_DEV)));
    for (int i = 0; i < n_writable; i++) landlock_allow(ruleset, writable[i], attr.fs);
    if (syscall(SYS_landlock_restrict_self, ruleset, 0) != 0) die("landlock", NULL);
    close(ruleset);
}


/* ---- supervise (base layer) -------------------------------------------- */
static int signal_tree(pid_t pid, int sig) {
    char path[64];
    int count = 0;
    snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)pid, (int)pid);
    FILE *f = fopen(path, "re");
    if (!f) return 0;
    int child;
    while (fscanf(f, "%d", &child) == 1) {
        if (sig == SIGKILL || sig == SIGSTOP) kill(child, SIGSTOP); /* no forking meanwhile */
        count += 1 + signal_tree(child, sig);
        kill(child, sig);
    }
    fclose(f);
    return count;
}

static void kill_tree_and_reap(void) {
    for (;;) {
        signal_tree(getpid(), SIGKILL);
        if (waitpid(-1, NULL, 0) < 0 && errno == ECHILD) return;
    }
}

static void exit_like(int status) {
    if (WIFEXITED(status)) _exit(WEXITSTATUS(status));
    int sig = WTERMSIG(status);
    signal(sig, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    kill(getpid(), sig);
    kill(getpid(), SIGKILL); /* a signal whose default is not to die */
    _exit(128 + sig);
}

static void supervise(char **argv) {
    sigset_t set, old;
    sigemptyset(&set);
    int handled[] = {SIGCHLD, SIGTERM, SIGHUP, SIGINT, SIGUSR1, SIGUSR2};
    for (size_t i = 0; i < sizeof handled / sizeof handled[0]; i++) sigaddset(&set, handled[i]);
    sigprocmask(SIG_BLOCK, &set, &old);
    if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) die("subreaper", NULL);
    pid_t bot = fork();
    if (bot < 0) die("fork", NULL);
    if (bot == 0) {
        sigprocmask(SIG_SETMASK, &old, NULL);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        execvp(argv[0], argv);
        die("cannot run", argv[0]);
    }
    prctl(PR_SET_NAME, "bot-supervisor");
    /* Only the bot may hold its pipes: the judge must see EOF when the bot closes them. */
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null >= 0) {
        dup2(null, 0);
        dup2(null, 1);
        close(null);
    }
    for (;;) {
        siginfo_t info;
        int sig = sigwaitinfo(&set, &info);
        if (sig == SIGUSR1 || sig == SIGUSR2) {
            signal_tree(getpid(), sig == SIGUSR1 ? SIGSTOP : SIGCONT);
        } else if (sig == SIGCHLD) {
            int status;
            pid_t done;
            while ((done = waitpid(-1, &status, WNOHANG)) > 0) {
                if (done == bot) {
                    kill_tree_and_reap();
                    exit_like(status);
                }
            }
        } else if (sig > 0) {
            kill_tree_and_reap();
            signal(SIGKILL, SIG_DFL);
            kill(getpid(), SIGKILL);
        }
    }
}

/* ---- v2: fork into the cgroup; the parent relays the child's end ------------------ */
#ifndef CLONE_INTO_CGROUP
#define CLONE_INTO_CGROUP 0x200000000ULL
#endif
struct clone3_args {
    uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls,
        set_tid, set_tid_size, cgroup;
};

static void relay(pid_t child) {
    prctl(PR_SET_NAME, "bot-relay");
    /* Only the bot may hold its pipes (passed aside on fds >= 3). */
#ifdef SYS_close_range
    if (syscall(SYS_close_range, 3U, ~0U, 0U) != 0)
#endif
        for (int fd = 3; fd < 1024; fd++) close(fd);
    int status;
    while (waitpid(child, &status, 0) < 0) {
        if (errno != EINTR) _exit(127);
    }
    exit_like(status);
}

/* Returns in the child, inside the cgroup; the parent never returns. */
static void enter_v2_cgroup(const char *dir) {
#ifdef SYS_clone3
    int cgroup_fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (cgroup_fd < 0) die("opening cgroup", dir);
    struct clone3_args args;
    memset(&args, 0, sizeof args);
    args.flags = CLONE_INTO_CGROUP;
    args.exit_signal = SIGCHLD;
    args.cgroup = (uint64_t)cgroup_fd;
    long child = syscall(SYS_clone3, &args, sizeof args);
    if (child > 0) relay((pid_t)child);
    if (child == 0) {
        close(cgroup_fd);
        return;
    }
    close(cgroup_fd); /* no clone3 or no CLONE_INTO_CGROUP here: the slow way */
#endif
    join_cgroup_by_pid(dir);
}

static void stage_binds(const char *stage, char **paths, int n) {
    if (unshare(CLONE_NEWNS) != 0) die("unshare mount namespace", NULL);
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) die("private mounts", NULL);
    if (mount("tmpfs", stage, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=64k") != 0)
        die("stage tmpfs", stage);
    for (int i = 0; i < n; i++) {
        char target[4096];
        const char *source = paths[i];
        struct stat st;
        snprintf(target, sizeof target, "%s/%d", stage, i);
        if (stat(source, &st) != 0) die("stat", source);
        if (S_ISDIR(st.st_mode)) {
            if (mkdir(target, 0755) != 0) die("mkdir", target);
        } else {
            int fd = open(target, O_CREAT | O_WRONLY | O_CLOEXEC, 0444);
            if (fd < 0) die("create", target);
            close(fd);
        }
        if (mount(source, target, NULL, MS_BIND | MS_REC, NULL) != 0) die("bind", target);
    }
}

int main(int argc, char **argv) {
    char *writable[16];
    int n_writable = 0, want_seccomp = 0, want_landlock = 0, want_nnp = 0;
    int want_subreaper = 0;
    long parent = 0;
    const char *chdir_to = NULL;
    char *ids = NULL;
    const char *stage = NULL;
    char *stage_paths[64];
    int n_stage = 0;
    char *v1_cgroups[8];
    int n_v1 = 0;
    const char *v2_cgroup = NULL;
    int opt;
    int stdin_from = -1, stdout_from = -1;
    while ((opt = getopt(argc, argv, "+r:g:G:u:p:snSLw:c:m:b:i:")) != -1) {
        switch (opt) {
        case 'r': apply_rlimit(optarg); break;
        case 'g':
            if (n_v1 < 8) v1_cgroups[n_v1++] = optarg;
            break;
        case 'G': v2_cgroup = optarg; break;
        case 'u': ids = optarg; break;
        case 'p': parent = strtol(optarg, NULL, 10); break;
        case 's': want_subreaper = 1; break;
        case 'n': want_nnp = 1; break;
        case 'S': want_seccomp = 1; break;
        case 'L': want_landlock = 1; break;
        case 'w':
            if (n_writable < 16) writable[n_writable++] = optarg;
            break;
        case 'c': chdir_to = optarg; break;
        case 'm': stage = optarg; break;
        case 'i':
            if (sscanf(optarg, "%d:%d", &stdin_from, &stdout_from) != 2) {
                errno = EINVAL;
                die("bad -i", optarg);
            }
            break;
        case 'b':
            if (n_stage < 64) stage_paths[n_stage++] = optarg;
            break;
        default: errno = EINVAL; die("usage", NULL);
        }
    }
    if (optind >= argc) { errno = EINVAL; die("usage", "no program"); }
    if (stdin_from >= 0) {
        if (dup2(stdin_from, 0) < 0 || dup2(stdout_from, 1) < 0) die("dup2", NULL);
        close(stdin_from);
        close(stdout_from);
    }
    if (v2_cgroup) {
        /* The relay left behind watches for the judge's death in our place. */
        if (parent > 0) {
            if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) die("pdeathsig", NULL);
            if (getppid() != parent) _exit(127);
        }
        pid_t relay_pid = getpid();
        enter_v2_cgroup(v2_cgroup);
        if (getpid() != relay_pid && parent > 0) parent = relay_pid;
    }
    for (int i = 0; i < n_v1; i++) join_v1_cgroup(v1_cgroups[i]);
    if (stage) stage_binds(stage, stage_paths, n_stage);
    if (ids) {
        unsigned uid, gid;
        if (sscanf(ids, "%u:%u", &uid, &gid) != 2) { errno = EINVAL; die("bad ids", ids); }
        if (setgroups(0, NULL) != 0) die("setgroups", NULL);
        if (setgid(gid) != 0) die("setgid", NULL);
        if (setuid(uid) != 0) die("setuid", NULL);
        /* The uid change made us non-dumpable, which hides /proc/self/fd from bwrap. */
        if (prctl(PR_SET_DUMPABLE, 1) != 0) die("dumpable", NULL);
    }
    /* After the uid change, which clears it. The judge spawns from a thread that lives as long
     * as the judge process, so the signal comes when the judge dies, not when a thread ends.
     * A supervisor gets SIGTERM so that it can take its tree down with it. */
    if (parent > 0) {
        if (prctl(PR_SET_PDEATHSIG, want_subreaper ? SIGTERM : SIGKILL) != 0)
            die("pdeathsig", NULL);
        if (getppid() != parent) _exit(127); /* the judge died before we got here */
    }
    if (want_nnp && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) die("no_new_privs", NULL);
    if (chdir_to && chdir(chdir_to) != 0) die("chdir", chdir_to);
    if (want_landlock) install_landlock(writable, n_writable);
    if (want_seccomp) install_seccomp();
    if (want_subreaper) supervise(argv + optind);
    execvp(argv[optind], argv + optind);
    die("cannot run", argv[optind]);
    return 127;
}
