// A starter counting bot: tit for tat. It counts to 100 first, then to the value the last
// round reached. With three or more seats (an arena) it gets one O line per game and
// answers one choice per game, in their order.
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

// One message from the judge: its lines up to the "." line. False at the end of input.
static bool read_message(std::vector<std::string>& lines) {
    lines.clear();
    for (std::string line; std::getline(std::cin, line);) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line == ".") return true;
        lines.push_back(line);
    }
    return false;
}

int main() {
    std::vector<std::string> message;
    while (read_message(message)) {
        int single = 100;         // two seats: the value the L line tells
        std::string arena;        // an arena: one choice per O line, "100,1,48"
        for (const std::string& line : message) {
            std::istringstream fields(line);
            std::string key;
            fields >> key;
            if (key == "END") return 0;
            if (key == "L") {  // L <value reached> <won: 1 or 0>
                fields >> single;
            } else if (key == "O") {  // O <opponent seat> <run> [<value reached> <won>]
                int opponent, run, value = 100;
                fields >> opponent >> run >> value;
                arena += (arena.empty() ? "" : ",") + std::to_string(value);
            }
            // R <round> is not needed here.
        }
        std::cout << (arena.empty() ? std::to_string(single) : arena) << "\n.\n" << std::flush;
    }
}
