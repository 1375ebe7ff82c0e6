import XCTest
import TestSupport

/// The base of the end-to-end tests: a temporary folder with a store path in it (the store is not made), and the
/// built `bookkeeper` binary run in that folder on that store.
class StoreCommandTestCase: XCTestCase {
    var dir: TemporaryDirectory!
    var store: String { dir.file("books.sqlite") }

    override func setUp() {
        super.setUp()
        dir = TemporaryDirectory()
    }

    /// Removes the store with its SQLite companions (`init` refuses a new store beside a stale `-wal`: issue 26 §4).
    func removeStore() {
        for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: store + suffix) }
    }

    @discardableResult
    func bk(_ args: [String], stdin: String? = nil) -> CLIResult {
        runCLI(["--store", store] + args, in: dir.path, stdin: stdin)
    }

    @discardableResult
    func bk(_ args: String..., stdin: String? = nil) -> CLIResult { bk(args, stdin: stdin) }

    /// Runs a command that must succeed and returns its stdout.
    @discardableResult
    func ok(_ args: String..., file: StaticString = #filePath, line: UInt = #line) -> String {
        let r = bk(args)
        XCTAssertEqual(r.status, 0, "\(args): \(r)", file: file, line: line)
        return r.stdout
    }
}
