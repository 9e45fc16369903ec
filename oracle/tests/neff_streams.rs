//! How the reader finds a container's engine streams: through `kelf-0.json`
//! → each graph's definition → its `*_instr` keys, whatever the members are
//! called (a new compiler may rename them), by the names compilers so far
//! write only where the container names no definition (and saying so), and
//! never by guessing from `.bin` names (tables are no streams).

use tpb_oracle::conform;
use tpb_oracle::neff::build::container;
use tpb_oracle::neff::{self, pack, summary, At, Engine, Limits, NeffError};

type R<T> = Result<T, Box<dyn std::error::Error>>;

const INFO: &[u8] = br#"{"tool_version": "2.27.0.0+test"}"#;
const KELF: &[u8] = br#"{"graphs": [{"definition": "sg00/def.json", "name": "sg00"}], "version": "0.5", "target": "cayman"}"#;

use tpb_isa::bundle::header_only_stream as bundles;

fn parse(members: &[(&str, &[u8])]) -> Result<neff::Neff, NeffError> {
    neff::parse(&container(2, members).map_err(|e| NeffError::new("t.neff", "build", At::File(0), e.to_string()))?, "t.neff")
}

fn streams(n: &neff::Neff) -> Vec<(&str, &str, &str, usize)> {
    n.streams.iter().map(|s| (s.subgraph.as_str(), s.engine.stem(), s.member.as_str(), s.len())).collect()
}

/// A container as a compiler that renamed its members might write it: the
/// definition names every stream; tables and a stream-like name it does not
/// name sit beside them.
fn renamed() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("info.json", INFO.to_vec()),
        ("kelf-0.json", KELF.to_vec()),
        ("sg00/act.stream", bundles(&[0xB1, 0x23])),
        ("sg00/default_datapath_table.bin", bundles(&[0x8C, 0x8C])),
        (
            "sg00/def.json",
            br#"{"pe": "PE.json", "pe_instr": "pe_stream.data", "act_instr": "act.stream", "foo_instr": "foo.stream",
                 "pool_instr": ["pool0.data", "sg00/pool1.data"], "pool_dbg": ["x.dbg"], "var": {"dve_instr": "nested.bin"}}"#
                .to_vec(),
        ),
        ("sg00/exp_and_others_bkt.bin", bundles(&[0x8C])),
        ("sg00/exp_and_others_ctrl.bin", bundles(&[0x8C])),
        ("sg00/foo.stream", bundles(&[0xB1, 0xA4, 0xA4])),
        ("sg00/pe_stream.data", bundles(&[0xB1, 0x02, 0x02, 0x02])),
        ("sg00/pool0.data", bundles(&[0xA4])),
        ("sg00/pool1.data", bundles(&[0xA4, 0xA4])),
        ("sg00/SP.bin", bundles(&[0xA0])),
    ]
}

