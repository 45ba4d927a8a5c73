/* A bot that answers "R" at once, except on turns FROM..FROM+COUNT-1 where it first
 * sleeps DELAY_MS (measured from when the message arrived). Usage: slow_bot DELAY_MS FROM COUNT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int main(int argc, char **argv) {
    long delay_ms = argc > 1 ? atol(argv[1]) : 0;
    long from = argc > 2 ? atol(argv[2]) : 2;
    long count = argc > 3 ? atol(argv[3]) : 1;
    char line[512];
    long turn = 0;
    while (fgets(line, sizeof line, stdin)) {
        if (strncmp(line, "END", 3) == 0)
            break;
        if (line[0] == '.' && (line[1] == '\n' || line[1] == '\0')) {
            turn++;
            if (turn >= from && turn < from + count && delay_ms > 0) {
                struct timespec ts = { delay_ms / 1000, (delay_ms % 1000) * 1000000L };
                nanosleep(&ts, NULL);
            }
            fputs("R\n.\n", stdout);
            fflush(stdout);
        }
    }
    return 0;
}
