/* A starter rps bot: plays what beats the enemy's last move (rock on the first turn).
 * It reads each message line by line up to the "." line, then answers. */
#include <stdio.h>
#include <string.h>

static char beats(char move) {
    return move == 'R' ? 'P' : move == 'P' ? 'S' : 'R';
}

int main(void) {
    char line[4096];
    char enemy_last = 0;
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (strcmp(line, ".") == 0) { /* the message is complete: answer it */
            printf("%c\n.\n", enemy_last ? beats(enemy_last) : 'R');
            fflush(stdout);
        } else if (strncmp(line, "END", 3) == 0) { /* END <rank> <score 1> <score 2> */
            return 0;
        } else if (strncmp(line, "L ", 2) == 0) { /* L <my last move> <enemy's last move> */
            char mine, theirs;
            if (sscanf(line + 2, " %c %c", &mine, &theirs) == 2)
                enemy_last = theirs;
        }
        /* Y (my id), E (enemy id) and keys added later are not needed here. */
    }
    return 0;
}
