import Foundation
import XCTest
import TestSupport

/// Issue 24, found by the second hostile pass: files joined, spelt in two normal forms, accepted rejects repeated.
final class JoinedExportsTests: ImportTestCase {
    /// `cat a.csv b.csv` of two exports with their headers imported b's header as a customer named "name", exit 0.
    func testALineRepeatingTheHeaderWasImportedAsACustomerNamedName() throws {
        importSampleData()
        let before = try contents()
        csv("a.csv", "\u{FEFF}name,info\nZed One,x\n")
        csv("b.csv", "\u{FEFF}name,info\nZed Two,y\n")
        let joined = try String(contentsOfFile: dir.file("a.csv"), encoding: .utf8) + String(contentsOfFile: dir.file("b.csv"), encoding: .utf8)
        csv("ab.csv", joined)
        let r = bk("import", "Customer", "ab.csv")
        XCTAssertEqual(r.status, 65)
        XCTAssertTrue(r.stderr.contains("ab.csv:3: this line is the header again (two files joined?), not a record"), r.stderr)
        XCTAssertEqual(try contents(), before)
        let skip = bk("import", "Customer", "ab.csv", "--on-error", "skip")
        XCTAssertEqual(skip.status, 65)
        XCTAssertEqual(try query("SELECT count(*) FROM Customer WHERE name IN ('name', 'Zed One', 'Zed Two')"), ["2"])
    }

    /// A document whose lines name its customer in NFC on one line and NFD on the next was refused, the message
    /// showing two identical strings ("Café" differs from "Café"): the same text in another normal form agrees.
    func testADocumentsCustomerInTwoNormalFormsWasCalledTwoValues() throws {
        importSampleData()
        csv("c.csv", "name\nCaf\u{E9} Bar\n")
        XCTAssertEqual(bk("import", "Customer", "c.csv", "--quiet").status, 0)
        csv("o.csv", "number,date,customer,made,paid,rows.service,rows.quantity,rows.price\n"
            + "N-1,2025-01-01,Caf\u{E9} Bar,yes,no,Repair,1,2.00\nN-1,2025-01-01,Cafe\u{301} Bar,yes,no,Repair,2,2.00\n")
        let r = bk("import", "Order", "o.csv")
        XCTAssertEqual(r.status, 0, "\(r)")
        XCTAssertEqual(try query("SELECT count(*) FROM OrderRow r JOIN \"Order\" o ON o.id = r.order_id WHERE o.number = 'N-1'"), ["2"])
    }

    /// One accepted rejected line that came three times was "3 rejected lines are known", exit 0: an upstream fault
    /// that repeats a bad line went unnoticed. A known line counts as many times as the accepted file has it.
    func testAnAcceptedLineRepeatedWasKnownEveryTime() throws {
        importSampleData()
        csv("s.csv", "code,name,info\nS97,,x\n")
        XCTAssertEqual(bk("import", "Service", "s.csv", "--key", "code", "--on-error", "skip", "--rejects", "accepted.csv").status, 65)
        csv("s3.csv", "code,name,info\nS97,,x\nS97,,x\nS97,,x\n")
        let r = bk("import", "Service", "s3.csv", "--key", "code", "--on-error", "skip", "--accept-rejects", "accepted.csv")
        XCTAssertEqual(r.status, 65, "\(r)")
        XCTAssertTrue(r.stderr.contains("1 of the rejected lines is known (accepted.csv); 2 are new"), r.stderr)
        XCTAssertEqual(bk("import", "Service", "s.csv", "--key", "code", "--on-error", "skip", "--accept-rejects", "accepted.csv").status, 0)
    }

    /// Text stored decomposed (NFD, as macOS writes it) was refused by an export to a code page that holds it composed
    /// (`"̈" (U+0308) cannot be written in windows-1252`); it is written composed. To standard output, an export that
    /// stops said "nothing was written" after the lines before it had gone out.
    func testNFDTextWasRefusedByAnExportToACodePageThatHoldsItComposed() throws {
        ok("init")
        ok("add", "Customer", "name=U\u{308}ber", "info=n\u{303}andu\u{301}")
        ok("export", "Customer", "c.csv", "--encoding", "windows-1252")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: dir.file("c.csv")))
        XCTAssertEqual(Array(bytes), Array("name,code,info,tags\n".utf8) + [0xDC] + Array("ber,,".utf8) + [0xF1] + Array("and".utf8) + [0xFA] + Array(",\n".utf8))
        ok("add", "Customer", "name=\u{5C71}\u{7530}")
        let r = bk("export", "Customer", "--encoding", "windows-1252")
        XCTAssertEqual(r.status, 65)
        XCTAssertTrue(r.stderr.contains("the output is incomplete: the header and the 1 line before it went to standard output"), r.stderr)
        XCTAssertFalse(r.stderr.contains("nothing was written"), r.stderr)
    }
}
