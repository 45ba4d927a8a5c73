//! A starter liar's dice bot. It opens with one of its highest face; otherwise it raises
//! the last bid's quantity by one while its own dice plus a sixth of the hidden dice make
//! that likely, and calls liar (0) when not. A play is quantity * 10 + face: 23 is two
//! threes.

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

/// The play for hands "A:xxxxx,B:55431" (my own dice as digits) and history "A:23,B:33".
fn choose(me: &str, hands: &str, history: &str) -> u32 {
    let seats: Vec<&str> = hands.split(',').collect();
    let mut count = [0u32; 10];
    let mut hidden = 0;
    for seat in &seats {
        let (label, dice) = seat.split_once(':').unwrap_or((seat, ""));
        if label != me {
            hidden += dice.len();
            continue;
        }
        for die in dice.chars().filter_map(|d| d.to_digit(10)) {
            count[die as usize] += 1;
        }
    }
    let last = match history.rsplit(',').next().filter(|play| !play.is_empty()) {
        Some(last) => last,
        None => {
            let highest = (1..=6).rev().find(|&face| count[face] > 0).unwrap_or(1);
            return 10 + highest as u32; // "one of my highest face": always true
        }
    };
    let last: u32 = last
        .split_once(':')
        .and_then(|(_, play)| play.parse().ok())
        .unwrap_or(0);
    let (quantity, face) = (last / 10, last % 10);
    let likely = count[face as usize] as f64 + hidden as f64 / 6.0 + 0.5;
    if quantity + 1 <= 5 * seats.len() as u32 && (quantity + 1) as f64 <= likely {
        (quantity + 1) * 10 + face
    } else {
        0 // liar
    }
}

fn main() {
    let mut me = String::new();
    let stdin = io::stdin();
    let mut lines = stdin.lock().lines();
    let mut out = BufWriter::new(io::stdout());
    while let Some(message) = read_message(&mut lines) {
        if message.iter().any(|line| line.starts_with("END")) {
            break;
        }
        let mut hands = None;
        let mut history = String::new();
        for line in &message {
            let (key, rest) = line.split_once(' ').unwrap_or((line, ""));
            match key {
                "Y" => me = rest.to_string(),          // Y <my label>
                "H" => hands = Some(rest.to_string()), // H <hands>: my turn
                "P" => history = rest.to_string(),     // P <history>, "P" alone before any bid
                _ => {} // S (a showdown), D (a seat disqualified): not used here
            }
        }
        if let Some(hands) = hands {
            answer(&mut out, choose(&me, &hands, &history));
        }
    }
}
