import java.io.*;
import java.util.*;

/**
 * A starter roshambolo bot: counts the shapes in every round it observes and plays the shape
 * that beats the most common one. Shapes: 1 rock, 2 paper, 3 scissors.
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
        long[] seen = new long[4];
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        PrintWriter out = new PrintWriter(new BufferedWriter(new OutputStreamWriter(System.out)));
        for (List<String> message = readMessage(in); message != null && !isEnd(message);
                message = readMessage(in)) {
            boolean playNow = false;
            for (String line : message) {
                String[] fields = line.split(" ");
                if (fields[0].equals("O") && fields.length >= 6) {
                    // O <game> <a id> <b id> <a play> <b play> <result>
                    for (String shape : new String[] {fields[4], fields[5]}) {
                        if (shape.matches("[123]")) seen[Integer.parseInt(shape)]++;
                    }
                } else if (fields[0].equals("P")) { // P <game> <my id> <opponent id>: play now
                    playNow = true;
                }
            }
            if (!playNow) continue;
            int most = 1;
            for (int shape = 2; shape <= 3; shape++) if (seen[shape] > seen[most]) most = shape;
            answer(out, most % 3 + 1); // what beats it: 1 -> 2 -> 3 -> 1
        }
    }
}
