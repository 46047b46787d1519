//! The one recursive translation of the adapters: moving a value of an
//! interface type from a source (flat core values in locals, or memory at
//! an address plus an offset) to a destination of either kind, as lifting
//! it from one side and lowering it into the other would, with the same
//! checks and traps.

// Import loop kept on purpose: the kinds of async values an adapter passes
// to its built-ins are defined in mod.rs, beside the built-ins' imports.
use super::trap::AdapterTrap;
use super::wasm::{self, coerce_lift, coerce_lower, Body};
use super::{ASYNC_ERROR_CONTEXT, ASYNC_FUTURE, ASYNC_STREAM};
use crate::component::abi::{self, Despecialized, FlatType, PtrType, MAX_LIST_BYTE_LENGTH};
use crate::component::{ComponentTypes, DefinedType, InterfaceType, StringEncoding};
use wasm_encoder::{BlockType, Instruction as W, ValType};

const PTR: PtrType = PtrType::I32;
/// The deepest nesting of types the translation follows.
const MAX_DEPTH: u32 = 100;
/// The most instructions of an adapter function (types are shared trees,
/// so a small component can name a type whose translation is huge).
const MAX_INSTRUCTIONS: usize = 1 << 20;

/// Where a value comes from or goes to.
#[derive(Clone, Debug)]
pub(super) enum Place {
    /// Flat core values, one local each (with its type), in order.
    Flat(Vec<(u32, FlatType)>),
    /// Memory `mem` at the address in local `addr` plus `offset`.
    Mem { mem: u32, addr: u32, offset: u32 },
}

impl Place {
    fn at(&self, extra: u32) -> Result<Place, String> {
        match self {
            Place::Mem { mem, addr, offset } => Ok(Place::Mem {
                mem: *mem,
                addr: *addr,
                offset: offset
                    .checked_add(extra)
                    .ok_or_else(|| "a value's offset overflows 32 bits".to_string())?,
            }),
            Place::Flat(_) => Err("internal error: an offset into flat values".into()),
        }
    }

    fn first(&self) -> Result<(u32, FlatType), String> {
        match self {
            Place::Flat(vs) => vs
                .first()
                .copied()
                .ok_or_else(|| "internal error: a flat value is missing".to_string()),
            Place::Mem { .. } => Err("internal error: a flat value expected".into()),
        }
    }
}

/// Which way values go (caller to callee for parameters, callee to caller
/// for results): the memories, encodings and built-ins of each side.
#[derive(Clone, Copy)]
pub(super) struct CopyDirection {
    /// The memories of the source and of the destination.
    pub(super) from_mem: u32,
    pub(super) to_mem: u32,
    /// The string encodings of the two sides.
    pub(super) from_enc: StringEncoding,
    pub(super) to_enc: StringEncoding,
    /// The destination's `realloc`.
    pub(super) realloc: Option<u32>,
    /// The UTF-8 check of the source memory (both sides UTF-8).
    pub(super) validate: Option<u32>,
    /// The host transcoding built-in (other encodings).
    pub(super) transcode: Option<u32>,
    /// The built-ins moving `own` and lending `borrow` handles.
    pub(super) own: Option<u32>,
    pub(super) borrow: Option<u32>,
    /// The built-in moving stream and future ends and error contexts.
    pub(super) async_value: Option<u32>,
    /// The built-in that fails with "unsupported".
    pub(super) unsupported: Option<u32>,
}

/// Builds the body of one adapter function: the translation of each value
/// from its source place to its destination place, and the temporaries it
/// needs.
pub(super) struct AdapterFuncBuilder<'a> {
    pub(super) types: &'a ComponentTypes,
    pub(super) b: Body,
    /// The local holding the call's scope (for borrows).
    pub(super) scope: u32,
    tmp_i32: u32,
    tmp_f32: u32,
    tmp_f64: u32,
}

fn missing(what: &str) -> String {
    format!("internal error: the adapter lacks {what}")
}

