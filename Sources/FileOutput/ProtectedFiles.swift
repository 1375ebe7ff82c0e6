// The files no output may replace: the open store with its companions, the file being read, and every
// configuration file bookkeeper reads (model files, import profiles, report definitions).
//
// Why this file exists: `report --output books.sqlite` or `import … --rejects orders.csv` once replaced the
// store or the input and exited 0, and `report tags --reports defs --output defs/customers.yaml` replaced
// another report's definition. The store, the input and the configuration register themselves here before any
// work; every output is checked against this list when it is resolved (`OutputTarget`), so no command can forget.
// A registered file is matched by device and inode (symlinks, hard links, `..` and other spellings all
// reach the same inode) and, for companions that do not exist yet (`-journal`), by canonical path. A folder
// of definitions is registered whole: each file in it, and any new name in it that would be read as one.

import Foundation
#if canImport(Glibc)
import Glibc
#endif

package enum ProtectedFiles {
    package struct Entry: Sendable, Equatable {
        /// The path as registered, for messages (for a folder's new names, the folder).
        package let path: String
        /// What it is, for messages: "the store", "the input being imported", "a report definition".
        package let role: String
        /// The store or one of its companions (`init` creates the store, so only the others refuse it).
        package var isStore = false
        /// For a new name in a registered folder: the folder as messages name it ("the report folder").
        package var folder: String?
        /// For a file that does not exist yet but would be read once made: where it would be read from
        /// ("beside the store books.sqlite").
        package var place: String?

        /// Why an output may not go there: `it is the store (books.sqlite)`, or for a new name in a folder of
        /// definitions `it would be read as a report definition (in the report folder defs)`, or for a file
        /// that would be read once made `it would be read as the model file (beside the store books.sqlite)`.
        package var reason: String {
            if let folder { return "it would be read as \(role) (in \(folder) \(path))" }
            if let place { return "it would be read as \(role) (\(place))" }
            return "it is \(role) (\(path))"
        }
    }

    /// A file registered with its folder: matched by identity and canonical path, both found once.
    private struct Identity: Hashable {
        let device: UInt64
        let inode: UInt64
    }

    /// A folder whose files of some kinds are all protected, new names included.
    private struct Folder {
        let canonical: String
        let suffixes: [String]
        let entry: Entry
    }

    nonisolated(unsafe) private static var entries: [Entry] = []
    nonisolated(unsafe) private static var byIdentity: [Identity: Entry] = [:]
    nonisolated(unsafe) private static var byCanonical: [String: Entry] = [:]
    nonisolated(unsafe) private static var folders: [Folder] = []
    private static let lock = NSLock()

    /// Protects `path` (as spelt by the user) in the role given, for the rest of the process.
    package static func protect(_ path: String, as role: String) {
        add(Entry(path: path, role: role))
    }

    /// Protects `path`, a file that does not exist yet but would be read as `role` once made (the model file's
    /// default path, `model.yaml` beside the store): matched by its canonical path, or by identity if it appears.
    /// `place` says where it would be read from, for messages ("beside the store books.sqlite").
    package static func protectNew(_ path: String, as role: String, place: String) {
        add(Entry(path: path, role: role, place: place))
    }

    private static func add(_ entry: Entry) {
        guard !entry.path.isEmpty, entry.path != "-" else { return }
        lock.lock()
        defer { lock.unlock() }
        if !entries.contains(entry) { entries.append(entry) }
    }

    /// Protects an SQLite store and the files SQLite keeps beside it.
    package static func protectStore(_ path: String) {
        func store(_ path: String, _ role: String) { add(Entry(path: path, role: role, isStore: true)) }
        store(path, "the store")
        store(path + "-wal", "the store's write-ahead log")
        store(path + "-shm", "the store's shared-memory index")
        store(path + "-journal", "the store's rollback journal")
        store(path + "-activity", "the store's busy note")
        // SQLite keeps its companions beside the real file when the store is reached through a symlink.
        if let real = canonicalPath(path), real != path {
            store(real + "-wal", "the store's write-ahead log")
            store(real + "-shm", "the store's shared-memory index")
            store(real + "-journal", "the store's rollback journal")
        }
    }

    /// Protects every file in `folder` whose name ends with one of `suffixes` (hidden names excepted, as a
    /// reader of the folder skips them), each as `role`, and every new name of that kind in it: a file put there
    /// would be read as one. `folderRole` names the folder in messages ("the report folder"). A folder that does
    /// not exist protects nothing. The files are listed once, here; matching an output against them costs the
    /// same however many there are.
    package static func protectFolder(_ folder: String, suffixes: [String], as role: String, folderRole: String) {
        var isFolder: ObjCBool = false
        guard !folder.isEmpty, FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue,
              let canonical = canonicalPath(folder),
              let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        var identities: [(Identity, String, Entry)] = []
        for name in names where isNamed(name, suffixes) {
            let path = folder.hasSuffix("/") ? folder + name : folder + "/" + name
            let entry = Entry(path: path, role: role)
            var status = stat()
            guard stat(path, &status) == 0 else { continue }
            identities.append((Identity(device: UInt64(status.st_dev), inode: UInt64(status.st_ino)),
                               canonicalPath(path) ?? path, entry))
        }
        lock.lock()
        defer { lock.unlock() }
        guard !folders.contains(where: { $0.canonical == canonical && $0.suffixes == suffixes }) else { return }
        folders.append(Folder(canonical: canonical, suffixes: suffixes,
                              entry: Entry(path: folder, role: role, folder: folderRole)))
        for (identity, canonicalFile, entry) in identities {
            if byIdentity[identity] == nil { byIdentity[identity] = entry }
            if byCanonical[canonicalFile] == nil { byCanonical[canonicalFile] = entry }
        }
    }

    private static func isNamed(_ name: String, _ suffixes: [String]) -> Bool {
        !name.hasPrefix(".") && suffixes.contains { name.hasSuffix($0) }
    }

    /// Forgets every registration (tests).
    package static func reset() {
        lock.lock()
        defer { lock.unlock() }
        entries.removeAll()
        byIdentity.removeAll()
        byCanonical.removeAll()
        folders.removeAll()
    }

    /// The registered file that `status` (a file that exists) or `canonical` (its canonical path) is, if any;
    /// with `sparingStore`, one that is not the store or a companion of it.
    static func match(status: stat?, canonical: String?, sparingStore: Bool = false) -> Entry? {
        lock.lock()
        let current = entries, identities = byIdentity, canonicals = byCanonical, folders = folders
        lock.unlock()
        for entry in current where !(sparingStore && entry.isStore) {
            var other = stat()
            if let status, stat(entry.path, &other) == 0,
               other.st_dev == status.st_dev, other.st_ino == status.st_ino {
                return entry
            }
            if let canonical, canonicalPath(entry.path) == canonical { return entry }
        }
        if let status, let entry = identities[Identity(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))] {
            return entry
        }
        guard let canonical else { return nil }
        if let entry = canonicals[canonical] { return entry }
        let (parent, name) = splitPath(canonical)
        return folders.first { $0.canonical == parent && isNamed(name, $0.suffixes) }?.entry
    }

    /// The match for an open descriptor (standard output redirected into the store).
    static func match(descriptor: Int32) -> Entry? {
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        return match(status: status, canonical: nil)
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
