//! The fact pipeline: one library in, one row per fact out.
//!
//! A known build (its build-id has a profile) is read at the pinned
//! addresses; an unknown one is searched: strings by content, the LUT by its
//! bytes and then by shape, setupHeader by symbol name and then by its bytes.
//! Either way the report says where each fact lives now.

use super::asserts;
use super::digests::Digests;
use super::error::Result;
use super::image::{Image, Section, EM_X86_64};
use super::input::Input;
use super::lut;
use super::profile::{Profile, Profiles};
use super::report::{hex_bytes, hex_compact, Located, Report, Row, Status, SymbolInfo, EXIT_DIFFERS, EXIT_HOLDS};
use super::spec::{fact_specs, pattern_layout, FactSpec, Target};
use super::symbols::{has_identifier, Symbols};
use tpb_isa::bundle::header::SETUP_HEADER_CODE;
use tpb_isa::dtype::{BIR_TO_WIRE, DTYPES};
use tpb_isa::Generation;

/// Raw symbol-name fragments worth demangling.
const SYMBOL_KEYS: [&str; 2] = ["NEURON_ISA_TPB_", "setupHeader"];

/// Everything the row builders read.
struct Ctx<'i, 'a> {
    img: &'i Image<'a>,
    rodata: &'i Section,
    rodata_bytes: &'a [u8],
    text: Option<(&'i Section, &'a [u8])>,
    profile: Option<&'i Profile>,
    symbols: Symbols,
    build_id: Option<String>,
    digests: Digests,
}

/// Checks a loaded library against `isa` and the profiles.
pub fn check_input(input: &Input, profiles: &Profiles) -> Result<Report> {
    let label = input.label();
    let img = Image::parse(&label, &input.bytes)?;
    let digests = input.digests.clone().unwrap_or_else(|| Digests::of(&input.bytes));
    let mut r = check_image_with(&img, profiles, digests)?;
    r.path = input.path.display().to_string();
    r.member = input.member.clone();
    Ok(r)
}

/// Checks a parsed image.
pub fn check_image(img: &Image<'_>, profiles: &Profiles) -> Result<Report> {
    check_image_with(img, profiles, Digests::of(img.bytes))
}

/// Checks a parsed image whose digests are known (hashed while it was read).
fn check_image_with(img: &Image<'_>, profiles: &Profiles, digests: Digests) -> Result<Report> {
    let (rodata, rodata_bytes) = img.rodata()?;
    let text = img.section(".text").and_then(|s| img.section_bytes(s).map(|b| (s, b)));
    let build_id = img.build_id().map(hex_compact);
    let profile = build_id.as_deref().and_then(|b| profiles.find(b));
    let symbols = Symbols::collect(img, &SYMBOL_KEYS);
    let cx = Ctx { img, rodata, rodata_bytes, text, profile, symbols, build_id, digests };
    let rows: Vec<Row> = fact_specs().iter().map(|s| row(&cx, s)).collect();
    let summary = Report::summarize(&rows);
    let exit = if rows.iter().any(|r| r.status.failed()) { EXIT_DIFFERS } else { EXIT_HOLDS };
    Ok(Report {
        input: img.label.clone(),
        path: img.label.clone(),
        member: None,
        build_id: cx.build_id.clone(),
        profile: cx.profile.map(|p| p.label.clone()),
        known: cx.profile.is_some(),
        symbols: SymbolInfo { source: cx.symbols.source, total: cx.symbols.total },
        rows,
        summary,
        exit,
    })
}

fn row(cx: &Ctx<'_, '_>, spec: &FactSpec) -> Row {
    let mut r = Row::new(spec);
    r.expected = expected(spec.target, cx.profile);
    match spec.target {
        Target::BuildId => build_id(cx, &mut r),
        Target::Md5 => digest_row(cx, &mut r, cx.digests.md5.clone()),
        Target::Sha256 => digest_row(cx, &mut r, cx.digests.sha256.clone()),
        Target::FileSize => {
            r.located = Located::Header;
            r.judge(Some(cx.img.bytes.len().to_string()));
        }
        Target::ElfClass => {
            r.located = Located::Header;
            // Read from e_ident like every other fact (the precheck already refuses other classes).
            r.judge(elf_class(cx.img.bytes));
        }
        Target::ElfMachine => {
            r.located = Located::Header;
            r.judge(Some(machine_name(cx.img.machine)));
        }
        Target::SectionBase(name) => section_base(cx, &mut r, name),
        Target::VaEqualsOffset => va_equals_offset(cx, &mut r),
        Target::BirToWire => bir_to_wire(cx, &mut r),
        Target::SizeAssert { dims } => size_assert(cx, &mut r, dims),
        Target::AssertText(text) => {
            let hits = asserts::text_hits(cx.rodata_bytes, cx.rodata.addr, text);
            r.address = hits.first().copied();
            r.located = if hits.is_empty() { Located::Nowhere } else { Located::Content };
            if hits.len() > 1 {
                r.note(format!("{} copies: {}", hits.len(), addr_list(&hits)));
            }
            r.judge(hits.first().map(|_| text.to_string()));
        }
        Target::TypeName(name) => type_name(cx, &mut r, name),
        Target::SetupHeader(g) => setup_header(cx, &mut r, g),
    }
    r
}

