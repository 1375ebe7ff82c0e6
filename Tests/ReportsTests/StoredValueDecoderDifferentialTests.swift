// One decoder from storage (issue 28): the object context (`Value(stored:as:)` over the storage protocol's reading, as GRDB's), `fetch`
// (`FetchedRow.value`, read in place, and its ASCII text fast path), reports (`CellDecoder` over `StoredRowCursor`'s
// reading) all come from `Value(stored:as:)`, and the text `list`, `show` and messages write (`Value.text(in:)`) is
// the text `fetch --format csv` writes (CellFormatter, from bytes or from a String). Here each
// path reads the same statement's column, for generated stored values of every storage class decoded as every
// attribute type — the odd ones included: infinities, -0.0 and subnormals, integers at Int64's ends, 16-byte blobs
// (what a sum beyond an Int64 is), other blobs, dates and date-times as text, numbers and malformed text, text that
// is not UTF-8 or holds a NUL, NULL — and each path is compared with the others and with the two decoders as they
// were before (copied below), so that a report's cells and the context's values are shown to be those of before.

import Foundation
import GRDB
@testable import ObjectStore
import ReportRenderers
@testable import Reports
import LocalTime
import TestSupport
import XCTest

final class StoredValueDecoderDifferentialTests: XCTestCase {
    static let types: [AttributeType] = [.string, .integer, .decimal(scale: 0), .decimal(scale: 2), .decimal(scale: 6),
                                         .double, .boolean, .date, .dateTime, .binary]

    /// A stored value: an SQL expression over one bound argument.
    struct Sample {
        let sql: String
        let argument: DatabaseValue
    }

    static func sample(_ g: inout SeededGenerator) -> Sample {
        func value(_ v: DatabaseValueConvertible) -> Sample { Sample(sql: "SELECT ?", argument: v.databaseValue) }
        func textBytes(_ bytes: [UInt8]) -> Sample { Sample(sql: "SELECT CAST(? AS TEXT)", argument: Data(bytes).databaseValue) }
        switch g.next(upTo: 9) {
        case 0:
            return g.pick([Sample(sql: "SELECT ?", argument: .null), value(Int64.max), value(Int64.min), value(0), value(-1),
                           value(Double.infinity), value(-Double.infinity), value(-0.0), value(Double.leastNonzeroMagnitude),
                           value(1e300), value(Double.greatestFiniteMagnitude), value(0.1), value(1e16), value(123.5)])
        case 1:
            return value(Int64(bitPattern: g.next()) >> g.next(upTo: 64))
        case 2:
            var d: Double
            repeat { d = Double(bitPattern: g.next()) } while d.isNaN   // SQLite stores NaN as NULL
            return value(d)
        case 3:
            let dates = ["2024-02-29", "2023-02-29", "0001-01-01", "9999-12-31", "0000-01-01", "2024-1-01", "2024-13-01",
                         String(format: "%04d-%02d-%02d", g.next(upTo: 10000), 1 + g.next(upTo: 12), 1 + g.next(upTo: 31))]
            return value(g.pick(dates))
        case 4:
            let times = ["2024-07-01T10:00:00Z", "2024-07-01 10:00:00", "2024-07-01T12:00:00+02:00", "0001-01-01T00:00:00Z",
                         "9999-12-31T23:59:59Z", "0001-01-01T00:00:00+01:00", "2024-07-01T10:00:00+24:00", "2024-07-01T10:00",
                         String(format: "%04d-%02d-%02dT%02d:%02d:%02dZ", 1 + g.next(upTo: 9999), 1 + g.next(upTo: 12),
                                1 + g.next(upTo: 28), g.next(upTo: 24), g.next(upTo: 60), g.next(upTo: 60))]
            return value(g.pick(times))
        case 5:
            return value(g.pick(["", "Acme", "Zoë", "日本語", "😀", "1e5", "12.50", "yes", "0x00ff", " spaced ", "a,\"b\"\nc"]))
        case 6:
            // Not UTF-8, or with a NUL: only another tool can store such text.
            let bytes: [[UInt8]] = [[0x41, 0xFF, 0x42], [0x61, 0x00, 0x62], [0xC3], [0xED, 0xA0, 0x80], [0x00],
                                    (0..<(1 + g.next(upTo: 6))).map { _ in UInt8(g.next(upTo: 256)) }]
            return textBytes(g.pick(bytes))
        case 7:
            // 16 bytes: a sum beyond an Int64 (WideInteger.swift), or any blob of that length.
            let wide = Int128(Int64(bitPattern: g.next())) * Int128(Int64(bitPattern: g.next()))
            return g.next(upTo: 2) == 0 ? Sample(sql: "SELECT ?", argument: WideInteger.encode(wide).databaseValue)
                : value(Data((0..<16).map { _ in UInt8(g.next(upTo: 256)) }))
        default:
            return value(Data((0..<g.pick([0, 1, 2, 15, 17, 40])).map { _ in UInt8(g.next(upTo: 256)) }))
        }
    }

