//! Runs the component model reference tests (the `test` directory of the
//! component-model repository) through `weft_wast::WastContext`, one test
//! per `.wast` file, those the suite's `nyi.txt` lists as ahead of the
//! reference implementation included (Weft passes them).
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
    async_async_calls_sync => "async/async-calls-sync.wast",
    async_big_interleaving_test => "async/big-interleaving-test.wast",
    async_builtin_trap_poisons_instance => "async/builtin-trap-poisons-instance.wast",
    async_cancel_stream => "async/cancel-stream.wast",
    async_cancel_subtask => "async/cancel-subtask.wast",
    #[ignore = "uses the `cancellable` immediate, which wasmparser 0.263 no longer accepts (removed by component-model#716)"]
    async_cancellable => "async/cancellable.wast",
    async_closed_stream => "async/closed-stream.wast",
    async_cross_abi_calls => "async/cross-abi-calls.wast",
    async_cross_task_future => "async/cross-task-future.wast",
    async_deadlock => "async/deadlock.wast",
    async_dont_block_start => "async/dont-block-start.wast",
    async_during_sync_call_may_block_if_other_ready_threads => "async/during-sync-call-may-block-if-other-ready-threads.wast",
    async_during_sync_call_no_exclusive_resume => "async/during-sync-call-no-exclusive-resume.wast",
    async_during_sync_call_no_sibling_resume => "async/during-sync-call-no-sibling-resume.wast",
    async_drop_cross_task_borrow => "async/drop-cross-task-borrow.wast",
    async_drop_stream => "async/drop-stream.wast",
    async_drop_subtask => "async/drop-subtask.wast",
    async_drop_waitable_set => "async/drop-waitable-set.wast",
    async_empty_wait => "async/empty-wait.wast",
    async_futures_must_write => "async/futures-must-write.wast",
    async_partial_stream_copies => "async/partial-stream-copies.wast",
    async_passing_resources => "async/passing-resources.wast",
    async_same_component_stream_future => "async/same-component-stream-future.wast",
    async_sync_barges_in => "async/sync-barges-in.wast",
    async_sync_streams => "async/sync-streams.wast",
    async_trap_if_block_and_sync => "async/trap-if-block-and-sync.wast",
    async_trap_if_done => "async/trap-if-done.wast",
    async_trap_if_sync_and_waitable_set => "async/trap-if-sync-and-waitable-set.wast",
    async_trap_if_transfer_in_waitable_set => "async/trap-if-transfer-in-waitable-set.wast",
    async_trap_on_reenter => "async/trap-on-reenter.wast",
    async_validate_no_async_abi_for_sync_type => "async/validate-no-async-abi-for-sync-type.wast",
    async_validate_no_stream_char => "async/validate-no-stream-char.wast",
    async_wait_during_callback => "async/wait-during-callback.wast",
    async_zero_length => "async/zero-length.wast",
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
    validation_max_value_size => "validation/max-value-size.wast",
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
