// Reading a definition file's bytes. A definitions folder is searched for every `*.yaml` in it, so what
// sits there under that name may be a named pipe (which a plain read waits on for a writer that never
// comes), a folder, a link to nothing, or a file this user may not read; each is named for what it is.
//
// Exit statuses: nothing at the path is missing input (66); something there that is not a readable
// definition file is a definition that is not sound (78), as a bad definition is; a read that fails
// part-way is an I/O error (74).

import Foundation
import ObjectStore

enum DefinitionFile {
    static func read(path: String, file: String) throws -> Data {
        var fd: Int32
        // O_NONBLOCK: opening a named pipe must not wait for a writer; fstat then refuses it.
        repeat { fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC) } while fd < 0 && errno == EINTR
        guard fd >= 0 else { throw openError(errno, path: path, file: file) }
        defer { _ = close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw unreadable(file, String(cString: strerror(errno)), category: .io) }
        switch status.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw unreadable(file, "is a folder")
        case S_IFIFO: throw unreadable(file, "is a named pipe, not a regular file")
        case S_IFSOCK: throw unreadable(file, "is a socket, not a regular file")
        case S_IFCHR, S_IFBLK: throw unreadable(file, "is a device, not a regular file")
        default: throw unreadable(file, "is not a regular file")
        }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw unreadable(file, String(cString: strerror(errno)), category: .io) }
            if n == 0 { return data }
            data.append(contentsOf: buffer[..<n])
        }
    }

    private static func openError(_ code: Int32, path: String, file: String) -> ReportInputError {
        var status = stat()
        if code == ENOENT {
            // lstat sees a link whose target is gone, where open saw nothing.
            guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFLNK else {
                return ReportInputError("\(file): no such report definition")
            }
            let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: path)).map { " \"\($0)\"" } ?? ""
            return unreadable(file, "a symbolic link to\(target), which leads to no file")
        }
        return unreadable(file, String(cString: strerror(code)), category: code == EIO ? .io : .configuration)
    }

    private static func unreadable(_ file: String, _ why: String, category: ErrorCategory = .configuration) -> ReportInputError {
        ReportInputError("\(file): cannot read the report definition: \(why)", category: category)
    }
}
