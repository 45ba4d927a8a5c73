// A starter roshambolo bot: counts the shapes in every round it observes and plays the
// shape that beats the most common one. Shapes: 1 rock, 2 paper, 3 scissors.
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
    std::ios::sync_with_stdio(false);
    long seen[4] = {0, 0, 0, 0};
    std::vector<std::string> message;
    while (read_message(message)) {
        bool play_now = false;
        for (const std::string& line : message) {
            std::istringstream fields(line);
            std::string key;
            fields >> key;
            if (key == "END") return 0;  // END <my rank> <games won by seat 1> ...
            if (key == "O") {            // O <game> <a id> <b id> <a play> <b play> <result>
                long game, a, b;
                int a_play = 0, b_play = 0;
                fields >> game >> a >> b >> a_play >> b_play;
                for (int shape : {a_play, b_play})
                    if (shape >= 1 && shape <= 3) seen[shape]++;
            } else if (key == "P") {  // P <game> <my id> <opponent id>: play now
                play_now = true;
            }
        }
        if (!play_now) continue;
        int most = 1;
        for (int shape = 2; shape <= 3; shape++)
            if (seen[shape] > seen[most]) most = shape;
        std::cout << most % 3 + 1 << "\n.\n" << std::flush;  // what beats it: 1 -> 2 -> 3 -> 1
    }
}