/// Whether a list of `ty` can be copied byte for byte.
fn is_byte_copyable(types: &ComponentTypes, ty: InterfaceType, depth: u32) -> bool {
    use InterfaceType as I;
    if depth > MAX_DEPTH {
        return false;
    }
    match abi::despecialize(types, ty) {
        Despecialized::Other(I::U8 | I::S8 | I::U16 | I::S16 | I::U32 | I::S32 | I::U64 | I::S64) => true,
        Despecialized::Record(fields) => fields.iter().all(|t| is_byte_copyable(types, *t, depth + 1)),
        Despecialized::List(t, Some(_)) => is_byte_copyable(types, t, depth + 1),
        _ => false,
    }
}

impl<'a> AdapterFuncBuilder<'a> {
    /// A generator for a function with `params` parameters whose checks
    /// call the `trap` built-in `trap`.
    pub(super) fn new(types: &'a ComponentTypes, params: u32, trap: Option<u32>) -> AdapterFuncBuilder<'a> {
        let mut b = Body::new(params, trap);
        let scope = b.local(ValType::I32);
        let tmp_i32 = b.local(ValType::I32);
        let tmp_f32 = b.local(ValType::F32);
        let tmp_f64 = b.local(ValType::F64);
        AdapterFuncBuilder {
            types,
            b,
            scope,
            tmp_i32,
            tmp_f32,
            tmp_f64,
        }
    }

    /// Fresh locals for the flat values `tys`.
    pub(super) fn flat_locals(&mut self, tys: &[FlatType]) -> Vec<(u32, FlatType)> {
        tys.iter().map(|t| (self.b.flat_local(*t), *t)).collect()
    }

    /// The places of the fields `tys` of a record at `place`.
    pub(super) fn fields(&self, tys: &[InterfaceType], place: &Place) -> Result<Vec<Place>, String> {
        match place {
            Place::Flat(vs) => {
                let mut out = Vec::with_capacity(tys.len());
                let mut rest = vs.as_slice();
                for t in tys {
                    let n = abi::flatten_type(self.types, *t, PTR).len();
                    if n > rest.len() {
                        return Err("internal error: too few flat values for a record".into());
                    }
                    let (now, later) = rest.split_at(n);
                    out.push(Place::Flat(now.to_vec()));
                    rest = later;
                }
                Ok(out)
            }
            Place::Mem { .. } => {
                let mut out = Vec::with_capacity(tys.len());
                let mut offset = 0u32;
                for t in tys {
                    offset = abi::align_to(offset, abi::alignment(self.types, *t, PTR));
                    out.push(place.at(offset)?);
                    offset = offset.saturating_add(abi::elem_size(self.types, *t, PTR));
                }
                Ok(out)
            }
        }
    }

    /// Emits the move of a value of type `ty` from `src` to `dst`.
    pub(super) fn translate(
        &mut self,
        ty: InterfaceType,
        src: &Place,
        dst: &Place,
        dir: &CopyDirection,
        depth: u32,
    ) -> Result<(), String> {
        use InterfaceType as I;
        if depth > MAX_DEPTH {
            return Err("unsupported: a type nested too deeply for a fused adapter".into());
        }
        if self.b.instrs.len() > MAX_INSTRUCTIONS {
            return Err("unsupported: a type too large for a fused adapter".into());
        }
        match abi::despecialize(self.types, ty) {
            Despecialized::Other(t) => match t {
                I::Bool => self.scalar(src, dst, 1, FlatType::I32, |g| {
                    g.b.i(W::I32Const(0));
                    g.b.i(W::I32Ne);
                }),
                I::U8 => self.scalar(src, dst, 1, FlatType::I32, |g| {
                    g.b.i(W::I32Const(0xff));
                    g.b.i(W::I32And);
                }),
                I::S8 => self.scalar(src, dst, 1, FlatType::I32, |g| g.b.i(W::I32Extend8S)),
                I::U16 => self.scalar(src, dst, 2, FlatType::I32, |g| {
                    g.b.i(W::I32Const(0xffff));
                    g.b.i(W::I32And);
                }),
                I::S16 => self.scalar(src, dst, 2, FlatType::I32, |g| g.b.i(W::I32Extend16S)),
                I::U32 | I::S32 => self.scalar(src, dst, 4, FlatType::I32, |_| {}),
                I::U64 | I::S64 => self.scalar(src, dst, 8, FlatType::I64, |_| {}),
                I::F32 => self.scalar(src, dst, 4, FlatType::F32, |g| {
                    // x != x ? canonical NaN : x
                    let t = g.tmp_f32;
                    g.b.i(W::LocalTee(t));
                    g.b.i(W::F32Const(f32::from_bits(0x7fc0_0000).into()));
                    g.b.i(W::LocalGet(t));
                    g.b.i(W::LocalGet(t));
                    g.b.i(W::F32Eq);
                    g.b.i(W::Select);
                }),
                I::F64 => self.scalar(src, dst, 8, FlatType::F64, |g| {
                    let t = g.tmp_f64;
                    g.b.i(W::LocalTee(t));
                    g.b.i(W::F64Const(f64::from_bits(0x7ff8_0000_0000_0000).into()));
                    g.b.i(W::LocalGet(t));
                    g.b.i(W::LocalGet(t));
                    g.b.i(W::F64Eq);
                    g.b.i(W::Select);
                }),
                I::Char => self.scalar(src, dst, 4, FlatType::I32, |g| {
                    // Trap on surrogates and on values past U+10FFFF.
                    let t = g.tmp_i32;
                    g.b.i(W::LocalTee(t));
                    g.b.i(W::I32Const(0x110000));
                    g.b.i(W::I32GeU);
                    g.b.i(W::LocalGet(t));
                    g.b.i(W::I32Const(0xd800));
                    g.b.i(W::I32Sub);
                    g.b.i(W::I32Const(0x800));
                    g.b.i(W::I32LtU);
                    g.b.i(W::I32Or);
                    g.b.trap_if(AdapterTrap::InvalidChar);
                    g.b.i(W::LocalGet(t));
                }),
                I::String => self.string(src, dst, dir),
                I::Own(r) => {
                    let own = dir.own.ok_or_else(|| missing("the `own` built-in"))?;
                    self.scalar(src, dst, 4, FlatType::I32, |g| {
                        let t = g.tmp_i32;
                        g.b.i(W::LocalSet(t));
                        g.b.i(W::I32Const(r.0 as i32));
                        g.b.i(W::LocalGet(t));
                        g.b.i(W::Call(own));
                    })
                }
                I::Borrow(r) => match dir.borrow {
                    Some(borrow) => {
                        let scope = self.scope;
                        self.scalar(src, dst, 4, FlatType::I32, |g| {
                            let t = g.tmp_i32;
                            g.b.i(W::LocalSet(t));
                            g.b.i(W::I32Const(r.0 as i32));
                            g.b.i(W::LocalGet(t));
                            g.b.i(W::LocalGet(scope));
                            g.b.i(W::Call(borrow));
                        })
                    }
                    None => self.unsupported(dir),
                },
                I::ErrorContext | I::Defined(_) => {
                    let (kind, tag) = match t {
                        I::Defined(d) => match self.types.defined(d) {
                            Some(DefinedType::Stream(_)) => (ASYNC_STREAM, d.0),
                            Some(DefinedType::Future(_)) => (ASYNC_FUTURE, d.0),
                            _ => return Err("internal error: a defined type left by despecialization".into()),
                        },
                        _ => (ASYNC_ERROR_CONTEXT, u32::MAX),
                    };
                    let f = dir
                        .async_value
                        .ok_or_else(|| missing("the stream and future built-in"))?;
                    self.scalar(src, dst, 4, FlatType::I32, |g| {
                        let h = g.tmp_i32;
                        g.b.i(W::LocalSet(h));
                        g.b.i(W::I32Const(kind as i32));
                        g.b.i(W::I32Const(tag as i32));
                        g.b.i(W::LocalGet(h));
                        g.b.i(W::Call(f));
                    })
                }
            },
            Despecialized::Record(fields) => self.translate_record(&fields, src, dst, dir, depth),
            Despecialized::Flags(n) => self.flags(n, src, dst),
            Despecialized::Variant(cases) => self.variant(&cases, src, dst, dir, depth),
            Despecialized::List(elem, Some(n)) => self.fixed_list(elem, n, src, dst, dir, depth),
            Despecialized::List(elem, None) => self.list(elem, src, dst, dir, depth),
        }
    }

    /// A value that cannot cross yet: calls the failing built-in.
    fn unsupported(&mut self, dir: &CopyDirection) -> Result<(), String> {
        let f = dir.unsupported.ok_or_else(|| missing("the `unsupported` built-in"))?;
        self.b.i(W::Call(f));
        self.b.i(W::Unreachable);
        Ok(())
    }

    /// One scalar of `size` bytes in memory and flat type `t`, converted by
    /// `convert` on its way.
    fn scalar(
        &mut self,
        src: &Place,
        dst: &Place,
        size: u32,
        t: FlatType,
        convert: impl FnOnce(&mut AdapterFuncBuilder<'a>),
    ) -> Result<(), String> {
        if let Place::Mem { addr, .. } = dst {
            self.b.i(W::LocalGet(*addr));
        }
        match src {
            Place::Flat(_) => {
                let (local, _) = src.first()?;
                self.b.i(W::LocalGet(local));
            }
            Place::Mem { mem, addr, offset } => wasm::load(&mut self.b, *addr, *offset, size, t, false, *mem),
        }
        convert(self);
        match dst {
            Place::Flat(_) => {
                let (local, _) = dst.first()?;
                self.b.i(W::LocalSet(local));
            }
            Place::Mem { mem, offset, .. } => wasm::store(&mut self.b, *offset, size, t, *mem),
        }
        Ok(())
    }

    /// Flags: one `i32` per 32 flags flat; 1, 2 or 4 bytes per word in
    /// memory. Bits past the last flag are dropped, as lifting ignores them.
    fn flags(&mut self, n: usize, src: &Place, dst: &Place) -> Result<(), String> {
        let unit = match n {
            0..=8 => 1,
            9..=16 => 2,
            _ => 4,
        };
        for w in 0..n.div_ceil(32) {
            let bits = (n - 32 * w).min(32);
            let word = |p: &Place| -> Result<Place, String> {
                match p {
                    Place::Flat(vs) => vs
                        .get(w)
                        .map(|v| Place::Flat(vec![*v]))
                        .ok_or_else(|| "internal error: too few flat values for flags".to_string()),
                    Place::Mem { .. } => p.at(4 * w as u32),
                }
            };
            let (s, d) = (word(src)?, word(dst)?);
            self.scalar(&s, &d, unit, FlatType::I32, |g| {
                if bits < 32 {
                    g.b.i(W::I32Const(((1u64 << bits) - 1) as i32));
                    g.b.i(W::I32And);
                }
            })?;
        }
        Ok(())
    }

    /// A variant (or enum, option, result): the discriminant checked and
    /// copied, then the active case's payload translated (flat payloads
    /// coerced out of and back into their joined slots; unused slots zero).
    fn variant(
        &mut self,
        cases: &[Option<InterfaceType>],
        src: &Place,
        dst: &Place,
        dir: &CopyDirection,
        depth: u32,
    ) -> Result<(), String> {
        let types = self.types;
        let dsize = abi::discriminant_size(cases.len());
        let max_align = cases
            .iter()
            .flatten()
            .map(|t| abi::alignment(types, *t, PTR))
            .fold(1, u32::max);
        let payload_offset = abi::align_to(dsize, max_align);
        let d = self.b.local(ValType::I32);
        match src {
            Place::Flat(_) => {
                let (local, _) = src.first()?;
                self.b.i(W::LocalGet(local));
            }
            Place::Mem { mem, addr, offset } => {
                wasm::load(&mut self.b, *addr, *offset, dsize, FlatType::I32, false, *mem)
            }
        }
        self.b.i(W::LocalTee(d));
        self.b.i(W::I32Const(cases.len() as i32));
        self.b.i(W::I32GeU);
        self.b.trap_if(AdapterTrap::InvalidDiscriminant);
        match dst {
            Place::Flat(vs) => {
                let (local, _) = dst.first()?;
                self.b.i(W::LocalGet(d));
                self.b.i(W::LocalSet(local));
                for (local, t) in vs.iter().skip(1) {
                    self.b.i(match t {
                        FlatType::I32 => W::I32Const(0),
                        FlatType::I64 => W::I64Const(0),
                        FlatType::F32 => W::F32Const(0f32.into()),
                        FlatType::F64 => W::F64Const(0f64.into()),
                    });
                    self.b.i(W::LocalSet(*local));
                }
            }
            Place::Mem { mem, addr, offset } => {
                self.b.i(W::LocalGet(*addr));
                self.b.i(W::LocalGet(d));
                wasm::store(&mut self.b, *offset, dsize, FlatType::I32, *mem);
            }
        }
        for (c, case) in cases.iter().enumerate() {
            let Some(t) = case else { continue };
            self.b.i(W::LocalGet(d));
            self.b.i(W::I32Const(c as i32));
            self.b.i(W::I32Eq);
            self.b.i(W::If(BlockType::Empty));
            // Flattened only for flat places (at most 16 values then).
            let flat = matches!(src, Place::Flat(_)) || matches!(dst, Place::Flat(_));
            let own = if flat {
                abi::flatten_type(types, *t, PTR)
            } else {
                Vec::new()
            };
            let s = match src {
                Place::Flat(vs) => {
                    let tmps = self.flat_locals(&own);
                    for ((tmp, want), (slot, have)) in tmps.iter().zip(vs.iter().skip(1)) {
                        self.b.i(W::LocalGet(*slot));
                        coerce_lift(&mut self.b, *have, *want);
                        self.b.i(W::LocalSet(*tmp));
                    }
                    Place::Flat(tmps)
                }
                Place::Mem { .. } => src.at(payload_offset)?,
            };
            let (dp, tmps) = match dst {
                Place::Flat(_) => {
                    let tmps = self.flat_locals(&own);
                    (Place::Flat(tmps.clone()), tmps)
                }
                Place::Mem { .. } => (dst.at(payload_offset)?, Vec::new()),
            };
            self.translate(*t, &s, &dp, dir, depth + 1)?;
            if let Place::Flat(vs) = dst {
                for ((tmp, have), (slot, want)) in tmps.iter().zip(vs.iter().skip(1)) {
                    self.b.i(W::LocalGet(*tmp));
                    coerce_lower(&mut self.b, *have, *want);
                    self.b.i(W::LocalSet(*slot));
                }
            }
            self.b.i(W::End);
        }
        Ok(())
    }

    /// A `list<T, N>`: its elements one after the other (unrolled when
    /// flat, else in a loop over both memories).
    fn fixed_list(
        &mut self,
        elem: InterfaceType,
        n: u32,
        src: &Place,
        dst: &Place,
        dir: &CopyDirection,
        depth: u32,
    ) -> Result<(), String> {
        let both_mem = matches!((src, dst), (Place::Mem { .. }, Place::Mem { .. }));
        // Unrolled only between flat values (at most 16 of them).
        if !both_mem {
            if n as usize > abi::MAX_FLAT_PARAMS {
                return Err("internal error: a long fixed-length list passed flat".into());
            }
            let tys = vec![elem; n as usize];
            return self.translate_record(&tys, src, dst, dir, depth);
        }
        let (
            Place::Mem {
                mem: sm,
                addr: sa,
                offset: so,
            },
            Place::Mem {
                mem: dm,
                addr: da,
                offset: doff,
            },
        ) = (src, dst)
        else {
            return Err("internal error: fixed-length list places".into());
        };
        let size = abi::elem_size(self.types, elem, PTR);
        let (sp, dp) = (self.b.local(ValType::I32), self.b.local(ValType::I32));
        for (p, a, o) in [(sp, *sa, *so), (dp, *da, *doff)] {
            self.b.i(W::LocalGet(a));
            self.b.i(W::I32Const(o as i32));
            self.b.i(W::I32Add);
            self.b.i(W::LocalSet(p));
        }
        let count = self.b.local(ValType::I32);
        self.b.i(W::I32Const(n as i32));
        self.b.i(W::LocalSet(count));
        self.elements(elem, size, count, (*sm, sp), (*dm, dp), dir, depth)
    }

    fn translate_record(
        &mut self,
        tys: &[InterfaceType],
        src: &Place,
        dst: &Place,
        dir: &CopyDirection,
        depth: u32,
    ) -> Result<(), String> {
        let srcs = self.fields(tys, src)?;
        let dsts = self.fields(tys, dst)?;
        for ((t, s), d) in tys.iter().zip(&srcs).zip(&dsts) {
            self.translate(*t, s, d, dir, depth + 1)?;
        }
        Ok(())
    }

    /// Emits a loop translating `count` (a local) elements of `elem`, `size`
    /// bytes apart, from (memory, address local) `from` to `to`. The address
    /// locals are advanced.
    #[allow(
        clippy::too_many_arguments,
        reason = "the two sides of a copy and where each value is"
    )]
    fn elements(
        &mut self,
        elem: InterfaceType,
        size: u32,
        count: u32,
        from: (u32, u32),
        to: (u32, u32),
        dir: &CopyDirection,
        depth: u32,
    ) -> Result<(), String> {
        let i = self.b.local(ValType::I32);
        self.b.i(W::I32Const(0));
        self.b.i(W::LocalSet(i));
        self.b.i(W::Block(BlockType::Empty));
        self.b.i(W::Loop(BlockType::Empty));
        self.b.i(W::LocalGet(i));
        self.b.i(W::LocalGet(count));
        self.b.i(W::I32GeU);
        self.b.i(W::BrIf(1));
        let s = Place::Mem {
            mem: from.0,
            addr: from.1,
            offset: 0,
        };
        let d = Place::Mem {
            mem: to.0,
            addr: to.1,
            offset: 0,
        };
        self.translate(elem, &s, &d, dir, depth + 1)?;
        for local in [from.1, to.1] {
            self.b.i(W::LocalGet(local));
            self.b.i(W::I32Const(size as i32));
            self.b.i(W::I32Add);
            self.b.i(W::LocalSet(local));
        }
        self.b.i(W::LocalGet(i));
        self.b.i(W::I32Const(1));
        self.b.i(W::I32Add);
        self.b.i(W::LocalSet(i));
        self.b.i(W::Br(0));
        self.b.i(W::End);
        self.b.i(W::End);
        Ok(())
    }

