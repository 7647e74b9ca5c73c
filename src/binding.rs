//! The napi edge: converts JavaScript values (JSON strings) and calls plain Rust.
//! Calls run off the JS thread (see `off_thread`) and answer through one promise each.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use napi::bindgen_prelude::*;
use napi_derive::napi;
use serde_json::Value;

use crate::call::{self, Cancel, Ctx, Progress};
use crate::config::{self, Config, Options, Profile, StartupError};
use crate::dispatch::{self, Outcome, WireArgs};
use crate::error::ToolError;
use crate::output::{Output, Part};
use crate::{bash_facts, paths, shell, spill, surfaces, tools, warn};

#[napi]
pub const DEFAULT_MAX_OUTPUT_BYTES: u32 = config::DEFAULT_MAX_OUTPUT_BYTES as u32;
#[napi]
pub const DEFAULT_MAX_FILE_BYTES: u32 = config::DEFAULT_MAX_FILE_BYTES as u32;
#[napi]
pub const DEFAULT_BASH_TIMEOUT_MS: u32 = config::DEFAULT_BASH_TIMEOUT_MS as u32;
#[napi]
pub const DEFAULT_BASH_TIMEOUT_MAX_MS: u32 = config::DEFAULT_BASH_TIMEOUT_MAX_MS as u32;
#[napi]
pub const DEFAULT_MAX_BASH_OUTPUT_BYTES: u32 = config::DEFAULT_MAX_BASH_OUTPUT_BYTES as u32;
#[napi]
pub const DEFAULT_MAX_IMAGE_BYTES: u32 = config::DEFAULT_MAX_IMAGE_BYTES as u32;
#[napi]
pub const DEFAULT_MONITOR_READY_TIMEOUT_MS: u32 = config::DEFAULT_MONITOR_READY_TIMEOUT_MS as u32;
#[napi]
pub const DEFAULT_MAX_MONITORS: u32 = config::DEFAULT_MAX_MONITORS as u32;

/// One content part: `{type: "text", text}` or `{type: "image", data, mimeType}`.
#[napi(object, object_from_js = false)]
pub struct NativePart {
    #[napi(js_name = "type", ts_type = "'text' | 'image'")]
    pub kind: &'static str,
    #[napi(ts_type = "string")]
    pub text: Option<Text>,
    pub data: Option<String>,
    pub mime_type: Option<String>,
}

/// A call's result: its content parts, `meta` as JSON, and whether it is an error (then the
/// one text part is the envelope).
#[napi(object, object_from_js = false)]
pub struct NativeOutcome {
    pub is_error: bool,
    pub content: Vec<NativePart>,
    pub meta_json: Option<String>,
    /// Diagnostic lines the call emitted, for the JavaScript warn sink.
    pub warnings: Vec<String>,
}

impl From<Outcome> for NativeOutcome {
    fn from(o: Outcome) -> Self {
        let content = o
            .output
            .content
            .into_iter()
            .map(|part| match part {
                Part::Text(text) => NativePart {
                    kind: "text",
                    text: Some(Text(text)),
                    data: None,
                    mime_type: None,
                },
                Part::Image { data, mime_type } => NativePart {
                    kind: "image",
                    text: None,
                    data: Some(data),
                    mime_type: Some(mime_type),
                },
            })
            .collect();
        NativeOutcome {
            is_error: o.is_error,
            content,
            meta_json: o.output.meta.map(|m| Value::Object(m).to_string()),
            warnings: Vec::new(),
        }
    }
}

impl NativeOutcome {
    /// A success with one text part and nothing else (no meta, no warnings), which crosses as
    /// that string alone.
    fn is_plain_text(&self) -> bool {
        !self.is_error
            && self.meta_json.is_none()
            && self.warnings.is_empty()
            && matches!(self.content.as_slice(), [part] if part.text.is_some())
    }
}

/// A result text on its way to JavaScript. A big pure-ASCII text (a command's output, say)
/// becomes an external Latin-1 string: V8 reads it where Rust put it, with no copy, and frees
/// it through a finalizer. Anything else is copied as usual.
pub struct Text(pub String);

/// Texts shorter than this are simply copied.
const EXTERNAL_MIN_BYTES: usize = 1 << 20;

impl TypeName for Text {
    fn type_name() -> &'static str {
        "String"
    }

    fn value_type() -> ValueType {
        ValueType::String
    }
}

impl ToNapiValue for Text {
    unsafe fn to_napi_value(env: sys::napi_env, val: Self) -> Result<sys::napi_value> {
        let text = val.0;
        if text.len() < EXTERNAL_MIN_BYTES || !text.is_ascii() {
            // SAFETY: `env` is forwarded unchanged from our caller.
            return unsafe { String::to_napi_value(env, text) };
        }
        // SAFETY: as above; `external` takes ownership of `text` or hands it back.
        match unsafe { external::latin1(env, text) } {
            Ok(value) => Ok(value),
            // SAFETY: as above.
            Err(text) => unsafe { String::to_napi_value(env, text) },
        }
    }
}

