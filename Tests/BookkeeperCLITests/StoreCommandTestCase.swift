import XCTest
import TestSupport

/// The base of the end-to-end tests: a temporary folder with a store in it (the store is not made), and the built
/// `bookkeeper` binary run in that folder on that store. The store is of the suite's `storeKind`: a file in the
/// folder, or — in a subclass that overrides `storeKind` with `.postgresql` — a fresh schema on the test server,
/// so one suite's tests run on both kinds (docs/testing.md, "One suite, both kinds of store").
class StoreCommandTestCase: XCTestCase {
    /// The kind of store this suite's commands run on; a subclass `…OnPostgreSQL` overrides it.
    class var storeKind: StoreKind { .file }
    var storeKind: StoreKind { Self.storeKind }

    var dir: TemporaryDirectory!
    private var books: FreshStore?
    /// The store as `--store` takes it: `books.sqlite` in the folder, or the URI of the test's schema.
    var store: String { books?.argument ?? dir.file("books.sqlite") }
    /// The store's name in messages: its path, or the URI as shown (no password).
    var storeName: String { books?.displayName ?? store }

    /// A suite whose tests only read makes its books once (`makeBooks`, in the first test's set-up) and every test
    /// of the class reads them, in one folder; its tests must leave the books as they found them.
    class var booksAreMadeOnce: Bool { false }

    /// Makes the books every test of a `booksAreMadeOnce` suite reads.
    func makeBooks() throws {}

    /// The books made once, by class: its folder and store.
    nonisolated(unsafe) private static var madeOnce: [ObjectIdentifier: (dir: TemporaryDirectory, books: FreshStore)] = [:]

    override func setUpWithError() throws {
        try super.setUpWithError()
        guard Self.booksAreMadeOnce else {
            dir = TemporaryDirectory()
            if storeKind != .file { books = try storeKind.freshStore(for: self, in: dir) }
            return
        }
        if let made = Self.madeOnce[ObjectIdentifier(Self.self)] {
            (dir, books) = (made.dir, storeKind == .file ? nil : made.books)
            return
        }
        dir = TemporaryDirectory()
        let lasting = try storeKind.lastingStore(in: dir)
        books = storeKind == .file ? nil : lasting
        Self.madeOnce[ObjectIdentifier(Self.self)] = (dir, lasting)
        try makeBooks()
    }

    override class func tearDown() {
        if let made = madeOnce.removeValue(forKey: ObjectIdentifier(self)) { storeKind.remove(made.books) }
        super.tearDown()
    }

    /// Removes the store with its SQLite companions (`init` refuses a new store beside a stale `-wal`: issue 26 §4);
    /// on PostgreSQL the test moves to a fresh schema.
    func removeStore() {
        if storeKind != .file {
            books = try? storeKind.freshStore(for: self, in: dir)
            return
        }
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

    /// The entities of the default model with every attribute and relationship, for `dumpThroughCommands`.
    /// (A to-many relationship is the list of its targets' keys; the rows, which have none, by their to-ones.)
    static let defaultModelColumns: [(String, [String])] = [
        ("Customer", ["name", "code", "info", "tags.name", "orders.number"]), ("Tag", ["name"]),
        ("Service", ["name", "code", "info"]), ("Order", ["number", "date", "made", "paid", "customer"]),
        ("OrderRow", ["quantity", "price", "sum", "order", "service"]),
    ]

    /// Everything in books of the default model as the commands show it, on either kind of store.
    func dumpedStore(file: StaticString = #filePath, line: UInt = #line) -> String {
        dumpThroughCommands(store, entities: Self.defaultModelColumns, in: dir.path, file: file, line: line)
    }
}
