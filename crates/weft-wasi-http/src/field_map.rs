//! `FieldMap`: the headers and trailers behind a `fields` resource.

use crate::ctx::WasiHttpHooks;
use crate::p2::bindings::http::types::HeaderError as WitHeaderError;
use crate::p2::error::HeaderError;
use http::header::{HeaderMap, HeaderName, HeaderValue};

/// Why a change of a [`FieldMap`] was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldMapError {
    /// The fields are immutable (headers of a request or response).
    Immutable,
    /// The names and values would pass the context's size limit.
    TotalSizeTooBig,
    /// The name is not a valid header name.
    InvalidHeaderName,
    /// The value is not a valid header value.
    InvalidHeaderValue,
    /// The name is one the hooks forbid.
    Forbidden,
}

impl std::fmt::Display for FieldMapError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            FieldMapError::Immutable => "the fields are immutable",
            FieldMapError::TotalSizeTooBig => "the fields would pass their size limit",
            FieldMapError::InvalidHeaderName => "invalid header name",
            FieldMapError::InvalidHeaderValue => "invalid header value",
            FieldMapError::Forbidden => "forbidden header",
        })
    }
}

impl std::error::Error for FieldMapError {}

/// Headers or trailers, mutable up to a size limit or immutable (the
/// host value of `wasi:http/types.fields`).
#[derive(Debug, Clone)]
pub struct FieldMap {
    map: HeaderMap,
    /// `Some(limit)` while mutable.
    limit: Option<usize>,
    size: usize,
}

fn entry_size(name: &HeaderName, value: &HeaderValue) -> usize {
    name.as_str().len() + value.len()
}

impl FieldMap {
    /// Immutable fields holding `map` without the headers `hooks` forbid.
    pub fn new_immutable(hooks: &mut dyn WasiHttpHooks, mut map: HeaderMap) -> FieldMap {
        let forbidden: Vec<HeaderName> = map.keys().filter(|k| hooks.is_forbidden_header(k)).cloned().collect();
        for name in forbidden {
            map.remove(&name);
        }
        let size = map.iter().map(|(k, v)| entry_size(k, v)).sum();
        FieldMap { map, limit: None, size }
    }

    /// Empty mutable fields that may hold `limit` bytes of names and
    /// values.
    pub fn new_mutable(limit: usize) -> FieldMap {
        FieldMap {
            map: HeaderMap::new(),
            limit: Some(limit),
            size: 0,
        }
    }

    /// Makes the fields mutable again, up to `limit` bytes.
    pub fn set_mutable(&mut self, limit: usize) {
        self.limit = Some(limit);
    }

    /// Makes the fields immutable.
    pub fn set_immutable(&mut self) {
        self.limit = None;
    }

    /// Whether the fields may be changed.
    pub fn is_mutable(&self) -> bool {
        self.limit.is_some()
    }

    /// The headers.
    pub fn as_header_map(&self) -> &HeaderMap {
        &self.map
    }

    /// The values of the field `name`, in order (none for a name that is not
    /// a valid header name): `fields.get`.
    pub fn values(&self, name: &str) -> Vec<Vec<u8>> {
        let Ok(name) = HeaderName::from_bytes(name.as_bytes()) else {
            return Vec::new();
        };
        self.map.get_all(&name).iter().map(|v| v.as_bytes().to_vec()).collect()
    }

    /// Whether the field `name` has a value (false for a name that is not a
    /// valid header name): `fields.has`.
    pub fn has(&self, name: &str) -> bool {
        HeaderName::from_bytes(name.as_bytes()).is_ok_and(|name| self.map.contains_key(&name))
    }

    /// Every name and value, in order: `fields.entries` (0.2) and
    /// `fields.copy-all` (0.3).
    pub fn entries(&self) -> Vec<(String, Vec<u8>)> {
        self.map
            .iter()
            .map(|(k, v)| (k.as_str().to_string(), v.as_bytes().to_vec()))
            .collect()
    }