/// `node_api_create_external_string_latin1`, looked up at run time: Node exports it since
/// 20.4 but napi-rs only binds it for Node-API 10, which Node 20 does not declare.
mod external {
    use std::ffi::c_void;
    use std::sync::LazyLock;

    use napi::sys;

    type CreateLatin1 = unsafe extern "C" fn(
        env: sys::napi_env,
        str_: *mut std::ffi::c_char,
        length: usize,
        finalize: sys::napi_finalize,
        hint: *mut c_void,
        result: *mut sys::napi_value,
        copied: *mut bool,
    ) -> sys::napi_status;

    static CREATE: LazyLock<Option<CreateLatin1>> = LazyLock::new(|| {
        #[cfg(unix)]
        {
            // SAFETY: dlsym with RTLD_DEFAULT and a NUL-terminated name only looks a symbol up.
            let sym = unsafe {
                nix::libc::dlsym(
                    nix::libc::RTLD_DEFAULT,
                    c"node_api_create_external_string_latin1".as_ptr(),
                )
            };
            // SAFETY: when present, the symbol is the Node-API function with this signature.
            (!sym.is_null())
                .then(|| unsafe { std::mem::transmute::<*mut c_void, CreateLatin1>(sym) })
        }
        #[cfg(not(unix))]
        {
            None
        }
    });

    /// Frees the text once V8 no longer needs it; `hint` is the boxed `(len, capacity,
    /// counted)`, `counted` saying whether the length was reported as external memory.
    unsafe extern "C" fn finalize(env: sys::napi_env, data: *mut c_void, hint: *mut c_void) {
        // SAFETY: `hint` was made by `Box::into_raw` in `latin1` and is used once, here.
        let (len, cap, counted) = *unsafe { Box::from_raw(hint.cast::<(usize, usize, bool)>()) };
        if counted {
            let mut total = 0;
            // SAFETY: `env` is the environment V8 runs this finalizer in.
            unsafe { sys::napi_adjust_external_memory(env, -(len as i64), &mut total) };
        }
        // SAFETY: `data`, `len` and `cap` are the parts of the String given up in `latin1`.
        drop(unsafe { String::from_raw_parts(data.cast::<u8>(), len, cap) });
    }

    /// An external Latin-1 JS string over `text` (which must be ASCII), or `text` back when
    /// this Node cannot make one.
    ///
    /// # Safety
    /// `env` must be the live environment of the current call.
    pub unsafe fn latin1(env: sys::napi_env, text: String) -> Result<sys::napi_value, String> {
        let Some(create) = *CREATE else {
            return Err(text);
        };
        let mut text = std::mem::ManuallyDrop::new(text);
        let (ptr, len, cap) = (text.as_mut_ptr(), text.len(), text.capacity());
        let hint = Box::into_raw(Box::new((len, cap, false)));
        let mut value = std::ptr::null_mut();
        let mut copied = false;
        // SAFETY: the buffer stays valid until `finalize` runs, which V8 calls exactly once —
        // at once if it copied, else when the string is collected.
        let status = unsafe {
            create(
                env,
                ptr.cast(),
                len,
                Some(finalize),
                hint.cast(),
                &mut value,
                &mut copied,
            )
        };
        if status == sys::Status::napi_ok {
            if !copied {
                // V8 does not count an external string's buffer towards collecting garbage:
                // tell it, so big results are freed as promptly as ordinary strings.
                let mut total = 0;
                // SAFETY: `env` is live; `hint` stays valid until `finalize`, which V8 calls
                // on the JS thread, never while this function runs.
                unsafe {
                    if sys::napi_adjust_external_memory(env, len as i64, &mut total)
                        == sys::Status::napi_ok
                    {
                        (*hint).2 = true;
                    }
                }
            }
            return Ok(value);
        }
        // On failure the finalizer is not called: take both back.
        // SAFETY: the parts are unchanged and nothing else owns them.
        drop(unsafe { Box::from_raw(hint) });
        Err(unsafe { String::from_raw_parts(ptr, len, cap) })
    }
}

/// Runs call `name` off the JavaScript thread and answers through the returned promise (with
/// the outcome, or — for a success that is one text part — that text alone): on the
/// bounded worker pool, or — for a tool that mostly waits on another process — on the blocking
/// threads. A panic that escapes becomes an `internal` outcome.
fn off_thread<F>(env: &Env, name: &str, f: F) -> Result<PromiseRaw<'static, NativeOutcome>>
where
    F: FnOnce() -> Outcome + Send + 'static,
{
    let (ticket, promise) = answer::promise(env)?;
    answer::spawn(tools::waits(name), move || {
        ticket.settle(Done::One(run_call(f)))
    });
    Ok(promise)
}

/// Runs one call on the current (worker) thread, collecting its diagnostic lines.
fn run_call<F: FnOnce() -> Outcome>(f: F) -> NativeOutcome {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| warn::collect(f))) {
        Ok((outcome, warnings)) => NativeOutcome {
            warnings,
            ..outcome.into()
        },
        Err(_) => Outcome::error(&ToolError::internal()).into(),
    }
}

