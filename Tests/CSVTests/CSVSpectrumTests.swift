// The csv-spectrum acid tests (shared/datasets/csv-spectrum): each csvs/X.csv, read with the
// default options (delimiter and encoding guessed), must equal json/X.json, an array of objects
// keyed by the header.

import Foundation
import XCTest
@testable import CSV

final class CSVSpectrumTests: XCTestCase {
    /// Upstream fixture bugs, checked so that a fixed fixture shows up here:
    /// location_coordinates.json is a bare object, not an array, and its phone number
    /// (1234567890) is not the one in the CSV (2095257564).
    private func repairedExpectation(_ name: String, _ json: Any) throws -> [[String: String]] {
        if name == "location_coordinates" {
            var object = try XCTUnwrap(json as? [String: String], "location_coordinates.json is no longer a bare object")
            XCTAssertEqual(object["Contact Phone Number"], "1234567890", "location_coordinates.json changed upstream")
            object["Contact Phone Number"] = "2095257564"
            return [object]
        }
        return try XCTUnwrap(json as? [[String: String]], "\(name).json is not an array of objects")
    }

    func testEveryFileMatchesItsJSON() throws {
        let folder = try Datasets.folder("csv-spectrum")
        let csvs = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("csvs").path)
            .filter { $0.hasSuffix(".csv") }.sorted()
        XCTAssertEqual(csvs.count, 12)
        for file in csvs {
            let name = String(file.dropLast(4))
            let json = try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("json/\(name).json")))
            let expected = try repairedExpectation(name, json)

            let reader = try CSVReader(path: folder.appendingPathComponent("csvs/\(file)").path, displayName: file,
                                       options: CSVReader.Options(fieldCount: .sameAsHeader))
            let header = try XCTUnwrap(reader.next().map(Array.init), file)
            var objects: [[String: String]] = []
            while let record = try reader.next() {
                objects.append(Dictionary(uniqueKeysWithValues: zip(header, record)))
            }
            XCTAssertEqual(objects, expected, file)
            XCTAssertEqual(reader.encoding, .utf8, file)
            XCTAssertEqual(reader.delimiter, UInt8(ascii: ","), file)
        }
    }

    func testLineEndsOfTheCRLFFilesAreKeptInsideQuotes() throws {
        let path = try Datasets.file("csv-spectrum", "csvs/newlines_crlf.csv")
        let reader = try CSVReader(path: path)
        let lines = try (0..<4).map { _ in try XCTUnwrap(reader.next()).line }
        XCTAssertEqual(lines, [1, 2, 3, 5])
    }
}
