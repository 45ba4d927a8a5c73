/* A starter counting bot: tit for tat. It counts to 100 first, then to the value the last
 * round reached. With three or more seats (an arena) it gets one O line per game and
 * answers one choice per game, in their order. */
#include <stdio.h>
#include <string.h>

int main(void) {
    static char line[4096];
    static char choices[1 << 20]; /* an arena's answer: "100,1,48", one choice per game */
    size_t used = 0;
    int single = 100; /* two seats: what the L line tells */
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (strcmp(line, ".") == 0) {
            if (used) printf("%s\n.\n", choices);
            else printf("%d\n.\n", single);
            fflush(stdout);
            used = 0;
            choices[0] = '\0';
        } else if (strncmp(line, "END", 3) == 0) {
            return 0;
        } else if (strncmp(line, "L ", 2) == 0) { /* L <value reached> <won: 1 or 0> */
            sscanf(line + 2, "%d", &single);
        } else if (strncmp(line, "O ", 2) == 0) { /* O <opponent> <run> [<value> <won>] */
            int opponent, run, value = 100;
            sscanf(line + 2, "%d %d %d", &opponent, &run, &value);
            if (used + 8 < sizeof choices)
                used += snprintf(choices + used, sizeof choices - used, "%s%d",
                                 used ? "," : "", value);
        }
        /* R <round> is not needed here. */
    }
    return 0;
}
