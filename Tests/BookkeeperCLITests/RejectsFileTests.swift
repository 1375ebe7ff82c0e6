// Attack 26, finding 6: `import --rejects FILE` removed whatever FILE was (another store, a customers CSV) when
// nothing was rejected, with exit 0 and not a word; through a symlink it replaced the target with a header instead.
// Only a rejects file (a first line ending in the column `reason`) may be replaced or removed; one `--rejects` path may
// serve a cron job's several imports.

import Foundation
import TestSupport
import XCTest

class RejectsFileTests: ImportTestCase {
    /// The sample store on a store file (as the suite began); new books on PostgreSQL (the rejects file is the
    /// question, not what the books hold).
    override func setUpWithError() throws {
        try super.setUpWithError()
        if storeKind == .file { SampleStore.copy(to: store) } else { ok("init") }
    }

    /// Generated first lines, each judged by a second implementation of "a rejects file" (the first line, split on a
    /// comma, semicolon, tab or bar, ends in the field `reason`): a file that is not one is refused (73) before anything
    /// is imported, whether the import would reject lines or not, and left byte for byte; one that is (of any import:
    /// `code,reason`, `a;b;reason`) is replaced or removed.
    func testRejectsNeverDeletesAFileThatIsNotARejectsFile() throws {
        dir.write("good.csv", "name\ngood1\n")
        dir.write("bad.csv", "name\ngood2\n\"\"\n")
        SampleStore.copy(to: dir.file("other.sqlite"))
        var candidates: [(String, Data)] = [("other.sqlite", try Data(contentsOf: URL(fileURLWithPath: dir.file("other.sqlite"))))]
        let fixed = ["name,city\nAcme,Berlin\n", "", "name\n", "reason\n", "name,reason", "name;reason\nx;y\n", "code,reason\nx,y\n",
                     "\u{FEFF}name,reason\n", "name,reason\r\n", " name,reason\n", "Name,reason\n", "a\tb\treason\n", "name,reasons\n"]
        var random = SeededGenerator(seed: Trials.seed(fixed: 626))
        var generated: [String] = []
        for _ in 0..<Trials.count("BOOKKEEPER_REJECTS_FILE_TRIALS", quick: 8, stress: 80) {
            // A prefix of a rejects header, or the header with one byte changed.
            var bytes = Array("name,reason\nx,y\n".utf8)
            if random.next(upTo: 2) == 0 { bytes = Array(bytes.prefix(random.next(upTo: 12))) } else {
                bytes[random.next(upTo: 12)] = random.pick(Array("abcNR;, \t|".utf8))
            }
            generated.append(String(decoding: bytes, as: UTF8.self))
        }
        for (i, text) in (fixed + generated).enumerated() { candidates.append(("file\(i).csv", Data(text.utf8))) }
        func isRejectsFile(_ bytes: Data) -> Bool {
            var text = String(decoding: bytes, as: UTF8.self)
            if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
            let line = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" })[0]
            return [",", ";", "\t", "|"].contains { d in
                let fields = line.split(separator: Character(d), omittingEmptySubsequences: false)
                return fields.count >= 2 && fields.last == "reason"
            }
        }
        var refused = 0, replaced = 0
        for (name, bytes) in candidates {
            for input in ["good.csv", "bad.csv"] {
                try bytes.write(to: URL(fileURLWithPath: dir.file(name)))
                let before = try wholeStore()
                let r = bk(["import", "Tag", input, "--on-error", "skip", "--rejects", name])
                let shown = "\(name) \(String(decoding: bytes.prefix(40), as: UTF8.self).debugDescription) \(input)"
                if isRejectsFile(bytes) {
                    replaced += 1
                    XCTAssertEqual(r.status, input == "good.csv" ? 0 : 65, "\(shown): \(r)")
                    XCTAssertEqual(FileManager.default.fileExists(atPath: dir.file(name)), input == "bad.csv", shown)
                } else {
                    refused += 1
                    XCTAssertEqual(r.status, 73, "\(shown): \(r)")
                    XCTAssertEqual(r.stderr, "bookkeeper: \(name): exists and is not a rejects file; not overwritten\n", shown)
                    XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: dir.file(name))), bytes, shown)
                    XCTAssertEqual(try wholeStore(), before, "nothing imported: \(shown)")
                }
            }
        }
        XCTAssertGreaterThan(refused, 10)
        XCTAssertGreaterThan(replaced, 10)
        reportTrials("rejects file", "\(candidates.count) files: \(refused / 2) not rejects files refused, \(replaced / 2) rejects files replaced or removed")
    }

    /// A rejects file is replaced or removed the same way at a plain path and through a symlink: nothing rejected, the
    /// earlier file (the link's target) is removed and the summary says so; lines rejected, it is written again there.
    func testRejectsThroughASymlinkActsAsOnThePath() throws {
        dir.write("good.csv", "name\ngood1\n")
        dir.write("bad.csv", "name\ngood2\n\"\"\n")
        try FileManager.default.createSymbolicLink(atPath: dir.file("link.csv"), withDestinationPath: "target.csv")
        for (given, file) in [("plain.csv", "plain.csv"), ("link.csv", "target.csv")] {
            dir.write(file, "name,reason\nold,\"was rejected\"\n")
            let clean = bk(["import", "Tag", "good.csv", "--on-error", "skip", "--rejects", given])
            XCTAssertEqual(clean.status, 0, "\(given): \(clean)")
            XCTAssertTrue(clean.stdout.contains("removed the earlier rejects file \(given): nothing was rejected\n"), clean.stdout)
            XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file(file)), given)
            let again = bk(["import", "Tag", "good.csv", "--on-error", "skip", "--rejects", given])
            XCTAssertEqual(again.status, 0, "\(given): \(again)")
            XCTAssertFalse(again.stdout.contains("removed"), "nothing to remove: \(again.stdout)")
            let bad = bk(["import", "Tag", "bad.csv", "--on-error", "skip", "--rejects", given])
            XCTAssertEqual(bad.status, 65, "\(given): \(bad)")
            XCTAssertEqual(try String(contentsOfFile: dir.file(file), encoding: .utf8),
                           "name,reason\n\"\",\"column \"\"name\"\": Tag.name is required\"\n", given)
            // A rejects file of this input is replaced.
            XCTAssertEqual(bk(["import", "Tag", "bad.csv", "--on-error", "skip", "--rejects", given]).status, 65)
            XCTAssertEqual(try String(contentsOfFile: dir.file(file), encoding: .utf8).components(separatedBy: "\n").count, 3)
        }
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: dir.file("link.csv")), "target.csv")
        // Through a link to something that is not a rejects file: refused, as at the path.
        dir.write("customers.csv", "name,city\nAcme,Berlin\n")
        try FileManager.default.createSymbolicLink(atPath: dir.file("link2.csv"), withDestinationPath: "customers.csv")
        let r = bk(["import", "Tag", "good.csv", "--on-error", "skip", "--rejects", "link2.csv"])
        XCTAssertEqual(r.status, 73, "\(r)")
        XCTAssertEqual(r.stderr, "bookkeeper: link2.csv: exists and is not a rejects file; not overwritten\n")
        XCTAssertEqual(try String(contentsOfFile: dir.file("customers.csv"), encoding: .utf8), "name,city\nAcme,Berlin\n")
    }

    /// The rejects file of a semicolon, CRLF input is recognized in that dialect; with `columns:` in a profile (no header) by its
    /// first record's fields: the input's and the reason.
    func testRejectsFileIsRecognizedInTheInputsDialect() throws {
        dir.write("bad.csv", "name;x\r\ngood3;1\r\n\"\";2\r\n")
        XCTAssertEqual(bk(["import", "Tag", "bad.csv", "--on-error", "skip", "--ignore-unknown", "--rejects", "r.csv"]).status, 65)
        XCTAssertTrue(try String(contentsOfFile: dir.file("r.csv"), encoding: .utf8).hasPrefix("name;x;reason\r\n"))
        XCTAssertEqual(bk(["import", "Tag", "bad.csv", "--on-error", "skip", "--ignore-unknown", "--rejects", "r.csv"]).status, 65)
        dir.write("cols.csv", "good4\n\"\"\n")
        dir.write("cols.yaml", "columns: [name]\n")
        XCTAssertEqual(bk(["import", "Tag", "cols.csv", "--profile", "cols.yaml", "--on-error", "skip", "--rejects", "c.csv"]).status, 65)
        XCTAssertEqual(bk(["import", "Tag", "cols.csv", "--profile", "cols.yaml", "--on-error", "skip", "--rejects", "c.csv"]).status, 65)
        dir.write("c.csv", "a,b,c\n")
        let r = bk(["import", "Tag", "cols.csv", "--profile", "cols.yaml", "--on-error", "skip", "--rejects", "c.csv"])
        XCTAssertEqual(r.status, 73, "\(r)")
        XCTAssertEqual(try String(contentsOfFile: dir.file("c.csv"), encoding: .utf8), "a,b,c\n")
    }

    /// Attack 27, finding 10: one --rejects path across UTF-8 and UTF-16 imports — the rejects file the UTF-16 import
    /// wrote (with its mark) was "not a rejects file" for the UTF-8 one (73), read in the input's encoding. A rejects
    /// file in every Unicode encoding with its byte-order mark (UTF-8, UTF-16 and UTF-32, either order) is one for an
    /// import in any encoding, and replaced in that import's encoding; without a mark, a UTF-8 one is one for a UTF-16
    /// import too. A file with a mark whose first line is not a rejects header is still refused, left as it was.
    func testARejectsFileIsReadInTheEncodingItsByteOrderMarkNames() throws {
        let rejectsText = "name,reason\n\"\",\"column \"\"name\"\": Tag.name is required\"\n"
        let other = "name,city\nAcme,Berlin\n"
        func encoded(_ text: String, _ encoding: String.Encoding, mark: [UInt8]) -> Data {
            var data = Data(mark)
            data.append(text.data(using: encoding)!)
            return data
        }
        let encodings: [(String, String.Encoding, [UInt8])] = [
            ("utf-8 with its mark", .utf8, [0xEF, 0xBB, 0xBF]), ("utf-16le", .utf16LittleEndian, [0xFF, 0xFE]),
            ("utf-16be", .utf16BigEndian, [0xFE, 0xFF]), ("utf-32le", .utf32LittleEndian, [0xFF, 0xFE, 0x00, 0x00]),
            ("utf-32be", .utf32BigEndian, [0x00, 0x00, 0xFE, 0xFF]),
        ]
        // The imports: UTF-8 without a mark and UTF-16 with one, each rejecting one line.
        let inputs: [(String, Data, String.Encoding, [UInt8])] = [
            ("bad8.csv", Data("name\nr8\n\"\"\n".utf8), .utf8, []),
            ("bad16.csv", encoded("name\nr16\n\"\"\n", .utf16LittleEndian, mark: [0xFF, 0xFE]), .utf16LittleEndian, [0xFF, 0xFE]),
        ]
        for (name, data, _, _) in inputs { try data.write(to: URL(fileURLWithPath: dir.file(name))) }
        var files = encodings.map { ($0.0, encoded(rejectsText, $0.1, mark: $0.2)) }
        files.append(("utf-8 without a mark", Data(rejectsText.utf8)))
        for (label, bytes) in files {
            for (input, _, inputEncoding, inputMark) in inputs {
                try bytes.write(to: URL(fileURLWithPath: dir.file("r.csv")))
                let r = bk(["import", "Tag", input, "--on-error", "skip", "--rejects", "r.csv"])
                XCTAssertEqual(r.status, 65, "\(label) rejects file, \(input): \(r)")
                XCTAssertEqual(fileBytes(dir.file("r.csv")), encoded(rejectsText, inputEncoding, mark: inputMark),
                               "\(label) rejects file, \(input): replaced in the input's encoding")
            }
        }
        // A mark does not make a rejects file.
        for (label, encoding, mark) in encodings {
            let bytes = encoded(other, encoding, mark: mark)
            try bytes.write(to: URL(fileURLWithPath: dir.file("c.csv")))
            let r = bk(["import", "Tag", "bad8.csv", "--on-error", "skip", "--rejects", "c.csv"])
            XCTAssertEqual(r.status, 73, "\(label): \(r)")
            XCTAssertEqual(r.stderr, "bookkeeper: c.csv: exists and is not a rejects file; not overwritten\n", label)
            XCTAssertEqual(fileBytes(dir.file("c.csv")), bytes, label)
        }
    }
}

