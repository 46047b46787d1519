//! [`AdapterTrap`]: the codes of the checks a fused adapter makes.

/// Why a fused adapter traps: the argument of its `trap` built-in, which
/// fails with the error of that check (the runtime decides the error).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(i32)]
pub enum AdapterTrap {
    /// A pointer not aligned for its value.
    UnalignedPointer,
    /// A variant discriminant past the last case.
    InvalidDiscriminant,
    /// A `char` that is not a Unicode scalar value.
    InvalidChar,
    /// A list whose contents are outside its memory.
    ListOutOfBounds,
    /// A string whose contents are outside its memory.
    StringOutOfBounds,
    /// A spilled parameter tuple or result area outside its memory.
    MemoryOutOfBounds,
    /// A list longer than `MAX_LIST_BYTE_LENGTH` bytes.
    ListTooLong,
    /// A string longer than `MAX_STRING_BYTE_LENGTH` bytes.
    StringTooLong,
    /// A UTF-8 string that is not well-formed.
    InvalidUtf8,
}

impl AdapterTrap {
    const ALL: [AdapterTrap; 9] = [
        AdapterTrap::UnalignedPointer,
        AdapterTrap::InvalidDiscriminant,
        AdapterTrap::InvalidChar,
        AdapterTrap::ListOutOfBounds,
        AdapterTrap::StringOutOfBounds,
        AdapterTrap::MemoryOutOfBounds,
        AdapterTrap::ListTooLong,
        AdapterTrap::StringTooLong,
        AdapterTrap::InvalidUtf8,
    ];

    /// The trap of code `code` (`self as i32`).
    pub fn from_code(code: u32) -> Option<AdapterTrap> {
        AdapterTrap::ALL.get(code as usize).copied()
    }
}
