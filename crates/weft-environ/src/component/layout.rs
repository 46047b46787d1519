//! The arithmetic of the canonical ABI's layouts (`CanonicalABI.md`:
//! `alignment`, `elem_size`, `flatten_type`), over the facts of the parts of
//! a type rather than over the types themselves, so that the type registry
//! can work out the facts of each defined type once, when it is interned
//! ([`crate::component::ComponentTypes::value_abi`]), from the facts of its
//! parts. [`crate::component::abi`] re-exports the public items.
//!
//! Sizes and counts saturate (at `u32::MAX` and `usize::MAX`): no input
//! makes these functions panic.

/// The most core parameters a synchronous function passes as values.
pub const MAX_FLAT_PARAMS: usize = 16;
/// The most core parameters an `async`-lowered function passes as values.
pub const MAX_FLAT_ASYNC_PARAMS: usize = 4;
/// The most core results a function returns as values.
pub const MAX_FLAT_RESULTS: usize = 1;

/// How many of a type's flat types [`ValueAbi`] keeps: one more than any
/// signature passes as values, so that a type whose flattening is longer
/// is still seen to pass the limit.
pub const FLAT_KEPT: usize = MAX_FLAT_PARAMS + 1;

/// A core value type of a flattened signature.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FlatType {
    /// `i32`.
    I32,
    /// `i64`.
    I64,
    /// `f32`.
    F32,
    /// `f64`.
    F64,
}

/// The address type of the memory of the canonical options: the type of
/// pointers and lengths.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum PtrType {
    /// A 32-bit memory.
    #[default]
    I32,
    /// A 64-bit memory.
    I64,
}

impl PtrType {
    /// Both pointer types, in the order [`ValueAbi`] keeps its facts.
    pub const ALL: [PtrType; 2] = [PtrType::I32, PtrType::I64];

    /// `ptr_size`: the size of a pointer in bytes.
    pub fn size(self) -> u32 {
        match self {
            PtrType::I32 => 4,
            PtrType::I64 => 8,
        }
    }

    /// The core type of a pointer.
    pub fn flat(self) -> FlatType {
        match self {
            PtrType::I32 => FlatType::I32,
            PtrType::I64 => FlatType::I64,
        }
    }

    fn index(self) -> usize {
        match self {
            PtrType::I32 => 0,
            PtrType::I64 => 1,
        }
    }
}

/// `join`: the core type that can carry both `a` and `b` (bit-cast).
pub fn join(a: FlatType, b: FlatType) -> FlatType {
    match (a, b) {
        _ if a == b => a,
        (FlatType::I32, FlatType::F32) | (FlatType::F32, FlatType::I32) => FlatType::I32,
        _ => FlatType::I64,
    }
}

/// The size in bytes (and alignment) of the discriminant of a variant with
/// `cases` cases: a `u8` up to 256 cases, a `u16` up to 65536, else a `u32`.
pub fn discriminant_size(cases: usize) -> u32 {
    match cases {
        0..=0x100 => 1,
        0x101..=0x1_0000 => 2,
        _ => 4,
    }
}

/// `elem_size_flags` (equal to `alignment_flags` up to 32 labels): the size
/// in bytes of flags with `labels` labels. Flags with more than 32 labels
/// (which validation rejects) are laid out as the previous version of the
/// spec did, in `ceil(n / 32)` 32-bit words.
pub fn flags_size(labels: usize) -> u32 {
    match labels {
        0 => 0,
        1..=8 => 1,
        9..=16 => 2,
        _ => 4u32.saturating_mul(flags_words(labels)),
    }
}

/// The alignment of flags with `labels` labels.
pub fn flags_alignment(labels: usize) -> u32 {
    match labels {
        0..=8 => 1,
        9..=16 => 2,
        _ => 4,
    }
}

/// The number of `i32`s flags with `labels` labels flatten to.
pub(crate) fn flags_words(labels: usize) -> u32 {
    u32::try_from(labels.div_ceil(32)).unwrap_or(u32::MAX)
}

/// `align_to`: `offset` rounded up to a multiple of `align` (saturating).
pub fn align_to(offset: u32, align: u32) -> u32 {
    let align = align.max(1);
    offset.div_ceil(align).saturating_mul(align)
}

