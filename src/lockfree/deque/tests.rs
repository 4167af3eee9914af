//! The owner-biased deque's take-back by index, on one thread: the newest
//! element, the last one against thieves, and indices out of balance.

use crate::lockfree::Steal;
use crate::lockfree::Worker;

#[test]
fn take_back_returns_the_newest_without_reading_it() {
    let worker = Worker::owner_biased_with_capacity(2);
    let first = worker.push_indexed(10usize);
    let second = worker.push_indexed(20);
    // The buffer grew at the third push; the index still names 30.
    let third = worker.push_indexed(30);
    assert_eq!((first, second, third), (0, 1, 2));
    // SAFETY: each index is its push's, taken back once; `usize` needs no drop.
    unsafe {
        assert_eq!(worker.take_back(third, false), Ok(()));
        assert_eq!(worker.take_back(second, false), Ok(()));
    }
    assert_eq!(worker.len(), 1);
    assert_eq!(worker.stealer().steal(), Steal::Success(10));
}

#[test]
fn take_back_of_the_last_element_races_thieves_by_cas() {
    let worker = Worker::owner_biased_with_capacity(4);
    let index = worker.push_indexed(1usize);
    // SAFETY: as above.
    assert_eq!(unsafe { worker.take_back(index, false) }, Ok(()));
    assert!(worker.is_empty());
    // Taken by a thief first: gone, and `bottom` is put back.
    let index = worker.push_indexed(2);
    assert_eq!(worker.stealer().steal(), Steal::Success(2));
    // SAFETY: as above.
    assert_eq!(unsafe { worker.take_back(index, false) }, Err(None));
    assert!(worker.is_empty());
    let index = worker.push_indexed(3);
    // SAFETY: as above.
    assert_eq!(unsafe { worker.take_back(index, false) }, Ok(()));
    assert!(worker.is_empty());
}

#[test]
fn take_back_out_of_balance_is_pop_biased() {
    let worker = Worker::owner_biased_with_capacity(4);
    let index = worker.push_indexed(1usize);
    worker.push(2);
    // `bottom` is not `index + 1`: the newest element comes back instead.
    // SAFETY: `index` is its push's and not popped since; `usize` needs no drop.
    assert_eq!(unsafe { worker.take_back(index, false) }, Err(Some(2)));
    // SAFETY: as above; now in balance.
    assert_eq!(unsafe { worker.take_back(index, false) }, Ok(()));
    assert!(worker.is_empty());
}

#[test]
fn take_back_of_no_index_is_pop_biased() {
    let worker = Worker::owner_biased_with_capacity(4);
    // SAFETY: `NO_INDEX` is allowed; `usize` needs no drop.
    unsafe {
        // Nothing is ever at `NO_INDEX`: each call pops the newest.
        assert_eq!(worker.take_back(Worker::<usize>::NO_INDEX, true), Err(None));
        worker.push_indexed(1usize);
        worker.push_indexed(2);
        assert_eq!(worker.take_back(Worker::<usize>::NO_INDEX, true), Err(Some(2)));
        assert_eq!(worker.take_back(Worker::<usize>::NO_INDEX, true), Err(Some(1)));
        assert_eq!(worker.take_back(Worker::<usize>::NO_INDEX, true), Err(None));
    }
    assert!(worker.is_empty());
}