/// What a finished job hands back to the JavaScript thread.
enum Done {
    One(NativeOutcome),
    Many(Vec<NativeOutcome>),
}

impl Done {
    /// The promise's value.
    ///
    /// # Safety
    /// `env` must be the live environment of the current (JavaScript) thread.
    unsafe fn into_js(self, env: sys::napi_env) -> Result<sys::napi_value> {
        // SAFETY: forwarded from our caller.
        unsafe {
            match self {
                // A success that is one text part (most calls): the text alone, a string.
                Done::One(o) if o.is_plain_text() => {
                    let text = o.content.into_iter().next().and_then(|p| p.text);
                    Text::to_napi_value(env, text.unwrap_or(Text(String::new())))
                }
                Done::One(o) => NativeOutcome::to_napi_value(env, o),
                Done::Many(v) => Vec::<NativeOutcome>::to_napi_value(env, v),
            }
        }
    }

    /// What to answer when the value cannot be made (the environment is failing).
    fn internal(&self) -> Done {
        let one = || NativeOutcome::from(Outcome::error(&ToolError::internal()));
        match self {
            Done::One(_) => Done::One(one()),
            Done::Many(v) => Done::Many(v.iter().map(|_| one()).collect()),
        }
    }
}

/// One hop out, one hop back: a call's promise is made on the JavaScript thread, its work runs
/// on a worker, and the worker hands the result to one threadsafe function per environment,
/// which resolves every result that arrived by the time the JavaScript thread gets to it (one
/// wake-up for a burst of answers). No async runtime, no per-call threadsafe function.
mod answer {
    use std::cell::RefCell;
    use std::ffi::c_void;
    use std::panic::{catch_unwind, AssertUnwindSafe};
    use std::ptr;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Arc, Mutex, OnceLock};

    use napi::bindgen_prelude::*;

    use super::Done;
    use crate::pool;

    /// A promise's resolver. Made and used on the JavaScript thread; a worker only carries it.
    struct Deferred(sys::napi_deferred);
    // SAFETY: the pointer is never used off the JavaScript thread that made it.
    unsafe impl Send for Deferred {}

    /// One environment's way back to its JavaScript thread.
    struct Port {
        tsfn: OnceLock<Tsfn>,
        /// Answers waiting for the JavaScript thread; `None` once the environment is torn down
        /// (the threadsafe function is then gone and answers are dropped).
        done: Mutex<Option<Vec<(Deferred, Done)>>>,
        /// Calls whose promise is not settled yet (the threadsafe function keeps the process
        /// alive while there are any). Changed on the JavaScript thread only.
        pending: AtomicUsize,
    }
    struct Tsfn(sys::napi_threadsafe_function);
    // SAFETY: off the JavaScript thread, the function is only called through
    // `napi_call_threadsafe_function` (thread-safe), and only while the port's `done` is `Some`
    // (checked under its lock, which teardown takes).
    unsafe impl Send for Tsfn {}
    unsafe impl Sync for Tsfn {}

    impl Port {
        fn tsfn(&self) -> sys::napi_threadsafe_function {
            self.tsfn.get().map_or(ptr::null_mut(), |t| t.0)
        }
    }

    thread_local! {
        /// This thread's environment's port (a JavaScript thread runs one environment).
        static PORT: RefCell<Option<Arc<Port>>> = const { RefCell::new(None) };
    }

    /// What settles one promise, from any thread.
    pub struct Ticket {
        port: Arc<Port>,
        deferred: Deferred,
    }

    impl Ticket {
        /// Hands the answer to the JavaScript thread, which resolves the promise with it.
        pub fn settle(self, done: Done) {
            self.port.answer(self.deferred, done);
        }
    }

    /// A new promise (returned to JavaScript) and the ticket that settles it.
    pub fn promise<T>(env: &Env) -> Result<(Ticket, PromiseRaw<'static, T>)> {
        let raw = env.raw();
        let port = port(raw)?;
        let mut deferred = ptr::null_mut();
        let mut promise = ptr::null_mut();
        // SAFETY: `raw` is the live environment of this call.
        check_status!(
            unsafe { sys::napi_create_promise(raw, &mut deferred, &mut promise) },
            "cannot create a promise"
        )?;
        if port.pending.fetch_add(1, Ordering::Relaxed) == 0 {
            // SAFETY: on the JavaScript thread that owns the threadsafe function.
            unsafe { sys::napi_ref_threadsafe_function(raw, port.tsfn()) };
        }
        let ticket = Ticket {
            port,
            deferred: Deferred(deferred),
        };
        Ok((ticket, PromiseRaw::new(raw, promise)))
    }

    /// Runs `work` off this thread: on the bounded pool, or — when it mostly waits on another
    /// process (`waits`) — on the runtime's blocking threads, so a wait never holds a worker.
    /// `work` must not panic (callers catch).
    pub fn spawn(waits: bool, work: impl FnOnce() + Send + 'static) {
        if waits {
            drop(spawn_blocking(work));
            return;
        }
        if let Err(work) = pool::submit(Box::new(work)) {
            // No pool: a thread of its own, or — if even that fails — right here, rather than
            // a promise that never settles.
            let slot = Arc::new(Mutex::new(Some(work)));
            let theirs = slot.clone();
            let started = std::thread::Builder::new().spawn(move || {
                if let Some(work) = theirs.lock().unwrap_or_else(|e| e.into_inner()).take() {
                    work();
                }
            });
            if started.is_err() {
                if let Some(work) = slot.lock().unwrap_or_else(|e| e.into_inner()).take() {
                    work();
                }
            }
        }
    }

    /// This environment's port, made on first use.
    fn port(env: sys::napi_env) -> Result<Arc<Port>> {
        if let Some(port) = PORT.with(|p| p.borrow().clone()) {
            return Ok(port);
        }
        let port = Arc::new(Port {
            tsfn: OnceLock::new(),
            done: Mutex::new(Some(Vec::new())),
            pending: AtomicUsize::new(0),
        });
        let mut name = ptr::null_mut();
        let label = "agent-tools-native";
        // SAFETY: `env` is live; the name is a valid UTF-8 buffer of the given length.
        check_status!(
            unsafe {
                sys::napi_create_string_utf8(
                    env,
                    label.as_ptr().cast(),
                    label.len() as isize,
                    &mut name,
                )
            },
            "cannot name the answer queue"
        )?;
        let context = Arc::into_raw(port.clone()) as *mut c_void;
        let mut tsfn = ptr::null_mut();
        // SAFETY: no JavaScript function (the callback does the work); `context` is an owned
        // `Arc` reference that `finalize` takes back exactly once.
        let status = unsafe {
            sys::napi_create_threadsafe_function(
                env,
                ptr::null_mut(),
                ptr::null_mut(),
                name,
                0,
                1,
                context,
                Some(finalize),
                context,
                Some(deliver),
                &mut tsfn,
            )
        };
        if status != sys::Status::napi_ok {
            // SAFETY: the function was not made, so `finalize` will never take this back.
            drop(unsafe { Arc::from_raw(context as *const Port) });
            return Err(Error::from_reason("cannot create the answer queue"));
        }
        let _ = port.tsfn.set(Tsfn(tsfn));
        // Idle, the queue does not keep the process alive; a pending call refs it.
        // SAFETY: on the JavaScript thread that owns `tsfn`.
        unsafe { sys::napi_unref_threadsafe_function(env, tsfn) };
        PORT.with(|p| *p.borrow_mut() = Some(port.clone()));
        Ok(port)
    }

    impl Port {
        /// Queues an answer (on a worker) and wakes the JavaScript thread if it was not already
        /// woken for earlier answers.
        fn answer(&self, deferred: Deferred, done: Done) {
            let mut guard = self.done.lock().unwrap_or_else(|e| e.into_inner());
            let Some(queue) = guard.as_mut() else {
                return; // The environment is gone; nobody waits for this answer.
            };
            let wake = queue.is_empty();
            queue.push((deferred, done));
            if wake {
                // SAFETY: `done` is `Some`, so teardown has not released `tsfn`, and cannot
                // while we hold the lock.
                unsafe {
                    sys::napi_call_threadsafe_function(
                        self.tsfn(),
                        ptr::null_mut(),
                        sys::ThreadsafeFunctionCallMode::nonblocking,
                    )
                };
            }
        }
    }

    /// On the JavaScript thread: resolves every answer that has arrived.
    unsafe extern "C" fn deliver(
        env: sys::napi_env,
        _js_callback: sys::napi_value,
        context: *mut c_void,
        _data: *mut c_void,
    ) {
        if env.is_null() || context.is_null() {
            return; // Teardown: nothing can be resolved any more.
        }
        // SAFETY: `context` is the port's `Arc`, alive until `finalize`, which runs after the
        // last call of this callback.
        let port = unsafe { &*(context as *const Port) };
        let batch = {
            let mut guard = port.done.lock().unwrap_or_else(|e| e.into_inner());
            guard.as_mut().map(std::mem::take).unwrap_or_default()
        };
        let settled = batch.len();
        for (deferred, done) in batch {
            let _ = catch_unwind(AssertUnwindSafe(|| {
                // SAFETY: `env` is this thread's live environment; each deferred is settled once.
                unsafe {
                    let fallback = done.internal();
                    let value = match done.into_js(env) {
                        Ok(value) => value,
                        Err(_) => match fallback.into_js(env) {
                            Ok(value) => value,
                            Err(_) => {
                                let mut undefined = ptr::null_mut();
                                sys::napi_get_undefined(env, &mut undefined);
                                undefined
                            }
                        },
                    };
                    sys::napi_resolve_deferred(env, deferred.0, value);
                }
            }));
        }
        if settled > 0 && port.pending.fetch_sub(settled, Ordering::Relaxed) == settled {
            // SAFETY: on the JavaScript thread that owns `tsfn`.
            unsafe { sys::napi_unref_threadsafe_function(env, port.tsfn()) };
        }
    }

    /// The environment is torn down: answers still to come are dropped, and the port's
    /// reference is released.
    unsafe extern "C" fn finalize(_env: sys::napi_env, data: *mut c_void, _hint: *mut c_void) {
        // SAFETY: `data` is the `Arc` reference given at creation, taken back once, here.
        let port = unsafe { Arc::from_raw(data as *const Port) };
        *port.done.lock().unwrap_or_else(|e| e.into_inner()) = None;
        let _ = PORT.try_with(|p| p.borrow_mut().take());
    }
}

