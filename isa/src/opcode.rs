//! The opcode table: every L3 opcode byte (bundle byte 0) with its name, the
//! engine it usually runs on, per-generation availability, and the body layout
//! the spec gives it. Transcribed from `opcodes.tsv` (spec §1.3 / D-J32) and
//! the spec's op → family map (§2.1, §2.8). Decoding, validation, the text
//! format and the C header's opcode enum all read this one table.

use crate::bundle::kind::BodyKind;
use crate::engine::{Engine, Engines};
use crate::generation::Generation;
use crate::provenance::{Confidence, Provenance};
use serde::Serialize;

/// Whether a generation encodes an opcode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Avail {
    /// Encoded on that generation.
    Yes,
    /// Not on that generation.
    No,
    /// Lowered to a plain copy on that generation, so never encoded there.
    Copy,
}

/// Which descriptor slots of the body are operands of this op.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Operands {
    /// Whether the body's source slots are read (false: Memset writes without reading).
    pub src: bool,
    /// Whether the body's destination slots are written (false: LoadStationary loads the weights and writes none).
    pub dst: bool,
}

/// One row of the opcode table.
#[derive(Clone, Debug, Serialize)]
pub struct OpcodeInfo {
    /// The opcode byte (bundle byte 0).
    pub byte: u8,
    /// The op's name in the opcode table (`TensorTensor`), as the text format writes it.
    pub name: &'static str,
    /// Where the op usually runs (`engine_typical`): not a constraint.
    pub engine: Engines,
    /// Availability on v2, v3, v4.
    pub avail: [Avail; 3],
    /// The body layout its bundles decode to.
    pub body: BodyKind,
    /// Which of the body's operand slots the op uses.
    pub operands: Operands,
    /// Provenance of the op's body assignment (the opcode byte itself is §1.3 / D-J32).
    pub body_prov: Provenance,
    /// The table's remarks on the op (pairing, aliases), possibly empty.
    pub notes: &'static str,
}

impl OpcodeInfo {
    /// Whether generation `g` encodes the op ([`Avail::Yes`]).
    pub fn available(&self, g: Generation) -> bool {
        self.avail[g.index()] == Avail::Yes
    }
}

/// Provenance of the opcode bytes and availability columns.
pub const OPCODE_PROV: Provenance = Provenance::new("1.3 / D-J32 (opcodes.tsv)", Confidence::Confirmed);

macro_rules! avail {
    (y) => {
        Avail::Yes
    };
    (-) => {
        Avail::No
    };
    (c) => {
        Avail::Copy
    };
}
macro_rules! operands {
    (io) => {
        Operands { src: true, dst: true }
    };
    (i) => {
        Operands { src: true, dst: false }
    };
    (o) => {
        Operands { src: false, dst: true }
    };
    (none) => {
        Operands { src: false, dst: false }
    };
}

/// A row's engine column, written as the table writes it: `POOL/DVE` or `ANY`.
macro_rules! engines {
    (ANY) => {
        Engines::Any
    };
    ($($e:ident)/+) => {
        Engines::Of(&[$(Engine::$e),+])
    };
}

macro_rules! opcodes {
    ($( $byte:literal $name:ident $($engine:ident)/+ [$v2:tt $v3:tt $v4:tt] $body:ident($ops:ident) $conf:ident $notes:literal; )*) => {
        /// Every known opcode, sorted by byte.
        pub static OPCODES: &[OpcodeInfo] = &[ $(
            OpcodeInfo {
                byte: $byte,
                name: stringify!($name),
                engine: engines!($($engine)/+),
                avail: [avail!($v2), avail!($v3), avail!($v4)],
                body: BodyKind::$body,
                operands: operands!($ops),
                body_prov: Provenance::new(body_section(BodyKind::$body), Confidence::$conf),
                notes: $notes,
            },
        )* ];
    };
}

