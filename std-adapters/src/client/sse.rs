//! Server-sent events, read incrementally: the `data` of each event, as the bytes arrive.

/// Splits a `text/event-stream` body into the data of its events.
#[derive(Debug, Default)]
pub(crate) struct EventStream {
    pending: Vec<u8>,
    data: Vec<u8>,
    has_data: bool,
    /// The previous chunk ended in `\r`, so a `\n` that starts the next one ends no line.
    after_cr: bool,
}

impl EventStream {
    /// Feeds `chunk` and returns the data of every event it completes.
    pub(crate) fn feed(&mut self, chunk: &[u8]) -> Vec<Vec<u8>> {
        let mut events = Vec::new();
        for &b in chunk {
            if std::mem::take(&mut self.after_cr) && b == b'\n' {
                continue;
            }
            match b {
                b'\n' | b'\r' => {
                    self.after_cr = b == b'\r';
                    let line = std::mem::take(&mut self.pending);
                    if let Some(event) = self.line(&line) {
                        events.push(event);
                    }
                }
                _ => self.pending.push(b),
            }
        }
        events
    }

    /// Bytes held for the event being read (its data and the line not yet ended).
    pub(crate) fn buffered(&self) -> usize {
        self.pending.len() + self.data.len()
    }

    /// At the end of the body: the data of an event left without its blank line, if any.
    pub(crate) fn finish(&mut self) -> Option<Vec<u8>> {
        let line = std::mem::take(&mut self.pending);
        if !line.is_empty() {
            if let Some(event) = self.line(&line) {
                return Some(event);
            }
        }
        self.line(b"")
    }

    fn line(&mut self, line: &[u8]) -> Option<Vec<u8>> {
        if line.is_empty() {
            if !std::mem::take(&mut self.has_data) {
                return None;
            }
            return Some(std::mem::take(&mut self.data));
        }
        if line.first() == Some(&b':') {
            return None; // a comment (keep-alive)
        }
        let (field, value) = match line.iter().position(|&b| b == b':') {
            Some(i) => {
                let value = &line[i + 1..];
                (&line[..i], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &b""[..]),
        };
        if field == b"data" {
            if self.has_data {
                self.data.push(b'\n');
            }
            self.data.extend_from_slice(value);
            self.has_data = true;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::EventStream;

    fn all(chunks: &[&[u8]]) -> Vec<String> {
        let mut stream = EventStream::default();
        let mut out: Vec<String> = chunks
            .iter()
            .flat_map(|c| stream.feed(c))
            .map(|e| String::from_utf8(e).unwrap())
            .collect();
        out.extend(stream.finish().map(|e| String::from_utf8(e).unwrap()));
        out
    }

    #[test]
    fn events_of_every_line_ending_and_chunking() {
        assert_eq!(
            all(&[b"event: message\ndata: {\"a\":1}\n\n: keep-alive\n\ndata: {\"b\":2}\n\n"]),
            ["{\"a\":1}", "{\"b\":2}"]
        );
        assert_eq!(
            all(&[b"data:x\r\n", b"\r", b"\ndata: y\r\rid: 3\ndata:z"]),
            ["x", "y", "z"]
        );
        assert_eq!(all(&[b"data: a\ndata: b\n\n"]), ["a\nb"]);
        assert_eq!(
            all(&[b"event: message\n\nretry: 5\n\n"]),
            Vec::<String>::new()
        );
        let bytes = b"data: {\"id\":1}\n\n";
        let chunks: Vec<&[u8]> = bytes.chunks(1).collect();
        assert_eq!(all(&chunks), ["{\"id\":1}"]);
    }
}
