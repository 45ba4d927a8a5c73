/* A starter tron bot: of the moves that do not crash at once, it takes the one with the
 * most free cells next to where it lands (N if every move crashes). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int width, height, rows_read;
static char *walls; /* width * height cells: 1 for a wall or a trail */

static const char NAMES[] = "NESW";
static const int DX[] = {0, 1, 0, -1}, DY[] = {-1, 0, 1, 0};

static int is_free(int x, int y) {
    return x >= 0 && x < width && y >= 0 && y < height && !walls[y * width + x];
}

static void block(int x, int y) {
    if (x >= 0 && x < width && y >= 0 && y < height) walls[y * width + x] = 1;
}

static char choose(int x, int y) {
    char best = 'N';
    int best_room = -1;
    for (int m = 0; m < 4; m++) {
        int nx = x + DX[m], ny = y + DY[m];
        if (!is_free(nx, ny)) continue;
        int room = 0;
        for (int n = 0; n < 4; n++) room += is_free(nx + DX[n], ny + DY[n]);
        if (room > best_room) { best = NAMES[m]; best_room = room; }
    }
    return best;
}

int main(void) {
    static char line[65536];
    int x = 0, y = 0;
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (strcmp(line, ".") == 0) {
            printf("%c\n.\n", choose(x, y));
            fflush(stdout);
        } else if (strncmp(line, "END", 3) == 0) {
            return 0;
        } else if (strncmp(line, "M ", 2) == 0) { /* M <width> <height>, first message */
            sscanf(line + 2, "%d %d", &width, &height);
            free(walls);
            walls = calloc((size_t)width * height + 1, 1);
            rows_read = 0;
        } else if (strncmp(line, "R ", 2) == 0 && walls && rows_read < height) {
            /* R <row>: '#' wall, '.' free, '1' and '2' the cycles */
            for (int i = 0; i < width && line[2 + i]; i++)
                if (line[2 + i] != '.') walls[rows_read * width + i] = 1;
            rows_read++;
        } else if (strncmp(line, "P ", 2) == 0) { /* P <my x> <my y> <other x> <other y> */
            int ox, oy;
            if (sscanf(line + 2, "%d %d %d %d", &x, &y, &ox, &oy) == 4) {
                block(x, y); /* both cells become trail */
                block(ox, oy);
            }
        }
        /* Y (my seat), T (turn) and L (last moves) are not needed here. */
    }
    return 0;
}
