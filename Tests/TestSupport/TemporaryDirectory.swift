import Foundation
import Synchronization

/// A fresh directory under the system's temporary folder, removed when the value is released.
public final class TemporaryDirectory: @unchecked Sendable {
    public let url: URL

    public init(_ prefix: String = "bookkeeper-test") {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(prefix)-\(UUID().uuidString.prefix(8))", isDirectory: true)
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        TemporaryDirectory.live.withLock { _ = $0.insert(url.path) }
        TemporaryDirectory.removeAtExit
    }

    /// XCTest keeps every test case, and the folders its properties hold, until the process exits, which runs no
    /// deinit: those still here then are removed at exit (before, each run left thousands in /tmp).
    private static let live = Mutex<Set<String>>([])
    private static let removeAtExit: Void = {
        atexit {
            for path in TemporaryDirectory.live.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: path) }
        }
    }()

    public var path: String { url.path }

    public func file(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// Writes `text` to a file in the directory and returns its path.
    @discardableResult
    public func write(_ name: String, _ text: String) -> String {
        let path = file(name)
        try! Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    deinit {
        TemporaryDirectory.live.withLock { _ = $0.remove(url.path) }
        try? FileManager.default.removeItem(at: url)
    }
}

/// The project's root folder (where Package.swift is), found from this file's path.
public let packageRoot: URL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// `../shared/datasets` beside the project, or nil when it is absent (then dataset tests skip and say so).
public var sharedDatasets: URL? {
    let url = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/datasets")
    return FileManager.default.fileExists(atPath: url.path) ? url : nil
}
