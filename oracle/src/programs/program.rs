//! A program read whole: a parsed container (its own engine streams, typed)
//! or a raw bundle file's bytes, and the one view of their streams that the
//! commands walk.

use crate::neff::{choice, Choice, Engine, Neff};
use crate::text_safe::escape;
use std::path::{Path, PathBuf};
use tpb_isa::Generation;

/// The streams of one file, read whole.
pub struct Program {
    /// The path it was read from, as given.
    pub file: PathBuf,
    /// What the file held.
    pub content: Content,
}

/// What the file held.
pub enum Content {
    /// A NEFF container (boxed: a parsed container is far larger than a `Vec`).
    Neff(Box<Neff>),
    /// A raw bundle file: whole bundles.
    Raw(Vec<u8>),
}

/// One stream of bundles of a [`Program`] and where it came from.
#[derive(Clone, Copy)]
pub struct Stream<'a> {
    /// The program's file, as given.
    pub file: &'a Path,
    /// Where it is inside a container (`sg00/PE.bin`); empty for a raw file.
    pub member: &'a str,
    /// The engine that runs it; `None` for a raw file.
    pub engine: Option<&'a Engine>,
    /// The stream's bytes: whole 64-byte bundles.
    pub bytes: &'a [u8],
    /// The compiler build that wrote the container (`info.json` tool_version), if any.
    pub build: Option<&'a str>,
}

impl Program {
    /// A NEFF container (else a raw bundle file).
    pub fn is_container(&self) -> bool {
        matches!(self.content, Content::Neff(_))
    }

    /// The container's target as `kelf-0.json` names it, if any.
    pub fn target(&self) -> Option<&str> {
        match &self.content {
            Content::Neff(n) => n.target(),
            Content::Raw(_) => None,
        }
    }

    /// Its streams: a container's in its order, a raw file's one.
    pub fn streams(&self) -> impl Iterator<Item = Stream<'_>> {
        let (neff, raw) = match &self.content {
            Content::Neff(n) => (Some(n), None),
            Content::Raw(b) => (None, Some(b)),
        };
        let build = neff.and_then(|n| n.tool_version.as_deref());
        let file = self.file.as_path();
        let raw = raw.map(move |bytes| Stream { file, member: "", engine: None, bytes, build: None });
        let contained = neff.into_iter().flat_map(|n| n.streams.iter());
        raw.into_iter().chain(contained.map(move |s| Stream { file, member: &s.member, engine: Some(&s.engine), bytes: &s.bytes, build }))
    }

    /// The generation its bundles are judged under: `arch`, else the
    /// container's target's, else (a target that maps to none) the one its
    /// bundles fit best, with a warning to say ([`Choice::warning`]); v2 for a raw file.
    pub fn choose(&self, arch: Option<Generation>) -> Choice {
        match &self.content {
            Content::Neff(n) => n.choose(arch),
            Content::Raw(_) => choice::for_raw(arch),
        }
    }
}

impl Stream<'_> {
    /// `file` or `file:member`, safe for a text line (control characters escaped).
    pub fn label(&self) -> String {
        if self.member.is_empty() {
            super::shown(self.file)
        } else {
            format!("{}:{}", super::shown(self.file), escape(self.member))
        }
    }

    /// The engine as outputs name it (`PE`, or the definition key of an engine
    /// no table maps, `foo_instr`); empty for a raw file.
    pub fn engine_name(&self) -> &str {
        self.engine.map_or("", Engine::stem)
    }
}
