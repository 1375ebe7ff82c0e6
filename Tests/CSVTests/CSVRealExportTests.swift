// Real exports from other systems (shared/datasets; each folder's SOURCE.md says where they come
// from and what is odd about them). Facts checked here were read off the files independently.

import Foundation
import XCTest
@testable import CSV

final class CSVRealExportTests: XCTestCase {
    private func readAll(_ folder: String, _ file: String, _ options: CSVReader.Options = CSVReader.Options(fieldCount: .sameAsHeader))
        throws -> (rows: [[String]], reader: CSVReader) {
        let reader = try CSVReader(path: Datasets.file(folder, file), displayName: file, options: options)
        return (try reader.readAll(), reader)
    }

    // MARK: FDIC failed bank list

    func testBanklistWindows1252WithNBSPHeaderCells() throws {
        let (rows, reader) = try readAll("fdic-banklist", "banklist.csv")
        XCTAssertEqual(reader.encoding, .windows1252)
        XCTAssertEqual(rows.count, 567)
        XCTAssertEqual(rows[0], ["Bank Name\u{A0}", "City\u{A0}", "State\u{A0}", "Cert\u{A0}",
                                 "Acquiring Institution\u{A0}", "Closing Date\u{A0}", "Fund"])
        XCTAssertEqual(rows[3], ["Silicon Valley Bank", "Santa Clara", "CA", "24735",
                                 "First–Citizens Bank & Trust Company", "10-Mar-23", "10539"])
        XCTAssertEqual(rows[3][4].unicodeScalars.map(\.value)[5], 0x2013, "a real en dash")
        XCTAssertEqual(rows[1][4], "JPMorgan Chase Bank, N.A.")
        XCTAssertEqual(rows.last, ["Bank of Honolulu", "Honolulu", "HI", "21029", "Bank of the Orient", "13-Oct-00", "4645"])
    }

    func testBanklistReadAsUTF8FailsAtTheFirstWindows1252Byte() throws {
        let nbsp = try CSVReader(path: Datasets.file("fdic-banklist", "banklist.csv"), displayName: "banklist.csv",
                                 options: CSVReader.Options(encoding: .utf8))
        XCTAssertEqual(csvError { _ = try nbsp.readAll() }?.description,
                       "banklist.csv:1: bytes 0xA0 at offset 9 are not UTF-8 — try --encoding windows-1252",
                       "the NBSP after the first header name")

        let reader = try CSVReader(path: Datasets.file("fdic-banklist", "banklist_2023-11_crlf.csv"), displayName: "banklist.csv",
                                   options: CSVReader.Options(encoding: .utf8))
        let error = csvError { _ = try reader.readAll() }
        XCTAssertEqual(error?.description, "banklist.csv:6: bytes 0x96 at offset 431 are not UTF-8 — try --encoding windows-1252")
        XCTAssertEqual(reader.recordCount, 6, "the five records before it were delivered; the sixth is the bad one")
    }

    func testBanklistCRLFWithoutFinalNewlineAndSpacesAfterHeaderNames() throws {
        let (rows, reader) = try readAll("fdic-banklist", "banklist_2023-07_no-final-newline.csv")
        XCTAssertEqual(reader.encoding, .windows1252)
        XCTAssertEqual(rows.count, 568)
        XCTAssertEqual(rows[0], ["Bank Name", "City ", "State ", "Cert ", "Acquiring Institution ", "Closing Date ", "Fund"])
        XCTAssertEqual(rows[4][4], "First–Citizens Bank & Trust Company")
        XCTAssertEqual(rows.last, ["Bank of Honolulu", "Honolulu", "HI", "21029", "Bank of the Orient", "13-Oct-00", "4645"])
    }

    func testBanklistCRLF() throws {
        let (rows, reader) = try readAll("fdic-banklist", "banklist_2023-11_crlf.csv")
        XCTAssertEqual(reader.encoding, .windows1252)
        XCTAssertEqual(rows.count, 569)
        XCTAssertEqual(rows[1], ["Citizens Bank", "Sac City", "IA", "8758", "Iowa Trust & Savings Bank", "03-Nov-23", "10545"])
        XCTAssertEqual(rows[5][4], "First–Citizens Bank & Trust Company")
        XCTAssertTrue(rows.allSatisfy { !$0.joined().contains("\r") }, "no CR left in any value")
    }

    func testBanklistOlderSnapshots() throws {
        let (rows2017, reader2017) = try readAll("fdic-banklist", "banklist_2017_with-duplicates.csv")
        XCTAssertEqual(reader2017.encoding, .utf8, "ASCII")
        XCTAssertEqual(rows2017.count, 560)
        XCTAssertEqual(rows2017[0], ["Bank Name", "City", "ST", "CERT", "Acquiring Institution", "Closing Date", "Updated Date"])
        XCTAssertEqual(Set(rows2017).count, 551, "the 9 duplicated rows")

        let (rows2012, _) = try readAll("fdic-banklist", "banklist_2012.csv")
        XCTAssertEqual(rows2012.count, 466)
        XCTAssertEqual(rows2012[0][3], "CERT #")
        XCTAssertEqual(rows2012.filter { $0[0].hasSuffix(" ") }.count, 14, "trailing spaces are kept")
        XCTAssertTrue(rows2012.contains { $0[0] == "New City Bank " && $0[1] == "Chicago" })
    }

