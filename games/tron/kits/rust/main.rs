//! A starter tron bot: of the moves that do not crash at once, it takes the one with the
//! most free cells next to where it lands (N if every move crashes).

use std::fmt::Display;
use std::io::{self, BufRead, BufWriter, Write};

/// The lines of the next message, up to its "." line; None at the end of input.
fn read_message(lines: &mut impl Iterator<Item = io::Result<String>>) -> Option<Vec<String>> {
    let mut message = Vec::new();
    for line in lines {
        let line = line.ok()?;
        let line = line.trim_end_matches('\r');
        if line == "." {
            return Some(message);
        }
        message.push(line.to_string());
    }
    None
}

/// Writes the order and the "." line, and flushes them to the judge.
fn answer(out: &mut impl Write, order: impl Display) {
    let _ = write!(out, "{order}\n.\n");
    let _ = out.flush();
}

const MOVES: [(&str, i64, i64); 4] = [("N", 0, -1), ("E", 1, 0), ("S", 0, 1), ("W", -1, 0)];

/// The map: every wall and trail cell.
struct Grid {
    width: i64,
    height: i64,
    walls: Vec<bool>,
}

impl Grid {
    fn free(&self, x: i64, y: i64) -> bool {
        x >= 0
            && x < self.width
            && y >= 0
            && y < self.height
            && !self.walls[(y * self.width + x) as usize]
    }

    fn block(&mut self, x: i64, y: i64) {
        if x >= 0 && x < self.width && y >= 0 && y < self.height {
            self.walls[(y * self.width + x) as usize] = true;
        }
    }

    fn choose(&self, x: i64, y: i64) -> &'static str {
        let mut best = ("N", -1);
        for (name, dx, dy) in MOVES {
            let (nx, ny) = (x + dx, y + dy);
            if !self.free(nx, ny) {
                continue;
            }
            let room = MOVES
                .iter()
                .filter(|(_, ex, ey)| self.free(nx + ex, ny + ey))
                .count() as i64;
            if room > best.1 {
                best = (name, room);
            }
        }
        best.0
    }
}

fn main() {
    let mut grid = Grid {
        width: 0,
        height: 0,
        walls: Vec::new(),
    };
    let stdin = io::stdin();
    let mut lines = stdin.lock().lines();
    let mut out = BufWriter::new(io::stdout());
    while let Some(message) = read_message(&mut lines) {
        if message.iter().any(|line| line.starts_with("END")) {
            break;
        }
        let (mut x, mut y, mut row) = (0, 0, 0);
        for line in &message {
            let (key, rest) = line.split_once(' ').unwrap_or((line, ""));
            let numbers: Vec<i64> = rest.split(' ').filter_map(|n| n.parse().ok()).collect();
            match key {
                // M <width> <height>, first message only
                "M" if numbers.len() == 2 => {
                    grid = Grid {
                        width: numbers[0],
                        height: numbers[1],
                        walls: vec![false; (numbers[0] * numbers[1]) as usize],
                    };
                }
                // R <row>: '#' wall, '.' free, '1' and '2' the cycles
                "R" => {
                    for (i, cell) in rest.chars().enumerate() {
                        if cell != '.' {
                            grid.block(i as i64, row);
                        }
                    }
                    row += 1;
                }
                // P <my x> <my y> <other x> <other y>
                "P" if numbers.len() == 4 => {
                    (x, y) = (numbers[0], numbers[1]);
                    grid.block(x, y); // both cells become trail
                    grid.block(numbers[2], numbers[3]);
                }
                _ => {} // Y (my seat), T (turn) and L (last moves) are not needed here.
            }
        }
        answer(&mut out, grid.choose(x, y));
    }
}
