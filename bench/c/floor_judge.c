/* The floor: a minimal judge in C doing the rps round trip over pipes with one or two bots.
 * Per turn it writes the message to every bot, then reads each bot's answer up to its "." line.
 * Usage: floor_judge BOT_PATH BOTS(1|2) TURNS [BOT_CPU]  (BOT_CPU: pin the bots to that CPU)
 * Prints one JSON line: turns, bots, wall_s, cpu_s (judge user+sys), median_us, p99_us. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

struct bot { pid_t pid; int to; int from; };

static struct bot spawn(const char *path, int cpu) {
    int in[2], out[2];
    /* close-on-exec so the second bot does not hold the first one's pipes open */
    if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC)) { perror("pipe"); exit(2); }
    pid_t pid = fork();
    if (pid < 0) { perror("fork"); exit(2); }
    if (pid == 0) {
        if (cpu >= 0) {
            cpu_set_t set;
            CPU_ZERO(&set);
            CPU_SET(cpu, &set);
            sched_setaffinity(0, sizeof set, &set);
        }
        dup2(in[0], 0); dup2(out[1], 1);
        close(in[0]); close(in[1]); close(out[0]); close(out[1]);
        execl(path, path, (char *)NULL);
        _exit(127);
    }
    close(in[0]); close(out[1]);
    struct bot b = { pid, in[1], out[0] };
    return b;
}

static void read_answer(int fd) {
    char buf[4096];
    size_t have = 0;
    for (;;) {
        ssize_t got = read(fd, buf + have, sizeof buf - have);
        if (got <= 0) { fprintf(stderr, "bot closed its stdout\n"); exit(3); }
        have += (size_t)got;
        if ((have == 2 && memcmp(buf, ".\n", 2) == 0) ||
            (have >= 3 && memcmp(buf + have - 3, "\n.\n", 3) == 0))
            return;
        if (have == sizeof buf) { fprintf(stderr, "answer too long\n"); exit(3); }
    }
}

int main(int argc, char **argv) {
    if (argc != 4 && argc != 5) { fprintf(stderr, "usage: %s BOT 1|2 TURNS [BOT_CPU]\n", argv[0]); return 2; }
    int bot_cpu = argc == 5 ? atoi(argv[4]) : -1;
    int nbots = atoi(argv[2]);
    long turns = atol(argv[3]);
    if (nbots < 1 || nbots > 2 || turns < 1) { fprintf(stderr, "bad arguments\n"); return 2; }
    signal(SIGPIPE, SIG_IGN);
    struct bot bots[2];
    for (int i = 0; i < nbots; i++) bots[i] = spawn(argv[1], bot_cpu);
    const char msg[] = "Y 1\nE 2\nL R P\n.\n";
    long warm = turns / 20;
    double *lat = malloc(sizeof(double) * (size_t)turns);
    struct rusage r0, r1;
    double t0 = 0;
    for (long t = -warm; t < turns; t++) {
        if (t == 0) { getrusage(RUSAGE_SELF, &r0); t0 = now(); }
        double s = now();
        for (int i = 0; i < nbots; i++)
            if (write(bots[i].to, msg, sizeof msg - 1) != (ssize_t)(sizeof msg - 1)) { perror("write"); return 3; }
        for (int i = 0; i < nbots; i++) read_answer(bots[i].from);
        if (t >= 0) lat[t] = now() - s;
    }
    double wall = now() - t0;
    getrusage(RUSAGE_SELF, &r1);
    double cpu = (r1.ru_utime.tv_sec - r0.ru_utime.tv_sec) + (r1.ru_utime.tv_usec - r0.ru_utime.tv_usec) / 1e6
               + (r1.ru_stime.tv_sec - r0.ru_stime.tv_sec) + (r1.ru_stime.tv_usec - r0.ru_stime.tv_usec) / 1e6;
    for (int i = 0; i < nbots; i++) { close(bots[i].to); close(bots[i].from); waitpid(bots[i].pid, NULL, 0); }
    qsort(lat, (size_t)turns, sizeof(double), cmp);
    printf("{\"turns\": %ld, \"bots\": %d, \"wall_s\": %.6f, \"cpu_s\": %.6f, \"median_us\": %.3f, \"p99_us\": %.3f}\n",
           turns, nbots, wall, cpu, lat[turns / 2] * 1e6, lat[(long)(turns * 0.99)] * 1e6);
    free(lat);
    return 0;
}
