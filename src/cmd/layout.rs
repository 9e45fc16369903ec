//! `tpb layout [--json]`: every described struct, field by field.

use std::io::Write;
use tpb_isa::layout::Layout;

#[derive(clap::Args)]
#[command(after_help = "Exit codes: 0 printed; 2 usage error.")]
pub struct Args {
    #[arg(long)]
    json: bool,
}

pub fn run(a: Args) -> u8 {
    let mut out = crate::out::stdout();
    match write(&mut out, a.json) {
        Ok(()) => crate::out::finish(&mut out, 0),
        Err(e) => crate::out::lost(&e, 0),
    }
}

fn write(out: &mut impl Write, json_out: bool) -> std::io::Result<()> {
    let layouts = tpb_isa::catalog::layouts();
    if json_out {
        let v: Vec<_> = layouts.iter().map(|l| json(l)).collect();
        return writeln!(out, "{}", serde_json::Value::Array(v));
    }
    for l in layouts {
        writeln!(out, "{} ({}) {} bytes  [{}]", l.c_name, l.name, l.size, l.prov)?;
        for f in l.leaves() {
            writeln!(
                out,
                "  +{:#04x} {:>3}  {:<28} {:?}{}  [{}]",
                f.offset,
                f.size(),
                f.path,
                f.prim,
                f.len.map(|n| format!("[{n}]")).unwrap_or_default(),
                f.prov
            )?;
        }
    }
    Ok(())
}

fn json(l: &Layout) -> serde_json::Value {
    serde_json::json!({
        "name": l.name,
        "c_name": l.c_name,
        "size": l.size,
        "section": l.prov.section,
        "confidence": l.prov.confidence,
        "alias_of": l.alias_of.map(|f| f().c_name),
        "fields": l.leaves().iter().map(|f| serde_json::json!({
            "name": f.path, "offset": f.offset, "size": f.size(), "type": f.prim, "len": f.len,
            "section": f.prov.section, "confidence": f.prov.confidence,
        })).collect::<Vec<_>>(),
    })
}