    func testEveryPathDecodesAStoredValueAsTheOneDecoderDoes() throws {
        let seed = Trials.seed(fixed: 2829)
        var g = SeededGenerator(seed: seed)
        let db = try DatabaseQueue()
        let zone = try Zone(tz: "America/New_York")
        let cells = CellFormatter(timeZone: zone)
        var compared = 0, changed = 0
        try db.read { db in
            for _ in 0..<3000 {
                let sample = Self.sample(&g)
                // GRDB's reading of the column, and the storage protocol's (SQLiteConnection).
                let row = try XCTUnwrap(try Row.fetchOne(db, sql: sample.sql, arguments: StatementArguments([sample.argument])))
                let statement = try db.storage.prepare(sample.sql)
                statement.bind([StoredValue(sample.argument)])
                XCTAssertTrue(try statement.step())
                let stored = statement.column(0)
                XCTAssertEqual(stored, StoredValue(row[0] as DatabaseValue), "\(sample): the two readers of a column, seed \(seed)")
                for type in Self.types {
                    let value = Value(stored: stored, as: type)
                    // The object context's path, and the decoder before this change.
                    XCTAssertEqual(Value(databaseValue: row[0], as: type), value, "\(sample) as \(type), seed \(seed)")
                    XCTAssertEqual(LegacyDecoders.value(row[0], as: type), value, "\(sample) as \(type): as before, seed \(seed)")
                    // fetch: the row read in place, and its text fast path.
                    let fetched = FetchedRow(statement: statement, types: [type])
                    XCTAssertEqual(fetched.value(0), value, "\(sample) as \(type), seed \(seed)")
                    if let fast = fetched.withASCIIText(0, { String(decoding: $0, as: UTF8.self) }) {
                        XCTAssertEqual(Value.string(fast), value, "\(sample) as \(type): the fast path, seed \(seed)")
                    }
                    // The text of list, show and messages (the engine's), and of fetch's CSV, from its bytes and from
                    // its String (the renderers').
                    let text = value.text(in: zone)
                    XCTAssertEqual(cells.plain(ReportCell(value), as: ColumnFormat(defaultFor: type)), text,
                                   "\(sample) as \(type), seed \(seed)")
                    if !value.isNonFiniteDouble {
                        var bytes: [UInt8] = []
                        cells.appendPlain(ReportCell(value), as: ColumnFormat(defaultFor: type), to: &bytes)
                        XCTAssertEqual(String(decoding: bytes, as: UTF8.self), text, "\(sample) as \(type), seed \(seed)")
                    }
                    // Reports: every decoder a column can have, against the one before this change.
                    var decoders = [CellDecoder(type)]
                    if case .decimal(let scale) = type { decoders.append(.roundedDecimal(scale: scale, shown: 0)) }
                    if type == .double { decoders += [.roundedDouble(shown: 0), .roundedDouble(shown: 2), .roundedDouble(shown: 8)] }
                    // A report's cell is decoded straight from storage: the cell of the Value.
                    XCTAssertEqual(stored.decoded(as: type) as ReportCell, ReportCell(value), "\(sample) as \(type), seed \(seed)")
                    for decoder in decoders {
                        let cell = decoder.cell(stored)
                        let before = LegacyDecoders.cell(stored, decoder)
                        if let expected = LegacyDecoders.changed(stored, decoder) {
                            // A REAL in a column of another type than double or text: shown as the text fetch has
                            // always written for it; an average stored as an integer: at its scale. STRICT tables
                            // hold neither, and averages are REAL (SQLCompiler), so no report shows a change.
                            XCTAssertEqual(cell, expected, "\(sample) with \(decoder): before \(before), seed \(seed)")
                            changed += 1
                        } else {
                            XCTAssertEqual(cell, before, "\(sample) with \(decoder): as before, seed \(seed)")
                        }
                    }
                    compared += 1
                }
            }
        }
        reportTrials("one decoder from storage", "seed \(seed), \(compared) stored values × types compared, \(changed) report cells of kinds no store holds changed")
    }
}

