import Foundation
import XCTest
import TestSupport

/// Issue 24 §2: a document is imported whole, from any input, however its lines are spread through the file.
final class DocumentWholeTests: ImportTestCase {
    private let rowMaps = ["--map", "order=order.number", "--map", "service=service.name"]

    private func rows(of order: String) throws -> [String] {
        try query("""
            SELECT s.name || ' ' || r.quantity || ' ' || r.price FROM OrderRow r JOIN "Order" o ON o.id = r.order_id
            JOIN Service s ON s.id = r.service_id WHERE o.number = '\(order)' ORDER BY r.id
            """)
    }

    /// `import OrderRow … --on-error skip` kept two of a document's three lines (and so deleted its third stored
    /// row); re-importing the fixed rejects file, the documented workflow, then replaced the document's rows with
    /// the one line that had been rejected, exit 0.
    func testARowFileKeptTwoOfADocumentsThreeLinesAndTheFixedRejectsReplacedItsRows() throws {
        importSampleData()
        let before = try rows(of: "2026-001")
        XCTAssertEqual(before.count, 3)
        csv("rows.csv", "order,service,quantity,price\n2026-001,Repair,1,2.00\n2026-001,Repair,x,2.00\n2026-001,Repair,3,2.00\n")
        let r = bk(["import", "OrderRow", "rows.csv", "--on-error", "skip", "--rejects", "rejects.csv"] + rowMaps)
        XCTAssertEqual(r.status, 65, "\(r)")
        XCTAssertTrue(r.stderr.contains("rows.csv:3:17: column \"quantity\": \"x\" is not a decimal number"), r.stderr)
        XCTAssertEqual(try rows(of: "2026-001"), before, "the document keeps its stored rows")
        let rejects = try String(contentsOfFile: dir.file("rejects.csv"), encoding: .utf8)
        XCTAssertEqual(rejects.split(separator: "\n").count, 4, "the header and all three lines: \(rejects)")
        // The fixed rejects file gives the document its three rows.
        try rejects.replacingOccurrences(of: ",x,", with: ",2,").write(toFile: dir.file("fixed.csv"), atomically: true, encoding: .utf8)
        let again = bk(["import", "OrderRow", "fixed.csv"] + rowMaps)
        XCTAssertEqual(again.status, 0, "\(again)")
        XCTAssertEqual(try rows(of: "2026-001"), ["Repair 1000 200", "Repair 2000 200", "Repair 3000 200"], "quantities and prices as stored (scaled)")
        XCTAssertEqual(bk("check").status, 0)
    }

    /// A line with a field missing was rejected alone, and its document kept its other lines (so its stored rows
    /// were replaced by two of three): a line that still names its document is rejected with it.
    func testALineWithAFieldMissingWasRejectedAloneAndItsDocumentKeptTheOthers() throws {
        importSampleData()
        let before = try rows(of: "2026-001")
        csv("rows.csv", "order,service,quantity,price\n2026-001,Repair,1,2.00\n2026-001,Repair,2\n2026-001,Repair,3,2.00\n2026-002,Repair,3,2.00\n")
        let r = bk(["import", "OrderRow", "rows.csv", "--on-error", "skip", "--rejects", "rejects.csv"] + rowMaps)
        XCTAssertEqual(r.status, 65, "\(r)")
        XCTAssertTrue(r.stderr.contains("rows.csv:3: 3 fields, but the header has 4"), r.stderr)
        XCTAssertEqual(try rows(of: "2026-001"), before)
        XCTAssertEqual(try rows(of: "2026-002"), ["Repair 3000 200"])
        let rejects = try String(contentsOfFile: dir.file("rejects.csv"), encoding: .utf8)
        XCTAssertEqual(rejects.split(separator: "\n").count, 4, rejects)
        // The same in a file of documents with their rows.
        csv("docs.csv", "number,date,customer,made,paid,rows.service,rows.quantity,rows.price\n"
            + "M-1,2025-01-01,Acme Ltd,yes,no,Repair,1,2.00\nM-1,2025-01-01,Acme Ltd,yes,no,Repair,2,2.00,9\nM-2,2025-01-01,Acme Ltd,yes,no,Repair,1,2.00\n")
        let d = bk("import", "Order", "docs.csv", "--on-error", "skip")
        XCTAssertEqual(d.status, 65, "\(d)")
        XCTAssertEqual(try query("SELECT number FROM \"Order\" WHERE number LIKE 'M-%'"), ["M-2"])
    }