    /// The (pointer, length) pair of a string or list at `src`, in locals.
    fn read_pair(&mut self, src: &Place) -> Result<(u32, u32), String> {
        match src {
            Place::Flat(vs) => match vs.as_slice() {
                [(p, _), (l, _)] => Ok((*p, *l)),
                _ => Err("internal error: a pointer and length expected".into()),
            },
            Place::Mem { mem, addr, offset } => {
                let (p, l) = (self.b.local(ValType::I32), self.b.local(ValType::I32));
                wasm::load(&mut self.b, *addr, *offset, 4, FlatType::I32, false, *mem);
                self.b.i(W::LocalSet(p));
                wasm::load(
                    &mut self.b,
                    *addr,
                    offset.saturating_add(4),
                    4,
                    FlatType::I32,
                    false,
                    *mem,
                );
                self.b.i(W::LocalSet(l));
                Ok((p, l))
            }
        }
    }

    /// Writes the (pointer, length) pair in locals `p`, `l` to `dst`.
    fn write_pair(&mut self, dst: &Place, p: u32, l: u32) -> Result<(), String> {
        match dst {
            Place::Flat(vs) => match vs.as_slice() {
                [(dp, _), (dl, _)] => {
                    self.b.i(W::LocalGet(p));
                    self.b.i(W::LocalSet(*dp));
                    self.b.i(W::LocalGet(l));
                    self.b.i(W::LocalSet(*dl));
                    Ok(())
                }
                _ => Err("internal error: a pointer and length expected".into()),
            },
            Place::Mem { mem, addr, offset } => {
                for (local, o) in [(p, *offset), (l, offset.saturating_add(4))] {
                    self.b.i(W::LocalGet(*addr));
                    self.b.i(W::LocalGet(local));
                    wasm::store(&mut self.b, o, 4, FlatType::I32, *mem);
                }
                Ok(())
            }
        }
    }