/// The size and alignment of a value in memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Layout {
    /// `elem_size`.
    pub size: u32,
    /// `alignment`.
    pub align: u32,
}

/// The first [`FLAT_KEPT`] flat types of a value, and how many it has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Flat {
    kept: [FlatType; FLAT_KEPT],
    len: u8,
}

impl Flat {
    const EMPTY: Flat = Flat {
        kept: [FlatType::I32; FLAT_KEPT],
        len: 0,
    };

    fn of(types: &[FlatType]) -> Flat {
        let mut flat = Flat::EMPTY;
        flat.extend(types.iter().copied());
        flat
    }

    fn as_slice(&self) -> &[FlatType] {
        &self.kept[..usize::from(self.len)]
    }

    /// Appends `types`, keeping at most [`FLAT_KEPT`].
    fn extend(&mut self, types: impl IntoIterator<Item = FlatType>) {
        for t in types {
            let Some(slot) = self.kept.get_mut(usize::from(self.len)) else {
                return;
            };
            *slot = t;
            self.len += 1;
        }
    }
}

/// The canonical-ABI facts of a value type: its layout in memory and its
/// flat types, for both pointer types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ValueAbi {
    layout: [Layout; 2],
    flat: [Flat; 2],
    flat_count: usize,
}

impl ValueAbi {
    /// The facts of an empty record (and of a type index that is not in the
    /// registry): size 0, alignment 1, no flat values.
    pub const EMPTY: ValueAbi = ValueAbi {
        layout: [Layout { size: 0, align: 1 }; 2],
        flat: [Flat::EMPTY; 2],
        flat_count: 0,
    };

    /// A scalar of `size` bytes (aligned to its size) passed as one `flat`.
    pub fn scalar(size: u32, flat: FlatType) -> ValueAbi {
        let layout = Layout { size, align: size };
        let flat = Flat::of(&[flat]);
        ValueAbi {
            layout: [layout; 2],
            flat: [flat; 2],
            flat_count: 1,
        }
    }

    /// A pointer and a length (a string or a list).
    pub fn pointer_pair() -> ValueAbi {
        let facts = PtrType::ALL.map(|ptr| {
            let layout = Layout {
                size: 2 * ptr.size(),
                align: ptr.size(),
            };
            (layout, Flat::of(&[ptr.flat(), ptr.flat()]))
        });
        ValueAbi {
            layout: facts.map(|(l, _)| l),
            flat: facts.map(|(_, f)| f),
            flat_count: 2,
        }
    }

    /// Flags with `labels` labels.
    pub fn flags(labels: usize) -> ValueAbi {
        let layout = Layout {
            size: flags_size(labels),
            align: flags_alignment(labels),
        };
        let words = flags_words(labels) as usize;
        let mut flat = Flat::EMPTY;
        flat.extend(std::iter::repeat_n(FlatType::I32, words.min(FLAT_KEPT)));
        ValueAbi {
            layout: [layout; 2],
            flat: [flat; 2],
            flat_count: words,
        }
    }

    /// A record of `fields`, with the offset of each field for both pointer
    /// types.
    pub fn record(fields: &[ValueAbi]) -> (ValueAbi, [Box<[u32]>; 2]) {
        let mut abi = ValueAbi::EMPTY;
        let mut offsets = [Vec::with_capacity(fields.len()), Vec::with_capacity(fields.len())];
        for p in PtrType::ALL {
            let i = p.index();
            let mut size = 0u32;
            let mut align = 1u32;
            for f in fields {
                let l = f.layout(p);
                align = align.max(l.align);
                size = align_to(size, l.align);
                offsets[i].push(size);
                size = size.saturating_add(l.size);
                abi.flat[i].extend(f.flat(p).iter().copied());
            }
            abi.layout[i] = Layout {
                size: align_to(size, align),
                align,
            };
        }
        abi.flat_count = fields.iter().fold(0, |n, f| n.saturating_add(f.flat_count));
        (abi, offsets.map(Vec::into_boxed_slice))
    }

