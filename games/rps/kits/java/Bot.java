import java.io.*;
import java.util.*;

/** A starter rps bot: plays what beats the enemy's last move (rock on the first turn). */
public class Bot {
    static final Map<String, String> BEATS = Map.of("R", "P", "P", "S", "S", "R");

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
            String move = "R";
            for (String line : message) {
                String[] fields = line.split(" ");
                // L <my last move> <enemy's last move>
                if (fields[0].equals("L") && fields.length == 3) {
                    move = BEATS.getOrDefault(fields[2], "R");
                }
                // Y (my id), E (enemy id) and keys added later are not needed here.
            }
            answer(out, move);
        }
    }
}
