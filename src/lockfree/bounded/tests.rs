use super::*;

#[test]
fn choose_rotates_from_the_index() {
    let word = (bit(2) | bit(9)) | (5 << INDEX_SHIFT);
    assert_eq!(choose(word, 0), 2);
    assert_eq!(choose(word, 3), 9);
    assert_eq!(choose(word, 10), 2);
    assert_eq!(choose(bit(15), 7), 15);
}

#[test]
fn diff_is_exact_across_the_wrap() {
    assert_eq!(diff(low(5), low(3)), 2);
    assert_eq!(diff(low(3), low(5)), -2);
    assert_eq!(diff(low(1 << 43), low((1 << 43) - 1)), 1);
}

#[test]
fn ahead_has_the_sign_of_diff() {
    for (at, top) in [
        (5i64, 3u64),
        (3, 5),
        (4, 4),
        (1 << 43, (1 << 43) - 1),
        (0, INDEX_MASK),
    ] {
        let word = (low(top as i64) << INDEX_SHIFT) | bit(3) | 2;
        let d = diff(low(at), index(word));
        assert_eq!(ahead(at, word).signum(), d.signum(), "{at} {top}");
        assert_eq!(ahead(at, word) >> INDEX_SHIFT, d);
    }
}

#[test]
fn a_claim_left_undelivered_is_dropped_with_the_deque() {
    let worker = BoundedWorker::new();
    let thief = worker.stealer();
    worker.push(Box::new(1));
    worker.push(Box::new(2));
    // Announce and claim by hand, leaving the delivery undone.
    thief.shared.announce(thief.slot);
    let current = thief.shared.top.load(Relaxed);
    let next = (1 << INDEX_SHIFT) | (thief.slot as u64 + 1);
    assert!(thief
        .shared
        .top
        .compare_exchange(current, next, Relaxed, Relaxed)
        .is_ok());
    drop(thief);
    drop(worker);
}

/// A thief whose request another thief served (its index delivered) and
/// that then stops: the owner's pushes wrap around the buffer, move the
/// element into a box (G10), and the thief takes it from there.
#[test]
fn a_delivered_element_the_owner_needs_the_slot_of_is_evicted() {
    let (worker, stalled) = delivered_to_a_stalled_thief();
    let word = stalled.shared.requests[stalled.slot].load(Relaxed);
    assert!(is_delivered(word) && delivered_index(word) == 0);
    // Wrap around: index 4 reuses slot 0.
    for i in 0..8 {
        worker.push(Box::new(i));
    }
    let word = stalled.shared.requests[stalled.slot].load(Relaxed);
    assert!(is_evicted(word), "the owner rewrote a delivered slot");
    assert_eq!(stalled.finish_steal_any(), Steal::Success(Box::new(10)));
    for i in (0..8).rev() {
        assert_eq!(worker.pop(), Some(Box::new(i)));
    }
    assert_eq!(worker.pop(), None);
}

/// As above, but the deque is dropped with the element still delivered or
/// evicted: dropped once (Miri and the leak checker see it).
#[test]
fn delivered_and_evicted_elements_are_dropped_with_the_deque() {
    for wrap in [false, true] {
        let (worker, stalled) = delivered_to_a_stalled_thief();
        if wrap {
            for i in 0..8 {
                worker.push(Box::new(i));
            }
        }
        drop((stalled, worker));
    }
}

/// A deque of capacity 4 whose oldest element (`Box::new(10)`) was claimed
/// and delivered to a thief that announced and then stopped: another
/// thief's rounds claim index 0 for the stalled one (the first pending
/// slot at or after 0), deliver it, then claim index 1 for themselves.
fn delivered_to_a_stalled_thief() -> (BoundedWorker<Box<i32>>, BoundedStealer<Box<i32>>) {
    let worker = BoundedWorker::with_capacity(4);
    let stalled = worker.stealer();
    let other = worker.stealer();
    worker.push(Box::new(10));
    worker.push(Box::new(11));
    stalled.shared.announce(stalled.slot);
    assert_eq!(other.steal(), Steal::Success(Box::new(11)));
    (worker, stalled)
}
