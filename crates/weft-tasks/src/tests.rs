use super::*;

#[test]
fn waitable_set_new_and_drop_frees_the_entry_and_reuses_the_index() {
    let mut t = Tasks::new();
    let inst = t.new_instance();
    let a = t.waitable_set_new(inst).unwrap();
    assert_eq!(a, 1, "index 0 is reserved");
    let b = t.waitable_set_new(inst).unwrap();
    assert_eq!(b, 2);
    assert_eq!(t.live_entries(), 2);
    t.waitable_set_drop(inst, a).unwrap();
    assert_eq!(t.live_entries(), 1);
    assert_eq!(t.live_handles(inst), 1);
    // The freed index is given out again.
    assert_eq!(t.waitable_set_new(inst).unwrap(), a);
}

#[test]
fn dropping_twice_or_an_unknown_index_fails() {
    let mut t = Tasks::new();
    let inst = t.new_instance();
    let s = t.waitable_set_new(inst).unwrap();
    t.waitable_set_drop(inst, s).unwrap();
    assert_eq!(t.waitable_set_drop(inst, s), Err(TaskError::NoHandle(s)));
    assert_eq!(t.waitable_set_drop(inst, 0), Err(TaskError::NoHandle(0)));
    assert_eq!(t.waitable_set_drop(inst, 99), Err(TaskError::NoHandle(99)));
}

#[test]
fn wrong_kind_fails_and_leaves_the_handle() {
    let mut t = Tasks::new();
    let inst = t.new_instance();
    let s = t.waitable_set_new(inst).unwrap();
    let err = t.subtask_drop(inst, s).unwrap_err();
    assert!(matches!(
        err,
        TaskError::WrongKind {
            found: Kind::WaitableSet,
            ..
        }
    ));
    assert!(err.to_string().contains("waitable set"), "{err}");
    assert_eq!(t.handle_kind(inst, s), Ok(Kind::WaitableSet));
    // A waitable set cannot join a waitable set.
    assert!(matches!(t.waitable_join(inst, s, s), Err(TaskError::WrongKind { .. })));
}

#[test]
fn handle_tables_are_per_instance() {
    let mut t = Tasks::new();
    let a = t.new_instance();
    let b = t.new_instance();
    let s = t.waitable_set_new(a).unwrap();
    assert_eq!(t.waitable_set_drop(b, s), Err(TaskError::NoHandle(s)));
    t.waitable_set_drop(a, s).unwrap();
}

#[test]
fn a_set_with_members_is_not_dropped_and_members_keep_it_alive() {
    let mut t = Tasks::new();
    let inst = t.new_instance();
    let (r, w) = t.stream_new(inst, 7, true).unwrap();
    let s = t.waitable_set_new(inst).unwrap();
    let set = t.handle(inst, s).unwrap();
    t.waitable_join(inst, r, s).unwrap();
    assert_eq!(t.refs(set), 2, "the handle and the member");
    assert_eq!(t.waitable_set_drop(inst, s), Err(TaskError::SetHasWaitables));
    // Joining another waitable and leaving again.
    t.waitable_join(inst, w, s).unwrap();
    assert_eq!(t.refs(set), 3);
    t.waitable_join(inst, w, 0).unwrap();
    assert_eq!(t.refs(set), 2);
    // Dropping the member's end leaves the set.
    t.drop_end(inst, r, Kind::ReadableStream, 7).unwrap();
    assert_eq!(t.refs(set), 1);
    t.waitable_set_drop(inst, s).unwrap();
    assert_eq!(t.refs(set), 0);
    t.drop_end(inst, w, Kind::WritableStream, 7).unwrap();
    assert_eq!(t.live_entries(), 0);
}

#[test]
fn a_stream_lives_until_both_ends_are_dropped() {
    let mut t = Tasks::new();
    let inst = t.new_instance();
    let (r, w) = t.stream_new(inst, 1, true).unwrap();
    assert_eq!((r, w), (1, 2));
    assert_eq!(t.live_entries(), 3, "two ends and their shared state");
    let rid = t.handle(inst, r).unwrap();
    assert_eq!(t.kind_of(rid), Some(Kind::ReadableStream));
    assert_eq!(t.peer_dropped(inst, w), Ok(false));
    t.drop_end(inst, r, Kind::ReadableStream, 1).unwrap();
    assert_eq!(
        t.live_entries(),
        2,
        "the shared state is still referenced by the writable end"
    );
    assert_eq!(t.peer_dropped(inst, w), Ok(true));
    t.drop_end(inst, w, Kind::WritableStream, 1).unwrap();
    assert_eq!(t.live_entries(), 0);
}

