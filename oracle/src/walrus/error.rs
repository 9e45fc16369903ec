//! Why a library or wheel could not be read. Every message names the file (and
//! the wheel member, offset or field where there is one); none of these is a
//! fact that differs — they are inputs the oracle cannot judge at all.

/// An input the oracle could not read as a library.
#[derive(Debug, thiserror::Error)]
pub enum WalrusError {
    #[error("{path}: cannot read: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: neither an ELF file nor a wheel (zip): first bytes {magic}")]
    NotElfOrWheel { path: String, magic: String },
    #[error("{input}: {detail}")]
    Elf { input: String, detail: String },
    #[error("{input}: truncated: {what} at offset {offset:#x} needs {need:#x} bytes but the file has {len:#x}")]
    Truncated { input: String, what: String, offset: u64, need: u64, len: u64 },
    #[error("{input}: no .rodata section (the constants live there); section headers stripped or not a compiler library")]
    NoRodata { input: String },
    #[error("{path}: corrupt wheel: {detail}")]
    Zip { path: String, detail: String },
    #[error("{path}: unsupported wheel: {detail} (members must be stored or deflated)")]
    UnsupportedWheel { path: String, detail: String },
    #[error("{path}: wheel has no member {wanted} ({members} members; none ends in /{file})")]
    NoMember { path: String, wanted: String, file: String, members: usize },
    #[error("{path}: wheel has several members named {file}: {names}")]
    AmbiguousMember { path: String, file: String, names: String },
    #[error("{path}: wheel holds {name} more than once ({entries}): which copy is the library is ambiguous")]
    DuplicateMember { path: String, name: String, entries: String },
    #[error("{path}: {what} is {size} bytes, over the {cap}-byte cap (raise --max-bytes)")]
    TooLarge { path: String, what: String, size: u64, cap: u64 },
    #[error("profile {name}: {detail}")]
    Profile { name: String, detail: String },
}

pub type Result<T> = std::result::Result<T, WalrusError>;
