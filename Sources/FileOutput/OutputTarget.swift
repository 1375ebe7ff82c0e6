// Where an output really goes, decided once before anything is written.
//
// Why this file exists: every way a command could destroy data through an output path is a question of
// what the path is, so it is answered here, for every command:
// - the store, its companions, the input or a configuration file (`ProtectedFiles`) are refused, however
//   they are spelt;
// - a device, FIFO or socket is written in place: renaming a file over `/dev/null` as root replaces it for
//   the whole machine;
// - `/dev/stdout`, `/dev/stderr` and `/dev/fd/N` are the descriptors this process already has, as the
//   shell means them (opening them anew would truncate or lose `>>`, and fails for a plain user's pipes);
// - a symlink stays a symlink: the file it points to is replaced, with the temporary file beside it;
//   a dangling or looping link, a folder or a block device is refused.

#if canImport(Glibc)
import Glibc
#endif

package enum OutputTarget: Equatable, Sendable {
    /// A descriptor the process already has (standard output for `-`); written in place, never closed.
    case descriptor(Int32)
    /// A character device, FIFO or socket (its canonical path): opened and written in place.
    case special(path: String, isSocket: Bool)
    /// A regular file or a new one (its canonical path): written beside it and renamed over it.
    case regular(path: String)

    /// Resolves `path` as given by the user; throws `FileOutputError` (`.cannotCreate`) for every target
    /// that must not or cannot be written.
    /// `creatingThroughDanglingLink`: a symbolic link to nothing names the file it points to, made anew (for an
    /// output whose "nothing to write" removes the file a link points to: `import --rejects`).
    package static func resolve(_ path: String, creatingThroughDanglingLink: Bool = false) throws -> OutputTarget {
        if path == "-" { return try descriptorTarget(STDOUT_FILENO, path) }
        if let fd = aliasedDescriptor(path) { return try descriptorTarget(fd, path) }
        guard !path.isEmpty else { throw FileOutputError.refused(path, "cannot create (the path is empty)") }

        var link = stat()
        if lstat(path, &link) != 0 {
            let code = errno
            guard code == ENOENT else { throw FileOutputError.system(path, "create", code, kind: .cannotCreate) }
            // A new file: its folder must exist.
            let (folder, name) = splitPath(path)
            guard !name.isEmpty, name != ".", name != ".." else {
                throw FileOutputError.system(path, "create", EISDIR, kind: .cannotCreate)
            }
            var folderStatus = stat()
            guard stat(folder, &folderStatus) == 0 else { throw FileOutputError.system(path, "create", errno, kind: .cannotCreate) }
            guard folderStatus.st_mode & S_IFMT == S_IFDIR else {
                throw FileOutputError.system(path, "create", ENOTDIR, kind: .cannotCreate)
            }
            guard let canonical = canonicalPath(path) else { throw FileOutputError.system(path, "create", ENOENT, kind: .cannotCreate) }
            try refuseProtected(path, status: nil, canonical: canonical)
            return .regular(path: canonical)
        }

        var status = link
        if link.st_mode & S_IFMT == S_IFLNK {
            if stat(path, &status) != 0 {
                let code = errno
                if code == ENOENT, creatingThroughDanglingLink, let target = linkTarget(path) {
                    // The file the link points to, as a new file (its folder must exist, it must not be protected).
                    return try resolve(target)
                }
                if code == ENOENT { throw FileOutputError.refused(path, "cannot create (a symbolic link to nothing)") }
                if code == ELOOP { throw FileOutputError.refused(path, "cannot create (a loop of symbolic links)") }
                throw FileOutputError.system(path, "create", code, kind: .cannotCreate)
            }
        }
        guard let canonical = canonicalPath(path) else { throw FileOutputError.system(path, "create", errno, kind: .cannotCreate) }
        switch status.st_mode & S_IFMT {
        case S_IFDIR:
            throw FileOutputError.system(path, "create", EISDIR, kind: .cannotCreate)
        case S_IFBLK:
            throw FileOutputError.refused(path, "refusing to write: it is a block device")
        case S_IFCHR, S_IFIFO:
            return .special(path: canonical, isSocket: false)
        case S_IFSOCK:
            return .special(path: canonical, isSocket: true)
        default:
            try refuseProtected(path, status: status, canonical: canonical)
            return .regular(path: canonical)
        }
    }

    /// Refuses a standard output or error that the shell opened onto a protected file (`>> books.sqlite`,
    /// `1<>books.sqlite`): every message or result written there would go into the store.
    package static func refuseStandardStreamsIntoProtectedFiles() throws {
        for (fd, name) in [(STDOUT_FILENO, "standard output"), (STDERR_FILENO, "standard error")] {
            if let entry = ProtectedFiles.match(descriptor: fd) {
                throw FileOutputError.refused(name, "refusing to write: \(entry.reason)")
            }
        }
    }

    /// What the symbolic link at `path` points to, relative to the link's folder.
    private static func linkTarget(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink(path, &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        let target = String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if target.hasPrefix("/") { return target }
        let folder = splitPath(path).folder
        return folder == "/" ? "/" + target : folder + "/" + target
    }

    /// Refuses `path` if it is a protected file.
    static func refuseProtected(_ path: String, status: stat?, canonical: String) throws {
        if let entry = ProtectedFiles.match(status: status, canonical: canonical) {
            throw FileOutputError.refused(path, "refusing to write: \(entry.reason)")
        }
    }

    /// Refuses a new store's path (`init`) that is a protected file other than the store itself: a model file,
    /// a profile, a report definition or a new name in a report folder. Spelt any way, as for any output.
    package static func refuseProtectedOtherThanTheStore(_ path: String) throws {
        guard !path.isEmpty, let canonical = canonicalPath(path) else { return }
        var status = stat()
        let exists = stat(path, &status) == 0
        if let entry = ProtectedFiles.match(status: exists ? status : nil, canonical: canonical, sparingStore: true) {
            throw FileOutputError.refused(path, "refusing to write: \(entry.reason)")
        }
    }

    private static func descriptorTarget(_ fd: Int32, _ path: String) throws -> OutputTarget {
        // A closed descriptor (`>&-`) cannot be written, as `list` and `fetch` say of a closed standard output (74;
        // `report` and `export -` said `cannot create`, 73: found by the attack on 0.6.0).
        guard fcntl(fd, F_GETFD) >= 0 else { throw FileOutputError.system(path, "write", EBADF, kind: .io) }
        if let entry = ProtectedFiles.match(descriptor: fd) {
            throw FileOutputError.refused(path, "refusing to write: \(entry.reason)")
        }
        return .descriptor(fd)
    }

    /// The descriptor that `/dev/stdout`, `/dev/stderr`, `/dev/fd/N` or `/proc/self/fd/N` name.
    private static func aliasedDescriptor(_ path: String) -> Int32? {
        switch path {
        case "/dev/stdout": return STDOUT_FILENO
        case "/dev/stderr": return STDERR_FILENO
        default: break
        }
        for prefix in ["/dev/fd/", "/proc/self/fd/"] where path.hasPrefix(prefix) {
            let digits = path.dropFirst(prefix.count)
            if !digits.isEmpty, digits.count < 10, digits.allSatisfy(\.isASCII), let n = Int32(digits) { return n }
        }
        return nil
    }
}
