//! A starter rps bot: plays what beats the enemy's last move (rock on the first turn).

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

fn beats(mov: &str) -> &'static str {
    match mov {
        "R" => "P",
        "P" => "S",
        _ => "R",
    }
}

fn main() {
    let stdin = io::stdin();
    let mut lines = stdin.lock().lines();
    let mut out = BufWriter::new(io::stdout());
    while let Some(message) = read_message(&mut lines) {
        if message.iter().any(|line| line.starts_with("END")) {
            break;
        }
        let mut mov = "R";
        for line in &message {
            let fields: Vec<&str> = line.split(' ').collect();
            // L <my last move> <enemy's last move>
            if fields.len() == 3 && fields[0] == "L" {
                mov = beats(fields[2]);
            }
            // Y (my id), E (enemy id) and keys added later are not needed here.
        }
        answer(&mut out, mov);
    }
}