const fn body_section(b: BodyKind) -> &'static str {
    match b {
        BodyKind::Matmul => "2.1 Family A / 2.5",
        BodyKind::MatmulMx => "2.6",
        BodyKind::Activation | BodyKind::TensorScalar => "2.1 Family A",
        BodyKind::TensorTensor => "2.1 Family B",
        BodyKind::PoolCopy => "2.1 Family C",
        BodyKind::BnStats => "2.1 mixed-width slots",
        BodyKind::Semaphore => "1.14",
        BodyKind::Branch => "D-M10",
        BodyKind::LoadActFuncSet
        | BodyKind::StreamMask
        | BodyKind::NoOp
        | BodyKind::RegisterAlu
        | BodyKind::DmaTrigger
        | BodyKind::Dma
        | BodyKind::TensorLoad
        | BodyKind::CollectiveCoarse
        | BodyKind::TensorScalarAddr
        | BodyKind::CustomOpArg
        | BodyKind::ReadActAccumulator
        | BodyKind::IndirectDma
        | BodyKind::IndirectDmaChecked
        | BodyKind::BnGradients
        | BodyKind::BnBackprop
        | BodyKind::BnBackpropParamLoad
        | BodyKind::CustomOpHeader
        | BodyKind::MaxIndexValues
        | BodyKind::MatchReplace8
        | BodyKind::TensorScalarAffineSelect
        | BodyKind::PoolBufferLoad
        | BodyKind::RegisterMove => "R (recovered from real programs)",
        BodyKind::Opaque => "G3 (no body layout given)",
    }
}