    /// A string: validated and copied between two UTF-8 sides, else
    /// transcoded by the host built-in (which follows `store_string`).
    fn string(&mut self, src: &Place, dst: &Place, dir: &CopyDirection) -> Result<(), String> {
        let (p, l) = self.read_pair(src)?;
        let (np, nl) = (self.b.local(ValType::I32), self.b.local(ValType::I32));
        if dir.from_enc == StringEncoding::Utf8 && dir.to_enc == StringEncoding::Utf8 {
            let validate = dir.validate.ok_or_else(|| missing("the UTF-8 check"))?;
            let realloc = dir.realloc.ok_or_else(|| missing("a realloc"))?;
            self.b.i(W::LocalGet(p));
            self.b.i(W::LocalGet(l));
            self.b.i(W::Call(validate));
            self.b.i(W::I32Const(0));
            self.b.i(W::I32Const(0));
            self.b.i(W::I32Const(1));
            self.b.i(W::LocalGet(l));
            self.b.i(W::Call(realloc));
            self.b.i(W::LocalSet(np));
            self.b.check_range(np, l, dir.to_mem, AdapterTrap::StringOutOfBounds);
            self.b.i(W::LocalGet(np));
            self.b.i(W::LocalGet(p));
            self.b.i(W::LocalGet(l));
            self.b.i(W::MemoryCopy {
                src_mem: dir.from_mem,
                dst_mem: dir.to_mem,
            });
            self.b.i(W::LocalGet(l));
            self.b.i(W::LocalSet(nl));
        } else {
            let transcode = dir.transcode.ok_or_else(|| missing("the transcoding built-in"))?;
            self.b.i(W::LocalGet(p));
            self.b.i(W::LocalGet(l));
            self.b.i(W::Call(transcode));
            self.b.i(W::LocalSet(nl));
            self.b.i(W::LocalSet(np));
        }
        self.write_pair(dst, np, nl)
    }