    /// A variant whose cases have these payloads, with the offset of the
    /// payload for both pointer types.
    pub fn variant(cases: &[Option<ValueAbi>]) -> (ValueAbi, [u32; 2]) {
        let mut abi = ValueAbi::EMPTY;
        let mut payload_offset = [0; 2];
        let disc = discriminant_size(cases.len());
        for p in PtrType::ALL {
            let i = p.index();
            let mut max_align = 1u32;
            let mut max_size = 0u32;
            let mut payload: Vec<FlatType> = Vec::new();
            for case in cases.iter().flatten() {
                let l = case.layout(p);
                max_align = max_align.max(l.align);
                max_size = max_size.max(l.size);
                for (j, t) in case.flat(p).iter().enumerate() {
                    match payload.get_mut(j) {
                        Some(slot) => *slot = join(*slot, *t),
                        None => payload.push(*t),
                    }
                }
            }
            let align = disc.max(max_align);
            payload_offset[i] = align_to(disc, max_align);
            abi.layout[i] = Layout {
                size: align_to(payload_offset[i].saturating_add(max_size), align),
                align,
            };
            abi.flat[i].extend(std::iter::once(FlatType::I32).chain(payload));
        }
        let payload_count = cases.iter().flatten().map(|c| c.flat_count).max().unwrap_or(0);
        abi.flat_count = payload_count.saturating_add(1);
        (abi, payload_offset)
    }

    /// A list of exactly `n` elements of `elem`.
    pub fn fixed_list(elem: &ValueAbi, n: u32) -> ValueAbi {
        let mut abi = ValueAbi::EMPTY;
        for p in PtrType::ALL {
            let i = p.index();
            let l = elem.layout(p);
            abi.layout[i] = Layout {
                size: n.saturating_mul(l.size),
                align: l.align,
            };
            if !elem.flat(p).is_empty() {
                for _ in 0..n.min(FLAT_KEPT as u32) {
                    abi.flat[i].extend(elem.flat(p).iter().copied());
                }
            }
        }
        abi.flat_count = elem.flat_count.saturating_mul(n as usize);
        abi
    }

    /// The size and alignment with pointers of type `ptr`.
    pub fn layout(&self, ptr: PtrType) -> Layout {
        self.layout[ptr.index()]
    }

    /// `len(flatten_type(ty))`, saturating.
    pub fn flat_count(&self) -> usize {
        self.flat_count
    }

    /// The first [`FLAT_KEPT`] of the flat types with pointers of type
    /// `ptr`: all of them when [`ValueAbi::flat_count`] is at most
    /// [`FLAT_KEPT`].
    pub fn flat(&self, ptr: PtrType) -> &[FlatType] {
        self.flat[ptr.index()].as_slice()
    }
}

/// The facts of a defined type: those of its values, and where its parts
/// lie in memory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DefinedAbi {
    /// The facts of its values.
    pub value: ValueAbi,
    /// For a record or tuple, the offset of each field, for 32-bit and
    /// 64-bit pointers; empty otherwise.
    field_offsets: [Box<[u32]>; 2],
    /// For a variant-like type, the offset of the payload, for 32-bit and
    /// 64-bit pointers; 0 otherwise.
    payload_offset: [u32; 2],
}

impl DefinedAbi {
    /// The facts of a type that is neither a record nor a variant.
    pub fn plain(value: ValueAbi) -> DefinedAbi {
        DefinedAbi {
            value,
            field_offsets: Default::default(),
            payload_offset: [0; 2],
        }
    }

    /// The facts of a record or tuple, with the offsets of its fields.
    pub fn record(value: ValueAbi, field_offsets: [Box<[u32]>; 2]) -> DefinedAbi {
        DefinedAbi {
            value,
            field_offsets,
            payload_offset: [0; 2],
        }
    }

    /// The facts of a variant-like type, with the offset of its payload.
    pub fn variant(value: ValueAbi, payload_offset: [u32; 2]) -> DefinedAbi {
        DefinedAbi {
            value,
            field_offsets: Default::default(),
            payload_offset,
        }
    }

    /// The offsets of the fields of a record or tuple with pointers of type
    /// `ptr` (empty for other types).
    pub fn field_offsets(&self, ptr: PtrType) -> &[u32] {
        &self.field_offsets[ptr.index()]
    }

    /// The offset of the payload of a variant-like type with pointers of
    /// type `ptr` (0 for other types).
    pub fn payload_offset(&self, ptr: PtrType) -> u32 {
        self.payload_offset[ptr.index()]
    }
}
