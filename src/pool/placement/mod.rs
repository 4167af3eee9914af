//! Where workers run and whom they steal from first: the machine's
//! topology (discovered or given), the victim order it implies, and
//! pinning a worker to its CPUs. No atomics (`proofs/topology.md`).

pub(crate) mod affinity;
pub(crate) mod topology;
