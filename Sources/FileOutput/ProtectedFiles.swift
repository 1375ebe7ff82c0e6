// The files no output may replace: the open store with its companions, and the file being read.
//
// Why this file exists: `report --output books.sqlite` or `import … --rejects orders.csv` once replaced the
// store or the input and exited 0. The store and the input register themselves here when they are opened;
// every output is checked against this list when it is resolved (`OutputTarget`), so no command can forget.
// A registered file is matched by device and inode (symlinks, hard links, `..` and other spellings all
// reach the same inode) and, for companions that do not exist yet (`-journal`), by canonical path.

import Foundation
#if canImport(Glibc)
import Glibc
#endif

public enum ProtectedFiles {
    public struct Entry: Sendable, Equatable {
        /// The path as registered, for messages.
        public let path: String
        /// What it is, for messages: "the store", "the input being imported".
        public let role: String
    }

    nonisolated(unsafe) private static var entries: [Entry] = []
    private static let lock = NSLock()

    /// Protects `path` (as spelt by the user) in the role given, for the rest of the process.
    public static func protect(_ path: String, as role: String) {
        guard !path.isEmpty, path != "-" else { return }
        lock.lock()
        defer { lock.unlock() }
        let entry = Entry(path: path, role: role)
        if !entries.contains(entry) { entries.append(entry) }
    }

    /// Protects an SQLite store and the files SQLite keeps beside it.
    public static func protectStore(_ path: String) {
        protect(path, as: "the store")
        protect(path + "-wal", as: "the store's write-ahead log")
        protect(path + "-shm", as: "the store's shared-memory index")
        protect(path + "-journal", as: "the store's rollback journal")
        protect(path + "-activity", as: "the store's busy note")
        // SQLite keeps its companions beside the real file when the store is reached through a symlink.
        if let real = canonicalPath(path), real != path {
            protect(real + "-wal", as: "the store's write-ahead log")
            protect(real + "-shm", as: "the store's shared-memory index")
            protect(real + "-journal", as: "the store's rollback journal")
        }
    }

    /// Forgets every registration (tests).
    package static func reset() {
        lock.lock()
        defer { lock.unlock() }
        entries.removeAll()
    }

    /// The registered file that `status` (a file that exists) or `canonical` (its canonical path) is, if any.
    static func match(status: stat?, canonical: String) -> Entry? {
        lock.lock()
        let current = entries
        lock.unlock()
        for entry in current {
            var other = stat()
            if let status, stat(entry.path, &other) == 0,
               other.st_dev == status.st_dev, other.st_ino == status.st_ino {
                return entry
            }
            if canonicalPath(entry.path) == canonical { return entry }
        }
        return nil
    }

    /// The match for an open descriptor (standard output redirected into the store).
    static func match(descriptor: Int32) -> Entry? {
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        lock.lock()
        let current = entries
        lock.unlock()
        for entry in current {
            var other = stat()
            if stat(entry.path, &other) == 0, other.st_dev == status.st_dev, other.st_ino == status.st_ino {
                return entry
            }
        }
        return nil
    }
}

/// The absolute path of `path` with symlinks and `..` resolved; for a file that does not exist, its
/// folder's canonical path and its own name. Nil when not even the folder exists.
func canonicalPath(_ path: String) -> String? {
    if let real = realpath(path, nil) {
        defer { free(real) }
        return String(cString: real)
    }
    let (folder, name) = splitPath(path)
    guard !name.isEmpty, name != ".", name != "..", let real = realpath(folder, nil) else { return nil }
    defer { free(real) }
    let base = String(cString: real)
    return base == "/" ? "/" + name : base + "/" + name
}

/// The folder (`.` when none is given) and the last component of `path`.
func splitPath(_ path: String) -> (folder: String, name: String) {
    guard let slash = path.lastIndex(of: "/") else { return (".", path) }
    let folder = slash == path.startIndex ? "/" : String(path[..<slash])
    return (folder, String(path[path.index(after: slash)...]))
}