    // MARK: Northwind

    func testNorthwindEveryFileIsRegular() throws {
        let expected = ["categories.csv": 9, "customers.csv": 92, "employee_territories.csv": 50, "employees.csv": 10,
                        "order_details.csv": 2156, "orders.csv": 831, "products.csv": 78, "regions.csv": 5,
                        "shippers.csv": 4, "suppliers.csv": 30, "territories.csv": 54]
        for (file, count) in expected {
            let (rows, reader) = try readAll("northwind", file)
            XCTAssertEqual(rows.count, count, file)
            XCTAssertEqual(reader.encoding, .utf8, file)
            XCTAssertEqual(reader.blankLinesSkipped, 0, file)
        }
        let (customers, _) = try readAll("northwind", "customers.csv")
        let blondel = try XCTUnwrap(customers.first { $0[0] == "BLONP" })
        XCTAssertEqual(blondel[2], "Frédérique Citeaux")
        XCTAssertEqual(blondel[4], "24 place Kléber")
        XCTAssertEqual(blondel[6], "NULL")
    }

    func testNorthwindNeo4jRowsWithOneFieldTooMany() throws {
        for (file, header, bad, first) in [("customers.csv", 11, 24, 8), ("orders.csv", 14, 176, 4), ("suppliers.csv", 12, 9, 8)] {
            let path = try Datasets.file("northwind-neo4j", file)
            let reader = try CSVReader(path: path, displayName: file, options: CSVReader.Options(fieldCount: .sameAsHeader))
            var errors: [CSVError] = []
            var good = 0
            while true {
                do {
                    guard try reader.next() != nil else { break }
                    good += 1
                } catch let error as CSVError {
                    errors.append(error)
                }
            }
            XCTAssertEqual(errors.count, bad, file)
            XCTAssertEqual(good + errors.count, reader.recordCount, file)
            XCTAssertEqual(errors.first?.description, "\(file):\(first): \(header + 1) fields, but the header has \(header)")
            XCTAssertTrue(errors.allSatisfy { $0.kind == .fieldCountMismatch(found: header + 1, expected: header, expectedIsHeader: true) })
        }
    }

    func testNorthwindNeo4jTheBadRowAsTheReaderSeesIt() throws {
        let reader = try CSVReader(path: Datasets.file("northwind-neo4j", "suppliers.csv"))
        var pavlova: [String]?
        while let record = try reader.next() {
            guard record.line == 8 else { continue }
            pavlova = Array(record)
            XCTAssertEqual(record.rawText.prefix(15), "7,Pavlova, Ltd.")
            XCTAssertEqual(record.position(ofField: 2), CSVPosition(line: 8, column: 11))
        }
        XCTAssertEqual(pavlova?.prefix(4), ["7", "Pavlova", " Ltd.", "Ian Devling"])
    }

    func testNorthwindPostgreSQLExport() throws {
        let (headerOnly, _) = try readAll("northwind-psql", "customer_customer_demo.csv")
        XCTAssertEqual(headerOnly.count, 1)
        let (demographics, _) = try readAll("northwind-psql", "customer_demographics.csv")
        XCTAssertEqual(demographics.count, 1)
        let (shippers, _) = try readAll("northwind-psql", "shippers.csv")
        XCTAssertEqual(shippers.count, 7)
        let (employees, _) = try readAll("northwind-psql", "employees.csv")
        XCTAssertEqual(employees[1][7], "507 - 20th Ave. E.\\nApt. 2A", "a literal backslash-n, not a line break")
        XCTAssertEqual(employees[1][14], "\\x")
        let (orders, _) = try readAll("northwind-psql", "orders.csv")
        XCTAssertEqual(orders.count, 831)
        let (states, _) = try readAll("northwind-psql", "us_states.csv")
        XCTAssertEqual(states.count, 52)
    }

    // MARK: Chinook

    func testChinookInvoicesAddUp() throws {
        let (customers, customerReader) = try readAll("chinook", "Customer.csv")
        XCTAssertEqual(customers.count, 60)
        XCTAssertEqual(customerReader.encoding, .utf8)
        XCTAssertEqual(Array(customers[1][1...2]), ["Luís", "Gonçalves"])
        XCTAssertEqual(customers[1][4], "Av. Brigadeiro Faria Lima, 2170")

        let (invoices, _) = try readAll("chinook", "Invoice.csv")
        let (lines, _) = try readAll("chinook", "InvoiceLine.csv")
        XCTAssertEqual(invoices.count, 413)
        XCTAssertEqual(lines.count, 2241)
        XCTAssertEqual(invoices.last, ["412", "58", "2013-12-22 0:00:00", "12,Community Centre", "Delhi", "", "India", "110017", "1.99"])

        // Every invoice total is the sum of its lines (in cents).
        func cents(_ text: String) -> Int { Int((Double(text)! * 100).rounded()) }
        var sums: [String: Int] = [:]
        for line in lines.dropFirst() { sums[line[1], default: 0] += cents(line[3]) * Int(line[4])! }
        for invoice in invoices.dropFirst() { XCTAssertEqual(sums[invoice[0]], cents(invoice[8]), "invoice \(invoice[0])") }
        let customerIDs = Set(customers.dropFirst().map { $0[0] })
        XCTAssertTrue(invoices.dropFirst().allSatisfy { customerIDs.contains($0[1]) })
    }
}
