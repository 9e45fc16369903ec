//! A worker library served over the line protocol: `tpb differ --serve-lib`,
//! the child process the shared-library transport runs it in, so a crash in
//! the library ends that child and not the run.

use super::Library;
use crate::request::{parse_hex, parse_line, Ask};
use std::io::{BufRead, BufReader, Read, Write};

/// Answers request lines from `input` on `output` until the input ends.
/// Requests are read and answered in batches: whatever the harness has
/// already written is answered before the output is flushed.
pub fn serve(lib: &Library, input: &mut BufReader<impl Read>, mut output: impl Write) -> std::io::Result<()> {
    let mut line = String::new();
    loop {
        line.clear();
        if input.read_line(&mut line)? == 0 {
            return output.flush();
        }
        let answer = match parse_line(&line) {
            Err(why) => format!("error {why}"),
            Ok((ask, g, rest)) => match ask {
                Ask::Decode | Ask::Validate => match parse_hex(&rest) {
                    Ok(raw) => lib.call(ask, g, &raw, &rest),
                    Err(why) => format!("error {why}"),
                },
                Ask::Encode => lib.call(ask, g, &[0; 64], rest.trim_end()),
            },
        };
        output.write_all(answer.as_bytes())?;
        output.write_all(b"\n")?;
        if input.buffer().is_empty() {
            output.flush()?;
        }
    }
}
