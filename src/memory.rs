//! Memory hints for large buffers: a file read whole, a command's captured output.

/// Asks for transparent huge pages under the spare capacity of a large buffer about to be
/// filled (Linux, where they are given on request): filling 15 MB then takes 8 page faults
/// instead of 3,800. Harmless to ask again after the buffer grew. Where the kernel defragments
/// for such regions on fault (THP `defrag` set to `madvise`, as here), a fault may compact
/// memory first; no such stall was counted (`compact_stall` in `/proc/vmstat`) over the edit
/// and calls suites.
pub fn huge_pages(bytes: &mut Vec<u8>) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let start = bytes.as_mut_ptr() as usize;
        let end = start + bytes.capacity();
        let (first, last) = (start.next_multiple_of(HUGE), end / HUGE * HUGE);
        if last > first {
            // SAFETY: the range lies inside this vector's own allocation, and the advice only
            // changes how its pages are backed, never their contents.
            let _ = unsafe {
                rustix::mm::madvise(
                    first as *mut std::ffi::c_void,
                    last - first,
                    rustix::mm::Advice::LinuxHugepage,
                )
            };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = bytes;
}