/// `"seed"` (the `/v0.1` entry) or anything else (the package root).
fn profile_of(name: &str) -> Profile {
    if name == "seed" {
        Profile::Seed
    } else {
        Profile::Current
    }
}

/// Runs one call the binding received: decodes it, registers its cancel flag when the caller
/// passed an id (an `AbortSignal`), and runs `f` with the context.
fn with_call(
    args: Either<String, NativeArgs>,
    config_json: &str,
    profile: &str,
    call_id: Option<u32>,
    f: impl FnOnce(Value, &Ctx) -> Outcome,
) -> Outcome {
    let (args, config) = match dispatch::decode_call(args.into(), config_json, profile_of(profile))
    {
        Ok(decoded) => decoded,
        Err(err) => return Outcome::error(&err),
    };
    if let Err(e) = surface_of(&config) {
        let err = ToolError::invalid_input(format!("invalid config: {}", e.0));
        return Outcome::error(&err);
    }
    let (cancel, progress, _registration) = match call_id {
        Some(id) => {
            let (cancel, progress, reg) = call::register(id);
            (cancel, progress, Some(reg))
        }
        None => (Cancel::default(), Progress::default(), None),
    };
    f(
        args,
        &Ctx {
            progress,
            ..Ctx::new(&config, cancel)
        },
    )
}

