/* The smallest protocol bot: answers "R\n.\n" to every message (a line that is ".").
 * Raw read/write on the pipe fds, no stdio buffering, so it costs the judge nothing extra. */
#include <string.h>
#include <unistd.h>

int main(void) {
    char buf[65536];
    size_t have = 0;
    for (;;) {
        ssize_t got = read(0, buf + have, sizeof buf - have);
        if (got <= 0)
            return 0;
        have += (size_t)got;
        /* every complete message ends with "\n.\n" (or is just ".\n") */
        size_t start = 0;
        for (size_t i = 0; i + 1 < have; i++) {
            if (buf[i] == '.' && buf[i + 1] == '\n' && (i == start || buf[i - 1] == '\n')) {
                if (write(1, "R\n.\n", 4) != 4)
                    return 1;
                start = i + 2;
                i++;
            }
        }
        memmove(buf, buf + start, have - start);
        have -= start;
        if (have == sizeof buf)
            have = 0; /* a runaway message: drop it */
    }
}