/// The two decoders as they were before issue 28 (Value+Database.swift and CellDecoder.swift at 0.5.2): oracles.
enum LegacyDecoders {
    static func value(_ dbValue: DatabaseValue, as type: AttributeType) -> Value {
        switch dbValue.storage {
        case .null:
            return .null
        case .int64(let i):
            switch type {
            case .integer: return .integer(i)
            case .decimal(let scale): return .decimal(DecimalNumber(units: Int128(i), scale: scale))
            case .boolean: return .boolean(i != 0)
            case .double: return .double(Double(i))
            default: return .string(String(i))
            }
        case .double(let d):
            return type == .double ? .double(d) : .string(String(d))
        case .string(let s):
            switch type {
            case .string: return .string(s)
            case .date: return Day(iso: s).map(Value.date) ?? .string(s)
            case .dateTime: return Timestamp(iso: s).map(Value.dateTime) ?? .string(s)
            default: return .string(s)
            }
        case .blob(let data):
            if let wide = WideInteger.decode(dbValue) {
                switch type {
                case .integer: return .decimal(DecimalNumber(units: wide, scale: 0))
                case .decimal(let scale): return .decimal(DecimalNumber(units: wide, scale: scale))
                default: break
                }
            }
            return .binary(data)
        }
    }

    static func cell(_ value: StoredValue, _ decoder: CellDecoder) -> ReportCell {
        switch value {
        case .null:
            return .null
        case .integer(let i):
            switch decoder {
            case .integer: return .integer(i)
            case .decimal(let scale): return .decimal(units: Int128(i), scale: scale)
            case .boolean: return .boolean(i != 0)
            case .double: return .double(Double(i))
            case .roundedDecimal(let scale, let shown): return ReportCell.decimal(units: Int128(i), scale: scale).rounded(toScale: shown)
            case .roundedDouble(let shown): return ReportCell.decimal(units: Int128(i), scale: 0).rounded(toScale: shown)
            // (A list's decoder is not one of the old ones: the loop above never makes it.)
            case .text, .date, .dateTime, .binary, .list: return .text(String(i))
            }
        case .real(let d):
            switch decoder {
            case .text: return .text(String(d))
            case .roundedDouble(let shown), .roundedDecimal(_, let shown): return ReportCell.double(d).rounded(toScale: shown)
            default: return .double(d)
            }
        case .text(let s):
            switch decoder {
            case .date: return Day(iso: s).map { .date(year: $0.year, month: $0.month, day: $0.day) } ?? .text(s)
            case .dateTime:
                if let t = Timestamp(iso: s) { return .dateTime(secondsSinceEpoch: t.secondsSinceEpoch) }
                return .text(s)
            default: return .text(s)
            }
        case .blob(let data):
            if let wide = WideInteger.decode(blob: data) {
                switch decoder {
                case .integer: return .decimal(units: wide, scale: 0)
                case .decimal(let scale): return .decimal(units: wide, scale: scale)
                case .roundedDecimal(let scale, let shown): return ReportCell.decimal(units: wide, scale: scale).rounded(toScale: shown)
                default: break
                }
            }
            var hex = "0x"
            for byte in data { hex += (byte < 16 ? "0" : "") + String(byte, radix: 16) }
            return .text(hex)
        }
    }

    /// What the one decoder gives where the report's decoder gave another cell, or nil where they agree: a REAL
    /// decoded as neither a double nor text is the text `String(d)` (the context and fetch always read it so), and an
    /// integer averaged is a double rounded to the average's scale.
    static func changed(_ value: StoredValue, _ decoder: CellDecoder) -> ReportCell? {
        switch (value, decoder) {
        case (.real, .text), (.real, .double), (.real, .roundedDouble): return nil
        case (.real(let d), _): return .text(String(d))
        case (.integer(let i), .roundedDouble(let shown)):
            let rounded = ReportCell.double(Double(i)).rounded(toScale: shown)
            return rounded == cell(value, decoder) ? nil : rounded
        default: return nil
        }
    }
}
