//! Where tool calls run: off the JavaScript thread, on a small persistent pool.
//!
//! A call that computes (a search, a read, an edit) runs on one of a fixed number of worker
//! threads sized to the machine's cores, so a thousand concurrent calls queue instead of
//! starting a thousand threads that would starve the event loop. A call that mostly waits on
//! another process (`bash`, a monitor waiting to be ready) runs on the runtime's blocking
//! threads instead, so it never holds a worker while it sleeps.

use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Condvar, LazyLock, Mutex, PoisonError};

/// A unit of work for the pool.
pub type Job = Box<dyn FnOnce() + Send + 'static>;

/// The workers' queue. A worker that finds it empty sleeps on `ready`; one is woken only when
/// a job arrives while some worker sleeps, so a busy pool takes jobs with no wake-up at all.
struct Queue {
    state: Mutex<State>,
    ready: Condvar,
}

struct State {
    jobs: VecDeque<Job>,
    /// Workers asleep on `ready`.
    idle: usize,
    /// Workers started (none: jobs run on a thread of their own, see `submit`).
    workers: usize,
}

/// The pool, started on first use; its workers live as long as the process.
static QUEUE: LazyLock<Queue> = LazyLock::new(|| {
    let mut started = 0;
    for i in 0..workers() {
        let spawned = std::thread::Builder::new()
            .name(format!("atn-worker-{i}"))
            .spawn(work);
        if spawned.is_ok() {
            started += 1;
        }
    }
    Queue {
        state: Mutex::new(State {
            jobs: VecDeque::new(),
            idle: 0,
            workers: started,
        }),
        ready: Condvar::new(),
    }
});

/// A worker's life: take the next job, run it, forever.
fn work() {
    let queue = &*QUEUE;
    loop {
        let job = {
            let mut state = queue.state.lock().unwrap_or_else(PoisonError::into_inner);
            loop {
                if let Some(job) = state.jobs.pop_front() {
                    break job;
                }
                state.idle += 1;
                state = queue
                    .ready
                    .wait(state)
                    .unwrap_or_else(PoisonError::into_inner);
                state.idle -= 1;
            }
        };
        // A job catches its own panics; this is a second net so a worker never dies.
        drop(catch_unwind(AssertUnwindSafe(job)));
    }
}

/// How many workers: the cores, at least 2 (one long call must not block every short one)
/// and at most 16.
pub fn workers() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
        .clamp(2, 16)
}

/// Queues `job` on the workers without waiting for it; hands it back when the pool cannot take
/// it. The job should catch its own panics (a panic is caught here too, but its result is lost).
pub fn submit(job: Job) -> Result<(), Job> {
    let queue = &*QUEUE;
    let mut state = queue.state.lock().unwrap_or_else(PoisonError::into_inner);
    if state.workers == 0 {
        return Err(job);
    }
    state.jobs.push_back(job);
    let wake = state.idle > 0;
    drop(state);
    if wake {
        queue.ready.notify_one();
    }
    Ok(())
}

/// Runs `f` on the pool and returns its result; a panic in `f` comes back as `None`.
pub async fn run<T, F>(f: F) -> Option<T>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    let (tx, rx) = tokio::sync::oneshot::channel();
    let job: Job = Box::new(move || {
        let _ = tx.send(catch_unwind(AssertUnwindSafe(f)).ok());
    });
    if submit(job).is_err() {
        return None;
    }
    rx.await.ok().flatten()
}

/// Runs `f`, which mostly waits on another process, on the runtime's blocking threads.
pub async fn run_waiting<T, F>(f: F) -> Option<T>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    tokio::task::spawn_blocking(move || catch_unwind(AssertUnwindSafe(f)).ok())
        .await
        .ok()
        .flatten()
}

/// Threads for steps that mostly wait on the disk (a commit's fsyncs, removals that wait for
/// the filesystem's journal): started on first use and kept, so overlapping those waits costs
/// no thread starts per call. More than the cores, since they sleep, not compute.
const WAITERS: usize = 8;
static WAIT_POOL: LazyLock<Option<rayon::ThreadPool>> = LazyLock::new(|| {
    rayon::ThreadPoolBuilder::new()
        .num_threads(WAITERS)
        .thread_name(|i| format!("atn-wait-{i}"))
        .stack_size(256 * 1024)
        .build()
        .ok()
});

/// Runs `work` on the wait pool without waiting for it (here, when there is no pool): for
/// cleanup whose cost nobody needs to wait for, such as freeing the blocks of a file a commit
/// replaced (which on a file system mounted with `discard` waits for the device).
pub fn later(work: impl FnOnce() + Send + 'static) {
    match WAIT_POOL.as_ref() {
        Some(pool) => pool.spawn(move || {
            let _ = catch_unwind(AssertUnwindSafe(work));
        }),
        None => work(),
    }
}

/// `work` of every item, in the items' order, run on the wait pool one item at a time so that
/// their waits overlap (here, one after another, when there is one item or no pool). Every
/// item is worked on.
pub fn overlap_waits<T, R, F>(items: Vec<T>, work: F) -> Vec<R>
where
    T: Send,
    R: Send,
    F: Fn(T) -> R + Sync + Send,
{
    map_each_on(WAIT_POOL.as_ref(), items, work)
}

/// `f` of each of `items`, in their order, computed on `pool`'s threads one item at a time (a
/// thread that finishes early takes the next item), or here when there is no pool or only one
/// item. The diagnostic lines an item emits on the pool are emitted again here, in the items'
/// order, so they reach this call's warn sink as if emitted on this thread.
pub fn map_each_on<T, R, F>(pool: Option<&rayon::ThreadPool>, items: Vec<T>, f: F) -> Vec<R>
where
    T: Send,
    R: Send,
    F: Fn(T) -> R + Sync + Send,
{
    use rayon::iter::{IndexedParallelIterator, IntoParallelIterator, ParallelIterator};
    match pool {
        Some(pool) if items.len() > 1 => {
            let done: Vec<(R, Vec<String>)> = pool.install(|| {
                items
                    .into_par_iter()
                    .with_max_len(1)
                    .map(|item| crate::warn::collect(|| f(item)))
                    .collect()
            });
            done.into_iter()
                .map(|(result, lines)| {
                    lines.into_iter().for_each(crate::warn::emit);
                    result
                })
                .collect()
        }
        _ => items.into_iter().map(f).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn many_jobs_share_a_few_threads() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let names = rt.block_on(async {
            let calls =
                (0..64).map(|_| run(|| std::thread::current().name().unwrap_or("").to_string()));
            let mut names = Vec::new();
            for call in calls {
                names.push(call.await.unwrap());
            }
            names
        });
        assert!(names.iter().all(|n| n.starts_with("atn-worker-")));
        let mut distinct = names.clone();
        distinct.sort();
        distinct.dedup();
        assert!(distinct.len() <= workers());
    }

    #[test]
    fn a_panicking_job_answers_none_and_the_pool_lives_on() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        rt.block_on(async {
            assert_eq!(run(|| -> u8 { panic!("boom") }).await, None);
            assert_eq!(run(|| 7).await, Some(7));
        });
    }
}
