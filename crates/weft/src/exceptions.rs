//! Exceptions made by the host: their type ([`ExnType`]), their allocator
//! ([`ExnRefPre`]) and [`ExnRef::new`], as in Wasmtime 48. The host throws
//! them with `Store::throw` (store.rs); reading an exception's tag and
//! payload is in values.rs, next to [`ExnRef`].

use crate::store::{AsContext, AsContextMut, StoreId};
use crate::types::{FieldType, StorageType};
use crate::types::{FuncType, Mutability, TagType, ValType};
use crate::values::{ExnRef, Rooted, Val};
use crate::{Engine, Tag};

/// The type of an exception: the types of its payload's values (its
/// fields), which are the parameters of the type of the tags it may be
/// thrown with.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ExnType {
    tag: TagType,
}

impl ExnType {
    /// The exception type whose payload has `fields`, registered in
    /// `engine`.
    pub fn new(engine: &Engine, fields: impl IntoIterator<Item = ValType>) -> crate::Result<ExnType> {
        Ok(ExnType {
            tag: TagType::new(FuncType::new(engine, fields, [])),
        })
    }

    /// The exception type of the tags of type `tag`: its payload is the
    /// parameters of the tag's function type. Fails when that type has
    /// results (tags have none).
    pub fn from_tag_type(tag: &TagType) -> crate::Result<ExnType> {
        if tag.ty().results().len() != 0 {
            crate::bail!(
                "tag types have no results, but `{}` has some: it is the type of no exception",
                tag.ty()
            );
        }
        Ok(ExnType { tag: tag.clone() })
    }

    /// The type of the tags exceptions of this type are thrown with.
    pub fn tag_type(&self) -> TagType {
        self.tag.clone()
    }

    /// The engine the type is registered in.
    pub fn engine(&self) -> &Engine {
        self.tag.ty().engine()
    }

    /// The type of field `i` of the payload, if there is one (fields are
    /// immutable).
    pub fn field(&self, i: usize) -> Option<FieldType> {
        self.tag.ty().param(i).map(field_type)
    }

    /// The types of the payload's fields, in order.
    pub fn fields(&self) -> impl ExactSizeIterator<Item = FieldType> + '_ {
        self.tag.ty().params().map(field_type)
    }

    /// Whether an exception of type `self` may be used where one of `other`
    /// is expected (exception types match only themselves).
    pub fn matches(&self, other: &ExnType) -> bool {
        FuncType::eq(self.tag.ty(), other.tag.ty())
    }

    /// Whether the two types are the same.
    #[allow(clippy::should_implement_trait, reason = "Wasmtime's name and signature")]
    pub fn eq(a: &ExnType, b: &ExnType) -> bool {
        a.matches(b)
    }
}

impl std::fmt::Display for ExnType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "(exn")?;
        for p in self.tag.ty().params() {
            write!(f, " (field {p})")?;
        }
        write!(f, ")")
    }
}

fn field_type(ty: ValType) -> FieldType {
    FieldType::new(Mutability::Const, StorageType::ValType(ty))
}

/// An allocator of exceptions of one type in one store, for
/// [`ExnRef::new`].
#[derive(Debug)]
pub struct ExnRefPre {
    store: StoreId,
    ty: ExnType,
}

impl ExnRefPre {
    /// An allocator of exceptions of type `ty` in `store`.
    pub fn new(mut store: impl AsContextMut, ty: ExnType) -> ExnRefPre {
        let store = store.as_context_mut();
        ExnRefPre {
            store: store.0.opaque().id(),
            ty,
        }
    }

    /// The type of the exceptions.
    pub fn ty(&self) -> &ExnType {
        &self.ty
    }
}

impl ExnRef {
    /// A new exception of the store, to be thrown with tag `tag` (whose type
    /// must be the allocator's) and with `fields` as payload (one value per
    /// field of the allocator's type, each of that field's type). The host
    /// throws it with `Store::throw`, `StoreContextMut::throw` or
    /// `Caller::throw`, or hands it to wasm as an `exnref`.
    ///
    /// Fails, saying what is wrong, when the allocator, the tag or a value
    /// belongs to another store, when the tag's type is not the
    /// allocator's, or when the number or a type of the fields is wrong.
    /// The exception is rooted in the current root scope, and collected
    /// once nothing reaches it (see [`ExnRef`]).
    pub fn new(
        mut store: impl AsContextMut,
        allocator: &ExnRefPre,
        tag: &Tag,
        fields: &[Val],
    ) -> crate::Result<Rooted<ExnRef>> {
        let store = store.as_context_mut();
        let opaque = store.0.opaque_mut();
        opaque.check(allocator.store, "the exception allocator (`ExnRefPre`)")?;
        opaque.check(tag.store, "the exception's tag")?;
        if !Engine::same(allocator.ty.engine(), &opaque.engine) {
            crate::bail!("the exception type belongs to a different engine than the store");
        }
        let tag_ty = opaque.tag_type(tag.id);
        let want: Vec<ValType> = allocator.ty.tag.ty().params().collect();
        let have: Vec<ValType> = tag_ty.ty().params().collect();
        if want.len() != have.len() || !want.iter().zip(&have).all(|(a, b)| ValType::eq(a, b)) {
            crate::bail!(
                "the tag's type {tag_ty} is not the type of the allocator's exceptions {}",
                allocator.ty
            );
        }
        if fields.len() != want.len() {
            crate::bail!(
                "the exception type {} has {} fields, but {} values were given",
                allocator.ty,
                want.len(),
                fields.len()
            );
        }
        let values = fields
            .iter()
            .zip(&want)
            .enumerate()
            .map(|(i, (v, t))| {
                v.to_raw(opaque, t)
                    .map_err(|e| e.context(format!("field {i} of the exception")))
            })
            .collect::<crate::Result<Box<[_]>>>()?;
        let word = opaque
            .objects
            .new_exception(tag.id, values)
            .ok_or_else(|| crate::format_err!("the exception's tag is not a tag of the store"))?;
        Ok(Rooted {
            store: opaque.id(),
            index: word - 1,
            _marker: std::marker::PhantomData,
        })
    }
}

impl Rooted<ExnRef> {
    /// Field `index` of the exception's payload. Fails when there is no
    /// such field or the exception is not of `store`.
    pub fn field(&self, store: impl AsContext, index: usize) -> crate::Result<Val> {
        let mut fields = self.fields(store)?;
        let n = fields.len();
        if index >= n {
            crate::bail!("field index {index} out of bounds: the exception has {n} fields");
        }
        Ok(fields.swap_remove(index))
    }

    /// The exception's type: the payload of its tag's type.
    pub fn ty(&self, store: impl AsContext) -> crate::Result<ExnType> {
        let store = store.as_context();
        let tag = self.tag(&store)?;
        ExnType::from_tag_type(&tag.ty(&store))
    }
}