/// A call's arguments: JSON, plus the large top-level strings of the object passed beside it
/// (`largeKeys[i]` → `largeValues[i]`) so they are never JSON-escaped and re-parsed.
#[napi(object)]
pub struct NativeArgs {
    pub json: String,
    pub large_keys: Vec<String>,
    pub large_values: Vec<String>,
}

/// A call's arguments cross as their JSON alone (the common case), or as [`NativeArgs`] when
/// large strings travel beside it.
impl From<Either<String, NativeArgs>> for WireArgs {
    fn from(args: Either<String, NativeArgs>) -> Self {
        match args {
            Either::A(json) => WireArgs {
                json,
                ..WireArgs::default()
            },
            Either::B(a) => WireArgs {
                json: a.json,
                large_keys: a.large_keys,
                large_values: a.large_values,
            },
        }
    }
}

/// Validates, runs and bounds one tool call under `profile` (`"seed"` or `"current"`).
/// `checked` says the arguments already passed [`validate_native`] (a guard saw them).
/// `call_id` names the call for [`abort_call`]. Never rejects.
#[napi(ts_return_type = "Promise<NativeOutcome | string>")]
pub fn dispatch_native(
    env: Env,
    name: String,
    args: Either<String, NativeArgs>,
    config_json: String,
    profile: String,
    call_id: Option<u32>,
    checked: Option<bool>,
) -> Result<PromiseRaw<'static, NativeOutcome>> {
    off_thread(&env, &name.clone(), move || {
        with_call(args, &config_json, &profile, call_id, |args, ctx| {
            if checked == Some(true) {
                dispatch::dispatch_checked(&name, args, ctx)
            } else {
                dispatch::dispatch(&name, args, ctx)
            }
        })
    })
}

/// One call of a batch: the tool's name and its arguments.
#[napi(object)]
pub struct NativeCall {
    pub name: String,
    pub args: Either<String, NativeArgs>,
}

/// Runs a batch of calls like [`dispatch_native`] each (validated, run, bounded), spread over
/// the pool, and resolves once with every outcome in order. `call_ids[i]` names call `i` for
/// [`abort_call`]. Never rejects.
#[napi(ts_return_type = "Promise<NativeOutcome[]>")]
pub fn dispatch_many_native(
    env: Env,
    calls: Vec<NativeCall>,
    config_json: String,
    profile: String,
    call_ids: Option<Vec<u32>>,
) -> Result<PromiseRaw<'static, Vec<NativeOutcome>>> {
    let (ticket, promise) = answer::promise(&env)?;
    if calls.is_empty() {
        ticket.settle(Done::Many(Vec::new()));
        return Ok(promise);
    }
    struct Batch {
        outcomes: Mutex<Vec<Option<NativeOutcome>>>,
        left: AtomicUsize,
        ticket: Mutex<Option<answer::Ticket>>,
    }
    let batch = Arc::new(Batch {
        outcomes: Mutex::new((0..calls.len()).map(|_| None).collect()),
        left: AtomicUsize::new(calls.len()),
        ticket: Mutex::new(Some(ticket)),
    });
    let config_json: Arc<str> = config_json.into();
    let profile: Arc<str> = profile.into();
    for (i, NativeCall { name, args }) in calls.into_iter().enumerate() {
        let call_id = call_ids.as_ref().and_then(|ids| ids.get(i).copied());
        let (batch, config_json, profile) = (batch.clone(), config_json.clone(), profile.clone());
        answer::spawn(tools::waits(&name), move || {
            let outcome = run_call(|| {
                with_call(args, &config_json, &profile, call_id, |args, ctx| {
                    dispatch::dispatch(&name, args, ctx)
                })
            });
            batch.outcomes.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(outcome);
            if batch.left.fetch_sub(1, Ordering::AcqRel) == 1 {
                let outcomes =
                    std::mem::take(&mut *batch.outcomes.lock().unwrap_or_else(|e| e.into_inner()))
                        .into_iter()
                        .map(|o| o.unwrap_or_else(|| Outcome::error(&ToolError::internal()).into()))
                        .collect();
                if let Some(ticket) = batch
                    .ticket
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .take()
                {
                    ticket.settle(Done::Many(outcomes));
                }
            }
        });
    }
    Ok(promise)
}

