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
    thief.shared.announce(thief.slot, thief.next_generation());
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
    stalled.shared.announce(stalled.slot, stalled.next_generation());
    assert_eq!(other.steal(), Steal::Success(Box::new(11)));
    (worker, stalled)
}

/// Index moves a helper may sleep through between its load of `top` and its
/// load of the request word (G4's stale delivery): around the half window (2^42) and
/// the whole window (2^43) of the 43-bit index, and past a second wrap.
const STALLS: [u64; 12] = [
    0,
    1,
    17,
    (1 << 42) - 1,
    1 << 42,
    (1 << 42) + 3,
    (1 << 43) - 2,
    (1 << 43) - 1,
    1 << 43,
    (1 << 43) + 1,
    (1 << 44) + (1 << 42) + 5,
    (1 << 62) + (1 << 42) + 1,
];

/// G4: a helper that loads `top` while it carries a claim for slot
/// `s`, then sleeps while the index moves on, must not deliver that old
/// index into a later request of `s`. Stopping the helper between its two
/// loads: it announced (its bit set) and loaded `top` tagged for `s`; `s`
/// takes its element; the helper's request is withdrawn; the index moves
/// on by `moves`; the owner pushes 7 and 8; `s` asks again; the helper
/// resumes. Every element must come out once, and `s`'s steal must return
/// the oldest, 7.
#[test]
fn a_stalled_helper_delivers_nothing_across_an_index_wrap() {
    check_stalls(|moves| stalled_helper_across(moves, |v| v, |v| v));
}

/// The same with boxed elements, where an element taken twice is a double
/// free (Miri and the allocator see it) and a lost one a leak.
#[test]
fn a_stalled_helper_delivers_nothing_across_an_index_wrap_boxed() {
    check_stalls(|moves| stalled_helper_across(moves, Box::new, |v| *v));
}

fn check_stalls(run: impl Fn(u64) -> Vec<u64>) {
    let mut failures = Vec::new();
    for moves in STALLS {
        let out = run(moves);
        let mut sorted = out.clone();
        sorted.sort_unstable();
        if sorted != [1, 7, 8] || out[1] != 7 {
            failures.push(format!("{moves:#x} moves: {out:?}"));
        }
    }
    assert!(
        failures.is_empty(),
        "elements out differ from [1, 7, 8] with s's second steal 7:\n{}",
        failures.join("\n")
    );
}

/// The run of the test above: the elements out, in the order `s`'s first
/// steal, `s`'s second steal, then the helper's and the owner's.
fn stalled_helper_across<T: PartialEq + fmt::Debug>(
    moves: u64,
    make: impl Fn(u64) -> T,
    unmake: impl Fn(T) -> u64,
) -> Vec<u64> {
    let worker = BoundedWorker::with_capacity(32);
    let s = worker.stealer();
    let helper = worker.stealer();
    worker.push(make(1));
    announce(&helper);
    announce(&s);
    // A round claims index 0 for `s` (the first pending slot at or after
    // 0), tagging `top`.
    let current = s.shared.top.load(Relaxed);
    assert_eq!(choose(current, 0), s.slot);
    let claimed = (1 << INDEX_SHIFT) | (current & PENDING_MASK & !bit(s.slot)) | (s.slot as u64 + 1);
    assert!(s
        .shared
        .top
        .compare_exchange(current, claimed, Relaxed, Relaxed)
        .is_ok());
    // The helper's round loads that `top`, and stops there.
    let seen = helper.shared.top.load(Relaxed);
    let mut out = Vec::new();
    // `s` delivers its claim to itself and takes 1.
    out.extend(success(s.finish_steal_any()));
    // `s` asks again, finds the deque empty and withdraws both requests.
    assert_eq!(s.steal(), Steal::Empty);
    // What a run of `moves` pushes and pops leaves.
    let bottom = worker.shared.bottom.load(Relaxed);
    worker.move_to(bottom.wrapping_add(moves as i64));
    worker.push(make(7));
    worker.push(make(8));
    announce(&s);
    // What the helper finds when it wakes up: `s`'s word pending again, as
    // it was when it loaded `top` (a request of `s` not yet served).
    assert!(is_pending(s.shared.requests[s.slot].load(Relaxed)));
    assert_eq!(tag(seen), s.slot as u64 + 1);
    // The helper wakes up and goes on with the claim it saw.
    resume_helping(&helper, seen);
    out.extend(success(s.finish_steal_any()));
    out.extend(success(helper.finish_steal_any()));
    while let Some(value) = worker.pop() {
        out.push(value);
    }
    while let Steal::Success(value) = s.steal() {
        out.push(value);
    }
    out.into_iter().map(unmake).collect()
}

fn success<T>(steal: Steal<T>) -> Option<T> {
    match steal {
        Steal::Success(value) => Some(value),
        _ => None,
    }
}

/// A thief's announce, as `steal` makes it.
fn announce<T>(thief: &BoundedStealer<T>) {
    thief.shared.announce(thief.slot, thief.next_generation());
}

/// The rest of a helping round that loaded `seen` (tagged for another
/// slot, the helper's own bit set): its delivery and clear.
fn resume_helping<T>(helper: &BoundedStealer<T>, seen: u64) {
    assert_ne!(seen & bit(helper.slot), 0);
    helper.shared.finish(seen, helper.slot);
}
