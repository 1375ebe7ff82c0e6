// Text with a long run of combining marks of alternating classes (`Z` and U+0301 U+0316 many times): the standard
// library's normalization, which String's `==`, hashing and NFC use, reorders such a run in time quadratic in its
// length, so one field of 80,000 marks held an import's write lock for seconds, and the 16 MiB a record may hold
// for hours (found by the attack on 0.6.0 before it landed). Unicode's Stream-Safe Text Format allows 30 in a row;
// longer runs are refused where text comes in.

import Foundation
import TestSupport
import XCTest

final class MarkRunTests: SampleStoreTestCase {
    static func marks(_ count: Int) -> String {
        var s = "Z"
        for i in 0..<count { s.unicodeScalars.append(i % 2 == 0 ? "\u{0301}" : "\u{0316}") }
        return s
    }

    func testARunOfMoreThanThirtyCombiningMarksIsRefusedWhereTextComesIn() throws {
        let before = try storeFingerprint(store)
        let reason = { (n: Int) in
            "holds \(n) combining marks in a row at character 2; at most 30 are taken (Unicode's Stream-Safe Text Format), "
                + "as longer runs take time quadratic in their length to compare"
        }
        for n in [31, 40_000] {   // (an argument holds at most 128 KiB)
            dir.write("marks.csv", "code,name,info,tags\nM1,\(Self.marks(n)),info,\n")
            let imported = bk(["import", "Customer", "marks.csv", "--profile", packageRoot.appendingPathComponent("SampleData/customers.yaml").path])
            XCTAssertEqual(imported.status, 65, "\(n): \(imported.stderr.prefix(300))")
            XCTAssertTrue(imported.stderr.hasPrefix("bookkeeper: marks.csv:2:4: column \"name\": the value \(reason(n))\n"), String(imported.stderr.prefix(300)))
            let added = bk(["add", "Customer", "name=\(Self.marks(n))"])
            XCTAssertEqual(added.status, 65, "\(n)")
            XCTAssertTrue(added.stderr.hasSuffix(reason(n) + "\n"), String(added.stderr.suffix(300)))
            let fetched = bk(["fetch", "Customer", "--where", "name == %@", "--arg", Self.marks(n), "--count"])
            XCTAssertEqual(fetched.status, 64, "\(n)")
            XCTAssertEqual(fetched.stderr, "bookkeeper: where:1:9: the text \(reason(n))\n")
        }
        XCTAssertEqual(try storeFingerprint(store), before)
        // Thirty are taken, and the value reads back as it was written.
        dir.write("marks.csv", "code,name,info,tags\nM1,\(Self.marks(30)),info,\n")
        let taken = bk(["import", "Customer", "marks.csv", "--profile", packageRoot.appendingPathComponent("SampleData/customers.yaml").path])
        XCTAssertEqual(taken.status, 0, "\(taken)")
        XCTAssertEqual(bk(["fetch", "Customer", "--where", "code == 'M1'", "--columns", "name", "--format", "csv"]).stdout,
                       "name\n\(Self.marks(30))\n")
        XCTAssertEqual(bk(["fetch", "Customer", "--where", "name == %@", "--arg", Self.marks(30), "--count"]).stdout, "1\n")
    }
}