const ELF64_LE: &str = "ELF64 little-endian";

/// The class and byte order of an ELF file from `e_ident[EI_CLASS]` (offset 4)
/// and `e_ident[EI_DATA]` (offset 5), in report form.
fn elf_class(bytes: &[u8]) -> Option<String> {
    match (bytes.get(4)?, bytes.get(5)?) {
        (2, 1) => Some(ELF64_LE.into()),
        (class, data) => Some(format!("EI_CLASS {class}, EI_DATA {data}")),
    }
}

/// What a fact should read, in report form: from `isa` for constants, from
/// the build's profile for identity and placement (`None` when unknown).
pub fn expected(target: Target, profile: Option<&Profile>) -> Option<String> {
    match target {
        Target::BuildId => profile.map(|p| p.build_id.clone()),
        Target::Md5 => profile.and_then(|p| p.identity.md5.clone()),
        Target::Sha256 => profile.and_then(|p| p.identity.sha256.clone()),
        Target::FileSize => profile.and_then(|p| p.identity.size).map(|s| s.to_string()),
        Target::ElfClass => Some(ELF64_LE.into()),
        Target::ElfMachine => Some(machine_name(EM_X86_64)),
        Target::SectionBase(name) => profile.and_then(|p| p.section_base(name)).map(|a| format!("{a:#x}")),
        Target::VaEqualsOffset => profile.and_then(|p| p.sections.va_equals_offset).map(yes_no),
        Target::BirToWire => Some(hex_bytes(&BIR_TO_WIRE)),
        Target::SizeAssert { dims } => pattern_layout(dims).map(|l| format!("{} bytes", l.size)),
        Target::AssertText(text) => Some(text.to_string()),
        Target::TypeName(name) => Some(name.to_string()),
        Target::SetupHeader(_) => Some(hex_bytes(&SETUP_HEADER_CODE)),
    }
}

fn machine_name(m: u16) -> String {
    match m {
        EM_X86_64 => format!("x86-64 (e_machine {m})"),
        183 => format!("AArch64 (e_machine {m})"),
        _ => format!("e_machine {m}"),
    }
}

fn addr_list(a: &[u64]) -> String {
    a.iter().map(|x| format!("{x:#x}")).collect::<Vec<_>>().join(", ")
}

fn build_id(cx: &Ctx<'_, '_>, r: &mut Row) {
    r.located = Located::Header;
    match (&cx.build_id, cx.profile) {
        (None, _) => r.note("no GNU build-id note: treated as an unknown build"),
        (Some(_), None) => r.note("unknown build: every fact is located by search"),
        (Some(_), Some(p)) => r.note(format!("known build: {}", p.label)),
    }
    r.judge(cx.build_id.clone());
}

fn digest_row(cx: &Ctx<'_, '_>, r: &mut Row, got: String) {
    r.located = Located::Header;
    if cx.profile.is_some() && r.expected.is_none() {
        r.note("the profile records no value for this build");
    }
    r.judge(Some(got));
    if r.status == Status::Differs {
        r.note("the build-id matches a known build but the file differs (rebuilt, patched or corrupted?)");
    }
}

fn section_base(cx: &Ctx<'_, '_>, r: &mut Row, name: &str) {
    r.located = Located::Header;
    let s = cx.img.section(name);
    r.address = s.map(|s| s.addr);
    r.judge(s.map(|s| format!("{:#x}", s.addr)));
}

fn va_equals_offset(cx: &Ctx<'_, '_>, r: &mut Row) {
    r.located = Located::Header;
    let mut all = true;
    for name in [".text", ".rodata"] {
        match cx.img.section(name) {
            Some(s) if s.addr == s.offset => {}
            Some(s) => {
                all = false;
                r.note(format!("{name}: VA {:#x} at file offset {:#x}", s.addr, s.offset));
            }
            None => {
                all = false;
                r.note(format!("{name}: no such section"));
            }
        }
    }
    r.judge(Some(yes_no(all)));
}

