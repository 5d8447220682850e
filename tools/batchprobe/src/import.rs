// SPDX-License-Identifier: GPL-2.0

//! Probe lines in the `kprobe_events` language, as this command needs to
//! know them: which set (the event group) a line makes its probe in, and
//! a `kprobe_events` or `dynamic_events` file turned into one batch. The
//! module parses and judges every line itself; this only reads a line's
//! first word.

/// What a probe line's first word says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Head {
    /// `p`, `r` (with any MAXACTIVE and `!`), `d` or `f`: the kind letter.
    pub kind: char,
    /// The set: the line's group, else `kprobes` (`fprobes` for `f:`), as
    /// tracefs names the group of a line that names none.
    pub set: String,
    /// The event name the line gives (empty: none).
    pub event: String,
}

/// A line that cannot be taken, with its 1-based number and the word.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineError {
    pub line: usize,
    pub word: String,
    pub why: String,
}

impl std::fmt::Display for LineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: `{}`: {}", self.line, self.word, self.why)
    }
}

/// Reads a probe line's first word (`None`: a blank or comment line).
pub fn head(line: &str) -> Result<Option<Head>, String> {
    let Some(first) = line.split_whitespace().next() else {
        return Ok(None);
    };
    if first.starts_with('#') {
        return Ok(None);
    }
    let (kind_word, name) = first.split_once(':').unwrap_or((first, ""));
    let kind = kind_word.chars().next().unwrap_or(' ');
    let rest = kind_word.get(1..).unwrap_or("").trim_end_matches('!');
    let kind_ok = match kind {
        'p' | 'd' | 'f' => rest.is_empty(),
        'r' => rest.bytes().all(|b| b.is_ascii_digit()),
        _ => false,
    };
    if !kind_ok {
        return Err(match kind {
            '-' => "a removal: it removes what the lines make; remove a set with `batchprobe rm SET`".into(),
            't' => "a tracepoint probe (t:): batchprobe probes functions, not tracepoints".into(),
            'e' => "an event probe (e:): batchprobe probes functions, not events".into(),
            _ => "not a probe line: it starts with p:, r:, d: or f: (kprobe_events' and batchprobe's kinds)".into(),
        });
    }
    let default = if kind == 'f' { "fprobes" } else { "kprobes" };
    let (set, event) = match name.find(['/', '.']) {
        Some(i) => (&name[..i], &name[i + 1..]),
        None => (default, name),
    };
    Ok(Some(Head {
        kind,
        set: set.into(),
        event: event.into(),
    }))
}

/// The sets `lines` make probes in, in the order of their first line.
pub fn sets_of<'a>(
    lines: impl IntoIterator<Item = &'a str>,
) -> Result<Vec<(String, bool)>, LineError> {
    let mut sets: Vec<(String, bool)> = Vec::new();
    for (i, line) in lines.into_iter().enumerate() {
        let h = head(line).map_err(|why| LineError {
            line: i + 1,
            word: line.split_whitespace().next().unwrap_or("").into(),
            why,
        })?;
        let Some(h) = h else { continue };
        match sets.iter_mut().find(|(s, _)| *s == h.set) {
            Some((_, direct)) => *direct |= h.kind == 'd',
            None => sets.push((h.set, h.kind == 'd')),
        }
    }
    Ok(sets)
}

/// An fprobe event's line (`f:[GROUP/]EVENT SYM[%return] ARGS`) as the
/// `p:` or `r:` line an fprobe serves, named as the kernel names it.
fn fprobe_line(h: &Head, target: &str, args: &[&str]) -> String {
    let (sym, ret) = match target.strip_suffix("%return") {
        Some(s) => (s, true),
        None => (target, false),
    };
    let plain = sym.rsplit(':').next().unwrap_or(sym);
    let event = match (h.event.is_empty(), ret) {
        (false, _) => h.event.clone(),
        (true, false) => format!("{plain}__entry"),
        (true, true) => format!("{plain}__exit"),
    };
    let kind = if ret { 'r' } else { 'p' };
    let mut l = format!("{kind}:{}/{event} {sym}", h.set);
    for a in args {
        l.push(' ');
        l.push_str(a);
    }
    l
}

/// One probe line as batchprobe takes it: `p:`, `r:` and `d:` lines as
/// they are, an `f:` line as the `p:` (entry) or `r:` (`SYM%return`) line
/// an fprobe serves, with the event the kernel would give it
/// (`SYM__entry`, `SYM__exit`); `None` for a blank or comment line. The
/// error names the word at fault: a removal, a tracepoint or event probe,
/// a uprobe, a line with no function.
pub fn batch_line(line: &str) -> Result<Option<String>, (String, String)> {
    let first = line.split_whitespace().next().unwrap_or("");
    let Some(h) = head(line).map_err(|why| (first.to_string(), why))? else {
        return Ok(None);
    };
    let mut words = line.split_whitespace().skip(1);
    let target = words
        .next()
        .ok_or_else(|| (first.to_string(), "no function after it".to_string()))?;
    if target.contains('/') {
        return Err((
            target.to_string(),
            "a uprobe (a file's offset): batchprobe probes the kernel's functions".into(),
        ));
    }
    if h.kind != 'f' {
        return Ok(Some(line.trim().to_string()));
    }
    let args: Vec<&str> = words.collect();
    Ok(Some(fprobe_line(&h, target, &args)))
}

/// A `kprobe_events` or `dynamic_events` file as one batch: each line as
/// [`batch_line`] takes it, then each set created and enabled. Comments
/// and blank lines are left out; a line that cannot be taken is refused,
/// naming its number.
pub fn to_batch(text: &str) -> Result<String, LineError> {
    let mut out = String::new();
    let mut lines = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let converted = batch_line(line).map_err(|(word, why)| LineError {
            line: i + 1,
            word,
            why,
        })?;
        if let Some(l) = converted {
            out.push_str(&l);
            out.push('\n');
            lines.push(l);
        }
    }
    let sets = sets_of(lines.iter().map(String::as_str))?;
    if sets.is_empty() {
        return Err(LineError {
            line: 0,
            word: String::new(),
            why: "no probe line in the file".into(),
        });
    }
    for (set, _) in sets {
        out.push_str(&format!("create {set}\nenable {set}\n"));
    }
    Ok(out)
}
