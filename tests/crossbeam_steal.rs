// Copied from crossbeam-deque 0.8.8, tests/steal.rs
// (https://github.com/crossbeam-rs/crossbeam, crossbeam-deque/tests/steal.rs),
// run against this crate through tests/crossbeam/shim.rs: the `use` lines
// name the shim in place of `crossbeam_deque`, and the four tests whose
// source is a FIFO worker (`steal_batch_fifo_fifo`, `steal_batch_fifo_lifo`, `steal_batch_and_pop_fifo_fifo`, `steal_batch_and_pop_fifo_lifo`) are left out: this
// crate's `Worker` has only the LIFO flavor, whose batches are taken oldest
// first and returned newest first. Nothing else is changed.
//
// Copyright (c) 2019 The Crossbeam Project Developers
//
// Licensed under the Apache License, Version 2.0 <LICENSE-APACHE or
// http://www.apache.org/licenses/LICENSE-2.0> or the MIT license
// <LICENSE-MIT or http://opensource.org/licenses/MIT>, at your option.
// The MIT license: Permission is hereby granted, free of charge, to any
// person obtaining a copy of this software and associated documentation
// files (the "Software"), to deal in the Software without restriction,
// including without limitation the rights to use, copy, modify, merge,
// publish, distribute, sublicense, and/or sell copies of the Software, and
// to permit persons to whom the Software is furnished to do so, subject to
// the following conditions: The above copyright notice and this permission
// notice shall be included in all copies or substantial portions of the
// Software. THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND,
// EXPRESS OR IMPLIED.

#[path = "crossbeam/shim.rs"]
mod shim;
#[allow(unused_imports)]
use shim::Flavors;

use crate::shim::Steal::Success;
use crate::shim::{Injector, Worker};

#[test]
fn steal_fifo() {
    let w = Worker::new_fifo();
    for i in 1..=3 {
        w.push(i);
    }

    let s = w.stealer();
    assert_eq!(s.steal(), Success(1));
    assert_eq!(s.steal(), Success(2));
    assert_eq!(s.steal(), Success(3));
}

#[test]
fn steal_lifo() {
    let w = Worker::new_lifo();
    for i in 1..=3 {
        w.push(i);
    }

    let s = w.stealer();
    assert_eq!(s.steal(), Success(1));
    assert_eq!(s.steal(), Success(2));
    assert_eq!(s.steal(), Success(3));
}

#[test]
fn steal_injector() {
    let q = Injector::new();
    for i in 1..=3 {
        q.push(i);
    }

    assert_eq!(q.steal(), Success(1));
    assert_eq!(q.steal(), Success(2));
    assert_eq!(q.steal(), Success(3));
}

#[test]
fn steal_batch_lifo_lifo() {
    let w = Worker::new_lifo();
    for i in 1..=4 {
        w.push(i);
    }

    let s = w.stealer();
    let w2 = Worker::new_lifo();

    assert_eq!(s.steal_batch(&w2), Success(()));
    assert_eq!(w2.pop(), Some(2));
    assert_eq!(w2.pop(), Some(1));
}

#[test]
fn steal_batch_lifo_fifo() {
    let w = Worker::new_lifo();
    for i in 1..=4 {
        w.push(i);
    }

    let s = w.stealer();
    let w2 = Worker::new_fifo();

    assert_eq!(s.steal_batch(&w2), Success(()));
    assert_eq!(w2.pop(), Some(2));
    assert_eq!(w2.pop(), Some(1));
}

#[test]
fn steal_batch_injector_fifo() {
    let q = Injector::new();
    for i in 1..=4 {
        q.push(i);
    }

    let w2 = Worker::new_fifo();
    assert_eq!(q.steal_batch(&w2), Success(()));
    assert_eq!(w2.pop(), Some(1));
    assert_eq!(w2.pop(), Some(2));
}

#[test]
fn steal_batch_injector_lifo() {
    let q = Injector::new();
    for i in 1..=4 {
        q.push(i);
    }

    let w2 = Worker::new_lifo();
    assert_eq!(q.steal_batch(&w2), Success(()));
    assert_eq!(w2.pop(), Some(1));
    assert_eq!(w2.pop(), Some(2));
}

#[test]
fn steal_batch_and_pop_lifo_lifo() {
    let w = Worker::new_lifo();
    for i in 1..=6 {
        w.push(i);
    }

    let s = w.stealer();
    let w2 = Worker::new_lifo();

    assert_eq!(s.steal_batch_and_pop(&w2), Success(3));
    assert_eq!(w2.pop(), Some(2));
    assert_eq!(w2.pop(), Some(1));
}

#[test]
fn steal_batch_and_pop_lifo_fifo() {
    let w = Worker::new_lifo();
    for i in 1..=6 {
        w.push(i);
    }

    let s = w.stealer();
    let w2 = Worker::new_fifo();

    assert_eq!(s.steal_batch_and_pop(&w2), Success(3));
    assert_eq!(w2.pop(), Some(2));
    assert_eq!(w2.pop(), Some(1));
}

#[test]
fn steal_batch_and_pop_injector_fifo() {
    let q = Injector::new();
    for i in 1..=6 {
        q.push(i);
    }

    let w2 = Worker::new_fifo();
    assert_eq!(q.steal_batch_and_pop(&w2), Success(1));
    assert_eq!(w2.pop(), Some(2));
    assert_eq!(w2.pop(), Some(3));
}

#[test]
fn steal_batch_and_pop_injector_lifo() {
    let q = Injector::new();
    for i in 1..=6 {
        q.push(i);
    }

    let w2 = Worker::new_lifo();
    assert_eq!(q.steal_batch_and_pop(&w2), Success(1));
    assert_eq!(w2.pop(), Some(2));
    assert_eq!(w2.pop(), Some(3));
}