    /// A document named in NFC on one line and NFD on another (which the store matches as one key) is one document:
    /// a bad line in one form rejects the lines in the other too.
    func testADocumentsLinesInTwoNormalFormsAreOneDocument() throws {
        importSampleData()
        let nfc = "CAF\u{C9}-1", nfd = "CAFE\u{301}-1"
        csv("o.csv", "number,date,customer,made,paid,rows.service,rows.quantity,rows.price\n\(nfc),2025-01-01,Acme Ltd,yes,no,Repair,1,2.00\n")
        XCTAssertEqual(bk("import", "Order", "o.csv", "--quiet").status, 0)
        let before = try rows(of: nfc)
        csv("rows.csv", "order,service,quantity,price\n\(nfc),Repair,5,2.00\n\(nfd),Repair,x,2.00\n")
        let r = bk(["import", "OrderRow", "rows.csv", "--on-error", "skip"] + rowMaps)
        XCTAssertEqual(r.status, 65, "\(r)")
        XCTAssertEqual(try rows(of: nfc), before)
        // And in a file of documents with their rows.
        csv("d.csv", "number,date,customer,made,paid,rows.service,rows.quantity,rows.price\n"
            + "\(nfc),2025-01-01,Acme Ltd,yes,no,Repair,7,2.00\n\(nfd),2025-01-01,Acme Ltd,yes,no,Repair,x,2.00\n")
        XCTAssertEqual(bk("import", "Order", "d.csv", "--on-error", "skip").status, 65)
        XCTAssertEqual(try rows(of: nfc), before)
        XCTAssertEqual(try query("SELECT count(*) FROM \"Order\" WHERE number LIKE 'CAF%'"), ["1"])
    }