#[test]
fn ends_are_checked_for_kind_and_type() {
    let mut t = Tasks::new();
    let inst = t.new_instance();
    let (r, w) = t.stream_new(inst, 1, true).unwrap();
    assert!(matches!(
        t.drop_end(inst, r, Kind::WritableStream, 1),
        Err(TaskError::WrongKind { .. })
    ));
    assert!(matches!(
        t.drop_end(inst, r, Kind::ReadableFuture, 1),
        Err(TaskError::WrongKind { .. })
    ));
    assert_eq!(
        t.drop_end(inst, r, Kind::ReadableStream, 2),
        Err(TaskError::WrongType(r))
    );
    assert_eq!(t.live_handles(inst), 2);
    t.drop_end(inst, r, Kind::ReadableStream, 1).unwrap();
    t.drop_end(inst, w, Kind::WritableStream, 1).unwrap();
}

#[test]
fn a_future_writable_end_is_not_dropped_before_writing() {
    let mut t = Tasks::new();
    let inst = t.new_instance();
    let (r, w) = t.future_new(inst, 3, true).unwrap();
    assert_eq!(
        t.drop_end(inst, w, Kind::WritableFuture, 3),
        Err(TaskError::FutureNotWritten)
    );
    t.drop_end(inst, r, Kind::ReadableFuture, 3).unwrap();
    assert_eq!(t.live_entries(), 2);
}

#[test]
fn thread_context_and_task_return() {
    let mut t = Tasks::new();
    let inst = t.new_instance();
    let task = t.new_task(inst, true, true, false, None).unwrap();
    let th = t.new_thread(task, true).unwrap();
    assert_eq!(t.thread(th).unwrap().index, 0, "registered when the task starts");
    t.task_start(task).unwrap();
    assert_eq!(t.thread(th).unwrap().index, 1, "thread index 0 is reserved");
    assert_eq!(t.context_get(th, 0), Ok(0));
    t.context_set(th, 1, 42).unwrap();
    assert_eq!(t.context_get(th, 1), Ok(42));
    assert_eq!(t.context_get(th, 2), Err(TaskError::ContextSlot(2)));
    t.task_return(task).unwrap();
    assert_eq!(t.task_return(task), Err(TaskError::TaskResolved));
    // The thread holds the task: releasing the creator's reference keeps it.
    t.release(task).unwrap();
    assert!(t.task(task).is_ok());
    t.exit_thread(th).unwrap();
    assert_eq!(t.task(task).err(), Some(TaskError::Stale));
    assert_eq!(t.live_entries(), 0);
    assert_eq!(t.live_threads(), 0);
    assert_eq!(t.release(task), Err(TaskError::Stale));
}

#[test]
fn a_task_whose_last_thread_exits_before_returning_traps() {
    let mut t = Tasks::new();
    let inst = t.new_instance();
    let task = t.new_task(inst, true, true, false, None).unwrap();
    let th = t.new_thread(task, true).unwrap();
    t.release(task).unwrap();
    assert!(matches!(t.exit_thread(th), Err(TaskError::Trap(_))));
    assert_eq!(t.live_entries(), 0, "freed all the same");
}

#[test]
fn subtasks_are_dropped_only_after_their_resolution_is_delivered() {
    let mut t = Tasks::new();
    let inst = t.new_instance();
    let callee_inst = t.new_instance();
    let sub = t.new_subtask();
    let task = t.new_task(callee_inst, true, true, true, Some(sub)).unwrap();
    t.set_subtask_callee(sub, task).unwrap();
    let st = t.subtask_handle(inst, sub).unwrap();
    t.release(sub).unwrap();
    assert_eq!(t.subtask_drop(inst, st), Err(TaskError::SubtaskNotResolved));
    let s = t.waitable_set_new(inst).unwrap();
    t.waitable_join(inst, st, s).unwrap();
    assert_eq!(t.waitable_set_poll(inst, s), Ok((EVENT_NONE, 0, 0)));
    t.task_start(task).unwrap();
    assert_eq!(
        t.waitable_set_poll(inst, s),
        Ok((EVENT_SUBTASK, st, SubtaskStatus::Started as u32))
    );
    t.task_return(task).unwrap();
    assert_eq!(
        t.waitable_set_poll(inst, s),
        Ok((EVENT_SUBTASK, st, SubtaskStatus::Returned as u32))
    );
    // Delivered once.
    assert_eq!(t.waitable_set_poll(inst, s), Ok((EVENT_NONE, 0, 0)));
    t.subtask_drop(inst, st).unwrap();
    t.waitable_set_drop(inst, s).unwrap();
    // The creator's reference to the task is the last one.
    t.release(task).unwrap();
    assert_eq!(t.live_entries(), 0);
}

#[test]
fn error_contexts() {
    let mut t = Tasks::new();
    let inst = t.new_instance();
    let e = t.error_context_new(inst, "boom".into()).unwrap();
    assert_eq!(t.error_context_message(inst, e), Ok("boom"));
    t.error_context_drop(inst, e).unwrap();
    assert_eq!(t.error_context_drop(inst, e), Err(TaskError::NoHandle(e)));
    assert_eq!(t.live_entries(), 0);
}

