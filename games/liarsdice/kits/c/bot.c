/* A starter liar's dice bot. It opens with one of its highest face; otherwise it raises
 * the last bid's quantity by one while its own dice plus a sixth of the hidden dice make
 * that likely, and calls liar (0) when not. A play is quantity * 10 + face: 23 is two
 * threes. */
#include <stdio.h>
#include <string.h>

static char me[16];
static char hands[8192];
static char history[8192];

static int choose(void) {
    int mine[7] = {0}, highest = 1, hidden = 0, seats = 0;
    size_t len = strlen(me);
    /* hands: "A:xxxxx,B:55431" (my own dice as digits, the others' as x) */
    for (char *seat = strtok(hands, ","); seat; seat = strtok(NULL, ",")) {
        char *dice = strchr(seat, ':');
        if (!dice) continue;
        seats++;
        int own = (size_t)(dice - seat) == len && strncmp(seat, me, len) == 0;
        for (char *d = dice + 1; *d; d++) {
            if (!own) hidden++;
            else if (*d >= '1' && *d <= '6') {
                mine[*d - '0']++;
                if (*d - '0' > highest) highest = *d - '0';
            }
        }
    }
    char *last = strrchr(history, ':'); /* history: "A:23,B:33", empty before any bid */
    if (!last) return 10 + highest; /* "one of my highest face": always true */
    int bid = 0;
    sscanf(last + 1, "%d", &bid);
    int quantity = bid / 10, face = bid % 10;
    double likely = mine[face >= 1 && face <= 6 ? face : 0] + hidden / 6.0 + 0.5;
    if (quantity + 1 <= 5 * seats && quantity + 1 <= likely)
        return (quantity + 1) * 10 + face;
    return 0; /* liar */
}

int main(void) {
    static char line[8192];
    int my_turn = 0;
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (strcmp(line, ".") == 0) {
            if (my_turn) {
                printf("%d\n.\n", choose());
                fflush(stdout);
            }
            my_turn = 0;
            history[0] = '\0';
        } else if (strncmp(line, "END", 3) == 0) {
            return 0;
        } else if (strncmp(line, "Y ", 2) == 0) { /* Y <my label> */
            snprintf(me, sizeof me, "%.15s", line + 2);
        } else if (strncmp(line, "H ", 2) == 0) { /* H <hands>: my turn */
            snprintf(hands, sizeof hands, "%s", line + 2);
            my_turn = 1;
        } else if (line[0] == 'P' && (line[1] == ' ' || line[1] == '\0')) {
            snprintf(history, sizeof history, "%s", line[1] ? line + 2 : ""); /* P <history> */
        }
        /* S (a showdown) and D (a seat disqualified) are news this bot does not use. */
    }
    return 0;
}
