//! Which generation a program's bundles are judged under, and why: `--arch`
//! when given, else the container's target (`kelf-0.json`), else, for a
//! container whose target maps to no generation (a new compiler's name, or
//! none at all), the generation its bundles fit best, said out loud. A raw
//! bundle file has no target: v2 by default, as always.
//!
//! The guess is a fit, not a fact: every bundle is validated under each
//! generation by the default (amended) profile, and the generation with the
//! fewest invalid bundles wins (a tie goes to the lowest). Every command
//! takes it from here, so they all judge an unknown target alike.

use serde::Serialize;
use tpb_isa::{validate, Generation, Profile};

/// How the generation was chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum GenerationFrom {
    /// `--arch` given by the user.
    Arch,
    /// The container's `kelf-0.json` target.
    Target,
    /// The container's target maps to none: the best fit of its bundles.
    Guessed,
    /// A raw file (no target): v2.
    Default,
}

impl GenerationFrom {
    /// The one [`GenerationFrom::as_str`] names `name`.
    pub fn from_name(name: &str) -> Option<GenerationFrom> {
        [GenerationFrom::Arch, GenerationFrom::Target, GenerationFrom::Guessed, GenerationFrom::Default].into_iter().find(|f| f.as_str() == name)
    }

    /// Its name in reports and evidence JSON (`arch`, `target`, `guessed`, `default`).
    pub const fn as_str(self) -> &'static str {
        match self {
            GenerationFrom::Arch => "arch",
            GenerationFrom::Target => "target",
            GenerationFrom::Guessed => "guessed",
            GenerationFrom::Default => "default",
        }
    }
}

/// How a program's bundles fare under each generation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Fit {
    /// Whole bundles validated (the same under each generation).
    pub bundles: usize,
    /// Invalid bundles under each of [`Generation::ALL`], in that order.
    pub invalid: [usize; 3],
}

impl Fit {
    /// Validates every whole bundle of `streams` under each generation.
    pub fn of(streams: &[&[u8]]) -> Fit {
        let mut fit = Fit { bundles: 0, invalid: [0; 3] };
        let mut findings = Vec::new();
        for g in Generation::ALL {
            let mut invalid = 0;
            let mut bundles = 0;
            for s in streams {
                // The stream validator gives the spec's findings; only a bundle
                // the spec refuses can be accepted by the errata.
                bundles += validate::decode_stream(s, g, |_, b, spec| {
                    if spec.is_empty() {
                        return;
                    }
                    findings.clear();
                    validate::validate_into_as(b, g, Profile::Amended, &mut findings);
                    invalid += usize::from(!validate::is_valid(&findings));
                });
            }
            fit.bundles = bundles;
            fit.invalid[g.index()] = invalid;
        }
        fit
    }

    /// The generation with the fewest invalid bundles; a tie goes to the lowest.
    pub fn best(&self) -> Generation {
        // min_by_key keeps the first of equal keys: ALL is in ascending order.
        Generation::ALL.into_iter().min_by_key(|g| self.invalid[g.index()]).unwrap_or(Generation::V2)
    }

    /// `v2: 3, v3: 0, v4: 1`.
    pub fn counts(&self) -> String {
        let parts: Vec<String> = Generation::ALL.iter().map(|g| format!("{g}: {}", self.invalid[g.index()])).collect();
        parts.join(", ")
    }
}

/// The generation a program is judged under and how it was chosen.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Choice {
    /// The generation the bundles are judged under.
    pub generation: Generation,
    /// How it was chosen.
    pub from: GenerationFrom,
    /// The container's target as it names it (`None` for a raw file, or a container without one).
    pub target: Option<String>,
    /// The fit that made a guess (`None` unless guessed).
    pub fit: Option<Fit>,
}

/// A container's generation: `arch`, else its target's, else the best fit of `streams`.
pub fn for_container(target: Option<&str>, arch: Option<Generation>, streams: &[&[u8]]) -> Choice {
    let target_owned = target.map(str::to_string);
    if let Some(g) = arch {
        return Choice { generation: g, from: GenerationFrom::Arch, target: target_owned, fit: None };
    }
    if let Some(g) = target.and_then(Generation::from_target) {
        return Choice { generation: g, from: GenerationFrom::Target, target: target_owned, fit: None };
    }
    let fit = Fit::of(streams);
    Choice { generation: fit.best(), from: GenerationFrom::Guessed, target: target_owned, fit: Some(fit) }
}

