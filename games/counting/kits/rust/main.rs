//! A starter counting bot: tit for tat. It counts to 100 first, then to the value the last
//! round reached. With three or more seats (an arena) it gets one O line per game and
//! answers one choice per game, in their order.

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

fn main() {
    let stdin = io::stdin();
    let mut lines = stdin.lock().lines();
    let mut out = BufWriter::new(io::stdout());
    while let Some(message) = read_message(&mut lines) {
        if message.iter().any(|line| line.starts_with("END")) {
            break;
        }
        let mut single = "100".to_string(); // two seats: the value the L line tells
        let mut arena: Vec<String> = Vec::new(); // an arena: one choice per O line
        for line in &message {
            let fields: Vec<&str> = line.split(' ').collect();
            match fields[0] {
                "L" if fields.len() >= 2 => single = fields[1].to_string(), // L <value> <won>
                // O <opponent seat> <run> [<value reached> <won>]
                "O" => arena.push(fields.get(3).unwrap_or(&"100").to_string()),
                _ => {} // R <round> is not needed here.
            }
        }
        if arena.is_empty() {
            answer(&mut out, single);
        } else {
            answer(&mut out, arena.join(","));
        }
    }
}