    /// A list: the checks of lifting (length limit, alignment, bounds), the
    /// destination's allocation and its checks, then one `memory.copy` for
    /// elements that are plain bytes, else a loop translating each element.
    fn list(
        &mut self,
        elem: InterfaceType,
        src: &Place,
        dst: &Place,
        dir: &CopyDirection,
        depth: u32,
    ) -> Result<(), String> {
        let realloc = dir.realloc.ok_or_else(|| missing("a realloc"))?;
        let size = abi::elem_size(self.types, elem, PTR);
        let align = abi::alignment(self.types, elem, PTR);
        let (p, l) = self.read_pair(src)?;
        let bytes = self.b.local(ValType::I32);
        self.b.i(W::LocalGet(l));
        self.b.i(W::I64ExtendI32U);
        self.b.i(W::I64Const(i64::from(size)));
        self.b.i(W::I64Mul);
        self.b.i(W::I64Const(i64::from(MAX_LIST_BYTE_LENGTH)));
        self.b.i(W::I64GtU);
        self.b.i(W::LocalGet(l));
        self.b.i(W::I32Const(MAX_LIST_BYTE_LENGTH as i32));
        self.b.i(W::I32GtU);
        self.b.i(W::I32Or);
        self.b.trap_if(AdapterTrap::ListTooLong);
        self.b.i(W::LocalGet(l));
        self.b.i(W::I32Const(size as i32));
        self.b.i(W::I32Mul);
        self.b.i(W::LocalSet(bytes));
        self.b.check_align(p, align);
        self.b.check_range(p, bytes, dir.from_mem, AdapterTrap::ListOutOfBounds);
        let np = self.b.local(ValType::I32);
        self.b.i(W::I32Const(0));
        self.b.i(W::I32Const(0));
        self.b.i(W::I32Const(align as i32));
        self.b.i(W::LocalGet(bytes));
        self.b.i(W::Call(realloc));
        self.b.i(W::LocalSet(np));
        self.b.check_align(np, align);
        self.b.check_range(np, bytes, dir.to_mem, AdapterTrap::ListOutOfBounds);
        if is_byte_copyable(self.types, elem, 0) {
            self.b.i(W::LocalGet(np));
            self.b.i(W::LocalGet(p));
            self.b.i(W::LocalGet(bytes));
            self.b.i(W::MemoryCopy {
                src_mem: dir.from_mem,
                dst_mem: dir.to_mem,
            });
        } else if size > 0 {
            let (sp, dp) = (self.b.local(ValType::I32), self.b.local(ValType::I32));
            self.b.i(W::LocalGet(p));
            self.b.i(W::LocalSet(sp));
            self.b.i(W::LocalGet(np));
            self.b.i(W::LocalSet(dp));
            self.elements(elem, size, l, (dir.from_mem, sp), (dir.to_mem, dp), dir, depth)?;
        }
        self.write_pair(dst, np, l)
    }
}
