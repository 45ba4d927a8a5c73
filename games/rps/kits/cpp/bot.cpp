// A starter rps bot: plays what beats the enemy's last move (rock on the first turn).
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

static char beats(char move) { return move == 'R' ? 'P' : move == 'P' ? 'S' : 'R'; }

int main() {
    std::vector<std::string> message;
    while (read_message(message)) {
        char enemy_last = 0;
        for (const std::string& line : message) {
            std::istringstream fields(line);
            std::string key;
            fields >> key;
            if (key == "END") return 0;  // END <rank> <score 1> <score 2>
            if (key == "L") {            // L <my last move> <enemy's last move>
                char mine;
                fields >> mine >> enemy_last;
            }
            // Y (my id), E (enemy id) and keys added later are not needed here.
        }
        std::cout << (enemy_last ? beats(enemy_last) : 'R') << "\n.\n" << std::flush;
    }
}