/// Looks the tool up and validates the arguments (the steps before a guard): the coerced
/// arguments as JSON, or the error envelope (`isError`).
#[napi]
pub fn validate_native(
    name: String,
    args: Either<String, NativeArgs>,
    config_json: String,
    profile: String,
) -> NativeOutcome {
    with_call(args, &config_json, &profile, None, |args, ctx| {
        Outcome::from_result(
            dispatch::validate(&name, args, ctx).map(|checked| Output::text(checked.to_string())),
        )
    })
    .into()
}

/// Runs one tool call without bounding its output (`ToolDef.handler`).
#[napi(ts_return_type = "Promise<NativeOutcome | string>")]
pub fn handler_native(
    env: Env,
    name: String,
    args: Either<String, NativeArgs>,
    config_json: String,
    profile: String,
    call_id: Option<u32>,
) -> Result<PromiseRaw<'static, NativeOutcome>> {
    off_thread(&env, &name.clone(), move || {
        with_call(args, &config_json, &profile, call_id, |args, ctx| {
            Outcome::from_result(dispatch::handler(&name, args, ctx))
        })
    })
}

/// Runs one call of the config's tool surface (`config.surface`) with the read-before-write
/// ledger `ledger_id` (see [`crate::surfaces::ledger`]). Never rejects.
#[napi(ts_return_type = "Promise<NativeOutcome | string>")]
pub fn dispatch_surface_native(
    env: Env,
    name: String,
    args: Either<String, NativeArgs>,
    config_json: String,
    ledger_id: Option<u32>,
    call_id: Option<u32>,
) -> Result<PromiseRaw<'static, NativeOutcome>> {
    // Surface tools that run commands wait on another process, as the engine's bash does.
    let pool_name = if surfaces::runs_commands(&name) {
        "bash".to_string()
    } else {
        name.clone()
    };
    off_thread(&env, &pool_name, move || {
        with_call(
            args,
            &config_json,
            "current",
            call_id,
            |args, ctx| match surface_of(ctx).ok().flatten() {
                Some(surface) => {
                    let ledger = surfaces::ledger::get(ledger_id);
                    surfaces::dispatch(surface, &name, args, ctx, &ledger)
                }
                None => dispatch::dispatch(&name, args, ctx),
            },
        )
    })
}

/// The tools of surface `name` as JSON: `[{name, description, inputSchema, mutating}]`.
#[napi]
pub fn surface_tools_json(name: String) -> Result<String> {
    let surface = surfaces::Surface::parse("surface", &name).map_err(|e| startup_error(e.0))?;
    Ok(surfaces::defs_json(surface).to_string())
}

/// Opens a read-before-write ledger for one tools object; returns its id.
#[napi]
pub fn ledger_open() -> u32 {
    surfaces::ledger::open()
}

/// Closes ledger `id` (its tools object was collected).
#[napi]
pub fn ledger_close(id: u32) {
    surfaces::ledger::close(id);
}

/// How many ledgers are open (tests of the cleanup).
#[napi]
pub fn ledger_open_count() -> u32 {
    surfaces::ledger::open_count() as u32
}

/// Raises the cancel flag of call `id` (its `AbortSignal` fired).
#[napi]
pub fn abort_call(id: u32) {
    call::abort(id);
}

/// How far a running call has got: files walked, bytes scanned, a command's latest output.
#[napi(object, object_from_js = false)]
pub struct NativeProgress {
    pub files: f64,
    pub bytes: f64,
    pub tail: String,
}

/// The progress of call `id`, or `null` once it has ended.
#[napi]
pub fn call_progress(id: u32) -> Option<NativeProgress> {
    call::progress(id).map(|p| NativeProgress {
        files: p.files as f64,
        bytes: p.bytes as f64,
        tail: p.tail,
    })
}

/// Test-only: a tool that panics, run through the same guard as every tool.
#[napi(ts_return_type = "Promise<NativeOutcome | string>")]
pub fn test_only_panic(env: Env) -> Result<PromiseRaw<'static, NativeOutcome>> {
    off_thread(&env, "test_only_panic", || {
        Outcome::from_result(dispatch::guarded("test_only_panic", || {
            panic!("injected test panic")
        }))
    })
}