fn yes_no(b: bool) -> String {
    if b { "yes" } else { "no" }.to_string()
}

/// The dtype LUT: pinned address for a known build, else exact bytes, else shape.
fn bir_to_wire(cx: &Ctx<'_, '_>, r: &mut Row) {
    let want = &BIR_TO_WIRE[..];
    let hits = lut::exact_hits(cx.rodata_bytes, cx.rodata.addr, want);
    let structural = |r: &mut Row| {
        let tags: Vec<u8> = DTYPES.iter().map(|d| d.tag).collect();
        r.candidates = lut::candidates(cx.rodata_bytes, cx.rodata.addr, want, &tags);
    };
    if let Some(at) = cx.profile.and_then(|p| p.address(&r.id)) {
        r.located = Located::Pinned;
        r.address = Some(at);
        match cx.img.read_va(at, want.len()) {
            Some(b) => r.judge(Some(hex_bytes(b))),
            None => {
                r.note(format!("pinned address {at:#x} is outside the file"));
                r.judge(None);
            }
        }
        if r.status.failed() {
            if hits.is_empty() {
                structural(r);
            } else {
                r.note(format!("isa's table is now at {}", addr_list(&hits)));
            }
        }
        return;
    }
    if let Some(&first) = hits.first() {
        r.located = Located::Content;
        r.address = Some(first);
        if hits.len() > 1 {
            r.note(format!("{} copies: {}", hits.len(), addr_list(&hits)));
        }
        r.judge(Some(hex_bytes(want)));
        return;
    }
    structural(r);
    match r.candidates.first().cloned() {
        Some(best) => {
            r.located = Located::Structural;
            r.address = Some(best.address);
            r.note(format!("isa's table is not in .rodata; {} LUT-shaped window(s), best differs in {} byte(s)", r.candidates.len(), best.distance));
            r.judge(Some(best.bytes));
        }
        None => {
            r.note("isa's table is not in .rodata and no LUT-shaped window was found");
            r.judge(None);
        }
    }
}

fn size_assert(cx: &Ctx<'_, '_>, r: &mut Row, dims: usize) {
    let Some(found) = asserts::size_assert(cx.rodata_bytes, cx.rodata.addr, dims) else {
        r.note(format!("no \"{}{dims}{}\" in .rodata", super::spec::SIZE_ASSERT_HEAD, super::spec::SIZE_ASSERT_DIMS));
        r.judge(None);
        return;
    };
    r.located = Located::Content;
    r.address = Some(found.address);
    r.note(format!("\"{}\"", found.text));
    if found.occurrences > 1 {
        r.note(format!("{} strings state a {dims}D size", found.occurrences));
    }
    r.judge(Some(match found.k {
        Some(k) => format!("{k} bytes"),
        None => format!("unparsed: \"{}\"", found.text),
    }));
}

fn type_name(cx: &Ctx<'_, '_>, r: &mut Row, name: &str) {
    let users: Vec<_> = cx.symbols.named.iter().filter(|s| has_identifier(&s.demangled, name)).collect();
    match users.first() {
        Some(first) => {
            r.located = Located::Symbol;
            r.address = Some(first.value);
            r.note(format!("{} symbol(s), e.g. {}", users.len(), first.demangled));
            r.judge(Some(name.to_string()));
        }
        None => {
            r.note(format!("in no demangled symbol of {} ({} symbols)", cx.symbols.source.as_str(), cx.symbols.total));
            r.judge(None);
        }
    }
}

/// The generation a demangled setupHeader name belongs to: CoreV2 / core_v2 → V2.
pub fn setup_header_generation(demangled: &str) -> Option<Generation> {
    if !demangled.contains("setupHeader") {
        return None;
    }
    let norm: String = demangled.chars().filter(|c| *c != '_').collect::<String>().to_ascii_lowercase();
    let mut gens = Generation::ALL.into_iter().filter(|g| norm.contains(&format!("core{}", g.as_str())));
    match (gens.next(), gens.next()) {
        (Some(g), None) => Some(g),
        _ => None,
    }
}

