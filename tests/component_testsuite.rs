//! Runs the component model reference tests (the `test` directory of the
//! component-model repository) through `weft_wast::WastContext`, one test
//! per `.wast` file, except the files under `async/` and those listed in the
//! suite's `nyi.txt`.
//!
//! Files that do not pass yet are `#[ignore]`d with the reason; run them
//! with `cargo test --test component_testsuite -- --ignored` to see which
//! directives fail.
//!
//! The suite is read from `$WEFT_COMPONENT_TESTSUITE` if set, else from
//! `../shared/component-model/test` beside the repository. When the suite or
//! a file is missing the test fails under CI (the `CI` environment variable
//! is set) and is skipped with a note otherwise.

mod support;

/// The component model's reference tests.
const SUITE: support::Suite = support::Suite {
    env: "WEFT_COMPONENT_TESTSUITE",
    default: "component-model/test",
    what: "component reference test",
};

/// Defines one `#[test]` per reference test file, with its attributes
/// (`#[ignore = "reason"]` for the files that do not pass yet).
macro_rules! component_tests {
    ($($(#[$attr:meta])* $name:ident => $file:literal,)*) => {
        $(
            #[test]
            $(#[$attr])*
            fn $name() {
                SUITE.run($file);
            }
        )*
    };
}

component_tests! {
    #[ignore = "122 of 123 directives pass; wasmparser 0.263 rejects the `cancellable` immediate of `waitable-set.poll`/`thread.yield` (removed by component-model#716) that the last one still uses"]
    binary_binary => "binary/binary.wast",
    linking_link_time_virtualization => "linking/link-time-virtualization.wast",
    linking_shared_everything_dynamic_linking => "linking/shared-everything-dynamic-linking.wast",
    linking_tags => "linking/tags.wast",
    linking_unit => "linking/unit.wast",
    resources_borrows => "resources/borrows.wast",
    resources_handle_table => "resources/handle-table.wast",
    resources_multiple_resources => "resources/multiple-resources.wast",
    validation_abi => "validation/abi.wast",
    validation_annotated_names => "validation/annotated-names.wast",
    validation_attributes => "validation/attributes.wast",
    validation_core_modules => "validation/core-modules.wast",
    validation_defined_types => "validation/defined-types.wast",
    validation_extern_names => "validation/extern-names.wast",
    validation_external_visibility => "validation/external-visibility.wast",
    validation_indicies => "validation/indicies.wast",
    validation_instantiation => "validation/instantiation.wast",
    #[ignore = "30 of 31 directives pass; the validator (wasmparser 0.263) rejects import name `a-1` as conflicting with `a1`, which the reference test accepts"]
    validation_kebab => "validation/kebab.wast",
    validation_outer_alias => "validation/outer-alias.wast",
    validation_resources => "validation/resources.wast",
    values_alignment => "values/alignment.wast",
    values_concat => "values/concat.wast",
    values_numerics => "values/numerics.wast",
    values_post_return => "values/post-return.wast",
    values_realloc => "values/realloc.wast",
    values_strings => "values/strings.wast",
    values_transcode => "values/transcode.wast",
    values_variants => "values/variants.wast",
}