/// Test-only: while `name` is set, a commit fails with `io_error` when it is about to install
/// a file of that name, so tests can prove multi-file rollback. `null` clears it.
#[napi]
pub fn test_only_fail_commit_on(name: Option<String>) {
    crate::atomic::set_fail_on(name);
}

/// Every built tool as JSON, with the flags the JavaScript side selects surfaces by:
/// `[{name, description, inputSchema, contractInputSchema, seedInputSchema, mutating, bounded,
/// sinceV05, extra, needsTreeSitter}]` (`inputSchema` has the engine's extra arguments,
/// `contractInputSchema` the newest contract's only).
#[napi]
pub fn tool_defs_json() -> String {
    let defs: Vec<Value> = tools::REGISTRY
        .iter()
        .map(|t| {
            serde_json::json!({
                "name": t.name,
                "description": t.description,
                "inputSchema": t.schema,
                "contractInputSchema": t.contract_schema,
                "seedInputSchema": t.seed_schema,
                "mutating": t.mutating,
                "bounded": t.bounded,
                "sinceV05": t.since_v05,
                "extra": t.extra,
                "needsTreeSitter": t.needs_tree_sitter,
                "annotations": t.annotations,
                "outputSchema": t.output_schema,
            })
        })
        .collect();
    Value::Array(defs).to_string()
}

/// The surface a config names: config holds the name, the surfaces read it.
fn surface_of(config: &Config) -> std::result::Result<Option<surfaces::Surface>, StartupError> {
    config
        .surface
        .as_deref()
        .map(|name| surfaces::Surface::parse("surface", name))
        .transpose()
}

/// Refuses an unknown surface name in the options, naming the setting it came from.
fn check_surface(setting: &str, options: &Options) -> Result<()> {
    if let Some(name) = &options.surface {
        surfaces::Surface::parse(setting, name).map_err(|e| startup_error(e.0))?;
    }
    Ok(())
}

fn startup_error(message: String) -> Error {
    Error::new(Status::InvalidArg, message)
}

fn cwd() -> Result<std::path::PathBuf> {
    std::env::current_dir()
        .map_err(|e| startup_error(format!("cannot read the current directory: {e}")))
}

/// `resolveConfig` from the options as JSON; throws with a message naming the setting.
#[napi]
pub fn resolve_config_json(options_json: String, profile: Option<String>) -> Result<String> {
    let value: Value = serde_json::from_str(&options_json)
        .map_err(|e| startup_error(format!("options are not serializable: {e}")))?;
    // The surface name first (as the seed did), without reading the other options yet: the
    // newest contract reports those in its own order.
    if let Some(Value::String(name)) = value.get("surface") {
        surfaces::Surface::parse("surface", name).map_err(|e| startup_error(e.0))?;
    }
    let profile = profile_of(profile.as_deref().unwrap_or(""));
    let mut resolved =
        config::resolve_for(&value, &cwd()?, profile).map_err(|e| startup_error(e.0))?;
    // Whether the kernel can enforce the sandbox asked for (and with which mechanism).
    crate::sandbox::resolve(&mut resolved).map_err(|e| startup_error(e.0))?;
    Ok(serde_json::to_string(&resolved).expect("config serializes"))
}

/// One diagnostic line per unknown key of `resolveConfig`'s options, naming the closest real
/// option; empty when every key is known (or the options are not an object).
#[napi]
pub fn unknown_option_notes(options_json: String) -> Vec<String> {
    serde_json::from_str::<Value>(&options_json)
        .ok()
        .and_then(|v| Options::from_json_noting_unknown(&v).ok())
        .map(|(_, notes)| notes)
        .unwrap_or_default()
}

