// A starter tron bot: of the moves that do not crash at once, it takes the one with the
// most free cells next to where it lands (N if every move crashes).
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

struct Grid {
    int width = 0, height = 0;
    std::vector<bool> walls;  // every wall and trail cell

    bool free(int x, int y) const {
        return x >= 0 && x < width && y >= 0 && y < height && !walls[y * width + x];
    }
    void block(int x, int y) {
        if (x >= 0 && x < width && y >= 0 && y < height) walls[y * width + x] = true;
    }
};

const char NAMES[] = "NESW";
const int DX[] = {0, 1, 0, -1}, DY[] = {-1, 0, 1, 0};

static char choose(const Grid& grid, int x, int y) {
    char best = 'N';
    int best_room = -1;
    for (int m = 0; m < 4; m++) {
        int nx = x + DX[m], ny = y + DY[m];
        if (!grid.free(nx, ny)) continue;
        int room = 0;
        for (int n = 0; n < 4; n++) room += grid.free(nx + DX[n], ny + DY[n]);
        if (room > best_room) best = NAMES[m], best_room = room;
    }
    return best;
}

int main() {
    Grid grid;
    std::vector<std::string> message;
    while (read_message(message)) {
        int x = 0, y = 0, row = 0;
        for (const std::string& line : message) {
            std::istringstream fields(line);
            std::string key;
            fields >> key;
            if (key == "END") return 0;
            if (key == "M") {  // M <width> <height>, first message only
                fields >> grid.width >> grid.height;
                grid.walls.assign(grid.width * grid.height, false);
            } else if (key == "R") {  // R <row>: '#' wall, '.' free, '1' and '2' the cycles
                std::string cells = line.substr(2);
                for (int i = 0; i < static_cast<int>(cells.size()); i++)
                    if (cells[i] != '.') grid.block(i, row);
                row++;
            } else if (key == "P") {  // P <my x> <my y> <other x> <other y>
                int ox, oy;
                fields >> x >> y >> ox >> oy;
                grid.block(x, y);  // both cells become trail
                grid.block(ox, oy);
            }
            // Y (my seat), T (turn) and L (last moves) are not needed here.
        }
        std::cout << choose(grid, x, y) << "\n.\n" << std::flush;
    }
}