opcodes! {
    0x01 LoadStationary PE [y y y] Matmul(i) Confirmed "Matmult part 1 (LdWeights); pairs with 0x02";
    0x02 MatMul PE [y y y] Matmul(io) Confirmed "Matmult part 2 (MultiplyMoving)";
    0x06 LoadTagsSparse PE [- y y] Matmul(i) Strong "MatmultSparse part 1";
    0x07 MatMulSparse PE [- y y] Matmul(io) Strong "MatmultSparse last part";
    0x09 LdWeightMx PE [- - y] MatmulMx(i) Confirmed "MatmultMx part 1; always paired with 0x0A";
    0x0A MatMulMx PE [- - y] MatmulMx(io) Confirmed "MatmultMx part 2";
    0x21 Activation ACT [y y -] Activation(io) Confirmed "renumbered to 0x25 on v4";
    0x23 LoadActFuncSet ACT [y y y] LoadActFuncSet(none) Inferred "activation table load";
    0x24 ReadActivationAccumulator ACT [y y y] ReadActAccumulator(none) Inferred "two BIR ops share it";
    0x25 Activation ACT [- - y] Activation(io) Confirmed "v4 Activate2";
    0x30 Exponential ACT [- - y] Opaque(none) Confirmed "fused exp+sum";
    0x41 TensorTensor DVE [y y y] TensorTensor(io) Confirmed "v3 widens fields only";
    0x42 TensorReduce POOL/DVE [y y y] PoolCopy(io) Strong "channel-reduce variant";
    0x43 TensorScalar DVE [y y y] TensorScalar(io) Confirmed "";
    0x45 Pool POOL [y y y] PoolCopy(io) Confirmed "MaxPool/AvgPool";
    0x46 TensorCopy DVE [y y y] PoolCopy(io) Confirmed "";
    0x47 TensorCopyCast DVE [y y y] PoolCopy(io) Strong "copy with dtype change";
    0x48 Reciprocal DVE [y y y] PoolCopy(io) Strong "";
    0x49 Memset DVE [y y y] PoolCopy(o) Strong "constant fill";
    0x4D Rng DVE [y y y] PoolCopy(o) Strong "also Memset(Random)";
    0x51 TensorTensorBitvec DVE [y y y] TensorTensor(io) Strong "bit-vector TensorTensor";
    0x52 TensorReduce POOL/DVE [y y y] PoolCopy(io) Strong "channel-reduce variant";
    0x53 TensorScalar DVE [y y y] TensorScalar(io) Strong "OrPtr variant";
    0x61 BNStats POOL [y y y] BnStats(io) Confirmed "";
    0x62 BNStatsAggregate POOL [y y y] Opaque(none) Confirmed "";
    0x63 BNGradients POOL [y y y] BnGradients(none) Inferred "AP coefficients";
    0x64 BNBackprop POOL [y y y] BnBackprop(none) Inferred "may be followed by 0x65 or 0x8E";
    0x65 BNBackpropParamLoad POOL [y y y] BnBackpropParamLoad(none) Inferred "";
    0x67 PoolBufferLoad POOL [y y c] PoolBufferLoad(none) Inferred "Gather part 1";
    0x68 Gather POOL [y y c] PoolCopy(io) Strong "Gather part 2";
    0x69 StreamMask DVE [y y y] StreamMask(none) Inferred "StreamShuffle/StreamTranspose part 1";
    0x6A StreamShuffle DVE [y y y] PoolCopy(io) Strong "part 2";
    0x6B StreamTranspose DVE [y y y] PoolCopy(io) Strong "part 2";
    0x6C Max8 DVE [y y y] PoolCopy(io) Strong "";
    0x6D MaxIndexValues DVE [y y y] MaxIndexValues(none) Inferred "pairs with 0x6E";
    0x6E MaxIndexIndices DVE [y y y] Opaque(none) Confirmed "";
    0x6F MatchReplace8 DVE [y y y] MatchReplace8(none) Inferred "";
    0x74 TensorScalarAddr DVE [y y y] TensorScalarAddr(none) Inferred "TensorScalarPtr address variant";
    0x77 GetRandState POOL/DVE [y y y] Opaque(none) Confirmed "also RandGetState (v3+)";
    0x78 RandSetState POOL/DVE [- y y] Opaque(none) Confirmed "also SetRandState Pool arm (v3+)";
    0x7C TensorReduce POOL/DVE [y y y] PoolCopy(io) Strong "tensor-reduce variant";
    0x7D TensorReduce POOL/DVE [y y y] PoolCopy(io) Strong "tensor-reduce variant";
    0x7E Iota DVE [y y y] PoolCopy(o) Strong "";
    0x7F Dropout DVE [y y y] Opaque(none) Confirmed "";
    0x82 BNStatsTranspose POOL [y y y] BnStats(io) Strong "BNStats with transpose";
    0x83 TensorReduce POOL/DVE [y y y] PoolCopy(io) Strong "channel-reduce variant";
    0x84 TensorReduce POOL/DVE [y y y] PoolCopy(io) Strong "channel-reduce variant";
    0x85 CustomOpHeader ANY [y y y] CustomOpHeader(none) Inferred "followed by 0x86 x (1+num_args)";
    0x86 CustomOpArg ANY [y y y] CustomOpArg(none) Inferred "";
    0x8A TensorTensorGpsimdInt32 POOL [y y y] Opaque(none) Confirmed "GPSIMD int32 re-stamp of TensorTensor";
    0x8E BNBackprop2ParamLoad POOL [y y y] Opaque(none) Confirmed "";
    0x92 TensorScalarAffineSelect DVE [y y y] TensorScalarAffineSelect(none) Inferred "";
    0x93 TensorScalar DVE [y y y] TensorScalar(io) Strong "OrPtr variant";
    0x94 BNGradientsReg POOL [y y y] Opaque(none) Confirmed "register coefficients";
    0x9A TensorScalarReduce DVE [y y y] TensorScalar(io) Strong "TensorScalar / TensorScalarCache reduce";
    0x9B DveReadAccumulator DVE [y y y] Opaque(none) Confirmed "";
    0x9C ScalarTensorTensor DVE [y y y] Opaque(none) Confirmed "TensorScalarPtr STT variant";
    0x9E ScalarTensorTensor DVE [y y y] Opaque(none) Confirmed "TensorScalarPtr STT variant";
    0xA0 EventSemaphore SP [y y y] Semaphore(none) Confirmed "";
    0xA1 Halt SP [y y y] Opaque(none) Confirmed "";
    0xA2 Drain SP [y y y] Opaque(none) Confirmed "";
    0xA4 NoOp SP [y y y] NoOp(none) Inferred "";
    0xA7 RegisterMove SP [y y y] RegisterMove(none) Inferred "";
    0xA8 RegisterAlu SP [y y y] RegisterAlu(none) Inferred "";
    0xA9 Branch SP [y y y] Branch(none) Confirmed "CompareAndBranch and UnconditionalBranch share it";
    0xAA TensorLoadReg SCALAR [y y y] Opaque(none) Confirmed "register-mode address";
    0xAB TensorSave SCALAR [y y y] Opaque(none) Confirmed "immediate address";
    0xB0 GroupResetSemaphores SP [y y y] Opaque(none) Confirmed "semaphore range clear";
    0xB2 ReadVarAddr DMA [y y y] Opaque(none) Confirmed "";
    0xBC RangeSelect DVE [- y y] Opaque(none) Confirmed "may be followed by 0x9B";
    0xBE GetSequenceBounds POOL [- y y] Opaque(none) Confirmed "GPSIMD";
    0xBF Sb2sbCollective POOL [- y y] Opaque(none) Confirmed "GPSIMD SB-to-SB";
    0xC1 DMATrigger DMA [y y y] DmaTrigger(none) Inferred "";
    0xC2 ResetQueueInstance DMA [y y y] Opaque(none) Confirmed "";
    0xC4 IndirectDmaChecked DMA [y y y] IndirectDmaChecked(none) Inferred "IndirectLoad/Save, bound-checked (Pool only)";
    0xCA IndirectSaveAccumulate DMA/POOL/ACT [y y y] Opaque(none) Confirmed "scatter-add";
    0xCB Collective POOL [y y y] Opaque(none) Confirmed "CollectiveSend and CollectiveRecv share it";
    0xCD TensorSaveReg SCALAR [y y y] Opaque(none) Confirmed "register-mode address";
    0xCE TensorLoad SCALAR [y y y] TensorLoad(none) Inferred "immediate address";
    0xCF SwitchQueueInstance DMA [y y y] Opaque(none) Confirmed "";
    0xD0 SetRandState DVE [y y y] Opaque(none) Confirmed "";
    0xD2 Return SP [y y y] Opaque(none) Confirmed "one per active engine";
    0xD3 Call SP [y y y] Opaque(none) Confirmed "one per active engine";
    0xD4 Dma DMA [y y y] Dma(none) Inferred "Load, Save and DMACopy share it (ADDR8 descriptors)";
    0xD5 AllEngineBarrier SP [y y y] Opaque(none) Confirmed "";
    0xD6 IndirectDma DMA [y y y] IndirectDma(none) Inferred "IndirectLoad/Save, plain";
    0xD8 CoreBarrier SP [- y y] Opaque(none) Confirmed "";
    0xD9 CollectiveComputeFine POOL [y y y] Opaque(none) Confirmed "";
    0xDA CollectiveComputeCoarse POOL [y y y] CollectiveCoarse(none) Inferred "also a DMACopy variant";
    0xDB GetCurProcessingRankId CC [y y y] Opaque(none) Confirmed "";
    0xDC GetGlobalRankId CC [y y y] Opaque(none) Confirmed "";
    0xDD BranchHint SP [y y y] Opaque(none) Confirmed "";
    0xDE TensorCompletion CC [y y y] Opaque(none) Confirmed "";
    0xDF Exit SP [y y y] Opaque(none) Confirmed "";
    0xE2 Rand2 DVE [- - y] Opaque(none) Confirmed "";
    0xE3 QuantizeMx PE/DVE [- - y] Opaque(none) Confirmed "byte 1 may be 0x11 (SATURATE)";
    0xE5 ScalarTensorTensor DVE [y y y] Opaque(none) Confirmed "TensorScalarPtr STT variant";
    0xE6 TensorScalarCumulative DVE [y y y] Opaque(none) Confirmed "TensorScalarCache cumulative/scan";
    0xE7 IndirectCopy POOL [y c c] Opaque(none) Confirmed "";
    0xEA CopyPredicated DVE [y y y] Opaque(none) Confirmed "masked copy / select";
    0xF2 NonzeroWithCount DVE [- y y] Opaque(none) Confirmed "";
}