    /// The `content-length`, if it is there and a number.
    pub fn content_length(&self) -> Option<u64> {
        self.map
            .get(http::header::CONTENT_LENGTH)?
            .to_str()
            .ok()?
            .trim()
            .parse()
            .ok()
    }

    fn check_name(hooks: &mut dyn WasiHttpHooks, key: &str) -> Result<HeaderName, FieldMapError> {
        let name = HeaderName::from_bytes(key.as_bytes()).map_err(|_| FieldMapError::InvalidHeaderName)?;
        if hooks.is_forbidden_header(&name) {
            return Err(FieldMapError::Forbidden);
        }
        Ok(name)
    }

    fn check_mutable(&self) -> Result<usize, FieldMapError> {
        self.limit.ok_or(FieldMapError::Immutable)
    }

    /// Replaces every value of `key` by `values`.
    pub fn set(
        &mut self,
        hooks: &mut dyn WasiHttpHooks,
        key: String,
        values: Vec<Vec<u8>>,
    ) -> Result<(), FieldMapError> {
        let limit = self.check_mutable()?;
        let name = Self::check_name(hooks, &key)?;
        let values = values
            .into_iter()
            .map(|v| HeaderValue::from_bytes(&v).map_err(|_| FieldMapError::InvalidHeaderValue))
            .collect::<Result<Vec<_>, _>>()?;
        let old: usize = self.map.get_all(&name).iter().map(|v| entry_size(&name, v)).sum();
        let new: usize = values.iter().map(|v| entry_size(&name, v)).sum();
        if self.size - old + new > limit {
            return Err(FieldMapError::TotalSizeTooBig);
        }
        self.map.remove(&name);
        for v in values {
            self.map.append(name.clone(), v);
        }
        self.size = self.size - old + new;
        Ok(())
    }

    /// Removes every value of `key` and returns them.
    pub fn remove_all(
        &mut self,
        hooks: &mut dyn WasiHttpHooks,
        key: String,
    ) -> Result<Vec<HeaderValue>, FieldMapError> {
        self.check_mutable()?;
        let name = Self::check_name(hooks, &key)?;
        let old: Vec<HeaderValue> = self.map.get_all(&name).iter().cloned().collect();
        self.size -= old.iter().map(|v| entry_size(&name, v)).sum::<usize>();
        self.map.remove(&name);
        Ok(old)
    }

    /// Adds `value` to the values of `key`; `true` when `key` had values
    /// before.
    pub fn append(
        &mut self,
        hooks: &mut dyn WasiHttpHooks,
        key: String,
        value: Vec<u8>,
    ) -> Result<bool, FieldMapError> {
        self.check_mutable()?;
        let name = Self::check_name(hooks, &key)?;
        let value = HeaderValue::from_bytes(&value).map_err(|_| FieldMapError::InvalidHeaderValue)?;
        self.append_raw(name, value)
    }

    /// Adds `value` to the values of `name` with no check of the hooks.
    pub fn append_raw(&mut self, name: HeaderName, value: HeaderValue) -> Result<bool, FieldMapError> {
        let limit = self.check_mutable()?;
        let size = entry_size(&name, &value);
        if self.size + size > limit {
            return Err(FieldMapError::TotalSizeTooBig);
        }
        self.size += size;
        Ok(self.map.append(name, value))
    }
}

impl From<FieldMap> for HeaderMap {
    fn from(f: FieldMap) -> HeaderMap {
        f.map
    }
}

impl From<FieldMapError> for HeaderError {
    fn from(e: FieldMapError) -> HeaderError {
        use FieldMapError as F;
        use WitHeaderError as H;
        match e {
            F::Immutable => H::Immutable.into(),
            F::Forbidden => H::Forbidden.into(),
            F::InvalidHeaderName | F::InvalidHeaderValue | F::TotalSizeTooBig => H::InvalidSyntax.into(),
        }
    }
}
