//! Which body layout an opcode uses ([`BodyKind`]), apart from the bodies
//! themselves: the opcode table names a kind and the codec decodes by it, so
//! both depend on this small module and neither on the other.

use serde::Serialize;

/// Hands the list of body kinds, each with the struct that lays it out, to
/// the macro `$then`: [`BodyKind`] here and `Bundle` in `bundle/mod.rs` are
/// both made from this one list.
macro_rules! with_bodies {
    ($then:ident) => {
        $then! {
            Matmul(MatmulBundle) "Family A dense matmul / LoadStationary";
            MatmulMx(MatmulMxBundle) "Family A MX matmul (CoreV4)";
            Activation(ActivationBundle) "Family A activation";
            TensorScalar(TensorScalarBundle) "Family A TensorScalar";
            TensorTensor(TensorTensorBundle) "Family B TensorTensor";
            PoolCopy(PoolCopyBundle) "Family C Pool / Copy / Memset / reduce";
            BnStats(BnStatsBundle) "Family C mixed width (BNStats)";
            Semaphore(SemaphoreBundle) "SP semaphore record";
            Branch(BranchBundle) "SP branch";
            LoadActFuncSet(LoadActFuncSetBundle) "LoadActFuncSet, recovered from real programs";
            StreamMask(StreamMaskBundle) "StreamMask, recovered from real programs";
            NoOp(NoOpBundle) "NoOp, recovered from real programs";
            RegisterAlu(RegisterAluBundle) "RegisterAlu, recovered from real programs";
            DmaTrigger(DmaTriggerBundle) "DMATrigger, recovered from real programs";
            Dma(DmaBundle) "Dma (DMA_DIRECT2D), recovered from real programs";
            TensorLoad(TensorLoadBundle) "TensorLoad, recovered from real programs";
            CollectiveCoarse(CollectiveCoarseBundle) "CollectiveComputeCoarse, recovered from real programs";
            TensorScalarAddr(TensorScalarAddrBundle) "TensorScalarAddr, recovered from real programs";
            CustomOpArg(CustomOpArgBundle) "CustomOpArg, recovered from real programs";
            ReadActAccumulator(ReadActAccumulatorBundle) "ReadActivationAccumulator, recovered from real programs";
            IndirectDma(IndirectDmaBundle) "IndirectDma, recovered from real programs";
            IndirectDmaChecked(IndirectDmaCheckedBundle) "IndirectDmaChecked, recovered from real programs";
            BnGradients(BnGradientsBundle) "BNGradients, recovered from real programs";
            BnBackprop(BnBackpropBundle) "BNBackprop, recovered from real programs";
            BnBackpropParamLoad(BnBackpropParamLoadBundle) "BNBackpropParamLoad, recovered from real programs";
            CustomOpHeader(CustomOpHeaderBundle) "CustomOpHeader, recovered from real programs";
            MaxIndexValues(MaxIndexValuesBundle) "MaxIndexValues, recovered from real programs";
            MatchReplace8(MatchReplace8Bundle) "MatchReplace8, recovered from real programs";
            TensorScalarAffineSelect(TensorScalarAffineSelectBundle) "TensorScalarAffineSelect, recovered from real programs";
            PoolBufferLoad(PoolBufferLoadBundle) "PoolBufferLoad, recovered from real programs";
            RegisterMove(RegisterMoveBundle) "RegisterMove, recovered from real programs";
            Opaque(OpaqueBundle) "no body layout: header plus 60 raw bytes";
        }
    };
}
pub(crate) use with_bodies;

macro_rules! kinds {
    ($( $kind:ident($ty:ident) $doc:literal; )*) => {
        /// Which body layout an opcode uses.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
        pub enum BodyKind { $( #[doc = $doc] $kind, )* }

        impl BodyKind {
            /// Every body kind, in declaration order (typed bodies, then `Opaque`).
            pub const ALL: &'static [BodyKind] = &[ $( BodyKind::$kind, )* ];
        }
    };
}

with_bodies!(kinds);