fn setup_header(cx: &Ctx<'_, '_>, r: &mut Row, g: Generation) {
    let want = &SETUP_HEADER_CODE[..];
    let mut by_symbol: Vec<(u64, &str)> =
        cx.symbols.named.iter().filter(|s| setup_header_generation(&s.demangled) == Some(g)).map(|s| (s.value, s.demangled.as_str())).collect();
    by_symbol.sort_unstable();
    by_symbol.dedup_by_key(|s| s.0);
    let read = |at: u64| cx.img.read_va(at, want.len());

    if let Some(at) = cx.profile.and_then(|p| p.address(&r.id)) {
        r.located = Located::Pinned;
        r.address = Some(at);
        match read(at) {
            Some(b) => r.judge(Some(hex_bytes(b))),
            None => {
                r.note(format!("pinned address {at:#x} is outside the file"));
                r.judge(None);
            }
        }
        for (va, name) in &by_symbol {
            if *va == at {
                r.note(format!("symbol {name} agrees"));
            } else {
                r.note(format!("symbol {name} is at {va:#x}, not the pinned address"));
            }
        }
        if r.status.failed() {
            body_hits_note(cx, r, want);
        }
        return;
    }
    if !by_symbol.is_empty() {
        r.located = Located::Symbol;
        let best = by_symbol.iter().find(|(va, _)| read(*va) == Some(want)).or(by_symbol.first());
        if let Some((va, name)) = best {
            r.address = Some(*va);
            r.note(format!("symbol {name}"));
            let got = read(*va).map(hex_bytes);
            if got.is_none() {
                r.note(format!("symbol address {va:#x} is outside the file"));
            }
            r.judge(got);
        }
        if by_symbol.len() > 1 {
            r.note(format!(
                "{} Core{} setupHeader symbols: {}",
                by_symbol.len(),
                g.as_str().to_uppercase(),
                addr_list(&by_symbol.iter().map(|s| s.0).collect::<Vec<_>>())
            ));
        }
        if r.status.failed() {
            body_hits_note(cx, r, want);
        }
        return;
    }
    // No symbol names the generation (stripped library): the body can only be
    // found by its bytes, which cannot say which generation it belongs to. The
    // fact (one identical body per generation) holds when there are enough.
    let hits = text_hits(cx, want);
    let others: Vec<&str> = cx.symbols.named.iter().filter(|s| s.demangled.contains("setupHeader")).map(|s| s.demangled.as_str()).take(3).collect();
    if !others.is_empty() {
        r.note(format!("setupHeader symbols name no generation: {}", others.join("; ")));
    }
    if hits.len() >= Generation::ALL.len() {
        r.located = Located::Bytes;
        r.note(format!(
            "no Core{} setupHeader symbol; {} identical bodies in .text at {} (unattributed)",
            g.as_str().to_uppercase(),
            hits.len(),
            addr_list(&hits)
        ));
        r.judge(Some(hex_bytes(want)));
    } else {
        r.note(format!(
            "no Core{} setupHeader symbol and {} bod{} in .text (need {})",
            g.as_str().to_uppercase(),
            hits.len(),
            if hits.len() == 1 { "y" } else { "ies" },
            Generation::ALL.len()
        ));
        r.judge(None);
    }
}

fn text_hits(cx: &Ctx<'_, '_>, want: &[u8]) -> Vec<u64> {
    match cx.text {
        Some((s, b)) => lut::exact_hits(b, s.addr, want),
        None => Vec::new(),
    }
}

fn body_hits_note(cx: &Ctx<'_, '_>, r: &mut Row, want: &[u8]) {
    let hits = text_hits(cx, want);
    if hits.is_empty() {
        r.note("isa's setupHeader body occurs nowhere in .text");
    } else {
        r.note(format!("isa's setupHeader body occurs in .text at {}", addr_list(&hits)));
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_address_list_is_hex_comma_separated() {
        assert_eq!(super::addr_list(&[0x10, 0x2000, 0]), "0x10, 0x2000, 0x0");
        assert_eq!(super::addr_list(&[]), "");
    }

    #[test]
    fn elf_class_is_read_from_e_ident() {
        let mut b = b"\x7fELF\x02\x01\x01".to_vec();
        assert_eq!(super::elf_class(&b).as_deref(), Some(super::ELF64_LE));
        b[4] = 1;
        assert_eq!(super::elf_class(&b).as_deref(), Some("EI_CLASS 1, EI_DATA 1"));
        b[5] = 2;
        assert_eq!(super::elf_class(&b).as_deref(), Some("EI_CLASS 1, EI_DATA 2"));
        assert_eq!(super::elf_class(&b[..5]), None);
    }

    use super::*;

    #[test]
    fn generation_from_demangled_names() {
        assert_eq!(setup_header_generation("walrus::CoreV2::setupHeader(unsigned char*)"), Some(Generation::V2));
        assert_eq!(setup_header_generation("core_v4::Emitter::setupHeader()"), Some(Generation::V4));
        assert_eq!(setup_header_generation("walrus::Base::setupHeader()"), None);
        assert_eq!(setup_header_generation("CoreV2::CoreV3::setupHeader()"), None, "ambiguous");
        assert_eq!(setup_header_generation("CoreV3::generate()"), None);
    }
}
