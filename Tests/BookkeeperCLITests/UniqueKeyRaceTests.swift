import Foundation
import TestSupport
import XCTest

/// Attack 19's finding 13: two writers adding the same key at once. Each validates before it takes the write lock,
/// so both may find the key free; the unique index then refuses the second's write, which exited 74 with the
/// database's words (`UNIQUE constraint failed: Tag.name`). Now the refusal is validated again: 65 with the message
/// validation gives, and each key is one object.
final class UniqueKeyRaceTests: XCTestCase {
    func testParallelAddsOfOneKeyOnAStoreFileGiveOneObjectAndTheValidationsMessage() throws {
        let dir = TemporaryDirectory("unique-race")
        let store = dir.file("books.sqlite")
        XCTAssertEqual(runCLI(["--store", store, "init"]).status, 0)
        try Self.race(store: store, rounds: 4, writers: 6)
    }

    /// `rounds` times, `writers` processes add a Tag whose name half of them share with another: every exit is 0, or
    /// 65 with `Tag.name "…" already exists (Tag/N)` alone on stderr, and every name is one object.
    static func race(store: String, rounds: Int, writers: Int, file: StaticString = #filePath, line: UInt = #line) throws {
        var names = Set<String>()
        for round in 1...rounds {
            let lock = NSLock()
            nonisolated(unsafe) var results: [(String, CLIResult)] = []
            DispatchQueue.concurrentPerform(iterations: writers) { i in
                let name = "q\(round)-\(i % 2)"
                let r = runCLI(["--store", store, "--wait", "30", "add", "Tag", "name=\(name)"])
                lock.withLock { results.append((name, r)) }
            }
            for (name, r) in results {
                names.insert(name)
                switch r.status {
                case 0:
                    break
                case 65:
                    let message = r.stderr.replacingOccurrences(of: #"Tag/[0-9]+"#, with: "Tag/N", options: .regularExpression)
                    XCTAssertEqual(message, "bookkeeper: Tag.name \"\(name)\" already exists (Tag/N)\n", "\(r)", file: file, line: line)
                default:
                    XCTFail("\(name): \(r)", file: file, line: line)
                }
            }
        }
        for name in names {
            let count = runCLI(["--store", store, "fetch", "Tag", "--where", "name == %@", "--arg", name, "--count"])
            XCTAssertEqual(count.stdout, "1\n", "\(name): \(count)", file: file, line: line)
        }
    }
}
