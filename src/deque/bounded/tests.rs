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
