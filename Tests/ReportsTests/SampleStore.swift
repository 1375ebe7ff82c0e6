// SampleData/ loaded into a store for the report tests, through the object store's own API: each CSV
// record becomes `key=value` assignments (as `bookkeeper add` takes them), validated and saved. This
// path does not use the importer, so the reports are checked against data loaded independently of it.

import Bookkeeping
import CSV
import Foundation
import LocalTime
import ObjectStore
import ReportRenderers
import Reports
import TestSupport
import XCTest

enum SampleStore {
    /// The store, built once per test run (reports only read it).
    nonisolated(unsafe) private static var built: (path: String, directory: TemporaryDirectory)?
    private static let lock = NSLock()

    /// The path of a store holding SampleData/.
    static func path() throws -> String {
        lock.lock()
        defer { lock.unlock() }
        if let built { return built.path }
        let directory = TemporaryDirectory("bookkeeper-reports-sample")
        let path = directory.file("sample.sqlite")
        try load(into: path)
        built = (path, directory)
        // Removed when the test process ends (the value is never released otherwise).
        atexit { SampleStore.built = nil }
        return path
    }

    static func open() throws -> Store {
        try Store.open(at: path(), model: BookkeepingModel.model, readOnly: true)
    }

    /// The fixed clock of every expected output: 2026-11-21 00:00 UTC (SampleData runs to November 2026).
    static let clock = ReportClock(now: Date(timeIntervalSince1970: 1_795_219_200), timeZone: .utc)

    static var sampleData: URL { packageRoot.appendingPathComponent("SampleData") }

    private static func records(_ file: String) throws -> [[String: String]] {
        let rows = try CSVReader(path: sampleData.appendingPathComponent(file).path).readAll()
        let header = rows[0]
        return rows.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(header, $0)) }
    }

    private static func load(into path: String) throws {
        let store = try Store.create(at: path, model: BookkeepingModel.model)
        let context = ObjectContext(store: store)
        func add(_ entity: String, _ values: [(String, String)]) throws {
            let object = try context.insert(entity)
            try context.apply(values.filter { !$0.1.isEmpty }.map { Assignment(key: $0.0, value: $0.1) }, to: object)
        }
        for r in try records("tags.csv") { try add("Tag", [("name", r["name"]!)]) }
        for r in try records("services.csv") { try add("Service", [("code", r["code"]!), ("name", r["name"]!), ("info", r["info"]!)]) }
        try context.save()
        for r in try records("customers.csv") {
            try add("Customer", [("code", r["code"]!), ("name", r["name"]!), ("info", r["info"]!), ("tags", r["tags"]!)])
        }
        try context.save()
        var seen: Set<String> = []
        for r in try records("orders.csv") {
            let number = r["number"]!
            if seen.insert(number).inserted {
                try add("Order", [("number", number), ("date", r["date"]!), ("customer", r["customer"]!),
                                  ("made", r["made"]!), ("paid", r["paid"]!)])
                try context.save()
            }
            if !r["rows.service"]!.isEmpty {
                try add("OrderRow", [("order", number), ("service", r["rows.service"]!), ("quantity", r["rows.quantity"]!),
                                     ("price", r["rows.price"]!), ("sum", r["rows.sum"]!)])
            }
        }
        try context.save()
    }
}

/// A cell as SQL gives the stored value back (see TestSupport's `queryRows`): decimals as their integer units,
/// dates as ISO text, booleans 1/0, null as NULL.
func storedText(_ cell: ReportCell) -> String {
    switch cell {
    case .null: return "NULL"
    case .text(let s): return s
    case .integer(let i): return String(i)
    case .decimal(let units, _): return String(units)
    case .double(let d): return String(d)
    case .date(let y, let m, let d): return String(format: "%04d-%02d-%02d", y, m, d)
    case .dateTime(let s): return String(s)
    case .boolean(let b): return b ? "1" : "0"
    // SQL's group_concat(…, ', ') of the items; NULL for none.
    case .list(let items): return items.isEmpty ? "NULL" : items.map(storedText).joined(separator: ", ")
    }
}

/// The shipped definitions (Reports/ in the project).
enum ShippedReports {
    static var directory: String { packageRoot.appendingPathComponent("Reports").path }
    static var library: ReportLibrary { ReportLibrary(directories: [directory]) }

    static func prepared(_ name: String, _ arguments: [String: String] = [:]) throws -> PreparedReport {
        try PreparedReport(library.definition(named: name), model: BookkeepingModel.model,
                           arguments: ParameterArguments(arguments), clock: SampleStore.clock)
    }
}
