//! A starter roshambolo bot: counts the shapes in every round it observes and plays the
//! shape that beats the most common one. Shapes: 1 rock, 2 paper, 3 scissors.

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
    let mut seen = [0u64; 4];
    let stdin = io::stdin();
    let mut lines = stdin.lock().lines();
    let mut out = BufWriter::new(io::stdout());
    while let Some(message) = read_message(&mut lines) {
        if message.iter().any(|line| line.starts_with("END")) {
            break;
        }
        let mut play_now = false;
        for line in &message {
            let fields: Vec<&str> = line.split(' ').collect();
            match fields[0] {
                // O <game> <a id> <b id> <a play> <b play> <result>
                "O" if fields.len() >= 6 => {
                    for shape in &fields[4..6] {
                        if let Ok(shape @ 1..=3) = shape.parse::<usize>() {
                            seen[shape] += 1;
                        }
                    }
                }
                "P" => play_now = true, // P <game> <my id> <opponent id>: play now
                _ => {}
            }
        }
        if play_now {
            let most = (1..=3).rev().max_by_key(|&shape| seen[shape]).unwrap_or(1);
            answer(&mut out, most % 3 + 1); // what beats it: 1 -> 2 -> 3 -> 1
        }
    }
}
