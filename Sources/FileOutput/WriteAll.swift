// The one write loop: every byte, through interrupted and partial writes.

#if canImport(Glibc)
import Glibc
#endif

/// Writes all of `bytes` to `fd`, retrying EINTR and short writes; returns 0, or the errno of the failure.
package func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32 {
    guard var base = bytes.baseAddress else { return 0 }
    var left = bytes.count
    while left > 0 {
        let n = Glibc.write(fd, base, left)
        if n < 0 {
            if errno == EINTR { continue }
            return errno
        }
        if n == 0 { return EIO }
        base += n
        left -= n
    }
    return 0
}