/// `buildConfig` from argv and the environment (as JSON); at `/v0.1` the workspace defaults
/// to the current directory, at the root it must be given.
#[napi]
pub fn build_config_json(
    argv: Vec<Option<String>>,
    env_json: String,
    ripgrep_available: bool,
    tree_sitter_available: bool,
    profile: String,
) -> Result<String> {
    let env: Value = serde_json::from_str(&env_json)
        .map_err(|e| startup_error(format!("env is not serializable: {e}")))?;
    let empty = serde_json::Map::new();
    if profile_of(&profile) == Profile::Current {
        let mut options =
            config::newest_options_from_argv_env(&argv, env.as_object().unwrap_or(&empty))
                .map_err(|e| startup_error(e.0))?;
        options.insert("ripgrepAvailable".into(), Value::Bool(ripgrep_available));
        options.insert(
            "treeSitterAvailable".into(),
            Value::Bool(tree_sitter_available),
        );
        let options = Value::Object(options);
        let cwd = cwd()?;
        config::check_newest(&options, &cwd).map_err(|e| startup_error(e.0))?;
        let mut options = Options::from_json(&options).map_err(|e| startup_error(e.0))?;
        check_surface("--surface", &options)?;
        // The sandbox and shell settings are not the contract's: read by the shared parser,
        // from the flags other than the workspace and the SANDBOX* and BASH_SHELL variables.
        let mut rest = Vec::with_capacity(argv.len());
        let mut it = argv.iter().flatten();
        while let Some(arg) = it.next() {
            if arg == "--workspace" {
                it.next();
            } else if !arg.starts_with("--workspace=") {
                rest.push(arg.clone());
            }
        }
        let sandbox_env: serde_json::Map<String, Value> = env
            .as_object()
            .unwrap_or(&empty)
            .iter()
            .filter(|(k, _)| k.starts_with("SANDBOX") || *k == "BASH_SHELL")
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let sandbox = config::options_from_argv_env(&rest, &sandbox_env, Profile::Current)
            .map_err(|e| startup_error(e.0))?;
        options.sandbox = sandbox.sandbox;
        options.sandbox_network = sandbox.sandbox_network;
        options.sandbox_writable_roots = sandbox.sandbox_writable_roots;
        options.sandbox_mechanism = sandbox.sandbox_mechanism;
        options.shell = sandbox.shell;
        let mut resolved = config::resolve(options, &cwd).map_err(|e| startup_error(e.0))?;
        crate::sandbox::resolve(&mut resolved).map_err(|e| startup_error(e.0))?;
        return Ok(serde_json::to_string(&resolved).expect("config serializes"));
    }
    // The seed entry refuses an argv that is not all strings before it gets here.
    let argv: Vec<String> = argv.into_iter().flatten().collect();
    let mut options = config::options_from_argv_env(
        &argv,
        env.as_object().unwrap_or(&empty),
        profile_of(&profile),
    )
    .map_err(|e| startup_error(e.0))?;
    check_surface("--surface", &options)?;
    options
        .workspace_root
        .get_or_insert_with(|| ".".to_string());
    options.ripgrep_available = Some(ripgrep_available);
    options.tree_sitter_available = Some(tree_sitter_available);
    let mut resolved = config::resolve(options, &cwd()?).map_err(|e| startup_error(e.0))?;
    // Whether the kernel can enforce the sandbox asked for (and with which mechanism).
    crate::sandbox::resolve(&mut resolved).map_err(|e| startup_error(e.0))?;
    Ok(serde_json::to_string(&resolved).expect("config serializes"))
}

/// The environment variables `buildConfig` reads under `profile` (`seed` or `current`): what
/// the CLI's help and the docs are checked against.
#[napi]
pub fn config_env_vars(profile: String) -> Vec<String> {
    config::env_vars_read(profile_of(&profile))
}

/// Whether an `rg` executable is on PATH (the default `probeRipgrep`).
#[napi]
pub fn ripgrep_on_path() -> bool {
    config::ripgrep_on_path()
}

/// Removes `.clarvis/bash-*` spill files older than 24 hours. Never rejects.
#[napi]
pub async fn sweep_spill_dir_native(root: String) {
    let _ = tokio::task::spawn_blocking(move || spill::sweep(std::path::Path::new(&root))).await;
}

/// Deletes the files of every monitor under `root` that is not running. Never rejects.
#[napi]
pub async fn sweep_monitors_native(root: String) {
    let _ = tokio::task::spawn_blocking(move || {
        crate::monitor::sweep(std::path::Path::new(&root));
    })
    .await;
}

/// Kills every process group `bash` started that may still be running (background processes),
/// and every process still carrying this host's mark. Run on the host process's `exit`; does
/// nothing on any other thread than the process's main one (a Node worker's `exit` is the
/// worker's own, not the host's).
#[napi]
pub fn kill_all_bash_processes() {
    if on_main_thread() {
        shell::kill_all();
    }
}

/// Whether the calling thread is the process's first thread, the one Node runs its main
/// JavaScript thread on. (Asked here instead of through `worker_threads.isMainThread`, whose
/// module costs every fresh process 1.3–2 ms to load.)
fn on_main_thread() -> bool {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    return nix::unistd::gettid() == nix::unistd::getpid();
    #[cfg(target_vendor = "apple")]
    return unsafe { nix::libc::pthread_main_np() } != 0;
    #[allow(unreachable_code)]
    true
}

/// `analyzeBash`: the facts about a shell command as JSON. Never throws. With `root` (the
/// workspace) the parse resolves paths physically against it, starting in `cwd` (relative to
/// the root, or absolute) when given.
#[napi]
pub fn analyze_bash_json(command: String, root: Option<String>, cwd: Option<String>) -> String {
    let place = root.map(|root| {
        let root = config::lexical_absolute(std::path::Path::new(&root), std::path::Path::new("/"));
        let start = cwd.map(|c| config::lexical_absolute(std::path::Path::new(&c), &root));
        bash_facts::Place {
            root,
            start,
            within: paths::is_within,
        }
    });
    bash_facts::analyze_in(&command, place.as_ref())
        .to_json()
        .to_string()
}

/// Whether `path` passes the workspace confinement check for `root` (`PathFact
/// .withinWorkspace`). Both are made absolute and normalized lexically first.
#[napi]
pub fn path_within_workspace(root: String, path: String) -> bool {
    let root = config::lexical_absolute(std::path::Path::new(&root), std::path::Path::new("/"));
    let abs = config::lexical_absolute(std::path::Path::new(&path), &root);
    paths::is_within(&root, &abs)
}