/// A raw bundle file's generation: `arch`, else v2.
pub fn for_raw(arch: Option<Generation>) -> Choice {
    match arch {
        Some(g) => Choice { generation: g, from: GenerationFrom::Arch, target: None, fit: None },
        None => Choice { generation: Generation::V2, from: GenerationFrom::Default, target: None, fit: None },
    }
}

impl Choice {
    /// What a command says on stderr (after `FILE: `) about a guessed
    /// generation; `None` when nothing was guessed. The target is quoted as
    /// the container names it: escape the line before printing it.
    pub fn warning(&self) -> Option<String> {
        let fit = self.fit.as_ref().filter(|_| self.from == GenerationFrom::Guessed)?;
        let what = match &self.target {
            Some(t) => format!("target `{t}` maps to no known generation"),
            None => "no target (kelf-0.json) names a generation".to_string(),
        };
        Some(format!(
            "{what}; judged as {}, the generation under which the fewest of its {} bundles are invalid ({}); choose one with --arch",
            self.generation,
            fit.bundles,
            fit.counts()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arch_then_target_then_the_best_fit_with_ties_to_the_lowest() {
        let none: [&[u8]; 0] = [];
        assert_eq!(for_container(Some("cayman"), Some(Generation::V4), &none).from, GenerationFrom::Arch);
        let c = for_container(Some("Trn2"), None, &none);
        assert_eq!((c.generation, c.from, c.warning()), (Generation::V3, GenerationFrom::Target, None));
        // No bundle: every generation ties at 0 invalid, the lowest wins.
        let c = for_container(Some("trn9"), None, &none);
        assert_eq!((c.generation, c.from), (Generation::V2, GenerationFrom::Guessed));
        assert_eq!(
            c.warning().as_deref(),
            Some("target `trn9` maps to no known generation; judged as v2, the generation under which the fewest of its 0 bundles are invalid (v2: 0, v3: 0, v4: 0); choose one with --arch")
        );
        let fit = Fit { bundles: 9, invalid: [3, 1, 1] };
        assert_eq!(fit.best(), Generation::V3);
        assert_eq!(Fit { bundles: 9, invalid: [3, 4, 0] }.best(), Generation::V4);
        assert_eq!(for_raw(None).from, GenerationFrom::Default);
        assert_eq!(for_raw(Some(Generation::V3)).generation, Generation::V3);
        assert_eq!(serde_json::to_value(GenerationFrom::Guessed).ok(), Some(serde_json::json!("guessed")));
    }

    #[test]
    fn the_fit_counts_invalid_bundles_under_each_generation() {
        use tpb_isa::Bundle;
        let bundle = |op: u8| {
            let mut b = [0u8; 64];
            b[0] = op;
            b[1] = tpb_isa::bundle::INST_WORD_LEN;
            b
        };
        let valid = |op: u8, g: Generation| validate::is_valid(&validate::validate_as(&Bundle::decode(&bundle(op)), g, Profile::Amended));
        // A header-only bundle that v2 refuses and v3 accepts (an opcode new in v3, say).
        let Some(op) = (0..=u8::MAX).find(|&op| !valid(op, Generation::V2) && valid(op, Generation::V3)) else {
            panic!("no opcode v3 has and v2 refuses")
        };
        let Some(both) = (0..=u8::MAX).find(|&op| Generation::ALL.iter().all(|&g| valid(op, g))) else { panic!("no opcode valid everywhere") };
        let stream = [bundle(op), bundle(both), bundle(op)].concat();
        let fit = Fit::of(&[&stream, &bundle(both)]);
        assert_eq!(fit.bundles, 4);
        assert_eq!(fit.invalid[Generation::V2.index()], 2);
        assert_eq!(fit.invalid[Generation::V3.index()], 0);
        assert_eq!(fit.best(), Generation::V3);
        let c = for_container(Some("newchip"), None, &[&stream]);
        assert_eq!((c.generation, c.from), (Generation::V3, GenerationFrom::Guessed));
        let Some(w) = c.warning() else { panic!("a guess is not said") };
        assert!(w.starts_with("target `newchip` maps to no known generation; judged as v3, the generation under which the fewest of its 3 bundles are invalid (v2: 2, v3: 0, v4: "), "{w}");
    }
}
