//! The engines of a NeuronCore that bundles run on, as the opcode table's
//! engine column (`engine_typical` in `opcodes.tsv`) names them. The column
//! says where an op usually runs, not where it must: a bundle seen on
//! another engine is a fact about the table, not an invalid bundle.
//!
//! Each engine's spelling is its variant's name, written once in the list
//! below ([`Engine::as_str`] is made from it): the table's rows, the C
//! header's comments and every report print that name.

use serde::{Serialize, Serializer};
use std::fmt;

macro_rules! engines {
    ($( $(#[$doc:meta])* $name:ident, )*) => {
        /// An engine the opcode table names, in the order reports list them
        /// (the five that own instruction streams first).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
        // The variants are spelled as the spec's table spells them (`PE`, `POOL`), so a row of the table reads as its source.
        #[allow(clippy::upper_case_acronyms)]
        pub enum Engine {
            $( $(#[$doc])* $name, )*
        }

        impl Engine {
            /// Every engine, in the order reports list them.
            pub const ALL: &'static [Engine] = &[$(Engine::$name),*];

            /// The table's spelling (`PE`, `ACT`, `POOL`).
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(Engine::$name => stringify!($name),)*
                }
            }
        }
    };
}

engines! {
    /// The tensor (matrix-multiply) engine.
    PE,
    /// The activation engine.
    ACT,
    /// The vector engine.
    DVE,
    /// The GPSIMD (pool) engine.
    POOL,
    /// The sync engine: semaphores, branches, barriers.
    SP,
    /// The DMA queues.
    DMA,
    /// The scalar register-addressed loads and saves.
    SCALAR,
    /// The collective-communication engine.
    CC,
}

impl Engine {
    /// The engine the table spells `name` (exactly, case included).
    pub fn from_name(name: &str) -> Option<Engine> {
        Engine::ALL.iter().copied().find(|e| e.as_str() == name)
    }
}

impl fmt::Display for Engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The table's spelling of [`Engines::Any`].
pub const ANY: &str = "ANY";

/// One row's engine column: the engines an op usually runs on, or any.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engines {
    /// Any engine (custom-op headers and arguments: they run where their op does).
    Any,
    /// These engines, the usual one first (`POOL/DVE`).
    Of(&'static [Engine]),
}

impl Engines {
    /// Whether the column names `e` (any engine is named by [`Engines::Any`]).
    pub fn names(self, e: Engine) -> bool {
        match self {
            Engines::Any => true,
            Engines::Of(list) => list.contains(&e),
        }
    }

    /// The engine listed first (where the op usually runs); `None` for any.
    pub fn first(self) -> Option<Engine> {
        match self {
            Engines::Any => None,
            Engines::Of(list) => list.first().copied(),
        }
    }
}

impl fmt::Display for Engines {
    /// `POOL/DVE`, `PE`, `ANY`: the table's column as the spec writes it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Engines::Any => f.write_str(ANY),
            Engines::Of(list) => {
                for (i, e) in list.iter().enumerate() {
                    if i > 0 {
                        f.write_str("/")?;
                    }
                    f.write_str(e.as_str())?;
                }
                Ok(())
            }
        }
    }
}

impl Serialize for Engines {
    /// As its text (`"POOL/DVE"`): reports print the column as the table spells it.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::{Engine, Engines, ANY};
    use crate::opcode::OPCODES;

    /// A column as its text reads back: `ANY`, or engine names joined by `/`.
    fn parse(column: &str) -> Option<Engines> {
        if column == ANY {
            return Some(Engines::Any);
        }
        let list: Option<Vec<Engine>> = column.split('/').map(Engine::from_name).collect();
        let list = list.filter(|l| !l.is_empty())?;
        // The table's own slices are 'static; a column it does not hold is none of its.
        OPCODES.iter().map(|o| o.engine).find(|e| matches!(e, Engines::Of(l) if *l == list.as_slice()))
    }

    /// Each spelling names one engine and each engine has one spelling; `ANY`
    /// is no engine's, and every column of the table reads back as itself.
    #[test]
    fn each_spelling_names_one_engine() {
        for e in Engine::ALL {
            assert_eq!(Engine::from_name(e.as_str()), Some(*e), "{e}");
            assert_eq!(Engine::ALL.iter().filter(|o| o.as_str() == e.as_str()).count(), 1, "{e}");
            assert_eq!(serde_json::to_value(e).ok(), Some(serde_json::json!(e.as_str())), "{e}");
        }
        let spellings: Vec<&str> = Engine::ALL.iter().map(|e| e.as_str()).collect();
        assert_eq!(spellings, ["PE", "ACT", "DVE", "POOL", "SP", "DMA", "SCALAR", "CC"]);
        assert_eq!(Engine::from_name(ANY), None);
        assert_eq!(Engine::from_name("pe"), None, "case matters, as in the table");
        for o in OPCODES {
            let text = o.engine.to_string();
            assert_eq!(parse(&text), Some(o.engine), "{:#04x} {text}", o.byte);
            assert_eq!(serde_json::to_value(o.engine).ok(), Some(serde_json::json!(text)));
        }
        // Every engine and ANY appear in the table: no spelling here is unused there.
        for e in Engine::ALL {
            assert!(OPCODES.iter().any(|o| matches!(o.engine, Engines::Of(l) if l.contains(e))), "{e} in no row");
        }
        assert!(OPCODES.iter().any(|o| o.engine == Engines::Any));
        for bad in ["", "/", "PE/", "POOL//DVE", "Activation", "any"] {
            assert_eq!(parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_column_names_its_engines_and_any_names_all() {
        let column = Engines::Of(&[Engine::POOL, Engine::DVE]);
        let named: Vec<Engine> = Engine::ALL.iter().copied().filter(|e| column.names(*e)).collect();
        assert_eq!(named, [Engine::DVE, Engine::POOL]);
        assert_eq!(column.first(), Some(Engine::POOL));
        assert_eq!(column.to_string(), "POOL/DVE");
        assert!(Engine::ALL.iter().all(|e| Engines::Any.names(*e)));
        assert_eq!(Engines::Any.first(), None);
    }
}
