//! Why a library or wheel could not be read. Every message names the file (and
//! the wheel member, offset or field where there is one); none of these is a
//! fact that differs — they are inputs the oracle cannot judge at all.

/// An input the oracle could not read as a library.
#[derive(Debug, thiserror::Error)]
pub enum WalrusError {
    /// The file (or the wheel holding it) could not be opened or read.
    #[error("{path}: cannot read: {source}")]
    Io {
        /// The path, as shown (control characters escaped).
        path: String,
        /// Why it could not be read.
        #[source]
        source: std::io::Error,
    },
    /// The first bytes are neither ELF's magic nor a zip's.
    #[error("{path}: neither an ELF file nor a wheel (zip): first bytes {magic}")]
    NotElfOrWheel {
        /// The path, as shown.
        path: String,
        /// Up to four first bytes in hex (`(empty file)` for none).
        magic: String,
    },
    /// Not an ELF library this oracle reads (wrong class, byte order, header
    /// entry size), or one goblin cannot parse; `detail` names the field and offset.
    #[error("{input}: {detail}")]
    Elf {
        /// The input's label (`path` or `path!member`).
        input: String,
        /// What is wrong, naming the field and its offset.
        detail: String,
    },
    /// A header table, segment or section runs past the end of the file (a cut download, say).
    #[error("{input}: truncated: {what} at offset {offset:#x} needs {need:#x} bytes but the file has {len:#x}")]
    Truncated {
        /// The input's label.
        input: String,
        /// The part that does not fit (`section header table (e_shoff)`).
        what: String,
        /// File offset where it starts.
        offset: u64,
        /// Bytes it needs from there.
        need: u64,
        /// The file's length in bytes.
        len: u64,
    },
    /// No `.rodata` section with file bytes: nowhere to read the constants from.
    #[error("{input}: no .rodata section (the constants live there); section headers stripped or not a compiler library")]
    NoRodata {
        /// The input's label.
        input: String,
    },
    /// The wheel is not a readable zip.
    #[error("{path}: corrupt wheel: {detail}")]
    Zip {
        /// The wheel's path, as shown.
        path: String,
        /// What the zip reader said, and of which entry.
        detail: String,
    },
    /// A valid zip whose library member this build cannot inflate (LZMA, zstd, encryption).
    #[error("{path}: unsupported wheel: {detail} (members must be stored or deflated)")]
    UnsupportedWheel {
        /// The wheel's path, as shown.
        path: String,
        /// The member and the method it uses.
        detail: String,
    },
    /// The wheel holds no member by the library's name.
    #[error("{path}: wheel has no member {wanted} ({members} members; none ends in /{file})")]
    NoMember {
        /// The wheel's path, as shown.
        path: String,
        /// The member path looked for ([`super::WHEEL_MEMBER`]).
        wanted: String,
        /// Its file name, which any folder may hold.
        file: String,
        /// Members the wheel holds.
        members: usize,
    },
    /// Several members, in different folders, have the library's file name.
    #[error("{path}: wheel has several members named {file}: {names}")]
    AmbiguousMember {
        /// The wheel's path, as shown.
        path: String,
        /// The library's file name.
        file: String,
        /// Their paths, escaped, comma-separated.
        names: String,
    },
    /// The central directory lists the library's member more than once.
    #[error("{path}: wheel holds {name} more than once ({entries}): which copy is the library is ambiguous")]
    DuplicateMember {
        /// The wheel's path, as shown.
        path: String,
        /// The member's name, escaped.
        name: String,
        /// Each copy's directory entry and local header offset.
        entries: String,
    },
    /// The library (or the wheel member, stated or inflated) is over `--max-bytes`.
    #[error("{path}: {what} is {size} bytes, over the {cap}-byte cap (raise --max-bytes)")]
    TooLarge {
        /// The file's path, as shown.
        path: String,
        /// What is too large (`the library`, `member … (inflated)`).
        what: String,
        /// Its size, or the bytes read when the cap stopped the read.
        size: u64,
        /// The cap, in bytes.
        cap: u64,
    },
    /// An embedded profile that does not parse or check (a bug in `oracle/profiles/`).
    #[error("profile {name}: {detail}")]
    Profile {
        /// The profile's file (`oracle/profiles/<build-id>.json`).
        name: String,
        /// The field at fault and why.
        detail: String,
    },
}

/// A result whose error is a [`WalrusError`].
pub type Result<T> = std::result::Result<T, WalrusError>;