fn refs<'a>(m: &'a [(&'a str, Vec<u8>)]) -> Vec<(&'a str, &'a [u8])> {
    m.iter().map(|(n, b)| (*n, b.as_slice())).collect()
}

#[test]
fn streams_named_only_by_the_definition_are_read_with_their_engines() -> R<()> {
    let n = parse(&refs(&renamed()))?;
    assert_eq!(
        streams(&n),
        [
            ("sg00", "PE", "sg00/pe_stream.data", 4),
            ("sg00", "Activation", "sg00/act.stream", 2),
            ("sg00", "Pool", "sg00/pool0.data", 1),
            ("sg00", "Pool", "sg00/pool1.data", 2),
            ("sg00", "foo_instr", "sg00/foo.stream", 3),
        ]
    );
    assert_eq!(n.streams[4].engine, Engine::Other("foo_instr".into()));
    assert_eq!(n.bundles(), 12);
    // Tables are never bundles, and a stream-like name the definition does not name is said, not read.
    assert!(!n.streams.iter().any(|s| s.member.ends_with(".bin")), "{:?}", streams(&n));
    assert!(
        n.notes.iter().any(|x| x == "member `sg00/SP.bin` named like an engine stream, but no definition names it: not read as one"),
        "{:?}",
        n.notes
    );
    assert!(n.unread().is_none());
    Ok(())
}

#[test]
fn an_unknown_key_is_reported_under_its_name() -> R<()> {
    let n = parse(&refs(&renamed()))?;
    let j = summary::json(&n);
    assert_eq!(j["engines"]["foo_instr"]["bundles"], 3, "{}", j["engines"]);
    assert_eq!(j["streams"][4]["engine"], "foo_instr");
    assert!(summary::text(&n).contains("    foo_instr: 3 bundles: "), "{}", summary::text(&n));
    // Conformance counts its bundles under the key, and does not call them off-engine: the table knows no such engine.
    let c = conform::conform(&n, None);
    let ops = c.to_json()["opcodes"].clone();
    let noop = ops.as_array().into_iter().flatten().find(|o| o["opcode"] == "0xa4").ok_or("no 0xa4")?.clone();
    assert_eq!(noop["engines"]["foo_instr"], 2, "{noop}");
    assert_eq!(noop["engines"]["Pool"], 3, "{noop}");
    assert!(c.engine_mismatches().values().all(|by| !by.contains_key("foo_instr")));
    Ok(())
}

#[test]
fn a_key_naming_a_missing_member_is_an_error_naming_file_definition_and_key() -> R<()> {
    let mut m = renamed();
    m.retain(|(n, _)| *n != "sg00/foo.stream");
    let Err(e) = parse(&refs(&m)) else { panic!("a definition naming a missing member parsed") };
    assert_eq!((e.file.as_str(), e.member.as_str()), ("t.neff", "sg00/def.json"));
    assert!(e.message.starts_with("key `foo_instr` names `foo.stream`, which is not in the archive"), "{e}");
    // The offset is the key's in the definition.
    let def = &m.iter().find(|(n, _)| *n == "sg00/def.json").ok_or("def")?.1;
    let at = def.windows(11).position(|w| w == b"\"foo_instr\"").ok_or("key")?;
    assert_eq!(e.at, At::Member(at as u64));
    // A value that is no member name is refused too, naming the key.
    let mut m = renamed();
    m[4].1 = br#"{"pe_instr": 3}"#.to_vec();
    let e = parse(&refs(&m)).err().ok_or("a numeric stream name parsed")?;
    assert!(e.member == "sg00/def.json" && e.message.contains("key `pe_instr` holds a number"), "{e}");
    Ok(())
}

#[test]
fn without_kelf_or_definition_streams_are_found_by_name_and_the_notes_say_so() -> R<()> {
    let pe = bundles(&[0xB1, 0x02]);
    let table = bundles(&[0x8C]);
    let base: Vec<(&str, &[u8])> = vec![("info.json", INFO), ("sg00/PE.bin", &pe), ("sg00/default_datapath_table.bin", &table)];
    let n = parse(&base)?;
    assert_eq!(streams(&n), [("sg00", "PE", "sg00/PE.bin", 2)]);
    assert!(
        n.notes.iter().any(|x| x == "no kelf-0.json: engine streams found by member name (DIR/{PE,Activation,DVE,Pool,SP}.bin)"),
        "{:?}",
        n.notes
    );
    // A graph without a definition, one whose definition is missing, one whose definition names no stream.
    for (kelf, def, note) in [
        (
            &br#"{"target": "cayman", "graphs": [{"name": "sg00"}]}"#[..],
            None,
            "kelf-0.json names no definition for graph sg00: engine streams found by member name",
        ),
        (KELF, None, "the definition kelf-0.json names for graph sg00 (`sg00/def.json`) is not in the archive: engine streams found by member name"),
        (
            KELF,
            Some(&br#"{"pe": "PE.json"}"#[..]),
            "the definition of graph sg00 (`sg00/def.json`) names no `*_instr` key: engine streams found by member name",
        ),
    ] {
        let mut m = base.clone();
        m.push(("kelf-0.json", kelf));
        if let Some(d) = def {
            m.push(("sg00/def.json", d));
        }
        let n = parse(&m)?;
        assert_eq!(streams(&n), [("sg00", "PE", "sg00/PE.bin", 2)], "{note}");
        assert!(n.notes.iter().any(|x| x == note), "{:?}", n.notes);
    }
    Ok(())
}

#[test]
fn a_definition_under_another_name_and_streams_after_it_are_read_in_later_passes() -> R<()> {
    let kelf = br#"{"target": "cayman", "graphs": [{"name": "main", "definition": "graphs/main.json"}]}"#;
    let pe = bundles(&[0xB1, 0x02]);
    let def = format!(r#"{{"pe_instr": "x/stream.pe", "pad": "{}"}}"#, "x".repeat(200));
    let m: Vec<(&str, &[u8])> = vec![("x/stream.pe", &pe), ("info.json", INFO), ("graphs/main.json", def.as_bytes()), ("kelf-0.json", kelf)];
    let n = parse(&m)?;
    assert_eq!(streams(&n), [("main", "PE", "x/stream.pe", 2)]);
    assert!(n.notes.is_empty(), "{:?}", n.notes);
    // A definition is metadata: over the metadata cap it is refused, naming the cap.
    let limits = Limits { max_metadata: 128, ..Limits::default() };
    let e = neff::parse_with(&container(2, &m)?, "t.neff", &limits).err().ok_or("over the cap")?;
    assert!(e.member == "graphs/main.json" && e.message.contains("over the cap of 128 bytes for metadata members"), "{e}");
    // The same cap holds for a definition the first pass kept by its usual name.
    let kelf = br#"{"target": "cayman", "graphs": [{"name": "sg00", "definition": "sg00/def.json"}]}"#;
    let m: Vec<(&str, &[u8])> = vec![("x/stream.pe", &pe), ("info.json", INFO), ("sg00/def.json", def.as_bytes()), ("kelf-0.json", kelf)];
    assert_eq!(streams(&neff::parse(&container(2, &m)?, "t.neff")?), [("sg00", "PE", "x/stream.pe", 2)]);
    let e = neff::parse_with(&container(2, &m)?, "t.neff", &limits).err().ok_or("over the cap")?;
    assert!(e.member == "sg00/def.json" && e.message.contains("over the cap of 128 bytes for metadata members"), "{e}");
    Ok(())
}

#[test]
fn no_bundle_read_is_an_error_naming_what_was_looked_for_and_what_is_there() -> R<()> {
    let table = bundles(&[0x8C]);
    let def: &[u8] = br#"{"pe": "PE.json"}"#;
    let n = parse(&[("kelf-0.json", KELF), ("sg00/def.json", def), ("sg00/exp_and_others_bkt.bin", &table), ("sg00/weird.bin", &table)])?;
    let e = n.unread().ok_or("no error for a program without bundles")?;
    assert_eq!((e.file.as_str(), e.member.as_str()), ("t.neff", "payload"));
    assert!(
        e.message.starts_with(
            "no bundle read: looked for graph `sg00`: `sg00/def.json` has no `*_instr` key, so members named sg00/{PE,Activation,DVE,Pool,SP}.bin; "
        ),
        "{e}"
    );
    assert!(e.message.contains("found no engine stream; the archive's .bin members: sg00/exp_and_others_bkt.bin, sg00/weird.bin"), "{e}");
    // Without kelf, what the names alone could give; without any .bin, that is said too.
    let n = parse(&[("info.json", INFO), ("sg00/x_table.bin", &table)])?;
    let e = n.unread().ok_or("no error without kelf")?;
    assert_eq!(
        e.message,
        "no bundle read: looked for members named DIR/{PE,Activation,DVE,Pool,SP}.bin, as there is no kelf-0.json; found no engine stream; the archive's .bin members: sg00/x_table.bin"
    );
    let n = parse(&[("info.json", INFO)])?;
    assert!(n.unread().is_some_and(|e| e.message.ends_with("; found no engine stream; the archive holds no .bin member (1 members)")));
    // Streams that are all empty read no bundle either.
    let n = parse(&[("kelf-0.json", KELF), ("sg00/def.json", br#"{"pe_instr": "PE.bin"}"#), ("sg00/PE.bin", &[])])?;
    let e = n.unread().ok_or("no error for empty streams")?;
    assert!(e.message.contains("found 1 engine streams, all empty (sg00/PE.bin)"), "{e}");
    assert!(e.message.contains("looked for graph `sg00`: the keys pe_instr of `sg00/def.json`"), "{e}");
    Ok(())
}

#[test]
fn unpack_and_pack_keep_streams_a_definition_names_and_write_their_text() -> R<()> {
    let m = renamed();
    let bytes = container(2, &refs(&m))?;
    let dir = tempfile::tempdir()?;
    let out = dir.path().join("u");
    let u = pack::unpack_to(&bytes, "t.neff", &out, &Limits::default())?;
    assert_eq!(u.texts, 5);
    let text = std::fs::read_to_string(out.join("sg00/pe_stream.data.tpb"))?;
    assert!(text.lines().nth(1).is_some_and(|l| l.starts_with("0xb1")), "{text}");
    assert!(!out.join("sg00/default_datapath_table.tpb").exists());
    let packed = pack::pack_from(&out, &Limits::default())?;
    assert!(packed.changed.is_empty());
    assert_eq!(streams(&neff::parse(&packed.bytes, "p.neff")?), streams(&neff::parse(&bytes, "t.neff")?));
    Ok(())
}