final class RejectsFileTestsOnPostgreSQL: RejectsFileTests {
    override class var storeKind: StoreKind { .postgresql }
    override func testRejectsNeverDeletesAFileThatIsNotARejectsFile() throws { try super.testRejectsNeverDeletesAFileThatIsNotARejectsFile() }
    override func testRejectsThroughASymlinkActsAsOnThePath() throws { try super.testRejectsThroughASymlinkActsAsOnThePath() }
    override func testRejectsFileIsRecognizedInTheInputsDialect() throws { try super.testRejectsFileIsRecognizedInTheInputsDialect() }
    override func testARejectsFileIsReadInTheEncodingItsByteOrderMarkNames() throws { try super.testARejectsFileIsReadInTheEncodingItsByteOrderMarkNames() }
}

/// What only a store file has: the store itself among the files --rejects refuses (with the model file beside it).
final class RejectsFileStoreFileTests: SampleStoreTestCase {
    /// The store, the model file, the profile and the input are refused as --rejects (the output guard), before the
    /// rejects check and before anything is imported.
    func testRejectsRefusesTheConfigurationFiles() throws {
        dir.write("tags.csv", "name\ngood5\n")
        dir.write("tags.yaml", "on-error: skip\n")
        dir.write("model.yaml", "entities:\n  Customer:\n    attributes:\n      vat: { type: string }\n")
        let before = try storeFingerprint(store)
        for target in ["books.sqlite", "model.yaml", "tags.yaml", "tags.csv"] {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: dir.file(target)))
            let r = bk(["--model", "model.yaml", "import", "Tag", "tags.csv", "--profile", "tags.yaml", "--rejects", target])
            XCTAssertEqual(r.status, 73, "\(target): \(r)")
            XCTAssertTrue(r.stderr.hasPrefix("bookkeeper: \(target): refusing to write: it is "), "\(target): \(r.stderr)")
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: dir.file(target))), bytes, target)
        }
        XCTAssertEqual(try storeFingerprint(store), before)
    }
}
