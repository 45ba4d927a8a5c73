import java.io.*;
import java.util.*;

/**
 * A starter tron bot: of the moves that do not crash at once, it takes the one with the most
 * free cells next to where it lands (N if every move crashes).
 */
public class Bot {
    static final String[] MOVES = {"N", "E", "S", "W"};
    static final int[] DX = {0, 1, 0, -1}, DY = {-1, 0, 1, 0};
    static int width, height;
    static boolean[][] walls = new boolean[0][0]; // [y][x]: every wall and trail cell

    static boolean free(int x, int y) {
        return x >= 0 && x < width && y >= 0 && y < height && !walls[y][x];
    }

    static void block(int x, int y) {
        if (x >= 0 && x < width && y >= 0 && y < height) walls[y][x] = true;
    }

    static String choose(int x, int y) {
        String best = "N";
        int bestRoom = -1;
        for (int m = 0; m < 4; m++) {
            int nx = x + DX[m], ny = y + DY[m];
            if (!free(nx, ny)) continue;
            int room = 0;
            for (int n = 0; n < 4; n++) if (free(nx + DX[n], ny + DY[n])) room++;
            if (room > bestRoom) {
                best = MOVES[m];
                bestRoom = room;
            }
        }
        return best;
    }

    /** The lines of the next message, up to its "." line; null at the end of input. */
    static List<String> readMessage(BufferedReader in) throws IOException {
        List<String> lines = new ArrayList<>();
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            if (line.equals(".")) return lines;
            lines.add(line);
        }
        return null;
    }

    /** Writes the orders and the "." line, and flushes them to the judge. */
    static void answer(PrintWriter out, Object... orders) {
        for (Object order : orders) out.println(order);
        out.println(".");
        out.flush();
    }

    static boolean isEnd(List<String> message) {
        return message.stream().anyMatch(line -> line.startsWith("END"));
    }

    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        PrintWriter out = new PrintWriter(new BufferedWriter(new OutputStreamWriter(System.out)));
        for (List<String> message = readMessage(in); message != null && !isEnd(message);
                message = readMessage(in)) {
            int x = 0, y = 0, row = 0;
            for (String line : message) {
                String[] fields = line.split(" ");
                switch (fields[0]) {
                    case "M" -> { // M <width> <height>, first message only
                        width = Integer.parseInt(fields[1]);
                        height = Integer.parseInt(fields[2]);
                        walls = new boolean[height][width];
                    }
                    case "R" -> { // R <row>: '#' wall, '.' free, '1' and '2' the cycles
                        String cells = line.substring(2);
                        for (int i = 0; i < cells.length(); i++) {
                            if (cells.charAt(i) != '.') block(i, row);
                        }
                        row++;
                    }
                    case "P" -> { // P <my x> <my y> <other x> <other y>
                        x = Integer.parseInt(fields[1]);
                        y = Integer.parseInt(fields[2]);
                        block(x, y); // both cells become trail
                        block(Integer.parseInt(fields[3]), Integer.parseInt(fields[4]));
                    }
                    default -> { } // Y (my seat), T (turn), L (last moves): not needed here
                }
            }
            answer(out, choose(x, y));
        }
    }
}