#[test]
fn joining_the_set_a_waitable_is_in_keeps_it_a_member() {
    let mut t = Tasks::new();
    let inst = t.new_instance();
    let (r, w) = t.stream_new(inst, 1, true).unwrap();
    let s = t.waitable_set_new(inst).unwrap();
    let set = t.handle(inst, s).unwrap();
    t.waitable_join(inst, r, s).unwrap();
    t.waitable_join(inst, r, s).unwrap();
    assert_eq!(t.refs(set), 2, "the handle and the member");
    assert_eq!(t.waitable_set_drop(inst, s), Err(TaskError::SetHasWaitables));
    // The member's event is still delivered through the set.
    let buffer = Buffer {
        cx: 0,
        ptr: 0,
        len: 1,
        progress: 0,
        elem_size: 4,
    };
    t.copy(inst, r, Kind::ReadableStream, 1, true, buffer).unwrap();
    let writer = t.copy(inst, w, Kind::WritableStream, 1, true, buffer).unwrap();
    assert_eq!(t.take_event(writer.end).unwrap().payload, COPY_COMPLETED | 1 << 4);
    assert_eq!(
        t.waitable_set_poll(inst, s),
        Ok((EVENT_STREAM_READ, r, COPY_COMPLETED | 1 << 4))
    );
    t.drop_end(inst, r, Kind::ReadableStream, 1).unwrap();
    t.drop_end(inst, w, Kind::WritableStream, 1).unwrap();
    t.waitable_set_drop(inst, s).unwrap();
    assert_eq!(t.live_entries(), 0);
}

#[test]
fn an_implicit_thread_is_registered_when_its_task_starts() {
    let mut t = Tasks::new();
    let inst = t.new_instance();
    t.backpressure(inst, true).unwrap();
    // An async-typed task waiting for backpressure to end: its implicit
    // thread is in no thread table yet (`Task.enter_implicit_thread`).
    let waiting = t.new_task(inst, true, true, false, None).unwrap();
    let w = t.new_thread(waiting, true).unwrap();
    assert!(t.must_wait_to_enter(waiting).unwrap());
    assert_eq!(t.thread(w).unwrap().index, 0);
    assert!(t.thread_at(inst, 1).is_err());
    // A synchronously typed task's thread is registered at once.
    let sync = t.new_task(inst, false, false, false, None).unwrap();
    let s = t.new_thread(sync, true).unwrap();
    assert_eq!(t.thread(s).unwrap().index, 1);
    t.backpressure(inst, false).unwrap();
    t.task_start(waiting).unwrap();
    assert_eq!(t.thread(w).unwrap().index, 2);
    assert_eq!(t.thread_at(inst, 2), Ok(w));
    // A task cancelled before it starts never takes an index.
    let cancelled = t.new_task(inst, true, true, false, None).unwrap();
    let c = t.new_thread(cancelled, true).unwrap();
    assert_eq!(t.request_cancellation(cancelled), Ok(CancelAction::NotStarted(c)));
    t.cancel_unstarted(cancelled).unwrap();
    t.exit_thread(c).unwrap();
    for (task, th) in [(waiting, w), (sync, s)] {
        t.task_return(task).unwrap();
        t.exit_thread(th).unwrap();
    }
    for task in [waiting, sync, cancelled] {
        t.release(task).unwrap();
    }
    assert_eq!((t.live_entries(), t.live_threads()), (0, 0));
    // The index never given out was not put on the free list.
    let next = t.new_task(inst, false, false, false, None).unwrap();
    let n = t.new_thread(next, true).unwrap();
    assert_ne!(t.thread(n).unwrap().index, 0);
}

#[test]
fn an_intra_component_copy_traps_before_the_end_starts_copying() {
    let mut t = Tasks::new();
    let inst = t.new_instance();
    // Not a number type: no copies between two ends in one instance.
    let (r, w) = t.stream_new(inst, 2, false).unwrap();
    let buffer = Buffer {
        cx: 0,
        ptr: 0,
        len: 1,
        progress: 0,
        elem_size: 8,
    };
    let reader = t.copy(inst, r, Kind::ReadableStream, 2, true, buffer).unwrap();
    assert!(matches!(
        t.copy(inst, w, Kind::WritableStream, 2, true, buffer),
        Err(TaskError::Trap(_))
    ));
    // The writable end is still idle: it can be dropped, and the reader is
    // told.
    t.drop_end(inst, w, Kind::WritableStream, 2).unwrap();
    assert_eq!(t.take_event(reader.end).unwrap().payload, COPY_DROPPED);
    t.drop_end(inst, r, Kind::ReadableStream, 2).unwrap();
    assert_eq!(t.live_entries(), 0);
}
