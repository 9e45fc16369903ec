//! What the harness asks a worker: one request per line, the same words on
//! both transports (docs/differential.md, "The protocol").

use serde::Serialize;
use std::fmt::{self, Write as _};
use tpb_isa::bundle::Raw;
use tpb_isa::{Bundle, Generation};

/// The three things a worker may be asked; each is optional for the worker.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Ask {
    Decode,
    Encode,
    Validate,
}

impl Ask {
    pub const ALL: [Ask; 3] = [Ask::Decode, Ask::Encode, Ask::Validate];

    pub const fn as_str(self) -> &'static str {
        match self {
            Ask::Decode => "decode",
            Ask::Encode => "encode",
            Ask::Validate => "validate",
        }
    }
}

impl fmt::Display for Ask {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Ask {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Ask::ALL.into_iter().find(|a| a.as_str() == s).ok_or_else(|| format!("unknown request kind `{s}` (expected decode, encode or validate)"))
    }
}

/// One request: a kind, the generation the bundle is judged under, the bundle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    pub ask: Ask,
    pub generation: Generation,
    pub raw: Raw,
}

impl Request {
    pub fn new(ask: Ask, generation: Generation, raw: Raw) -> Request {
        Request { ask, generation, raw }
    }

    /// The request's line, without the newline: `decode v2 HEX128`,
    /// `validate v2 HEX128`, or `encode v2 opcode=0xNN field=value …` with
    /// every field of the bundle as `tpb disasm` prints it.
    pub fn line(&self) -> String {
        let mut s = String::with_capacity(160);
        s.push_str(self.ask.as_str());
        s.push(' ');
        s.push_str(self.generation.as_str());
        s.push(' ');
        match self.ask {
            Ask::Decode | Ask::Validate => push_hex(&mut s, &self.raw),
            Ask::Encode => s.push_str(&encode_fields(&self.raw)),
        }
        s
    }
}

/// The fields an encode request carries: the disassembly with its mnemonic
/// (`0x46:TensorCopy`) written as the `opcode=0x46` field.
pub fn encode_fields(raw: &Raw) -> String {
    let text = tpb_isa::text::disasm(&Bundle::decode(raw));
    match text.split_once(' ') {
        Some((_, rest)) => format!("opcode={:#04x} {rest}", raw[0]),
        None => format!("opcode={:#04x}", raw[0]),
    }
}

/// 64 bytes as 128 lowercase hex digits.
pub fn push_hex(s: &mut String, bytes: &[u8]) {
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
}

/// 64 bytes as 128 lowercase hex digits.
pub fn hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(2 * bytes.len());
    push_hex(&mut s, bytes);
    s
}

/// Why a request line does not read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RequestError {
    #[error("expected 128 hex digits, got {0} characters")]
    HexLength(usize),
    #[error("`{0}` at digit {1} is not hex")]
    NotHex(String, usize),
    #[error("{0}")]
    Kind(String),
    #[error("{0}")]
    Generation(tpb_isa::generation::GenerationError),
    #[error("no {0}")]
    Missing(&'static str),
}

/// 128 hex digits (either case, nothing else) as a bundle.
pub fn parse_hex(text: &str) -> Result<Raw, RequestError> {
    let t = text.trim();
    if t.len() != 128 {
        return Err(RequestError::HexLength(t.chars().count()));
    }
    let mut raw = [0u8; 64];
    for (i, b) in raw.iter_mut().enumerate() {
        let not_hex = || RequestError::NotHex(t.get(2 * i..).unwrap_or("").chars().take(2).collect::<String>().escape_default().to_string(), 2 * i);
        let pair = t.get(2 * i..2 * i + 2).ok_or_else(not_hex)?;
        *b = u8::from_str_radix(pair, 16).map_err(|_| not_hex())?;
    }
    Ok(raw)
}

/// A request line as a worker reads it (the inverse of [`Request::line`] for
/// decode and validate; an encode request's fields are assembled by the
/// description). The worker host (`tpb differ --serve-lib`) and the tests use it.
pub fn parse_line(line: &str) -> Result<(Ask, Generation, String), RequestError> {
    let mut parts = line.trim_end_matches(['\r', '\n']).splitn(3, ' ');
    let ask: Ask = parts.next().unwrap_or("").parse().map_err(RequestError::Kind)?;
    let generation: Generation = parts.next().ok_or(RequestError::Missing("generation"))?.parse().map_err(RequestError::Generation)?;
    let rest = parts.next().ok_or(RequestError::Missing("bundle"))?.to_string();
    Ok((ask, generation, rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_carry_the_kind_generation_and_bundle() {
        let mut raw = [0u8; 64];
        raw[0] = 0x46;
        raw[1] = 0x10;
        raw[63] = 0xAB;
        let r = Request::new(Ask::Decode, Generation::V3, raw);
        let line = r.line();
        assert!(line.starts_with("decode v3 4610"), "{line}");
        assert!(line.ends_with("ab") && line.len() == "decode v3 ".len() + 128, "{line}");
        let (ask, g, rest) = parse_line(&line).unwrap();
        assert_eq!((ask, g, parse_hex(&rest).unwrap()), (Ask::Decode, Generation::V3, raw));
        let enc = Request::new(Ask::Encode, Generation::V2, raw).line();
        assert!(enc.starts_with("encode v2 opcode=0x46 inst_word_len=0x10 "), "{enc}");
        assert_eq!(tpb_isa::text::asm_line(&format!("0x46:TensorCopy {}", &enc["encode v2 opcode=0x46 ".len()..])).unwrap(), Some(raw));
    }

    #[test]
    fn bad_hex_is_refused_with_its_place() {
        assert_eq!(parse_hex("00"), Err(RequestError::HexLength(2)));
        let mut t = "0".repeat(128);
        t.replace_range(10..12, "zz");
        assert_eq!(parse_hex(&t).unwrap_err().to_string(), "`zz` at digit 10 is not hex");
        // A multi-byte character where a digit should be: refused, not sliced through.
        let wide = format!("{}é{}", "0".repeat(63), "0".repeat(63));
        assert!(parse_hex(&wide).is_err());
        assert!(parse_line("frob v2 00").unwrap_err().to_string().contains("unknown request kind"));
        assert!(parse_line("decode v9 00").unwrap_err().to_string().contains("unknown generation"));
        assert_eq!(parse_line("decode v2"), Err(RequestError::Missing("bundle")));
        assert_eq!(Ask::ALL.map(|a| a.to_string()), ["decode", "encode", "validate"]);
    }
}
