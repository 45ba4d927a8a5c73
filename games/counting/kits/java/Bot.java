import java.io.*;
import java.util.*;

/**
 * A starter counting bot: tit for tat. It counts to 100 first, then to the value the last
 * round reached. With three or more seats (an arena) it gets one O line per game and answers
 * one choice per game, in their order.
 */
public class Bot {
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
            String single = "100"; // two seats: the value the L line tells
            List<String> arena = new ArrayList<>(); // an arena: one choice per O line
            for (String line : message) {
                String[] fields = line.split(" ");
                if (fields[0].equals("L") && fields.length >= 2) {
                    single = fields[1]; // L <value reached> <won: 1 or 0>
                } else if (fields[0].equals("O")) { // O <opponent> <run> [<value> <won>]
                    arena.add(fields.length >= 4 ? fields[3] : "100");
                }
                // R <round> is not needed here.
            }
            answer(out, arena.isEmpty() ? single : String.join(",", arena));
        }
    }
}
