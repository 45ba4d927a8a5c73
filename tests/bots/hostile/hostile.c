/* Hostile rps bots for the sandbox tests: `hostile MODE` attacks, reports on stderr
 * ("MODE: what happened"), then plays rock every turn unless the attack never ends. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static void report(const char *mode, const char *what) {
    fprintf(stderr, "%s: %s\n", mode, what);
    fflush(stderr);
}

static void play(void) {
    char line[4096];
    while (fgets(line, sizeof line, stdin)) {
        if (strncmp(line, "END", 3) == 0) return;
        if (strcmp(line, ".\n") == 0) {
            fputs("R\n.\n", stdout);
            fflush(stdout);
        }
    }
}

static const char *env(const char *name) {
    const char *value = getenv(name);
    return value ? value : "";
}

static void attack_tcp(void) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) { report("tcp", strerror(errno)); return; }
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons(atoi(env("HOSTILE_PORT")))};
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    report("tcp", connect(fd, (struct sockaddr *)&addr, sizeof addr) == 0 ? "connected" : strerror(errno));
}

static void attack_unix(void) {
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0) { report("unix", strerror(errno)); return; }
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    strncpy(addr.sun_path, env("HOSTILE_SOCKET"), sizeof addr.sun_path - 1);
    report("unix", connect(fd, (struct sockaddr *)&addr, sizeof addr) == 0 ? "connected" : strerror(errno));
}

static void attack_ptrace(void) {
    pid_t judge = atoi(env("HOSTILE_JUDGE_PID"));
    if (ptrace(PTRACE_SEIZE, judge, 0, 0) == 0) {
        report("ptrace", "attached");
        ptrace(PTRACE_DETACH, judge, 0, 0);
    } else {
        report("ptrace", strerror(errno));
    }
}

static void attack_daemon(void) {
    pid_t child = fork();
    if (child == 0) {
        setsid();
        if (fork() == 0) {
            signal(SIGHUP, SIG_IGN);
            signal(SIGTERM, SIG_IGN);
            for (;;) pause();
        }
        _exit(0);
    }
    report("daemon", child > 0 ? "started" : strerror(errno));
}

static void attack_memory(void) {
    size_t total = 0, chunk = 16 << 20;
    for (;;) {
        char *block = malloc(chunk);
        if (!block) {
            fprintf(stderr, "memory: malloc failed after %zu MiB\n", total >> 20);
            fflush(stderr);
            for (;;) pause(); /* never answers */
        }
        memset(block, 1, chunk);
        total += chunk;
    }
}

static void attack_disk(void) {
    static char block[1 << 20];
    char targets[3][256];
    snprintf(targets[0], sizeof targets[0], "fill-%s.bin", env("HOSTILE_TOKEN"));
    snprintf(targets[1], sizeof targets[1], "/tmp/fill-%s.bin", env("HOSTILE_TOKEN"));
    snprintf(targets[2], sizeof targets[2], "/dev/shm/fill-%s.bin", env("HOSTILE_TOKEN"));
    memset(block, 'x', sizeof block);
    signal(SIGXFSZ, SIG_IGN);
    for (size_t i = 0; i < 3; i++) {
        int fd = open(targets[i], O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0) {
            fprintf(stderr, "disk %d: %s\n", (int)i, strerror(errno));
            continue;
        }
        size_t written = 0;
        ssize_t n;
        while (written < (256u << 20) && (n = write(fd, block, sizeof block)) > 0) written += (size_t)n;
        fprintf(stderr, "disk %d: stopped after %zu MiB: %s\n", (int)i, written >> 20,
                written >= (256u << 20) ? "no limit" : strerror(errno));
        close(fd);
    }
    fflush(stderr);
}

static void attack_nofile(void) {
    int count = 0;
    while (open("/dev/null", O_RDONLY) >= 0) count++;
    fprintf(stderr, "nofile: %s after %d\n", strerror(errno), count);
    fflush(stderr);
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "";
    if (!strcmp(mode, "tcp")) attack_tcp();
    else if (!strcmp(mode, "unix")) attack_unix();
    else if (!strcmp(mode, "ptrace")) attack_ptrace();
    else if (!strcmp(mode, "daemon")) attack_daemon();
    else if (!strcmp(mode, "memory")) attack_memory();
    else if (!strcmp(mode, "disk")) attack_disk();
    else if (!strcmp(mode, "nofile")) attack_nofile();
    else if (!strcmp(mode, "spin")) for (volatile unsigned long i = 0;; i++) {}
    else if (!strcmp(mode, "stop")) raise(SIGSTOP);
    else if (!strcmp(mode, "forkbomb")) for (;;) fork();
    else if (!strcmp(mode, "stdout")) for (;;) fputs("xxxxxxxxxxxxxxxx", stdout);
    else if (!strcmp(mode, "stderr")) {
        static char block[65536];
        memset(block, 'e', sizeof block);
        for (int i = 0; i < 1024; i++) fwrite(block, 1, sizeof block, stderr); /* 64 MiB */
    }
    play();
    return 0;
}
