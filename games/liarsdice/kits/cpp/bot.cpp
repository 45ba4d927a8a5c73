// A starter liar's dice bot. It opens with one of its highest face; otherwise it raises
// the last bid's quantity by one while its own dice plus a sixth of the hidden dice make
// that likely, and calls liar (0) when not. A play is quantity * 10 + face: 23 is two
// threes.
#include <algorithm>
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

static std::vector<std::string> split(const std::string& text, char sep) {
    std::vector<std::string> parts;
    std::istringstream in(text);
    for (std::string part; std::getline(in, part, sep);) parts.push_back(part);
    return parts;
}

// hands: "A:xxxxx,B:55431" (my own dice as digits); history: {"A:23", "B:33"}.
static int choose(const std::string& me, const std::string& hands,
                  const std::vector<std::string>& history) {
    std::vector<std::string> seats = split(hands, ',');
    int count[7] = {0}, highest = 1, hidden = 0;
    for (const std::string& seat : seats) {
        std::size_t colon = seat.find(':');
        if (colon == std::string::npos) continue;
        std::string dice = seat.substr(colon + 1);
        if (seat.substr(0, colon) != me) {
            hidden += static_cast<int>(dice.size());
            continue;
        }
        for (char d : dice)
            if (d >= '1' && d <= '6') {
                count[d - '0']++;
                highest = std::max(highest, d - '0');
            }
    }
    if (history.empty()) return 10 + highest;  // "one of my highest face": always true
    int last = std::stoi(history.back().substr(history.back().find(':') + 1));
    int quantity = last / 10, face = last % 10;
    double likely = count[face >= 1 && face <= 6 ? face : 0] + hidden / 6.0 + 0.5;
    if (quantity + 1 <= 5 * static_cast<int>(seats.size()) && quantity + 1 <= likely)
        return (quantity + 1) * 10 + face;
    return 0;  // liar
}

int main() {
    std::string me;
    std::vector<std::string> message;
    while (read_message(message)) {
        std::string hands;
        std::vector<std::string> history;
        for (const std::string& line : message) {
            std::string key = line.substr(0, line.find(' '));
            std::string rest = line.size() > key.size() ? line.substr(key.size() + 1) : "";
            if (key == "END") return 0;
            if (key == "Y") me = rest;                     // Y <my label>
            else if (key == "H") hands = rest;             // H <hands>: my turn
            else if (key == "P") history = split(rest, ',');  // P <history>, empty at first
            // S (a showdown) and D (a seat disqualified) are news this bot does not use.
        }
        if (!hands.empty()) std::cout << choose(me, hands, history) << "\n.\n" << std::flush;
    }
}