/// The opcode allowed to carry `inst_word_len` 0x11.
pub const QUANTIZE_MX: u8 = 0xE3;

/// 256-entry index into [`OPCODES`], built at compile time.
const INDEX: [u8; 256] = {
    let mut idx = [u8::MAX; 256];
    let mut i = 0;
    while i < OPCODES.len() {
        idx[OPCODES[i].byte as usize] = i as u8;
        i += 1;
    }
    idx
};

/// The table row of an opcode byte, `None` when the spec does not know it.
pub fn lookup(byte: u8) -> Option<&'static OpcodeInfo> {
    match INDEX[usize::from(byte)] {
        u8::MAX => None,
        i => OPCODES.get(usize::from(i)),
    }
}

/// Body layout by opcode byte, derived from the table at compile time:
/// every decode reads it, so it is one byte load rather than two.
const BODY_KINDS: [BodyKind; 256] = {
    let mut kinds = [BodyKind::Opaque; 256];
    let mut i = 0;
    while i < OPCODES.len() {
        kinds[OPCODES[i].byte as usize] = OPCODES[i].body;
        i += 1;
    }
    kinds
};

/// The body layout a byte decodes with: the table's, or opaque for unknown bytes.
#[inline]
pub fn body_kind(byte: u8) -> BodyKind {
    BODY_KINDS[usize::from(byte)]
}

/// Display name of an opcode byte (`unknown` for bytes outside the table).
pub fn name(byte: u8) -> &'static str {
    lookup(byte).map_or("unknown", |o| o.name)
}

/// An opcode byte as every JSON output gives it: a string, `0x8c`
/// (a number in one output and a string in the next broke readers).
pub fn hex(byte: u8) -> String {
    format!("{byte:#04x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn body_kinds_follow_the_table() {
        for byte in 0..=u8::MAX {
            assert_eq!(body_kind(byte), lookup(byte).map_or(BodyKind::Opaque, |o| o.body), "{byte:#04x}");
        }
    }
}