    /// A named pipe was opened twice (the reader and the hashing thread): it hung, or the two readers split the
    /// stream, and records were neither imported nor rejected. A FIFO is read once, as standard input is.
    func testANamedPipeWasOpenedTwiceAndItsReadersSplitTheStream() throws {
        importSampleData()
        var text = "number,date,customer,made,paid,rows.service,rows.quantity,rows.price\n"
        for i in 0..<3000 { text += "P-\(i / 3),2025-01-01,Acme Ltd,yes,no,Repair,\(i % 7 + 1),2.00\n" }
        let fifo = dir.file("orders.pipe")
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let bytes = Array(text.utf8)
        let writer = Thread {
            let fd = open(fifo, O_WRONLY)
            guard fd >= 0 else { return }
            var offset = 0
            while offset < bytes.count {
                let n = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, min($0.count, 4096)) }
                if n <= 0 { break }
                offset += n
            }
            close(fd)
        }
        writer.start()
        let r = bk("import", "Order", "orders.pipe", "--summary", "json")
        XCTAssertEqual(r.status, 0, "\(r)")
        let summary = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        XCTAssertEqual(summary?["records"] as? Int, 3000)
        XCTAssertEqual(try query("SELECT count(*) FROM \"Order\" WHERE number LIKE 'P-%'"), ["1000"])
        XCTAssertEqual(try query("SELECT count(*) FROM OrderRow r JOIN \"Order\" o ON o.id = r.order_id WHERE o.number LIKE 'P-%'"), ["3000"])
        // The history has the hash of every byte, as for a file.
        let sha = try query("SELECT sha256 FROM _bookkeeper_imports ORDER BY id DESC LIMIT 1")
        dir.write("same.csv", text)
        let file = bk("import", "Order", "same.csv", "--dry-run", "--summary", "json")
        let fileSummary = try JSONSerialization.jsonObject(with: Data(file.stdout.utf8)) as? [String: Any]
        XCTAssertEqual(sha, [fileSummary?["sha256"] as? String ?? "?"])
    }

    /// A named pipe cannot be read again: a document whose lines are apart and fail late is refused as from
    /// standard input, naming the lines to put together, and nothing is imported.
    func testADocumentSplitAcrossANamedPipeIsRefusedAsFromStandardInput() throws {
        importSampleData()
        let before = try contents()
        let text = "number,date,customer,made,paid,rows.service,rows.quantity,rows.price\n"
            + "Q-1,2025-01-01,Acme Ltd,yes,no,Repair,1,2.00\nQ-2,2025-01-01,Acme Ltd,yes,no,Repair,1,2.00\n"
            + "Q-1,2025-01-01,Acme Ltd,yes,no,Repair,x,2.00\n"
        let fifo = dir.file("orders.pipe")
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let writer = Thread {
            let fd = open(fifo, O_WRONLY)
            guard fd >= 0 else { return }
            _ = text.withCString { write(fd, $0, strlen($0)) }
            close(fd)
        }
        writer.start()
        let r = bk("import", "Order", "orders.pipe", "--on-error", "skip")
        XCTAssertEqual(r.status, 65, "\(r)")
        XCTAssertTrue(r.stderr.contains("its lines are not together"), r.stderr)
        XCTAssertEqual(try contents(), before)
    }

    // MARK: The property: documents in random order, bad lines anywhere

    private struct Doc {
        var number: String
        var rows: [(service: String, quantity: String, price: String)]
        var bad: Bool { rows.contains { $0.quantity == "x" || $0.service == "Nothing" } }
    }

    /// Generated files of documents with their rows (both shapes: one file, and a row table on its own), the lines
    /// shuffled and bad lines anywhere, imported with --on-error skip: the store equals a reference built from the
    /// documents without a bad line (the others keep what they had), the rejects file holds exactly the lines of
    /// the rejected documents, and the file is read at most twice.
    func testDocumentsInRandomOrderWithBadLinesAnywhereEqualTheReference() throws {
        let trials = Trials.count("BOOKKEEPER_DOCUMENT_TRIALS", quick: 6, stress: 60)
        let seed = Trials.seed(fixed: 2024)
        var rng = SeededGenerator(seed: seed)
        importSampleData()
        let services = ["Repair", "Support plan", "Delivery", "Installation"]
        var expected: [String: [String]] = [:]
        for number in try query("SELECT number FROM \"Order\"") { expected[number] = try rows(of: number) }
        var maxPasses = 0
        for trial in 0..<trials {
            let rowTable = trial % 2 == 1
            var docs: [Doc] = []
            let count = Int.random(in: 5...40, using: &rng)
            for d in 0..<count {
                // Existing documents too, so that a rejected one must keep its stored rows.
                let number = Int.random(in: 0..<4, using: &rng) == 0 ? String(format: "2026-%03d", Int.random(in: 1...50, using: &rng))
                                                                     : "T\(trial)-\(d)"
                if docs.contains(where: { $0.number == number }) { continue }
                var doc = Doc(number: number, rows: [])
                for _ in 0..<Int.random(in: 1...4, using: &rng) {
                    let bad = Int.random(in: 0..<12, using: &rng)
                    doc.rows.append((service: bad == 0 ? "Nothing" : services.randomElement(using: &rng)!,
                                     quantity: bad == 1 ? "x" : "\(Int.random(in: 1...9, using: &rng))",
                                     price: "\(Int.random(in: 1...99, using: &rng)).50"))
                }
                docs.append(doc)
            }
            if rowTable {
                // The row table names documents that exist: make the new ones first.
                let own = "number,date,customer,made,paid\n" + docs.filter { !$0.number.hasPrefix("2026-") }
                    .map { "\($0.number),2025-01-01,Acme Ltd,yes,no\n" }.joined()
                csv("own.csv", own)
                _ = ok("import", "Order", "own.csv", "--quiet")
                for d in docs where expected[d.number] == nil { expected[d.number] = [] }
            }
            var lines: [(doc: String, text: String)] = []
            for d in docs {
                for r in d.rows {
                    let text = rowTable ? "\(d.number),\(r.service),\(r.quantity),\(r.price)"
                                        : "\(d.number),2025-01-01,Acme Ltd,yes,no,\(r.service),\(r.quantity),\(r.price)"
                    lines.append((d.number, text))
                }
            }
            lines.shuffle(using: &rng)
            let header = rowTable ? "order,service,quantity,price" : "number,date,customer,made,paid,rows.service,rows.quantity,rows.price"
            csv("in.csv", header + "\n" + lines.map { $0.text + "\n" }.joined())
            let args = rowTable ? ["import", "OrderRow", "in.csv"] + rowMaps : ["import", "Order", "in.csv"]
            let r = bk(args + ["--on-error", "skip", "--rejects", "rejects.csv", "--summary", "json"])
            let rejected = Set(docs.filter(\.bad).map(\.number))
            XCTAssertEqual(r.status, rejected.isEmpty ? 0 : 65, "trial \(trial) (seed \(seed)): \(r.stderr)")
            let summary = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
            maxPasses = max(maxPasses, summary?["passes"] as? Int ?? 99)
            XCTAssertLessThanOrEqual(summary?["passes"] as? Int ?? 99, 2, "trial \(trial)")
            // The order of a document's rows is the file's order of its lines.
            for d in docs where !d.bad {
                expected[d.number] = lines.filter { $0.doc == d.number }.map { line in
                    let r = d.rows.first { line.text.hasSuffix(",\($0.service),\($0.quantity),\($0.price)") }!
                    // As stored: quantity at scale 3, price at scale 2.
                    return "\(r.service) \(Int(r.quantity)! * 1000) \(Int(r.price.dropLast(3))! * 100 + 50)"
                }
            }
            for (number, want) in expected {
                XCTAssertEqual(try rows(of: number), want, "trial \(trial) (seed \(seed)): \(number)")
            }
            if !rejected.isEmpty {
                let text = try String(contentsOfFile: dir.file("rejects.csv"), encoding: .utf8)
                let got = text.split(separator: "\n").dropFirst().map { line -> String in
                    // Each line as it was, then the reason column.
                    String(line.split(separator: ",", omittingEmptySubsequences: false).prefix(rowTable ? 4 : 8).joined(separator: ","))
                }
                XCTAssertEqual(got.sorted(), lines.filter { rejected.contains($0.doc) }.map(\.text).sorted(), "trial \(trial)")
            }
            XCTAssertEqual(bk("check").status, 0)
        }
        reportTrials("documents whole", "seed \(seed), \(trials) files of shuffled documents with bad lines, both shapes; read at most \(maxPasses) times; store equal to the reference")
    }
}
