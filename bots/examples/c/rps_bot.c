/* An rps bot in C: reads each turn's message up to the "." line and
 * answers with what beats the enemy's last move (rock on the first turn). */
#include <stdio.h>
#include <string.h>

static char beats(char move) {
    switch (move) {
    case 'R': return 'P';
    case 'P': return 'S';
    default: return 'R';
    }
}

int main(void) {
    char line[512];
    char enemy_last = 0;
    setvbuf(stdout, NULL, _IOFBF, 4096);
    while (fgets(line, sizeof line, stdin)) {
        if (strncmp(line, "END", 3) == 0)
            break;
        if (line[0] == 'L' && line[1] == ' ' && line[2] && line[3] == ' ')
            enemy_last = line[4];
        if (line[0] == '.' && (line[1] == '\n' || line[1] == '\0')) {
            printf("%c\n.\n", enemy_last ? beats(enemy_last) : 'R');
            fflush(stdout);
        }
    }
    return 0;
}
